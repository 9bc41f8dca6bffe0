#pragma once
// WtSessionState: what tigerdoc keeps beside each pooled WT_SESSION (hung off
// WT_SESSION::app_private): its cached cursors.
//
// Cursors are opened once per session per table and kept across borrows
// (WiredTiger's cursor-persist advice: opening a cursor costs far more than
// resetting one). Point operations use two cursors per table, one opened
// with overwrite=false (insert fails on an existing key, remove fails on a
// missing one) and one with overwrite=true (Put). Scans take cursors from a
// separate free list, so a scan can be open while point writes go to the
// same table, and two scans of one table can be open at once.
//
// Internal to engine/storage. A state is used only by the thread that holds
// its session, except while the session is idle in the pool, when the
// engine may close its cursors under the pool mutex.

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

struct __wt_session;
struct __wt_cursor;

namespace tigerdoc::storage {

struct WtSessionState {
  enum class Kind { kStrict, kOverwrite };

  // Cursor generation this state's cache belongs to; when the engine's
  // generation moves on (a table was dropped), the cache is closed on return.
  uint64_t cursor_epoch = 0;
  // Keyed by URI ("table:<name>").
  std::unordered_map<std::string, __wt_cursor*> strict;
  std::unordered_map<std::string, __wt_cursor*> overwrite;
  std::unordered_map<std::string, std::vector<__wt_cursor*>> idle_scans;
  // Point cursors handed out since the last ResetAll: only they can be
  // positioned (a session caches a dozen; resetting all of them was 1,500
  // instructions per request).
  std::vector<__wt_cursor*> handed_out;

  // Returns a cached point cursor, opening it on first use; nullptr and
  // *ret != 0 on failure.
  __wt_cursor* PointCursor(__wt_session* session, const std::string& uri, Kind kind, int* ret);
  // A scan cursor from the free list, or a new one.
  __wt_cursor* TakeScanCursor(__wt_session* session, const std::string& uri, int* ret);
  // Puts a scan cursor back on the free list; the caller has reset it.
  void ReturnScanCursor(__wt_cursor* cursor);

  // Resets the point cursors handed out since the last call (idle scan
  // cursors are reset already), so an idle session pins no page.
  void ResetAll();
  void CloseAll();
  void CloseFor(const std::string& uri);

  static WtSessionState* Of(__wt_session* session);

 private:
  void NoteHandedOut(__wt_cursor* cursor);
};

}  // namespace tigerdoc::storage
