#include "engine/query/cursor_manager.h"

#include <random>

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

int64_t CursorManager::Register(std::string ns, std::unique_ptr<PlanExecutor> executor,
                                bool no_timeout) {
  auto cursor = std::make_unique<ClientCursor>();
  cursor->ns = std::move(ns);
  cursor->executor = std::move(executor);
  cursor->no_timeout = no_timeout;
  cursor->last_used = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> lock(mutex_);
  int64_t id = RandomCursorId();
  while (cursors_.count(id)) id = RandomCursorId();
  cursor->id = id;
  cursors_.emplace(id, std::move(cursor));
  return id;
}

StatusWith<std::unique_ptr<ClientCursor>> CursorManager::CheckOut(int64_t id, const std::string& ns) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = cursors_.find(id);
  if (it == cursors_.end() || it->second == nullptr) {
    return Status(ErrorCode::kCursorNotFound, "cursor id " + std::to_string(id) + " not found");
  }
  if (it->second->ns != ns) {
    return Status(ErrorCode::kUnauthorized,
                  "Requested getMore on namespace '" + ns + "', but cursor belongs to a different namespace " +
                      it->second->ns);
  }
  std::unique_ptr<ClientCursor> cursor = std::move(it->second);
  cursors_.erase(it);
  return cursor;
}

void CursorManager::CheckIn(std::unique_ptr<ClientCursor> cursor) {
  cursor->last_used = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> lock(mutex_);
  int64_t id = cursor->id;
  cursors_.emplace(id, std::move(cursor));
}

bool CursorManager::Kill(int64_t id, const std::string& ns) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = cursors_.find(id);
  if (it == cursors_.end() || it->second->ns != ns) return false;
  cursors_.erase(it);
  return true;
}

int CursorManager::ReapIdle() {
  auto now = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> lock(mutex_);
  int reaped = 0;
  for (auto it = cursors_.begin(); it != cursors_.end();) {
    if (!it->second->no_timeout && now - it->second->last_used > idle_timeout_) {
      it = cursors_.erase(it);
      ++reaped;
    } else {
      ++it;
    }
  }
  return reaped;
}

size_t CursorManager::open_count() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return cursors_.size();
}

}  // namespace tigerdoc::query
