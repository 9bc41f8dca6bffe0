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
    NoteHandedOut(it->second);
    return it->second;
  }
  WT_CURSOR* cursor = nullptr;
  *ret = session->open_cursor(session, uri.c_str(), nullptr,
                              kind == Kind::kStrict ? "overwrite=false" : "overwrite=true",
                              &cursor);
  if (*ret != 0) return nullptr;
  map.emplace(uri, cursor);
  NoteHandedOut(cursor);
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

void WtSessionState::NoteHandedOut(WT_CURSOR* cursor) {
  // A request uses a handful of point cursors: a linear look is the fastest.
  for (WT_CURSOR* known : handed_out) {
    if (known == cursor) return;
  }
  handed_out.push_back(cursor);
}

void WtSessionState::ResetAll() {
  // Reset releases the page a cursor is positioned on, so an idle session
  // pins nothing in the cache. A cached point cursor not handed out since
  // the last reset cannot be positioned.
  // Idle scan cursors were reset when they came back (Cursor's and
  // DirectedCursor's destructors, the only callers of ReturnScanCursor).
  for (WT_CURSOR* cursor : handed_out) cursor->reset(cursor);
  handed_out.clear();
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
  handed_out.clear();
}

void WtSessionState::CloseFor(const std::string& uri) {
  std::erase_if(handed_out, [&](WT_CURSOR* cursor) { return uri == cursor->uri; });
  CloseMapEntry(strict, uri);
  CloseMapEntry(overwrite, uri);
  auto it = idle_scans.find(uri);
  if (it != idle_scans.end()) {
    for (WT_CURSOR* cursor : it->second) cursor->close(cursor);
    idle_scans.erase(it);
  }
}

}  // namespace tigerdoc::storage
