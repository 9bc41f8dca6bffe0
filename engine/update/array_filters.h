#pragma once
// ArrayFilters: the parsed `arrayFilters` option of an update, which gives
// each identifier of '$[<identifier>]' its filter. Each filter is a query
// whose top-level field names all start with the identifier:
//
//   arrayFilters: [{"i.grade": {$gte: 85}}, {j: {$lt: 3}}]
//     i -> filter {"i.grade": {$gte: 85}}    j -> filter {j: {$lt: 3}}
//
// An array element satisfies identifier x's filter when the filter matches
// the document {x: <element>} (MongoDB matches the element as if wrapped
// under the identifier), so {"i.grade": ...} looks inside document elements
// and {j: ...} tests the element itself, with the usual array semantics.
//
// Errors (MongoDB's ParsedUpdate::parseArrayFilters and
// ExpressionWithPlaceholder): a filter that is not a document is
// TypeMismatch 14; filter parse errors, several top-level names ("Expected
// a single top-level field name, found 'i' and 'j'", FailedToParse 9) and
// identifiers that are not a lowercase letter followed by letters and
// digits (BadValue 2) are reported as "Error parsing array filter :: caused
// by :: <reason>"; no top-level name at all (e.g. {}) is FailedToParse 9
// "Cannot use an expression without a top-level field name in
// arrayFilters"; an identifier given twice is FailedToParse 9 "Found
// multiple array filters with the same top-level field name i".
//
// Ownership: owns its parsed filters. Thread-safety: immutable after
// Parse(); Matches() may run concurrently.

#include <bson/bson.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/base/status.h"
#include "engine/query/matcher/matcher.h"
#include "engine/update/mutable_document.h"

namespace tigerdoc::update {

class ArrayFilters {
 public:
  ArrayFilters() = default;

  // Parses `filters`, the option's BSON array (a bson_t whose fields are
  // "0", "1", ...). nullptr means no arrayFilters.
  static StatusWith<ArrayFilters> Parse(const bson_t* filters);

  bool empty() const { return filters_.empty(); }
  bool Contains(const std::string& identifier) const { return filters_.count(identifier) != 0; }
  // The identifiers, in byte order.
  std::vector<std::string> identifiers() const;

  // Whether `element` satisfies the filter of `identifier`.
  // REQUIRES: Contains(identifier).
  bool Matches(const std::string& identifier, const MutableValue& element) const;

 private:
  std::map<std::string, std::shared_ptr<const query::Matcher>> filters_;
};

// MongoDB's test for an array filter identifier component: "$[...]" (the
// empty identifier "$[]" included).
bool IsArrayFilterComponent(const std::string& component);

}  // namespace tigerdoc::update
