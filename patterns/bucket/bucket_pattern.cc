#include "patterns/bucket/bucket_pattern.h"

#include "patterns/bucket/bucket_hook.h"

namespace tigerdoc::patterns::bucket {
namespace {

constexpr char kTimeseries[] = "timeseries";
constexpr char kExpire[] = "expireAfterSeconds";
constexpr char kBucket[] = "bucket";

class BucketPattern : public engine::Pattern {
 public:
  std::string_view name() const override { return kPatternName; }
  std::vector<std::string> option_names() const override { return {kBucket, kExpire, kTimeseries}; }

  StatusWith<bson::BsonDoc> Configure(std::string_view command, const bson_t* given,
                                      const bson_t* previous) const override {
    bson_iter_t timeseries, expire, bucket;
    const bool has_ts = bson_iter_init_find(&timeseries, given, kTimeseries);
    const bool has_expire = bson_iter_init_find(&expire, given, kExpire);
    const bool has_bucket = bson_iter_init_find(&bucket, given, kBucket);
    if (previous != nullptr && !bson_empty(previous)) {
      // collMod of a time-series collection: expireAfterSeconds only.
      if (has_ts || has_bucket) {
        return Status(ErrorCode::kNotImplemented,
                      std::string("collMod of '") + (has_ts ? kTimeseries : kBucket) +
                          "' of a time-series collection is not supported by tigerdoc yet");
      }
      ASSIGN_OR_RETURN(agg::TimeseriesConfig config, agg::TimeseriesConfig::FromCanonical(previous));
      if (has_expire) {
        ASSIGN_OR_RETURN(config.expire_after_seconds,
                         agg::TimeseriesConfig::ParseExpireAfterSeconds(command, &expire));
      }
      return config.ToCanonical();
    }
    if (!has_ts) {
      if (has_expire) {
        return Status(ErrorCode::kInvalidOptions,
                      "'expireAfterSeconds' is only supported on time-series collections or when "
                      "the 'clusteredIndex' option is specified");
      }
      if (has_bucket) {
        return Status(ErrorCode::kInvalidOptions,
                      "'bucket' is only supported on time-series collections: give 'timeseries' "
                      "too");
      }
      return bson::BsonDoc();
    }
    if (command != "create") {
      return Status(ErrorCode::kInvalidOptions,
                    "option not supported on a non-time-series collection: timeseries");
    }
    ASSIGN_OR_RETURN(agg::TimeseriesConfig config,
                     agg::TimeseriesConfig::Parse(command, &timeseries, has_expire ? &expire : nullptr,
                                                  has_bucket ? &bucket : nullptr));
    return config.ToCanonical();
  }

  StatusWith<std::shared_ptr<engine::PatternHook>> Attach(
      storage::Session& /*session*/, const catalog::CollectionEntry& /*coll*/, const bson_t* config,
      engine::AttachReason /*reason*/) const override {
    ASSIGN_OR_RETURN(agg::TimeseriesConfig parsed, agg::TimeseriesConfig::FromCanonical(config));
    return std::shared_ptr<engine::PatternHook>(std::make_shared<BucketHook>(std::move(parsed)));
  }
};

}  // namespace

std::unique_ptr<engine::Pattern> MakeBucketPattern() { return std::make_unique<BucketPattern>(); }

}  // namespace tigerdoc::patterns::bucket
