// ChangeLog: rows written with their change, read below the oldest tick in
// flight, trimmed by size and age (contract and reasoning in the header).

#include "engine/changes/change_log.h"

#include <algorithm>
#include <cmath>

#include "engine/base/wall_clock.h"
#include "engine/base/invariant.h"

namespace tigerdoc::engine {
namespace {

// The "trimmed through" marker: the key of the newest row trimmed. 'm'
// sorts after every event key ('e' ...), outside their ranges.
constexpr std::string_view kTrimmedKey = "m";
// Rows removed per trimming transaction.
constexpr int kTrimBatch = 1000;

void PutBigEndian(std::string* out, uint32_t v) {
  out->push_back(static_cast<char>(v >> 24));
  out->push_back(static_cast<char>(v >> 16));
  out->push_back(static_cast<char>(v >> 8));
  out->push_back(static_cast<char>(v));
}

uint32_t GetBigEndian(std::string_view in) {
  return (uint32_t{static_cast<uint8_t>(in[0])} << 24) |
         (uint32_t{static_cast<uint8_t>(in[1])} << 16) |
         (uint32_t{static_cast<uint8_t>(in[2])} << 8) | uint32_t{static_cast<uint8_t>(in[3])};
}

}  // namespace

Status ChangeStreamHistoryLost() {
  return Status(ErrorCode::kChangeStreamHistoryLost,
                "Resume of change stream was not possible, as the resume point may no longer be "
                "in the oplog.");
}

// The events a transaction recorded, waiting for its commit.
struct ChangeLog::PendingChanges : storage::Session::TransactionState {
  std::vector<bson::BsonDoc> events;
  bson::BsonDoc txn_info;  // {lsid, txnNumber} of a multi-document transaction
};

LogPosition LogPosition::Before(repl::Timestamp ts) {
  if (ts.increment > 0) return LogPosition{{ts.seconds, ts.increment - 1}, kEndOfTick};
  if (ts.seconds == 0) return LogPosition{};
  return LogPosition{{ts.seconds - 1, UINT32_MAX}, kEndOfTick};
}

std::string ChangeLog::EncodeKey(LogPosition pos) {
  std::string key = "e";
  PutBigEndian(&key, pos.ts.seconds);
  PutBigEndian(&key, pos.ts.increment);
  PutBigEndian(&key, pos.seq);
  return key;
}

bool ChangeLog::DecodeKey(std::string_view key, LogPosition* pos) {
  if (key.size() != 13 || key[0] != 'e') return false;
  pos->ts.seconds = GetBigEndian(key.substr(1));
  pos->ts.increment = GetBigEndian(key.substr(5));
  pos->seq = GetBigEndian(key.substr(9));
  return true;
}

StatusWith<std::unique_ptr<ChangeLog>> ChangeLog::Open(storage::StorageEngine* storage,
                                                       repl::LogicalClock* clock,
                                                       const ChangeLogOptions& options) {
  std::unique_ptr<ChangeLog> log(new ChangeLog(storage, clock, options));
  RETURN_IF_ERROR(log->Load());
  log->trimmer_ = std::thread([l = log.get()] { l->TrimUntilStopped(); });
  return log;
}

Status ChangeLog::Load() {
  storage::Session session = storage_->NewSession();
  RETURN_IF_ERROR(session.CreateTable(kTable));
  ASSIGN_OR_RETURN(LogPosition trimmed, TrimmedThrough(session));
  LogPosition newest = trimmed;
  int64_t bytes = 0;
  {
    ASSIGN_OR_RETURN(storage::Cursor cursor, session.Scan(kTable, "e", "f"));
    Status status;
    while (cursor.Next(&status)) {
      LogPosition pos;
      if (DecodeKey(cursor.key(), &pos)) newest = std::max(newest, pos);
      bytes += static_cast<int64_t>(cursor.key().size() + cursor.value().size());
    }
    RETURN_IF_ERROR(status);
  }
  // Later ticks must sort after every row kept (the wall clock may have
  // gone back while the server was down).
  clock_->AdvanceTo(newest.ts);
  std::lock_guard<std::mutex> lock(mutex_);
  last_tick_ = newest.ts;
  total_bytes_ = bytes;
  return Status::OK();
}

ChangeLog::~ChangeLog() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  trim_wakeup_.notify_all();
  if (trimmer_.joinable()) trimmer_.join();
}

ChangeLog::PendingChanges& ChangeLog::PendingOf(storage::Session& session) {
  INVARIANT(session.in_transaction());
  std::unique_ptr<storage::Session::TransactionState>& state = session.transaction_state();
  if (state == nullptr) {
    state = std::make_unique<PendingChanges>();
    session.BeforeCommit([this](storage::Session& s) { return Flush(s); });
  }
  auto* pending = dynamic_cast<PendingChanges*>(state.get());
  INVARIANT(pending != nullptr);
  return *pending;
}

Status ChangeLog::Record(storage::Session& session, bson::BsonDoc event) {
  PendingOf(session).events.push_back(std::move(event));
  return Status::OK();
}

void ChangeLog::SetTransactionInfo(storage::Session& session, const bson_t* lsid,
                                   int64_t txn_number) {
  bson::BsonDoc info;
  BSON_APPEND_DOCUMENT(info.mutable_get(), "lsid", lsid);
  BSON_APPEND_INT64(info.mutable_get(), "txnNumber", txn_number);
  PendingOf(session).txn_info = std::move(info);
}

Status ChangeLog::Flush(storage::Session& session) {
  auto* pending = dynamic_cast<PendingChanges*>(session.transaction_state().get());
  if (pending == nullptr || pending->events.empty()) return Status::OK();
  const int64_t wall = WallClockMillis();
  repl::Timestamp tick;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    tick = clock_->Tick();
    in_flight_.insert(tick);
    last_tick_ = tick;
  }
  // From here the tick leaves in_flight_ however the transaction ends.
  auto finish = [this, tick](int64_t bytes) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      in_flight_.erase(in_flight_.find(tick));
      total_bytes_ += bytes;
    }
    changed_.notify_all();
  };
  session.OnRollback([finish] { finish(0); });
  int64_t bytes = 0;
  for (size_t i = 0; i < pending->events.size(); ++i) {
    std::string key = EncodeKey(LogPosition{tick, static_cast<uint32_t>(i)});
    bson::BsonDoc row;
    BSON_APPEND_DATE_TIME(row.mutable_get(), "wall", wall);
    bson_concat(row.mutable_get(), pending->events[i].get());
    bson_concat(row.mutable_get(), pending->txn_info.get());
    RETURN_IF_ERROR(session.Put(kTable, key, row.bytes()));
    bytes += static_cast<int64_t>(key.size() + row.size());
  }
  session.OnCommit([finish, bytes] { finish(bytes); });
  return Status::OK();
}

LogPosition ChangeLog::ReadableLocked() const {
  if (in_flight_.empty()) return LogPosition{last_tick_, LogPosition::kEndOfTick};
  return LogPosition::Before(*in_flight_.begin());
}

LogPosition ChangeLog::ReadablePosition() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return ReadableLocked();
}

StatusWith<LogPosition> ChangeLog::TrimmedThrough(storage::Session& session) const {
  ASSIGN_OR_RETURN(std::optional<std::string> marker, session.Get(kTable, kTrimmedKey));
  LogPosition pos;
  if (marker && !DecodeKey(*marker, &pos)) {
    return Status(ErrorCode::kInternalError, "malformed change log trim marker");
  }
  return pos;
}

Status ChangeLog::Read(storage::Session& session, LogPosition after, size_t max,
                       std::vector<LogEntry>* out, LogPosition* through) const {
  // The readable position first, then the snapshot: every row at or below
  // it has committed before the snapshot begins.
  const LogPosition readable = ReadablePosition();
  RETURN_IF_ERROR(session.Begin());
  // The marker in the same snapshot as the rows: a trim that commits later
  // is not seen, one that committed earlier is.
  StatusWith<LogPosition> trimmed = TrimmedThrough(session);
  if (!trimmed.ok() || after < trimmed.value()) {
    session.Rollback();
    return trimmed.ok() ? ChangeStreamHistoryLost() : trimmed.status();
  }
  *through = std::max(after, readable);
  if (after < readable) {
    const std::string lower = EncodeKey(after) + '\0';
    const std::string upper = EncodeKey(readable) + '\0';
    StatusWith<storage::Cursor> cursor = session.Scan(kTable, lower, upper);
    if (!cursor.ok()) {
      session.Rollback();
      return cursor.status();
    }
    Status status;
    while (out->size() < max || max == 0) {
      if (!cursor.value().Next(&status)) break;
      LogEntry entry;
      if (!DecodeKey(cursor.value().key(), &entry.pos)) continue;
      std::string_view value = cursor.value().value();
      entry.row = bson::BsonDoc::CopyOf(reinterpret_cast<const uint8_t*>(value.data()),
                                        value.size());
      const LogPosition pos = entry.pos;
      out->push_back(std::move(entry));
      if (max != 0 && out->size() >= max) {
        *through = pos;
        break;
      }
    }
    if (!status.ok()) {
      session.Rollback();
      return status;
    }
  }
  session.Rollback();  // read-only
  return Status::OK();
}

StatusWith<bool> ChangeLog::Contains(storage::Session& session, LogPosition pos) const {
  ASSIGN_OR_RETURN(std::optional<std::string> row, session.Get(kTable, EncodeKey(pos)));
  return row.has_value();
}

bool ChangeLog::WaitBeyond(LogPosition after, std::chrono::steady_clock::time_point deadline,
                           const std::atomic<bool>* kill) const {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    if (after < ReadableLocked()) return true;
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline || (kill != nullptr && kill->load())) return false;
    // Woken by every commit; the slice only bounds how late a kill is seen.
    changed_.wait_until(lock, std::min(deadline, now + std::chrono::milliseconds(100)));
  }
  return false;
}

void ChangeLog::SetRetention(int64_t bytes, double seconds) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    options_.retention_bytes = bytes;
    options_.retention_seconds = seconds;
  }
  trim_wakeup_.notify_all();
}

int64_t ChangeLog::retention_bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return options_.retention_bytes;
}

double ChangeLog::retention_seconds() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return options_.retention_seconds;
}

int64_t ChangeLog::total_bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return total_bytes_;
}

Status ChangeLog::TrimNow() {
  std::lock_guard<std::mutex> trimming(trim_mutex_);
  int64_t limit_bytes;
  double keep_seconds;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    limit_bytes = options_.retention_bytes;
    keep_seconds = options_.retention_seconds;
  }
  const double now_seconds = static_cast<double>(WallClockMillis()) / 1000.0;
  const double cutoff = now_seconds - keep_seconds;
  storage::Session session = storage_->NewSession();
  for (;;) {
    int64_t kept = total_bytes();
    int64_t removed_bytes = 0;
    int removed = 0;
    bool done = false;
    LogPosition last;
    RETURN_IF_ERROR(session.Begin());
    Status status;
    {
      StatusWith<storage::Cursor> cursor = session.Scan(kTable, "e", "f");
      if (!cursor.ok()) {
        session.Rollback();
        return cursor.status();
      }
      while (removed < kTrimBatch) {
        if (!cursor.value().Next(&status)) {
          done = true;
          break;
        }
        const int64_t size =
            static_cast<int64_t>(cursor.value().key().size() + cursor.value().value().size());
        LogPosition pos;
        if (!DecodeKey(cursor.value().key(), &pos)) continue;
        const bool too_old = static_cast<double>(pos.ts.seconds) < cutoff;
        const bool too_big = kept - removed_bytes > limit_bytes;
        if (!too_old && !too_big) {
          done = true;
          break;
        }
        const std::string key(cursor.value().key());
        status = session.Remove(kTable, key);
        if (!status.ok()) break;
        removed_bytes += size;
        last = pos;
        ++removed;
      }
    }
    if (status.ok() && removed > 0) status = session.Put(kTable, kTrimmedKey, EncodeKey(last));
    if (!status.ok() || removed == 0) {
      session.Rollback();
      RETURN_IF_ERROR(status);
      return Status::OK();
    }
    RETURN_IF_ERROR(session.Commit());
    {
      std::lock_guard<std::mutex> lock(mutex_);
      total_bytes_ -= removed_bytes;
    }
    if (done) return Status::OK();
  }
}

void ChangeLog::TrimUntilStopped() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    trim_wakeup_.wait_for(lock, options_.trim_interval);
    if (stopping_) break;
    lock.unlock();
    Status trimmed = TrimNow();
    if (!trimmed.ok() && trimmed.code() != ErrorCode::kWriteConflict) {
      std::fprintf(stderr, "change log: trimming failed: %s\n", trimmed.ToString().c_str());
    }
    lock.lock();
  }
}

}  // namespace tigerdoc::engine
