// Parsing of the size limit options and attachment of their hook.

#include "patterns/size_limits/size_limits_pattern.h"

#include <cmath>
#include <string>

#include "engine/bson/shell_string.h"
#include "patterns/size_limits/size_limits_hook.h"
#include "patterns/size_limits/size_table.h"

namespace tigerdoc::patterns::size_limits {
namespace {

// Partition and shard limits: at least a small document, at most what a
// double holds exactly (drivers may send doubles).
constexpr int64_t kMaxTotalBytes = int64_t{1} << 53;

const char* TypeName(bson_type_t type) {
  switch (type) {
    case BSON_TYPE_UTF8: return "string";
    case BSON_TYPE_DOCUMENT: return "object";
    case BSON_TYPE_ARRAY: return "array";
    case BSON_TYPE_BOOL: return "bool";
    case BSON_TYPE_DATE_TIME: return "date";
    case BSON_TYPE_DECIMAL128: return "decimal";
    case BSON_TYPE_OID: return "objectId";
    default: return "other";
  }
}

// A byte count option: int, long or a whole double; nullopt for null
// (the option is removed).
StatusWith<std::optional<int64_t>> ParseBytes(std::string_view command, const bson_iter_t* it,
                                              int64_t min, int64_t max) {
  const std::string field = "BSON field '" + std::string(command) + "." + bson_iter_key(it) + "'";
  int64_t value = 0;
  switch (bson_iter_type(it)) {
    case BSON_TYPE_NULL: return std::optional<int64_t>();
    case BSON_TYPE_INT32:
    case BSON_TYPE_INT64: value = bson_iter_as_int64(it); break;
    case BSON_TYPE_DOUBLE: {
      double d = bson_iter_double(it);
      if (!std::isfinite(d) || d != std::floor(d) || std::fabs(d) > 9.0e18) {
        return Status(ErrorCode::kFailedToParse,
                      field + " must be a whole number of bytes, got " + bson::ToShellString(it));
      }
      value = static_cast<int64_t>(d);
      break;
    }
    default:
      return Status(ErrorCode::kTypeMismatch, field + " is the wrong type '" +
                                                  TypeName(bson_iter_type(it)) +
                                                  "', expected types '[long, int, double]'");
  }
  if (value < min || value > max) {
    return Status(ErrorCode::kBadValue, field + " must be between " + std::to_string(min) +
                                            " and " + std::to_string(max) + " bytes, got " +
                                            std::to_string(value));
  }
  return std::optional<int64_t>(value);
}

std::optional<int64_t> FieldOf(const bson_t* config, const char* name) {
  bson_iter_t it;
  if (config && bson_iter_init_find(&it, config, name) && BSON_ITER_HOLDS_INT64(&it)) {
    return bson_iter_int64(&it);
  }
  return std::nullopt;
}

class SizeLimitsPattern : public engine::Pattern {
 public:
  std::string_view name() const override { return kPatternName; }
  std::vector<std::string> option_names() const override {
    return {kMaxDocumentBytes, kMaxPartitionBytes, kMaxShardBytes};
  }

  StatusWith<bson::BsonDoc> Configure(std::string_view command, const bson_t* given,
                                      const bson_t* previous) const override {
    // The canonical config holds the options set explicitly, as int64,
    // in a fixed order; empty when none is (the pattern is then off).
    std::optional<int64_t> document = FieldOf(previous, kMaxDocumentBytes);
    std::optional<int64_t> partition = FieldOf(previous, kMaxPartitionBytes);
    std::optional<int64_t> shard = FieldOf(previous, kMaxShardBytes);
    bson_iter_t it;
    bson_iter_init(&it, given);
    while (bson_iter_next(&it)) {
      std::string_view key = bson_iter_key(&it);
      if (key == kMaxDocumentBytes) {
        ASSIGN_OR_RETURN(document,
                         ParseBytes(command, &it, kMinDocumentBytes, kMaxDocumentBytesLimit));
      } else if (key == kMaxPartitionBytes) {
        ASSIGN_OR_RETURN(partition, ParseBytes(command, &it, kMinDocumentBytes, kMaxTotalBytes));
      } else if (key == kMaxShardBytes) {
        ASSIGN_OR_RETURN(shard, ParseBytes(command, &it, kMinDocumentBytes, kMaxTotalBytes));
      }
    }
    bson::BsonDoc out;
    if (document) BSON_APPEND_INT64(out.mutable_get(), kMaxDocumentBytes, *document);
    if (partition) BSON_APPEND_INT64(out.mutable_get(), kMaxPartitionBytes, *partition);
    if (shard) BSON_APPEND_INT64(out.mutable_get(), kMaxShardBytes, *shard);
    return out;
  }

  StatusWith<std::shared_ptr<engine::PatternHook>> Attach(
      storage::Session& session, const catalog::CollectionEntry& coll, const bson_t* config,
      engine::AttachReason /*reason*/) const override {
    Limits limits;
    limits.document = FieldOf(config, kMaxDocumentBytes).value_or(kMaxDocumentBytesLimit);
    limits.partition = FieldOf(config, kMaxPartitionBytes).value_or(0);
    limits.shard = FieldOf(config, kMaxShardBytes).value_or(0);
    // Collections older than the option (collMod) or whose build a crash
    // interrupted get their counters from the documents here.
    RETURN_IF_ERROR(EnsureBuilt(session, coll));
    return std::shared_ptr<engine::PatternHook>(std::make_shared<SizeLimitsHook>(limits, coll));
  }

  Status Detach(storage::Session& session, const catalog::CollectionEntry& coll) const override {
    // Writes stop keeping the counters: mark them stale so that turning
    // the limits on again rebuilds them.
    return MarkIncomplete(session, coll);
  }
};

}  // namespace

std::unique_ptr<engine::Pattern> MakeSizeLimitsPattern() {
  return std::make_unique<SizeLimitsPattern>();
}

}  // namespace tigerdoc::patterns::size_limits
