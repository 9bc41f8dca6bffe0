// Change log rows -> change events (shapes in the header).

#include "engine/changes/change_events.h"

#include <string_view>

#include "engine/changes/resume_token.h"

namespace tigerdoc::engine {
namespace {

std::string_view Utf8Field(const bson_t* row, const char* name) {
  bson_iter_t it;
  if (!bson_iter_init_find(&it, row, name) || !BSON_ITER_HOLDS_UTF8(&it)) return {};
  uint32_t len = 0;
  const char* s = bson_iter_utf8(&it, &len);
  return {s, len};
}

bool FindField(const bson_t* row, const char* name, bson_iter_t* it) {
  return bson_iter_init_find(it, row, name);
}

bool IsInternalDb(std::string_view db) {
  return db == "admin" || db == "config" || db == "local";
}

bool IsDocumentOp(std::string_view op) {
  return op == "insert" || op == "update" || op == "replace" || op == "delete";
}

bool IsExpandedOnly(std::string_view op) {
  return op == "create" || op == "createIndexes" || op == "dropIndexes";
}

void AppendUtf8(bson_t* out, const char* key, std::string_view value) {
  bson_append_utf8(out, key, -1, value.data(), static_cast<int>(value.size()));
}

// The common head of every event: _id, operationType, clusterTime, wallTime.
void AppendHead(bson_t* out, const LogEntry& entry, ResumeToken::Kind kind, std::string_view op) {
  ResumeToken token{entry.pos, kind};
  BSON_APPEND_DOCUMENT(out, "_id", token.ToBson().get());
  AppendUtf8(out, "operationType", op);
  BSON_APPEND_TIMESTAMP(out, "clusterTime", entry.pos.ts.seconds, entry.pos.ts.increment);
  bson_iter_t wall;
  if (FindField(entry.row.get(), "wall", &wall)) bson_append_iter(out, "wallTime", 8, &wall);
}

Status MissingImage(std::string_view which, const LogEntry& entry) {
  return Status(ErrorCode::kNoMatchingDocument,
                "Change stream was configured to require a " + std::string(which) +
                    " for all update, delete and replace events, but the " + std::string(which) +
                    " was not found for event: " + ResumeToken{entry.pos}.ToHex());
}

}  // namespace

Status ShapeEvents(const LogEntry& entry, const ChangeStreamScope& scope,
                   const ChangeStreamOptions& options, const DocumentLookup& lookup,
                   std::vector<bson::BsonDoc>* out, bool* invalidated) {
  *invalidated = false;
  const bson_t* row = entry.row.get();
  const std::string_view op = Utf8Field(row, "op");
  const std::string_view db = Utf8Field(row, "db");
  const std::string_view coll = Utf8Field(row, "coll");
  if (op.empty()) return Status::OK();
  if (IsExpandedOnly(op) && !options.show_expanded_events) return Status::OK();

  // Which streams see the row, and which it ends.
  bool invalidates = false;
  if (scope.db.empty()) {
    if (IsInternalDb(db)) return Status::OK();
  } else if (scope.coll.empty()) {
    if (db != scope.db) return Status::OK();
    if (coll.substr(0, 7) == "system.") return Status::OK();
    invalidates = op == "dropDatabase";
  } else {
    if (db != scope.db || coll != scope.coll || op == "dropDatabase") return Status::OK();
    invalidates = op == "drop" || op == "rename";
  }

  bson::BsonDoc event;
  bson_t* e = event.mutable_get();
  AppendHead(e, entry, ResumeToken::Kind::kEvent, op);
  bson_iter_t it;
  if ((op == "insert" || op == "replace") && FindField(row, "doc", &it)) {
    bson_append_iter(e, "fullDocument", -1, &it);
  }
  bson::BsonDoc ns;
  AppendUtf8(ns.mutable_get(), "db", db);
  if (!coll.empty()) AppendUtf8(ns.mutable_get(), "coll", coll);
  BSON_APPEND_DOCUMENT(e, "ns", ns.get());
  bson_iter_t key;
  const bool has_key = FindField(row, "key", &key);
  if (IsDocumentOp(op) && has_key) bson_append_iter(e, "documentKey", -1, &key);
  if (op == "update") {
    if (FindField(row, "upd", &it)) bson_append_iter(e, "updateDescription", -1, &it);
    using FullDocument = ChangeStreamOptions::FullDocument;
    switch (options.full_document) {
      case FullDocument::kDefault:
        break;
      case FullDocument::kUpdateLookup: {
        std::optional<bson::BsonDoc> current;
        if (has_key && lookup) {
          bson_t key_doc = bson::SubDocumentView(&key);
          ASSIGN_OR_RETURN(current, lookup(std::string(db), std::string(coll), &key_doc));
        }
        if (current) {
          BSON_APPEND_DOCUMENT(e, "fullDocument", current->get());
        } else {
          BSON_APPEND_NULL(e, "fullDocument");
        }
        break;
      }
      case FullDocument::kWhenAvailable:
      case FullDocument::kRequired:
        if (FindField(row, "doc", &it)) {
          bson_append_iter(e, "fullDocument", -1, &it);
        } else if (options.full_document == FullDocument::kRequired) {
          return MissingImage("post-image", entry);
        } else {
          BSON_APPEND_NULL(e, "fullDocument");
        }
        break;
    }
  }
  if (op == "rename" && FindField(row, "to", &it)) bson_append_iter(e, "to", -1, &it);
  if (options.show_expanded_events && FindField(row, "desc", &it)) {
    bson_append_iter(e, "operationDescription", -1, &it);
  }
  if (options.before_change != ChangeStreamOptions::BeforeChange::kOff &&
      (op == "update" || op == "replace" || op == "delete")) {
    if (FindField(row, "pre", &it)) {
      bson_append_iter(e, "fullDocumentBeforeChange", -1, &it);
    } else if (options.before_change == ChangeStreamOptions::BeforeChange::kRequired) {
      return MissingImage("pre-image", entry);
    } else {
      BSON_APPEND_NULL(e, "fullDocumentBeforeChange");
    }
  }
  for (const char* txn_field : {"lsid", "txnNumber"}) {
    if (FindField(row, txn_field, &it)) bson_append_iter(e, txn_field, -1, &it);
  }
  out->push_back(std::move(event));

  if (invalidates) {
    bson::BsonDoc invalidate;
    AppendHead(invalidate.mutable_get(), entry, ResumeToken::Kind::kInvalidate, "invalidate");
    out->push_back(std::move(invalidate));
    *invalidated = true;
  }
  return Status::OK();
}

}  // namespace tigerdoc::engine
