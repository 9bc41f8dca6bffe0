// Change log rows (format in the header and engine/README.md).

#include "engine/catalog/change_event.h"

#include "engine/catalog/transaction_ddl_events.h"

#include <string>
#include <vector>

namespace tigerdoc::catalog {
namespace {

void AppendUtf8(bson_t* out, const char* key, std::string_view value) {
  bson_append_utf8(out, key, -1, value.data(), static_cast<int>(value.size()));
}

bson::BsonDoc Base(std::string_view op, std::string_view db, std::string_view coll) {
  bson::BsonDoc out;
  AppendUtf8(out.mutable_get(), "op", op);
  AppendUtf8(out.mutable_get(), "db", db);
  if (!coll.empty()) AppendUtf8(out.mutable_get(), "coll", coll);
  return out;
}

bool SameValue(const bson_iter_t* a, const bson_iter_t* b) {
  if (bson_iter_type(a) != bson_iter_type(b)) return false;
  const bson_value_t* va = bson_iter_value(const_cast<bson_iter_t*>(a));
  const bson_value_t* vb = bson_iter_value(const_cast<bson_iter_t*>(b));
  switch (va->value_type) {
    case BSON_TYPE_DOCUMENT:
    case BSON_TYPE_ARRAY:
      return va->value.v_doc.data_len == vb->value.v_doc.data_len &&
             memcmp(va->value.v_doc.data, vb->value.v_doc.data, va->value.v_doc.data_len) == 0;
    default: {
      // Compare the raw element bytes: same type and same bytes is the same
      // value for change reporting (1 and 1.0 differ, as in MongoDB's diff).
      bson_t da, db;
      bson_init(&da);
      bson_init(&db);
      bson_append_value(&da, "", 0, va);
      bson_append_value(&db, "", 0, vb);
      bool same = da.len == db.len && memcmp(bson_get_data(&da), bson_get_data(&db), da.len) == 0;
      bson_destroy(&da);
      bson_destroy(&db);
      return same;
    }
  }
}

struct Diff {
  bson::BsonDoc updated;
  std::vector<std::string> removed;
  bson::BsonDoc truncated;  // array of {field, newSize}
  int truncated_count = 0;
};

std::string Join(const std::string& prefix, std::string_view key) {
  return prefix.empty() ? std::string(key) : prefix + "." + std::string(key);
}

void DiffArrays(const bson_iter_t* before, const bson_iter_t* after, const std::string& path,
                Diff* diff);

// Both iterators hold sub-documents (objects) at `path`.
void DiffDocuments(bson_iter_t* before_it, bson_iter_t* after_it, const std::string& path,
                   Diff* diff) {
  bson_iter_t b, a;
  // Fields that left.
  bson_iter_recurse(before_it, &b);
  while (bson_iter_next(&b)) {
    bson_iter_t probe;
    bson_iter_recurse(after_it, &probe);
    if (!bson_iter_find_w_len(&probe, bson_iter_key(&b), static_cast<int>(bson_iter_key_len(&b)))) {
      diff->removed.push_back(Join(path, bson_iter_key(&b)));
    }
  }
  // Fields that came or changed.
  bson_iter_recurse(after_it, &a);
  while (bson_iter_next(&a)) {
    const std::string field = Join(path, bson_iter_key(&a));
    bson_iter_t old;
    bson_iter_recurse(before_it, &old);
    if (!bson_iter_find_w_len(&old, bson_iter_key(&a), static_cast<int>(bson_iter_key_len(&a)))) {
      bson_append_iter(diff->updated.mutable_get(), field.c_str(), -1, &a);
      continue;
    }
    if (SameValue(&old, &a)) continue;
    if (BSON_ITER_HOLDS_DOCUMENT(&old) && BSON_ITER_HOLDS_DOCUMENT(&a)) {
      DiffDocuments(&old, &a, field, diff);
    } else if (BSON_ITER_HOLDS_ARRAY(&old) && BSON_ITER_HOLDS_ARRAY(&a)) {
      DiffArrays(&old, &a, field, diff);
    } else {
      bson_append_iter(diff->updated.mutable_get(), field.c_str(), -1, &a);
    }
  }
}

void DiffArrays(const bson_iter_t* before, const bson_iter_t* after, const std::string& path,
                Diff* diff) {
  std::vector<bson_iter_t> old_items, new_items;
  bson_iter_t it;
  bson_iter_recurse(before, &it);
  while (bson_iter_next(&it)) old_items.push_back(it);
  bson_iter_recurse(after, &it);
  while (bson_iter_next(&it)) new_items.push_back(it);
  if (new_items.size() < old_items.size()) {
    bson_t entry;
    std::string index = std::to_string(diff->truncated_count++);
    bson_append_document_begin(diff->truncated.mutable_get(), index.c_str(), -1, &entry);
    AppendUtf8(&entry, "field", path);
    BSON_APPEND_INT32(&entry, "newSize", static_cast<int32_t>(new_items.size()));
    bson_append_document_end(diff->truncated.mutable_get(), &entry);
  }
  for (size_t i = 0; i < new_items.size(); ++i) {
    const std::string field = path + "." + std::to_string(i);
    if (i < old_items.size()) {
      if (SameValue(&old_items[i], &new_items[i])) continue;
      if (BSON_ITER_HOLDS_DOCUMENT(&old_items[i]) && BSON_ITER_HOLDS_DOCUMENT(&new_items[i])) {
        DiffDocuments(&old_items[i], &new_items[i], field, diff);
        continue;
      }
    }
    bson_append_iter(diff->updated.mutable_get(), field.c_str(), -1, &new_items[i]);
  }
}

}  // namespace

bool PreAndPostImagesEnabled(const CollectionEntry& coll) {
  std::shared_ptr<const PatternState> patterns = coll.patterns();
  bson_iter_t it, enabled;
  return patterns && bson_iter_init_find(&it, patterns->configs.get(), kPreAndPostImagesOption) &&
         BSON_ITER_HOLDS_DOCUMENT(&it) && bson_iter_recurse(&it, &enabled) &&
         bson_iter_find(&enabled, "enabled") && bson_iter_as_bool(&enabled);
}

bson::BsonDoc DocumentKeyOf(const CollectionMetadata& md, const bson_t* doc) {
  bson::BsonDoc key;
  bson_iter_t it;
  if (md.shard_key_field != "_id") {
    if (bson_iter_init_find(&it, doc, md.shard_key_field.c_str())) {
      bson_append_iter(key.mutable_get(), md.shard_key_field.c_str(), -1, &it);
    } else if (md.shard_key_field.find('.') != std::string::npos &&
               bson_iter_init(&it, doc)) {
      bson_iter_t found;
      if (bson_iter_find_descendant(&it, md.shard_key_field.c_str(), &found)) {
        bson_append_iter(key.mutable_get(), md.shard_key_field.c_str(), -1, &found);
      }
    }
  }
  if (bson_iter_init_find(&it, doc, "_id")) bson_append_iter(key.mutable_get(), "_id", 3, &it);
  return key;
}

bson::BsonDoc UpdateDescriptionOf(const bson_t* before, const bson_t* after) {
  Diff diff;
  // Wrap both documents so the top level diffs like any sub-document.
  bson::BsonDoc wrap_before, wrap_after;
  BSON_APPEND_DOCUMENT(wrap_before.mutable_get(), "", before);
  BSON_APPEND_DOCUMENT(wrap_after.mutable_get(), "", after);
  bson_iter_t b, a;
  bson_iter_init(&b, wrap_before.get());
  bson_iter_init(&a, wrap_after.get());
  bson_iter_next(&b);
  bson_iter_next(&a);
  DiffDocuments(&b, &a, "", &diff);
  bson::BsonDoc out;
  BSON_APPEND_DOCUMENT(out.mutable_get(), "updatedFields", diff.updated.get());
  bson_t removed;
  bson_append_array_begin(out.mutable_get(), "removedFields", -1, &removed);
  for (size_t i = 0; i < diff.removed.size(); ++i) {
    std::string index = std::to_string(i);
    AppendUtf8(&removed, index.c_str(), diff.removed[i]);
  }
  bson_append_array_end(out.mutable_get(), &removed);
  BSON_APPEND_ARRAY(out.mutable_get(), "truncatedArrays", diff.truncated.get());
  return out;
}

bson::BsonDoc InsertEvent(const CollectionEntry& coll, const bson_t* doc) {
  bson::BsonDoc out = Base("insert", coll.metadata.db, coll.metadata.name);
  BSON_APPEND_DOCUMENT(out.mutable_get(), "key", DocumentKeyOf(coll.metadata, doc).get());
  BSON_APPEND_DOCUMENT(out.mutable_get(), "doc", doc);
  return out;
}

bson::BsonDoc UpdateEvent(const CollectionEntry& coll, const bson_t* before, const bson_t* after,
                          bool replace) {
  const bool images = PreAndPostImagesEnabled(coll);
  bson::BsonDoc out = Base(replace ? "replace" : "update", coll.metadata.db, coll.metadata.name);
  BSON_APPEND_DOCUMENT(out.mutable_get(), "key", DocumentKeyOf(coll.metadata, after).get());
  if (replace || images) BSON_APPEND_DOCUMENT(out.mutable_get(), "doc", after);
  if (images) BSON_APPEND_DOCUMENT(out.mutable_get(), "pre", before);
  if (!replace) {
    BSON_APPEND_DOCUMENT(out.mutable_get(), "upd", UpdateDescriptionOf(before, after).get());
  }
  return out;
}

bson::BsonDoc DeleteEvent(const CollectionEntry& coll, const bson_t* before) {
  bson::BsonDoc out = Base("delete", coll.metadata.db, coll.metadata.name);
  BSON_APPEND_DOCUMENT(out.mutable_get(), "key", DocumentKeyOf(coll.metadata, before).get());
  if (PreAndPostImagesEnabled(coll)) BSON_APPEND_DOCUMENT(out.mutable_get(), "pre", before);
  return out;
}

bson::BsonDoc NamespaceEvent(std::string_view op, std::string_view db, std::string_view coll,
                             const bson_t* desc) {
  bson::BsonDoc out = Base(op, db, coll);
  if (desc != nullptr) BSON_APPEND_DOCUMENT(out.mutable_get(), "desc", desc);
  return out;
}

bson::BsonDoc RenameEvent(std::string_view db, std::string_view coll, std::string_view to_db,
                          std::string_view to_coll, bool drop_target) {
  bson::BsonDoc out = Base("rename", db, coll);
  bson::BsonDoc to;
  AppendUtf8(to.mutable_get(), "db", to_db);
  AppendUtf8(to.mutable_get(), "coll", to_coll);
  BSON_APPEND_DOCUMENT(out.mutable_get(), "to", to.get());
  bson::BsonDoc desc;
  BSON_APPEND_DOCUMENT(desc.mutable_get(), "to", to.get());
  if (drop_target) BSON_APPEND_BOOL(desc.mutable_get(), "dropTarget", true);
  BSON_APPEND_DOCUMENT(out.mutable_get(), "desc", desc.get());
  return out;
}

namespace {
thread_local storage::Session* ddl_events_txn = nullptr;
thread_local bool silent_drops = false;
}  // namespace

TransactionDdlEvents::TransactionDdlEvents(storage::Session* txn) { ddl_events_txn = txn; }
TransactionDdlEvents::~TransactionDdlEvents() { ddl_events_txn = nullptr; }
storage::Session* TransactionDdlEvents::Current() { return ddl_events_txn; }
SilentDropEvents::SilentDropEvents() { silent_drops = true; }
SilentDropEvents::~SilentDropEvents() { silent_drops = false; }
bool SilentDropEvents::Active() { return silent_drops; }

Status RecordChange(const Catalog& catalog, storage::Session& session, bson::BsonDoc event) {
  ChangeRecorder* recorder = catalog.change_recorder();
  if (recorder == nullptr) return Status::OK();
  bson_iter_t op;
  if (bson_iter_init_find(&op, event.get(), "op") && BSON_ITER_HOLDS_UTF8(&op)) {
    const std::string_view name = bson_iter_utf8(&op, nullptr);
    if (name == "drop" && SilentDropEvents::Active()) return Status::OK();
    storage::Session* txn = TransactionDdlEvents::Current();
    if ((name == "create" || name == "createIndexes") && txn != nullptr && txn->in_transaction()) {
      return recorder->Record(*txn, std::move(event));
    }
  }
  return recorder->Record(session, std::move(event));
}

}  // namespace tigerdoc::catalog
