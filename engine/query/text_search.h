#pragma once
// $text and {$meta: "textScore"} for find-style reads (find, count,
// distinct, update, delete, findAndModify: everything the plan executor
// runs).
//
//  * BindTextQuery: finds the filter's $text (top level, or inside
//    top-level $and), binds it to the collection's text index and returns
//    the bound query (null when the filter has no $text). Errors as
//    MongoDB: IndexNotFound (27) "text index required for $text query"
//    without a text index; BadValue "Too many text expressions"; $text under
//    $nor: BadValue "text expression not allowed in nor"; deeper under
//    $or than a branch (or a conjunct of an $and branch) of a top-level $or
//    or of an $or in the top-level $and: NoQueryExecutionPlans (291); an
//    unsupported $language: BadValue. Such a branch is bound: the executor
//    runs it when every other branch of its $or has an index (else 291),
//    as MongoDB does.
//  * SplitMetaProjection: takes {f: {$meta: "textScore"}} and
//    {f: {$meta: "sortKey"}} fields (BadValue "cannot use sortKey $meta
//    projection without a sort" in the executor without a sort) out of a
//    find projection (the rest goes to query::Projection); the score is
//    appended to each result as the last field(s), replacing a field of the
//    same name. Other $meta names: 17308 "Unsupported argument to $meta:
//    <name>" unless MongoDB knows them (then NotImplemented 238); a
//    non-string argument: 17307 "$meta only supports string arguments";
//    dotted field names with textScore: NotImplemented.
//  * Asking for textScore (projection or sort) without $text: 40218 "query
//    requires text score metadata, but it is not available".
//
// The plan executor reads a term-keyed text index (planner/text_plan.h):
// one index scan per term, the bound query then checking each fetched
// document (phrases, negations, case) and scoring it. Over a text index of
// the earlier format (no terms) it scans the collection instead.

#include <memory>
#include <string>
#include <vector>

#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"
#include "engine/fts/fts_query.h"
#include "engine/index/index_spec.h"
#include "engine/query/matcher/matcher.h"
#include "engine/query/meta_names.h"

namespace tigerdoc::query {

// REQUIRES: `matcher` was just parsed and is not evaluated yet. `indexes`
// may be null (a missing collection: nothing to bind, nothing matches).
StatusWith<std::shared_ptr<const fts::TextQuery>> BindTextQuery(Matcher* matcher,
                                                                const index::IndexSet* indexes);

// Whether the filter holds a $text anywhere (parsed or not).
bool HasTextQuery(const Matcher& matcher);

// The $or of which a branch is a $text or an $and with a $text among its
// conjuncts: the filter's top-level $or, or an $or among the conjuncts of
// its top-level $and (through nested $ands); null when there is none.
// TextBranchOfOr: that branch (the $text, or the $and whose equalities
// then give a compound text index its prefix, as MongoDB's planner).
const MatchExpression* OrWithTextBranch(const Matcher& matcher);
const MatchExpression* TextBranchOfOr(const Matcher& matcher);

struct MetaProjection {
  bson::BsonDoc rest;                     // the projection without the $meta fields
  std::vector<std::string> score_fields;  // top-level names for the text score
  std::vector<std::string> sort_key_fields;  // top-level names for the sort key
};
StatusWith<MetaProjection> SplitMetaProjection(const bson_t* projection);

// `doc` with each of `fields` set to `score` (appended last; a field of the
// same name is removed first).
bson::BsonDoc WithTextScore(const bson_t* doc, const std::vector<std::string>& fields, double score);
// The same with any value (the sort key array of {$meta: "sortKey"}).
bson::BsonDoc WithMetaValue(const bson_t* doc, const std::vector<std::string>& fields,
                            const bson_value_t* value);

}  // namespace tigerdoc::query
