#pragma once
// Params/Result structs of the Engine facade (engine/engine.h): typed
// arguments in, typed results out. Commands parse wire documents into these
// before calling the engine.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/bson/bson_doc.h"
#include "engine/bson/collator.h"

namespace tigerdoc::engine {

// The `collation` option of an operation: nullopt when the command gave
// none (the collection's default collation applies), else the collator
// (nullptr for {locale: "simple"}). See engine/bson/collator.h.
using CollationOption = std::optional<const bson::Collator*>;

// A reply holds at most 16 MiB of documents (maxBsonObjectSize); batches
// stop short of that so the reply envelope still fits.
inline constexpr int64_t kMaxBatchBytes = 16 * 1024 * 1024 - 64 * 1024;

// "db.coll"
inline std::string Namespace(std::string_view db, std::string_view coll) {
  return std::string(db) + "." + std::string(coll);
}

// validate {validate: coll, full}: what a walk of every shard table and
// every index table found (MongoDB's reply fields, engine_validate.cc).
struct ValidateResult {
  std::string ns;
  int64_t n_records = 0;
  int64_t n_invalid_documents = 0;
  // Documents the collection's validator (validationLevel not "off")
  // refuses: a warning, not an error, as in MongoDB (writes may bypass it).
  int64_t n_non_compliant_documents = 0;
  // Per index, _id_ first: the entries counted and whether the index holds
  // exactly the entries its documents generate.
  struct IndexReport {
    std::string name;
    int64_t keys = 0;
    bool valid = true;
  };
  std::vector<IndexReport> indexes;
  std::vector<std::string> warnings;
  std::vector<std::string> errors;
  // Record ids (showRecordId's numbers) of records that are not BSON.
  std::vector<int64_t> corrupt_records;
  // MongoDB's {indexName, recordId, idKey, indexKey} of each entry a
  // document generates that its index lacks (at most a few dozen).
  std::vector<bson::BsonDoc> missing_index_entries;
  bool valid() const { return errors.empty(); }
};

struct CreateParams {
  std::string db;
  std::string name;
  std::optional<std::string> shard_key_field;  // from shardKey: {<field>: 1}
  std::optional<int> num_shards;               // from shards: N
  bson::BsonDoc options;                       // all create options as given
};

// create {viewOn, pipeline}: a read-only view of `view_on` (a collection
// or view of the same database) through `pipeline`.
struct CreateViewParams {
  std::string db;
  std::string name;
  std::string view_on;
  bson::BsonDoc pipeline;  // the stages, as an array document
  const bson::Collator* collator = nullptr;  // the view's collation; nullptr: simple
};

// createIndexes: specs as sent ({key, name, options...}).
struct CreateIndexesParams {
  std::string db;
  std::string coll;
  std::vector<bson::BsonDoc> specs;
};
struct CreateIndexesResult {
  int num_indexes_before = 0;  // the _id index included
  int num_indexes_after = 0;
  bool created_collection = false;
  bool all_already_existed = false;  // MongoDB's note "all indexes already exist"
};

// dropIndexes: by name, by key pattern, a list of names, or "*".
struct DropIndexesParams {
  std::string db;
  std::string coll;
  enum class Kind { kName, kKeyPattern, kNames, kAll } kind = Kind::kName;
  std::vector<std::string> names;  // kName (one) or kNames
  bson::BsonDoc key_pattern;       // kKeyPattern
};

// collMod's "index" option: find by name or key pattern, change options.
struct IndexModification {
  std::optional<std::string> name;
  std::optional<bson::BsonDoc> key_pattern;
  std::optional<bool> hidden;
  std::optional<int64_t> expire_after_seconds;
};
struct IndexModificationResult {
  std::optional<bool> hidden_old, hidden_new;
  std::optional<int64_t> expire_after_seconds_old, expire_after_seconds_new;
};

struct UpdateStatement {
  bson::BsonDoc query;
  CollationOption collation;
  bson::BsonDoc update;  // operator document or replacement; the stages when update_is_pipeline
  bool update_is_pipeline = false;
  bool upsert = false;
  bool multi = false;
  std::optional<bson::BsonDoc> array_filters;  // the arrayFilters array, as a document
  std::optional<bson::BsonDoc> constants;      // `c`: variables of a pipeline update
  bson::BsonDoc let;                           // the command's `let`
  bool bypass_document_validation = false;     // the command's bypassDocumentValidation
};

struct UpdateResult {
  int64_t matched = 0;    // n (includes the upserted document)
  int64_t modified = 0;   // nModified
  std::optional<bson::BsonDoc> upserted_id;  // {"": _id} when an upsert inserted
};

struct DeleteStatement {
  bson::BsonDoc query;
  CollationOption collation;
  int64_t limit = 0;  // 0 = all matching, 1 = one
  bson::BsonDoc let;  // the command's `let`
};

struct DeleteResult {
  int64_t deleted = 0;
};

// The hint of a find: the _id index ("_id_" or {_id: 1}), a forward or
// backward collection scan ({$natural: 1} / {$natural: -1}), or a secondary
// index by name or key
// pattern (FindParams::hint_index; the planner resolves it and answers
// BadValue when no visible index matches).
enum class FindHint { kNone, kIdIndex, kNaturalForward, kIndex, kNaturalBackward };

// What an explain explains (ExplainFind serves all three).
enum class ExplainedCommand { kFind, kCount, kDistinct };

struct FindParams {
  std::string db;
  std::string coll;
  bson::BsonDoc filter;
  CollationOption collation;
  bson::BsonDoc projection;  // empty = whole documents
  bson::BsonDoc sort;        // empty = natural (shard, record key) order
  int64_t skip = 0;
  int64_t limit = 0;         // 0 = no limit
  std::optional<int64_t> batch_size;  // first batch size; default 101
  bool single_batch = false;  // close the cursor after the first batch
  bool allow_disk_use = false;
  bool no_cursor_timeout = false;
  FindHint hint = FindHint::kNone;
  bson::BsonDoc hint_index;  // kIndex: {"": "<name>"} or the key pattern
  bson::BsonDoc min;  // index bounds on the hinted index; empty = none
  bson::BsonDoc max;
  bool return_key = false;
  bool show_record_id = false;
  bool tailable = false;  // capped collections only (else BadValue, as MongoDB)
  bool await_data = false;  // with tailable: getMores wait for inserts
  bson::BsonDoc let;      // query variables ($expr, computed projection fields)
  int64_t max_time_ms = 0;  // maxTimeMS; 0 = no limit
  // Explain only.
  ExplainedCommand explained = ExplainedCommand::kFind;
  std::string distinct_key;  // kDistinct: the key
};

struct GetMoreParams {
  std::string db;
  std::string coll;
  int64_t cursor_id = 0;
  std::optional<int64_t> batch_size;
  // maxTimeMS given on the getMore itself: only awaitData cursors take one
  // (BadValue otherwise, as MongoDB); the find's limit carries over instead.
  std::optional<int64_t> max_time_ms;
};

struct CursorBatch {
  int64_t cursor_id = 0;  // 0 when exhausted
  std::string ns;
  std::vector<bson::BsonDoc> docs;
  // Change streams: the cursor's postBatchResumeToken ({_data: "<hex>"});
  // empty for other cursors.
  bson::BsonDoc post_batch_resume_token;
};

struct CountParams {
  std::string db;
  std::string coll;
  bson::BsonDoc filter;
  CollationOption collation;
  int64_t skip = 0;
  int64_t limit = 0;  // 0 = no limit
  int64_t max_time_ms = 0;  // maxTimeMS; 0 = no limit
  // As FindParams. A hint also turns off the metadata answer to an
  // unfiltered count (MongoDB counts the hinted index: a sparse or partial
  // index counts only the documents it holds).
  FindHint hint = FindHint::kNone;
  bson::BsonDoc hint_index;
};

struct FindAndModifyParams {
  std::string db;
  std::string coll;
  bson::BsonDoc query;
  CollationOption collation;
  bson::BsonDoc sort;                   // which document, when several match
  std::optional<bson::BsonDoc> update;  // operator document or replacement; stages when pipeline
  bool update_is_pipeline = false;
  bool remove = false;
  bool return_new = false;              // new: true
  bool upsert = false;
  bson::BsonDoc fields;                 // projection of the returned document
  std::optional<bson::BsonDoc> array_filters;
  bson::BsonDoc let;                    // variables of $expr and pipeline updates
  bool bypass_document_validation = false;
};

struct FindAndModifyResult {
  std::optional<bson::BsonDoc> value;  // the document returned (null when none)
  int64_t n = 0;                       // lastErrorObject.n
  bool updated_existing = false;       // lastErrorObject.updatedExisting
  std::optional<bson::BsonDoc> upserted_id;  // {"": _id}
};

struct DistinctParams {
  std::string db;
  std::string coll;
  std::string key;        // dotted path
  CollationOption collation;

  bson::BsonDoc filter;
  int64_t max_time_ms = 0;  // maxTimeMS; 0 = no limit (query::FindSpec::deadline)
  FindHint hint = FindHint::kNone;  // as FindParams
  bson::BsonDoc hint_index;
};

struct AggregateParams {
  std::string db;
  std::string coll;           // empty for {aggregate: 1}
  bson::BsonDoc pipeline;     // the stages array, as a document
  CollationOption collation;

  std::optional<int64_t> batch_size;  // cursor.batchSize; default 101
  bool bypass_document_validation = false;  // for the writes of $out / $merge
  bool allow_disk_use = false;
  bson::BsonDoc let;          // user variables
  // The hint (as FindParams): applies to the scan of the collection the
  // pipeline reads (the one under a view); an unknown index is BadValue.
  FindHint hint = FindHint::kNone;
  bson::BsonDoc hint_index;
  // maxTimeMS; 0 = no limit. Covers the first batch and every getMore
  // (MaxTimeMSExpired, 50), the sub-scans and writes of the pipeline included.
  int64_t max_time_ms = 0;
  // Documents that replace the collection as the pipeline's input (the
  // output of a leading $collStats, which the engine computes itself).
  std::optional<std::vector<bson::BsonDoc>> input;
};

enum class ExplainVerbosity { kQueryPlanner, kExecutionStats, kAllPlansExecution };

}  // namespace tigerdoc::engine
