// CollectionWriter: store + index maintenance (contract in the header).

#include "engine/write/collection_writer.h"

#include <algorithm>

#include "engine/catalog/change_event.h"
#include "engine/write/document_rules.h"
#include "engine/write/hook_runner.h"
#include "engine/index/index_table.h"
#include "engine/keystring/key_string.h"

namespace tigerdoc::engine {
namespace {

using storage::ShardedRecordStore;

// The _id index's collation is the collection's default when the _id
// index compares under it (id_index_document.h): both the byte-equal _id
// the store refuses and the collation-equal one the "-idc" table refuses
// are reported under it, as mongod's one _id index would.
Status DuplicateIdError(const catalog::CollectionMetadata& md, const bson_t* doc) {
  bson::BsonDoc id = Rename(IdOf(doc).get(), "_id");
  bson::BsonDoc pattern;
  BSON_APPEND_INT32(pattern.mutable_get(), "_id", 1);
  return DuplicateKeyError(md.ns, index::kIdIndexName, pattern.get(), id.get(),
                           md.collated_id_table ? md.default_collator : nullptr);
}

// MongoDB's _id index takes the collection's default collation, so {_id:
// "a"} and {_id: "A"} collide under strength 2. The record keys order _id
// by bytes; the "<ident>-idc" table (catalog::CollectionMetadata::
// collated_id_table) holds the collated key of every _id, inserted in the
// write's transaction, so a second collation-equal _id fails like any
// unique key. _id never changes, so updates leave the table alone.
Status AddCollatedId(storage::Session& session, const catalog::CollectionEntry& coll,
                     const bson_t* doc) {
  if (!coll.metadata.collated_id_table) return Status::OK();
  bson_iter_t id;
  if (!bson_iter_init_find(&id, doc, "_id")) return Status::OK();  // the store refused it already
  Status added = session.Insert(ShardedRecordStore::CollatedIdTableName(coll.metadata.ident),
                                keystring::Encode(&id, coll.metadata.default_collator), "");
  if (added.code() == ErrorCode::kDuplicateKey) {
    return DuplicateIdError(coll.metadata, doc);
  }
  return added;
}

Status RemoveCollatedId(storage::Session& session, const catalog::CollectionEntry& coll,
                        const bson_t* doc) {
  if (!coll.metadata.collated_id_table) return Status::OK();
  bson_iter_t id;
  if (!bson_iter_init_find(&id, doc, "_id")) return Status::OK();
  Status removed = session.Remove(ShardedRecordStore::CollatedIdTableName(coll.metadata.ident),
                                  keystring::Encode(&id, coll.metadata.default_collator));
  return removed.code() == ErrorCode::kNoSuchKey ? Status::OK() : removed;
}

bool SameBytes(const bson::BsonDoc& a, const bson::BsonDoc& b) { return a.bytes() == b.bytes(); }

}  // namespace

// Hooks writing other collections nest writers; deeper than this is a
// cycle of patterns feeding each other.
constexpr int kMaxHookDepth = 4;

// What hooks see of a write (hooks.h).
class CollectionWriter::Context : public HookContext {
 public:
  Context(CollectionWriter& writer, storage::Session& session) : writer_(writer), session_(session) {}
  storage::Session& session() override { return session_; }
  const catalog::CollectionEntry& collection() const override { return writer_.coll_; }
  StatusWith<CollectionWriter*> WriterFor(std::string_view db, std::string_view coll) override {
    return writer_.WriterFor(db, coll);
  }
  std::shared_ptr<catalog::CollectionEntry> Lookup(std::string_view db,
                                                   std::string_view coll) override {
    return writer_.catalog_.Lookup(std::string(db) + "." + std::string(coll));
  }

 private:
  CollectionWriter& writer_;
  storage::Session& session_;
};

CollectionWriter::CollectionWriter(catalog::Catalog& catalog, catalog::CollectionEntry& coll,
                                   int depth)
    : catalog_(catalog),
      coll_(coll),
      lock_(coll.write_mutex()),
      capped_lock_(coll.store->capped() ? std::unique_lock<std::mutex>(coll.store->capped_write_mutex())
                                        : std::unique_lock<std::mutex>()),
      capped_limits_(coll.store->capped() ? catalog::CappedLimitsOf(coll.metadata.options.get())
                                          : std::nullopt),
      indexes_(coll.indexes()),
      patterns_(coll.patterns()),
      hooks_(HookRunner::Of(*patterns_)),
      depth_(depth) {
  if (const GuardSource* guards = GuardSource::Of(catalog)) guards_ = guards->For(coll);
  // The options cannot change while the shared write lock is held
  // (collMod takes it exclusively); the first writer compiles them.
  catalog::CollectionEntry::ValidatorSlot& slot = coll.validator_slot;
  std::lock_guard<std::mutex> guard(slot.mutex);
  if (!slot.built) {
    StatusWith<std::shared_ptr<const DocumentValidator>> built = DocumentValidator::FromOptions(
        coll.metadata.options.get(), coll.metadata.db, coll.metadata.ns);
    if (!built.ok()) {
      validator_error_ = built.status();
      return;
    }
    slot.validator = std::move(built).value();
    slot.built = true;
  }
  validator_ = slot.validator;
}

CollectionWriter::~CollectionWriter() = default;

StatusWith<CollectionWriter*> CollectionWriter::WriterFor(std::string_view db,
                                                          std::string_view coll) {
  if (depth_ + 1 > kMaxHookDepth) {
    return Status(ErrorCode::kBadValue, "patterns of " + coll_.metadata.ns +
                                            " write other collections more than " +
                                            std::to_string(kMaxHookDepth) +
                                            " levels deep (a cycle of patterns?)");
  }
  std::string ns = std::string(db) + "." + std::string(coll);
  auto it = others_.find(ns);
  if (it != others_.end()) return it->second.writer.get();
  ASSIGN_OR_RETURN(std::shared_ptr<catalog::CollectionEntry> entry,
                   catalog_.GetOrCreate(db, coll, coll_.metadata.num_shards));
  Other other;
  other.writer = std::make_unique<CollectionWriter>(catalog_, *entry, depth_ + 1);
  other.entry = std::move(entry);
  CollectionWriter* writer = other.writer.get();
  others_.emplace(std::move(ns), std::move(other));
  return writer;
}

Status CollectionWriter::InsertRouted(storage::Session& session,
                                      const std::vector<const bson_t*>& docs) {
  if (hooks_ == nullptr) {
    return Status(ErrorCode::kNotImplemented,
                  coll_.metadata.ns + " takes no documents for another namespace");
  }
  Context ctx(*this, session);
  return hooks_->InsertRouted(ctx, *this, docs);
}

Status CollectionWriter::CheckValidation(const bson_t* old_doc, const bson_t* new_doc) const {
  if (bypass_validation_) return Status::OK();
  RETURN_IF_ERROR(validator_error_);
  if (!validator_) return Status::OK();
  return validator_->Check(old_doc, new_doc);
}

StatusWith<index::DocumentKeys> CollectionWriter::KeysOf(const index::IndexSpec& spec,
                                                         const bson_t* doc) {
  ASSIGN_OR_RETURN(index::DocumentKeys keys, index::GenerateKeys(spec, doc));
  if (keys.multikey) {
    multikey_.push_back(
        catalog::MultikeyUpdate{spec.id, keys.multikey_paths, keys.wildcard_multikey_paths});
  }
  return keys;
}

Status CollectionWriter::MarkMultikey(storage::Session& session) {
  if (multikey_.empty()) return Status::OK();
  std::vector<catalog::MultikeyUpdate> updates;
  updates.swap(multikey_);
  return catalog_.MarkMultikey(session, coll_, updates);
}

Status AddIndexEntries(storage::Session& session, const catalog::CollectionEntry& coll_,
                       const index::IndexSpec& spec, const ShardedRecordStore::Location& at,
                       const std::vector<index::IndexKey>& keys) {
  const std::string table = index::EntryTable(coll_.metadata.ident, spec, at.shard);
  for (const index::IndexKey& key : keys) {
    const std::string entry_key = index::EncodeEntryKey(spec, key.encoded, at.record_key);
    const std::string value = index::EncodeEntryValue(at.shard, at.record_key, key.values);
    if (!spec.unique) {
      RETURN_IF_ERROR(session.Put(table, entry_key, value));
      continue;
    }
    Status status = session.Insert(table, entry_key, value);
    if (status.code() == ErrorCode::kDuplicateKey) {
      return DuplicateKeyError(coll_.metadata.ns, spec.name, spec.key_pattern.get(),
                               KeyValueOf(spec, key.values.get()).get(), spec.collator);
    }
    RETURN_IF_ERROR(status);
  }
  return Status::OK();
}

Status RemoveIndexEntries(storage::Session& session, const catalog::CollectionEntry& coll_,
                          const index::IndexSpec& spec, const ShardedRecordStore::Location& at,
                          const std::vector<index::IndexKey>& keys) {
  const std::string table = index::EntryTable(coll_.metadata.ident, spec, at.shard);
  for (const index::IndexKey& key : keys) {
    Status status =
        session.Remove(table, index::EncodeEntryKey(spec, key.encoded, at.record_key));
    // An absent entry is already what we want (an index built while the
    // document had other keys cannot happen under the write mutex, but a
    // missing entry must not make the document unremovable).
    if (!status.ok() && status.code() != ErrorCode::kNoSuchKey) return status;
  }
  return Status::OK();
}

template <typename Store>
Status CollectionWriter::StoreThroughHooks(HookContext& ctx, WriteEvent& event, Store store,
                                           bson::BsonDoc* stored) {
  bson::BsonDoc reshaped;
  if (hooks_ != nullptr) RETURN_IF_ERROR(hooks_->BeforeStore(ctx, event, &reshaped));
  if (!reshaped.empty()) event.after = reshaped.get();
  for (const auto& guard : guards_) {
    bson::BsonDoc unused;  // guards check; they never reshape
    RETURN_IF_ERROR(guard->BeforeStore(ctx, event, &unused));
  }
  RETURN_IF_ERROR(store(event.after));
  if (hooks_ != nullptr) RETURN_IF_ERROR(hooks_->AfterStore(ctx, event));
  if (stored != nullptr && !reshaped.empty()) *stored = std::move(reshaped);
  return Status::OK();
}

WriteEvent CollectionWriter::UpdateEvent(const bson_t* old_doc, const bson_t* new_doc,
                                         const UpdateSpec& spec) const {
  WriteEvent event{WriteKind::kUpdate, old_doc, new_doc, true};
  event.update = spec.update;
  event.update_is_pipeline = spec.is_pipeline;
  event.proposed = new_doc;
  event.origin = origin_;
  return event;
}

Status CollectionWriter::Insert(storage::Session& session, const bson_t* doc, bool from_update) {
  return Insert(session, doc, from_update, nullptr);
}

Status CollectionWriter::Insert(storage::Session& session, const bson_t* doc, bool from_update,
                                bson::BsonDoc* stored) {
  if (hooks_ == nullptr && guards_.empty()) return StoreInsert(session, doc);
  Context ctx(*this, session);
  WriteEvent event{WriteKind::kInsert, nullptr, doc, from_update};
  event.proposed = doc;
  event.origin = origin_;
  return StoreThroughHooks(
      ctx, event, [&](const bson_t* after) { return StoreInsert(session, after); }, stored);
}

Status CollectionWriter::Update(storage::Session& session, const bson_t* old_doc,
                                const bson_t* new_doc) {
  return Update(session, old_doc, new_doc, UpdateSpec{}, nullptr);
}

Status CollectionWriter::Update(storage::Session& session, const bson_t* old_doc,
                                const bson_t* new_doc, const UpdateSpec& spec,
                                bson::BsonDoc* stored) {
  if (hooks_ == nullptr && guards_.empty()) {
    return StoreUpdate(session, old_doc, new_doc, spec.is_replacement);
  }
  Context ctx(*this, session);
  WriteEvent event = UpdateEvent(old_doc, new_doc, spec);
  return StoreThroughHooks(
      ctx, event,
      [&](const bson_t* after) { return StoreUpdate(session, old_doc, after, spec.is_replacement); },
      stored);
}

StatusWith<bool> CollectionWriter::UpdateModifies(storage::Session& session,
                                                  const bson_t* old_doc, const bson_t* new_doc,
                                                  const UpdateSpec& spec, bool modified) {
  if (hooks_ == nullptr) return modified;
  Context ctx(*this, session);
  return hooks_->UpdateModifies(ctx, UpdateEvent(old_doc, new_doc, spec), modified);
}

// Whether anyone keeps change events: a standalone server keeps none
// (wire/main.cc), so building an event, which copies the document, is waste.
static bool RecordsChanges(const catalog::Catalog& catalog) {
  return catalog.change_recorder() != nullptr;
}

Status CollectionWriter::StoreInsert(storage::Session& session, const bson_t* doc) {
  // Schema validation sees the document as it will be stored (after the
  // hooks reshaped it).
  RETURN_IF_ERROR(CheckValidation(nullptr, doc));
  multikey_.clear();  // left over by a failed earlier unit
  RETURN_IF_ERROR(CheckStorageDepth(doc, /*is_update=*/false));
  if (capped_limits_ && static_cast<int64_t>(doc->len) > capped_limits_->max_bytes) {
    // MongoDB's record store refuses it before anything is removed.
    return Status(ErrorCode::kBadValue, "object to insert exceeds cappedMaxSize");
  }
  Status stored = coll_.store->Insert(session, doc);
  if (stored.code() == ErrorCode::kDuplicateKey) return DuplicateIdError(coll_.metadata, doc);
  RETURN_IF_ERROR(stored);
  RETURN_IF_ERROR(AddCollatedId(session, coll_, doc));
  if (RecordsChanges(catalog_)) {
    RETURN_IF_ERROR(catalog::RecordChange(catalog_, session, catalog::InsertEvent(coll_, doc)));
  }
  if (!indexes_->specs.empty()) {
    ASSIGN_OR_RETURN(ShardedRecordStore::Location at, coll_.store->LocationOf(session, doc));
    for (const auto& spec : indexes_->specs) {
      ASSIGN_OR_RETURN(index::DocumentKeys keys, KeysOf(*spec, doc));
      RETURN_IF_ERROR(AddIndexEntries(session, coll_, *spec, at, keys.keys));
    }
    RETURN_IF_ERROR(MarkMultikey(session));
  }
  if (!capped_limits_) return Status::OK();
  CountCappedChange(session, 1, doc->len);
  return EvictCapped(session);
}

void CollectionWriter::CountCappedChange(storage::Session& session, int64_t count, int64_t bytes) {
  CappedPending& pending = *capped_pending_;
  pending.count += count;
  pending.bytes += bytes;
  if (pending.hooked) return;
  // The store's stats take this transaction's changes when it commits;
  // until then (or after a rollback) they are this writer's to add. Shared:
  // the transaction may end after the writer is gone.
  pending.hooked = true;
  auto reset = [shared = capped_pending_] { *shared = CappedPending(); };
  session.OnCommit([shared = capped_pending_, store = coll_.store] {
    if (!shared->evicted_up_to.empty()) store->AdvanceOldestKeyLowerBound(shared->evicted_up_to);
    *shared = CappedPending();
  });
  session.OnRollback(reset);
}

Status CollectionWriter::EvictCapped(storage::Session& session) {
  const storage::ShardedRecordStore& store = *coll_.store;
  for (;;) {
    const storage::ShardStats committed = store.TotalStats();
    const int64_t count = committed.count + capped_pending_->count;
    const int64_t bytes = committed.data_bytes + capped_pending_->bytes;
    // The document just inserted always stays (it fits: checked above).
    if (count <= 1 || !catalog::CappedOverLimits(*capped_limits_, count, bytes)) {
      return Status::OK();
    }
    // From past what earlier evictions (committed, or of this transaction)
    // removed: their deleted entries are not walked again.
    std::string from = store.OldestKeyLowerBound();
    if (capped_pending_->evicted_up_to > from) from = capped_pending_->evicted_up_to;
    bson::BsonDoc oldest;
    std::string oldest_key;
    {
      ASSIGN_OR_RETURN(storage::Cursor cursor, session.Scan(store.TableName(0), from, ""));
      Status status;
      if (!cursor.Next(&status)) {
        RETURN_IF_ERROR(status);
        return Status::OK();
      }
      oldest_key.assign(cursor.key());
      oldest = bson::BsonDoc::CopyOf(reinterpret_cast<const uint8_t*>(cursor.value().data()),
                                     cursor.value().size());
    }
    RETURN_IF_ERROR(Remove(session, oldest.get()));
    capped_pending_->evicted_up_to = oldest_key;
  }
}

Status CollectionWriter::StoreUpdate(storage::Session& session, const bson_t* old_doc,
                                     const bson_t* new_doc, bool replace) {
  RETURN_IF_ERROR(CheckValidation(old_doc, new_doc));
  multikey_.clear();
  RETURN_IF_ERROR(CheckStorageDepth(new_doc, /*is_update=*/true));
  RETURN_IF_ERROR(coll_.store->Update(session, old_doc, new_doc));
  if (RecordsChanges(catalog_)) {
    RETURN_IF_ERROR(catalog::RecordChange(catalog_, session,
                                          catalog::UpdateEvent(coll_, old_doc, new_doc, replace)));
  }
  if (capped_limits_) {
    CountCappedChange(session, 0,
                      static_cast<int64_t>(new_doc->len) - static_cast<int64_t>(old_doc->len));
  }
  if (indexes_->specs.empty()) return Status::OK();
  ASSIGN_OR_RETURN(ShardedRecordStore::Location from, coll_.store->LocationOf(session, old_doc));
  ASSIGN_OR_RETURN(ShardedRecordStore::Location to, coll_.store->LocationOf(session, new_doc));
  const bool moved = from.shard != to.shard || from.record_key != to.record_key;
  for (const auto& spec : indexes_->specs) {
    ASSIGN_OR_RETURN(index::DocumentKeys old_keys, index::GenerateKeys(*spec, old_doc));
    ASSIGN_OR_RETURN(index::DocumentKeys new_keys, KeysOf(*spec, new_doc));
    if (moved) {
      RETURN_IF_ERROR(RemoveIndexEntries(session, coll_, *spec, from, old_keys.keys));
      RETURN_IF_ERROR(AddIndexEntries(session, coll_, *spec, to, new_keys.keys));
      continue;
    }
    // Both key lists are sorted by encoding: one merge pass finds the keys
    // that left, the keys that came, and the kept keys whose stored values
    // changed (1 -> 1.0 encodes alike but must cover as the new value).
    std::vector<index::IndexKey> removed, added;
    auto o = old_keys.keys.begin(), n = new_keys.keys.begin();
    while (o != old_keys.keys.end() || n != new_keys.keys.end()) {
      if (n == new_keys.keys.end() || (o != old_keys.keys.end() && o->encoded < n->encoded)) {
        removed.push_back(std::move(*o++));
      } else if (o == old_keys.keys.end() || n->encoded < o->encoded) {
        added.push_back(std::move(*n++));
      } else {
        if (!SameBytes(o->values, n->values)) {
          const std::string table = index::EntryTable(coll_.metadata.ident, *spec, to.shard);
          RETURN_IF_ERROR(session.Put(table, index::EncodeEntryKey(*spec, n->encoded, to.record_key),
                                      index::EncodeEntryValue(to.shard, to.record_key, n->values)));
        }
        ++o;
        ++n;
      }
    }
    // Removals first, so a key that moves between documents of one
    // statement never collides with itself.
    RETURN_IF_ERROR(RemoveIndexEntries(session, coll_, *spec, from, removed));
    RETURN_IF_ERROR(AddIndexEntries(session, coll_, *spec, to, added));
  }
  return MarkMultikey(session);
}

Status CollectionWriter::Remove(storage::Session& session, const bson_t* doc) {
  // Located first: a capped record's location is in the _id table the
  // store's Remove clears.
  StatusWith<ShardedRecordStore::Location> located =
      indexes_->specs.empty() ? StatusWith<ShardedRecordStore::Location>(ShardedRecordStore::Location{})
                              : coll_.store->LocationOf(session, doc);
  RETURN_IF_ERROR(coll_.store->Remove(session, doc));
  RETURN_IF_ERROR(RemoveCollatedId(session, coll_, doc));
  if (RecordsChanges(catalog_)) {
    RETURN_IF_ERROR(catalog::RecordChange(catalog_, session, catalog::DeleteEvent(coll_, doc)));
  }
  if (capped_limits_) CountCappedChange(session, -1, -static_cast<int64_t>(doc->len));
  if (!indexes_->specs.empty()) {
    ASSIGN_OR_RETURN(ShardedRecordStore::Location at, std::move(located));
    for (const auto& spec : indexes_->specs) {
      ASSIGN_OR_RETURN(index::DocumentKeys keys, index::GenerateKeys(*spec, doc));
      RETURN_IF_ERROR(RemoveIndexEntries(session, coll_, *spec, at, keys.keys));
    }
  }
  if (hooks_ == nullptr) return Status::OK();
  Context ctx(*this, session);
  WriteEvent event{WriteKind::kRemove, doc, nullptr, false};
  event.origin = origin_;
  return hooks_->AfterRemove(ctx, event);
}

}  // namespace tigerdoc::engine
