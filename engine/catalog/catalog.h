#pragma once
// Catalog: the persistent list of collections and their metadata.
//
// Stored in the WiredTiger table "_catalog": key = namespace "db.coll"
// (UTF-8 bytes), value = one BSON metadata document:
//   { ns: "db.coll", ident: "c12", shardKey: { <field>: 1 }, shards: 4,
//     hashVersion: 1, options: { <create options as given> },
//     maxDocumentBytes: 16777216 }
// (engine/README.md documents this; it is a compatibility promise.)
// Databases exist while they hold at least one collection, as in MongoDB.
//
// DDL is crash-safe: create makes the tables, then the entry; drop removes
// the entry, then the tables; Open() drops tables no entry names (left by a
// crash between the two steps).
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
  static StatusWith<CollectionMetadata> FromBson(const bson_t* doc);
};

// A collection as the engine uses it: immutable metadata plus its store.
struct CollectionEntry {
  CollectionMetadata metadata;
  std::unique_ptr<storage::ShardedRecordStore> store;
};

struct CreateCollectionRequest {
  std::string db;
  std::string name;
  std::string shard_key_field = "_id";
  int num_shards = 4;
  bson::BsonDoc options;
};

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

  // Fails with NamespaceExists (48, "Collection db.coll already exists.")
  // or InvalidNamespace (73) for bad names.
  StatusWith<std::shared_ptr<CollectionEntry>> CreateCollection(const CreateCollectionRequest& request);
  // Returns the entry when it exists, creating it with defaults otherwise
  // (implicit creation on first insert/upsert), race-free.
  StatusWith<std::shared_ptr<CollectionEntry>> GetOrCreate(std::string_view db, std::string_view name,
                                                           int default_num_shards);
  // NamespaceNotFound (26, "ns not found") when absent.
  Status DropCollection(std::string_view ns);
  Status DropDatabase(std::string_view db);

  // Validation shared with commands: database and collection name rules.
  static Status ValidateDbName(std::string_view db);
  static Status ValidateCollectionName(std::string_view name);

 private:
  explicit Catalog(storage::StorageEngine* engine) : engine_(engine) {}
  storage::StorageEngine* engine_;
  mutable std::shared_mutex map_mutex_;
  std::mutex ddl_mutex_;
  std::map<std::string, std::shared_ptr<CollectionEntry>, std::less<>> collections_;
  uint64_t next_ident_ = 1;
};

}  // namespace tigerdoc::catalog
