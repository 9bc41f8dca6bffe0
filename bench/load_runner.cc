#include "bench/load_runner.h"

#include "bench/latency_summary.h"
#include "bench/process_cpu.h"

#include <algorithm>
#include <memory>
#include <random>
#include <thread>
#include <vector>

namespace tigerdoc::bench {

const char* LoadOpName(LoadOp op) {
  switch (op) {
    case LoadOp::kInsert:
      return "insert";
    case LoadOp::kReadById:
      return "read _id";
    case LoadOp::kIncrementById:
      return "$inc _id";
  }
  return "?";
}

LoadResult RunLoad(Backend& backend, LoadOp op, int threads, std::chrono::milliseconds duration,
                   int64_t existing_docs, std::atomic<int64_t>* next_insert_id,
                   int insert_batch) {
  using Clock = std::chrono::steady_clock;
  LoadResult result;
  // Workers (connections, sessions) are made before the clock starts.
  std::vector<std::unique_ptr<Worker>> workers;
  for (int t = 0; t < threads; ++t) {
    auto w = backend.NewWorker();
    if (!w.ok()) {
      result.error = w.status().ToString();
      return result;
    }
    workers.push_back(std::move(w).value());
  }

  std::vector<std::vector<uint32_t>> latencies_ns(threads);  // per thread: no sharing
  std::vector<int64_t> errors(threads, 0);
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  Clock::time_point start, end;
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      std::mt19937_64 rng(0x9e3779b97f4a7c15ULL * (t + 1));
      std::uniform_int_distribution<int64_t> pick(0, std::max<int64_t>(existing_docs, 1) - 1);
      auto& lat = latencies_ns[t];
      lat.reserve(1 << 16);
      ready.fetch_add(1);
      while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
      const Clock::time_point deadline = start + duration;
      while (true) {
        Clock::time_point t0 = Clock::now();
        if (t0 >= deadline) break;
        bool ok = false;
        switch (op) {
          case LoadOp::kInsert:
            ok = insert_batch > 1
                     ? workers[t]->InsertBatch(next_insert_id->fetch_add(insert_batch), insert_batch)
                     : workers[t]->Insert(next_insert_id->fetch_add(1));
            break;
          case LoadOp::kReadById:
            ok = workers[t]->ReadById(pick(rng));
            break;
          case LoadOp::kIncrementById:
            ok = workers[t]->IncrementById(pick(rng));
            break;
        }
        auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count();
        if (ok) {
          lat.push_back(static_cast<uint32_t>(std::min<int64_t>(ns, UINT32_MAX)));
        } else {
          ++errors[t];
        }
      }
    });
  }
  while (ready.load() < threads) std::this_thread::yield();
  const double cpu0 = backend.ServerCpuSeconds();
  const double client0 = SelfCpuSeconds();
  start = Clock::now();
  go.store(true, std::memory_order_release);
  for (auto& th : pool) th.join();
  end = Clock::now();
  const double cpu1 = backend.ServerCpuSeconds();
  const double client1 = SelfCpuSeconds();

  std::vector<uint32_t> all;
  for (const auto& l : latencies_ns) all.insert(all.end(), l.begin(), l.end());
  for (int64_t e : errors) result.errors += e;
  LatencySummary summary = Summarize(all, std::chrono::duration<double>(end - start).count());
  result.ops = summary.ops;
  result.seconds = summary.seconds;
  result.ops_per_sec = summary.ops_per_sec * (op == LoadOp::kInsert ? insert_batch : 1);
  result.p50_us = summary.p50_us;
  result.p99_us = summary.p99_us;
  const double per_request = op == LoadOp::kInsert ? insert_batch : 1;
  if (client0 >= 0 && client1 >= 0 && summary.ops > 0) {
    result.client_cpu_us_per_op =
        (client1 - client0) * 1e6 / (static_cast<double>(summary.ops) * per_request);
  }
  if (cpu0 >= 0 && cpu1 >= 0 && summary.ops > 0) {
    result.server_cpu_us_per_op =
        (cpu1 - cpu0) * 1e6 / (static_cast<double>(summary.ops) * per_request);
    if (summary.seconds > 0) result.server_busy = (cpu1 - cpu0) / summary.seconds;
  }
  return result;
}

}  // namespace tigerdoc::bench
