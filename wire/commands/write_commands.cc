// Write commands: insert, update, delete.
//
// Each statement of a batch runs on its own (its own transaction, as in
// MongoDB); a statement's failure becomes a writeError {index, code, errmsg}
// in an ok:1 reply. ordered:true (the default) stops at the first failure,
// ordered:false goes on. Malformed commands fail as a whole.

#include <array>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "wire/commands/collation_option.h"
#include "wire/commands/command_args.h"
#include "wire/commands/command_registry.h"
#include "wire/commands/present_fields.h"
#include "wire/commands/server_facts.h"
#include "wire/reply/reply_builder.h"

namespace tigerdoc::wire {
namespace {

// The statements of a write command, from the body's array or from an
// OP_MSG document sequence (kind 1) of the same name, as drivers send them:
// views of each statement's bytes in the request (its body or the message
// the sequence came in), valid while the request runs. Nothing keeps them
// longer (the engine copies what it stores). `present` holds the body's
// fields.
StatusWith<std::vector<std::string_view>> StatementViewsOf(CommandContext& ctx,
                                                           const PresentFields& present,
                                                           const char* field) {
  std::vector<std::string_view> out;
  bool found = false;
  for (const DocumentSequence& seq : ctx.request.sequences) {
    if (seq.identifier != field) continue;
    found = true;
    out = seq.documents;
  }
  bson_iter_t it;
  if (present.Find(field, &it)) {
    if (found) {
      return Status(ErrorCode::kBadValue, std::string("Duplicate field '") + field +
                                              "' in the command body and a document sequence");
    }
    found = true;
    if (!BSON_ITER_HOLDS_ARRAY(&it)) {
      return Status(ErrorCode::kTypeMismatch, "BSON field '" + std::string(ctx.name) + "." + field +
                                                  "' is the wrong type '" +
                                                  std::string(BsonTypeName(bson_iter_type(&it))) +
                                                  "', expected type 'array'");
    }
    bson_iter_t child;
    bson_iter_recurse(&it, &child);
    while (bson_iter_next(&child)) {
      if (!BSON_ITER_HOLDS_DOCUMENT(&child)) {
        return Status(ErrorCode::kTypeMismatch, "BSON field '" + std::string(ctx.name) + "." + field +
                                                    "' is the wrong type '" +
                                                    std::string(BsonTypeName(bson_iter_type(&child))) +
                                                    "', expected type 'object'");
      }
      uint32_t len;
      const uint8_t* data;
      bson_iter_document(&child, &len, &data);
      out.emplace_back(reinterpret_cast<const char*>(data), len);
    }
  }
  if (!found) {
    return Status(ErrorCode::kLocation40414, "BSON field '" + std::string(ctx.name) + "." + field +
                                                 "' is missing but a required field");
  }
  if (out.empty() || out.size() > static_cast<size_t>(kMaxWriteBatchSize)) {
    return Status(ErrorCode::kInvalidLength, "Write batch sizes must be between 1 and " +
                                                 std::to_string(kMaxWriteBatchSize) + ". Got " +
                                                 std::to_string(out.size()) + " operations.");
  }
  return out;
}

// StatementViewsOf's statements as owned documents (update and delete).
StatusWith<std::vector<bson::BsonDoc>> StatementsOf(CommandContext& ctx, const PresentFields& present,
                                                    const char* field) {
  ASSIGN_OR_RETURN(std::vector<std::string_view> views, StatementViewsOf(ctx, present, field));
  std::vector<bson::BsonDoc> out;
  out.reserve(views.size());
  for (std::string_view view : views) {
    out.push_back(bson::BsonDoc::CopyOf(reinterpret_cast<const uint8_t*>(view.data()), view.size()));
  }
  return out;
}

struct WriteOptions {
  bool ordered = true;
  bool bypass_document_validation = false;
  bool journal = false;  // writeConcern j:true
  // writeConcern w:0: the reply is exactly {ok: 1}, whatever happened.
  bool unacknowledged = false;
};

// The reply of a write: exactly {ok: 1} when unacknowledged (MongoDB drops
// n, writeErrors and the rest for w:0).
bson::BsonDoc WriteReply(const WriteOptions& options, bson::BsonDoc reply) {
  return options.unacknowledged ? bson::BsonDoc() : std::move(reply);
}

// From the body's fields, collected once (each getter given the body would
// scan all of it: a quarter of the insert command's own instructions).
StatusWith<WriteOptions> WriteOptionsOf(CommandContext& ctx, const PresentFields& present) {
  WriteOptions options;
  ASSIGN_OR_RETURN(std::optional<bool> ordered, GetBool(present, ctx.name, "ordered"));
  options.ordered = ordered.value_or(true);
  ASSIGN_OR_RETURN(std::optional<bool> bypass,
                   GetBool(present, ctx.name, "bypassDocumentValidation"));
  options.bypass_document_validation = bypass.value_or(false);
  ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> wc, GetObject(present, ctx.name, "writeConcern"));
  if (wc) {
    ASSIGN_OR_RETURN(std::optional<bool> j, GetBool(wc->get(), "writeConcern", "j"));
    options.journal = j.value_or(false);
    RETURN_IF_ERROR(CheckWriteConcernW(wc->get(), &options.unacknowledged));
    if (options.journal) options.unacknowledged = false;  // {w: 0, j: true} is acknowledged
  }
  return options;
}

// Collects per-statement errors and finishes the reply.
class WriteErrors {
 public:
  // Returns false when the batch must stop.
  bool Add(int64_t index, const Status& status, bool ordered) {
    errors_.emplace_back(index, status);
    return !ordered;
  }
  void AppendTo(bson_t* reply) const {
    if (errors_.empty()) return;
    bson_t array;
    bson_append_array_begin(reply, "writeErrors", -1, &array);
    for (uint32_t i = 0; i < errors_.size(); ++i) {
      AppendWriteError(&array, i, errors_[i].first, errors_[i].second);
    }
    bson_append_array_end(reply, &array);
  }

 private:
  std::vector<std::pair<int64_t, Status>> errors_;
};

Status FinishWrite(CommandContext& ctx, const WriteOptions& options) {
  if (options.journal) return ctx.engine->FlushJournal();
  return Status::OK();
}

// A required document field of a statement ({q: {...}}).
StatusWith<bson::BsonDoc> RequiredObject(const PresentFields& statement, const std::string& path,
                                         const char* field) {
  bson_iter_t it;
  if (!statement.Find(field, &it)) {
    return Status(ErrorCode::kLocation40414,
                  "BSON field '" + path + "." + field + "' is missing but a required field");
  }
  if (!BSON_ITER_HOLDS_DOCUMENT(&it)) {
    return Status(ErrorCode::kTypeMismatch, "BSON field '" + path + "." + field +
                                                "' is the wrong type '" +
                                                std::string(BsonTypeName(bson_iter_type(&it))) +
                                                "', expected type 'object'");
  }
  uint32_t len;
  const uint8_t* data;
  bson_iter_document(&it, &len, &data);
  return bson::BsonDoc::CopyOf(data, len);
}

// An update statement's own fields; bit i of RunUpdate's `given` says
// kUpdateStatementFields[i] is in the statement.
enum UpdateStatementField : uint32_t {
  kQ, kU, kUpsert, kMulti, kArrayFilters, kHint, kCollation, kC, kSort, kUpdateStatementFieldCount
};
constexpr std::array<std::string_view, kUpdateStatementFieldCount> kUpdateStatementFields = {
    "q", "u", "upsert", "multi", "arrayFilters", "hint", "collation", "c", "sort"};
static_assert(kUpdateStatementFields[kU] == "u" && kUpdateStatementFields[kArrayFilters] == "arrayFilters" &&
              kUpdateStatementFields[kCollation] == "collation" && kUpdateStatementFields[kSort] == "sort");

// {n: <n>}, the start of an insert's reply, written as its 12 bytes:
// BSON_APPEND_INT32 costs about 160 instructions, a tenth of what the
// insert command itself adds to a one-document insert (issue #18).
bson::BsonDoc CountReply(int32_t n) {
  uint8_t bytes[12] = {12, 0, 0, 0, BSON_TYPE_INT32, 'n', 0};
  const uint32_t le = BSON_UINT32_TO_LE(static_cast<uint32_t>(n));
  std::memcpy(bytes + 7, &le, sizeof le);
  bytes[11] = 0;
  return bson::BsonDoc::CopyOf(bytes, sizeof bytes);
}

// The insert command's own fields; bit i of RunInsert's `given` says
// kInsertFields[i] is in the body.
enum InsertField : uint32_t { kInsertDocuments, kInsertOrdered, kInsertBypass, kInsertFieldCount };
constexpr std::array<std::string_view, kInsertFieldCount> kInsertFields = {
    "documents", "ordered", "bypassDocumentValidation"};

// CollectionArgument(body, command), from the first field `present` holds
// (libbson's iterator over the body cost more than the rest of it).
StatusWith<std::string> CollectionArgumentOf(const PresentFields& present, const bson_t* body,
                                             std::string_view command) {
  bson_iter_t it;
  if (present.fields().empty() || !present.Find(present.fields().front().name, &it) ||
      !BSON_ITER_HOLDS_UTF8(&it)) {
    return CollectionArgument(body, command);  // its errors
  }
  uint32_t len;
  const char* s = bson_iter_utf8(&it, &len);
  return std::string(s, len);
}

}  // namespace

StatusWith<bson::BsonDoc> RunInsert(CommandContext& ctx) {
  const PresentFields present(ctx.body());
  ASSIGN_OR_RETURN(std::string coll, CollectionArgumentOf(present, ctx.body(), ctx.name));
  // An empty name is no namespace (MongoDB's parseNsCollectionRequired: 73).
  if (coll.empty()) RETURN_IF_ERROR(CheckCollectionNamespace(ctx.db(), coll));
  uint32_t given = 0;
  RETURN_IF_ERROR(CheckFields(present, ctx.name, kInsertFields, &given));
  // The options as WriteOptionsOf reads them, without looking for the
  // fields the check saw absent (a one-document insert gives at most
  // `ordered`); the rest, and every error, is WriteOptionsOf's.
  WriteOptions options;
  if ((given >> kInsertBypass & 1) != 0 || present.has("writeConcern")) {
    ASSIGN_OR_RETURN(options, WriteOptionsOf(ctx, present));
  } else if ((given >> kInsertOrdered & 1) != 0) {
    ASSIGN_OR_RETURN(std::optional<bool> ordered, GetBool(present, ctx.name, "ordered"));
    options.ordered = ordered.value_or(true);
  }
  // Drivers send the documents as a kind-1 sequence: the request's own
  // views serve as they are when StatementViewsOf would return a copy of
  // them (no "documents" in the body, a batch size it accepts); anything
  // else, errors included, is StatementViewsOf's.
  const DocumentSequence* sequence = nullptr;
  for (const DocumentSequence& seq : ctx.request.sequences) {
    if (seq.identifier == "documents") sequence = &seq;
  }
  std::vector<std::string_view> copied;
  std::span<const std::string_view> docs;
  if (sequence != nullptr && (given >> kInsertDocuments & 1) == 0 && !sequence->documents.empty() &&
      sequence->documents.size() <= static_cast<size_t>(kMaxWriteBatchSize)) {
    docs = sequence->documents;
  } else {
    ASSIGN_OR_RETURN(copied, StatementViewsOf(ctx, present, "documents"));
    docs = copied;
  }
  ASSIGN_OR_RETURN(std::vector<Status> results,
                   ctx.engine->InsertMany(ctx.db(), coll, docs, options.ordered,
                                          options.bypass_document_validation));
  int64_t n = 0;
  WriteErrors errors;
  for (size_t i = 0; i < results.size(); ++i) {
    if (results[i].ok()) {
      ++n;
    } else {
      errors.Add(static_cast<int64_t>(i), results[i], options.ordered);
    }
  }
  RETURN_IF_ERROR(FinishWrite(ctx, options));
  bson::BsonDoc out = CountReply(static_cast<int32_t>(n));
  errors.AppendTo(out.mutable_get());
  return WriteReply(options, std::move(out));
}

StatusWith<bson::BsonDoc> RunUpdate(CommandContext& ctx) {
  ASSIGN_OR_RETURN(std::string coll, CollectionArgument(ctx.body(), ctx.name));
  // An empty name is no namespace (MongoDB's parseNsCollectionRequired: 73).
  if (coll.empty()) RETURN_IF_ERROR(CheckCollectionNamespace(ctx.db(), coll));
  const PresentFields present(ctx.body());
  RETURN_IF_ERROR(CheckFields(present, ctx.name,
                              {"updates", "ordered", "bypassDocumentValidation", "let"}));
  RETURN_IF_ERROR(CheckWriteNamespace(ctx.db(), coll));
  ASSIGN_OR_RETURN(WriteOptions options, WriteOptionsOf(ctx, present));
  ASSIGN_OR_RETURN(std::vector<bson::BsonDoc> statements, StatementsOf(ctx, present, "updates"));
  ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> let, GetObject(present, ctx.name, "let"));
  int64_t n = 0, modified = 0;
  std::vector<std::pair<int64_t, bson::BsonDoc>> upserted;
  WriteErrors errors;
  for (size_t i = 0; i < statements.size(); ++i) {
    const bson_t* s = statements[i].get();
    // One pass over the statement; only the fields it holds are read (an
    // update by _id gives q and u: each absent getter was a scan of it).
    const PresentFields present(s);
    uint32_t given = 0;
    RETURN_IF_ERROR(CheckFields(present, "update.updates", kUpdateStatementFields, &given));
    auto has = [&](UpdateStatementField f) { return (given >> f & 1) != 0; };
    ASSIGN_OR_RETURN(bson::BsonDoc q, RequiredObject(present, "update.updates", "q"));
    engine::UpdateStatement statement;
    bson_iter_t u;
    if (present.Find("u", &u) && BSON_ITER_HOLDS_ARRAY(&u)) {
      // A pipeline-style update: the stages, as an array document.
      ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> stages, GetArray(s, "update.updates", "u"));
      statement.update = std::move(*stages);
      statement.update_is_pipeline = true;
    } else {
      ASSIGN_OR_RETURN(statement.update, RequiredObject(present, "update.updates", "u"));
    }
    if (has(kC)) {
      ASSIGN_OR_RETURN(statement.constants, GetObject(present, "update.updates", "c"));
    }
    if (let) statement.let = let->Copy();
    // A bad collation fails its statement (a write error), as in MongoDB,
    // where it is parsed when the statement runs.
    if (has(kCollation)) {
      StatusWith<engine::CollationOption> collation = GetCollation(s, "update.updates");
      if (!collation.ok()) {
        if (!errors.Add(static_cast<int64_t>(i), collation.status(), options.ordered)) break;
        continue;
      }
      statement.collation = collation.value();
    }
    statement.query = std::move(q);
    if (has(kUpsert)) {
      ASSIGN_OR_RETURN(std::optional<bool> upsert, GetBool(present, "update.updates", "upsert"));
      statement.upsert = upsert.value_or(false);
    }
    if (has(kMulti)) {
      ASSIGN_OR_RETURN(std::optional<bool> multi, GetBool(present, "update.updates", "multi"));
      statement.multi = multi.value_or(false);
    }
    statement.bypass_document_validation = options.bypass_document_validation;
    if (has(kArrayFilters)) {
      ASSIGN_OR_RETURN(statement.array_filters, GetArray(s, "update.updates", "arrayFilters"));
    }
    StatusWith<engine::UpdateResult> result = ctx.engine->Update(ctx.db(), coll, statement);
    if (!result.ok()) {
      if (!errors.Add(static_cast<int64_t>(i), result.status(), options.ordered)) break;
      continue;
    }
    n += result.value().matched;
    modified += result.value().modified;
    if (result.value().upserted_id) {
      upserted.emplace_back(static_cast<int64_t>(i), std::move(*result.value().upserted_id));
    }
  }
  RETURN_IF_ERROR(FinishWrite(ctx, options));
  bson::BsonDoc out;
  bson_t* doc = out.mutable_get();
  BSON_APPEND_INT32(doc, "n", static_cast<int32_t>(n));
  if (!upserted.empty()) {
    bson_t array;
    bson_append_array_begin(doc, "upserted", -1, &array);
    for (uint32_t i = 0; i < upserted.size(); ++i) {
      std::string key = std::to_string(i);
      bson_t entry;
      bson_append_document_begin(&array, key.c_str(), -1, &entry);
      BSON_APPEND_INT32(&entry, "index", static_cast<int32_t>(upserted[i].first));
      bson_iter_t id;
      bson_iter_init(&id, upserted[i].second.get());
      bson_iter_next(&id);
      bson_append_iter(&entry, "_id", 3, &id);
      bson_append_document_end(&array, &entry);
    }
    bson_append_array_end(doc, &array);
  }
  BSON_APPEND_INT32(doc, "nModified", static_cast<int32_t>(modified));
  errors.AppendTo(doc);
  return WriteReply(options, std::move(out));
}

StatusWith<bson::BsonDoc> RunDelete(CommandContext& ctx) {
  ASSIGN_OR_RETURN(std::string coll, CollectionArgument(ctx.body(), ctx.name));
  // An empty name is no namespace (MongoDB's parseNsCollectionRequired: 73).
  if (coll.empty()) RETURN_IF_ERROR(CheckCollectionNamespace(ctx.db(), coll));
  const PresentFields present(ctx.body());
  RETURN_IF_ERROR(CheckFields(present, ctx.name, {"deletes", "ordered", "let"}));
  RETURN_IF_ERROR(CheckWriteNamespace(ctx.db(), coll));
  ASSIGN_OR_RETURN(WriteOptions options, WriteOptionsOf(ctx, present));
  ASSIGN_OR_RETURN(std::vector<bson::BsonDoc> statements, StatementsOf(ctx, present, "deletes"));
  ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> let, GetObject(present, ctx.name, "let"));
  int64_t n = 0;
  WriteErrors errors;
  for (size_t i = 0; i < statements.size(); ++i) {
    const bson_t* s = statements[i].get();
    RETURN_IF_ERROR(CheckFields(s, "delete.deletes", {"q", "limit", "hint", "collation"}));
    ASSIGN_OR_RETURN(bson::BsonDoc q, RequiredObject(PresentFields(s), "delete.deletes", "q"));
    ASSIGN_OR_RETURN(std::optional<int64_t> limit, GetInt64(s, "delete.deletes", "limit"));
    if (!limit) {
      return Status(ErrorCode::kLocation40414,
                    "BSON field 'delete.deletes.limit' is missing but a required field");
    }
    if (*limit != 0 && *limit != 1) {
      return Status(ErrorCode::kFailedToParse,
                    "The limit field in delete objects must be 0 or 1. Got " + std::to_string(*limit));
    }
    StatusWith<engine::CollationOption> collation = GetCollation(s, "delete.deletes");
    if (!collation.ok()) {
      if (!errors.Add(static_cast<int64_t>(i), collation.status(), options.ordered)) break;
      continue;
    }
    engine::DeleteStatement statement;
    statement.collation = collation.value();
    statement.query = std::move(q);
    statement.limit = *limit;
    if (let) statement.let = let->Copy();
    StatusWith<engine::DeleteResult> result = ctx.engine->Delete(ctx.db(), coll, statement);
    if (!result.ok()) {
      if (!errors.Add(static_cast<int64_t>(i), result.status(), options.ordered)) break;
      continue;
    }
    n += result.value().deleted;
  }
  RETURN_IF_ERROR(FinishWrite(ctx, options));
  bson::BsonDoc out = CountReply(static_cast<int32_t>(n));
  errors.AppendTo(out.mutable_get());
  return WriteReply(options, std::move(out));
}

}  // namespace tigerdoc::wire
