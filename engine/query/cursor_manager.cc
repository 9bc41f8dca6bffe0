#include "engine/query/cursor_manager.h"

#include <random>
#include <vector>

namespace tigerdoc::query {
namespace {

int64_t RandomCursorId() {
  static thread_local std::mt19937_64 rng(std::random_device{}());
  // Positive 63-bit ids: drivers treat cursor ids as signed int64 and 0 as
  // "exhausted".
  int64_t id = 0;
  while (id == 0) id = static_cast<int64_t>(rng() >> 1);
  return id;
}

}  // namespace

CursorManager::~CursorManager() {
  // Executors may own spill files; release them before the manager.
  std::lock_guard<std::mutex> lock(mutex_);
  idle_.clear();
}

CursorManager::Pin::~Pin() {
  if (cursor_ == nullptr) return;
  manager_->Unpin(cursor_->id);
  cursor_.reset();  // outside the manager's lock: may close a spill file
}

void CursorManager::Pin::Return() {
  INVARIANT(cursor_ != nullptr);
  manager_->CheckIn(std::move(cursor_));
}

int64_t CursorManager::Register(std::string ns, std::unique_ptr<PlanExecutor> executor,
                                bool no_timeout,
                                std::optional<std::chrono::steady_clock::duration> leftover_time) {
  auto cursor = std::make_unique<ClientCursor>();
  cursor->ns = std::move(ns);
  cursor->executor = std::move(executor);
  cursor->no_timeout = no_timeout;
  cursor->leftover_time = leftover_time;
  return Add(std::move(cursor));
}

int64_t CursorManager::Register(std::string ns, std::unique_ptr<BatchSource> source,
                                std::optional<std::chrono::steady_clock::duration> leftover_time) {
  auto cursor = std::make_unique<ClientCursor>();
  cursor->ns = std::move(ns);
  cursor->other_source = std::move(source);
  cursor->leftover_time = leftover_time;
  return Add(std::move(cursor));
}

int64_t CursorManager::Add(std::unique_ptr<ClientCursor> cursor) {
  cursor->last_used = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> lock(mutex_);
  int64_t id = RandomCursorId();
  while (idle_.count(id) || pinned_.count(id)) id = RandomCursorId();
  cursor->id = id;
  idle_.emplace(id, std::move(cursor));
  ++total_opened_;
  return id;
}

StatusWith<CursorManager::Pin> CursorManager::CheckOut(int64_t id, const std::string& ns) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (pinned_.count(id)) {
    return Status(ErrorCode::kCursorInUse, "cursor id " + std::to_string(id) + " is already in use");
  }
  auto it = idle_.find(id);
  if (it == idle_.end()) {
    return Status(ErrorCode::kCursorNotFound, "cursor id " + std::to_string(id) + " not found");
  }
  if (it->second->ns != ns) {
    return Status(ErrorCode::kUnauthorized,
                  "Requested getMore on namespace '" + ns +
                      "', but cursor belongs to a different namespace " + it->second->ns);
  }
  std::unique_ptr<ClientCursor> cursor = std::move(it->second);
  idle_.erase(it);
  pinned_.emplace(id, cursor.get());
  return Pin(this, std::move(cursor));
}

bool CursorManager::SetOwner(int64_t id, std::string owner) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = idle_.find(id); it != idle_.end()) {
    it->second->owner = std::move(owner);
    return true;
  }
  if (auto it = pinned_.find(id); it != pinned_.end()) {
    it->second->owner = std::move(owner);
    return true;
  }
  return false;
}

std::optional<std::string> CursorManager::OwnerOf(int64_t id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = idle_.find(id); it != idle_.end()) return it->second->owner;
  if (auto it = pinned_.find(id); it != pinned_.end()) return it->second->owner;
  return std::nullopt;
}

void CursorManager::CheckIn(std::unique_ptr<ClientCursor> cursor) {
  cursor->last_used = std::chrono::steady_clock::now();
  std::unique_lock<std::mutex> lock(mutex_);
  pinned_.erase(cursor->id);
  if (cursor->kill_pending.load()) {
    lock.unlock();
    cursor.reset();
    return;
  }
  int64_t id = cursor->id;
  idle_.emplace(id, std::move(cursor));
}

void CursorManager::Unpin(int64_t id) {
  std::lock_guard<std::mutex> lock(mutex_);
  pinned_.erase(id);
}

bool CursorManager::Kill(int64_t id, const std::string& ns) {
  std::unique_ptr<ClientCursor> doomed;  // an idle cursor, destroyed after the lock is released
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto pinned = pinned_.find(id); pinned != pinned_.end()) {
      if (pinned->second->ns != ns) return false;
      pinned->second->kill_pending.store(true);
    } else {
      auto it = idle_.find(id);
      if (it == idle_.end() || it->second->ns != ns) return false;
      doomed = std::move(it->second);
      idle_.erase(it);
    }
  }
  if (doomed == nullptr && on_pinned_kill_) on_pinned_kill_();  // a pinned one was marked
  return true;
}

int CursorManager::ReapIdle() {
  auto now = std::chrono::steady_clock::now();
  const std::chrono::milliseconds timeout = idle_timeout();
  std::vector<std::unique_ptr<ClientCursor>> doomed;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto it = idle_.begin(); it != idle_.end();) {
      if (!it->second->no_timeout && now - it->second->last_used > timeout) {
        doomed.push_back(std::move(it->second));
        it = idle_.erase(it);
      } else {
        ++it;
      }
    }
    timed_out_ += static_cast<int64_t>(doomed.size());
  }
  return static_cast<int>(doomed.size());
}

size_t CursorManager::open_count() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return idle_.size() + pinned_.size();
}

CursorStats CursorManager::Stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  CursorStats stats;
  stats.open_pinned = static_cast<int64_t>(pinned_.size());
  stats.open_total = static_cast<int64_t>(idle_.size()) + stats.open_pinned;
  for (const auto& entry : idle_) stats.open_no_timeout += entry.second->no_timeout ? 1 : 0;
  for (const auto& entry : pinned_) stats.open_no_timeout += entry.second->no_timeout ? 1 : 0;
  stats.total_opened = total_opened_;
  stats.timed_out = timed_out_;
  return stats;
}

}  // namespace tigerdoc::query
