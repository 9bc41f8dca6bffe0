#pragma once
// Indexes of a time-series collection, as MongoDB translates them onto its
// buckets: a key on the collection's fields becomes a key on the buckets'
// fields, and back for listIndexes.
//
//   <metaField>[.path]: d       <-> meta[.path]: d
//   <timeField or field F>: 1   <-> control.min.F: 1, control.max.F: 1
//   <timeField or field F>: -1  <-> control.max.F: -1, control.min.F: -1
//
// Errors (ToBucketIndexSpec): InvalidOptions (72) for what MongoDB refuses
// on time-series indexes here (unique; a non-numeric direction on a
// measurement field), NotImplemented for options tigerdoc does not
// translate (partialFilterExpression, expireAfterSeconds).
//
// Thread-safety: pure functions.

#include <bson/bson.h>

#include "engine/agg/timeseries/timeseries_config.h"
#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"

namespace tigerdoc::agg {

// The index the engine makes for expireAfterSeconds (internal: listIndexes
// of the collection does not show it).
inline constexpr char kBucketExpiryIndexName[] = "expireAfterSeconds_buckets";

// `spec` is a createIndexes spec ({key, name, ...}) on the collection.
StatusWith<bson::BsonDoc> ToBucketIndexSpec(const TimeseriesConfig& config, const bson_t* spec);
// A key pattern on the buckets back on the collection's fields.
bson::BsonDoc FromBucketKey(const TimeseriesConfig& config, const bson_t* bucket_key);

}  // namespace tigerdoc::agg
