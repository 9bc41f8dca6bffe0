#pragma once
// ChangeLog: the table change streams read (WiredTiger table "_changelog",
// format in engine/README.md "Change log"), and the recorder every change
// goes through (catalog::ChangeRecorder).
//
// Writing. The collection writer and the catalog hand each change to
// Record() inside the change's own transaction; the events wait on the
// session until it commits, then, just before the commit (Session::
// BeforeCommit), the transaction takes one tick of the logical clock and
// its events are written as rows (tick, 0), (tick, 1), ... in that same
// transaction: a change and its rows commit together or not at all.
//
// Commit order vs key order. Two transactions may take ticks t1 < t2 and
// commit in the other order; a reader that saw t2 and moved past it would
// miss t1. Instead of serialising commits under a lock (which would hold
// every writer behind one journal write), the log keeps the set of ticks
// taken but not yet committed or rolled back ("in flight"). Readers stop
// at the readable position: just below the oldest tick in flight, or the
// newest tick when none is. Everything at or below it has committed (or
// will never exist), and a reader's snapshot begun after computing it sees
// all of it. A tick is taken and put in flight under one mutex, so ticks
// enter in order; it leaves after the commit's journal write (Session::
// OnCommit), so an event is never visible before its change is durable
// against kill -9.
//
// Waiting. Commits and rollbacks signal a condition variable; getMore of a
// change stream waits on it (WaitBeyond) instead of polling.
//
// Retention. A background thread trims the oldest rows beyond
// retention_bytes of rows or older than retention_seconds, each batch in
// one transaction with the "trimmed through" marker row, so a reader
// compares its position with the marker in its own snapshot and fails
// with 286 ChangeStreamHistoryLost rather than skip history silently.
//
// Thread-safety: all methods are thread-safe.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"
#include "engine/catalog/change_recorder.h"
#include "engine/repl/logical_clock.h"
#include "engine/storage/storage_engine.h"

namespace tigerdoc::engine {

// A place in the log: the tick of a transaction and the index of an event
// in it. {ts, kEndOfTick} stands after every event of tick ts.
struct LogPosition {
  static constexpr uint32_t kEndOfTick = UINT32_MAX;
  repl::Timestamp ts;
  uint32_t seq = 0;

  friend bool operator<(const LogPosition& a, const LogPosition& b) {
    return a.ts == b.ts ? a.seq < b.seq : a.ts < b.ts;
  }
  friend bool operator==(const LogPosition& a, const LogPosition& b) {
    return a.ts == b.ts && a.seq == b.seq;
  }
  // The position just before every event of tick `ts` ({ts - 1, end}).
  static LogPosition Before(repl::Timestamp ts);
};

struct LogEntry {
  LogPosition pos;
  bson::BsonDoc row;  // the row document (engine/catalog/change_event.h) with `wall`
};

struct ChangeLogOptions {
  int64_t retention_bytes = int64_t{1024} * 1024 * 1024;
  double retention_seconds = 24 * 3600;
  std::chrono::milliseconds trim_interval = std::chrono::seconds(1);
};

// 286 ChangeStreamHistoryLost with mongod's message: a stream's resume
// point is older than what the log still holds.
Status ChangeStreamHistoryLost();

class ChangeLog : public catalog::ChangeRecorder {
 public:
  static constexpr const char* kTable = "_changelog";

  // Creates the table when missing, finds the newest tick (the clock is
  // advanced past it), the rows' total size and the trim marker, and
  // starts the trimmer.
  static StatusWith<std::unique_ptr<ChangeLog>> Open(storage::StorageEngine* storage,
                                                     repl::LogicalClock* clock,
                                                     const ChangeLogOptions& options);
  ~ChangeLog() override;  // stops the trimmer and wakes every waiter

  Status Record(storage::Session& session, bson::BsonDoc event) override;
  // The changes of the running transaction belong to a multi-document
  // transaction: their rows (and events) carry its `lsid` and `txnNumber`.
  // REQUIRES: `session` is in a transaction.
  void SetTransactionInfo(storage::Session& session, const bson_t* lsid, int64_t txn_number);

  // Everything at or below this position has committed (see above).
  LogPosition ReadablePosition() const;
  // Appends the rows after `after`, up to the readable position, at most
  // `max` of them; *through is where the reading stopped (the last row
  // returned when `max` was reached, else the readable position).
  // ChangeStreamHistoryLost (286) when rows after `after` were trimmed.
  // REQUIRES: `session` not in a transaction.
  Status Read(storage::Session& session, LogPosition after, size_t max,
              std::vector<LogEntry>* out, LogPosition* through) const;
  // Whether a row is stored at `pos`. REQUIRES: no transaction.
  StatusWith<bool> Contains(storage::Session& session, LogPosition pos) const;
  // Rows at or below this position were trimmed ({} when none were).
  StatusWith<LogPosition> TrimmedThrough(storage::Session& session) const;

  // Blocks until the readable position passes `after`, `deadline` passes,
  // *kill becomes true (checked every 100 ms; may be null) or the log
  // stops. True when the position passed `after`.
  bool WaitBeyond(LogPosition after, std::chrono::steady_clock::time_point deadline,
                  const std::atomic<bool>* kill) const;

  // Retention (setParameter changeLogRetentionMB / changeLogRetentionHours).
  void SetRetention(int64_t bytes, double seconds);
  int64_t retention_bytes() const;
  double retention_seconds() const;
  // One trimming pass (the trimmer thread runs it every trim_interval).
  Status TrimNow();
  // Bytes of the rows kept (keys and values).
  int64_t total_bytes() const;

  // Row keys: 'e' | u32 seconds | u32 increment | u32 seq, big-endian.
  static std::string EncodeKey(LogPosition pos);
  static bool DecodeKey(std::string_view key, LogPosition* pos);

 private:
  ChangeLog(storage::StorageEngine* storage, repl::LogicalClock* clock,
            const ChangeLogOptions& options)
      : storage_(storage), clock_(clock), options_(options) {}
  Status Load();
  // The session's pending changes, created (and the flush scheduled) on first use.
  struct PendingChanges;
  PendingChanges& PendingOf(storage::Session& session);
  // Writes the session's pending events (BeforeCommit).
  Status Flush(storage::Session& session);
  LogPosition ReadableLocked() const;
  void TrimUntilStopped();

  storage::StorageEngine* storage_;
  repl::LogicalClock* clock_;
  ChangeLogOptions options_;  // retention fields guarded by mutex_

  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  std::multiset<repl::Timestamp> in_flight_;
  repl::Timestamp last_tick_;  // the newest tick taken by a transaction with events
  int64_t total_bytes_ = 0;
  bool stopping_ = false;
  std::condition_variable trim_wakeup_;  // the trimmer sleeps on it
  std::mutex trim_mutex_;  // one trimming pass at a time
  std::thread trimmer_;
};

}  // namespace tigerdoc::engine
