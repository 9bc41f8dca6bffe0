#pragma once
// SubsetConfig: the parsed `subset` option of a child collection
// (patterns/README.md):
//   { parent: "products", localField: "productId", foreignField: "_id",
//     as: "reviewSummary.topReviews", sort: {helpful: -1}, limit: 3,
//     project: {customerName: 1, ...},                       // optional
//     counters: {"reviewSummary.totalCount": {$sum: 1},      // optional
//                "reviewSummary.averageRating": {$avg: "$rating"},
//                "reviewSummary.ratingDistribution": {$countByValue: "$rating"}} }
// The parent (same database) keeps, at `as`, the `limit` best children by
// `sort` (ties by _id ascending), projected by `project`, and at each
// counter path an aggregate over all of its children.
//
// Thread-safety: immutable after Parse.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"
#include "engine/query/projection.h"

namespace tigerdoc::patterns::subset {

inline constexpr char kPatternName[] = "subset";
inline constexpr char kOption[] = "subset";
inline constexpr int kMaxLimit = 1000;

struct Counter {
  enum class Kind { kSumConstant, kSumField, kAvg, kCountByValue };
  std::string path;    // in the parent, e.g. "reviewSummary.totalCount"
  Kind kind = Kind::kSumConstant;
  std::string field;   // the child's field (without '$'); empty for kSumConstant
  bool constant_is_double = false;
  int64_t int_constant = 1;     // {$sum: 2}
  double double_constant = 0;   // {$sum: 0.5}
  bson::BsonDoc spec;  // as given, for the canonical form
};

class SubsetConfig {
 public:
  // Parses the option value `it` of `command` ("create", "collMod"); errors
  // name "BSON field '<command>.subset.<field>'": 14 TypeMismatch, 9
  // FailedToParse (malformed path or accumulator), 2 BadValue (out of range,
  // overlapping paths, a parent that is the collection itself), 40414 a
  // missing required field, 40415 an unknown field. `child` is the
  // collection the option is on.
  static StatusWith<SubsetConfig> Parse(std::string_view command, const bson_iter_t* it,
                                        std::string_view child);
  // From the canonical config stored in the catalog; `command` names the
  // command in errors (a check that needs the collection's name is first
  // made here, at attach).
  static StatusWith<SubsetConfig> FromCanonical(const bson_t* config, std::string_view child,
                                                std::string_view command = "catalog");
  bson::BsonDoc ToCanonical() const;

  const std::string& parent() const { return parent_; }
  const std::string& local_field() const { return local_field_; }
  const std::string& foreign_field() const { return foreign_field_; }
  const std::string& as() const { return as_; }
  // The sort as given ({helpful: -1}); SortWithId() adds {_id: 1} for ties.
  const bson::BsonDoc& sort() const { return sort_; }
  bson::BsonDoc SortWithId() const;
  int limit() const { return limit_; }
  const bson::BsonDoc& project() const { return project_; }  // empty: the whole child
  // A child as the parent embeds it (`project` applied, or a copy).
  StatusWith<bson::BsonDoc> Project(const bson_t* child) const;
  const std::vector<Counter>& counters() const { return counters_; }
  // The parent paths the pattern owns: `as`, then each counter's path.
  std::vector<std::string> OwnedPaths() const;
  // Child fields whose change can change the parent (localField, sort
  // fields, counter fields; every field when `project` is empty).
  bool ChildChangeMatters(const bson_t* before, const bson_t* after) const;
  // The index the top-N reads: {localField: 1, <sort fields>, _id: 1}.
  bson::BsonDoc IndexKey() const;

  // A child's place in the order: its values of SortWithId()'s fields as an
  // array document {"0": v0, ..., "<k>": _id} (null for a missing field, as
  // a find's sort treats it).
  bson::BsonDoc SortKeyOf(const bson_t* child) const;
  // <0 when the child with key `a` comes first (is better), >0 when `b`
  // does; 0 only for the same _id.
  int CompareSortKeys(const bson_t* a, const bson_t* b) const;
  // The _id inside a sort key.
  const bson_value_t* IdOfSortKey(const bson_t* key, bson_iter_t* it) const;

 private:
  std::string parent_;
  std::string local_field_;
  std::string foreign_field_ = "_id";
  std::string as_;
  bson::BsonDoc sort_;
  std::vector<std::pair<std::string, int>> order_;  // SortWithId(): field, direction
  size_t id_position_ = 0;                          // of _id in order_
  int limit_ = 10;
  bson::BsonDoc project_;
  std::shared_ptr<const query::Projection> projection_;  // null without `project`
  std::vector<Counter> counters_;
};

// OK when `path` is a dotted field path (no empty part, no part starting
// with '$'); FailedToParse naming `where` otherwise.
Status CheckFieldPath(const std::string& where, const std::string& path);

// The element at dotted `path` of `doc` as the bytes of {"v": value}, empty
// when missing: two documents' values at a path compare equal as these
// bytes exactly when they are the same BSON (type and value).
std::string ValueBytes(const bson_t* doc, const std::string& path);

}  // namespace tigerdoc::patterns::subset
