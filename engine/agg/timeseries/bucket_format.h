#pragma once
// The bucket document of a time-series collection, MongoDB's version-1
// shape plus tigerdoc's pre-aggregated statistics:
//
//   { _id: ObjectId(<window start seconds, 4 bytes> <meta hash, 5> <seq, 3>),
//     control: { version: 1,
//                min: { <field>: <least value>, ... },      // time: window start
//                max: { <field>: <greatest value>, ... } },
//     meta: <the metaField value>,                          // absent without one
//     data: { <field>: { "0": v0, "1": v1, ... }, ... },    // one column per field,
//                                                           // rows without the field skipped
//     tigerdocStats: { count: <rows>,
//                      fields: { <stat field>: { n, sum, min, max }, ... } } }
//
// Columns appear in the order fields first appeared; the time column has
// every row. control.min/max use BSON order (engine/bson/compare.h);
// tigerdocStats counts only numeric values (int, long, double) of the
// `bucket.stats` fields, n of them, their sum (a double) and their least
// and greatest value, so avg = sum / n is exact to what was inserted.
//
// BucketBuilder appends measurements to a bucket (new or read back);
// UnpackBucket turns a bucket back into measurements:
//   { <timeField>, <metaField>, <other fields in column order> }.
//
// Thread-safety: value types.

#include <bson/bson.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/agg/timeseries/timeseries_config.h"
#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"

namespace tigerdoc::agg {

inline constexpr char kBucketStatsField[] = "tigerdocStats";

// The _id of sequence `seq` of the bucket for (`meta_bytes`, window starting
// `window_start_ms`). BadValue when the window start is outside what an
// ObjectId's 32-bit seconds can hold (1970 to 2106).
StatusWith<bson_oid_t> BucketId(int64_t window_start_ms, std::string_view meta_bytes, uint32_t seq);

class BucketBuilder {
 public:
  // An empty bucket. `meta` points at the meta value (null: none).
  BucketBuilder(const TimeseriesConfig& config, bson_oid_t id, int64_t window_start_ms,
                const bson_iter_t* meta);
  // The bucket `bucket` as stored, to append to. FailedToParse when it is
  // not a bucket of this shape.
  static StatusWith<BucketBuilder> FromBucket(const TimeseriesConfig& config, const bson_t* bucket);

  int64_t count() const { return count_; }
  // Whether `measurement` may join: fewer than maxCount rows, and the bucket
  // (its data and control min/max) stays within 125 KiB (an empty bucket
  // takes any measurement).
  bool Fits(const bson_t* measurement) const;
  // Appends a measurement (its meta field is skipped: the bucket's meta is
  // it). REQUIRES: it has the time field as a date.
  void Append(const bson_t* measurement);
  bson::BsonDoc Build() const;

 private:
  struct Column {
    std::string name;
    bson::BsonDoc values;  // {"0": v0, ...}
    bson::BsonDoc min;     // {"": least}
    bson::BsonDoc max;     // {"": greatest}
  };
  struct FieldStats {
    std::string name;
    int64_t n = 0;
    double sum = 0;
    bson::BsonDoc min;  // {"": v} once n > 0
    bson::BsonDoc max;
  };
  explicit BucketBuilder(const TimeseriesConfig& config) : config_(&config) {}
  Column& ColumnFor(std::string_view name);
  const Column* FindColumn(std::string_view name) const;
  // How many bytes appending `measurement` adds (data cells, control
  // min/max growth); an upper bound within a few bytes per field.
  int64_t GrowthOf(const bson_t* measurement) const;
  static int64_t ColumnBytes(const Column& c);

  const TimeseriesConfig* config_;
  bson_oid_t id_{};
  int64_t window_start_ms_ = 0;
  std::optional<bson::BsonDoc> meta_;  // {"meta": value}
  std::vector<Column> columns_;
  std::vector<FieldStats> stats_;
  int64_t count_ = 0;
  int64_t bytes_ = 0;  // data columns plus control min/max: the bucket's size within a little
};

// The measurements of `bucket`, in row order. FailedToParse for a document
// that is not a bucket.
StatusWith<std::vector<bson::BsonDoc>> UnpackBucket(const bson_t* bucket,
                                                    const std::string& time_field,
                                                    const std::optional<std::string>& meta_field);

}  // namespace tigerdoc::agg
