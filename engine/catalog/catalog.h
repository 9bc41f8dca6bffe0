#pragma once
// Catalog: the persistent list of collections and their metadata.
//
// Stored in the WiredTiger table "_catalog": key = namespace "db.coll"
// (UTF-8 bytes), value = one BSON metadata document:
//   { ns: "db.coll", ident: "c12", shardKey: { <field>: 1 }, shards: 4,
//     hashVersion: 1, options: { <create options as given> },
//     maxDocumentBytes: 16777216,
//     [patterns: { <pattern name>: <canonical config>, ... }],
//     indexes: [ <IndexSpec catalog form, engine/index/index_spec.h> ... ],
//     nextIndexId: <int64> }
// plus one bookkeeping row, key "$nextIdent" (no namespace can start with
// '$'), value { nextIdent: <int64> }: the number of the next ident, and one
// row per view, key = its namespace, value
//   { ns: "db.v", type: "view", viewOn: "coll", pipeline: [ <stages> ] }
// (a view has no ident and no tables; view_catalog.cc).
// (engine/README.md documents this; it is a compatibility promise.)
// Databases exist while they hold at least one collection, as in MongoDB.
//
// Idents are "c<n>", never reused in a data directory. Every table of a
// collection is named "<ident>-<suffix>" ("c12-s0", "c12-id", and index
// tables the layers above add), so the ident names all of them.
//
// DDL is crash-safe: create makes the tables, then the entry; drop removes
// the entry, then the tables; Open() drops tables whose ident no entry names
// (left by a crash between the two steps, or by a drop that could not
// finish because the tables were busy).
//
// Index tables are "<ident>-x<n>..." (engine/index/index_table.h); Open()
// also drops index tables whose id the entry's `indexes` does not name (an
// index build interrupted by a crash: tables are made and filled before the
// entry names the index).
//
// Thread-safety: all methods are thread-safe. Lookups take a shared lock on
// an in-memory map; DDL is serialised by a mutex. Index DDL on a collection
// runs under that collection's write mutex held exclusively (see
// CollectionEntry), and a collection drop takes it too, so an index build
// never races a drop.

#include <functional>
#include <map>
#include <set>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"
#include "engine/catalog/change_recorder.h"
#include "engine/index/index_spec.h"
#include "engine/storage/sharded_record_store.h"
#include "engine/storage/storage_engine.h"

namespace tigerdoc::engine {
class DocumentValidator;  // engine/write/document_validator.h
}  // namespace tigerdoc::engine

namespace tigerdoc::catalog {

inline constexpr int64_t kDefaultMaxDocumentBytes = 16 * 1024 * 1024;
inline constexpr int kMaxShards = 1024;
inline constexpr char kCatalogTable[] = "_catalog";
inline constexpr char kNextIdentKey[] = "$nextIdent";

struct CollectionMetadata;
// The collator named by `options.collation` (nullptr when none or simple).
const bson::Collator* DefaultCollatorOf(const bson_t* options);

struct CollectionMetadata {
  std::string ns;          // "db.coll"
  std::string db;
  std::string name;
  std::string ident;       // table name stem, unique for the life of the data directory
  std::string shard_key_field = "_id";
  int num_shards = 4;
  int hash_version = 1;
  int64_t max_document_bytes = kDefaultMaxDocumentBytes;
  bson::BsonDoc options;   // the create command's options as given (for listCollections)
  // The default collation (options.collation, stored normalized by create;
  // never changed after): operations without a `collation` and new indexes
  // without one take it. nullptr = simple. Set from `options` by
  // DefaultCollatorOf when the metadata is built or loaded.
  const bson::Collator* default_collator = nullptr;
  // Whether the "<ident>-idc" table keeps _id unique under
  // default_collator (MongoDB's _id index takes the collection's
  // collation): set at create for a collection with a default collation
  // and persisted as `idCollationTable: true`; collections created before
  // tigerdoc had it keep binary _id uniqueness.
  bool collated_id_table = false;
  // Canonical configs of the collection's patterns, {<pattern>: <config>}
  // (engine/write/pattern_registry.h); empty when it has none. As loaded or
  // created: the live value is CollectionEntry::patterns().
  bson::BsonDoc patterns;

  bson::BsonDoc ToBson() const { return ToBson(options.get(), patterns.get()); }
  // With other options and pattern configs (the live ones of an entry).
  bson::BsonDoc ToBson(const bson_t* with_options, const bson_t* with_patterns) const;
  // FailedToParse for a malformed entry; NotImplemented for a hashVersion
  // this build does not know.
  static StatusWith<CollectionMetadata> FromBson(const bson_t* doc);
};

// A view: a name for a pipeline over a collection or another view of the
// same database (MongoDB's views; they are read-only).
struct ViewDefinition {
  std::string ns;       // "db.v"
  std::string db;
  std::string name;
  std::string view_on;  // a collection or view name in `db`
  bson::BsonDoc pipeline;  // the stages, as an array document
  // A time-series collection is a view over its buckets collection
  // ("system.buckets.<name>"): this holds its canonical config
  // (engine/agg/timeseries/timeseries_config.h); empty for a plain view.
  bson::BsonDoc timeseries;
  // The view's own default collation, given at create and never inherited
  // from what it reads (MongoDB's rule): nullptr is simple. Stored as the
  // normalized spec in the row's `collation`; collMod keeps it.
  const bson::Collator* collator = nullptr;

  bool is_timeseries() const { return !timeseries.empty(); }
  bson::BsonDoc ToBson() const;
  // Whether a catalog row is a view's.
  static bool IsViewEntry(const bson_t* doc);
  static StatusWith<ViewDefinition> FromBson(const bson_t* doc);
};

// MongoDB's limit on views defined on views (ViewGraph::kMaxViewDepth).
inline constexpr int kMaxViewDepth = 20;

// What the engine builds from a collection's pattern configs (the hook
// runner of engine/write/hook_runner.h). Opaque to the catalog, which only
// keeps it beside the configs it was built from.
class PatternAttachment {
 public:
  virtual ~PatternAttachment() = default;
};

// A collection's pattern configuration, one immutable snapshot that collMod
// replaces whole: the canonical configs persisted in the catalog row
// (`patterns`) and the attachment built from them (nullptr until the engine
// attaches it). The options as given stay in metadata.options.
struct PatternState {
  bson::BsonDoc configs;
  std::shared_ptr<const PatternAttachment> attachment;
};

// A collection as the engine uses it: immutable metadata, its store, and
// its secondary indexes.
//
// indexes() is an immutable snapshot, swapped atomically when an index is
// created or dropped or becomes multikey; readers (the planner) just take
// it. write_mutex() is held SHARED by every write unit (from reading the
// snapshot to its commit) and EXCLUSIVELY by index DDL and collection drop,
// so a build sees every committed document and no writer misses an index.
struct CollectionEntry {
  CollectionMetadata metadata;
  // Shared so that a renamed collection ($out) keeps its live statistics
  // while holders of the old entry finish with it.
  std::shared_ptr<storage::ShardedRecordStore> store;
  // $indexStats accesses of the implicit _id index (secondary indexes keep
  // theirs in IndexSpec::usage).
  std::shared_ptr<index::IndexUsage> id_index_usage = std::make_shared<index::IndexUsage>();

  std::shared_ptr<const index::IndexSet> indexes() const;
  // Never null once the entry is in the catalog.
  std::shared_ptr<const PatternState> patterns() const;
  std::shared_mutex& write_mutex() const { return write_mutex_; }

  // The compiled validator of metadata.options (validator, validationLevel,
  // validationAction), built by the write path on first use
  // (engine/write/document_validator.h); the catalog only holds it and
  // resets it when ReplaceOptions changes the options.
  struct ValidatorSlot {
    std::mutex mutex;
    bool built = false;
    std::shared_ptr<const engine::DocumentValidator> validator;  // null: none
  };
  mutable ValidatorSlot validator_slot;

 private:
  friend class Catalog;
  mutable std::shared_mutex write_mutex_;
  mutable std::mutex index_mutex_;  // guards indexes_, patterns_ and persisted_multikey_
  std::shared_ptr<const index::IndexSet> indexes_ = std::make_shared<index::IndexSet>();
  std::shared_ptr<const PatternState> patterns_ = std::make_shared<PatternState>();
  // Multikey paths known to be in the committed catalog row, by index id:
  // a write whose keys go beyond them persists the row in its transaction.
  std::map<int64_t, index::MultikeyPaths> persisted_multikey_;
  std::map<int64_t, std::set<std::string>> persisted_wildcard_multikey_;  // wildcard indexes' paths
};

// Multikey paths a write found for one index (engine/index/key_generator.h).
struct MultikeyUpdate {
  int64_t index_id = 0;
  index::MultikeyPaths paths;
  std::set<std::string> wildcard_paths;  // a wildcard index's array paths
};

struct CreateCollectionRequest {
  std::string db;
  std::string name;
  std::string shard_key_field = "_id";
  int num_shards = 4;
  bson::BsonDoc options;
  bson::BsonDoc patterns;  // canonical pattern configs (CollectionMetadata::patterns)
  // Builds the pattern attachment of the new entry, after its tables exist
  // and before any writer can see it (so no write bypasses its hooks); a
  // failure undoes the create. Optional.
  std::function<StatusWith<std::shared_ptr<const PatternAttachment>>(const CollectionEntry&)>
      attach;
};

// Collections created with {temp: true} in their options (the temporary
// collection $out writes into) are dropped when the catalog is opened, so a
// crash in the middle of a $out leaves nothing behind.
inline constexpr char kTempOption[] = "temp";

class Catalog {
 public:
  // Creates the catalog table when missing, loads every entry (and each
  // store's stats), and drops orphaned tables.
  static StatusWith<std::unique_ptr<Catalog>> Open(storage::StorageEngine* engine);

  // nullptr when the namespace has no collection.
  std::shared_ptr<CollectionEntry> Lookup(std::string_view ns) const;
  // Collections of one database (all databases when `db` is empty), sorted by ns.
  std::vector<std::shared_ptr<CollectionEntry>> List(std::string_view db) const;
  // Names of databases holding at least one collection or view, sorted.
  std::vector<std::string> ListDatabases() const;

  // Views (view_catalog.cc). nullptr when `ns` names no view.
  std::shared_ptr<const ViewDefinition> LookupView(std::string_view ns) const;
  // Views of one database, sorted by ns.
  std::vector<std::shared_ptr<const ViewDefinition>> ListViews(std::string_view db) const;
  // Persists a new view. NamespaceExists (48) when a collection or view has
  // its name; GraphContainsCycle (5, "View cycle detected: db.a => db.b
  // => db.a") when its viewOn chain leads back to it; ViewDepthLimitExceeded
  // (165) when the chain is deeper than kMaxViewDepth. The pipeline is the
  // caller's to validate.
  Status CreateView(ViewDefinition view);
  // Replaces the viewOn and pipeline of an existing view (collMod), with
  // CreateView's checks; NamespaceNotFound when there is no such view.
  Status ModifyView(ViewDefinition view);

  // Fails with NamespaceExists (48, "Collection db.coll already exists."),
  // InvalidNamespace (73) for bad names (ValidateNamespace), or BadValue (2)
  // for a shard count outside [1, kMaxShards] or a malformed shard key path.
  StatusWith<std::shared_ptr<CollectionEntry>> CreateCollection(const CreateCollectionRequest& request);
  // Returns the entry when it exists, creating it with defaults otherwise
  // (implicit creation on first insert/upsert), race-free.
  StatusWith<std::shared_ptr<CollectionEntry>> GetOrCreate(std::string_view db, std::string_view name,
                                                           int default_num_shards);
  // NamespaceNotFound (26, "ns not found") when absent. Entries already
  // handed out stay usable by their holders, but their tables go away.
  // Drops a view of that name too.
  Status DropCollection(std::string_view ns);
  // Drops every collection and view of `db`; OK when there is none.
  Status DropDatabase(std::string_view db);
  // Renames `from_ns` to `to_db`.`to_name` (possibly another database),
  // replacing an existing target when `drop_target` (else NamespaceExists,
  // 48). One catalog transaction removes the old names and writes the new
  // one, and the in-memory map switches under one lock, so a reader sees
  // the old target or the new one, never neither; the replaced target's
  // tables are dropped afterwards. The `temp` option is removed. Errors:
  // NamespaceNotFound (26) when `from_ns` is absent, InvalidNamespace (73).
  Status RenameCollection(std::string_view from_ns, std::string_view to_db,
                          std::string_view to_name, bool drop_target);

  // Index DDL. REQUIRES: the caller holds entry.write_mutex() exclusively.
  // Each fails with NamespaceNotFound when `entry` was dropped meanwhile.
  //
  // Reserves `count` index ids (persisted before any table uses them, so an
  // id is never reused within the collection); returns the first.
  StatusWith<int64_t> ReserveIndexIds(CollectionEntry& entry, int count);
  // Names built indexes (tables already filled) in the entry and publishes them.
  Status AddIndexes(CollectionEntry& entry, std::vector<index::IndexSpec> specs);
  // Removes indexes from the entry and publishes the new set; their tables
  // are dropped afterwards (best effort; the reaper is the backstop).
  Status DropIndexes(CollectionEntry& entry, const std::vector<int64_t>& index_ids);
  // Replaces options of an existing index (collMod: hidden, expireAfterSeconds).
  Status ReplaceIndex(CollectionEntry& entry, index::IndexSpec spec);

  // Replaces the collection's options (collMod of validator,
  // validationLevel, validationAction), persisted in its catalog row.
  // REQUIRES: the caller holds entry.write_mutex() exclusively (readers of
  // metadata.options outside the write path take it shared).
  Status ReplaceOptions(CollectionEntry& entry, bson::BsonDoc options);

  // Replaces the pattern state of `entry`. With `options` (collMod), also
  // replaces metadata.options and first writes the catalog row with both
  // (auto-committed); without, only the in-memory state changes (attaching
  // hooks at start-up).
  // REQUIRES: entry.write_mutex() held exclusively when `options` is given
  // (no write may run with the old hooks after the new configs are on disk).
  Status SetPatterns(CollectionEntry& entry, std::shared_ptr<const PatternState> state,
                     const bson_t* options);

  // Records multikey paths a write found: the snapshot first (so no reader
  // assumes "not multikey" once keys exist), then, when the committed row
  // lacks them, the row inside the caller's running transaction.
  // REQUIRES: entry.write_mutex() held shared; `session` in a transaction.
  Status MarkMultikey(storage::Session& session, CollectionEntry& entry,
                      const std::vector<MultikeyUpdate>& updates);

  // Guards: hooks that patterns configured on other collections run on a
  // collection's writes (Pattern::GuardFor in engine/write/pattern_registry.h),
  // given by the engine once, before serving; opaque to the catalog.
  void SetGuardSource(std::shared_ptr<const PatternAttachment> source) {
    guard_source_ = std::move(source);
  }
  const PatternAttachment* guard_source() const { return guard_source_.get(); }

  // The change log every document and DDL change is recorded in
  // (change_recorder.h), given by the engine once, before serving; nullptr
  // records nothing (unit tests of other layers).
  void SetChangeRecorder(ChangeRecorder* recorder) { change_recorder_ = recorder; }
  ChangeRecorder* change_recorder() const { return change_recorder_; }

  // Validation shared with commands, with mongod's InvalidNamespace (73)
  // messages. ValidateDbName: a database name on its own (as in a command's
  // $db). ValidateCollectionName: a collection name on its own.
  // ValidateNamespace: everything a new collection must satisfy (both names,
  // system collections, total length <= 255 bytes).
  static Status ValidateDbName(std::string_view db);
  static Status ValidateCollectionName(std::string_view name);
  static Status ValidateNamespace(std::string_view db, std::string_view name);

 private:
  explicit Catalog(storage::StorageEngine* engine) : engine_(engine) {}

  // REQUIRES: ddl_mutex_ held.
  StatusWith<std::shared_ptr<CollectionEntry>> CreateLocked(const CreateCollectionRequest& request);
  Status DropLocked(const std::string& ns);
  StatusWith<std::string> AllocateIdent(storage::Session& session);
  // Drops every table named "<ident>" or "<ident>-...".
  static Status DropIdentTables(storage::Session& session, const std::string& ident);
  Status ReapOrphans(storage::Session& session, uint64_t* max_ident_seen);
  // REQUIRES: ddl_mutex_ held. Cycle and depth checks of CreateView.
  Status CheckViewChain(const ViewDefinition& view) const;
  // REQUIRES: ddl_mutex_ held. MongoDB's ViewGraph collation rule: every
  // view `view` reads (viewOn, $lookup/$graphLookup/$unionWith sources) and
  // every view that reads `view` has its collation, else 167
  // OptionNotSupportedOnView.
  Status CheckViewCollations(const ViewDefinition& view, bool check_readers) const;
  // REQUIRES: ddl_mutex_ held. Writes the view's row and map entry.
  Status PutViewLocked(ViewDefinition view, bool must_be_new);
  // REQUIRES: ddl_mutex_ held. NamespaceNotFound when there is none.
  Status DropViewLocked(const std::string& ns);
  // The catalog document of `entry` with `indexes`.
  static bson::BsonDoc RowFor(const CollectionEntry& entry, const index::IndexSet& indexes);
  // Persists `indexes` (auto-committed; with `change`, a change log row, in
  // one transaction with it) and publishes them.
  Status PublishIndexes(CollectionEntry& entry, std::shared_ptr<const index::IndexSet> indexes,
                        const bson_t* change = nullptr);
  bool IsRegistered(const CollectionEntry& entry) const;

  storage::StorageEngine* engine_;
  mutable std::shared_mutex map_mutex_;  // guards collections_
  std::mutex ddl_mutex_;                 // serialises DDL; guards next_ident_
  std::map<std::string, std::shared_ptr<CollectionEntry>, std::less<>> collections_;
  std::map<std::string, std::shared_ptr<const ViewDefinition>, std::less<>> views_;  // by map_mutex_
  uint64_t next_ident_ = 1;
  std::shared_ptr<const PatternAttachment> guard_source_;  // set before serving, then fixed
  ChangeRecorder* change_recorder_ = nullptr;            // set before serving, then fixed
};

}  // namespace tigerdoc::catalog
