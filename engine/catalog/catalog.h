#pragma once
// Catalog: the persistent list of collections and their metadata.
//
// Stored in the WiredTiger table "_catalog": key = namespace "db.coll"
// (UTF-8 bytes), value = one BSON metadata document:
//   { ns: "db.coll", ident: "c12", shardKey: { <field>: 1 }, shards: 4,
//     hashVersion: 1, options: { <create options as given> },
//     maxDocumentBytes: 16777216 }
// plus one bookkeeping row, key "$nextIdent" (no namespace can start with
// '$'), value { nextIdent: <int64> }: the number of the next ident.
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
// Thread-safety: all methods are thread-safe. Lookups take a shared lock on
// an in-memory map; DDL is serialised by a mutex.

#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"
#include "engine/storage/sharded_record_store.h"
#include "engine/storage/storage_engine.h"

namespace tigerdoc::catalog {

inline constexpr int64_t kDefaultMaxDocumentBytes = 16 * 1024 * 1024;
inline constexpr int kMaxShards = 1024;
inline constexpr char kCatalogTable[] = "_catalog";
inline constexpr char kNextIdentKey[] = "$nextIdent";

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

  bson::BsonDoc ToBson() const;
  // FailedToParse for a malformed entry; NotImplemented for a hashVersion
  // this build does not know.
  static StatusWith<CollectionMetadata> FromBson(const bson_t* doc);
};

// A collection as the engine uses it: immutable metadata plus its store.
// The store is shared so that a renamed collection ($out) keeps its live
// statistics while holders of the old entry finish with it.
struct CollectionEntry {
  CollectionMetadata metadata;
  std::shared_ptr<storage::ShardedRecordStore> store;
};

struct CreateCollectionRequest {
  std::string db;
  std::string name;
  std::string shard_key_field = "_id";
  int num_shards = 4;
  bson::BsonDoc options;
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
  // Names of databases holding at least one collection, sorted.
  std::vector<std::string> ListDatabases() const;

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
  Status DropCollection(std::string_view ns);
  // Drops every collection of `db`; OK when there is none.
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

  storage::StorageEngine* engine_;
  mutable std::shared_mutex map_mutex_;  // guards collections_
  std::mutex ddl_mutex_;                 // serialises DDL; guards next_ident_
  std::map<std::string, std::shared_ptr<CollectionEntry>, std::less<>> collections_;
  uint64_t next_ident_ = 1;
};

}  // namespace tigerdoc::catalog
