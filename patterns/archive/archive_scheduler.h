#pragma once
// ArchiveScheduler: runs the scheduled archive moves of the `archive`
// collection option (archive_pattern.h) in the background, as the TTL
// monitor runs TTL deletes.
//
// A thread wakes every `tick` (1 second), lists the collections whose
// pattern configs hold `archive`, and runs Engine::Archive for each one
// whose `every` seconds have passed since its last run (the first run
// comes at the first tick after the server starts or the option appears).
// Each run is an operation of its own in currentOp (desc
// "ArchiveMonitor", command {archive: <coll>, <the option>}), so killOp
// stops it between batches; a failed run is logged to stderr and tried
// again at its next turn. The moves are crash-safe (engine/archive/):
// a run cut short by a crash simply continues at the next one.
//
// Thread-safety: Start and Stop from one thread; the engine must outlive
// Stop.

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "engine/engine.h"

namespace tigerdoc::patterns::archive {

class ArchiveScheduler {
 public:
  explicit ArchiveScheduler(engine::Engine* engine,
                            std::chrono::milliseconds tick = std::chrono::seconds(1))
      : engine_(engine), tick_(tick) {}
  ~ArchiveScheduler() { Stop(); }
  ArchiveScheduler(const ArchiveScheduler&) = delete;
  ArchiveScheduler& operator=(const ArchiveScheduler&) = delete;

  void Start();
  void Stop();
  // One pass: runs every move that is due now (the thread calls it each tick).
  void RunDueMoves();

 private:
  void Loop();

  engine::Engine* engine_;
  const std::chrono::milliseconds tick_;
  std::mutex mutex_;
  std::condition_variable wakeup_;
  bool stopping_ = false;
  std::thread thread_;
  // When each collection (by ns + its option) was last moved or first seen.
  std::map<std::string, std::chrono::steady_clock::time_point> last_run_;
};

}  // namespace tigerdoc::patterns::archive
