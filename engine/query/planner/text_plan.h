#pragma once
// The plan of a $text query over a text index keyed by term
// (engine/index/text_keys.h), MongoDB's buildTextSubPlan:
//
//   one index scan per query term (terms(): stemmed and folded, as the
//   index stores them), each the key range
//     [prefix values ++ term, PrefixSuccessor(...))
//   i.e. every entry of the term, highest score first;
//   several terms: an OR of the scans (record keys deduplicated);
//   none (a query of negations only): an OR of no scans, which returns
//   nothing.
// The filter (the $text node checks phrases, negations and case or
// diacritic sensitivity; the other predicates) runs on every fetched
// document.
//
// A compound text index needs an equality ({f: v} or {f: {$eq: v}}) on
// each of its prefix fields beside the $text (top level, or in a top-level
// $and): else NoQueryExecutionPlans (291) "failed to use text index to
// satisfy $text query (if text index is compound, are equality predicates
// given for all prefix fields?)". So does a partial text index whose
// filter the query does not imply. The caller wraps the error in
// MongoDB's "error processing query ... planner returned error" frame.
//
// Thread-safety: pure functions over immutable inputs.

#include <memory>

#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"
#include "engine/fts/fts_query.h"
#include "engine/index/index_spec.h"
#include "engine/query/matcher/match_expression.h"
#include "engine/query/planner/query_planner.h"

namespace tigerdoc::query::planner {

struct TextPlan {
  QueryPlan plan;           // kIndexScan (one term) or kOr
  bson::BsonDoc index_prefix;  // {<prefix field>: value, ...}: explain's indexPrefix
};

// REQUIRES: index.text and index.fts_term_keys.
StatusWith<TextPlan> PlanTextSearch(const MatchExpression* root, const fts::TextQuery& query,
                                    std::shared_ptr<const index::IndexSpec> index);

}  // namespace tigerdoc::query::planner
