#pragma once
// LogicalSessionCatalog: the server's client sessions (lsid) and the state
// of each one's retryable writes and multi-statement transaction.
//
// A session is named by the 16 bytes of its lsid's UUID. A command of a
// session runs with the session checked out (CheckOut locks its mutex), so
// the statements of one session run one at a time, on whichever connection's
// thread sent them. An open transaction owns one storage::Session (one
// WiredTiger snapshot transaction) kept between commands; the command's
// thread binds it (storage::TransactionBinding) so that the engine's reads
// and writes, the patterns' side writes included, join it.
//
// The latest retryable write or committed transaction of each session is
// recorded in `_txn_records` (txn_record_store.h) inside the WiredTiger
// transaction of the write itself, so a retry after a lost reply, a restart
// or kill -9 is answered from the record instead of being applied twice.
//
// Sessions idle for 30 minutes are forgotten (and their transactions
// aborted); a transaction open longer than transactionLifetimeLimitSeconds
// (default 60) is aborted by a background thread.
//
// Thread-safety: the catalog's methods are thread-safe; the fields of a
// LogicalSession marked "guarded by mu" need its checkout.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"
#include "engine/query/cursor_manager.h"
#include "engine/session/txn_record_store.h"
#include "engine/storage/storage_engine.h"

namespace tigerdoc::engine {

enum class TxnState { kNone, kInProgress, kCommitted, kAborted };

struct LogicalSession {
  LogicalSession(std::string session_id, bson::BsonDoc lsid_doc)
      : id(std::move(session_id)), lsid(std::move(lsid_doc)) {}

  const std::string id;       // the lsid UUID's 16 bytes
  const bson::BsonDoc lsid;   // {id: UUID}, for currentOp
  std::mutex mu;              // held by the command running in the session
  std::atomic<int64_t> last_use_ms{0};  // steady clock

  // Guarded by mu.
  int64_t txn_number = -1;    // the highest txnNumber the session has used
  TxnState state = TxnState::kNone;
  std::optional<storage::Session> txn;  // the open transaction's storage session
  std::chrono::steady_clock::time_point txn_started;
  int64_t txn_started_wall_ms = 0;
  std::string abort_reason;   // why the last transaction was aborted
  std::vector<std::pair<int64_t, std::string>> txn_cursors;  // (id, ns) opened in it
  bool record_loaded = false;
  std::optional<TxnRecord> record;  // the latest of `_txn_records`
  bool ended = false;         // forgotten: a later command gets a fresh session
};

class LogicalSessionCatalog {
 public:
  static constexpr std::chrono::minutes kSessionTimeout{30};

  // Creates `_txn_records` when missing, drops records of sessions that
  // expired while the server was down, starts the reaper thread.
  static StatusWith<std::unique_ptr<LogicalSessionCatalog>> Open(storage::StorageEngine* storage,
                                                                 query::CursorManager* cursors);
  ~LogicalSessionCatalog();  // stops the reaper, aborts open transactions (records stay)

  // Called inside a client transaction's storage transaction just before
  // it commits, with the session's lsid and txnNumber: the change log tags
  // the transaction's events with them (set once by Engine::Open).
  using CommitTagger = std::function<void(storage::Session& txn, const bson_t* lsid, int64_t txn_number)>;
  void SetCommitTagger(CommitTagger tagger) { commit_tagger_ = std::move(tagger); }

  // The session id of an lsid document {id: UUID, ...}: 40414 (missing),
  // TypeMismatch / BadValue (as MongoDB's IDL) when malformed.
  static StatusWith<std::string> SessionIdOf(const bson_t* lsid);

  // A session checked out for one command: holds its mutex.
  class CheckedOut {
   public:
    CheckedOut(std::shared_ptr<LogicalSession> s) : session_(std::move(s)), lock_(session_->mu) {}
    LogicalSession& operator*() const { return *session_; }
    LogicalSession* operator->() const { return session_.get(); }

   private:
    std::shared_ptr<LogicalSession> session_;
    std::unique_lock<std::mutex> lock_;
  };
  // The key of a session: the lsid UUID's 16 bytes followed by `uid`, the
  // digest of the user who uses it (empty without --auth). As MongoDB's
  // lsid {id, uid}, the same id sent by two users names two sessions, so
  // no user reaches (ends, kills, runs statements in, retries into)
  // another's session.
  static StatusWith<std::string> SessionKeyOf(const bson_t* lsid, std::string_view uid);

  // Finds or creates the session of `lsid` for user digest `uid` and checks
  // it out (waits while another command of the session runs).
  StatusWith<CheckedOut> CheckOut(const bson_t* lsid, std::string_view uid = {});
  // Creates the session (startSession) or marks a known one as used.
  Status Start(const bson_t* lsid, std::string_view uid = {});
  // Marks a known session (by SessionKeyOf) as used (refreshSessions, any
  // command's lsid).
  void Touch(std::string_view session_key);
  // Forgets the session (by SessionKeyOf), aborting its open transaction
  // (endSessions, killSessions, 30 minutes idle). Waits for a running
  // command of the session. Its retryable-write record stays until it
  // expires (kSessionTimeout after its write), as MongoDB keeps
  // config.transactions: a retry of the last write after endSessions is
  // still answered from the record, not applied twice.
  void End(const std::string& session_key);
  void EndAll();

  // Transactions. REQUIRES: the session checked out.
  // Starts transaction `txn_number`: a storage session with a WiredTiger
  // snapshot transaction begun.
  Status BeginTransaction(LogicalSession& s, int64_t txn_number);
  // Writes the commit record inside the transaction and commits it.
  Status CommitTransaction(LogicalSession& s);
  void AbortTransaction(LogicalSession& s, std::string reason);
  // The session's latest record (read from `_txn_records` once).
  StatusWith<std::optional<TxnRecord>> LastRecord(LogicalSession& s);
  // Writes `record` through `in` (the write's own storage session) and
  // keeps it as the session's latest once that commits.
  Status WriteRecord(storage::Session& in, LogicalSession& s, TxnRecord record);

  // One currentOp document per open transaction whose session is idle
  // (a running statement shows as its operation).
  std::vector<bson::BsonDoc> IdleTransactionsForCurrentOp();

  storage::StorageEngine& storage() { return *storage_; }
  // transactionLifetimeLimitSeconds (setParameter), at least 1.
  std::atomic<int64_t> transaction_lifetime_limit_secs{60};

 private:
  LogicalSessionCatalog(storage::StorageEngine* storage, query::CursorManager* cursors)
      : storage_(storage), cursors_(cursors) {}
  std::shared_ptr<LogicalSession> GetOrCreate(const std::string& id, const bson_t* lsid);
  void EndLocked(LogicalSession& s);  // REQUIRES: s.mu held
  void ReapUntilStopped();
  void ReapOnce();

  storage::StorageEngine* storage_;
  query::CursorManager* cursors_;
  std::mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<LogicalSession>> sessions_;  // guarded by mu_
  std::condition_variable wakeup_;
  bool stopping_ = false;  // guarded by mu_
  std::thread reaper_;
  std::chrono::steady_clock::time_point last_record_sweep_ = std::chrono::steady_clock::now();
  CommitTagger commit_tagger_;  // set before any client command runs
};

}  // namespace tigerdoc::engine
