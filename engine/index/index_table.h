#pragma once
// Index tables: where an index's entries live and how they are encoded
// (a compatibility promise, documented in engine/README.md).
//
//   non-unique index n : one table per shard   "<ident>-x<n>-s<shard>"
//                        key = keystring(key fields) ++ record key
//   unique index n     : one table             "<ident>-x<n>"
//                        key = keystring(key fields)
//                        (one table for all shards keeps the key unique
//                        across shards; WT's insert-if-absent enforces it)
//
//   value := 0x01                      format version
//            u32 shard                 big-endian
//            u32 length, record key    big-endian length, then the bytes
//            BSON key values           {<dotted field>: value, ...} in
//                                      key-pattern order, missing fields
//                                      absent, hashed fields as their hash
//
// Every name starts with "<ident>-", so dropping a collection drops its
// index tables, and the start-up reaper drops tables of an index id that the
// catalog entry does not name (a build interrupted by a crash).
//
// Thread-safety: pure functions, except the table helpers, which use the
// caller's Session.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"
#include "engine/index/index_spec.h"
#include "engine/storage/storage_engine.h"

namespace tigerdoc::index {

struct IndexTableRef {
  std::string table;
  int shard = -1;  // -1: the table holds entries of every shard (unique index)
};

// "<ident>-x<id>" (unique) or "<ident>-x<id>-s<shard>".
std::string IndexTableName(std::string_view ident, int64_t index_id, int shard);

// The tables of `spec` to scan for `shards` (empty = all shards). A unique
// index has one table whatever the shards.
std::vector<IndexTableRef> IndexTablesFor(std::string_view ident, const IndexSpec& spec,
                                          int num_shards, const std::vector<int>& shards = {});

// The index id a table name "<ident>-x<n>[-s<k>]" belongs to; nullopt for
// tables that are not index tables.
std::optional<int64_t> IndexIdOfTable(std::string_view table);

// The table an entry of `spec` for a document on `shard` goes to.
std::string EntryTable(std::string_view ident, const IndexSpec& spec, int shard);
std::string EncodeEntryKey(const IndexSpec& spec, std::string_view encoded_key,
                           std::string_view record_key);
std::string EncodeEntryValue(int shard, std::string_view record_key, const bson::BsonDoc& values);

struct IndexEntry {
  int shard = 0;
  std::string record_key;
  bson::BsonDoc key_values;
};
// Decodes an entry read from an index table (`key` is not needed by the
// current format but is part of the contract for future versions).
// FailedToParse for bytes that are not an entry.
StatusWith<IndexEntry> DecodeIndexEntry(std::string_view key, std::string_view value);

// Creates / drops every table of `spec` (not transactional; create is
// idempotent, drop of a missing table is OK).
Status CreateIndexTables(storage::Session& session, std::string_view ident, const IndexSpec& spec,
                         int num_shards);
Status DropIndexTables(storage::Session& session, std::string_view ident, const IndexSpec& spec,
                       int num_shards);

// Approximate bytes of an index (keys + values of its tables for `shards`,
// empty = all), by a scan.
StatusWith<int64_t> IndexSizeBytes(storage::Session& session, std::string_view ident,
                                   const IndexSpec& spec, int num_shards,
                                   const std::vector<int>& shards = {});

}  // namespace tigerdoc::index
