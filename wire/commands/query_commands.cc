// Read commands: find, getMore, killCursors, count, distinct, explain, and the
// command side of aggregate (options; $collStats and $indexStats computed here).

#include <unistd.h>

#include <chrono>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "engine/bson/raw_fields.h"
#include "engine/id_point_read.h"
#include "wire/commands/collation_option.h"
#include "wire/commands/change_stream_commands.h"
#include "wire/commands/command_arg_values.h"
#include "wire/commands/command_args.h"
#include "wire/commands/command_registry.h"
#include "wire/commands/server_facts.h"
#include "wire/protocol/msg_header.h"
#include "wire/reply/reply_builder.h"

namespace tigerdoc::wire {
namespace {

// The find hint: the _id index (by name or key pattern), natural order, or
// a secondary index by name or key pattern, which the engine's planner
// resolves against the indexes that exist. {$natural: -1} is the reverse
// collection scan.
// find, count and distinct take the same hint (MongoDB's IndexHint).
StatusWith<engine::FindHint> ParseFindHint(const bson_t* body, std::string_view command,
                                           bson::BsonDoc* hint_index) {
  bson_iter_t it;
  if (!bson_iter_init_find(&it, body, "hint")) return engine::FindHint::kNone;
  if (BSON_ITER_HOLDS_UTF8(&it)) {
    std::string_view name = bson_iter_utf8(&it, nullptr);
    if (name == "_id_") return engine::FindHint::kIdIndex;
    BSON_APPEND_UTF8(hint_index->mutable_get(), "", std::string(name).c_str());
    return engine::FindHint::kIndex;
  }
  if (!BSON_ITER_HOLDS_DOCUMENT(&it)) {
    return Status(ErrorCode::kFailedToParse,
                  std::string(command) + ".hint must be a string or an object");
  }
  bson_iter_t field;
  bson_iter_recurse(&it, &field);
  if (!bson_iter_next(&field)) return engine::FindHint::kNone;  // {} is no hint
  bson_iter_t natural;
  bson_iter_recurse(&it, &natural);
  if (bson_iter_find(&natural, "$natural")) {
    int64_t direction = BSON_ITER_HOLDS_NUMBER(&natural) ? bson_iter_as_int64(&natural) : 1;
    return direction < 0 ? engine::FindHint::kNaturalBackward : engine::FindHint::kNaturalForward;
  }
  bson_iter_t rest = field;
  bool id_pattern = std::string_view(bson_iter_key(&field)) == "_id" &&
                    BSON_ITER_HOLDS_NUMBER(&field) && bson_iter_as_double(&field) == 1.0 &&
                    !bson_iter_next(&rest);
  if (id_pattern) return engine::FindHint::kIdIndex;
  uint32_t len;
  const uint8_t* data;
  bson_iter_document(&it, &len, &data);
  *hint_index = bson::BsonDoc::CopyOf(data, len);
  return engine::FindHint::kIndex;
}

// find's own options; bit i of ParseFind's `given` says kFindOptions[i]
// is in the command.
enum FindOption : uint32_t {
  kFilter, kSort, kProjection, kSkip, kLimit, kBatchSize, kSingleBatch, kHint, kAllowDiskUse,
  kNoCursorTimeout, kReturnKey, kShowRecordId, kTailable, kAwaitData, kOplogReplay,
  kAllowPartialResults, kCollation, kLet, kMin, kMax, kTerm, kReadOnce, kRequestResumeToken,
  kResumeAfter, kFindOptionCount
};
constexpr std::array<std::string_view, kFindOptionCount> kFindOptions = {
    "filter", "sort", "projection", "skip", "limit", "batchSize", "singleBatch", "hint",
    "allowDiskUse", "noCursorTimeout", "returnKey", "showRecordId", "tailable", "awaitData",
    "oplogReplay", "allowPartialResults", "collation", "let", "min", "max", "term", "readOnce",
    "$_requestResumeToken", "$_resumeAfter"};
static_assert(kFindOptions[kFilter] == "filter" && kFindOptions[kBatchSize] == "batchSize" &&
              kFindOptions[kOplogReplay] == "oplogReplay" && kFindOptions[kCollation] == "collation" &&
              kFindOptions[kLet] == "let" && kFindOptions[kMax] == "max" &&
              kFindOptions[kResumeAfter] == "$_resumeAfter");

// find's options by the length of their names (at most four share one),
// -1 after the last: a field's name is compared with those only.
constexpr size_t kLongestFindOption = 20;
constexpr auto kFindOptionsByLength = [] {
  std::array<std::array<int8_t, 4>, kLongestFindOption + 1> by_length{};
  for (auto& names : by_length) names.fill(-1);
  for (size_t i = 0; i < kFindOptions.size(); ++i) {
    for (int8_t& slot : by_length[kFindOptions[i].size()]) {
      if (slot < 0) {
        slot = static_cast<int8_t>(i);
        break;
      }
    }
  }
  return by_length;
}();
static_assert(kFindOptions[kRequestResumeToken].size() == kLongestFindOption);

// The index of find's own option `key` in kFindOptions, -1 for any other name.
int FindOptionOf(std::string_view key) {
  if (key.size() > kLongestFindOption) return -1;
  for (const int8_t option : kFindOptionsByLength[key.size()]) {
    if (option < 0) break;
    if (key == kFindOptions[static_cast<size_t>(option)]) return option;
  }
  return -1;
}

// Where each of find's options sits in the command (the first occurrence,
// as bson_iter_find's), from one walk of it; the first field that is
// neither an option nor a generic argument (CheckFields' 40415); the
// command name's element. What ParseFind's PresentFields, CheckFields and
// getters found with a scan of the command each (issue #18: 4,500
// instructions of a find by _id).
struct FindFields {
  struct At {
    uint32_t offset = 0;  // of the element's type byte; 0: absent
    uint32_t key_len = 0;
    bson_type_t type = BSON_TYPE_EOD;
    // Where the value starts.
    uint32_t value() const { return offset + key_len + 2; }
  };
  std::array<At, kFindOptionCount> options;
  At max_time_ms;
  At name;  // the first field: {find: "<collection>"}
  std::string_view unknown;
  bool has_unknown = false;

  void Add(std::string_view key, uint32_t offset, bson_type_t type) {
    const int option = FindOptionOf(key);
    At* at = option >= 0 ? &options[static_cast<size_t>(option)]
             : key == "maxTimeMS" ? &max_time_ms
                                  : nullptr;
    if (at == nullptr) {
      if (!has_unknown && !IsGenericArgument(key)) {
        has_unknown = true;
        unknown = key;
      }
      return;
    }
    if (at->offset == 0) *at = {offset, static_cast<uint32_t>(key.size()), type};
  }
  bool has(FindOption o) const { return options[o].offset != 0; }
};

// Fills *fields from the command: the raw walk, or libbson's iteration for
// a command the walk leaves to libbson (both see the same fields).
void CollectFindFields(const bson_t* body, FindFields* fields) {
  bson::RawFields raw(body);
  if (raw.Next()) {
    fields->name = {raw.offset(), static_cast<uint32_t>(raw.key().size()), raw.type()};
    while (raw.Next()) fields->Add(raw.key(), raw.offset(), raw.type());
  }
  if (!raw.broken()) return;
  *fields = FindFields();
  bson_iter_t it;
  if (!bson_iter_init(&it, body) || !bson_iter_next(&it)) return;
  fields->name = {bson_iter_offset(&it), bson_iter_key_len(&it), bson_iter_type(&it)};
  while (bson_iter_next(&it)) {
    fields->Add({bson_iter_key(&it), bson_iter_key_len(&it)}, bson_iter_offset(&it),
                bson_iter_type(&it));
  }
}

// Fills *out (a fresh FindParams) in place: a FindParams is about a dozen
// documents and strings, and returning it through a StatusWith moved it
// twice per find (about 900 instructions, bench/README.md "CPU per find,
// round 5"). Errors come in the order they always did: the collection name,
// an unknown field, then each option's type in the order below. Values of
// the usual types are read from the bytes the walk framed; any other type
// goes through the getters' own checks (command_arg_values.h), which
// answer its value or its error.
Status ParseFind(const bson_t* body, const std::string& db, engine::FindParams* out) {
  const std::string_view cmd = "find";
  FindFields fields;
  CollectFindFields(body, &fields);
  const uint8_t* data = bson_get_data(body);
  std::string coll;
  if (fields.name.type == BSON_TYPE_UTF8) {  // int32 length with the NUL, chars
    const uint32_t at = fields.name.value();
    coll.assign(reinterpret_cast<const char*>(data + at + 4),
                static_cast<size_t>(LoadInt32(data + at)) - 1);
  } else {
    ASSIGN_OR_RETURN(coll, CollectionArgument(body, cmd));
  }
  RETURN_IF_ERROR(CheckCollectionNamespace(db, coll));
  if (fields.has_unknown) {
    return Status(ErrorCode::kLocation40415, "BSON field '" + std::string(cmd) + "." +
                                                 std::string(fields.unknown) + "' is an unknown field.");
  }
  // An iterator on a present option, as bson_iter_find leaves it.
  auto iter_at = [&](const FindFields::At& at, bson_iter_t* it) -> const bson_iter_t* {
    if (at.offset == 0 ||
        !bson_iter_init_from_data_at_offset(it, data, body->len, at.offset, at.key_len)) {
      return nullptr;
    }
    return it;
  };
  auto has = [&](FindOption option) { return fields.has(option); };
  // A present object option straight into *doc (one copy, no optional).
  auto object = [&](FindOption o, bson::BsonDoc* doc) -> Status {
    const FindFields::At& at = fields.options[o];
    if (at.offset == 0) return Status::OK();
    if (at.type != BSON_TYPE_DOCUMENT) {
      bson_iter_t it;
      return ObjectAt(iter_at(at, &it), cmd, kFindOptions[o].data()).status();
    }
    const uint32_t value = at.value();
    *doc = bson::BsonDoc::CopyOf(data + value, static_cast<size_t>(LoadInt32(data + value)));
    return Status::OK();
  };
  // A present number option into *n; absent leaves *n as it is.
  auto non_negative = [&](FindOption o, auto* n) -> Status {
    const FindFields::At& at = fields.options[o];
    if (at.offset == 0) return Status::OK();
    int64_t value = -1;
    if (at.type == BSON_TYPE_INT32) value = LoadInt32(data + at.value());
    if (at.type == BSON_TYPE_INT64) {
      uint64_t raw = 0;
      std::memcpy(&raw, data + at.value(), sizeof raw);
      value = static_cast<int64_t>(BSON_UINT64_FROM_LE(raw));
    }
    if (value < 0) {  // another type, or negative: the getter's value or error
      bson_iter_t it;
      ASSIGN_OR_RETURN(std::optional<int64_t> got,
                       NonNegativeAt(iter_at(at, &it), cmd, kFindOptions[o].data()));
      value = got.value_or(0);
    }
    *n = value;
    return Status::OK();
  };
  // A present bool option into *b; absent leaves *b as it is (false).
  auto boolean = [&](FindOption o, bool* b) -> Status {
    const FindFields::At& at = fields.options[o];
    if (at.offset == 0) return Status::OK();
    if (at.type == BSON_TYPE_BOOL) {
      *b = data[at.value()] != 0;
      return Status::OK();
    }
    bson_iter_t it;
    ASSIGN_OR_RETURN(std::optional<bool> got, BoolAt(iter_at(at, &it), cmd, kFindOptions[o].data()));
    *b = got.value_or(false);
    return Status::OK();
  };
  engine::FindParams& params = *out;
  params.db = db;
  params.coll = std::move(coll);
  if (has(kCollation)) {
    ASSIGN_OR_RETURN(params.collation, GetCollation(body, cmd));
  }
  RETURN_IF_ERROR(object(kFilter, &params.filter));
  RETURN_IF_ERROR(object(kSort, &params.sort));
  RETURN_IF_ERROR(object(kProjection, &params.projection));
  RETURN_IF_ERROR(non_negative(kSkip, &params.skip));
  RETURN_IF_ERROR(non_negative(kLimit, &params.limit));
  RETURN_IF_ERROR(non_negative(kBatchSize, &params.batch_size));
  RETURN_IF_ERROR(boolean(kSingleBatch, &params.single_batch));
  RETURN_IF_ERROR(boolean(kAllowDiskUse, &params.allow_disk_use));
  RETURN_IF_ERROR(boolean(kNoCursorTimeout, &params.no_cursor_timeout));
  RETURN_IF_ERROR(boolean(kReturnKey, &params.return_key));
  RETURN_IF_ERROR(boolean(kShowRecordId, &params.show_record_id));
  RETURN_IF_ERROR(boolean(kTailable, &params.tailable));
  RETURN_IF_ERROR(boolean(kAwaitData, &params.await_data));
  // oplogReplay is deprecated and ignored by MongoDB 4.4+; so it is here.
  bool oplog_replay = false;
  RETURN_IF_ERROR(boolean(kOplogReplay, &oplog_replay));
  RETURN_IF_ERROR(object(kMin, &params.min));
  RETURN_IF_ERROR(object(kMax, &params.max));
  RETURN_IF_ERROR(object(kLet, &params.let));
  if (fields.max_time_ms.offset != 0) {
    bson_iter_t it;
    ASSIGN_OR_RETURN(std::optional<int64_t> max_time_ms, MaxTimeMSAt(iter_at(fields.max_time_ms, &it)));
    params.max_time_ms = max_time_ms.value_or(0);
  }
  if (params.await_data && !params.tailable) {
    return Status(ErrorCode::kFailedToParse, "Cannot set 'awaitData' without also setting 'tailable'");
  }
  if (params.tailable) {
    // MongoDB's validateFindCommandRequest: refused when parsed, whatever
    // the collection is.
    bson_iter_t natural;
    const bson_t* sort = params.sort.get();
    const bool natural_forward =
        bson_empty(sort) ||
        (bson_count_keys(sort) == 1 && bson_iter_init_find(&natural, sort, "$natural") &&
         BSON_ITER_HOLDS_NUMBER(&natural) && bson_iter_as_double(&natural) == 1);
    if (!natural_forward) {
      return Status(ErrorCode::kBadValue,
                    "cannot use tailable option with a sort other than {$natural: 1}");
    }
    if (params.single_batch) {
      return Status(ErrorCode::kBadValue, "cannot use tailable option with the 'singleBatch' option");
    }
  }
  if (has(kHint)) {
    ASSIGN_OR_RETURN(params.hint, ParseFindHint(body, cmd, &params.hint_index));
  }
  // A limit smaller than the first batch fills it; MongoDB closes the cursor
  // once `limit` documents were returned.
  if (params.limit > 0 && (!params.batch_size || *params.batch_size > params.limit)) {
    params.batch_size = params.limit;
  }
  return Status::OK();
}

StatusWith<engine::CountParams> ParseCount(const bson_t* body, const std::string& db) {
  const std::string_view cmd = "count";
  ASSIGN_OR_RETURN(std::string coll, CollectionArgument(body, cmd));
  RETURN_IF_ERROR(CheckCollectionNamespace(db, coll));
  RETURN_IF_ERROR(CheckFields(body, cmd, {"query", "limit", "skip", "hint", "collation", "fields",
                                          "readConcern"}));
  engine::CountParams params;
  ASSIGN_OR_RETURN(params.collation, GetCollation(body, cmd));
  ASSIGN_OR_RETURN(params.hint, ParseFindHint(body, cmd, &params.hint_index));
  params.db = db;
  params.coll = coll;
  ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> query, GetObject(body, cmd, "query"));
  ASSIGN_OR_RETURN(std::optional<int64_t> skip, GetNonNegative(body, cmd, "skip"));
  ASSIGN_OR_RETURN(std::optional<int64_t> limit, GetInt64(body, cmd, "limit"));
  ASSIGN_OR_RETURN(std::optional<int64_t> max_time_ms, GetMaxTimeMS(body));
  params.max_time_ms = max_time_ms.value_or(0);
  if (query) params.filter = std::move(*query);
  params.skip = skip.value_or(0);
  // count treats a negative limit like its absolute value, as MongoDB does.
  params.limit = limit ? (*limit < 0 ? -*limit : *limit) : 0;
  return params;
}

StatusWith<engine::DistinctParams> ParseDistinct(const bson_t* body, const std::string& db) {
  const std::string_view cmd = "distinct";
  ASSIGN_OR_RETURN(std::string coll, CollectionArgument(body, cmd));
  RETURN_IF_ERROR(CheckCollectionNamespace(db, coll));
  RETURN_IF_ERROR(CheckFields(body, cmd, {"key", "query", "collation", "hint"}));
  engine::DistinctParams params;
  ASSIGN_OR_RETURN(params.collation, GetCollation(body, cmd));
  ASSIGN_OR_RETURN(params.hint, ParseFindHint(body, cmd, &params.hint_index));
  params.db = db;
  params.coll = coll;
  ASSIGN_OR_RETURN(std::optional<std::string> key, GetString(body, cmd, "key"));
  if (!key) {
    return Status(ErrorCode::kLocation40414, "BSON field 'distinct.key' is missing but a required field");
  }
  params.key = *key;
  if (params.key.find('\0') != std::string::npos) {
    return Status(static_cast<ErrorCode>(31032), "Key field cannot contain an embedded null byte");
  }
  // query: null is no query (MongoDB's IDL reads a null optional field as
  // absent).
  bson_iter_t query_it;
  if (!(bson_iter_init_find(&query_it, body, "query") && BSON_ITER_HOLDS_NULL(&query_it))) {
    ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> query, GetObject(body, cmd, "query"));
    if (query) params.filter = std::move(*query);
  }
  ASSIGN_OR_RETURN(std::optional<int64_t> max_time_ms, GetMaxTimeMS(body));
  params.max_time_ms = max_time_ms.value_or(0);
  return params;
}

void AppendServerInfo(bson_t* doc) {
  bson_t info;
  bson_append_document_begin(doc, "serverInfo", -1, &info);
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  BSON_APPEND_UTF8(&info, "host", host);
  BSON_APPEND_UTF8(&info, "version", kCompatibleMongoVersion);
  BSON_APPEND_UTF8(&info, "gitVersion", "tigerdoc");
  bson_append_document_end(doc, &info);
}

}  // namespace

StatusWith<bson::BsonDoc> RunFind(CommandContext& ctx) {
  engine::FindParams params;
  RETURN_IF_ERROR(ParseFind(ctx.body(), ctx.db(), &params));
  ASSIGN_OR_RETURN(engine::CursorBatch batch, ctx.engine->Find(params));
  bson::BsonDoc reply = CursorFields("firstBatch", batch.cursor_id, batch.ns, batch.docs);
  engine::RecycleBatch(&batch.docs);
  return reply;
}

StatusWith<bson::BsonDoc> RunGetMore(CommandContext& ctx) {
  const bson_t* body = ctx.body();
  RETURN_IF_ERROR(CheckFields(body, ctx.name, {"collection", "batchSize", "term", "lastKnownCommittedOpTime"}));
  bson_iter_t it;
  bson_iter_init(&it, body);
  bson_iter_next(&it);
  if (!BSON_ITER_HOLDS_INT64(&it)) {
    return Status(ErrorCode::kTypeMismatch, "BSON field 'getMore.getMore' is the wrong type '" +
                                                std::string(BsonTypeName(bson_iter_type(&it))) +
                                                "', expected type 'long'");
  }
  engine::GetMoreParams params;
  params.cursor_id = bson_iter_int64(&it);
  params.db = ctx.db();
  ASSIGN_OR_RETURN(std::optional<std::string> coll, GetString(body, ctx.name, "collection"));
  if (!coll) {
    return Status(ErrorCode::kLocation40414,
                  "BSON field 'getMore.collection' is missing but a required field");
  }
  params.coll = *coll;
  ASSIGN_OR_RETURN(std::optional<int64_t> batch_size, GetNonNegative(body, ctx.name, "batchSize"));
  if (batch_size && *batch_size > 0) params.batch_size = batch_size;
  ASSIGN_OR_RETURN(params.max_time_ms, GetMaxTimeMS(body));
  ASSIGN_OR_RETURN(engine::CursorBatch batch, ctx.engine->GetMore(params));
  return CursorFields("nextBatch", batch.cursor_id, batch.ns, batch.docs,
                      batch.post_batch_resume_token.get());
}

StatusWith<bson::BsonDoc> RunKillCursors(CommandContext& ctx) {
  ASSIGN_OR_RETURN(std::string coll, CollectionArgument(ctx.body(), ctx.name));
  RETURN_IF_ERROR(CheckFields(ctx.body(), ctx.name, {"cursors"}));
  ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> cursors, GetArray(ctx.body(), ctx.name, "cursors"));
  if (!cursors) {
    return Status(ErrorCode::kLocation40414,
                  "BSON field 'killCursors.cursors' is missing but a required field");
  }
  std::string ns = ctx.db() + "." + coll;
  std::vector<int64_t> killed, not_found;
  bson_iter_t it;
  bson_iter_init(&it, cursors->get());
  while (bson_iter_next(&it)) {
    if (!BSON_ITER_HOLDS_INT64(&it)) {
      return Status(ErrorCode::kTypeMismatch,
                    "BSON field 'killCursors.cursors' is the wrong type '" +
                        std::string(BsonTypeName(bson_iter_type(&it))) + "', expected type 'long'");
    }
    int64_t id = bson_iter_int64(&it);
    (ctx.engine->cursors().Kill(id, ns) ? killed : not_found).push_back(id);
  }
  bson::BsonDoc out;
  auto append_list = [&](const char* name, const std::vector<int64_t>& ids) {
    bson_t array;
    bson_append_array_begin(out.mutable_get(), name, -1, &array);
    for (size_t i = 0; i < ids.size(); ++i) {
      std::string key = std::to_string(i);
      BSON_APPEND_INT64(&array, key.c_str(), ids[i]);
    }
    bson_append_array_end(out.mutable_get(), &array);
  };
  append_list("cursorsKilled", killed);
  append_list("cursorsNotFound", not_found);
  append_list("cursorsAlive", {});
  append_list("cursorsUnknown", {});
  return out;
}

StatusWith<bson::BsonDoc> RunCount(CommandContext& ctx) {
  ASSIGN_OR_RETURN(engine::CountParams params, ParseCount(ctx.body(), ctx.db()));
  ASSIGN_OR_RETURN(int64_t n, ctx.engine->Count(params));
  bson::BsonDoc out;
  BSON_APPEND_INT32(out.mutable_get(), "n", static_cast<int32_t>(n));
  return out;
}

StatusWith<bson::BsonDoc> RunDistinct(CommandContext& ctx) {
  ASSIGN_OR_RETURN(engine::DistinctParams params, ParseDistinct(ctx.body(), ctx.db()));
  // maxTimeMS is enforced by the engine's scan (FindSpec::deadline).
  ASSIGN_OR_RETURN(std::vector<bson::BsonDoc> values, ctx.engine->Distinct(params));
  bson::BsonDoc out;
  bson_t array;
  bson_append_array_begin(out.mutable_get(), "values", -1, &array);
  for (size_t i = 0; i < values.size(); ++i) {
    bson_iter_t value;
    bson_iter_init(&value, values[i].get());
    bson_iter_next(&value);
    std::string key = std::to_string(i);
    bson_append_iter(&array, key.c_str(), -1, &value);
  }
  bson_append_array_end(out.mutable_get(), &array);
  return out;
}

StatusWith<engine::AggregateParams> ParseAggregate(CommandContext& ctx, const bson_t* body,
                                                   bool* explain);
StatusWith<bson::BsonDoc> ExplainAggregate(CommandContext& ctx, engine::AggregateParams params,
                                           engine::ExplainVerbosity verbosity);

StatusWith<bson::BsonDoc> RunExplain(CommandContext& ctx) {
  RETURN_IF_ERROR(CheckFields(ctx.body(), ctx.name, {"verbosity"}));
  ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> inner, GetObject(ctx.body(), ctx.name, "explain"));
  ASSIGN_OR_RETURN(std::optional<std::string> verbosity_arg, GetString(ctx.body(), ctx.name, "verbosity"));
  engine::ExplainVerbosity verbosity = engine::ExplainVerbosity::kAllPlansExecution;
  if (verbosity_arg) {
    if (*verbosity_arg == "queryPlanner") verbosity = engine::ExplainVerbosity::kQueryPlanner;
    else if (*verbosity_arg == "executionStats") verbosity = engine::ExplainVerbosity::kExecutionStats;
    else if (*verbosity_arg == "allPlansExecution") verbosity = engine::ExplainVerbosity::kAllPlansExecution;
    else return Status(ErrorCode::kBadValue, "verbosity string must be one of {'queryPlanner', 'executionStats', 'allPlansExecution'}");
  }
  if (!inner || inner->empty()) {
    return Status(ErrorCode::kBadValue, "explain command requires a nested object");
  }
  bson_iter_t first;
  bson_iter_init(&first, inner->get());
  bson_iter_next(&first);
  std::string_view inner_name = bson_iter_key(&first);
  if (inner_name == "aggregate") {
    bool explain_flag = false;
    ASSIGN_OR_RETURN(engine::AggregateParams aggregate, ParseAggregate(ctx, inner->get(), &explain_flag));
    if (explain_flag) {
      return Status(ErrorCode::kFailedToParse,
                    "The 'explain' option is illegal when a explain verbosity is also provided");
    }
    return ExplainAggregate(ctx, std::move(aggregate), verbosity);
  }
  engine::FindParams params;
  if (inner_name == "find") {
    RETURN_IF_ERROR(ParseFind(inner->get(), ctx.db(), &params));
  } else if (inner_name == "count") {
    ASSIGN_OR_RETURN(engine::CountParams count, ParseCount(inner->get(), ctx.db()));
    params.db = count.db;
    params.coll = count.coll;
    params.filter = std::move(count.filter);
    params.skip = count.skip;
    params.limit = count.limit;
    params.max_time_ms = count.max_time_ms;
    params.hint = count.hint;
    params.hint_index = std::move(count.hint_index);
    params.collation = count.collation;  // the explained plan is that collation's
    params.explained = engine::ExplainedCommand::kCount;
  } else if (inner_name == "distinct") {
    ASSIGN_OR_RETURN(engine::DistinctParams distinct, ParseDistinct(inner->get(), ctx.db()));
    params.db = distinct.db;
    params.coll = distinct.coll;
    params.filter = std::move(distinct.filter);
    params.max_time_ms = distinct.max_time_ms;
    params.hint = distinct.hint;
    params.hint_index = std::move(distinct.hint_index);
    params.collation = distinct.collation;
    params.explained = engine::ExplainedCommand::kDistinct;
    params.distinct_key = distinct.key;
  } else {
    return Status(ErrorCode::kNotImplemented,
                  "explain of '" + std::string(inner_name) + "' is not supported by tigerdoc yet");
  }
  ASSIGN_OR_RETURN(bson::BsonDoc out, ctx.engine->ExplainFind(params, verbosity));
  BSON_APPEND_DOCUMENT(out.mutable_get(), "command", inner->get());
  AppendServerInfo(out.mutable_get());
  return out;
}

// The documents a $collStats stage produces for one collection: one per
// shard table, {ns, shard: "shard<i>", host, localTime, storageStats}, as a
// sharded cluster answers (the shard names are explain's). Clients sum
// them (mongosh's db.c.stats() does, and shows each under `shards`).
// A time-series collection answers with its buckets' shards, without
// count / avgObjSize (they would count buckets) and with a `timeseries`
// section per shard, as mongod's storageStats of one.
// `count: {}` in the spec adds each shard's document count as a top-level
// `count` (the Go driver's estimatedDocumentCount sums it with $group);
// storageStats is given when asked for, and for an empty spec as before.
StatusWith<std::vector<bson::BsonDoc>> CollStatsStageDocuments(CommandContext& ctx,
                                                               const std::string& ns,
                                                               const bson_t* spec) {
  bson_iter_t requested;
  const bool with_count = bson_iter_init_find(&requested, spec, "count");
  const bool with_storage = bson_empty(spec) || bson_iter_init_find(&requested, spec, "storageStats");
  std::shared_ptr<const catalog::ViewDefinition> timeseries;
  if (ns.size() > ctx.db().size() + 1) {
    timeseries = ctx.engine->TimeseriesView(ctx.db(), std::string_view(ns).substr(ctx.db().size() + 1));
  }
  const std::string buckets_ns = timeseries ? ctx.db() + "." + timeseries->view_on : ns;
  auto entry = ctx.engine->catalog().Lookup(buckets_ns);
  if (!entry) {
    return Status(ErrorCode::kNamespaceNotFound,
                  "Unable to retrieve storageStats in $collStats stage :: caused by :: Collection [" +
                      ns + "] not found.");
  }
  const int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch()).count();
  std::vector<bson::BsonDoc> out;
  for (int shard = 0; shard < entry->store->num_shards(); ++shard) {
    bson::BsonDoc doc;
    const std::string shard_name = "shard" + std::to_string(shard);
    BSON_APPEND_UTF8(doc.mutable_get(), "ns", ns.c_str());
    BSON_APPEND_UTF8(doc.mutable_get(), "shard", shard_name.c_str());
    BSON_APPEND_UTF8(doc.mutable_get(), "host", "tigerdoc");
    BSON_APPEND_DATE_TIME(doc.mutable_get(), "localTime", now);
    if (with_count) BSON_APPEND_INT64(doc.mutable_get(), "count", entry->store->StatsOf(shard).count);
    if (!with_storage) {
      out.push_back(std::move(doc));
      continue;
    }
    bson::BsonDoc storage_stats = CollStatsShardDocument(*ctx.engine, *entry, shard);
    if (timeseries) {
      const storage::ShardStats buckets = entry->store->StatsOf(shard);
      bson::BsonDoc trimmed;
      bson_iter_t it;
      bson_iter_init(&it, storage_stats.get());
      while (bson_iter_next(&it)) {
        const std::string_view key = bson_iter_key(&it);
        if (key == "count" || key == "avgObjSize") continue;
        bson_append_iter(trimmed.mutable_get(), bson_iter_key(&it), -1, &it);
      }
      bson_t ts;
      bson_append_document_begin(trimmed.mutable_get(), "timeseries", -1, &ts);
      BSON_APPEND_UTF8(&ts, "bucketsNs", buckets_ns.c_str());
      BSON_APPEND_INT64(&ts, "bucketCount", buckets.count);
      BSON_APPEND_INT64(&ts, "avgBucketSize", buckets.count > 0 ? buckets.data_bytes / buckets.count : 0);
      bson_append_document_end(trimmed.mutable_get(), &ts);
      storage_stats = std::move(trimmed);
    }
    BSON_APPEND_DOCUMENT(doc.mutable_get(), "storageStats", storage_stats.get());
    out.push_back(std::move(doc));
  }
  return out;
}

// The documents of a $indexStats stage (engine/engine.h IndexStats); the
// host is "<hostname>:<port>" as MongoDB's.
StatusWith<std::vector<bson::BsonDoc>> IndexStatsStageDocuments(CommandContext& ctx,
                                                                const std::string& coll) {
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  std::string host_port = std::string(host) + ":" + std::to_string(ctx.server ? ctx.server->port : 0);
  return ctx.engine->IndexStats(ctx.db(), coll, host_port);
}

// The documents of a $currentOp stage: {aggregate: 1} on admin, options
// allUsers, idleConnections, idleSessions, localOps, truncateOps,
// idleCursors, backtrace (booleans; every running operation is listed
// whatever they say: tigerdoc has no users and lists no idle connections).
StatusWith<std::vector<bson::BsonDoc>> CurrentOpStageDocuments(CommandContext& ctx,
                                                               const engine::AggregateParams& params,
                                                               const bson_iter_t* op) {
  if (ctx.db() != "admin" || !params.coll.empty()) {
    return Status(ErrorCode::kInvalidNamespace,
                  "$currentOp must be run against the 'admin' database with {aggregate: 1}");
  }
  if (!BSON_ITER_HOLDS_DOCUMENT(op)) {
    return Status(ErrorCode::kFailedToParse,
                  "$currentOp options must be specified in an object, but found: " +
                      std::string(BsonTypeName(bson_iter_type(op))));
  }
  bson_t spec = bson::SubDocumentView(op);
  bson_iter_t it;
  bson_iter_init(&it, &spec);
  while (bson_iter_next(&it)) {
    std::string_view key = bson_iter_key(&it);
    if (key != "allUsers" && key != "idleConnections" && key != "idleSessions" &&
        key != "localOps" && key != "truncateOps" && key != "idleCursors" && key != "backtrace") {
      return Status(ErrorCode::kLocation40415, "BSON field '$currentOp." + std::string(key) +
                                                   "' is an unknown field.");
    }
    if (!BSON_ITER_HOLDS_BOOL(&it)) {
      return Status(ErrorCode::kTypeMismatch, "BSON field '$currentOp." + std::string(key) +
                                                  "' is the wrong type '" +
                                                  std::string(BsonTypeName(bson_iter_type(&it))) +
                                                  "', expected type 'bool'");
    }
  }
  return CurrentOpDocuments(ctx, nullptr);
}

// The parameters of an aggregate command body (also an explain's inner
// command): a leading $collStats or $indexStats is computed here from the
// catalog and its documents feed the rest of the pipeline (elsewhere in the
// pipeline either is 40602, as in MongoDB). *explain: the `explain` flag.
StatusWith<engine::AggregateParams> ParseAggregate(CommandContext& ctx, const bson_t* body,
                                                   bool* explain) {
  const std::string name = "aggregate";
  RETURN_IF_ERROR(CheckFields(body, name, {"pipeline", "cursor", "explain", "allowDiskUse",
                                           "hint", "let", "collation", "bypassDocumentValidation"}));
  bson_iter_t first;
  bson_iter_init(&first, body);
  bson_iter_next(&first);
  engine::AggregateParams params;
  params.db = ctx.db();
  if (BSON_ITER_HOLDS_UTF8(&first)) {
    uint32_t len = 0;
    const char* name = bson_iter_utf8(&first, &len);
    params.coll.assign(name, len);
    RETURN_IF_ERROR(CheckCollectionNamespace(ctx.db(), params.coll));
  } else if (!(BSON_ITER_HOLDS_NUMBER(&first) && bson_iter_as_int64(&first) == 1)) {
    return Status(ErrorCode::kFailedToParse,
                  "Invalid command format: the 'aggregate' field must specify a collection name or 1");
  }
  ASSIGN_OR_RETURN(params.collation, GetCollation(body, name));
  ASSIGN_OR_RETURN(std::optional<bool> explain_flag, GetBool(body, name, "explain"));
  *explain = explain_flag.value_or(false);
  ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> pipeline, GetArray(body, name, "pipeline"));
  if (!pipeline) {
    return Status(ErrorCode::kLocation40414, "BSON field 'aggregate.pipeline' is missing but a required field");
  }
  ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> cursor, GetObject(body, name, "cursor"));
  if (!cursor && !explain_flag) {
    return Status(ErrorCode::kFailedToParse,
                  "The 'cursor' option is required, except for aggregate with the explain argument");
  }
  if (cursor) {
    ASSIGN_OR_RETURN(params.batch_size, GetNonNegative(cursor->get(), "aggregate.cursor", "batchSize"));
  }
  ASSIGN_OR_RETURN(std::optional<bool> allow_disk_use, GetBool(body, name, "allowDiskUse"));
  params.allow_disk_use = allow_disk_use.value_or(false);
  ASSIGN_OR_RETURN(std::optional<bool> bypass, GetBool(body, name, "bypassDocumentValidation"));
  params.bypass_document_validation = bypass.value_or(false);
  ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> let, GetObject(body, name, "let"));
  if (let) params.let = std::move(*let);
  ASSIGN_OR_RETURN(params.hint, ParseFindHint(body, name, &params.hint_index));
  ASSIGN_OR_RETURN(std::optional<int64_t> max_time_ms, GetMaxTimeMS(body));
  params.max_time_ms = max_time_ms.value_or(0);

  bson::BsonDoc rest;
  bson_iter_t stage;
  bson_iter_init(&stage, pipeline->get());
  uint32_t index = 0;
  bool first_stage = true;
  while (bson_iter_next(&stage)) {
    bson_iter_t op;
    std::string_view stage_name;
    if (BSON_ITER_HOLDS_DOCUMENT(&stage) && bson_iter_recurse(&stage, &op) && bson_iter_next(&op)) {
      stage_name = bson_iter_key(&op);
    }
    const bool catalog_stage = stage_name == "$collStats" || stage_name == "$indexStats" ||
                               stage_name == "$currentOp";
    if (catalog_stage && !first_stage) {
      return Status(static_cast<ErrorCode>(40602),
                    std::string(stage_name) + " is only valid as the first stage in a pipeline");
    }
    if (catalog_stage && stage_name == "$currentOp") {
      ASSIGN_OR_RETURN(std::vector<bson::BsonDoc> ops, CurrentOpStageDocuments(ctx, params, &op));
      params.input.emplace(std::move(ops));
    } else if (catalog_stage && stage_name == "$indexStats") {
      if (!BSON_ITER_HOLDS_DOCUMENT(&op)) {
        return Status(static_cast<ErrorCode>(28803),
                      "The $indexStats stage specification must be an empty object");
      }
      bson_t spec = bson::SubDocumentView(&op);
      if (!bson_empty(&spec)) {
        return Status(static_cast<ErrorCode>(28803),
                      "The $indexStats stage specification must be an empty object");
      }
      if (params.coll.empty()) {
        return Status(ErrorCode::kInvalidNamespace,
                      "{aggregate: 1} is not valid for '$indexStats'; a collection is required.");
      }
      ASSIGN_OR_RETURN(std::vector<bson::BsonDoc> stats, IndexStatsStageDocuments(ctx, params.coll));
      params.input.emplace(std::move(stats));
    } else if (catalog_stage) {
      if (!BSON_ITER_HOLDS_DOCUMENT(&op)) {
        // MongoDB's code and message for {$collStats: <not an object>}.
        return Status(static_cast<ErrorCode>(5447000), "$collStats must take a nested object");
      }
      bson_t spec = bson::SubDocumentView(&op);
      ASSIGN_OR_RETURN(std::vector<bson::BsonDoc> stats,
                       CollStatsStageDocuments(ctx, ctx.db() + "." + params.coll, &spec));
      params.input.emplace(std::move(stats));
    } else {
      std::string key = std::to_string(index++);
      bson_append_iter(rest.mutable_get(), key.c_str(), -1, &stage);
    }
    first_stage = false;
  }
  params.pipeline = std::move(rest);
  return params;
}

// The explain of an aggregation (engine/engine_aggregate_explain.cc), with
// the server's facts.
StatusWith<bson::BsonDoc> ExplainAggregate(CommandContext& ctx, engine::AggregateParams params,
                                           engine::ExplainVerbosity verbosity) {
  ASSIGN_OR_RETURN(bson::BsonDoc out, ctx.engine->ExplainAggregate(std::move(params), verbosity));
  AppendServerInfo(out.mutable_get());
  return out;
}

// aggregate: the pipeline runs in engine/agg over a scan of the collection
// (its leading $match pushed down for shard targeting and the planner);
// with explain: true, its plan instead (queryPlanner verbosity).
StatusWith<bson::BsonDoc> RunAggregate(CommandContext& ctx) {
  bool explain = false;
  ASSIGN_OR_RETURN(engine::AggregateParams params, ParseAggregate(ctx, ctx.body(), &explain));
  if (explain) return ExplainAggregate(ctx, std::move(params), engine::ExplainVerbosity::kQueryPlanner);
  if (HasChangeStreamStage(params.pipeline.get())) {
    return RunChangeStreamAggregate(ctx, std::move(params));
  }
  ASSIGN_OR_RETURN(engine::CursorBatch batch, ctx.engine->Aggregate(std::move(params)));
  return CursorFields("firstBatch", batch.cursor_id, batch.ns, batch.docs);
}

}  // namespace tigerdoc::wire
