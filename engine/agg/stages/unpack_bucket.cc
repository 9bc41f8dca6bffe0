// $_internalUnpackBucket: {timeField, [metaField], bucketMaxSpanSeconds}:
// turns each bucket of a time-series collection into its measurements
// (engine/agg/timeseries/bucket_format.h), MongoDB's internal stage of the
// time-series view. Buckets that some filter already excluded never reach
// it (bucket_pushdown.h puts that filter before it).

#include "engine/agg/stage_registry.h"
#include "engine/agg/stages/stage_util.h"
#include "engine/agg/timeseries/bucket_format.h"
#include "engine/agg/timeseries/unpack_spec.h"

namespace tigerdoc::agg {
namespace {

class UnpackBucketStage : public Stage {
 public:
  UnpackBucketStage(StagePtr input, const UnpackSpec* spec) : input_(std::move(input)), spec_(spec) {}

  StatusWith<std::optional<bson::BsonDoc>> Next() override {
    while (pos_ >= pending_.size()) {
      ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> bucket, input_->Next());
      if (!bucket) return std::optional<bson::BsonDoc>();
      ASSIGN_OR_RETURN(pending_, UnpackBucket(bucket->get(), spec_->time_field, spec_->meta_field));
      pos_ = 0;
    }
    return std::optional<bson::BsonDoc>(std::move(pending_[pos_++]));
  }

 private:
  StagePtr input_;
  const UnpackSpec* spec_;
  std::vector<bson::BsonDoc> pending_;
  size_t pos_ = 0;
};

}  // namespace

StatusWith<StageSpecPtr> ParseUnpackBucketStage(const bson_iter_t* spec, const ExpressionContext&) {
  ASSIGN_OR_RETURN(UnpackSpec parsed, UnpackSpec::Parse("$_internalUnpackBucket", spec, false));
  auto shared = std::make_shared<const UnpackSpec>(std::move(parsed));
  return MakeSpec("$_internalUnpackBucket",
                  [shared](StagePtr input, const ExpressionContext*) -> StatusWith<StagePtr> {
                    return StagePtr(std::make_unique<UnpackBucketStage>(std::move(input), shared.get()));
                  });
}

}  // namespace tigerdoc::agg
