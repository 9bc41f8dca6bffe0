// The "<ident>-sizes" table (format in the header).

#include "patterns/size_limits/size_table.h"
#include "patterns/common/backfill_walk.h"

#include "engine/bson/shell_string.h"
#include "engine/storage/sharded_record_store.h"
#include "engine/write/document_rules.h"

namespace tigerdoc::patterns::size_limits {
namespace {

void PutBe32(std::string* out, uint32_t v) {
  for (int i = 3; i >= 0; --i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
uint64_t GetBe(std::string_view bytes, size_t at, int width) {
  uint64_t v = 0;
  for (int i = 0; i < width; ++i) v = (v << 8) | static_cast<uint8_t>(bytes[at + i]);
  return v;
}

Status Corrupt(const std::string& what) {
  return Status(ErrorCode::kInternalError, "size table: malformed " + what);
}

// Rows are written in transactions of this many (a rebuild of a large
// collection must not hold one huge transaction in the cache).
constexpr int kRowsPerTransaction = 1000;

}  // namespace

std::string SizeTableName(const std::string& ident) { return ident + "-sizes"; }

std::string PartitionKey(const std::string& partition_prefix) { return "p" + partition_prefix; }

std::string StripeKey(int shard, int stripe) {
  std::string key = "s";
  PutBe32(&key, static_cast<uint32_t>(shard));
  key.push_back(static_cast<char>(stripe));
  return key;
}

std::string EncodePartitionRow(const PartitionRow& row) {
  std::string out = EncodeCounts(row.counts);
  PutBe32(&out, static_cast<uint32_t>(row.shard));
  out.append(row.value.bytes());
  return out;
}

StatusWith<PartitionRow> DecodePartitionRow(std::string_view bytes) {
  if (bytes.size() < 20) return Corrupt("partition row");
  PartitionRow row;
  ASSIGN_OR_RETURN(row.counts, DecodeCounts(bytes));
  row.shard = static_cast<int>(GetBe(bytes, 16, 4));
  ASSIGN_OR_RETURN(row.value, bson::BsonDoc::FromBytes(
                                  reinterpret_cast<const uint8_t*>(bytes.data() + 20),
                                  bytes.size() - 20));
  return row;
}

StatusWith<Recount> CountDocuments(storage::Session& session,
                                   const catalog::CollectionEntry& coll) {
  Recount out;
  const storage::ShardedRecordStore& store = *coll.store;
  out.shards.resize(store.num_shards());
  RETURN_IF_ERROR(ForEachDocumentWithProgress(session, coll, "sizeLimits", [&](int shard, const bson_t* doc) -> Status {
    ASSIGN_OR_RETURN(bson::BsonDoc value, store.ShardKeyOf(doc));
    bson_iter_t it;
    bson_iter_init(&it, value.get());
    bson_iter_next(&it);
    std::string prefix = storage::ShardedRecordStore::PartitionPrefix(bson_iter_value(&it));
    PartitionRow& row = out.partitions[prefix];
    if (row.value.empty()) {
      row.value = std::move(value);
      row.shard = shard;
    }
    const Counts one{1, static_cast<int64_t>(doc->len)};
    row.counts += one;
    out.shards[shard] += one;
    return Status::OK();
  }));
  return out;
}

StatusWith<TableCounts> ReadTable(storage::Session& session, const catalog::CollectionEntry& coll) {
  TableCounts out;
  out.shards.resize(coll.store->num_shards());
  const std::string table = SizeTableName(coll.metadata.ident);
  ASSIGN_OR_RETURN(storage::Cursor cursor, session.Scan(table, "", ""));
  Status status;
  while (cursor.Next(&status)) {
    std::string_view key = cursor.key();
    if (key == kMarkerKey) {
      out.complete = true;
    } else if (!key.empty() && key[0] == 'p') {
      ASSIGN_OR_RETURN(PartitionRow row, DecodePartitionRow(cursor.value()));
      out.partitions.emplace(std::string(key.substr(1)), std::move(row));
    } else if (key.size() == 6 && key[0] == 's') {
      const auto shard = static_cast<size_t>(GetBe(key, 1, 4));
      ASSIGN_OR_RETURN(Counts counts, DecodeCounts(cursor.value()));
      if (shard < out.shards.size()) {
        out.shards[shard].count += counts.count;
        out.shards[shard].bytes += counts.bytes;
      }
    }
  }
  RETURN_IF_ERROR(status);
  return out;
}

Status MarkIncomplete(storage::Session& session, const catalog::CollectionEntry& coll) {
  Status removed = session.Remove(SizeTableName(coll.metadata.ident), kMarkerKey);
  if (removed.code() == ErrorCode::kNoSuchKey) return Status::OK();
  return removed;
}

Status EnsureBuilt(storage::Session& session, const catalog::CollectionEntry& coll) {
  const std::string table = SizeTableName(coll.metadata.ident);
  RETURN_IF_ERROR(session.CreateTable(table));
  ASSIGN_OR_RETURN(std::optional<std::string> marker, session.Get(table, kMarkerKey));
  if (marker) return Status::OK();
  // Incomplete (new, older than its option, or a crash mid-build): start
  // over. The marker goes in last, so a crash here rebuilds again.
  RETURN_IF_ERROR(session.RemoveAll(table));
  ASSIGN_OR_RETURN(Recount recount, CountDocuments(session, coll));
  int in_txn = 0;
  auto put = [&](const std::string& key, const std::string& value) -> Status {
    if (in_txn == 0) RETURN_IF_ERROR(session.Begin());
    Status st = session.Put(table, key, value);
    if (!st.ok()) {
      session.Rollback();
      return st;
    }
    if (++in_txn == kRowsPerTransaction) {
      in_txn = 0;
      return session.Commit();
    }
    return Status::OK();
  };
  for (const auto& [prefix, row] : recount.partitions) {
    RETURN_IF_ERROR(put(PartitionKey(prefix), EncodePartitionRow(row)));
  }
  for (size_t shard = 0; shard < recount.shards.size(); ++shard) {
    RETURN_IF_ERROR(put(StripeKey(static_cast<int>(shard), 0), EncodeCounts(recount.shards[shard])));
  }
  if (in_txn > 0) RETURN_IF_ERROR(session.Commit());
  return session.Put(table, kMarkerKey, "\x01");
}

Status RecountSizes(storage::Session& session, const catalog::CollectionEntry& coll,
                    std::vector<std::string>* differences) {
  // One snapshot: documents and counters committed together are seen together.
  RETURN_IF_ERROR(session.Begin());
  StatusWith<Recount> recount = CountDocuments(session, coll);
  StatusWith<TableCounts> table =
      recount.ok() ? ReadTable(session, coll) : StatusWith<TableCounts>(recount.status());
  session.Rollback();
  RETURN_IF_ERROR(table.status());
  const std::string& ns = coll.metadata.ns;
  const std::string& field = coll.store->shard_key_field();
  auto describe = [&](const char* what, const std::string& where, const Counts& kept,
                      const Counts& actual) {
    differences->push_back(std::string(what) + " " + where + " of " + ns + ": counters say " +
                           std::to_string(kept.count) + " documents, " +
                           std::to_string(kept.bytes) + " bytes; the documents are " +
                           std::to_string(actual.count) + ", " + std::to_string(actual.bytes) +
                           " bytes");
  };
  if (!table.value().complete) {
    differences->push_back("size counters of " + ns + " are incomplete (being rebuilt)");
  }
  const auto& kept = table.value().partitions;
  const auto& actual = recount.value().partitions;
  for (const auto& [prefix, row] : actual) {
    auto it = kept.find(prefix);
    Counts k = it == kept.end() ? Counts{} : it->second.counts;
    if (k.count != row.counts.count || k.bytes != row.counts.bytes) {
      describe("partition", bson::ToShellString(engine::Rename(row.value.get(), field.c_str()).get()),
               k, row.counts);
    }
  }
  for (const auto& [prefix, row] : kept) {
    if (actual.count(prefix) != 0) continue;
    describe("partition", bson::ToShellString(engine::Rename(row.value.get(), field.c_str()).get()),
             row.counts, Counts{});
  }
  for (size_t shard = 0; shard < recount.value().shards.size(); ++shard) {
    const Counts& k = table.value().shards[shard];
    const Counts& a = recount.value().shards[shard];
    if (k.count != a.count || k.bytes != a.bytes) describe("shard", std::to_string(shard), k, a);
  }
  return Status::OK();
}

}  // namespace tigerdoc::patterns::size_limits
