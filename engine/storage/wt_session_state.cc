#include "engine/storage/wt_session_state.h"

#include <wiredtiger.h>

namespace tigerdoc::storage {

namespace {

void CloseMapEntry(std::unordered_map<std::string, WT_CURSOR*>& map, const std::string& uri) {
  auto it = map.find(uri);
  if (it == map.end()) return;
  it->second->close(it->second);
  map.erase(it);
}

}  // namespace

WtSessionState* WtSessionState::Of(WT_SESSION* session) {
  return static_cast<WtSessionState*>(session->app_private);
}

WT_CURSOR* WtSessionState::PointCursor(WT_SESSION* session, const std::string& uri, Kind kind,
                                       int* ret) {
  auto& map = kind == Kind::kStrict ? strict : overwrite;
  auto it = map.find(uri);
  if (it != map.end()) {
    *ret = 0;
    return it->second;
  }
  WT_CURSOR* cursor = nullptr;
  *ret = session->open_cursor(session, uri.c_str(), nullptr,
                              kind == Kind::kStrict ? "overwrite=false" : "overwrite=true",
                              &cursor);
  if (*ret != 0) return nullptr;
  map.emplace(uri, cursor);
  return cursor;
}

WT_CURSOR* WtSessionState::TakeScanCursor(WT_SESSION* session, const std::string& uri, int* ret) {
  *ret = 0;
  auto it = idle_scans.find(uri);
  if (it != idle_scans.end() && !it->second.empty()) {
    WT_CURSOR* cursor = it->second.back();
    it->second.pop_back();
    return cursor;
  }
  WT_CURSOR* cursor = nullptr;
  *ret = session->open_cursor(session, uri.c_str(), nullptr, nullptr, &cursor);
  return *ret == 0 ? cursor : nullptr;
}

void WtSessionState::ReturnScanCursor(WT_CURSOR* cursor) {
  idle_scans[cursor->uri].push_back(cursor);
}

void WtSessionState::ResetAll() {
  // Reset releases the page a cursor is positioned on, so an idle session
  // pins nothing in the cache.
  for (auto& [uri, cursor] : strict) cursor->reset(cursor);
  for (auto& [uri, cursor] : overwrite) cursor->reset(cursor);
  for (auto& [uri, list] : idle_scans) {
    for (WT_CURSOR* cursor : list) cursor->reset(cursor);
  }
}

void WtSessionState::CloseAll() {
  for (auto& [uri, cursor] : strict) cursor->close(cursor);
  for (auto& [uri, cursor] : overwrite) cursor->close(cursor);
  for (auto& [uri, list] : idle_scans) {
    for (WT_CURSOR* cursor : list) cursor->close(cursor);
  }
  strict.clear();
  overwrite.clear();
  idle_scans.clear();
}

void WtSessionState::CloseFor(const std::string& uri) {
  CloseMapEntry(strict, uri);
  CloseMapEntry(overwrite, uri);
  auto it = idle_scans.find(uri);
  if (it != idle_scans.end()) {
    for (WT_CURSOR* cursor : it->second) cursor->close(cursor);
    idle_scans.erase(it);
  }
}

}  // namespace tigerdoc::storage
