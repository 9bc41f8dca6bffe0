#pragma once
// What the in-process WiredTiger ceilings share (WtBackend's workers in
// tigerdoc_load, WiredTigerYcsb's clients in tigerdoc_ycsb): one table of
// raw keys and BSON values, recreated empty before a run, and per client
// thread a session of its own with one cursor on it, each operation one
// transaction. Includes <wiredtiger.h>: see wt_backend.h for why the
// benches may.
//
// Thread-safety: RecreateTable and OpenTableCursor as WT_CONNECTION (any
// thread); a WtTableSession is used by one thread.

#include <wiredtiger.h>

#include <string>

#include "engine/base/status.h"

namespace tigerdoc::bench {

inline Status WtError(int ret, const std::string& what) {
  return Status(ErrorCode::kInternalError, what + ": " + wiredtiger_strerror(ret));
}

// Drops `table` (absent the first time) and creates it empty, with the
// server's key_format=u,value_format=u.
inline Status RecreateTable(WT_CONNECTION* conn, const char* table) {
  WT_SESSION* session = nullptr;
  int ret = conn->open_session(conn, nullptr, nullptr, &session);
  if (ret != 0) return WtError(ret, "open_session");
  session->drop(session, table, "force=true");
  ret = session->create(session, table, "key_format=u,value_format=u");
  session->close(session, nullptr);
  return ret == 0 ? Status::OK() : WtError(ret, "create");
}

// Opens a session of `conn` and a cursor on `table` in it; the caller hands
// both to a WtTableSession.
inline Status OpenTableCursor(WT_CONNECTION* conn, const char* table, WT_SESSION** session,
                              WT_CURSOR** cursor) {
  int ret = conn->open_session(conn, nullptr, nullptr, session);
  if (ret != 0) return WtError(ret, "open_session");
  ret = (*session)->open_cursor(*session, table, nullptr, nullptr, cursor);
  if (ret != 0) {
    (*session)->close(*session, nullptr);
    return WtError(ret, "open_cursor");
  }
  return Status::OK();
}

// The session a client thread's operations run in, for the clients to
// derive from: owns `session` (closed at destruction, its cursor with it).
class WtTableSession {
 public:
  WtTableSession(const WtTableSession&) = delete;
  WtTableSession& operator=(const WtTableSession&) = delete;

 protected:
  WtTableSession(WT_SESSION* session, WT_CURSOR* cursor) : session_(session), cursor_(cursor) {}
  ~WtTableSession() { session_->close(session_, nullptr); }

  void SetKey(const std::string& key) {
    key_item_ = WT_ITEM{key.data(), key.size(), nullptr, 0, 0};
    cursor_->set_key(cursor_, &key_item_);
  }

  // Copies the current value into scratch_, as the server copies a
  // document out before replying.
  int CopyValue() {
    WT_ITEM value;
    int ret = cursor_->get_value(cursor_, &value);
    if (ret == 0) scratch_.assign(static_cast<const char*>(value.data), value.size);
    return ret;
  }

  // Commits on success, rolls back otherwise; true when committed.
  bool Finish(int ret) {
    cursor_->reset(cursor_);
    if (ret != 0) {
      session_->rollback_transaction(session_, nullptr);
      return false;
    }
    return session_->commit_transaction(session_, nullptr) == 0;
  }

  WT_SESSION* session_;
  WT_CURSOR* cursor_;  // owned by session_
  WT_ITEM key_item_{};
  std::string scratch_;
};

}  // namespace tigerdoc::bench
