#pragma once
// Summarize: throughput and latency percentiles of one measured run, shared
// by the benchmark programs so every table computes them the same way.
//
// Thread-safety: a pure function over its arguments.

#include <algorithm>
#include <cstdint>
#include <vector>

namespace tigerdoc::bench {

struct LatencySummary {
  int64_t ops = 0;
  double seconds = 0;
  double ops_per_sec = 0;
  double p50_us = 0;
  double p99_us = 0;
};

// `latencies_ns` holds one entry per successful operation; it is reordered.
inline LatencySummary Summarize(std::vector<uint32_t>& latencies_ns, double seconds) {
  LatencySummary s;
  s.ops = static_cast<int64_t>(latencies_ns.size());
  s.seconds = seconds;
  s.ops_per_sec = seconds > 0 ? static_cast<double>(s.ops) / seconds : 0;
  if (latencies_ns.empty()) return s;
  auto percentile = [&](double p) {
    size_t i = std::min(latencies_ns.size() - 1,
                        static_cast<size_t>(p * static_cast<double>(latencies_ns.size())));
    std::nth_element(latencies_ns.begin(), latencies_ns.begin() + static_cast<std::ptrdiff_t>(i),
                     latencies_ns.end());
    return latencies_ns[i] / 1000.0;
  };
  s.p50_us = percentile(0.50);
  s.p99_us = percentile(0.99);
  return s;
}

}  // namespace tigerdoc::bench
