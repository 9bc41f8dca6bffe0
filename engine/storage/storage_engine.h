#pragma once
// StorageEngine: one WiredTiger connection per data directory, and the
// sessions, transactions and cursors that the layers above use.
//
// This is the only public door to WiredTiger: <wiredtiger.h> is included
// only by .cc files under engine/storage/, so nothing above can depend on it.
//
// Ownership: StorageEngine owns the WT_CONNECTION and a pool of WT sessions.
// A Session is borrowed for one operation (one command, one getMore) and
// returned on destruction, with its cached cursors reset. A Session and the
// Transactions/Cursors made from it may be used by one thread at a time, and
// must not outlive it (Cursors/Transactions must not outlive their Session,
// Sessions must not outlive the StorageEngine).
//
// Durability: the journal (WT log) is on. Every commit's log records are
// written to the operating system before Commit() returns (write(2), no
// fsync): by WiredTiger inside commit_transaction for one commit at a time
// (transaction_sync=(enabled=true,method=none)), by the group commit
// (WriteJournal) for the commits that overlap it. So an acknowledged write
// survives kill -9 of the server; FlushJournal() also
// fsyncs (j:true), and a background thread fsyncs every
// journal_flush_interval_ms (group commit). Checkpoints run every
// checkpoint_interval_secs. An in-memory engine has no journal and no
// checkpoints; FlushJournal() is then a no-op.
//
// Tables are WiredTiger tables with key_format=u,value_format=u: keys sort
// by memcmp of their bytes, a shorter key before its extensions.
//
// Thread-safety: StorageEngine methods are thread-safe.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/status.h"

struct __wt_connection;
struct __wt_session;
struct __wt_cursor;

namespace tigerdoc::storage {

struct StorageOptions {
  std::string dbpath;               // created if missing; ignored when in_memory
  bool in_memory = false;           // for unit tests
  int64_t cache_size_mb = 1024;
  // Appended to tigerdoc's own wiredtiger_open configuration, so its keys
  // win (mongod's storage.wiredTiger.engineConfig.configString).
  std::string wiredtiger_config;
  int checkpoint_interval_secs = 60;   // 0: no periodic checkpoints
  int journal_flush_interval_ms = 100;  // 0: no background journal fsync
  // Upper bound on open WT sessions (pooled sessions plus WiredTiger's own
  // threads). The pool grows on demand up to this many.
  int session_max = 20000;
  // Free space kept on the data directory's file system (DiskSpaceGuard):
  // writes are refused with OutOfDiskSpace (14031) below it, and Open fails
  // below it. 0 turns the check off; kAutoDiskReserve means
  // cache_size_mb / 4 + 32 (the dirty part of the cache a checkpoint may
  // rewrite, plus journal headroom). Ignored when in_memory.
  static constexpr int64_t kAutoDiskReserve = -1;
  int64_t disk_reserve_mb = kAutoDiskReserve;
  int64_t EffectiveDiskReserveMb() const {
    return disk_reserve_mb == kAutoDiskReserve ? cache_size_mb / 4 + 32 : disk_reserve_mb;
  }
};

class Session;

class StorageEngine {
 public:
  // Fails (and writes nothing) when the data directory cannot be created or
  // written (e.g. a read-only file system: the message says so) or has less
  // free space than the reserve (OutOfDiskSpace, 14031).
  static StatusWith<std::unique_ptr<StorageEngine>> Open(const StorageOptions& options);
  ~StorageEngine();  // stops background threads, closes sessions and the connection
  StorageEngine(const StorageEngine&) = delete;
  StorageEngine& operator=(const StorageEngine&) = delete;

  // Borrows a session from the pool (creates one when the pool is empty).
  // While this thread has a TransactionBinding of this engine, returns a
  // view of the bound session instead, so that document reads and writes
  // join a client's transaction (engine/session/).
  Session NewSession();
  // Always a pooled session, never the bound transaction: for the catalog
  // and DDL, whose writes commit on their own.
  Session NewUnboundSession();

  // Blocks until every committed write is durable on disk (fsync of the
  // journal). Concurrent callers share fsyncs (group commit): one fsync
  // serves every caller that arrived before it started.
  Status FlushJournal();

  const StorageOptions& options() const { return options_; }

  // OK while the data directory's file system has room (DiskSpaceGuard);
  // OutOfDiskSpace (14031) otherwise. Session calls these before every
  // write; removes need half the reserve, so space can still be freed.
  Status CheckSpaceForWrite();
  Status CheckSpaceForRemove();

  // Used by Session's destructor.
  void ReturnSession(__wt_session* session);
  // Used by Session after a commit that left its records in WiredTiger's
  // buffer ("sync=off"): returns once they are written to the operating
  // system (group commit: one write serves every waiting committer).
  Status WriteJournal(__wt_session* session);
  // Whether a commit of this engine may write its own journal records
  // inside commit_transaction (Session::Commit): true for one commit at a
  // time, which then calls ReleaseOwnJournalWrite; the others share the
  // group commit's writes, so concurrent writers never each write their
  // own. Per engine: two engines in one process (unit tests) have
  // separate journals.
  bool TakeOwnJournalWrite();
  void ReleaseOwnJournalWrite();

 private:
  friend class Session;
  StorageEngine() = default;
  // Closes the cached cursors on `uri` of every idle pooled session and
  // makes sessions in use drop their whole cache when returned (a table
  // with open cursors cannot be dropped).
  void ReleaseCursorsFor(const std::string& uri);
  void JournalFlusherLoop();

  struct Impl;
  std::unique_ptr<Impl> impl_;
  StorageOptions options_;
  __wt_connection* conn_ = nullptr;
  std::atomic<bool> own_journal_write_{false};
};

class Cursor;

// A borrowed WiredTiger session. Move-only.
class Session {
 public:
  Session(StorageEngine* engine, __wt_session* session) : engine_(engine), session_(session) {}
  ~Session();
  Session(Session&& other) noexcept;
  Session& operator=(Session&&) = delete;
  Session(const Session&) = delete;

  // Tables: `name` is a plain identifier such as "coll-7-s0" (the "table:"
  // prefix is added here). Keys and values are raw bytes (key_format=u,
  // value_format=u). Creating an existing table is OK. Not transactional.
  Status CreateTable(std::string_view name);
  // Dropping a missing table is OK. Waits (up to a few seconds) for other
  // sessions to release cursors on the table; fails with InternalError
  // (EBUSY) if they don't. Not transactional.
  // REQUIRES: no transaction running; no Cursor of this session open on it.
  Status DropTable(std::string_view name);
  // Closes the cursors this session keeps cached between uses (a session in
  // use holds them until it returns to the pool): lets another session drop
  // a table this one has read, e.g. a $out replacing the collection it read.
  // REQUIRES: no Cursor of this session open.
  void CloseCachedCursors();
  // Names of all tables in the data directory (without "table:").
  StatusWith<std::vector<std::string>> ListTables();

  // Transactions (snapshot isolation). Writes outside a transaction are
  // auto-committed one by one. A conflicting write returns WriteConflict
  // (code 112): the caller rolls back and retries the whole unit. After a
  // failed write inside a transaction, only Rollback() is safe (a
  // DuplicateKey or NoSuchKey failure leaves the transaction usable).
  //
  // A view of a bound transaction (see NewSession) runs inside the outer
  // transaction: Begin and Commit only check that it is still running
  // (NoSuchTransaction, 251, once it is not), Rollback rolls the whole
  // outer transaction back, OnCommit/OnRollback wait for its end.
  Status Begin();
  Status Commit();    // REQUIRES: in a transaction
  void Rollback();    // no-op when no transaction is running
  bool in_transaction() const { return outer_ != nullptr ? outer_->in_txn_ : in_txn_; }
  // True for a view of a bound transaction: a write conflict then ends
  // the client's transaction instead of being retried (write_unit.h).
  bool joins_outer_transaction() const { return outer_ != nullptr; }
  // Runs `fn` after the running transaction commits successfully and its
  // journal records were written to the operating system; dropped on
  // rollback. Used for in-memory state that must follow committed data
  // (size counters, caches). REQUIRES: in a transaction.
  void OnCommit(std::function<void()> fn);
  // Runs `fn` when the running transaction ends without committing (a
  // Rollback(), or a Commit() that failed); dropped on commit. Used to
  // release in-memory reservations a write took. REQUIRES: in a transaction.
  void OnRollback(std::function<void()> fn);
  // Runs `fn` inside the running transaction just before it commits (the
  // change log writes its rows there, so they commit with the change). A
  // failure rolls the transaction back (OnRollback callbacks run) and is
  // Commit()'s result. REQUIRES: in a transaction.
  void BeforeCommit(std::function<Status(Session&)> fn);
  // State a layer above keeps for the running transaction (the change
  // log's pending events): set by that layer, dropped when the
  // transaction ends (commit or rollback).
  struct TransactionState {
    virtual ~TransactionState() = default;
  };
  // A view of a bound transaction shares its owner's (one client
  // transaction, one set of pending change-log events).
  std::unique_ptr<TransactionState>& transaction_state() {
    return outer_ != nullptr ? outer_->txn_state_ : txn_state_;
  }

  // Point operations on one table.
  // Insert fails with DuplicateKey (code 11000, a bare message the caller
  // replaces) when the key exists.
  Status Insert(std::string_view table, std::string_view key, std::string_view value);
  // Insert or overwrite.
  Status Put(std::string_view table, std::string_view key, std::string_view value);
  // Removing a missing key returns NoSuchKey (code 4); inside a transaction
  // this does not abort the transaction.
  Status Remove(std::string_view table, std::string_view key);
  // Removes every row of `table` (in the running transaction, if any): how
  // the patterns' side tables start over before a rebuild.
  Status RemoveAll(std::string_view table);
  // Returns nullopt when the key is absent.
  StatusWith<std::optional<std::string>> Get(std::string_view table, std::string_view key);
  // Point read that hands the stored value to `read` (valid during the call
  // only: no copy is made here) and returns whether the key was found.
  // Inside a transaction the table's point cursor stays on the record, so
  // that a Replace of that key in the same transaction updates the pinned
  // page without a second B-tree search (WT_CURSOR::update on a positioned
  // cursor); any other use of the table's cursors moves it off.
  StatusWith<bool> Read(std::string_view table, std::string_view key,
                        const std::function<void(std::string_view value)>& read);
  // Overwrites `key` (as Put) where the latest Read of this transaction
  // left the cursor on it; otherwise exactly Put.
  Status Replace(std::string_view table, std::string_view key, std::string_view value);

  // A forward range cursor over keys in [lower, upper) (upper empty = no
  // bound). Cached per table inside the session; reset when returned.
  // Point operations may run on the same table while a scan is open.
  StatusWith<Cursor> Scan(std::string_view table, std::string_view lower, std::string_view upper);

  __wt_session* raw() { return session_; }

 private:
  friend class StorageEngine;
  // A view of `outer`'s session and transaction (NewSession while bound).
  explicit Session(Session* outer)
      : engine_(outer->engine_), session_(outer->session_), outer_(outer) {}
  // A cached point cursor; `overwrite` selects Put semantics.
  Status Write(std::string_view table, std::string_view key, std::string_view value,
               bool overwrite);
  __wt_cursor* CachedCursor(std::string_view table, bool overwrite, Status* status);
  // The session whose transaction this one runs in: itself, or the outer.
  Session& Owner() { return outer_ != nullptr ? *outer_ : *this; }
  StorageEngine* engine_;
  __wt_session* session_;
  bool in_txn_ = false;
  // The point cursor the latest Read of the running transaction left on its
  // record (Replace checks its table and key); cleared when the transaction
  // begins or ends.
  __wt_cursor* kept_position_ = nullptr;
  Session* outer_ = nullptr;  // set for a view of a bound transaction
  std::vector<std::function<void()>> on_commit_;
  std::vector<std::function<void()>> on_rollback_;
  std::vector<std::function<Status(Session&)>> before_commit_;
  std::unique_ptr<TransactionState> txn_state_;
};

// Binds `session` (the owner of a client's multi-statement transaction or
// retryable write, engine/session/) to the calling thread for this scope:
// NewSession() on this thread then returns views of it. Scopes do not
// nest. REQUIRES: `session` outlives the binding and is used by no other
// thread meanwhile.
class TransactionBinding {
 public:
  explicit TransactionBinding(Session* session);
  ~TransactionBinding();
  TransactionBinding(const TransactionBinding&) = delete;
  TransactionBinding& operator=(const TransactionBinding&) = delete;
};

// Forward iteration over a key range. Move-only; must not outlive its Session.
// Key/value views are valid until the next call to Next() or destruction.
class Cursor {
 public:
  Cursor(__wt_cursor* cursor, std::string upper, std::string lower)
      : cursor_(cursor), upper_(std::move(upper)), lower_(std::move(lower)) {}
  ~Cursor();
  Cursor(Cursor&& other) noexcept;
  Cursor& operator=(Cursor&&) = delete;
  Cursor(const Cursor&) = delete;

  // Advances to the next record. Returns false at the end of the range (and
  // on every later call); errors are returned through *status (OK at a
  // clean end).
  bool Next(Status* status);
  std::string_view key() const { return key_; }
  std::string_view value() const { return value_; }

 private:
  __wt_cursor* cursor_;
  std::string upper_;
  std::string lower_;
  bool positioned_ = false;
  bool exhausted_ = false;  // WT cursors wrap around after the end; we don't
  std::string_view key_;
  std::string_view value_;
};

}  // namespace tigerdoc::storage
