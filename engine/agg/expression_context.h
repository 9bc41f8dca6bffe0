#pragma once
// The engine-facing interfaces of the aggregation library and the context
// every pipeline is parsed and run with.
//
//   DocumentSource      where a pipeline's documents come from (the engine's
//                       collection scan, or an in-memory list in tests)
//   CollectionResolver  how $lookup / $graphLookup / $unionWith open other
//                       collections (owned by the engine; may be null, then
//                       those stages fail with NotImplemented at parse time)
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

class CollectionResolver {
 public:
  virtual ~CollectionResolver() = default;
  // Opens a scan of `db`.`coll` returning the documents matching `filter`
  // (a query filter; an empty document matches everything). A collection
  // that does not exist is empty, as in MongoDB's $lookup.
  virtual StatusWith<std::unique_ptr<DocumentSource>> Open(std::string_view db,
                                                           std::string_view coll,
                                                           const bson_t* filter) = 0;
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
  // User variables ($$name): aggregate's `let`, $lookup's `let` values.
  std::vector<std::pair<std::string, Value>> variables;
  // Seed for $sample and $rand; 0 means "seed from the clock".
  uint64_t random_seed = 0;
};

// Builds a Status carrying MongoDB's numeric code `code`.
inline Status Error(int code, std::string message) {
  return Status(static_cast<ErrorCode>(code), std::move(message));
}

}  // namespace tigerdoc::agg
