// Engine::Validate: MongoDB's validate command over a sharded collection.
//
//   for each shard table "<ident>-s<k>", under one snapshot:
//     record (key, value) ── BSON valid? ── LocationOf(doc) == (k, key)?
//                        ── shard key not _id: "<ident>-id"[keystring(_id)] == key?
//                        ── collated _id: "<ident>-idc"[keystring(_id, collation)]?
//                        ── the collection's validator accepts it? (a warning)
//                        ── for each index: every generated entry is stored,
//                           with the value the writer would have written
//   then for each index: entries stored == entries generated (so none extra)
//
// Checking each generated entry by a point read, then comparing counts,
// needs no memory proportional to the collection: equal counts plus every
// expected entry present means no extra entry exists (two documents cannot
// expect the same entry: the record key is part of every non-unique entry,
// and a unique entry's value names its one record).
//
// The collection's write mutex is held shared, as by every writer: no index
// build or drop runs meanwhile, writers go on and the snapshot hides them.

#include <mutex>
#include <shared_mutex>
#include <string>

#include "engine/bson/hex.h"
#include "engine/bson/shell_string.h"
#include "engine/engine.h"
#include "engine/index/index_table.h"
#include "engine/index/key_generator.h"
#include "engine/keystring/key_string.h"
#include "engine/storage/shard_router.h"
#include "engine/write/collection_writer.h"
#include "engine/write/document_validator.h"

namespace tigerdoc::engine {
namespace {

// Past this many messages the rest are summarised (MongoDB too caps the
// errors one validate reports).
constexpr size_t kMaxMessages = 20;

// MongoDB's warning for documents its validator refuses (log id 5363500).
constexpr char kSchemaValidationFailed[] =
    "Detected one or more documents not compliant with the collection's schema. Check logs for log "
    "id 5363500.";

// The number showRecordId reports for a record key.
int64_t RecordIdOf(std::string_view record_key) {
  return static_cast<int64_t>(storage::ShardHashV1(record_key) & INT64_MAX);
}

// missingIndexEntries' element: {indexName, recordId, idKey, indexKey}.
bson::BsonDoc MissingEntry(const index::IndexSpec& spec, std::string_view record_key, const bson_t* doc,
                           const bson_t* key_values) {
  bson::BsonDoc out;
  BSON_APPEND_UTF8(out.mutable_get(), "indexName", spec.name.c_str());
  BSON_APPEND_INT64(out.mutable_get(), "recordId", RecordIdOf(record_key));
  bson_iter_t id;
  if (bson_iter_init_find(&id, doc, "_id")) bson_append_iter(out.mutable_get(), "idKey", 5, &id);
  BSON_APPEND_DOCUMENT(out.mutable_get(), "indexKey", KeyValueOf(spec, key_values).get());
  return out;
}

class Problems {
 public:
  explicit Problems(ValidateResult* result) : result_(result) {}
  ~Problems() {
    if (dropped_ > 0) {
      result_->errors.push_back("... and " + std::to_string(dropped_) + " more errors");
    }
  }
  Problems(const Problems&) = delete;
  Problems& operator=(const Problems&) = delete;

  void Error(std::string message) {
    if (result_->errors.size() < kMaxMessages) {
      result_->errors.push_back(std::move(message));
    } else {
      ++dropped_;
    }
  }

 private:
  ValidateResult* result_;
  int64_t dropped_ = 0;
};

std::string IdString(const bson_t* doc) {
  bson_iter_t it;
  if (!bson_iter_init_find(&it, doc, "_id")) return "(no _id)";
  bson::BsonDoc one;
  bson_append_iter(one.mutable_get(), "_id", 3, &it);
  return bson::ToShellString(one.get());
}

std::string Hex(std::string_view bytes) {
  std::string out;
  bson::AppendLowerHex(bytes.substr(0, 32), &out);
  if (bytes.size() > 32) out += "...";
  return out;
}

}  // namespace

StatusWith<ValidateResult> Engine::Validate(std::string_view db, std::string_view coll_name) {
  const std::string ns = Namespace(db, coll_name);
  RETURN_IF_ERROR(RefuseView(db, coll_name));
  std::shared_ptr<catalog::CollectionEntry> coll = catalog_->Lookup(ns);
  if (!coll) {
    return Status(ErrorCode::kNamespaceNotFound, "Collection '" + ns + "' does not exist to validate.");
  }
  std::shared_lock<std::shared_mutex> lock(coll->write_mutex());
  const std::shared_ptr<const index::IndexSet> indexes = coll->indexes();
  const storage::ShardedRecordStore& store = *coll->store;
  const std::string& ident = coll->metadata.ident;

  ValidateResult result;
  result.ns = ns;
  struct IndexCheck {
    int64_t expected = 0;
    bool valid = true;
  };
  std::vector<IndexCheck> checks(indexes->specs.size());
  bool id_index_valid = true;
  // MongoDB checks documents against the validator as writes would
  // (nothing when validationLevel is "off").
  ASSIGN_OR_RETURN(std::shared_ptr<const DocumentValidator> validator,
                   DocumentValidator::FromOptions(coll->metadata.options.get(), db, ns));
  if (validator != nullptr && validator->level() == ValidationLevel::kOff) validator.reset();
  const bool collated_id = coll->metadata.collated_id_table;
  const std::string collated_id_table = storage::ShardedRecordStore::CollatedIdTableName(ident);

  storage::Session session = storage_->NewSession();
  RETURN_IF_ERROR(session.Begin());
  struct RollbackAtExit {
    storage::Session& s;
    ~RollbackAtExit() { s.Rollback(); }
  } rollback_at_exit{session};

  {
    Problems problems(&result);
    for (int shard = 0; shard < store.num_shards(); ++shard) {
      const std::string table = store.TableName(shard);
      ASSIGN_OR_RETURN(storage::Cursor cursor, session.Scan(table, "", ""));
      Status scan_status;
      while (cursor.Next(&scan_status)) {
        ++result.n_records;
        const std::string record_key(cursor.key());
        auto parsed = bson::BsonDoc::FromBytes(
            reinterpret_cast<const uint8_t*>(cursor.value().data()), cursor.value().size());
        if (!parsed.ok()) {
          ++result.n_invalid_documents;
          if (result.corrupt_records.size() < kMaxMessages) {
            result.corrupt_records.push_back(RecordIdOf(record_key));
          }
          problems.Error("Document with RecordId " + Hex(record_key) + " in table " + table +
                         " is not valid BSON: " + parsed.status().reason());
          continue;
        }
        const bson::BsonDoc doc = std::move(parsed).value();
        auto at = store.LocationOf(session, doc.get());
        if (!at.ok() || at.value().shard != shard || at.value().record_key != record_key) {
          ++result.n_invalid_documents;
          id_index_valid = false;
          problems.Error("Document " + IdString(doc.get()) + " in table " + table +
                         " is not stored where its shard key and _id place it" +
                         (at.ok() ? std::string() : ": " + at.status().reason()));
          continue;
        }
        if (!store.shard_key_is_id()) {
          bson_iter_t id_it;
          bson_iter_init_find(&id_it, doc.get(), "_id");  // LocationOf found it
          ASSIGN_OR_RETURN(std::optional<std::string> mapped,
                           session.Get(storage::ShardedRecordStore::IdTableName(ident),
                                       keystring::Encode(&id_it)));
          if (!mapped || *mapped != record_key) {
            id_index_valid = false;
            problems.Error("index _id_ has no entry (or a wrong one) for document " +
                           IdString(doc.get()));
          }
        }
        if (collated_id) {
          bson_iter_t id_it;
          bson_iter_init_find(&id_it, doc.get(), "_id");
          ASSIGN_OR_RETURN(std::optional<std::string> entry,
                           session.Get(collated_id_table,
                                       keystring::Encode(&id_it, coll->metadata.default_collator)));
          if (!entry) {
            id_index_valid = false;
            problems.Error("index _id_ has no collated entry for document " + IdString(doc.get()));
          }
        }
        if (validator != nullptr && !validator->validator().Matches(doc.get())) {
          ++result.n_non_compliant_documents;
        }
        for (size_t i = 0; i < indexes->specs.size(); ++i) {
          const index::IndexSpec& spec = *indexes->specs[i];
          auto keys = index::GenerateKeys(spec, doc.get());
          if (!keys.ok()) {
            checks[i].valid = false;
            problems.Error("index " + spec.name + ": document " + IdString(doc.get()) +
                           " generates no keys: " + keys.status().reason());
            continue;
          }
          const std::string entry_table = index::EntryTable(ident, spec, shard);
          for (const index::IndexKey& key : keys.value().keys) {
            ++checks[i].expected;
            ASSIGN_OR_RETURN(
                std::optional<std::string> stored,
                session.Get(entry_table, index::EncodeEntryKey(spec, key.encoded, record_key)));
            if (!stored) {
              checks[i].valid = false;
              problems.Error("index " + spec.name + " is missing an entry for document " +
                             IdString(doc.get()));
              if (result.missing_index_entries.size() < kMaxMessages) {
                result.missing_index_entries.push_back(
                    MissingEntry(spec, record_key, doc.get(), key.values.get()));
              }
            } else if (*stored != index::EncodeEntryValue(shard, record_key, key.values)) {
              checks[i].valid = false;
              problems.Error("index " + spec.name + " has a wrong entry for document " +
                             IdString(doc.get()));
            }
          }
        }
      }
      RETURN_IF_ERROR(scan_status);
    }

    // Counts: with every expected entry present, more stored entries means
    // extra ones (left by a write that did not remove them).
    auto count_table = [&session](const std::string& table) -> StatusWith<int64_t> {
      ASSIGN_OR_RETURN(storage::Cursor cursor, session.Scan(table, "", ""));
      int64_t n = 0;
      Status status;
      while (cursor.Next(&status)) ++n;
      RETURN_IF_ERROR(status);
      return n;
    };
    int64_t id_keys = result.n_records;
    if (!store.shard_key_is_id()) {
      ASSIGN_OR_RETURN(id_keys, count_table(storage::ShardedRecordStore::IdTableName(ident)));
      if (id_keys != result.n_records) {
        id_index_valid = false;
        problems.Error("index _id_ has " + std::to_string(id_keys) + " entries for " +
                       std::to_string(result.n_records) + " records");
      }
    }
    if (collated_id) {
      ASSIGN_OR_RETURN(int64_t collated_keys, count_table(collated_id_table));
      if (collated_keys != result.n_records) {
        id_index_valid = false;
        problems.Error("index _id_ has " + std::to_string(collated_keys) + " collated entries for " +
                       std::to_string(result.n_records) + " records");
      }
    }
    result.indexes.push_back({std::string(index::kIdIndexName), id_keys, id_index_valid});
    for (size_t i = 0; i < indexes->specs.size(); ++i) {
      const index::IndexSpec& spec = *indexes->specs[i];
      int64_t stored = 0;
      for (const index::IndexTableRef& ref :
           index::IndexTablesFor(ident, spec, store.num_shards())) {
        ASSIGN_OR_RETURN(int64_t n, count_table(ref.table));
        stored += n;
      }
      if (stored != checks[i].expected) {
        checks[i].valid = false;
        problems.Error("index " + spec.name + " has " + std::to_string(stored) +
                       " entries but its documents generate " +
                       std::to_string(checks[i].expected));
      }
      result.indexes.push_back({spec.name, stored, checks[i].valid});
    }
  }
  if (result.n_non_compliant_documents > 0) result.warnings.push_back(kSchemaValidationFailed);
  const storage::ShardStats stats = store.TotalStats();
  if (stats.count != result.n_records) {
    // In-memory statistics follow commits; a write committing during the
    // walk can make them differ for a moment, so this is only a warning.
    result.warnings.push_back("collection count " + std::to_string(stats.count) +
                              " differs from the " + std::to_string(result.n_records) +
                              " records found");
  }
  // What the collection's patterns keep beside the documents (the size
  // counters of size limits, ...), recounted in a snapshot of their own:
  // every difference is an error.
  std::vector<std::string> pattern_problems;
  RETURN_IF_ERROR(ValidatePatterns(*coll, &pattern_problems));
  for (std::string& problem : pattern_problems) result.errors.push_back(std::move(problem));
  return result;
}

}  // namespace tigerdoc::engine
