#include "patterns/size_limits/size_limits_hook.h"

#include <algorithm>
#include <atomic>
#include <queue>

#include "engine/bson/shell_string.h"
#include "engine/storage/sharded_record_store.h"
#include "engine/write/document_rules.h"
#include "patterns/size_limits/size_limits_pattern.h"

namespace tigerdoc::patterns::size_limits {
namespace {

constexpr int kLargestPartitions = 10;

// `partitions` (how many) and `largestPartitions` (the 10 largest by bytes:
// key, shard, count, size), of every shard or of `shard` alone.
void AppendPartitions(const catalog::CollectionEntry& coll, const TableCounts& table,
                      std::optional<int> shard, bson_t* out) {
  std::vector<const PartitionRow*> rows;
  for (const auto& [prefix, row] : table.partitions) {
    if (!shard || row.shard == *shard) rows.push_back(&row);
  }
  BSON_APPEND_INT64(out, "partitions", static_cast<int64_t>(rows.size()));
  const size_t n = std::min<size_t>(kLargestPartitions, rows.size());
  std::partial_sort(rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(n), rows.end(),
                    [](const PartitionRow* a, const PartitionRow* b) {
                      return a->counts.bytes > b->counts.bytes;
                    });
  bson_t largest;
  bson_append_array_begin(out, "largestPartitions", -1, &largest);
  for (size_t i = 0; i < n; ++i) {
    bson_t part;
    std::string k = std::to_string(i);
    bson_append_document_begin(&largest, k.c_str(), -1, &part);
    bson::BsonDoc key = engine::Rename(rows[i]->value.get(), coll.store->shard_key_field().c_str());
    BSON_APPEND_DOCUMENT(&part, "key", key.get());
    BSON_APPEND_INT32(&part, "shard", rows[i]->shard);
    BSON_APPEND_INT64(&part, "count", rows[i]->counts.count);
    BSON_APPEND_INT64(&part, "size", rows[i]->counts.bytes);
    bson_append_document_end(&largest, &part);
  }
  bson_append_array_end(out, &largest);
}

// What both stats replies open with: the limits set, then the size table
// read in one snapshot (so shard totals and partitions agree).
StatusWith<TableCounts> AppendLimitsAndReadTable(const Limits& limits, storage::Session& session,
                                                 const catalog::CollectionEntry& coll,
                                                 bson_t* out) {
  BSON_APPEND_INT64(out, kMaxDocumentBytes, limits.document);
  if (limits.partition > 0) BSON_APPEND_INT64(out, kMaxPartitionBytes, limits.partition);
  if (limits.shard > 0) BSON_APPEND_INT64(out, kMaxShardBytes, limits.shard);
  RETURN_IF_ERROR(session.Begin());
  StatusWith<TableCounts> table = ReadTable(session, coll);
  session.Rollback();
  return table;
}

}  // namespace

SizeLimitsHook::SizeLimitsHook(Limits limits, const catalog::CollectionEntry& coll)
    : limits_(limits),
      table_(SizeTableName(coll.metadata.ident)),
      reserved_(std::make_shared<Reservations>(coll.store->num_shards())) {}

Status SizeLimitsHook::AfterStore(engine::HookContext& ctx, const engine::WriteEvent& event) {
  const auto new_len = static_cast<int64_t>(event.after->len);
  if (new_len > limits_.document) {
    // MongoDB's codes and messages, with the configured limit.
    if (event.from_update) {
      return Status(ErrorCode::kLocation17419, "Resulting document after update is larger than " +
                                                   std::to_string(limits_.document) +
                                                   " (maxDocumentBytes of " +
                                                   ctx.collection().metadata.ns + ")");
    }
    return Status(ErrorCode::kBSONObjectTooLarge,
                  "object to insert too large. size in bytes: " + std::to_string(new_len) +
                      ", max size: " + std::to_string(limits_.document) +
                      " (maxDocumentBytes of " + ctx.collection().metadata.ns + ")");
  }
  if (event.kind == engine::WriteKind::kInsert) return Apply(ctx, event.after, 1, new_len);
  const auto old_len = static_cast<int64_t>(event.before->len);
  const storage::ShardedRecordStore& store = *ctx.collection().store;
  ASSIGN_OR_RETURN(bson::BsonDoc old_key, store.ShardKeyOf(event.before));
  ASSIGN_OR_RETURN(bson::BsonDoc new_key, store.ShardKeyOf(event.after));
  bson_iter_t a, b;
  bson_iter_init(&a, old_key.get());
  bson_iter_next(&a);
  bson_iter_init(&b, new_key.get());
  bson_iter_next(&b);
  if (storage::ShardedRecordStore::PartitionPrefix(bson_iter_value(&a)) ==
      storage::ShardedRecordStore::PartitionPrefix(bson_iter_value(&b))) {
    return Apply(ctx, event.after, 0, new_len - old_len);
  }
  // The document moved to another partition: space frees first.
  RETURN_IF_ERROR(Apply(ctx, event.before, -1, -old_len));
  return Apply(ctx, event.after, 1, new_len);
}

Status SizeLimitsHook::AfterRemove(engine::HookContext& ctx, const engine::WriteEvent& event) {
  return Apply(ctx, event.before, -1, -static_cast<int64_t>(event.before->len));
}

Status SizeLimitsHook::Apply(engine::HookContext& ctx, const bson_t* doc, int64_t count,
                             int64_t bytes) {
  storage::Session& session = ctx.session();
  const catalog::CollectionEntry& coll = ctx.collection();
  const storage::ShardedRecordStore& store = *coll.store;
  ASSIGN_OR_RETURN(bson::BsonDoc value, store.ShardKeyOf(doc));
  bson_iter_t it;
  bson_iter_init(&it, value.get());
  bson_iter_next(&it);
  const int shard = store.ShardForValue(bson_iter_value(&it));
  const std::string key =
      PartitionKey(storage::ShardedRecordStore::PartitionPrefix(bson_iter_value(&it)));

  // The partition row: read and rewritten in this transaction, so writers
  // of one partition conflict (and retry) instead of both passing a limit.
  ASSIGN_OR_RETURN(std::optional<std::string> current, session.Get(table_, key));
  PartitionRow row;
  if (current) {
    ASSIGN_OR_RETURN(row, DecodePartitionRow(*current));
  } else {
    row.shard = shard;
    row.value = std::move(value);
  }
  row.counts.count += count;
  row.counts.bytes += bytes;
  if (bytes > 0 && limits_.partition > 0 && row.counts.bytes > limits_.partition) {
    std::string where = bson::ToShellString(
        engine::Rename(row.value.get(), store.shard_key_field().c_str()).get());
    return Status(ErrorCode::kPartitionSizeLimitExceeded,
                  "partition " + where + " of " + coll.metadata.ns + " would reach " +
                      std::to_string(row.counts.bytes) + " bytes, over its limit maxPartitionBytes: " +
                      std::to_string(limits_.partition) +
                      "; delete or shrink documents of this partition, spread it over more "
                      "shard-key values, or raise maxPartitionBytes with collMod");
  }
  if (row.counts.count == 0) {
    Status removed = session.Remove(table_, key);
    if (!removed.ok() && removed.code() != ErrorCode::kNoSuchKey) return removed;
  } else {
    RETURN_IF_ERROR(session.Put(table_, key, EncodePartitionRow(row)));
  }

  if (bytes > 0 && limits_.shard > 0) RETURN_IF_ERROR(ReserveShard(ctx, shard, bytes));

  // Each thread adds to its own stripe of the shard's totals, so concurrent
  // writers rarely touch the same row (common/counts.h).
  return AddToCountsRow(session, table_, StripeKey(shard, ThreadStripe()), Counts{count, bytes});
}

Status SizeLimitsHook::ReserveShard(engine::HookContext& ctx, int shard, int64_t bytes) {
  const catalog::CollectionEntry& coll = ctx.collection();
  std::atomic<int64_t>& reserved = reserved_->bytes[shard];
  // Committed bytes come from the store's counters, which follow commits
  // (they are updated before this write's reservation is released, so the
  // two never undercount together).
  int64_t held = reserved.load();
  for (;;) {
    const int64_t committed = coll.store->StatsOf(shard).data_bytes;
    const int64_t would_be = committed + held + bytes;
    if (would_be > limits_.shard) {
      return Status(ErrorCode::kShardSizeLimitExceeded,
                    "shard " + std::to_string(shard) + " of " + coll.metadata.ns +
                        " would reach " + std::to_string(would_be) +
                        " bytes, over its limit maxShardBytes: " + std::to_string(limits_.shard) +
                        "; delete or shrink documents, or raise maxShardBytes with collMod");
    }
    if (reserved.compare_exchange_weak(held, held + bytes)) break;
  }
  std::shared_ptr<Reservations> reservations = reserved_;
  auto release = [reservations, shard, bytes] { reservations->bytes[shard].fetch_sub(bytes); };
  ctx.session().OnCommit(release);
  ctx.session().OnRollback(release);
  return Status::OK();
}

Status SizeLimitsHook::AppendStats(storage::Session& session,
                                   const catalog::CollectionEntry& coll, bson_t* out) {
  StatusWith<TableCounts> table = AppendLimitsAndReadTable(limits_, session, coll, out);
  RETURN_IF_ERROR(table.status());
  bson_t shards;
  bson_append_array_begin(out, "shards", -1, &shards);
  for (size_t i = 0; i < table.value().shards.size(); ++i) {
    bson_t shard;
    std::string k = std::to_string(i);
    bson_append_document_begin(&shards, k.c_str(), -1, &shard);
    BSON_APPEND_INT32(&shard, "shard", static_cast<int32_t>(i));
    BSON_APPEND_INT64(&shard, "count", table.value().shards[i].count);
    BSON_APPEND_INT64(&shard, "size", table.value().shards[i].bytes);
    bson_append_document_end(&shards, &shard);
  }
  bson_append_array_end(out, &shards);
  AppendPartitions(coll, table.value(), std::nullopt, out);
  if (!table.value().complete) BSON_APPEND_BOOL(out, "incomplete", true);
  return Status::OK();
}

Status SizeLimitsHook::AppendShardStats(storage::Session& session,
                                        const catalog::CollectionEntry& coll, int shard,
                                        bson_t* out) {
  StatusWith<TableCounts> table = AppendLimitsAndReadTable(limits_, session, coll, out);
  RETURN_IF_ERROR(table.status());
  const Counts totals = static_cast<size_t>(shard) < table.value().shards.size()
                            ? table.value().shards[static_cast<size_t>(shard)]
                            : Counts{};
  BSON_APPEND_INT64(out, "count", totals.count);
  BSON_APPEND_INT64(out, "size", totals.bytes);
  AppendPartitions(coll, table.value(), shard, out);
  if (!table.value().complete) BSON_APPEND_BOOL(out, "incomplete", true);
  return Status::OK();
}

Status SizeLimitsHook::Validate(storage::Session& session, const catalog::CollectionEntry& coll,
                                std::vector<std::string>* problems) {
  return RecountSizes(session, coll, problems);
}

}  // namespace tigerdoc::patterns::size_limits
