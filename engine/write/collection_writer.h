#pragma once
// CollectionWriter: every change to one collection's documents goes through
// here, so the record store and every secondary index change together, in
// the caller's WiredTiger transaction.
//
//   Insert: store (duplicate _id -> E11000 on _id_), then each index in
//           creation order (a unique violation -> E11000 naming the index).
//   Update: only the index entries whose keys changed are touched; when the
//           document moved (shard key changed) all of its entries move.
//   Remove: store, then each index's entries.
// Insert and Update first check the document against the collection's
// validator (document_validator.h: validator, validationLevel,
// validationAction), unless BypassDocumentValidation() was called: every
// path that stores a document passes here.
// Keys that go through arrays mark the index multikey inside the same
// transaction (Catalog::MarkMultikey).
//
// The collection's pattern hooks (hooks.h) run here, in the same
// transaction: BeforeStore may refuse or reshape the document before the
// store sees it, AfterStore / AfterRemove follow the store and index
// changes. Writes hooks make to other collections go through writers this
// one owns (WriterFor), so their rules and hooks apply too.
//
// A writer holds the collection's write mutex SHARED from construction to
// destruction (so index DDL and collMod, which take it exclusively, never
// run under a write) and uses the index and pattern snapshots taken at
// construction. Make one per
// write unit, outside RunWriteUnit, and keep it until the unit is done.
//
// A capped collection's writer also holds the store's capped write mutex
// from construction to destruction, so its writes (and their commits) are
// serialised: records commit in insertion-sequence order, and each insert
// removes the oldest records (indexes included, through Remove) while the
// collection is over its `size` or `max`.
//
// Thread-safety: one writer per thread; many writers per collection.

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

#include "engine/base/status.h"
#include "engine/catalog/capped_options.h"
#include "engine/catalog/catalog.h"
#include "engine/index/index_spec.h"
#include "engine/index/key_generator.h"
#include "engine/storage/storage_engine.h"
#include "engine/write/hooks.h"
#include "engine/write/document_validator.h"
#include "engine/write/duplicate_key_error.h"

namespace tigerdoc::engine {

class HookRunner;

class CollectionWriter {
 public:
  // `depth` counts writers of hooks writing other collections (0 for a
  // command's own write).
  CollectionWriter(catalog::Catalog& catalog, catalog::CollectionEntry& coll, int depth = 0);
  ~CollectionWriter();

  // The command said bypassDocumentValidation: true.
  void BypassDocumentValidation() { bypass_validation_ = true; }

  // REQUIRES (all three): `session` is in a transaction.
  // `from_update`: an upsert's insert (errors speak of an update).
  Status Insert(storage::Session& session, const bson_t* doc, bool from_update = false);
  // As Insert; when hooks reshaped the document, *stored receives what was
  // stored (left empty otherwise).
  Status Insert(storage::Session& session, const bson_t* doc, bool from_update,
                bson::BsonDoc* stored);
  Status Update(storage::Session& session, const bson_t* old_doc, const bson_t* new_doc);
  // An update command's change: `update` is the operator update (nullptr
  // for a replacement or a pipeline, `is_pipeline`) that hooks may route
  // (WriteEvent::update). When hooks reshaped the document, *stored (if
  // given) receives what was stored; it is left empty otherwise.
  struct UpdateSpec {
    const bson_t* update = nullptr;
    bool is_pipeline = false;
    // A replacement document (change streams report "replace", not "update").
    bool is_replacement = false;
  };
  Status Update(storage::Session& session, const bson_t* old_doc, const bson_t* new_doc,
                const UpdateSpec& spec, bson::BsonDoc* stored);
  // Whether an update of `old_doc` into `new_doc` changes anything,
  // `modified` being the engine's verdict, which the collection's hooks may
  // overrule (PatternHook::EffectOfUpdate). REQUIRES: in a transaction.
  StatusWith<bool> UpdateModifies(storage::Session& session, const bson_t* old_doc,
                                  const bson_t* new_doc, const UpdateSpec& spec, bool modified);
  Status Remove(storage::Session& session, const bson_t* doc);
  // Documents addressed to a namespace this collection stands behind (a
  // time-series collection's measurements): its hooks store them
  // (PatternHook::InsertRouted); NotImplemented when no hook takes them.
  Status InsertRouted(storage::Session& session, const std::vector<const bson_t*>& docs);

  const index::IndexSet& indexes() const { return *indexes_; }
  catalog::CollectionEntry& collection() const { return coll_; }

  // A writer of another collection for hooks (HookContext::WriterFor).
  StatusWith<CollectionWriter*> WriterFor(std::string_view db, std::string_view coll);

  // Names who makes the following writes (WriteEvent::origin): a hook
  // writing through WriterFor sets it, and resets it ("") when done, so that
  // guards (Pattern::GuardFor) can tell its writes from a command's.
  // `origin` must outlive the writes.
  void SetOrigin(std::string_view origin) { origin_ = origin; }

 private:
  class Context;
  // Insert's and Update's course when hooks or guards run: BeforeStore may
  // reshape the document (event.after then points at the reshaped one), the
  // guards check it, store(event.after) stores it, AfterStore follows. A
  // reshaped document is moved to *stored (when not null).
  template <typename Store>
  Status StoreThroughHooks(HookContext& ctx, WriteEvent& event, Store store,
                           bson::BsonDoc* stored);
  // The event of an update of `old_doc` to `new_doc` that `spec` describes.
  WriteEvent UpdateEvent(const bson_t* old_doc, const bson_t* new_doc,
                         const UpdateSpec& spec) const;
  Status StoreInsert(storage::Session& session, const bson_t* doc);
  // Capped collections: counts a change of this transaction, and removes the
  // oldest documents while over the limits.
  void CountCappedChange(storage::Session& session, int64_t count, int64_t bytes);
  Status EvictCapped(storage::Session& session);
  // Every store change is recorded in the change log here, in the same
  // transaction (catalog::RecordChange).
  Status StoreUpdate(storage::Session& session, const bson_t* old_doc, const bson_t* new_doc,
                     bool replace);

  // Keys of `doc` for `spec`, collecting multikey paths to mark.
  StatusWith<index::DocumentKeys> KeysOf(const index::IndexSpec& spec, const bson_t* doc);
  Status MarkMultikey(storage::Session& session);
  // OK when `new_doc` passes the collection's validator (or need not).
  Status CheckValidation(const bson_t* old_doc, const bson_t* new_doc) const;

  catalog::Catalog& catalog_;
  catalog::CollectionEntry& coll_;
  std::shared_lock<std::shared_mutex> lock_;
  std::unique_lock<std::mutex> capped_lock_;  // held for a capped collection only
  std::optional<catalog::CappedLimits> capped_limits_;
  // Documents and bytes this writer's running transaction added (not yet
  // in the store's committed stats); reset when it ends.
  struct CappedPending {
    int64_t count = 0;
    int64_t bytes = 0;
    bool hooked = false;  // reset callbacks registered with the transaction
    std::string evicted_up_to;  // record key of the last record evicted
  };
  std::shared_ptr<CappedPending> capped_pending_ = std::make_shared<CappedPending>();
  std::shared_ptr<const index::IndexSet> indexes_;
  std::shared_ptr<const catalog::PatternState> patterns_;
  const HookRunner* hooks_ = nullptr;  // owned by patterns_; nullptr without patterns
  // Hooks patterns configured elsewhere run on this collection (BeforeStore only).
  std::vector<std::shared_ptr<PatternHook>> guards_;
  std::string_view origin_;
  int depth_ = 0;
  std::vector<catalog::MultikeyUpdate> multikey_;
  // Writers of other collections that hooks wrote, by namespace, with the
  // entries they write (kept alive while the writer is).
  struct Other {
    std::shared_ptr<catalog::CollectionEntry> entry;
    std::unique_ptr<CollectionWriter> writer;
  };
  std::map<std::string, Other, std::less<>> others_;
  std::shared_ptr<const DocumentValidator> validator_;  // null: none
  Status validator_error_;  // a stored validator that no longer parses
  bool bypass_validation_ = false;
};

// Writes / removes the entries of `keys` for a document stored at `at`
// (shared by writers and index builds). A unique violation becomes
// DuplicateKeyError naming `spec`.
Status AddIndexEntries(storage::Session& session, const catalog::CollectionEntry& coll,
                       const index::IndexSpec& spec,
                       const storage::ShardedRecordStore::Location& at,
                       const std::vector<index::IndexKey>& keys);
Status RemoveIndexEntries(storage::Session& session, const catalog::CollectionEntry& coll,
                          const index::IndexSpec& spec,
                          const storage::ShardedRecordStore::Location& at,
                          const std::vector<index::IndexKey>& keys);

}  // namespace tigerdoc::engine
