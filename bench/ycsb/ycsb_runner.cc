#include "bench/ycsb/ycsb_runner.h"

#include <algorithm>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "bench/latency_summary.h"
#include "bench/process_cpu.h"

namespace tigerdoc::bench::ycsb {

RunResult RunWorkload(Backend& backend, const Workload& workload, int threads,
                      std::chrono::milliseconds duration, int64_t records,
                      std::atomic<int64_t>* next_record) {
  using Clock = std::chrono::steady_clock;
  RunResult result;
  // Clients (connections, sessions) exist before the clock and the CPU
  // sample start, and until after the second sample.
  std::vector<std::unique_ptr<Client>> clients;
  for (int t = 0; t < threads; ++t) {
    auto c = backend.NewClient();
    if (!c.ok()) {
      result.error = c.status().ToString();
      return result;
    }
    clients.push_back(std::move(c).value());
  }
  const bool load = workload.name == "load";
  std::atomic<int64_t> load_next{0};
  // Scan starts and reads may pick records that E inserts during the run:
  // YCSB sizes its zipfian space for them and skips numbers not yet
  // inserted; the same here with room for 10% more records.
  const int64_t space = records + (workload.insert > 0 ? records / 10 + 1 : 0);

  struct PerThread {
    std::vector<uint32_t> latencies_ns;
    int64_t errors = 0, scanned = 0, scans = 0;
  };
  std::vector<PerThread> per(threads);
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  Clock::time_point start;
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      std::mt19937_64 rng(0x9e3779b97f4a7c15ULL * (t + 1) + std::hash<std::string>{}(workload.name));
      ScrambledZipfian zipf(space);
      std::uniform_int_distribution<int> pick_field(0, kFieldCount - 1);
      std::uniform_int_distribution<int> pick_length(1, kMaxScanLength);
      Client& client = *clients[static_cast<size_t>(t)];
      PerThread& me = per[static_cast<size_t>(t)];
      me.latencies_ns.reserve(1 << 16);
      std::vector<std::string> fields(kFieldCount);
      auto existing = [&] {
        int64_t limit = std::max<int64_t>(1, next_record->load(std::memory_order_relaxed));
        int64_t r;
        do r = zipf.Next(rng); while (r >= limit);
        return r;
      };
      ready.fetch_add(1);
      while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
      const Clock::time_point deadline = start + duration;
      while (true) {
        // Arguments are made outside the timed region.
        OpKind kind = workload.Pick(rng);
        int64_t record = 0;
        if (kind == OpKind::kInsert) {
          if (load) {
            record = load_next.fetch_add(1);
            if (record >= records) break;
          } else {
            record = next_record->fetch_add(1);
          }
          for (auto& f : fields) f = RandomFieldValue(rng);
        } else {
          record = existing();
        }
        const std::string key = KeyOf(record);
        int field = pick_field(rng);
        int length = pick_length(rng);
        if (kind == OpKind::kUpdate) fields[0] = RandomFieldValue(rng);
        Clock::time_point t0 = Clock::now();
        if (!load && t0 >= deadline) break;
        bool ok = false;
        switch (kind) {
          case OpKind::kRead:
            ok = client.Read(key);
            break;
          case OpKind::kUpdate:
            ok = client.Update(key, field, fields[0]);
            break;
          case OpKind::kInsert:
            ok = client.Insert(key, fields);
            break;
          case OpKind::kScan: {
            int64_t n = client.Scan(key, length);
            ok = n >= 0;
            if (ok) {
              me.scanned += n;
              ++me.scans;
            }
            break;
          }
        }
        auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count();
        if (ok) {
          me.latencies_ns.push_back(static_cast<uint32_t>(std::min<int64_t>(ns, UINT32_MAX)));
        } else {
          ++me.errors;
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
  const Clock::time_point end = Clock::now();
  const double cpu1 = backend.ServerCpuSeconds();
  const double client1 = SelfCpuSeconds();
  if (load) next_record->store(records);

  std::vector<uint32_t> all;
  for (PerThread& p : per) {
    all.insert(all.end(), p.latencies_ns.begin(), p.latencies_ns.end());
    result.errors += p.errors;
    result.scanned += p.scanned;
    result.scans += p.scans;
  }
  LatencySummary s = Summarize(all, std::chrono::duration<double>(end - start).count());
  result.ops = s.ops;
  result.seconds = s.seconds;
  result.ops_per_sec = s.ops_per_sec;
  result.p50_us = s.p50_us;
  result.p99_us = s.p99_us;
  if (cpu0 >= 0 && cpu1 >= 0 && s.ops > 0) {
    result.server_cpu_us_per_op = (cpu1 - cpu0) * 1e6 / static_cast<double>(s.ops);
  }
  if (s.ops > 0) result.client_cpu_us_per_op = (client1 - client0) * 1e6 / static_cast<double>(s.ops);
  return result;
}

}  // namespace tigerdoc::bench::ycsb
