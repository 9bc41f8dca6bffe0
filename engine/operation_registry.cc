#include "engine/operation_registry.h"

#include <ctime>

#include "engine/base/thread_recycled_allocator.h"
#include "engine/query/interrupt.h"

namespace tigerdoc::engine {
namespace {

// MongoDB prints currentOpTime as an ISO-8601 string with milliseconds
// and a numeric offset ("2026-11-25T16:20:00.123+00:00").
std::string IsoTime(std::chrono::system_clock::time_point t) {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
  std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%03d+00:00", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(ms % 1000));
  return buf;
}

thread_local Operation* t_current_operation = nullptr;

using RunningMap = std::map<int64_t, std::shared_ptr<Operation>>;
// The map node of this thread's last finished operation, kept for its next
// Start: a command then allocates and frees no node (about 300
// instructions of a find by _id, issue #18).
thread_local RunningMap::node_type t_spare_node;

}  // namespace

Operation* CurrentOperation() { return t_current_operation; }

void Operation::ReportProgress(const std::string& msg, int64_t done, int64_t total) {
  bson::BsonDoc fields;
  const int64_t percent = total > 0 ? done * 100 / total : 0;
  const std::string text = msg + ": " + std::to_string(done) + "/" + std::to_string(total) + " " +
                           std::to_string(percent) + "%";
  BSON_APPEND_UTF8(fields.mutable_get(), "msg", text.c_str());
  bson_t progress;
  bson_append_document_begin(fields.mutable_get(), "progress", -1, &progress);
  BSON_APPEND_INT64(&progress, "done", done);
  BSON_APPEND_INT64(&progress, "total", total);
  bson_append_document_end(fields.mutable_get(), &progress);
  Report(std::move(fields));
}

Status Operation::CheckInterrupt() const {
  RETURN_IF_ERROR(query::CheckShutdown());
  if (killed()) return Status(ErrorCode::kInterrupted, query::kInterruptedMessage);
  if (info_.deadline && std::chrono::steady_clock::now() >= *info_.deadline) {
    return Status(ErrorCode::kMaxTimeMSExpired, query::kMaxTimeExpiredMessage);
  }
  return Status::OK();
}

void Operation::Report(bson::BsonDoc fields) {
  std::lock_guard<std::mutex> lock(report_mutex_);
  reported_ = std::move(fields);
}

bson::BsonDoc Operation::ToCurrentOp(const std::string& host) const {
  bson::BsonDoc out;
  bson_t* b = out.mutable_get();
  BSON_APPEND_UTF8(b, "type", "op");
  BSON_APPEND_UTF8(b, "host", host.c_str());
  if (!info_.desc.empty()) BSON_APPEND_UTF8(b, "desc", info_.desc.c_str());
  if (info_.connection_id >= 0) BSON_APPEND_INT64(b, "connectionId", info_.connection_id);
  if (!info_.client.empty()) BSON_APPEND_UTF8(b, "client", info_.client.c_str());
  BSON_APPEND_BOOL(b, "active", true);
  BSON_APPEND_UTF8(b, "currentOpTime", IsoTime(std::chrono::system_clock::now()).c_str());
  BSON_APPEND_INT32(b, "opid", static_cast<int32_t>(opid_));
  const auto running = std::chrono::steady_clock::now() - start_;
  BSON_APPEND_INT64(b, "secs_running",
                    std::chrono::duration_cast<std::chrono::seconds>(running).count());
  BSON_APPEND_INT64(b, "microsecs_running",
                    std::chrono::duration_cast<std::chrono::microseconds>(running).count());
  BSON_APPEND_UTF8(b, "op", info_.op.c_str());
  BSON_APPEND_UTF8(b, "ns", info_.ns.c_str());
  if (info_.command != nullptr) {
    BSON_APPEND_DOCUMENT(b, "command", info_.command);
  } else {
    bson_t empty = BSON_INITIALIZER;
    BSON_APPEND_DOCUMENT(b, "command", &empty);
  }
  BSON_APPEND_INT32(b, "numYields", num_yields());
  BSON_APPEND_BOOL(b, "waitingForLock", waiting_for_slot_.load(std::memory_order_relaxed));
  if (killed()) BSON_APPEND_BOOL(b, "killPending", true);
  {
    std::lock_guard<std::mutex> lock(report_mutex_);
    if (!bson_empty(reported_.get())) bson_concat(b, reported_.get());
  }
  return out;
}

// Every command passes here twice, from every connection's thread: the
// mutex is held only to take an opid and to relink the tree. The operation
// and its map node are allocated (and freed) outside it, as a map node
// handle, so that connections rarely meet on it; when they did, each
// meeting cost a futex wait and wake-up (issue #18, bench/README.md "CPU
// per find, round 4").
std::shared_ptr<Operation> OperationRegistry::Start(OperationInfo info) {
  int64_t opid;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    // opid is a 32-bit int on the wire (MongoDB's OperationId as shown):
    // wrap before it would turn negative.
    if (next_opid_ > INT32_MAX) next_opid_ = 1;
    opid = next_opid_++;
  }
  // Allocated per command: a recycled block spares the 128-byte-aligned
  // allocation an Operation (it holds a BsonDoc) needs.
  auto op = std::allocate_shared<Operation>(ThreadRecycledAllocator<Operation>(), opid, std::move(info));
  RunningMap::node_type node = std::move(t_spare_node);
  if (node.empty()) {
    RunningMap staging;
    node = staging.extract(staging.emplace(opid, op).first);
  } else {
    node.key() = opid;
    node.mapped() = op;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  running_.insert(std::move(node));
  return op;
}

void OperationRegistry::Finish(int64_t opid) {
  RunningMap::node_type node;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    node = running_.extract(opid);
  }
  if (node.empty() || !t_spare_node.empty()) return;  // freed outside the mutex
  node.mapped().reset();
  t_spare_node = std::move(node);
}

std::vector<bson::BsonDoc> OperationRegistry::CurrentOps(const std::string& host) const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<bson::BsonDoc> out;
  out.reserve(running_.size());
  for (const auto& entry : running_) out.push_back(entry.second->ToCurrentOp(host));
  return out;
}

bool OperationRegistry::Kill(int64_t opid) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = running_.find(opid);
  if (it == running_.end()) return false;
  it->second->Kill();
  long_work_.WakeWaiters();
  return true;
}

ScopedOperation::ScopedOperation(OperationRegistry& registry, OperationInfo info)
    : registry_(registry), operation_(registry.Start(std::move(info))),
      previous_kill_flag_(query::current_operation_killed),
      previous_operation_(t_current_operation) {
  query::current_operation_killed = operation_->kill_flag();
  t_current_operation = operation_.get();
  if (query::current_yield_hook == nullptr) {
    ticket_.emplace(registry.long_work(), *operation_, operation_->start());
    query::current_yield_hook = &*ticket_;
  }
}

ScopedOperation::~ScopedOperation() {
  if (ticket_) query::current_yield_hook = nullptr;  // the ticket releases its slot
  query::current_operation_killed = previous_kill_flag_;
  t_current_operation = previous_operation_;
  registry_.Finish(operation_->opid());
}

}  // namespace tigerdoc::engine
