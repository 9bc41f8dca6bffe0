#pragma once
// MoveMatchesBack: the $match stages a read of a view puts after the view's
// pipeline run before the view's stages that cannot change what they test,
// as MongoDB's optimizer moves $match ahead of $addFields, $unset and
// $lookup. A filter that then leads the pipeline becomes the scan's query
// (an _id lookup, an index), instead of filtering after the view computed
// every document.
//
//   [view: $set a, $lookup as: l, $unset u] ++ [$match {_id: 1}]
//     -> [$match {_id: 1}, $set a, $lookup as: l, $unset u]
//
// A $match moves past $set / $addFields / $unset / $lookup stages
// whose written top-level fields ($set keys, $unset names, $lookup `as`)
// are none of the top-level fields it tests (through $and / $or / $nor);
// a filter with any other top-level operator ($expr, $where, $text,
// $jsonSchema, ...) stays where it is, and a view's own $match is not
// passed (its filter stays the scan's query). Matches keep their order.
//
// Thread-safety: pure function.

#include <bson/bson.h>

#include "engine/bson/bson_doc.h"

namespace tigerdoc::agg {

// `view` and `user` are pipelines (array documents); returns view ++ user
// with the user's leading $match stages moved back as far as allowed.
bson::BsonDoc JoinViewPipeline(const bson_t* view, const bson_t* user);

}  // namespace tigerdoc::agg
