#pragma once
// The `window` of a $setWindowFields output field:
//
//   {documents: [lower, upper]}          positions relative to the current
//                                        document of the partition
//   {range: [lower, upper], unit?: u}    values relative to the current
//                                        document's sortBy value (numbers, or
//                                        dates with a time unit)
//   lower/upper := "unbounded" | "current" | <number>
//
// Default (no window, or {}): the whole partition. Errors are MongoDB's:
// FailedToParse (9) for the shape, 5339900 lower > upper, 5339901 a
// documents window without sortBy, 5339902 a range window without exactly
// one sortBy field, 8947401 a range window over a descending sortBy.
//
// Thread-safety: immutable after Parse.

#include <bson/bson.h>

#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

#include "engine/agg/expression_context.h"
#include "engine/agg/time_unit.h"
#include "engine/agg/value.h"

namespace tigerdoc::agg {

struct WindowBound {
  enum Kind { kUnbounded, kCurrent, kValue } kind = kUnbounded;
  Value value;  // kValue: an int for documents, a number for range
};

// What the parser needs to know about the stage's sortBy.
struct SortByShape {
  size_t fields = 0;       // number of sortBy fields (0: no sortBy)
  bool descending = false;  // the first field sorts descending
};

struct WindowBounds {
  bool range = false;  // else documents
  WindowBound lower, upper;
  std::optional<TimeUnit> unit;

  bool unbounded_both() const {
    return lower.kind == WindowBound::kUnbounded && upper.kind == WindowBound::kUnbounded;
  }

  // `it` is on the value of `window`.
  static StatusWith<WindowBounds> Parse(const bson_iter_t* it, const SortByShape& sort_by);

  // The window [begin, end) of row `i` of a partition of `n` rows whose
  // first sortBy values are `sort_values` (range windows only; rows are in
  // sortBy order, `descending` when the sortBy field is). For range windows
  // every value must have passed CheckRangeValue. Errors for a current
  // value the bounds cannot be added to.
  // 5429414 / 5429513 when a sortBy value is not a number (a date with
  // `unit`), as range windows require; 5429413 a date without `unit`.
  Status CheckRangeValue(const Value& v) const;
  Status Resolve(size_t i, size_t n, const std::vector<Value>& sort_values, bool descending,
                 size_t* begin, size_t* end) const;
};

}  // namespace tigerdoc::agg
