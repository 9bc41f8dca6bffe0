#pragma once
// RunWorkload: drives one YCSB workload on one backend from `threads`
// threads (one Client each) and summarises throughput, latency and the
// server's CPU per operation.
//
// The load phase ("load") inserts records [0, records) split among the
// threads and stops when they are in; the other workloads run for
// `duration`. Inserts of workload E take fresh record numbers from
// `*next_record` (shared by the backend's runs); reads, updates and scan
// starts pick records below it with the scrambled zipfian distribution.
//
// Thread-safety: called from one thread; it creates and joins its threads.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

#include "bench/ycsb/ycsb_backend.h"
#include "bench/ycsb/ycsb_workload.h"

namespace tigerdoc::bench::ycsb {

struct RunResult {
  int64_t ops = 0;     // successful operations
  int64_t errors = 0;  // failed ones (not in the latencies)
  int64_t scanned = 0; // records returned by scans
  int64_t scans = 0;
  double seconds = 0;
  double ops_per_sec = 0;
  double p50_us = 0;
  double p99_us = 0;
  double server_cpu_us_per_op = -1;  // -1: unknown
  // This process (the client threads; for WiredTiger client and engine).
  double client_cpu_us_per_op = 0;
  std::string error;  // set when the run could not start
};

RunResult RunWorkload(Backend& backend, const Workload& workload, int threads,
                      std::chrono::milliseconds duration, int64_t records,
                      std::atomic<int64_t>* next_record);

}  // namespace tigerdoc::bench::ycsb
