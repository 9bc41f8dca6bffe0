#pragma once
// Interval and OrderedIntervalList: the index bounds of one key field, as
// MongoDB's query planner models them (src/mongo/db/query/interval.h,
// index_bounds.h).
//
// An Interval is a range of BSON values with inclusive or exclusive ends,
// e.g. [1, 1] (a point), (5, inf.0], ["", {}), [MinKey, MaxKey]. Ends are
// ordered by their keystring encodings (engine/keystring), which is exactly
// the order of the keys in an index, across types. An OrderedIntervalList
// (OIL) is a list of disjoint, non-adjacent intervals in ascending order:
// the set of values one key field may take.
//
// Intervals are always stored ascending; a descending index field reverses
// the list (and each interval) only when it is printed or turned into key
// ranges (index_bounds.h).
//
// Under a collation (an index with a `collation`, planned for a query of
// the same collation) string ends are ordered by their collation keys: the
// intervals made while a ScopedBoundsCollator is alive on the thread encode
// their ends with its collator (the planner opens one around planning, so
// every interval built, intersected or complemented there agrees).
//
// Thread-safety: values; concurrent const access is safe.

#include <bson/bson.h>

#include <string>
#include <vector>

#include "engine/bson/collator.h"
#include "engine/query/owned_value.h"

namespace tigerdoc::query::planner {

// The collator interval ends are encoded with on this thread while it
// lives (nullptr: binary); scopes nest.
class ScopedBoundsCollator {
 public:
  explicit ScopedBoundsCollator(const bson::Collator* collator);
  ~ScopedBoundsCollator();
  ScopedBoundsCollator(const ScopedBoundsCollator&) = delete;
  ScopedBoundsCollator& operator=(const ScopedBoundsCollator&) = delete;
  static const bson::Collator* Current();

 private:
  const bson::Collator* previous_;
};

struct Interval {
  OwnedValue start;
  bool start_inclusive = true;
  OwnedValue end;
  bool end_inclusive = true;
  // Ascending keystring encodings of start and end (what orders them).
  std::string start_key;
  std::string end_key;

  static Interval Make(const bson_value_t* start, bool start_inclusive, const bson_value_t* end,
                       bool end_inclusive);
  static Interval Point(const bson_value_t* value);
  // [MinKey, MaxKey].
  static Interval AllValues();

  bool IsPoint() const { return start_inclusive && end_inclusive && start_key == end_key; }
  // Holds no value: start after end, or one value with an exclusive end.
  bool IsEmpty() const;
  bool IsAllValues() const;
  // True when the value whose ascending keystring is `key` lies inside.
  bool Contains(const std::string& key) const;

  // MongoDB's Interval::toString: "[1, 1]", "(5, inf.0]", "[MaxKey, 3)" for
  // a reversed (descending) interval.
  std::string ToString(bool reversed) const;
};

class OrderedIntervalList {
 public:
  OrderedIntervalList() = default;
  // Sorts and merges overlapping or touching intervals; drops empty ones.
  explicit OrderedIntervalList(std::vector<Interval> intervals);
  static OrderedIntervalList AllValues();

  const std::vector<Interval>& intervals() const { return intervals_; }
  bool empty() const { return intervals_.empty(); }
  size_t size() const { return intervals_.size(); }
  bool IsAllValues() const { return intervals_.size() == 1 && intervals_[0].IsAllValues(); }
  // Every interval is a point (so a following key field can be compounded).
  bool AllPoints() const;
  bool ContainsKey(const std::string& key) const;
  // Every value of this list is also in `other`.
  bool IsSubsetOf(const OrderedIntervalList& other) const;

  OrderedIntervalList Intersect(const OrderedIntervalList& other) const;
  OrderedIntervalList Union(const OrderedIntervalList& other) const;
  // Every value in [MinKey, MaxKey] not in this list.
  OrderedIntervalList Complement() const;

  // MongoDB's explain form: ["[1, 1]", "(5, inf.0]"], reversed for a
  // descending field.
  std::vector<std::string> ToStrings(bool reversed) const;

 private:
  std::vector<Interval> intervals_;
};

// Helpers for bound values.
OwnedValue MinKeyValue();
OwnedValue MaxKeyValue();
OwnedValue DoubleValue(double d);
OwnedValue StringValue(const std::string& s);
OwnedValue NullValue();
OwnedValue UndefinedValue();

}  // namespace tigerdoc::query::planner
