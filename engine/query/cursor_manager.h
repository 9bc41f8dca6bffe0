#pragma once
// CursorManager: the open query cursors of the server, by id.
//
// A cursor is created by find when its first batch does not exhaust the
// results, and continued by getMore. While a request uses a cursor it is
// pinned (checked out): a second getMore on the same id at the same time
// fails with CursorInUse (143, "cursor id N is already in use"), as in
// MongoDB. killCursors on a pinned cursor does what MongoDB 4.2+ does: the
// cursor counts as killed, its kill flag interrupts the running getMore
// (which fails with CursorKilled, 237) and the cursor is destroyed when that
// getMore ends instead of being checked back in.
//
// Cursors idle (not pinned) for longer than the timeout (10 minutes,
// MongoDB's cursorTimeoutMillis default) are reaped, unless opened with
// noCursorTimeout. The timeout can change at run time (setParameter
// cursorTimeoutMillis); the next ReapIdle applies it to every idle cursor.
//
// Stats() answers serverStatus's metrics.cursor: open cursors (all, with
// noCursorTimeout, pinned), cursors ever opened and cursors timed out.
//
// maxTimeMS: a find's time limit covers the cursor's whole life of work, as
// in MongoDB (not the idle time between getMores): the time left after each
// request is kept in ClientCursor::leftover_time for the next getMore.
//
// Thread-safety: all methods are thread-safe. A Pin is used by one thread.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "engine/base/status.h"
#include "engine/query/plan_executor.h"

namespace tigerdoc::query {

// Any other producer of cursor batches (an aggregation pipeline).
class BatchSource {
 public:
  virtual ~BatchSource() = default;
  virtual Status FillBatch(storage::Session& session, int64_t max_docs, int64_t max_bytes,
                           std::vector<bson::BsonDoc>* out, bool* exhausted) = 0;
  // The interrupt the next FillBatch checks (a getMore's deadline, the
  // cursor's kill flag), as PlanExecutor::SetInterrupt.
  virtual void SetInterrupt(const Interrupt& interrupt) = 0;
};

struct ClientCursor {
  int64_t id = 0;
  std::string ns;
  // Exactly one of these produces the batches.
  std::unique_ptr<PlanExecutor> executor;
  std::unique_ptr<BatchSource> other_source;
  bool no_timeout = false;
  std::chrono::steady_clock::time_point last_used;
  // Time left of the find's maxTimeMS; nullopt when it had none.
  std::optional<std::chrono::steady_clock::duration> leftover_time;
  // Set by killCursors while the cursor is pinned; read by the Interrupt of
  // the getMore using it.
  std::atomic<bool> kill_pending{false};
  // The user ("user@db") whose command opened it, under --auth; empty
  // otherwise. Kept here so it ends with the cursor, however it ends.
  std::string owner;
};

// serverStatus's metrics.cursor.
struct CursorStats {
  int64_t open_total = 0;
  int64_t open_no_timeout = 0;
  int64_t open_pinned = 0;
  int64_t total_opened = 0;
  int64_t timed_out = 0;
};

class CursorManager {
 public:
  explicit CursorManager(std::chrono::milliseconds idle_timeout = std::chrono::minutes(10))
      : idle_timeout_ms_(idle_timeout.count()) {}
  ~CursorManager();

  // A pinned cursor. Return() checks it back in for the next getMore;
  // destroying a Pin without Return() (exhausted, failed, or killed while
  // pinned) destroys the cursor. Move-only.
  class Pin {
   public:
    Pin(CursorManager* manager, std::unique_ptr<ClientCursor> cursor)
        : manager_(manager), cursor_(std::move(cursor)) {}
    Pin(Pin&& other) noexcept = default;
    Pin& operator=(Pin&&) = delete;
    Pin(const Pin&) = delete;
    ~Pin();

    ClientCursor* operator->() const { return cursor_.get(); }
    ClientCursor& operator*() const { return *cursor_; }
    // Checks the cursor back in (or destroys it when a kill arrived while
    // it was pinned). REQUIRES: not returned before.
    void Return();

   private:
    CursorManager* manager_;
    std::unique_ptr<ClientCursor> cursor_;
  };

  // Registers a cursor and returns its new id (random, non-zero, positive).
  int64_t Register(std::string ns, std::unique_ptr<PlanExecutor> executor, bool no_timeout,
                   std::optional<std::chrono::steady_clock::duration> leftover_time = std::nullopt);
  int64_t Register(std::string ns, std::unique_ptr<BatchSource> source,
                   std::optional<std::chrono::steady_clock::duration> leftover_time = std::nullopt);

  // Pins the cursor for one getMore. CursorNotFound (43, "cursor id N not
  // found") when the id is unknown; CursorInUse (143) when another request
  // has it pinned; Unauthorized (13) when it belongs to another namespace,
  // as in MongoDB.
  StatusWith<Pin> CheckOut(int64_t id, const std::string& ns);

  // Kills one cursor of namespace `ns`; false when there is none. A pinned
  // cursor is marked and goes away when its getMore ends; the mark is seen
  // at its next interrupt check, or at once by a wait that calls the
  // OnPinnedKill hook's waker.
  bool Kill(int64_t id, const std::string& ns);

  // Called (without the manager's lock) after Kill marks a pinned cursor:
  // the engine wakes the getMores waiting for a long work slot, which
  // otherwise would see the mark only when they got one. Set once, before
  // any client runs.
  void SetOnPinnedKill(std::function<void()> wake) { on_pinned_kill_ = std::move(wake); }

  // Records the user who opened cursor `id` (pinned or idle); false when
  // it is already gone.
  bool SetOwner(int64_t id, std::string owner);
  // The owner of cursor `id` (empty when none was set); nullopt when no
  // such cursor is open.
  std::optional<std::string> OwnerOf(int64_t id) const;

  // Removes cursors idle longer than the timeout; returns how many.
  int ReapIdle();
  // Open cursors, pinned or not.
  size_t open_count() const;
  CursorStats Stats() const;

  std::chrono::milliseconds idle_timeout() const {
    return std::chrono::milliseconds(idle_timeout_ms_.load(std::memory_order_relaxed));
  }
  void set_idle_timeout(std::chrono::milliseconds timeout) {
    idle_timeout_ms_.store(timeout.count(), std::memory_order_relaxed);
  }

 private:
  void CheckIn(std::unique_ptr<ClientCursor> cursor);
  int64_t Add(std::unique_ptr<ClientCursor> cursor);
  void Unpin(int64_t id);

  mutable std::mutex mutex_;
  std::unordered_map<int64_t, std::unique_ptr<ClientCursor>> idle_;
  // Pinned cursors, owned by their Pin; entries are removed (under mutex_)
  // before the Pin lets go of the cursor, so Kill may touch them safely.
  std::unordered_map<int64_t, ClientCursor*> pinned_;
  std::atomic<int64_t> idle_timeout_ms_;
  std::function<void()> on_pinned_kill_;
  int64_t total_opened_ = 0;  // guarded by mutex_
  int64_t timed_out_ = 0;     // guarded by mutex_
};

}  // namespace tigerdoc::query
