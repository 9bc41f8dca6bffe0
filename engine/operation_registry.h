#pragma once
// OperationRegistry: the operations running now, for currentOp / $currentOp
// and killOp.
//
// Every command the dispatcher runs registers one Operation for its
// duration (ScopedOperation); background work (the scheduled archive)
// registers its own. An Operation carries what currentOp shows (opid, ns,
// op, command, client, start time) and what a long operation reports as it
// goes (Report(): fields added to its currentOp document, e.g. the
// archive's {archive: {target, moved, batches}}).
//
// Interruption: killOp sets the operation's kill flag; an operation notices
// it at its own check points (CheckInterrupt(): 11601 Interrupted when
// killed, 50 MaxTimeMSExpired past its deadline, 11600 at shutdown). While a
// registered operation runs on a thread, that thread's query::Interrupt
// checks also answer 11601 once it is killed (ScopedOperation installs the
// flag as query::current_operation_killed), so reads stop at their next
// check too.
//
// Execution stats: a command that runs a query plan records what it did in
// its operation's stats() (plan summary, keys and documents examined,
// documents returned), for the "Slow query" log line and system.profile.
// Only the thread running the operation writes them, and the dispatcher
// reads them on that thread after the command.
//
// CurrentOperation(): the operation registered by the innermost
// ScopedOperation of this thread (null outside one), so engine code deep in
// a command (an index build) can report progress or stats without the
// command passing it down.
//
// Long work: the registry owns the process's LongWorkAdmission
// (engine/long_work_admission.h); ScopedOperation gives its command a
// LongWorkTicket, whose yields the operation counts (currentOp numYields).
//
// Ownership: each thread keeps one Operation for its outermost
// ScopedOperation and reuses it command after command (a nested one gets
// its own); the registry links running operations into a list and never
// owns them. An operation leaves the list when its ScopedOperation ends,
// under the registry's mutex, so currentOp and killOp, which read it under
// that mutex, never see one that is being reused. Starting and finishing a
// command thus costs one short critical section each and no allocation
// (a shared_ptr, a map node and two lock round trips before, issue #18).
// The `command` document an operation shows is borrowed from the request
// and must outlive the ScopedOperation.
//
// Thread-safety: all methods are thread-safe. One mutex guards the list of
// running operations; an operation's reported fields have their own.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"
#include "engine/long_work_admission.h"

namespace tigerdoc::engine {

// What currentOp shows of an operation that does not change while it runs.
struct OperationInfo {
  std::string ns;               // "db.coll", or "db.$cmd"
  std::string op = "command";   // MongoDB's op: command, query, getmore, insert, update, remove
  const bson_t* command = nullptr;  // borrowed; shown as `command`
  std::string client;           // "ip:port", empty for internal work
  int64_t connection_id = -1;   // -1 for internal work
  std::string desc;             // "conn12", or the background task's name
  std::optional<std::chrono::steady_clock::time_point> deadline;  // maxTimeMS
};

// MongoDB's OpDebug fields of one operation (see the header comment).
struct OperationStats {
  std::string plan_summary;  // "COLLSCAN", "IXSCAN { a: 1 }", "IDHACK"; empty: no plan ran
  int64_t keys_examined = 0;
  int64_t docs_examined = 0;
  int64_t n_returned = -1;  // -1: not a read
  int64_t num_yields = 0;   // long work slots handed on (slow query numYields, profiler numYield)
};

class Operation {
 public:
  Operation() = default;
  Operation(const Operation&) = delete;
  Operation& operator=(const Operation&) = delete;

  int64_t opid() const { return opid_; }
  const OperationInfo& info() const { return info_; }
  const std::atomic<bool>* kill_flag() const { return &killed_; }
  void Kill() { killed_.store(true, std::memory_order_relaxed); }
  bool killed() const { return killed_.load(std::memory_order_relaxed); }
  std::chrono::steady_clock::time_point start() const { return start_; }
  // Slots this operation handed to a waiting one (currentOp numYields).
  void CountYield() { num_yields_.fetch_add(1, std::memory_order_relaxed); }
  int32_t num_yields() const { return num_yields_.load(std::memory_order_relaxed); }
  // While it waits for a long-work slot (currentOp waitingForLock, as
  // mongod shows an operation waiting for an execution ticket).
  void set_waiting_for_slot(bool waiting) { waiting_for_slot_.store(waiting, std::memory_order_relaxed); }

  // 11600 at shutdown, 11601 Interrupted when killed, 50 MaxTimeMSExpired
  // past the deadline; OK otherwise.
  Status CheckInterrupt() const;

  // Replaces the fields this operation adds to its currentOp document.
  void Report(bson::BsonDoc fields);
  // Reports {progress: {done, total}} and a message (MongoDB's currentOp
  // `msg` and `progress` of a long operation).
  void ReportProgress(const std::string& msg, int64_t done, int64_t total);

  OperationStats& stats() { return stats_; }

  // Its currentOp document (MongoDB's shape: type, host, desc, connectionId,
  // client, active, currentOpTime, opid, secs_running, microsecs_running,
  // op, ns, command, numYields, waitingForLock, killPending, then the reported fields).
  bson::BsonDoc ToCurrentOp(const std::string& host) const;

 private:
  friend class OperationRegistry;

  // Makes this (unlinked) operation a new one: `info` is swapped in, so
  // the caller's keeps the previous strings' buffers for its next command.
  void Reset(OperationInfo& info);

  int64_t opid_ = 0;
  OperationInfo info_;
  std::chrono::steady_clock::time_point start_;
  std::atomic<int32_t> num_yields_{0};
  std::atomic<bool> waiting_for_slot_{false};
  std::atomic<bool> killed_{false};
  mutable std::mutex report_mutex_;
  bson::BsonDoc reported_;
  OperationStats stats_;
  // The registry's list of running operations, under its mutex.
  Operation* prev_ = nullptr;
  Operation* next_ = nullptr;
};

class OperationRegistry {
 public:
  OperationRegistry() = default;
  OperationRegistry(const OperationRegistry&) = delete;
  OperationRegistry& operator=(const OperationRegistry&) = delete;

  // Registers a new operation with a fresh opid, for this thread until
  // Finish. `info` is swapped in (see Operation::Reset).
  Operation* Start(OperationInfo& info);
  // REQUIRES: `op` came from Start on this thread and is not finished.
  void Finish(Operation* op);
  // The currentOp documents of every running operation, by opid.
  std::vector<bson::BsonDoc> CurrentOps(const std::string& host) const;
  // Sets the kill flag; false when no such operation runs.
  // (It also wakes the operation if it waits for a long work slot.)
  bool Kill(int64_t opid);
  LongWorkAdmission& long_work() { return long_work_; }

 private:
  LongWorkAdmission long_work_{LongWorkAdmission::DefaultSlots()};
  mutable std::mutex mutex_;
  Operation* head_ = nullptr;  // running operations, newest first
  int64_t next_opid_ = 1;
};

// Registers an operation for the current scope and makes its kill flag the
// one this thread's reads check, and its LongWorkTicket their yield hook
// (unless an outer ScopedOperation's already is). Its constructor and
// destructor are where per-command thread-locals are installed and restored.
class ScopedOperation {
 public:
  ScopedOperation(OperationRegistry& registry, OperationInfo info);
  // The same, swapping `info` in: it comes back holding the strings of an
  // earlier command, whose buffers the caller can fill again without
  // allocating.
  ScopedOperation(OperationRegistry& registry, OperationInfo* info);
  ~ScopedOperation();
  ScopedOperation(const ScopedOperation&) = delete;
  ScopedOperation& operator=(const ScopedOperation&) = delete;
  Operation& operation() { return *operation_; }

 private:
  OperationRegistry& registry_;
  Operation* operation_;
  const std::atomic<bool>* previous_kill_flag_;
  Operation* previous_operation_;
  std::optional<LongWorkTicket> ticket_;  // empty when nested
};

// This thread's innermost registered operation; null outside one.
Operation* CurrentOperation();

}  // namespace tigerdoc::engine
