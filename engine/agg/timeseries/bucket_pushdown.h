#pragma once
// PushDownBucketFilters: bucket pruning for reads of a time-series
// collection and of its bucket view.
//
//   [ {$_internalUnpackBucket: spec}, {$match: F}, ... ]
//     => [ {$match: B}, {$_internalUnpackBucket: spec}, {$match: F}, ... ]
//
// B is built from the top-level conjuncts of F (and of a top-level $and)
// that name the meta field or the time field; every bucket holding a
// measurement that F matches passes B, so B only skips whole buckets and F
// still decides each measurement:
//   <metaField>[.path]: P          -> meta[.path]: P       (the same predicate:
//                                                           a bucket has one meta value)
//   <timeField>: {$gte|$gt: date}  -> control.max.<time>: {$gte|$gt: date}
//   <timeField>: {$lte|$lt: date}  -> control.min.<time>: {$lte|$lt: date}
//   <timeField>: date | {$eq: date} -> both of the above
// For $_internalBucketView (whose documents are buckets, renamed) the
// mapping is exact: <metaField>[.path] -> meta[.path], bucketDate ->
// control.min.<time>, _id -> _id.
// B is the pipeline's leading $match, so the scan under it uses indexes on
// the buckets' meta and control fields and counts buckets examined.
//
// Anything else (no such leading stage, no usable conjunct) leaves the
// pipeline as it is.

#include <bson/bson.h>

#include "engine/bson/bson_doc.h"

namespace tigerdoc::agg {

// `pipeline` is an array document of stages; returns the rewritten array.
bson::BsonDoc PushDownBucketFilters(const bson_t* pipeline);

}  // namespace tigerdoc::agg
