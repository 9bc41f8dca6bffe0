#pragma once
// CursorManager: the open query cursors of the server, by id.
//
// A cursor is created by find (and later aggregate) when its first batch
// does not exhaust the results, and continued by getMore. While a request
// uses a cursor it is checked out (a second getMore on the same id at the
// same time is refused, as in MongoDB). Cursors idle for longer than the
// timeout (10 minutes, MongoDB's cursorTimeoutMillis default) are reaped,
// unless opened with noCursorTimeout.
//
// Thread-safety: all methods are thread-safe.

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/base/status.h"
#include "engine/query/plan_executor.h"

namespace tigerdoc::query {

struct ClientCursor {
  int64_t id = 0;
  std::string ns;
  std::unique_ptr<PlanExecutor> executor;
  bool no_timeout = false;
  std::chrono::steady_clock::time_point last_used;
};

class CursorManager {
 public:
  explicit CursorManager(std::chrono::milliseconds idle_timeout = std::chrono::minutes(10))
      : idle_timeout_(idle_timeout) {}

  // Registers a cursor and returns its new id (random, non-zero, positive).
  int64_t Register(std::string ns, std::unique_ptr<PlanExecutor> executor, bool no_timeout);

  // Takes the cursor out for one getMore. CursorNotFound (43, "cursor id N
  // not found") when the id is unknown or checked out by another request;
  // Unauthorized (13) when it belongs to another namespace, as in MongoDB.
  StatusWith<std::unique_ptr<ClientCursor>> CheckOut(int64_t id, const std::string& ns);
  // Returns a checked-out cursor that has more results.
  void CheckIn(std::unique_ptr<ClientCursor> cursor);

  // Kills one cursor; false when unknown.
  bool Kill(int64_t id, const std::string& ns);

  // Removes cursors idle longer than the timeout; returns how many.
  int ReapIdle();
  size_t open_count() const;

 private:
  mutable std::mutex mutex_;
  std::unordered_map<int64_t, std::unique_ptr<ClientCursor>> cursors_;
  std::chrono::milliseconds idle_timeout_;
};

}  // namespace tigerdoc::query
