#pragma once
// The bucket pattern (issue 14): MongoDB's time-series collections plus the
// reference article's pre-aggregated statistics. It owns the create options
// `timeseries`, `expireAfterSeconds` and `bucket: {maxCount, stats, view}`
// (engine/agg/timeseries/timeseries_config.h has their rules), and is
// configured on the buckets collection "system.buckets.<name>" the engine
// makes for a time-series collection (engine/engine_timeseries.cc); its
// hook stores the measurements inserted into "<name>" (bucket_hook.h).

#include <memory>

#include "engine/write/pattern_registry.h"

namespace tigerdoc::patterns::bucket {

std::unique_ptr<engine::Pattern> MakeBucketPattern();

}  // namespace tigerdoc::patterns::bucket
