#pragma once
// Projection: a find() projection, with MongoDB's rules (4.4+ semantics,
// src/mongo/db/query/projection_parser.cpp and
// src/mongo/db/exec/projection_executor_utils.cpp):
//  * {a: 1, "b.c": true}  inclusion: only those paths (plus _id) are kept;
//    {a: 0, "b.c": false} exclusion: everything but those paths is kept.
//    Any number or bool works: non-zero/true includes, 0/false excludes.
//  * _id is included unless the spec says {_id: 0}; _id's setting may be
//    mixed with either kind. Mixing the others fails: 31254 "Cannot do
//    exclusion on field x in inclusion projection", 31253 the converse.
//  * Nested documents in the spec are paths: {a: {b: 1}} is {"a.b": 1}.
//  * Paths through arrays apply to every element: inclusion keeps the
//    projected documents (and arrays, recursively) of an array and drops its
//    scalars; exclusion removes the field from each document element.
//  * Fields keep the document's order.
// find()-only operators:
//  * "a.$" / "a.b.$" (positional): an inclusion of the path, after which
//    the FIRST array met on the path is replaced by the one element the
//    query matched ([elem]), at the index the query's MatchDetails record
//    (match_details.h). Needs the query (Parse with a filter; else 51050),
//    one positional per projection (31276), a query predicate on the same
//    top-level field (31277), no $elemMatch (31255/31256). At run time
//    51246 when the query recorded no index but the path has an array,
//    51247 when the index is past the array's end. A path without arrays is
//    left as included.
//  * {a: {$elemMatch: {...}}}: a (top-level only, 31275) becomes [the first
//    element matching], or is absent when none does. In an inclusion the
//    field comes after the included ones; in an exclusion it stays in place.
//  * {a: {$slice: n}} / {a: {$slice: [skip, limit]}}: the array at a (also
//    below arrays of documents on the path) is cut: n > 0 the first n, n < 0
//    the last -n; skip < 0 counts from the end; limit must be > 0 (31259).
//    Alone, or with only {_id: 0}, $slice leaves an exclusion projection
//    (every other field kept); {_id: 1} or any inclusion makes it one.
//  * Path collisions between any two paths: 31249 / 31250.
// Computed fields (4.4+): {a: {$add: ["$x", 1]}}, {b: "$c"}, {c: "text"},
// {d: {$literal: 0}}, the aggregation form of $slice: any value that is not
// a number, a bool, a sub-projection or a find() operator. They are
// compiled by the ExpressionParser given to Parse (the default one when
// none; expression_hook.h), evaluated against the whole input document,
// and make the projection an inclusion: an exclusion before them fails
// with 31252 (operator objects) / 31310 (other values), one after them with
// 31254. In the output they follow the included fields of their document,
// in specification order; a missing value ($$REMOVE, a missing path) writes
// no field; a path through a scalar or a missing field creates the
// documents on the way; through an array, each element gets the field.
// Not supported (NotImplemented 238): $meta.
//
// Ownership: owns its parsed tree and its own parsed copy of any query it
// needs; Apply() returns a new document.
// Thread-safety: immutable after Parse(); Apply() may run concurrently.

#include <bson/bson.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"
#include "engine/query/matcher/expression_hook.h"
#include "engine/query/matcher/match_details.h"

namespace tigerdoc::query {

class Matcher;

class Projection {
 public:
  // A projection with no query: positional "$" fails with 51050.
  static StatusWith<Projection> Parse(const bson_t* spec);
  // find()'s form: `query` is the command's filter, which positional "$"
  // requires. `query` must parse (callers parse it with Matcher first); the
  // projection keeps its own copy. `expressions` compiles computed fields
  // (and the query's $expr); null: the default parser.
  static StatusWith<Projection> Parse(const bson_t* spec, const bson_t* query,
                                      const ExpressionParser* expressions = nullptr);

  Projection(Projection&&) noexcept;
  Projection& operator=(Projection&&) noexcept;
  ~Projection();

  // Projects `doc`. For a positional projection `details` should come from
  // Matcher::Matches(doc, &details) with the query given to Parse; when
  // null, the projection matches `doc` against its copy of the query itself.
  // Errors: 51246 / 51247 (positional, see above); a computed field's
  // evaluation error.
  StatusWith<bson::BsonDoc> Apply(const bson_t* doc, const MatchDetails* details) const;

  // Apply(doc, nullptr) for callers that cannot report errors: on a
  // positional error the path is left as the inclusion made it; a computed
  // field that fails to evaluate is left out.
  bson::BsonDoc Apply(const bson_t* doc) const;

  bool is_inclusion() const { return inclusion_; }
  bool has_positional() const { return has_positional_; }

  // Internals, defined in projection.cc: the parsed tree, and the
  // $elemMatch, $slice and positional operators applied after it.
  struct Node;
  struct Operators;

 private:
  Projection(bool inclusion, std::unique_ptr<Node> root, std::unique_ptr<Operators> operators,
             bool has_positional);

  bool inclusion_ = false;
  bool has_positional_ = false;
  std::unique_ptr<Node> root_;
  std::unique_ptr<Operators> operators_;
};

}  // namespace tigerdoc::query
