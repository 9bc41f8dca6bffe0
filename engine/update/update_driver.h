#pragma once
// UpdateDriver: a parsed update (the `u` of an update statement) and its
// application to documents, with MongoDB's semantics and errors.
//
// Three kinds of update; the first two decided by the first field:
//  * operator updates {$set: {...}, $inc: {...}}: parsed through the
//    modifier table (modifier_table.h) into an update tree
//    (update_internal_node.h); paths are dotted, missing intermediate
//    documents are created, numeric components index arrays (writing past
//    the end pads with nulls), and the affected fields are updated in
//    field-name order. Paths may hold the positional operators: '$' (the
//    array element the query matched: pass its position to Apply), '$[]'
//    (every element) and '$[<identifier>]' (the elements the identifier's
//    array filter matches, array_filters.h);
//  * replacement documents {a: 1}: the new document, field order kept, the
//    original _id kept (put first when the replacement has none).
//  * pipelines [{$set: ...}, {$unset: ...}] (ParsePipeline): the stages
//    $addFields/$set, $project, $unset, $replaceRoot and $replaceWith of
//    engine/agg, run over the one document; their output replaces it as a
//    replacement document would (the original _id kept when the output has
//    none, ImmutableField 66 when it changes it). For an upsert insert the
//    pipeline runs over the seed, as operator updates do. Other known
//    stages fail with InvalidOptions 72 ("$match is not allowed to be used
//    within an update"), unknown ones as in aggregate (40324), and
//    arrayFilters with FailedToParse 9.
//
// Errors (MongoDB's codes and messages): FailedToParse 9 for unknown
// modifiers, non-document or empty modifier arguments, and array filters
// the update does not use ("The array filter for identifier 'x' was not
// used in the update { $set: { a: 1 } }"); ConflictingUpdateOperators 40;
// TypeMismatch 14 ($inc/$mul on non-numbers, $pop on non-arrays);
// PathNotViable 28; ImmutableField 66 when _id would change;
// DollarPrefixedFieldName 52 for '$' fields in a replacement;
// EmptyFieldName 56; BadValue 2 for bad operator arguments, array
// operators on non-arrays, int64 overflow, identifiers without a filter,
// and a positional '$' without a matched position ("The positional
// operator did not find the match needed from the query.").
//
// Ownership: the driver owns copies of everything it parsed; copies of a
// driver share them.
// Thread-safety: immutable after Parse(); Apply() may run concurrently.

#include <bson/bson.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/agg/pipeline.h"
#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"
#include "engine/update/array_filters.h"
#include "engine/update/update_internal_node.h"

namespace tigerdoc::query {
class Matcher;
}  // namespace tigerdoc::query

namespace tigerdoc::update {

class InPlaceIncrement;
class InPlaceSet;

struct ApplyResult {
  bson::BsonDoc doc;
  bool modified = false;  // false when the update was a no-op
};

class UpdateDriver {
 public:
  // An update without arrayFilters.
  static StatusWith<UpdateDriver> Parse(const bson_t* update);
  // `array_filters` is the arrayFilters option, a BSON array (a bson_t
  // whose fields are "0", "1", ...) of filter documents, or nullptr. Its
  // errors are ArrayFilters::Parse's; with an operator update every filter
  // must be used by some '$[<identifier>]'. A replacement ignores them,
  // as MongoDB's update driver does (they are still parsed).
  static StatusWith<UpdateDriver> Parse(const bson_t* update, const bson_t* array_filters);
  // A pipeline-style update: `pipeline` is the BSON array of stages,
  // `array_filters` must be null (or empty); `ctx` holds $$NOW and the
  // variables of the command's `let` and the statement's `c`.
  static StatusWith<UpdateDriver> ParsePipeline(const bson_t* pipeline, const bson_t* array_filters,
                                                const agg::ExpressionContext& ctx);

  bool is_replacement() const { return replacement_ != nullptr; }
  bool is_pipeline() const { return pipeline_ != nullptr; }

  // Whether some path uses the positional '$': the caller then matches the
  // query with query::MatchDetails (Matcher::Matches(doc, &details)) and
  // passes details.elem_match_index() to Apply.
  bool is_positional() const { return positional_; }

  // Applies the update to `doc`. With `is_upsert_insert`, `doc` is the seed
  // of an upsert (BuildUpsertSeed) and $setOnInsert takes effect; the
  // result then has _id first if it has one (adding a generated _id is the
  // caller's job). No positional match: '$' fails as above.
  StatusWith<ApplyResult> Apply(const bson_t* doc, bool is_upsert_insert) const;
  // The same, '$' standing for array position `positional_index` (nullopt:
  // the query matched through no array; always so for upsert inserts).
  StatusWith<ApplyResult> Apply(const bson_t* doc, bool is_upsert_insert,
                                std::optional<size_t> positional_index) const;

 private:
  UpdateDriver() = default;

  // `doc` replaced by `replacement` (the replacement document, or the
  // output of the pipeline).
  static StatusWith<ApplyResult> ApplyReplacement(const bson_t* doc, const bson_t* replacement);
  StatusWith<ApplyResult> ApplyPipeline(const bson_t* doc) const;
  StatusWith<ApplyResult> ApplyModifiers(const bson_t* doc, bool is_upsert_insert,
                                         std::optional<size_t> positional_index) const;
  // Builds the update tree of operator update `update` into root_,
  // rename_sources_ and positional_ (array_filters_ set first).
  Status ParseOperators(const bson_t* update);

  std::shared_ptr<const bson::BsonDoc> replacement_;  // set for replacement updates
  std::shared_ptr<const agg::Pipeline> pipeline_;     // set for pipeline updates
  std::shared_ptr<const UpdateInternalNode> root_;    // set for operator updates
  std::shared_ptr<const ArrayFilters> array_filters_;
  // Set when the update is only $inc of top-level fields (in_place_increment.h).
  std::shared_ptr<const InPlaceIncrement> in_place_;
  // Set when the update is only $set of top-level fields (in_place_set.h).
  std::shared_ptr<const InPlaceSet> in_place_set_;
  // With in_place_set_ or in_place_: the update, whose tree is built only when a
  // document declines the in-place path (root_ is null until then).
  std::shared_ptr<const std::string> deferred_update_;  // its bytes
  std::vector<std::string> rename_sources_;
  bool positional_ = false;
};

// The document an upsert starts from, MongoDB's rule: the filter's equality
// predicates ({a: v}, {a: {$eq: v}}, single-value $in, also under $and),
// dotted paths expanded into nested documents, _id first; every other
// predicate is ignored. Errors: the filter's own parse errors;
// NotSingleValueField 54 when two equalities target the same or nested
// paths ("cannot infer query fields to set, path 'a' is matched twice").
StatusWith<bson::BsonDoc> BuildUpsertSeed(const bson_t* filter);
// The same from an already parsed filter (one whose $expr needed the
// command's variables).
StatusWith<bson::BsonDoc> BuildUpsertSeed(const query::Matcher& filter);

}  // namespace tigerdoc::update
