#pragma once
// BucketHook: stores the measurements inserted into a time-series
// collection as bucket upserts on its buckets collection, in the insert's
// own transaction (format: engine/agg/timeseries/bucket_format.h).
//
// Where a measurement goes: its window (TimeseriesConfig::WindowStartMillis
// of its time) and its meta value name a chain of buckets, _ids
// BucketId(window, meta, 0), (…, 1), ...; it joins the first bucket of the
// chain that has its meta value and room (maxCount rows, 125 KiB), or
// starts a new one where the chain ends. So late and out-of-order
// measurements land in their window's bucket, and a full bucket is closed
// for good (every later measurement of its window goes further down the
// chain). A 5-byte meta hash collision only costs a step along the chain.
//
// Exactly once under concurrency: every step reads and writes through the
// write's WiredTiger transaction, so two inserts into one bucket conflict
// (WriteConflict, 112) and the write unit retries the loser from scratch;
// two inserts creating one bucket conflict the same way (a duplicate _id
// seen at insert is reported as a conflict too). Measurements of one call
// are grouped by bucket, so a batch rewrites each bucket once.
//
// Errors: BadValue (2) "'<timeField>' must be present and contain a valid
// BSON UTC datetime value", as mongod answers.
//
// Thread-safety: immutable.

#include <vector>

#include "engine/agg/timeseries/timeseries_config.h"
#include "engine/write/hooks.h"

namespace tigerdoc::patterns::bucket {

inline constexpr char kPatternName[] = "bucket";

class BucketHook : public engine::PatternHook {
 public:
  explicit BucketHook(agg::TimeseriesConfig config) : config_(std::move(config)) {}

  Status InsertRouted(engine::HookContext& ctx, engine::CollectionWriter& writer,
                      const std::vector<const bson_t*>& docs) override;
  void AppendExplain(const catalog::CollectionEntry& coll, bson_t* out) const override;
  // validate: every bucket's statistics (tigerdocStats) recomputed from its
  // measurements; one line per bucket whose kept statistics differ, or
  // that is not a bucket, or that breaks maxCount.
  Status Validate(storage::Session& session, const catalog::CollectionEntry& coll,
                  std::vector<std::string>* problems) override;

 private:
  const agg::TimeseriesConfig config_;
};

}  // namespace tigerdoc::patterns::bucket
