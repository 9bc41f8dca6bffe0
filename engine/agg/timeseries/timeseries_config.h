#pragma once
// TimeseriesConfig: a time-series collection's options, MongoDB's
// `timeseries` and `expireAfterSeconds` plus tigerdoc's `bucket`
// (patterns/README.md, the bucket table):
//
//   create: "c", timeseries: {timeField, [metaField], [granularity] |
//                             [bucketMaxSpanSeconds + bucketRoundingSeconds]},
//           [expireAfterSeconds: n],
//           [bucket: {[maxCount: n], [stats: ["f", ...]], [view: "name"]}]
//
// Parse checks them as mongod does (codes and messages of its IDL and of
// create_collection.cpp / timeseries_options.cpp): 40414 missing timeField,
// 40415 unknown field, 14 wrong type, 2 unknown granularity, 51024 a span
// outside [1, 31536000], 72 InvalidOptions for the rest (dots, metaField
// "_id" or equal to timeField, span and rounding that disagree, a
// granularity with a span other than its default).
//
// Canonical form (the bucket pattern's config in the catalog row):
//   {timeField, [metaField], [granularity], bucketMaxSpanSeconds,
//    bucketRoundingSeconds, [expireAfterSeconds], maxCount, stats: [...],
//    [view]}
// TimeseriesOptions() is what listCollections shows under
// options.timeseries (granularity and bucketMaxSpanSeconds defaulted, as
// MongoDB 7 shows them).
//
// Bucketing (fixed windows): a measurement at time t belongs to the window
// [floor(t / span) * span, + span) of its meta value, span =
// bucketMaxSpanSeconds. Every window start is a multiple of the rounding
// (MongoDB's spans are multiples of its roundings), so a bucket's start is a
// valid rounded bucket time as MongoDB defines it.
//
// Thread-safety: a value type.

#include <bson/bson.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"

namespace tigerdoc::agg {

// MongoDB's limits: kTimeseriesBucketMaxCount (1000 measurements) and
// kTimeseriesBucketMaxSizeBytes (125 KiB).
inline constexpr int64_t kDefaultBucketMaxCount = 1000;
inline constexpr int64_t kBucketMaxSizeBytes = 125 * 1024;
inline constexpr int64_t kMaxBucketSpanSeconds = 31536000;  // one year
// The prefix of a time-series collection's buckets collection.
inline constexpr std::string_view kBucketsPrefix = "system.buckets.";

struct TimeseriesConfig {
  std::string time_field;
  std::optional<std::string> meta_field;
  std::optional<std::string> granularity;  // "seconds" | "minutes" | "hours"
  int64_t bucket_max_span_seconds = 3600;
  int64_t bucket_rounding_seconds = 60;
  std::optional<int64_t> expire_after_seconds;
  int64_t max_count = kDefaultBucketMaxCount;
  std::vector<std::string> stats;  // fields whose min/max/avg each bucket keeps
  std::optional<std::string> view;

  // `command` names the command in errors ("create"). `timeseries`,
  // `expire` and `bucket` point at the options (null when absent).
  // REQUIRES: timeseries != nullptr.
  static StatusWith<TimeseriesConfig> Parse(std::string_view command, const bson_iter_t* timeseries,
                                            const bson_iter_t* expire, const bson_iter_t* bucket);
  static StatusWith<TimeseriesConfig> FromCanonical(const bson_t* doc);
  // collMod's expireAfterSeconds: a number as at create, or "off" / null
  // (nullopt: no expiry).
  static StatusWith<std::optional<int64_t>> ParseExpireAfterSeconds(std::string_view command,
                                                                    const bson_iter_t* it);
  bson::BsonDoc ToCanonical() const;

  // options.timeseries as listCollections shows it.
  bson::BsonDoc TimeseriesOptions() const;
  // The view pipeline of the time-series collection:
  // [{$_internalUnpackBucket: {timeField, [metaField], bucketMaxSpanSeconds}}].
  bson::BsonDoc UnpackPipeline() const;
  // The pipeline of the `bucket.view` view (stages/bucket_view.cc).
  bson::BsonDoc BucketViewPipeline() const;

  // The start (ms since the epoch) of the window holding `time_ms`.
  int64_t WindowStartMillis(int64_t time_ms) const;
};

}  // namespace tigerdoc::agg
