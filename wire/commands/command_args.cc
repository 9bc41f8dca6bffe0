#include "wire/commands/command_args.h"

#include "wire/commands/command_arg_values.h"

#include <array>
#include <cmath>

#include "engine/bson/raw_fields.h"
#include "engine/catalog/catalog.h"
#include "engine/bson/type_name.h"

namespace tigerdoc::wire {
namespace {

std::string FieldName(std::string_view command, const char* field) {
  return std::string(command) + "." + field;
}

Status WrongType(std::string_view command, const char* field, bson_type_t got,
                 std::string_view expected) {
  return Status(ErrorCode::kTypeMismatch, "BSON field '" + FieldName(command, field) +
                                              "' is the wrong type '" +
                                              std::string(BsonTypeName(got)) +
                                              "', expected type '" + std::string(expected) + "'");
}

bool FindField(const bson_t* body, const char* field, bson_iter_t* it) {
  return bson::FindTopLevel(body, field, it);
}

}  // namespace

std::string_view BsonTypeName(bson_type_t type) { return bson::TypeName(type); }

bool IsGenericArgument(std::string_view field) {
  static constexpr std::array<std::string_view, 30> kGeneric = {
      "$db", "lsid", "$clusterTime", "$readPreference", "apiVersion", "apiStrict",
      "apiDeprecationErrors", "comment", "maxTimeMS", "readConcern", "writeConcern",
      "txnNumber", "autocommit", "startTransaction", "$audit", "$client", "$configServerState",
      "$gleStats", "$topologyTime", "$oplogQueryData", "$replData", "$queryOptions",
      "databaseVersion", "shardVersion", "clientOperationKey", "mayBypassWriteBlocking",
      "$configTime", "tracking_info", "help", "$traceCtx"};
  for (std::string_view g : kGeneric) {
    if (g == field) return true;
  }
  return false;
}

namespace {

// CheckFields' verdict on one field (not the command name); sets bit i of
// *given (when not null) for known[i]. The command's own names first: they
// are what a request mostly holds besides $db and lsid.
Status CheckField(std::string_view field, std::string_view command,
                  std::span<const std::string_view> known, uint32_t* given = nullptr) {
  for (size_t i = 0; i < known.size(); ++i) {
    if (known[i] != field) continue;
    if (given != nullptr && i < 32) *given |= uint32_t{1} << i;
    return Status::OK();
  }
  if (IsGenericArgument(field)) return Status::OK();
  return Status(ErrorCode::kLocation40415, "BSON field '" + std::string(command) + "." +
                                               std::string(field) + "' is an unknown field.");
}

}  // namespace

Status CheckFields(const bson_t* body, std::string_view command,
                   std::initializer_list<std::string_view> known) {
  bson::RawFields fields(body);
  if (fields.Next()) {  // skip the name
    while (fields.Next()) RETURN_IF_ERROR(CheckField(fields.key(), command, {known.begin(), known.size()}));
  }
  if (!fields.broken()) return Status::OK();
  // An element the fast walk leaves to libbson: the same check over
  // libbson's iteration (which saw the same fields up to there).
  bson_iter_t it;
  if (!bson_iter_init(&it, body) || !bson_iter_next(&it)) return Status::OK();
  while (bson_iter_next(&it)) {
    RETURN_IF_ERROR(CheckField(bson_iter_key(&it), command, {known.begin(), known.size()}));
  }
  return Status::OK();
}

Status CheckFields(const PresentFields& fields, std::string_view command,
                   std::initializer_list<std::string_view> known) {
  uint32_t given = 0;
  return CheckFields(fields, command, {known.begin(), known.size()}, &given);
}

Status CheckFields(const PresentFields& fields, std::string_view command,
                   std::span<const std::string_view> known, uint32_t* given) {
  bool name = true;  // skip the command name
  for (const PresentFields::Field& f : fields.fields()) {
    if (!name) RETURN_IF_ERROR(CheckField(f.name, command, known, given));
    name = false;
  }
  return Status::OK();
}

// Each getter's checks on the element `it` points at (nullptr: absent),
// command_arg_values.h.
StatusWith<std::optional<bson::BsonDoc>> ObjectAt(const bson_iter_t* found,
                                                   std::string_view command, const char* field) {
  if (found == nullptr) return std::optional<bson::BsonDoc>();
  bson_iter_t it = *found;
  if (!BSON_ITER_HOLDS_DOCUMENT(&it)) return WrongType(command, field, bson_iter_type(&it), "object");
  uint32_t len;
  const uint8_t* data;
  bson_iter_document(&it, &len, &data);
  return std::optional<bson::BsonDoc>(bson::BsonDoc::CopyOf(data, len));
}

StatusWith<std::optional<bson::BsonDoc>> GetObject(const bson_t* body, std::string_view command,
                                                    const char* field) {
  bson_iter_t it;
  return ObjectAt(FindField(body, field, &it) ? &it : nullptr, command, field);
}

StatusWith<std::optional<bson::BsonDoc>> GetObject(const PresentFields& fields,
                                                    std::string_view command, const char* field) {
  bson_iter_t it;
  return ObjectAt(fields.Find(field, &it) ? &it : nullptr, command, field);
}

StatusWith<std::optional<bson::BsonDoc>> GetArray(const bson_t* body, std::string_view command,
                                                   const char* field) {
  bson_iter_t it;
  if (!FindField(body, field, &it)) return std::optional<bson::BsonDoc>();
  if (!BSON_ITER_HOLDS_ARRAY(&it)) return WrongType(command, field, bson_iter_type(&it), "array");
  uint32_t len;
  const uint8_t* data;
  bson_iter_array(&it, &len, &data);
  return std::optional<bson::BsonDoc>(bson::BsonDoc::CopyOf(data, len));
}

namespace {

StatusWith<std::optional<int64_t>> Int64At(const bson_iter_t* found, std::string_view command,
                                           const char* field) {
  if (found == nullptr) return std::optional<int64_t>();
  bson_iter_t it = *found;
  switch (bson_iter_type(&it)) {
    case BSON_TYPE_INT32: return std::optional<int64_t>(bson_iter_int32(&it));
    case BSON_TYPE_INT64: return std::optional<int64_t>(bson_iter_int64(&it));
    case BSON_TYPE_DOUBLE: {
      double d = bson_iter_double(&it);
      if (!std::isfinite(d) || d >= 9.2233720368547758e18 || d < -9.2233720368547758e18) {
        return Status(ErrorCode::kBadValue, "BSON field '" + FieldName(command, field) +
                                                "' value cannot be represented as a 64-bit integer");
      }
      return std::optional<int64_t>(static_cast<int64_t>(d));
    }
    case BSON_TYPE_DECIMAL128: {
      bson_decimal128_t dec;
      bson_iter_decimal128(&it, &dec);
      char buf[BSON_DECIMAL128_STRING];
      bson_decimal128_to_string(&dec, buf);
      return std::optional<int64_t>(static_cast<int64_t>(std::strtold(buf, nullptr)));
    }
    default:
      return WrongType(command, field, bson_iter_type(&it), "long");
  }
}

}  // namespace

StatusWith<std::optional<int64_t>> NonNegativeAt(const bson_iter_t* found,
                                                 std::string_view command, const char* field) {
  ASSIGN_OR_RETURN(std::optional<int64_t> value, Int64At(found, command, field));
  if (value && *value < 0) {
    return Status(ErrorCode::kLocation51024, "BSON field '" + std::string(field) +
                                                 "' value must be >= 0, actual value '" +
                                                 std::to_string(*value) + "'");
  }
  return value;
}

StatusWith<std::optional<int64_t>> GetInt64(const bson_t* body, std::string_view command,
                                            const char* field) {
  bson_iter_t it;
  return Int64At(FindField(body, field, &it) ? &it : nullptr, command, field);
}

StatusWith<std::optional<int64_t>> GetNonNegative(const bson_t* body, std::string_view command,
                                                  const char* field) {
  bson_iter_t it;
  return NonNegativeAt(FindField(body, field, &it) ? &it : nullptr, command, field);
}

StatusWith<std::optional<int64_t>> GetNonNegative(const PresentFields& fields,
                                                  std::string_view command, const char* field) {
  bson_iter_t it;
  return NonNegativeAt(fields.Find(field, &it) ? &it : nullptr, command, field);
}

StatusWith<std::optional<bool>> BoolAt(const bson_iter_t* found, std::string_view command,
                                       const char* field) {
  if (found == nullptr) return std::optional<bool>();
  bson_iter_t it = *found;
  switch (bson_iter_type(&it)) {
    case BSON_TYPE_BOOL:
    case BSON_TYPE_INT32:
    case BSON_TYPE_INT64:
    case BSON_TYPE_DOUBLE:
    case BSON_TYPE_DECIMAL128:
      return std::optional<bool>(bson_iter_as_bool(&it));
    default:
      return WrongType(command, field, bson_iter_type(&it), "bool");
  }
}

StatusWith<std::optional<bool>> GetBool(const bson_t* body, std::string_view command,
                                        const char* field) {
  bson_iter_t it;
  return BoolAt(FindField(body, field, &it) ? &it : nullptr, command, field);
}

StatusWith<std::optional<bool>> GetBool(const PresentFields& fields, std::string_view command,
                                        const char* field) {
  bson_iter_t it;
  return BoolAt(fields.Find(field, &it) ? &it : nullptr, command, field);
}

StatusWith<std::optional<std::string>> GetString(const bson_t* body, std::string_view command,
                                                 const char* field) {
  bson_iter_t it;
  if (!FindField(body, field, &it)) return std::optional<std::string>();
  if (!BSON_ITER_HOLDS_UTF8(&it)) return WrongType(command, field, bson_iter_type(&it), "string");
  uint32_t len;
  const char* s = bson_iter_utf8(&it, &len);
  return std::optional<std::string>(std::string(s, len));
}

StatusWith<std::string> CollectionArgument(const bson_t* body, std::string_view command) {
  bson_iter_t it;
  if (!bson_iter_init(&it, body) || !bson_iter_next(&it)) {
    return Status(ErrorCode::kInvalidNamespace, "missing collection name for " + std::string(command));
  }
  if (!BSON_ITER_HOLDS_UTF8(&it)) {
    return Status(ErrorCode::kInvalidNamespace,
                  "collection name has invalid type " + std::string(BsonTypeName(bson_iter_type(&it))));
  }
  uint32_t len;
  const char* s = bson_iter_utf8(&it, &len);
  return std::string(s, len);
}

// maxTimeMS, as MongoDB's parseMaxTimeMS: a number (a whole double is
// fine) in [0, INT_MAX]; 0 means no limit. Generic arguments are skipped by
// CheckFields, so each command that honours it reads it here.
StatusWith<std::optional<int64_t>> MaxTimeMSAt(const bson_iter_t* found) {
  if (found == nullptr) return std::optional<int64_t>();
  bson_iter_t it = *found;
  if (!BSON_ITER_HOLDS_NUMBER(&it) && !BSON_ITER_HOLDS_DECIMAL128(&it)) {
    return Status(ErrorCode::kBadValue, "maxTimeMS must be a number");
  }
  double as_double = bson_iter_as_double(&it);
  int64_t value = 0;
  if (BSON_ITER_HOLDS_DOUBLE(&it)) {
    // safeNumberLong: NaN is 0, out-of-range doubles saturate.
    if (std::isnan(as_double)) value = 0;
    else if (as_double >= 9.2e18) value = INT64_MAX;
    else if (as_double <= -9.2e18) value = INT64_MIN;
    else value = static_cast<int64_t>(as_double);
  } else {
    value = bson_iter_as_int64(&it);
  }
  if (value < 0 || value > INT32_MAX) {
    return Status(ErrorCode::kBadValue, std::to_string(value) +
                                            " value for maxTimeMS is out of range [0, 2147483647]");
  }
  if (BSON_ITER_HOLDS_DOUBLE(&it) && std::floor(as_double) != as_double) {
    return Status(ErrorCode::kBadValue, "maxTimeMS has non-integral value");
  }
  return std::optional<int64_t>(value);
}

StatusWith<std::optional<int64_t>> GetMaxTimeMS(const bson_t* body) {
  bson_iter_t it;
  return MaxTimeMSAt(bson::FindTopLevel(body, "maxTimeMS", &it) ? &it : nullptr);
}

StatusWith<std::optional<int64_t>> GetMaxTimeMS(const PresentFields& fields) {
  bson_iter_t it;
  return MaxTimeMSAt(fields.Find("maxTimeMS", &it) ? &it : nullptr);
}

Status CheckCollectionNamespace(std::string_view db, std::string_view coll) {
  const bool valid = !coll.empty() && coll.front() != '.' &&
                     coll.find_first_of(std::string_view("$\0", 2)) == std::string_view::npos;
  if (valid) return Status::OK();
  return Status(ErrorCode::kInvalidNamespace, "Invalid namespace specified '" + std::string(db) +
                                                  "." + std::string(coll) + "'");
}

Status CheckWriteNamespace(std::string_view db, std::string_view coll) {
  // Every name the catalog refuses is empty, starts with '.', holds '$' or
  // a NUL, is under "system." or is too long; only those take the full check.
  constexpr size_t kLongestPlainNamespace = 255;
  constexpr std::string_view kSystem = "system.";
  const bool needs_full_check = coll.empty() || coll.front() == '.' ||
                                coll.find_first_of(std::string_view("$\0", 2)) != std::string_view::npos ||
                                coll.substr(0, kSystem.size()) == kSystem ||
                                db.size() + 1 + coll.size() > kLongestPlainNamespace;
  if (!needs_full_check) return Status::OK();
  // An empty name fails first where the command is parsed, with its message.
  if (coll.empty()) return CheckCollectionNamespace(db, coll);
  return catalog::Catalog::ValidateNamespace(db, coll);
}

Status CheckWriteConcernW(const bson_t* wc, bool* unacknowledged) {
  bson_iter_t w;
  if (!bson_iter_init_find(&w, wc, "w")) return Status::OK();
  if (BSON_ITER_HOLDS_UTF8(&w)) {
    std::string mode = bson_iter_utf8(&w, nullptr);
    if (mode == "majority") return Status::OK();
    return Status(ErrorCode::kBadValue, "cannot use non-majority 'w' mode \"" + mode +
                                            "\" when a host is not a member of a replica set");
  }
  if (!BSON_ITER_HOLDS_NUMBER(&w)) {
    return Status(ErrorCode::kFailedToParse, "w has to be a number or string; found: " +
                                                 std::string(BsonTypeName(bson_iter_type(&w))));
  }
  const int64_t n = bson_iter_as_int64(&w);
  if (n < 0 || n > 50) {
    return Status(ErrorCode::kFailedToParse,
                  "w has to be a non-negative number and not greater than 50; found: " +
                      std::to_string(n));
  }
  if (n > 1) return Status(ErrorCode::kBadValue, "cannot use 'w' > 1 when a host is not replicated");
  *unacknowledged = n == 0;
  return Status::OK();
}

void ForEachPipelineStage(const bson_t* body,
                          const std::function<bool(std::string_view name, const bson_iter_t& stage)>& visit) {
  bson_iter_t it, stages, stage;
  if (!bson_iter_init_find(&it, body, "pipeline") || !BSON_ITER_HOLDS_ARRAY(&it) ||
      !bson_iter_recurse(&it, &stages)) {
    return;
  }
  while (bson_iter_next(&stages)) {
    if (!BSON_ITER_HOLDS_DOCUMENT(&stages) || !bson_iter_recurse(&stages, &stage) ||
        !bson_iter_next(&stage)) {
      continue;
    }
    if (!visit(bson_iter_key(&stage), stage)) return;
  }
}

}  // namespace tigerdoc::wire
