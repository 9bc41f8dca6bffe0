#pragma once
// Window functions of $setWindowFields: each output field is one
// WindowFunction, computed over one sorted partition at a time.
//
//   {$sum: "$x", window: {documents: [-1, 1]}}   accumulator over a window
//   {$rank: {}}  {$denseRank: {}}  {$documentNumber: {}}
//   {$shift: {output, by, default}}
//   {$derivative: {input, unit}, window}  {$integral: {input, unit}, window}
//   {$expMovingAvg: {input, N | alpha}}
//   {$locf: expr}  {$linearFill: expr}
//
// Accumulator functions: $sum $avg $min $max $count $first $last $push
// $addToSet $stdDevPop $stdDevSamp (the $group accumulators, so type rules
// are shared). Parse errors are MongoDB's FailedToParse (9) unless noted.
//
// Thread-safety: immutable after parsing; Compute takes the caller's
// Variables.

#include <bson/bson.h>

#include <memory>
#include <string>
#include <vector>

#include "engine/agg/expressions/expression.h"
#include "engine/agg/document_buffer.h"
#include "engine/agg/window/window_bounds.h"

namespace tigerdoc::agg {

// One partition, in sortBy order. The documents may be on disk (see
// DocumentBuffer): functions read them by position, in increasing order as
// far as they can, and keep per row only what their window needs.
struct Partition {
  const DocumentBuffer* docs = nullptr;
  std::vector<Value> sort_values;  // the first sortBy field of each (missing -> null)
  std::vector<std::string> sort_keys;  // the full sortBy key of each (ties)
  bool descending = false;         // the first sortBy field sorts descending

  size_t size() const { return sort_values.size(); }
  StatusWith<Value> Doc(size_t i) const { return docs->Get(i); }
};

class WindowFunction {
 public:
  virtual ~WindowFunction() = default;
  // The output value of every row (missing: the field is not set).
  virtual StatusWith<std::vector<Value>> Compute(const Partition& p, Variables* vars) const = 0;
  // Range windows check every sortBy value of a partition first.
  virtual const WindowBounds* range_bounds() const { return nullptr; }
};

// `spec` is the object of one output field ({$sum: "$x", window: {...}}).
StatusWith<std::unique_ptr<WindowFunction>> ParseWindowFunction(const bson_t* spec,
                                                                const SortByShape& sort_by,
                                                                ParseContext* ctx);

}  // namespace tigerdoc::agg
