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
// Ownership: the registry holds shared_ptrs to its operations; an operation
// leaves the registry when its ScopedOperation ends. The `command` document
// an operation shows is borrowed from the request and must outlive the
// ScopedOperation.
//
// Thread-safety: all methods are thread-safe. One mutex guards the set of
// operations; an operation's reported fields have their own.

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
};

class Operation {
 public:
  Operation(int64_t opid, OperationInfo info)
      : opid_(opid), info_(std::move(info)), start_(std::chrono::steady_clock::now()),
        start_wall_(std::chrono::system_clock::now()) {}

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
  const int64_t opid_;
  const OperationInfo info_;
  const std::chrono::steady_clock::time_point start_;
  const std::chrono::system_clock::time_point start_wall_;
  std::atomic<bool> killed_{false};
  std::atomic<int32_t> num_yields_{0};
  std::atomic<bool> waiting_for_slot_{false};
  mutable std::mutex report_mutex_;
  bson::BsonDoc reported_;
  OperationStats stats_;
};

class OperationRegistry {
 public:
  std::shared_ptr<Operation> Start(OperationInfo info);
  void Finish(int64_t opid);
  // The currentOp documents of every running operation, by opid.
  std::vector<bson::BsonDoc> CurrentOps(const std::string& host) const;
  // Sets the kill flag (and wakes the operation if it waits for a long
  // work slot); false when no such operation runs.
  bool Kill(int64_t opid);
  LongWorkAdmission& long_work() { return long_work_; }

 private:
  LongWorkAdmission long_work_{LongWorkAdmission::DefaultSlots()};
  mutable std::mutex mutex_;
  std::map<int64_t, std::shared_ptr<Operation>> running_;
  int64_t next_opid_ = 1;
};

// Registers an operation for the current scope and makes its kill flag the
// one this thread's reads check, and its LongWorkTicket their yield hook
// (unless an outer ScopedOperation's already is).
class ScopedOperation {
 public:
  ScopedOperation(OperationRegistry& registry, OperationInfo info);
  ~ScopedOperation();
  ScopedOperation(const ScopedOperation&) = delete;
  ScopedOperation& operator=(const ScopedOperation&) = delete;
  Operation& operation() { return *operation_; }

 private:
  OperationRegistry& registry_;
  std::shared_ptr<Operation> operation_;
  const std::atomic<bool>* previous_kill_flag_;
  Operation* previous_operation_;
  std::optional<LongWorkTicket> ticket_;  // empty when nested
};

// This thread's innermost registered operation; null outside one.
Operation* CurrentOperation();

}  // namespace tigerdoc::engine
