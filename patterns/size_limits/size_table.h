#pragma once
// SizeTable: the "<ident>-sizes" table of a collection with size limits:
// document counts and BSON bytes per logical partition and per shard, kept
// in each write's own transaction (so exact after any crash).
//
// Format (key_format=u, value_format=u; engine/README.md, a compatibility
// promise; all integers big-endian):
//   "m"                                   -> 0x01   the table is complete (format 1);
//                                                   absent: rebuild from the documents
//   "p" ++ keystring(shard key value)     -> i64 count | i64 bytes | u32 shard |
//                                            BSON {"": shard key value}
//                                            (no row for an empty partition)
//   "s" ++ u32 shard ++ u8 stripe         -> i64 count | i64 bytes
// A shard's totals are the sum of its kStripes stripe rows: a writer adds
// to the stripe of its thread, so writers to different partitions of one
// shard do not conflict on one row; writers to one partition do (its row),
// which is what makes partition limits exact.
//
// Thread-safety: functions use the caller's session.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"
#include "engine/catalog/catalog.h"
#include "engine/storage/storage_engine.h"
#include "patterns/common/counts.h"

namespace tigerdoc::patterns::size_limits {


struct PartitionRow {
  Counts counts;
  int shard = 0;
  bson::BsonDoc value;  // {"": shard key value}
};

std::string SizeTableName(const std::string& ident);
std::string PartitionKey(const std::string& partition_prefix);
std::string StripeKey(int shard, int stripe);
inline constexpr char kMarkerKey[] = "m";

std::string EncodePartitionRow(const PartitionRow& row);
StatusWith<PartitionRow> DecodePartitionRow(std::string_view bytes);

// What the documents say, computed by a scan of every shard table.
struct Recount {
  std::map<std::string, PartitionRow> partitions;  // by partition prefix
  std::vector<Counts> shards;
};
StatusWith<Recount> CountDocuments(storage::Session& session, const catalog::CollectionEntry& coll);

// What the table says.
struct TableCounts {
  std::map<std::string, PartitionRow> partitions;  // by partition prefix
  std::vector<Counts> shards;
  bool complete = false;  // the marker row is there
};
StatusWith<TableCounts> ReadTable(storage::Session& session, const catalog::CollectionEntry& coll);

// Creates the table when missing and, when it is not complete, rebuilds it
// from the documents. REQUIRES: no write runs on `coll`.
Status EnsureBuilt(storage::Session& session, const catalog::CollectionEntry& coll);
// Marks the table incomplete (the next EnsureBuilt rebuilds it).
Status MarkIncomplete(storage::Session& session, const catalog::CollectionEntry& coll);

// For validate: recounts the documents in one snapshot and adds a line to
// *differences for every partition or shard whose counters differ.
Status RecountSizes(storage::Session& session, const catalog::CollectionEntry& coll,
                    std::vector<std::string>* differences);

}  // namespace tigerdoc::patterns::size_limits
