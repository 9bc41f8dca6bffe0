#pragma once
// UnpackSpec: the argument of the two stages that read a time-series
// collection's buckets, $_internalUnpackBucket (measurements) and
// $_internalBucketView (the bucket view of the reference's shape):
//   {timeField: "t", [metaField: "m"], bucketMaxSpanSeconds: n, [stats: [...]]}
// `stats` only for $_internalBucketView. Errors: 40414 missing timeField or
// bucketMaxSpanSeconds, 40415 an unknown field, 14 a wrong type.
//
// Thread-safety: a value type.

#include <bson/bson.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/status.h"

namespace tigerdoc::agg {

struct UnpackSpec {
  std::string time_field;
  std::optional<std::string> meta_field;
  int64_t bucket_max_span_seconds = 0;
  std::vector<std::string> stats;

  static StatusWith<UnpackSpec> Parse(std::string_view stage, const bson_iter_t* spec,
                                      bool with_stats);
};

}  // namespace tigerdoc::agg
