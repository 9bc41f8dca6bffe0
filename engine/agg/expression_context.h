#pragma once
// The engine-facing interfaces of the aggregation library and the context
// every pipeline is parsed and run with.
//
//   DocumentSource      where a pipeline's documents come from (the engine's
//                       collection scan, or an in-memory list in tests)
//   CollectionResolver  how $lookup / $graphLookup / $unionWith open other
//                       collections, and how $out / $merge write (owned by
//                       the engine; may be null, then those stages fail
//                       with NotImplemented at parse time)
//   ExpressionContext   per-command settings: $$NOW, the database name,
//                       allowDiskUse, the memory limit of blocking stages,
//                       and user variables (aggregate's `let`, $lookup's
//                       `let`) visible to every expression as $$name.
//
// Ownership: a Pipeline keeps its own copy of the ExpressionContext; the
// resolver it points at must outlive every pipeline parsed with it.
// Thread-safety: DocumentSource and the stages built on it are used by one
// thread at a time; a CollectionResolver may be called from that thread.

#include <bson/bson.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/agg/value.h"
#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"
#include "engine/bson/collator.h"
#include "engine/query/sorter.h"

namespace tigerdoc::agg {

// A pull-based producer of documents, LevelDB-iterator style:
//   * Next() returns the next document, std::nullopt once exhausted (and on
//     every later call), or an error (after which the source is not called
//     again by this library).
//   * Documents are returned by value; the source keeps no reference.
class DocumentSource {
 public:
  virtual ~DocumentSource() = default;
  virtual StatusWith<std::optional<bson::BsonDoc>> Next() = 0;
  // What a scan of a collection examined so far (explain of the stages that
  // read other collections); 0 for sources that scan nothing.
  virtual int64_t docs_examined() const { return 0; }
  virtual int64_t keys_examined() const { return 0; }
};

// A DocumentSource over documents held in memory (tests, $documents, $facet).
class VectorDocumentSource : public DocumentSource {
 public:
  explicit VectorDocumentSource(std::vector<bson::BsonDoc> docs) : docs_(std::move(docs)) {}
  StatusWith<std::optional<bson::BsonDoc>> Next() override {
    if (pos_ >= docs_.size()) return std::optional<bson::BsonDoc>();
    return std::optional<bson::BsonDoc>(docs_[pos_++].Copy());
  }

 private:
  std::vector<bson::BsonDoc> docs_;
  size_t pos_ = 0;
};

// What $out and $merge need to know about the namespace they write to.
struct WriteTarget {
  bool exists = false;   // a collection by that name exists
  bool is_view = false;  // the name is a view (writes refused)
  // The field sets of the collection's unique indexes (each in index key
  // order); {"_id"} is always among them for an existing collection.
  std::vector<std::vector<std::string>> unique_keys;
};

class CollectionResolver {
 public:
  virtual ~CollectionResolver() = default;
  // Opens a scan of `db`.`coll` returning the documents matching `filter`
  // (a query filter; an empty document matches everything). A collection
  // that does not exist is empty, as in MongoDB's $lookup.
  virtual StatusWith<std::unique_ptr<DocumentSource>> Open(std::string_view db,
                                                           std::string_view coll,
                                                           const bson_t* filter) = 0;

  // --- Writes of $out and $merge. They go through the engine's normal
  // write path (document rules, size limits, indexes); the default
  // implementations refuse (a resolver that only reads).
  virtual StatusWith<WriteTarget> DescribeTarget(std::string_view db, std::string_view coll);
  // Inserts `docs` (each already has an _id) into `db`.`coll`, creating it
  // when missing; stops at the first failure and returns it (e.g. 11000).
  virtual Status Insert(std::string_view db, std::string_view coll, std::vector<bson::BsonDoc> docs);
  // Replaces the document whose _id is `id` (a {"": value} document) with
  // `replacement` (its _id, when present, must equal `id`: else 66
  // ImmutableField). Sets *matched to whether the document was there.
  virtual Status Replace(std::string_view db, std::string_view coll, const bson_t* id,
                         const bson_t* replacement, bool* matched);
  // Creates an empty temporary collection in `db` shaped like `like` (same
  // options, shard key, shard count and indexes when `like` exists), to be
  // renamed over `like` by ReplaceWithTemp or dropped by DropTemp; returns
  // its name. A crash before either leaves nothing behind.
  virtual StatusWith<std::string> CreateTemp(std::string_view db, std::string_view like);
  // Atomically renames `db`.`temp` over `target_db`.`target`: readers see
  // the old target or the new one, never a partial one.
  virtual Status ReplaceWithTemp(std::string_view db, std::string_view temp,
                                 std::string_view target_db, std::string_view target);
  virtual Status DropTemp(std::string_view db, std::string_view temp);
};

struct ExpressionContext {
  // $$NOW, milliseconds since the epoch; fixed for the whole command.
  int64_t now_millis = 0;
  // Database of the aggregate command (for $lookup's `from`).
  std::string db;
  CollectionResolver* resolver = nullptr;
  bool allow_disk_use = false;
  // Memory limit of blocking stages ($group, $sort, $bucketAuto, ...):
  // MongoDB's internalQueryMaxBlockingSortMemoryUsageBytes /
  // internalDocumentSourceGroupMaxMemoryBytes default, 100 MiB.
  size_t max_memory_bytes = 100 * 1024 * 1024;
  // Where blocking stages spill with allowDiskUse (<dbpath>/_tmp); empty
  // means the system temporary directory.
  std::string temp_dir;
  // User variables ($$name): aggregate's `let`, $lookup's `let` values.
  std::vector<std::pair<std::string, Value>> variables;
  // The command's collation (its `collation`, else the collection's
  // default): $match, $sort, $group keys and the scans of $lookup /
  // $graphLookup compare strings with it. nullptr = simple (binary).
  const bson::Collator* collator = nullptr;
  // Seed for $sample and $rand; 0 means "seed from the clock".
  uint64_t random_seed = 0;
  // The collection the pipeline's input is a scan of (empty when the input
  // is not a collection: $documents, {aggregate: 1}, a $collStats result).
  // $merge compares its target with it.
  std::string source_db;
  std::string source_coll;
  // Set by Pipeline::Parse: a stage of this pipeline reads collections of
  // its own ($lookup, $graphLookup, $unionWith, or a $facet that may).
  bool reads_other_collections = false;
  // Set by Pipeline::Parse (document_metadata.h): the pipeline starts with
  // a $match holding $text, so {$meta: "textScore"} is available (else it
  // is refused, 40218); the pipeline reads textScore / sortKey metadata,
  // so its documents carry it (nothing is carried when both are false).
  bool text_score_available = false;
  bool carries_text_score = false;
  bool carries_sort_key = false;
  bool carries_metadata() const { return carries_text_score || carries_sort_key; }

  // A Sorter's options for a blocking stage of this command: its memory
  // limit, allowDiskUse and spill directory.
  query::SorterOptions BlockingSorterOptions() const {
    query::SorterOptions options;
    options.max_memory_bytes = static_cast<int64_t>(max_memory_bytes);
    options.allow_disk_use = allow_disk_use;
    options.temp_dir = temp_dir;
    return options;
  }
};

// Builds a Status carrying MongoDB's numeric code `code`.
inline Status Error(int code, std::string message) {
  return Status(static_cast<ErrorCode>(code), std::move(message));
}

}  // namespace tigerdoc::agg
