// Index builds: scan, external sort, load in key order (index_builder.h).

#include "engine/index_builder.h"

#include <algorithm>
#include <atomic>
#include <memory>

#include "engine/index/index_table.h"
#include "engine/index/key_generator.h"
#include "engine/index/multikey_merge.h"
#include "engine/log/log.h"
#include "engine/progress_meter.h"
#include "engine/query/sorter.h"
#include "engine/storage/bulk_loader.h"
#include "engine/write/collection_writer.h"
#include "engine/write/write_unit.h"

namespace tigerdoc::engine {
namespace {

constexpr size_t kScanBatchDocuments = 1000;
constexpr size_t kLoadBatchEntries = 1000;  // per transaction when not bulk loading
constexpr int64_t kMegabyte = 1024 * 1024;
constexpr int64_t kProgressEveryEntries = 1000;
// A sorter needs room for at least one row; budgets below this are raised.
constexpr int64_t kMinSorterBytes = 1024;

std::atomic<int64_t> max_memory_megabytes{kDefaultIndexBuildMemoryMegabytes};
std::atomic<int64_t> memory_bytes_for_test{0};

// Sort key: the table's number (the shard for a per-shard table, 0 for a
// unique index's one table), big-endian so tables come out in order, then
// the entry key the table sorts by.
std::string SortKey(uint32_t table_number, std::string_view entry_key) {
  std::string key;
  key.reserve(4 + entry_key.size());
  for (int shift = 24; shift >= 0; shift -= 8) {
    key.push_back(static_cast<char>((table_number >> shift) & 0xff));
  }
  key.append(entry_key);
  return key;
}

uint32_t TableNumberOf(const std::string& sort_key) {
  uint32_t n = 0;
  for (int i = 0; i < 4; ++i) n = (n << 8) | static_cast<uint8_t>(sort_key[i]);
  return n;
}

bson::BsonDoc SortRow(std::string_view entry_key, std::string_view value) {
  bson::BsonDoc row;
  bson_append_binary(row.mutable_get(), "k", 1, BSON_SUBTYPE_BINARY,
                     reinterpret_cast<const uint8_t*>(entry_key.data()),
                     static_cast<uint32_t>(entry_key.size()));
  bson_append_binary(row.mutable_get(), "v", 1, BSON_SUBTYPE_BINARY,
                     reinterpret_cast<const uint8_t*>(value.data()),
                     static_cast<uint32_t>(value.size()));
  return row;
}

std::string_view BinaryField(const bson::BsonDoc& row, const char* name) {
  bson_iter_t it;
  if (!bson_iter_init_find(&it, row.get(), name) || !BSON_ITER_HOLDS_BINARY(&it)) return {};
  bson_subtype_t subtype;
  uint32_t len = 0;
  const uint8_t* data = nullptr;
  bson_iter_binary(&it, &subtype, &len, &data);
  return {reinterpret_cast<const char*>(data), len};
}

// One index being built: its sorter, then the loading of its tables.
class IndexLoad {
 public:
  IndexLoad(index::IndexSpec& spec, query::SorterOptions options)
      : spec_(spec), sorter_(std::move(options)) {}

  index::IndexSpec& spec() { return spec_; }

  Status Add(int shard, std::string_view record_key, const index::DocumentKeys& keys) {
    if (keys.multikey) {
      index::MarkMultikey(spec_, keys.multikey_paths, keys.wildcard_multikey_paths);
    }
    const uint32_t table_number = spec_.unique ? 0 : static_cast<uint32_t>(shard);
    for (const index::IndexKey& key : keys.keys) {
      std::string entry_key = index::EncodeEntryKey(spec_, key.encoded, record_key);
      bson::BsonDoc row = SortRow(entry_key, index::EncodeEntryValue(shard, record_key, key.values));
      RETURN_IF_ERROR(sorter_.Add(SortKey(table_number, entry_key), std::move(row)));
    }
    return Status::OK();
  }

  // Merges the sorted entries into the tables, in key order.
  Status Load(storage::StorageEngine& storage, storage::Session& session,
              const catalog::CollectionEntry& coll, IndexBuildStats* stats) {
    RETURN_IF_ERROR(sorter_.Done());
    stats->spills += sorter_.stats().spills;
    stats->sorted_bytes += sorter_.stats().total_data_bytes;
    ProgressMeter progress("Index Build: inserting keys from external sorter into index",
                           coll.metadata.ns, sorter_.stats().rows_added);
    std::string previous_key;
    bool has_previous = false;
    int64_t table_number = -1;
    int64_t unreported = 0;
    for (;;) {
      bson::BsonDoc row;
      ASSIGN_OR_RETURN(bool more, sorter_.Next(&row));
      if (!more) break;
      const std::string_view entry_key = BinaryField(row, "k");
      const std::string_view value = BinaryField(row, "v");
      // Unique: one table, equal keys adjacent, the earlier document first.
      if (spec_.unique && has_previous && entry_key == previous_key) {
        return DuplicateOf(entry_key, value, coll);
      }
      previous_key.assign(entry_key);
      has_previous = true;
      const int shard = spec_.unique ? 0 : ShardOfValue(value);
      if (shard != table_number) {
        RETURN_IF_ERROR(FinishTable(session, stats));
        table_number = shard;
        RETURN_IF_ERROR(StartTable(storage, session, index::EntryTable(coll.metadata.ident, spec_, shard)));
      }
      RETURN_IF_ERROR(Append(session, entry_key, value));
      ++stats->entries;
      if (++unreported == kProgressEveryEntries) {
        progress.Add(unreported);  // currentOp and the log, not per entry
        unreported = 0;
      }
    }
    progress.Add(unreported);
    RETURN_IF_ERROR(FinishTable(session, stats));
    progress.Finish();
    if (progress.done() > 0) LogDone(coll, progress.done());
    return Status::OK();
  }

 private:
  // mongod's line after an index's keys are in (id 20685), with how they got there.
  void LogDone(const catalog::CollectionEntry& coll, int64_t keys) {
    bson::BsonDoc attr;
    BSON_APPEND_UTF8(attr.mutable_get(), "namespace", coll.metadata.ns.c_str());
    BSON_APPEND_UTF8(attr.mutable_get(), "index", spec_.name.c_str());
    BSON_APPEND_INT64(attr.mutable_get(), "keysInserted", keys);
    BSON_APPEND_INT64(attr.mutable_get(), "spilledRuns", sorter_.stats().spills);
    BSON_APPEND_INT64(attr.mutable_get(), "bulkLoadedTables", bulk_tables_);
    BSON_APPEND_INT64(attr.mutable_get(), "insertedTables", inserted_tables_);
    log::Write(log::Severity::kInfo, "INDEX", 20685,
               "Index build: inserted keys from external sorter into index", attr.get());
  }

  static int ShardOfValue(std::string_view value) {
    // Entry value: version byte, then the u32 big-endian shard.
    uint32_t n = 0;
    for (int i = 1; i <= 4; ++i) n = (n << 8) | static_cast<uint8_t>(value[i]);
    return static_cast<int>(n);
  }

  Status DuplicateOf(std::string_view entry_key, std::string_view value,
                     const catalog::CollectionEntry& coll) {
    ASSIGN_OR_RETURN(index::IndexEntry entry, index::DecodeIndexEntry(entry_key, value));
    return DuplicateKeyError(coll.metadata.ns, spec_.name, spec_.key_pattern.get(),
                             KeyValueOf(spec_, entry.key_values.get()).get(), spec_.collator);
  }

  Status StartTable(storage::StorageEngine& storage, storage::Session& session,
                    const std::string& table) {
    table_ = table;
    auto bulk = storage::BulkLoader::Open(storage, session, table);
    if (bulk.ok()) {
      bulk_ = std::move(bulk).value();
      return Status::OK();
    }
    // The table is open elsewhere (EBUSY, e.g. a checkpoint walking it):
    // ordinary inserts in key order instead.
    if (bulk.status().code() != ErrorCode::kInternalError) return bulk.status();
    return Status::OK();
  }

  Status Append(storage::Session& session, std::string_view key, std::string_view value) {
    if (bulk_) return bulk_->Append(key, value);
    pending_.emplace_back(std::string(key), std::string(value));
    if (pending_.size() >= kLoadBatchEntries) return FlushPending(session);
    return Status::OK();
  }

  Status FlushPending(storage::Session& session) {
    if (pending_.empty()) return Status::OK();
    RETURN_IF_ERROR(RunWriteUnit(session, [&]() -> Status {
      for (const auto& [key, value] : pending_) RETURN_IF_ERROR(session.Put(table_, key, value));
      return Status::OK();
    }));
    pending_.clear();
    return Status::OK();
  }

  Status FinishTable(storage::Session& session, IndexBuildStats* stats) {
    if (bulk_) {
      std::unique_ptr<storage::BulkLoader> bulk = std::move(bulk_);
      RETURN_IF_ERROR(bulk->Finish());
      ++stats->bulk_tables;
      ++bulk_tables_;
      return Status::OK();
    }
    if (table_.empty()) return Status::OK();  // no table started yet
    ++inserted_tables_;
    return FlushPending(session);
  }

  index::IndexSpec& spec_;
  query::Sorter sorter_;
  std::string table_;
  std::unique_ptr<storage::BulkLoader> bulk_;  // null: ordinary inserts
  std::vector<std::pair<std::string, std::string>> pending_;
  int64_t bulk_tables_ = 0;
  int64_t inserted_tables_ = 0;
};

}  // namespace

int64_t MaxIndexBuildMemoryUsageMegabytes() { return max_memory_megabytes.load(); }

Status SetMaxIndexBuildMemoryUsageMegabytes(int64_t megabytes) {
  if (megabytes < kMinIndexBuildMemoryMegabytes) {
    return Status(ErrorCode::kBadValue,
                  "Invalid value for parameter maxIndexBuildMemoryUsageMegabytes: " +
                      std::to_string(megabytes) + " is not greater than or equal to " +
                      std::to_string(kMinIndexBuildMemoryMegabytes));
  }
  max_memory_megabytes.store(megabytes);
  return Status::OK();
}

int64_t IndexBuildMemoryLimitBytesForTest() { return memory_bytes_for_test.load(); }

Status SetIndexBuildMemoryLimitBytesForTest(int64_t bytes) {
  if (bytes < 0) {
    return Status(ErrorCode::kBadValue,
                  "internalIndexBuildMemoryLimitBytesForTest must be greater than or equal to 0");
  }
  memory_bytes_for_test.store(bytes);
  return Status::OK();
}

int64_t IndexBuildMemoryLimitBytes() {
  const int64_t for_test = memory_bytes_for_test.load();
  return for_test > 0 ? for_test : max_memory_megabytes.load() * kMegabyte;
}

Status BuildIndexesSorted(storage::StorageEngine& storage, const catalog::CollectionEntry& coll,
                          std::vector<index::IndexSpec>& specs, const std::string& temp_dir,
                          IndexBuildStats* stats) {
  IndexBuildStats local_stats;
  if (stats == nullptr) stats = &local_stats;
  const int64_t budget = std::max<int64_t>(
      kMinSorterBytes, IndexBuildMemoryLimitBytes() / std::max<int64_t>(1, specs.size()));
  std::vector<std::unique_ptr<IndexLoad>> loads;
  for (index::IndexSpec& spec : specs) {
    query::SorterOptions options;
    options.max_memory_bytes = budget;
    options.allow_disk_use = true;
    options.temp_dir = temp_dir;
    loads.push_back(std::make_unique<IndexLoad>(spec, std::move(options)));
  }

  storage::Session session = storage.NewUnboundSession();
  ProgressMeter progress("Index Build: scanning collection", coll.metadata.ns,
                         coll.store->TotalStats().count);
  for (int shard = 0; shard < coll.store->num_shards(); ++shard) {
    const std::string table = coll.store->TableName(shard);
    std::string lower;
    for (;;) {
      // A batch at a time, the cursor closed in between (no long-lived
      // read); the next batch resumes after the last key read, which no
      // writer can change meanwhile. A row's key is its record key (what
      // LocationOf computes, and for a capped store reads).
      size_t scanned = 0;
      std::string last_key;
      {
        ASSIGN_OR_RETURN(storage::Cursor cursor, session.Scan(table, lower, ""));
        Status status;
        while (scanned < kScanBatchDocuments && cursor.Next(&status)) {
          bson_t doc;
          if (!bson_init_static(&doc, reinterpret_cast<const uint8_t*>(cursor.value().data()),
                                cursor.value().size())) {
            return Status(ErrorCode::kInternalError,
                          "index build: a stored document of " + table + " is not BSON");
          }
          for (auto& load : loads) {
            ASSIGN_OR_RETURN(index::DocumentKeys keys, index::GenerateKeys(load->spec(), &doc));
            RETURN_IF_ERROR(load->Add(shard, cursor.key(), keys));
          }
          last_key.assign(cursor.key());
          ++scanned;
        }
        RETURN_IF_ERROR(status);
      }
      if (scanned == 0) break;
      stats->documents += static_cast<int64_t>(scanned);
      progress.Add(static_cast<int64_t>(scanned));
      if (scanned < kScanBatchDocuments) break;
      lower = last_key;
      lower.push_back('\0');  // the smallest key after last_key
    }
  }
  progress.Finish();
  for (auto& load : loads) RETURN_IF_ERROR(load->Load(storage, session, coll, stats));
  return Status::OK();
}

}  // namespace tigerdoc::engine
