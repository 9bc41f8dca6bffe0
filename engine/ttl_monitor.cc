// The TTL monitor: deletes documents whose TTL-indexed date is older than
// the index's expireAfterSeconds, as MongoDB's TTLMonitor does.
//
// Per TTL index (expireAfterSeconds on a single non-hashed field) and per
// index table, the expired entries are one key range: the dates before
// now - expireAfterSeconds (keystring orders dates among themselves and
// apart from every other type, so non-date values are never in the range
// and are ignored, as in MongoDB). An array of dates has one entry per
// element, so a document expires with its earliest date. Each document is
// then removed through the normal delete path, re-checking
// {<field>: {$lt: cutoff}} (and the partial filter) inside its transaction,
// so a document updated meanwhile is left alone.

#include <chrono>
#include <cstdio>
#include <limits>

#include "engine/write/document_rules.h"
#include "engine/engine.h"
#include "engine/index/index_table.h"
#include "engine/keystring/key_string.h"
#include "engine/query/matcher/matcher.h"

namespace tigerdoc::engine {
namespace {

// Documents one pass deletes per index at most; the next pass continues.
constexpr size_t kMaxDeletesPerIndexPass = 100000;

std::string DateKey(int64_t millis, keystring::Direction dir) {
  bson_value_t date;
  date.value_type = BSON_TYPE_DATE_TIME;
  date.value.v_datetime = millis;
  keystring::KeyBuilder builder;
  builder.Append(&date, dir);
  return builder.Release();
}

// {$and: [{<field>: {$lt: Date(cutoff)}}, <partial filter>]}
bson::BsonDoc ExpiredFilter(const index::IndexSpec& spec, int64_t cutoff_ms) {
  bson::BsonDoc filter;
  bson_t and_array, clause, op;
  BSON_APPEND_ARRAY_BEGIN(filter.mutable_get(), "$and", &and_array);
  BSON_APPEND_DOCUMENT_BEGIN(&and_array, "0", &clause);
  const std::string& field = spec.fields[0].path.dotted();
  bson_append_document_begin(&clause, field.c_str(), static_cast<int>(field.size()), &op);
  BSON_APPEND_DATE_TIME(&op, "$lt", cutoff_ms);
  bson_append_document_end(&clause, &op);
  bson_append_document_end(&and_array, &clause);
  if (spec.partial_filter) BSON_APPEND_DOCUMENT(&and_array, "1", spec.partial_filter->get());
  bson_append_array_end(filter.mutable_get(), &and_array);
  return filter;
}

}  // namespace

StatusWith<int64_t> Engine::DeleteExpiredDocuments() {
  int64_t deleted = 0;
  const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  storage::Session session = storage_->NewSession();
  for (const std::shared_ptr<catalog::CollectionEntry>& coll : catalog_->List("")) {
    std::shared_ptr<const index::IndexSet> indexes = coll->indexes();
    for (const auto& spec : indexes->specs) {
      if (!spec->IsTtl()) continue;
      const int64_t cutoff_ms = now_ms - *spec->expire_after_seconds * 1000;
      const keystring::Direction dir = spec->fields[0].dir;
      std::string lower, upper;
      if (dir == keystring::Direction::kAscending) {
        lower = DateKey(std::numeric_limits<int64_t>::min(), dir);
        upper = DateKey(cutoff_ms, dir);
      } else {
        lower = keystring::PrefixSuccessor(DateKey(cutoff_ms, dir));
        upper = keystring::PrefixSuccessor(DateKey(std::numeric_limits<int64_t>::min(), dir));
      }
      bson::BsonDoc filter = ExpiredFilter(*spec, cutoff_ms);
      ASSIGN_OR_RETURN(std::unique_ptr<query::Matcher> matcher, query::Matcher::Parse(filter.get()));
      // Collect first (no cursor stays open across the deletes).
      std::vector<bson::BsonDoc> ids;
      for (const index::IndexTableRef& ref : index::IndexTablesFor(
               coll->metadata.ident, *spec, coll->metadata.num_shards)) {
        ASSIGN_OR_RETURN(storage::Cursor cursor, session.Scan(ref.table, lower, upper));
        Status status;
        while (ids.size() < kMaxDeletesPerIndexPass && cursor.Next(&status)) {
          ASSIGN_OR_RETURN(index::IndexEntry entry, index::DecodeIndexEntry(cursor.key(), cursor.value()));
          ASSIGN_OR_RETURN(std::optional<std::string> stored,
                           session.Get(coll->store->TableName(entry.shard), entry.record_key));
          if (!stored) continue;  // removed meanwhile
          bson::BsonDoc doc = bson::BsonDoc::CopyOf(
              reinterpret_cast<const uint8_t*>(stored->data()), stored->size());
          ids.push_back(IdOf(doc.get()));
        }
        RETURN_IF_ERROR(status);
      }
      for (const bson::BsonDoc& id : ids) {
        ASSIGN_OR_RETURN(bool removed, RemoveIfMatches(session, coll, id, *matcher));
        deleted += removed ? 1 : 0;
      }
    }
  }
  return deleted;
}

void Engine::RunTtlMonitorUntilStopped() {
  std::unique_lock<std::mutex> lock(reaper_mutex_);
  while (!stopping_) {
    const int64_t secs = ttl_monitor_sleep_secs_.load();
    if (secs <= 0) {
      reaper_wakeup_.wait(lock);
      continue;
    }
    if (reaper_wakeup_.wait_for(lock, std::chrono::seconds(secs), [&] {
          return stopping_ || ttl_sleep_changed_;
        })) {
      ttl_sleep_changed_ = false;
      continue;  // stopping, or a new interval: wait again with it
    }
    lock.unlock();
    StatusWith<int64_t> deleted = DeleteExpiredDocuments();
    if (!deleted.ok()) {
      std::fprintf(stderr, "ttl monitor: %s\n", deleted.status().ToString().c_str());
    }
    lock.lock();
  }
}

void Engine::SetTtlMonitorSleep(int64_t seconds) {
  {
    std::lock_guard<std::mutex> lock(reaper_mutex_);
    ttl_monitor_sleep_secs_.store(seconds);
    ttl_sleep_changed_ = true;
  }
  reaper_wakeup_.notify_all();
}

}  // namespace tigerdoc::engine
