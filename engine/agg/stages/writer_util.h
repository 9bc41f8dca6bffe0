#pragma once
// Internal to stages/: what $out and $merge share -- their target
// namespace ({db, coll} or a collection name), its validation with
// MongoDB's codes, and batching of the documents they write.
//
// Thread-safety: as Stage.

#include <bson/bson.h>

#include <string>
#include <string_view>
#include <vector>

#include "engine/agg/stages/stage_util.h"

namespace tigerdoc::agg {

struct TargetNamespace {
  std::string db;
  std::string coll;
  std::string ns() const { return db + "." + coll; }
};

// True for the stages that write ($out, $merge): they must be last and are
// refused inside $facet, $lookup and $unionWith sub-pipelines.
bool IsWriterStage(std::string_view name);

// {db: <string>, coll: <string>} parsed as MongoDB's IDL does for `stage`
// ("$out") and `field` ("$out" or "$merge.into"): 40415 unknown field, 40414
// missing field, 14 wrong type. `require_db`: $out's object form needs db;
// $merge's `into` defaults it to `default_db`.
StatusWith<TargetNamespace> ParseDbColl(const bson_t* obj, std::string_view field,
                                        const std::string& default_db, bool require_db);

// InvalidNamespace (73) "Invalid <stage> target namespace, <ns>" for an empty
// or malformed name.
Status ValidateTargetName(const TargetNamespace& target, std::string_view stage,
                          std::string_view separator);

// Batches writes: Add() buffers, Flush() hands the batch to `resolver`.
// kOrdered ($out): a batch stops at its first failure. kUnordered ($merge,
// written as MongoDB writes a $merge batch): the resolver's insert is
// ordered, so after a failure the batch is tried again document by
// document; those already written fail on their _id (every document has one
// by then) and change nothing, the others are written. Either way the first
// failure is returned.
class InsertBatcher {
 public:
  enum class Mode { kOrdered, kUnordered };
  InsertBatcher(CollectionResolver* resolver, TargetNamespace target, Mode mode = Mode::kOrdered)
      : resolver_(resolver), target_(std::move(target)), mode_(mode) {}
  Status Add(bson::BsonDoc doc);
  Status Flush();

 private:
  // About one 16 MiB message worth, as MongoDB batches its writes.
  static constexpr size_t kMaxBatchBytes = 16 * 1024 * 1024;
  static constexpr size_t kMaxBatchDocs = 1000;
  CollectionResolver* resolver_;
  TargetNamespace target_;
  Mode mode_;
  std::vector<bson::BsonDoc> batch_;
  size_t bytes_ = 0;
};

}  // namespace tigerdoc::agg
