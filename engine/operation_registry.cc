#include "engine/operation_registry.h"

#include <algorithm>
#include <ctime>
#include <utility>

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

// This thread's operation for its outermost command, reused by the next
// (see the header's Ownership).
thread_local Operation t_own_operation;
thread_local bool t_own_operation_busy = false;

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

static_assert(sizeof(OperationInfo) == 4 * sizeof(std::string) + sizeof(const bson_t*) +
                  sizeof(int64_t) + sizeof(std::optional<std::chrono::steady_clock::time_point>),
              "Operation::Reset swaps every field of OperationInfo: add a new one there");

namespace {

// Swaps two strings unless they hold the same text (then either holds what
// both should): a connection's commands mostly repeat their client, desc,
// op and namespace, and swapping short strings copies their bytes.
void SwapUnlessEqual(std::string& a, std::string& b) {
  if (a != b) a.swap(b);
}

}  // namespace

void Operation::Reset(OperationInfo& info) {
  // Member by member: std::swap of the struct moved every string three
  // times (about 400 instructions).
  SwapUnlessEqual(info_.ns, info.ns);
  SwapUnlessEqual(info_.op, info.op);
  std::swap(info_.command, info.command);
  SwapUnlessEqual(info_.client, info.client);
  std::swap(info_.connection_id, info.connection_id);
  SwapUnlessEqual(info_.desc, info.desc);
  std::swap(info_.deadline, info.deadline);
  start_ = std::chrono::steady_clock::now();
  killed_.store(false, std::memory_order_relaxed);
  num_yields_.store(0, std::memory_order_relaxed);
  waiting_for_slot_.store(false, std::memory_order_relaxed);
  if (!bson_empty(reported_.get())) reported_ = bson::BsonDoc();
  // Cleared in place: the plan summary's buffer serves the next command.
  stats_.plan_summary.clear();
  stats_.keys_examined = 0;
  stats_.docs_examined = 0;
  stats_.n_returned = OperationStats{}.n_returned;
}

// Every command passes here twice, from every connection's thread: the
// mutex is held only to take an opid and to link or unlink the operation,
// so that connections rarely meet on it (when they did, each meeting cost
// a futex wait and wake-up: issue #18, bench/README.md "CPU per find,
// round 4").
Operation* OperationRegistry::Start(OperationInfo& info) {
  Operation* op;
  if (!t_own_operation_busy) {
    op = &t_own_operation;
    t_own_operation_busy = true;
  } else {
    op = new Operation();  // a command inside a command
  }
  op->Reset(info);
  std::lock_guard<std::mutex> lock(mutex_);
  // opid is a 32-bit int on the wire (MongoDB's OperationId as shown):
  // wrap before it would turn negative.
  if (next_opid_ > INT32_MAX) next_opid_ = 1;
  op->opid_ = next_opid_++;
  op->prev_ = nullptr;
  op->next_ = head_;
  if (head_ != nullptr) head_->prev_ = op;
  head_ = op;
  return op;
}

void OperationRegistry::Finish(Operation* op) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (op->prev_ != nullptr) {
      op->prev_->next_ = op->next_;
    } else {
      head_ = op->next_;
    }
    if (op->next_ != nullptr) op->next_->prev_ = op->prev_;
    op->prev_ = op->next_ = nullptr;
  }
  if (op == &t_own_operation) {
    t_own_operation_busy = false;
  } else {
    delete op;  // a nested command's, outside the mutex
  }
}

std::vector<bson::BsonDoc> OperationRegistry::CurrentOps(const std::string& host) const {
  std::vector<std::pair<int64_t, bson::BsonDoc>> found;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const Operation* op = head_; op != nullptr; op = op->next_) {
      found.emplace_back(op->opid(), op->ToCurrentOp(host));
    }
  }
  std::sort(found.begin(), found.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<bson::BsonDoc> out;
  out.reserve(found.size());
  for (auto& entry : found) out.push_back(std::move(entry.second));
  return out;
}

bool OperationRegistry::Kill(int64_t opid) {
  bool found = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (Operation* op = head_; op != nullptr && !found; op = op->next_) {
      if (op->opid() == opid) {
        op->Kill();
        found = true;
      }
    }
  }
  if (found) long_work_.WakeWaiters();  // a waiting one sees its flag at once
  return found;
}

ScopedOperation::ScopedOperation(OperationRegistry& registry, OperationInfo info)
    : ScopedOperation(registry, &info) {}

ScopedOperation::ScopedOperation(OperationRegistry& registry, OperationInfo* info)
    : registry_(registry), operation_(registry.Start(*info)),
      previous_kill_flag_(query::current_operation_killed),
      previous_operation_(t_current_operation) {
  query::current_operation_killed = operation_->kill_flag();
  t_current_operation = operation_;
  if (query::current_yield_hook == nullptr) {
    ticket_.emplace(registry.long_work(), *operation_, operation_->start());
    query::current_yield_hook = &*ticket_;
  }
}

ScopedOperation::~ScopedOperation() {
  if (ticket_) {
    query::current_yield_hook = nullptr;
    ticket_.reset();  // releases its slot before the operation is reused
  }
  query::current_operation_killed = previous_kill_flag_;
  t_current_operation = previous_operation_;
  registry_.Finish(operation_);
}

}  // namespace tigerdoc::engine
