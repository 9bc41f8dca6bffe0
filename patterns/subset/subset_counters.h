#pragma once
// CounterState: what a parent's counters are computed from, per parent key,
// changed by +1 / -1 child at a time so that deletes and updates stay exact
// (an average is kept as sum and count, never as the average).
//
// Per counter:
//   n   children counted: every child for {$sum: <constant>}, children with a
//       numeric field for $sum/$avg of a field
//   i   sum of the integer values (int32, int64), exact
//   d   sum of the double and decimal values (as doubles); reset to 0 when
//       nd reaches 0, so it never carries rounding left by removed values
//   nd  how many double/decimal values are in d
//   v   $countByValue: {<value as text>: count}
// Encoded as BSON {c: [{n, i, d, nd, v}, ...]} (in counter order), the `s`
// of a parent key's row in the child's "<ident>-subset" table (subset_sync.h).
//
// Rendering (the values written into the parent):
//   {$sum: c}            c * n            int32 when it fits, else int64; double for a double c
//   {$sum: "$f"}         i + d            int32/int64 when nd == 0, else double
//   {$avg: "$f"}         (i + d) / n      double; null when n == 0
//   {$countByValue: "$f"} {"1": n1, "2": n2, ...}  int32 counts, keys in numeric order
//                        when numeric, else text order; missing and null values
//                        are not counted, other values by their shell text
//
// Thread-safety: plain values.

#include <map>
#include <string>
#include <vector>

#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"
#include "patterns/subset/subset_config.h"

namespace tigerdoc::patterns::subset {

struct CounterValue {
  int64_t n = 0;
  int64_t i = 0;
  double d = 0;
  int64_t nd = 0;
  std::map<std::string, int64_t> values;
  bool operator==(const CounterValue& other) const = default;
};

class CounterState {
 public:
  explicit CounterState(size_t counters = 0) : counters_(counters) {}
  static StatusWith<CounterState> Decode(std::string_view bytes, size_t counters);
  std::string Encode() const;

  // Adds (`sign` 1) or removes (-1) one child.
  void Apply(const SubsetConfig& config, const bson_t* child, int sign);
  // {<counter path>: <value>, ...} for a $set on the parent.
  void Render(const SubsetConfig& config, bson_t* set) const;
  // No child is counted (the row can go).
  bool empty() const;
  const std::vector<CounterValue>& counters() const { return counters_; }
  bool operator==(const CounterState& other) const = default;

 private:
  std::vector<CounterValue> counters_;
};

// $countByValue's key for a value (its shell text; integral doubles as
// integers, so 4 and 4.0 count together).
std::string ValueKey(const bson_iter_t* it);

}  // namespace tigerdoc::patterns::subset
