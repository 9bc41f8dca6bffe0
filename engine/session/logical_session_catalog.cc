// LogicalSessionCatalog: why things are done this way.
//
// The map holds shared_ptrs so that a command keeps its session alive while
// the reaper or endSessions forgets it; a forgotten session is marked
// `ended`, and a command that checked it out just before retries with a
// fresh one (CheckOut), so nothing runs in a session nobody can find.

#include "engine/session/logical_session_catalog.h"

#include "engine/base/wall_clock.h"

#include <cstring>

namespace tigerdoc::engine {

namespace {

using Clock = std::chrono::steady_clock;

int64_t SteadyMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now().time_since_epoch())
      .count();
}

constexpr auto kReapInterval = std::chrono::milliseconds(500);
constexpr auto kRecordSweepInterval = std::chrono::minutes(1);

}  // namespace

StatusWith<std::unique_ptr<LogicalSessionCatalog>> LogicalSessionCatalog::Open(
    storage::StorageEngine* storage, query::CursorManager* cursors) {
  std::unique_ptr<LogicalSessionCatalog> catalog(new LogicalSessionCatalog(storage, cursors));
  {
    storage::Session session = storage->NewUnboundSession();
    RETURN_IF_ERROR(TxnRecordStore::Create(session));
    const int64_t cutoff =
        WallClockMillis() - std::chrono::duration_cast<std::chrono::milliseconds>(kSessionTimeout).count();
    RETURN_IF_ERROR(TxnRecordStore::RemoveOlderThan(session, cutoff));
  }
  catalog->reaper_ = std::thread([c = catalog.get()] { c->ReapUntilStopped(); });
  return catalog;
}

LogicalSessionCatalog::~LogicalSessionCatalog() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wakeup_.notify_all();
  if (reaper_.joinable()) reaper_.join();
  // Shutdown aborts open transactions but keeps the retryable-write
  // records: a client may retry its last write against the restarted server.
  std::vector<std::shared_ptr<LogicalSession>> all;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [id, s] : sessions_) all.push_back(s);
  }
  for (const auto& s : all) {
    std::lock_guard<std::mutex> session_lock(s->mu);
    if (s->state == TxnState::kInProgress) AbortTransaction(*s, "the server is shutting down");
  }
}

StatusWith<std::string> LogicalSessionCatalog::SessionIdOf(const bson_t* lsid) {
  bson_iter_t it;
  if (!bson_iter_init_find(&it, lsid, "id")) {
    return Status(ErrorCode::kLocation40414,
                  "BSON field 'OperationSessionInfo.lsid.id' is missing but a required field");
  }
  if (!BSON_ITER_HOLDS_BINARY(&it)) {
    return Status(ErrorCode::kTypeMismatch,
                  "BSON field 'OperationSessionInfo.lsid.id' is the wrong type, expected type 'binData'");
  }
  bson_subtype_t subtype;
  uint32_t len = 0;
  const uint8_t* data = nullptr;
  bson_iter_binary(&it, &subtype, &len, &data);
  if (subtype != BSON_SUBTYPE_UUID || len != 16) {
    return Status(ErrorCode::kBadValue, "uuid must be a 16-byte binary field with UUID (4) subtype");
  }
  return std::string(reinterpret_cast<const char*>(data), len);
}

std::shared_ptr<LogicalSession> LogicalSessionCatalog::GetOrCreate(const std::string& id,
                                                                   const bson_t* lsid) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = sessions_.find(id);
  if (it == sessions_.end()) {
    // currentOp shows the lsid's id (the key may carry a user digest).
    bson::BsonDoc doc;
    bson_iter_t id_it;
    if (bson_iter_init_find(&id_it, lsid, "id")) {
      bson_append_value(doc.mutable_get(), "id", 2, bson_iter_value(&id_it));
    }
    it = sessions_.emplace(id, std::make_shared<LogicalSession>(id, std::move(doc))).first;
  }
  it->second->last_use_ms.store(SteadyMs());
  return it->second;
}

StatusWith<std::string> LogicalSessionCatalog::SessionKeyOf(const bson_t* lsid, std::string_view uid) {
  ASSIGN_OR_RETURN(std::string id, SessionIdOf(lsid));
  id.append(uid);
  return id;
}

StatusWith<LogicalSessionCatalog::CheckedOut> LogicalSessionCatalog::CheckOut(const bson_t* lsid,
                                                                              std::string_view uid) {
  ASSIGN_OR_RETURN(std::string id, SessionKeyOf(lsid, uid));
  for (;;) {
    CheckedOut checked(GetOrCreate(id, lsid));
    if (!checked->ended) return checked;
  }
}

Status LogicalSessionCatalog::Start(const bson_t* lsid, std::string_view uid) {
  ASSIGN_OR_RETURN(std::string id, SessionKeyOf(lsid, uid));
  GetOrCreate(id, lsid);
  return Status::OK();
}

void LogicalSessionCatalog::Touch(std::string_view session_id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = sessions_.find(std::string(session_id));
  if (it != sessions_.end()) it->second->last_use_ms.store(SteadyMs());
}

void LogicalSessionCatalog::EndLocked(LogicalSession& s) {
  if (s.state == TxnState::kInProgress) AbortTransaction(s, "the session was ended");
  s.ended = true;
  // The record stays (see End); the reaper removes it once it expires.
  std::lock_guard<std::mutex> lock(mu_);
  auto it = sessions_.find(s.id);
  if (it != sessions_.end() && it->second.get() == &s) sessions_.erase(it);
}

void LogicalSessionCatalog::End(const std::string& session_id) {
  std::shared_ptr<LogicalSession> s;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = sessions_.find(session_id);
    if (it == sessions_.end()) return;
    s = it->second;
  }
  std::lock_guard<std::mutex> session_lock(s->mu);
  if (!s->ended) EndLocked(*s);
}

void LogicalSessionCatalog::EndAll() {
  std::vector<std::string> ids;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [id, s] : sessions_) ids.push_back(id);
  }
  for (const std::string& id : ids) End(id);
}

Status LogicalSessionCatalog::BeginTransaction(LogicalSession& s, int64_t txn_number) {
  if (s.state == TxnState::kInProgress) AbortTransaction(s, "a newer transaction started");
  storage::Session txn = storage_->NewUnboundSession();
  RETURN_IF_ERROR(txn.Begin());
  s.txn.emplace(std::move(txn));
  s.txn_number = txn_number;
  s.state = TxnState::kInProgress;
  s.txn_started = Clock::now();
  s.txn_started_wall_ms = WallClockMillis();
  s.abort_reason.clear();
  s.txn_cursors.clear();
  return Status::OK();
}

Status LogicalSessionCatalog::CommitTransaction(LogicalSession& s) {
  INVARIANT(s.state == TxnState::kInProgress && s.txn);
  TxnRecord record;
  record.txn_number = s.txn_number;
  record.kind = TxnRecord::Kind::kCommit;
  Status status = s.txn->in_transaction()
                      ? WriteRecord(*s.txn, s, std::move(record))
                      : Status(ErrorCode::kNoSuchTransaction, "the transaction was rolled back");
  if (status.ok() && commit_tagger_) commit_tagger_(*s.txn, s.lsid.get(), s.txn_number);
  if (status.ok()) status = s.txn->Commit();
  for (const auto& [id, ns] : s.txn_cursors) cursors_->Kill(id, ns);
  s.txn_cursors.clear();
  s.txn.reset();
  s.state = status.ok() ? TxnState::kCommitted : TxnState::kAborted;
  if (!status.ok()) s.abort_reason = "the commit failed: " + status.reason();
  return status;
}

void LogicalSessionCatalog::AbortTransaction(LogicalSession& s, std::string reason) {
  if (s.txn) s.txn->Rollback();
  s.txn.reset();
  for (const auto& [id, ns] : s.txn_cursors) cursors_->Kill(id, ns);
  s.txn_cursors.clear();
  if (s.state == TxnState::kInProgress) {
    s.state = TxnState::kAborted;
    s.abort_reason = std::move(reason);
  }
}

StatusWith<std::optional<TxnRecord>> LogicalSessionCatalog::LastRecord(LogicalSession& s) {
  if (!s.record_loaded) {
    storage::Session session = storage_->NewUnboundSession();
    ASSIGN_OR_RETURN(std::optional<TxnRecord> record, TxnRecordStore::Read(session, s.id));
    s.record = std::move(record);
    s.record_loaded = true;
  }
  if (!s.record) return std::optional<TxnRecord>();
  TxnRecord copy;
  copy.txn_number = s.record->txn_number;
  copy.kind = s.record->kind;
  copy.reply = s.record->reply.Copy();
  copy.last_write_ms = s.record->last_write_ms;
  return std::optional<TxnRecord>(std::move(copy));
}

Status LogicalSessionCatalog::WriteRecord(storage::Session& in, LogicalSession& s, TxnRecord record) {
  record.last_write_ms = WallClockMillis();
  RETURN_IF_ERROR(TxnRecordStore::Write(in, s.id, record));
  // The session is checked out until the command ends, so `s` outlives the
  // commit of `in` when that runs the callback.
  auto kept = std::make_shared<TxnRecord>(std::move(record));
  LogicalSession* session = &s;
  auto keep = [session, kept] {
    session->record = std::move(*kept);
    session->record_loaded = true;
  };
  if (in.in_transaction()) {
    in.OnCommit(keep);
  } else {
    keep();
  }
  return Status::OK();
}

std::vector<bson::BsonDoc> LogicalSessionCatalog::IdleTransactionsForCurrentOp() {
  std::vector<std::shared_ptr<LogicalSession>> all;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [id, s] : sessions_) all.push_back(s);
  }
  std::vector<bson::BsonDoc> docs;
  const int64_t limit_ms = transaction_lifetime_limit_secs.load() * 1000;
  for (const auto& s : all) {
    std::unique_lock<std::mutex> lock(s->mu, std::try_to_lock);
    if (!lock.owns_lock() || s->state != TxnState::kInProgress) continue;
    const int64_t open_us =
        std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - s->txn_started).count();
    bson::BsonDoc doc;
    bson_t* out = doc.mutable_get();
    BSON_APPEND_UTF8(out, "type", "idleSession");
    BSON_APPEND_BOOL(out, "active", false);
    BSON_APPEND_DOCUMENT(out, "lsid", s->lsid.get());
    bson_t txn, params;
    BSON_APPEND_DOCUMENT_BEGIN(out, "transaction", &txn);
    BSON_APPEND_DOCUMENT_BEGIN(&txn, "parameters", &params);
    BSON_APPEND_INT64(&params, "txnNumber", s->txn_number);
    BSON_APPEND_BOOL(&params, "autocommit", false);
    bson_append_document_end(&txn, &params);
    BSON_APPEND_DATE_TIME(&txn, "startWallClockTime", s->txn_started_wall_ms);
    BSON_APPEND_INT64(&txn, "timeOpenMicros", open_us);
    BSON_APPEND_DATE_TIME(&txn, "expiryTime", s->txn_started_wall_ms + limit_ms);
    bson_append_document_end(out, &txn);
    docs.push_back(std::move(doc));
  }
  return docs;
}

void LogicalSessionCatalog::ReapUntilStopped() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    wakeup_.wait_for(lock, kReapInterval);
    if (stopping_) break;
    lock.unlock();
    ReapOnce();
    lock.lock();
  }
}

// Aborts transactions past their lifetime and forgets idle sessions. A
// session whose command is running is skipped (try_lock): it is in use.
void LogicalSessionCatalog::ReapOnce() {
  std::vector<std::shared_ptr<LogicalSession>> all;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [id, s] : sessions_) all.push_back(s);
  }
  const auto now = Clock::now();
  const auto lifetime = std::chrono::seconds(std::max<int64_t>(1, transaction_lifetime_limit_secs.load()));
  const int64_t idle_cutoff_ms =
      SteadyMs() - std::chrono::duration_cast<std::chrono::milliseconds>(kSessionTimeout).count();
  for (const auto& s : all) {
    std::unique_lock<std::mutex> lock(s->mu, std::try_to_lock);
    if (!lock.owns_lock() || s->ended) continue;
    if (s->state == TxnState::kInProgress && now - s->txn_started > lifetime) {
      AbortTransaction(*s, "it has been running for longer than 'transactionLifetimeLimitSeconds'");
    }
    if (s->last_use_ms.load() < idle_cutoff_ms) EndLocked(*s);
  }
  // Records of sessions ended or idle for kSessionTimeout since their last
  // write expire (a scan of `_txn_records`, so not on every pass).
  if (now - last_record_sweep_ >= kRecordSweepInterval) {
    last_record_sweep_ = now;
    storage::Session session = storage_->NewUnboundSession();
    (void)TxnRecordStore::RemoveOlderThan(
        session, WallClockMillis() - std::chrono::duration_cast<std::chrono::milliseconds>(kSessionTimeout).count());
  }
}

}  // namespace tigerdoc::engine
