#pragma once
// $group's machinery, shared with $bucket and $sortByCount: groups the input
// by a key expression and runs the accumulators of each group.
//
// Memory: the stage tracks an estimate of its state; past
// ExpressionContext::max_memory_bytes it fails with 292
// QueryExceededMemoryLimitNoDiskUseAllowed unless allowDiskUse, in which
// case the rest of its input is sorted by group key through a spilling
// Sorter (group.cc).
//
// Thread-safety: as Stage.

#include <memory>
#include <vector>

#include "engine/agg/accumulators/accumulator.h"
#include "engine/agg/stage.h"

namespace tigerdoc::agg {

struct GroupSpec {
  ExpressionPtr id;
  std::vector<AccumulationStatement> fields;
  // Maps the evaluated _id before grouping ($bucket's boundary lookup);
  // may be null.
  std::function<StatusWith<Value>(const Value& key)> key_transform;
};

// Builds the runtime stage. The stage shares `spec`.
StagePtr MakeGroupStage(StagePtr input, const ExpressionContext* ctx, std::shared_ptr<const GroupSpec> spec);

// Whether `it` is a group key as $bucket, $bucketAuto and $sortByCount take
// one: a $-prefixed path or an expression object (each stage has its own
// error code for anything else).
bool IsPathOrExpressionObject(const bson_iter_t* it);

// Parses the accumulator fields of a $group/$bucket `output` object,
// skipping `skip_field` ("_id" for $group).
Status ParseAccumulatorFields(const bson_t* spec, ParseContext* ctx, const char* skip_field,
                              std::vector<AccumulationStatement>* out);

}  // namespace tigerdoc::agg
