// Session: a borrowed WT_SESSION with its cached cursors (wt_session_state.h).

#include <wiredtiger.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "engine/storage/storage_engine.h"
#include "engine/storage/wt_error.h"
#include "engine/storage/wt_session_state.h"

namespace tigerdoc::storage {

namespace {

constexpr char kTableFormat[] = "key_format=u,value_format=u";
// How long DropTable waits for other sessions to release their cursors.
constexpr auto kDropBusyTimeout = std::chrono::seconds(5);

std::string Uri(std::string_view table) {
  std::string uri = "table:";
  uri.append(table);
  return uri;
}

WT_ITEM Item(std::string_view bytes) {
  WT_ITEM item;
  std::memset(&item, 0, sizeof(item));
  item.data = bytes.data();
  item.size = bytes.size();
  return item;
}

}  // namespace

Session::~Session() {
  if (session_ == nullptr || outer_ != nullptr) return;
  Rollback();
  engine_->ReturnSession(session_);
}

Session::Session(Session&& other) noexcept
    : engine_(other.engine_),
      session_(other.session_),
      in_txn_(other.in_txn_),
      outer_(other.outer_),
      on_commit_(std::move(other.on_commit_)),
      on_rollback_(std::move(other.on_rollback_)),
      before_commit_(std::move(other.before_commit_)),
      txn_state_(std::move(other.txn_state_)) {
  other.session_ = nullptr;
  other.in_txn_ = false;
}

Status Session::CreateTable(std::string_view name) {
  RETURN_IF_ERROR(engine_->CheckSpaceForWrite());
  std::string uri = Uri(name);
  return WtToStatus(session_->create(session_, uri.c_str(), kTableFormat), "create " + uri);
}

Status Session::DropTable(std::string_view name) {
  INVARIANT(!in_txn_);
  std::string uri = Uri(name);
  WtSessionState::Of(session_)->CloseFor(uri);
  const auto deadline = std::chrono::steady_clock::now() + kDropBusyTimeout;
  for (;;) {
    // Idle pooled sessions may have cached cursors on the table; sessions in
    // use release theirs when they come back to the pool, so retry.
    engine_->ReleaseCursorsFor(uri);
    int ret = session_->drop(session_, uri.c_str(), "force=true");
    if (ret != EBUSY || std::chrono::steady_clock::now() >= deadline) {
      return WtToStatus(ret, "drop " + uri);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

void Session::CloseCachedCursors() { WtSessionState::Of(session_)->CloseAll(); }

StatusWith<std::vector<std::string>> Session::ListTables() {
  WT_CURSOR* cursor = nullptr;
  int ret = session_->open_cursor(session_, "metadata:", nullptr, nullptr, &cursor);
  if (ret != 0) return WtToStatus(ret, "open metadata cursor");
  std::vector<std::string> tables;
  constexpr std::string_view kPrefix = "table:";
  while ((ret = cursor->next(cursor)) == 0) {
    const char* key = nullptr;
    ret = cursor->get_key(cursor, &key);
    if (ret != 0) break;
    std::string_view uri(key);
    if (uri.substr(0, kPrefix.size()) == kPrefix) tables.emplace_back(uri.substr(kPrefix.size()));
  }
  cursor->close(cursor);
  if (ret != WT_NOTFOUND) return WtToStatus(ret, "list tables");
  return tables;
}

namespace {

Status OuterTransactionEnded() {
  return Status(ErrorCode::kNoSuchTransaction,
                "the transaction was aborted by an earlier failure in it");
}

}  // namespace

Status Session::Begin() {
  if (outer_ != nullptr) return outer_->in_txn_ ? Status::OK() : OuterTransactionEnded();
  INVARIANT(!in_txn_);
  // No configuration string: the session was opened with isolation=snapshot
  // (StorageEngine::NewSession), which a transaction inherits, and WiredTiger
  // checks and parses a given string on every begin (7,900 instructions of
  // an update by _id, WiredTiger 3.2.1 under callgrind).
  int ret = session_->begin_transaction(session_, nullptr);
  if (ret != 0) return WtToStatus(ret, "begin transaction");
  in_txn_ = true;
  kept_position_ = nullptr;
  return Status::OK();
}

Status Session::Commit() {
  if (outer_ != nullptr) return outer_->in_txn_ ? Status::OK() : OuterTransactionEnded();
  INVARIANT(in_txn_);
  // Pre-commit work may add commit and rollback callbacks: run it first.
  std::vector<std::function<Status(Session&)>> before = std::move(before_commit_);
  before_commit_.clear();
  for (auto& fn : before) {
    Status status = fn(*this);
    if (!status.ok()) {
      Rollback();
      return status;
    }
  }
  txn_state_.reset();
  in_txn_ = false;
  // A record read but not replaced (no match, a no-op update): WiredTiger
  // would copy its value into the positioned cursor at commit
  // (__wt_session_copy_values walks every cursor of the session).
  if (kept_position_ != nullptr) {
    kept_position_->reset(kept_position_);
    kept_position_ = nullptr;
  }
  std::vector<std::function<void()>> callbacks = std::move(on_commit_);
  std::vector<std::function<void()>> undo = std::move(on_rollback_);
  on_commit_.clear();
  on_rollback_.clear();
  // Acknowledged means journaled to the OS (survives kill -9), one of two
  // ways. Usually (one connection writing) WiredTiger writes the commit's
  // records within commit_transaction (transaction_sync=(enabled=true,
  // method=none), storage_engine.cc): one write(2), and no log_flush call
  // after it (4,700 fewer instructions per one-document insert,
  // bench/README.md). While another commit does that, a commit says
  // "sync=off" and leaves its records in WiredTiger's log buffer for the
  // group commit (WriteJournal: one write for every waiting committer).
  // Concurrent commits must not each write their own: WiredTiger's writer
  // yields until earlier slots are written, and 8 threads on 2 cores fell
  // 6x that way.
  const bool journaled_by_commit = engine_->options().in_memory || engine_->TakeOwnJournalWrite();
  // A failed commit has rolled the transaction back.
  int ret = session_->commit_transaction(session_, journaled_by_commit ? nullptr : "sync=off");
  if (journaled_by_commit && !engine_->options().in_memory) engine_->ReleaseOwnJournalWrite();
  if (ret != 0) {
    for (auto& fn : undo) fn();
    return WtToStatus(ret, "commit");
  }
  // The callbacks run after the write, so what they publish (change stream
  // events) never shows a change a crash could still lose.
  Status journaled = journaled_by_commit ? Status::OK() : engine_->WriteJournal(session_);
  for (auto& fn : callbacks) fn();
  return journaled;
}

void Session::BeforeCommit(std::function<Status(Session&)> fn) {
  if (outer_ != nullptr) return outer_->BeforeCommit(std::move(fn));
  INVARIANT(in_txn_);
  before_commit_.push_back(std::move(fn));
}

void Session::Rollback() {
  if (outer_ != nullptr) return outer_->Rollback();
  before_commit_.clear();
  txn_state_.reset();
  kept_position_ = nullptr;
  on_commit_.clear();
  std::vector<std::function<void()>> undo = std::move(on_rollback_);
  on_rollback_.clear();
  if (!in_txn_) return;
  in_txn_ = false;
  session_->rollback_transaction(session_, nullptr);
  for (auto& fn : undo) fn();
}

void Session::OnRollback(std::function<void()> fn) {
  if (outer_ != nullptr) return outer_->OnRollback(std::move(fn));
  INVARIANT(in_txn_);
  on_rollback_.push_back(std::move(fn));
}

void Session::OnCommit(std::function<void()> fn) {
  if (outer_ != nullptr) return outer_->OnCommit(std::move(fn));
  INVARIANT(in_txn_);
  on_commit_.push_back(std::move(fn));
}

WT_CURSOR* Session::CachedCursor(std::string_view table, bool overwrite, Status* status) {
  std::string uri = Uri(table);
  int ret = 0;
  WT_CURSOR* cursor = WtSessionState::Of(session_)->PointCursor(
      session_, uri,
      overwrite ? WtSessionState::Kind::kOverwrite : WtSessionState::Kind::kStrict, &ret);
  if (cursor == nullptr) *status = WtToStatus(ret, "open cursor on " + uri);
  return cursor;
}

Status Session::Insert(std::string_view table, std::string_view key, std::string_view value) {
  return Write(table, key, value, /*overwrite=*/false);
}

Status Session::Put(std::string_view table, std::string_view key, std::string_view value) {
  return Write(table, key, value, /*overwrite=*/true);
}

// Insert (an existing key is DuplicateKey) or Put (overwrite); outside a
// transaction the write is auto-committed, so it is journaled before return.
Status Session::Write(std::string_view table, std::string_view key, std::string_view value,
                      bool overwrite) {
  // Before WiredTiger: it panics when a journal write meets a full disk.
  RETURN_IF_ERROR(engine_->CheckSpaceForWrite());
  Status status;
  WT_CURSOR* cursor = CachedCursor(table, overwrite, &status);
  if (cursor == nullptr) return status;
  WT_ITEM k = Item(key), v = Item(value);
  cursor->set_key(cursor, &k);
  cursor->set_value(cursor, &v);
  int ret = cursor->insert(cursor);
  cursor->reset(cursor);
  if (ret == 0) return in_transaction() ? Status::OK() : engine_->WriteJournal(session_);
  return WtToStatus(ret, (overwrite ? "put into " : "insert into ") + std::string(table));
}

Status Session::Remove(std::string_view table, std::string_view key) {
  RETURN_IF_ERROR(engine_->CheckSpaceForRemove());
  Status status;
  WT_CURSOR* cursor = CachedCursor(table, /*overwrite=*/false, &status);
  if (cursor == nullptr) return status;
  WT_ITEM k = Item(key);
  cursor->set_key(cursor, &k);
  int ret = cursor->remove(cursor);
  cursor->reset(cursor);
  if (ret == 0) return in_transaction() ? Status::OK() : engine_->WriteJournal(session_);
  return WtToStatus(ret, "remove from " + std::string(table));
}

Status Session::RemoveAll(std::string_view table) {
  // Keys first: removing under an open scan of the same table would move it.
  std::vector<std::string> keys;
  {
    ASSIGN_OR_RETURN(Cursor cursor, Scan(table, "", ""));
    Status status;
    while (cursor.Next(&status)) keys.emplace_back(cursor.key());
    RETURN_IF_ERROR(status);
  }
  for (const std::string& key : keys) RETURN_IF_ERROR(Remove(table, key));
  return Status::OK();
}

StatusWith<std::optional<std::string>> Session::Get(std::string_view table, std::string_view key) {
  Status status;
  WT_CURSOR* cursor = CachedCursor(table, /*overwrite=*/false, &status);
  if (cursor == nullptr) return status;
  WT_ITEM k = Item(key);
  cursor->set_key(cursor, &k);
  int ret = cursor->search(cursor);
  if (ret == WT_NOTFOUND) {
    cursor->reset(cursor);
    return std::optional<std::string>();
  }
  if (ret != 0) {
    cursor->reset(cursor);
    return WtToStatus(ret, "read from " + std::string(table));
  }
  WT_ITEM v;
  ret = cursor->get_value(cursor, &v);
  // Copy before reset: the item points into a page the reset releases.
  std::optional<std::string> value;
  if (ret == 0) value.emplace(static_cast<const char*>(v.data), v.size);
  cursor->reset(cursor);
  if (ret != 0) return WtToStatus(ret, "read from " + std::string(table));
  return value;
}

StatusWith<bool> Session::Read(std::string_view table, std::string_view key,
                               const std::function<void(std::string_view value)>& read) {
  Status status;
  WT_CURSOR* cursor = CachedCursor(table, /*overwrite=*/false, &status);
  if (cursor == nullptr) return status;
  Session& owner = Owner();
  if (owner.kept_position_ == cursor) owner.kept_position_ = nullptr;
  WT_ITEM k = Item(key);
  cursor->set_key(cursor, &k);
  int ret = cursor->search(cursor);
  if (ret == WT_NOTFOUND) {
    cursor->reset(cursor);
    return false;
  }
  WT_ITEM v;
  if (ret == 0) ret = cursor->get_value(cursor, &v);
  if (ret != 0) {
    cursor->reset(cursor);
    return WtToStatus(ret, "read from " + std::string(table));
  }
  read(std::string_view(static_cast<const char*>(v.data), v.size));
  // Outside a transaction a positioned cursor would hold its snapshot and
  // page until the session is returned; inside one the transaction holds
  // the snapshot anyway.
  if (in_transaction()) {
    owner.kept_position_ = cursor;
  } else {
    cursor->reset(cursor);
  }
  return true;
}

namespace {

// Whether `cursor` (a point cursor of some table) stands on `key` of `table`:
// its key points into the tree (a search found it and nothing moved it
// since) and is `key`.
bool PositionedOn(WT_CURSOR* cursor, std::string_view table, std::string_view key) {
  std::string_view uri = cursor->uri;
  constexpr std::string_view kPrefix = "table:";
  if (uri.size() != kPrefix.size() + table.size() || uri.substr(kPrefix.size()) != table) {
    return false;
  }
  if ((cursor->flags & WT_CURSTD_KEY_INT) == 0) return false;
  WT_ITEM k;
  if (cursor->get_key(cursor, &k) != 0) return false;
  return k.size == key.size() && std::memcmp(k.data, key.data(), key.size()) == 0;
}

}  // namespace

Status Session::Replace(std::string_view table, std::string_view key, std::string_view value) {
  Session& owner = Owner();
  WT_CURSOR* cursor = owner.kept_position_;
  owner.kept_position_ = nullptr;
  if (cursor == nullptr || !in_transaction() || !PositionedOn(cursor, table, key)) {
    return Put(table, key, value);
  }
  RETURN_IF_ERROR(engine_->CheckSpaceForWrite());
  // The update checks for write conflicts as a searched one does
  // (__wt_row_modify), so a concurrent committed change is WriteConflict.
  WT_ITEM v = Item(value);
  cursor->set_value(cursor, &v);
  int ret = cursor->update(cursor);
  cursor->reset(cursor);
  if (ret == 0) return Status::OK();
  return WtToStatus(ret, "put into " + std::string(table));
}

StatusWith<Cursor> Session::Scan(std::string_view table, std::string_view lower,
                                 std::string_view upper) {
  std::string uri = Uri(table);
  int ret = 0;
  WT_CURSOR* cursor = WtSessionState::Of(session_)->TakeScanCursor(session_, uri, &ret);
  if (cursor == nullptr) return WtToStatus(ret, "open cursor on " + uri);
  return Cursor(cursor, std::string(upper), std::string(lower));
}

}  // namespace tigerdoc::storage
