#pragma once
// FieldPath and PathTraversal: dotted paths ("a.b.0.c") and MongoDB's rules
// for finding the values a path names inside a document, arrays included.
//
// A FieldPath is the list of components of a dotted path. It does not
// validate (callers that need MongoDB's path errors check components
// themselves, each with the message of its own command).
//
// VisitPath() yields the values a query predicate on `path` is tested
// against, exactly as MongoDB's matcher does (src/mongo/db/matcher/path.cpp):
//
//   document {a: [{b: 1}, {b: [2, 3]}, 4, {c: 5}]}, path "a.b"
//
//        a ──► array ──► {b: 1}       ── yields 1
//                   ├──► {b: [2, 3]}  ── yields 2, 3, then [2, 3] itself
//                   ├──► 4            ── scalar with path left: nothing
//                   └──► {c: 5}       ── yields "missing"
//
// Rules:
//  * Objects are descended into; a missing field or a scalar with path left
//    yields one "missing" (nullptr), which is what lets {"a.b": null} match
//    {a: 5} and {} alike.
//  * An array met with path left is traversed one level: each element that
//    is a document continues with the rest of the path; elements that are
//    arrays are not expanded again (so "a.b" finds nothing in {a: [[{b: 1}]]}).
//    When the next component is all digits it is also tried as an index:
//    "a.0.b" visits a[0].b as well as the field "0" of each document in a.
//  * An array at the end of the path yields each element (nested arrays as
//    whole values, never expanded twice) and then the array itself, unless
//    the caller asked for the array alone (LeafArrays::kNoTraversal, used by
//    $size and $elemMatch). Hence {a: 1} and {a: [1, 2]} both match
//    {a: [1, 2]}, and {a: [1, 2]} matches {a: [[1, 2]]}, but {a: 1} does not
//    match {a: [[1, 2]]}.
//  * An empty array with path left yields nothing.
//
// Thread-safety: FieldPath is a value; VisitPath is reentrant.

#include <bson/bson.h>

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tigerdoc::bson {

class FieldPath {
 public:
  FieldPath() = default;
  // Splits at every '.'; "a..b" has an empty middle component.
  explicit FieldPath(std::string_view dotted);

  size_t size() const { return parts_.size(); }
  bool empty() const { return parts_.empty(); }
  const std::string& part(size_t i) const { return parts_[i]; }
  const std::vector<std::string>& parts() const { return parts_; }
  const std::string& dotted() const { return dotted_; }
  // Components [from, size()) joined with '.'.
  std::string Suffix(size_t from) const;
  // Components [0, to) joined with '.'.
  std::string Prefix(size_t to) const;
  // True when this path equals `other` or is a proper prefix of it
  // ("a" is a prefix of "a.b" but not of "ab").
  bool IsPrefixOf(const FieldPath& other) const;

 private:
  std::string dotted_;
  std::vector<std::string> parts_;
};

// The array index a path component names: all ASCII digits (MongoDB's
// isAllDigits), value fitting in size_t. nullopt otherwise.
std::optional<size_t> ParseArrayIndex(std::string_view component);

enum class LeafArrays {
  kTraverse,     // yield each element, then the array itself
  kNoTraversal,  // yield the array itself only
};

// Called once per value found; `value` is nullptr for "missing".
// Return false to stop the traversal early.
using PathVisitor = std::function<bool(const bson_iter_t* value)>;

// Visits the values at `path` in `doc` (see the rules above). Returns false
// when a visitor call returned false, true otherwise.
bool VisitPath(const bson_t* doc, const FieldPath& path, LeafArrays leaf_arrays,
               const PathVisitor& visit);

// Same, starting from component `start` of `path` inside `doc` (a document
// reached through the first `start` components).
bool VisitPathFrom(const bson_t* doc, const FieldPath& path, size_t start,
                   LeafArrays leaf_arrays, const PathVisitor& visit);

// Opens the document or array `it` points at as a bson_t view over the
// same bytes. REQUIRES: `it` is on a document or array. The view is valid
// while the underlying buffer is.
bool OpenSubdocument(const bson_iter_t* it, bson_t* view);

}  // namespace tigerdoc::bson
