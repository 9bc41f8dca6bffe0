#pragma once
// WiredTiger's connection statistics (the "statistics:" cursor), for
// serverStatus's wiredTiger section: every statistic, split as mongod's
// serverStatus names them: "cache: bytes currently in the cache" is
// section "cache", name "bytes currently in the cache".
// The connection is opened with statistics=(fast) (storage_engine.cc), so
// the counts are real.
//
// Thread-safety: uses only the given session.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/base/status.h"
#include "engine/storage/storage_engine.h"

namespace tigerdoc::storage {

struct WtStatistic {
  std::string section;
  std::string name;
  int64_t value = 0;
};

// Every connection statistic, in WiredTiger's order.
StatusWith<std::vector<WtStatistic>> ReadConnectionStatistics(Session& session);

}  // namespace tigerdoc::storage
