#pragma once
// RunLoad: drives one operation from `threads` threads (one Worker each)
// for a fixed time and summarises throughput and latency.
//
// Thread-safety: RunLoad is called from one thread; it creates and joins
// its worker threads before returning.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

#include "bench/load_backend.h"

namespace tigerdoc::bench {

enum class LoadOp { kInsert, kReadById, kIncrementById };
const char* LoadOpName(LoadOp op);

struct LoadResult {
  int64_t ops = 0;     // successful operations
  int64_t errors = 0;  // failed operations (not in the latencies)
  double seconds = 0;
  double ops_per_sec = 0;
  double p50_us = 0;
  double p99_us = 0;
  // Server CPU per operation, per document for batched inserts (as
  // ops_per_sec); -1: unknown.
  double server_cpu_us_per_op = -1;
  // Share of the run the server was busy: its CPU seconds over the wall
  // seconds (1.0 = one core all the time); -1: unknown.
  double server_busy = -1;
  // This process's CPU (the load threads: the client's side; for an
  // in-process engine, client and engine) per operation, counted as
  // server_cpu_us_per_op; -1: unknown.
  double client_cpu_us_per_op = -1;
  std::string error;   // set when the run could not start
};

// Reads and updates pick uniformly random _ids in [0, existing_docs);
// inserts take fresh _ids from `*next_insert_id`, `insert_batch` per
// request (Worker::InsertBatch when > 1). `ops` and the latencies count
// requests; ops_per_sec counts documents.
LoadResult RunLoad(Backend& backend, LoadOp op, int threads, std::chrono::milliseconds duration,
                   int64_t existing_docs, std::atomic<int64_t>* next_insert_id,
                   int insert_batch = 1);

}  // namespace tigerdoc::bench
