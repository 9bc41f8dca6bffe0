// StorageEngine: the WiredTiger connection, the session pool and the
// journal flusher.
//
// Durability settings (WiredTiger 3.2.1, see its tune_durability docs):
//   log=(enabled=true)                      write-ahead log ("journal")
//   transaction_sync=(enabled=true,         commit_transaction writes the
//                     method=none)          commit's log records to the OS
//                                           before it returns (write(2), no
//                                           fsync); so do auto-committed
//                                           writes. Session::Commit lets one
//                                           commit at a time do that (one
//                                           connection writing: one write per
//                                           commit, no log_flush call)
//   commit_transaction("sync=off")          the other commits leave their
//   + group commit (WriteJournal below)     records in WiredTiger's buffer;
//                                           before one is acknowledged, its
//                                           records are written to the OS
//                                           (log_flush "sync=off" = write(2),
//                                           no fsync). Either way an
//                                           acknowledged write survives a
//                                           process crash, not an OS crash
//   log_flush("sync=on")                    fsync; used by FlushJournal()
//                                           and by the flusher thread
// WiredTiger's write within every commit alone gives the same guarantee,
// but every committing thread then writes and waits for the log itself;
// with 8 threads on 2 cores insert throughput fell 6x below one thread
// (bench/tigerdoc_load --wt-only). With group commit one leader writes the
// log for every commit that finished before it started.
// tests/engine/storage/durability_test.cc proves the guarantee with kill -9.

#include "engine/storage/storage_engine.h"

#include <unistd.h>
#include <wiredtiger.h>

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <thread>

#include "engine/bson/bson_doc.h"
#include "engine/log/log.h"
#include "engine/storage/disk_space.h"
#include "engine/storage/group_commit.h"
#include "engine/storage/wt_error.h"
#include "engine/storage/wt_session_state.h"

namespace tigerdoc::storage {

namespace {

// WiredTiger reports EBUSY from drop while another session still holds a
// cursor on the table; DropTable retries that, so the message is noise.
int HandleError(WT_EVENT_HANDLER*, WT_SESSION*, int error, const char* message) {
  if (error == EBUSY) return 0;
  bson::BsonDoc attr;
  BSON_APPEND_INT32(attr.mutable_get(), "error", error);
  BSON_APPEND_UTF8(attr.mutable_get(), "message", message);
  log::Write(log::Severity::kError, "WTERR", 22435, "WiredTiger error message", attr.get());
  // Exit here, on the thread that panicked, before other threads run into
  // the dead connection (as mongod does in its event handler).
  if (error == WT_PANIC) ExitOnPanic("a WiredTiger operation");
  return 0;
}

int HandleMessage(WT_EVENT_HANDLER*, WT_SESSION*, const char* message) {
  bson::BsonDoc attr;
  BSON_APPEND_UTF8(attr.mutable_get(), "message", message);
  log::Write(log::Severity::kInfo, "WT", 22430, "WiredTiger message", attr.get());
  return 0;
}

WT_EVENT_HANDLER kEventHandler = {HandleError, HandleMessage, nullptr, nullptr};

std::string OpenConfig(const StorageOptions& options) {
  // statistics=(fast): serverStatus reads wiredTiger.cache (wt_statistics.h).
  std::string config = "create,statistics=(fast),cache_size=" + std::to_string(options.cache_size_mb) + "M" +
                       ",session_max=" + std::to_string(options.session_max);
  // Dirty pages may fill a fifth of the cache before eviction writes them
  // out, and two fifths before request threads must help (WiredTiger's
  // defaults: 5% and 20%). With the defaults, an update-heavy load kept an
  // eviction thread reconciling the same hot pages over and over: 14% of
  // the server's CPU in YCSB load + A. These values cut the server's CPU
  // per insert from 51-52 to 39-41 µs and per YCSB A operation from 44-49
  // to 33-40, 15-28% more operations/s (bench/README.md "WiredTiger dirty
  // eviction targets"). The journal, not eviction, makes a write durable,
  // and the cache size still bounds memory.
  config += ",eviction_dirty_target=20,eviction_dirty_trigger=40";
  if (options.in_memory) {
    config += ",in_memory=true";
  } else {
    config +=
        ",log=(enabled=true,path=journal,archive=true)"
        ",transaction_sync=(enabled=true,method=none)"
        ",checkpoint=(wait=" +
        std::to_string(options.checkpoint_interval_secs) + ")";
  }
  // Last: WiredTiger takes the last value of a key given twice.
  if (!options.wiredtiger_config.empty()) config += "," + options.wiredtiger_config;
  return config;
}

// Everything wiredtiger_open would otherwise fail at halfway (or panic at:
// recovery on a full disk), checked first so the error is clear and nothing
// is written:
//   * the directory and its journal/ can be created;
//   * it is writable (access(W_OK) reports EROFS even to root, who ignores
//     permission bits);
//   * the file system has the reserve free, since recovery and the first
//     checkpoint write.
Status CheckDataDirectory(const std::string& home, const StorageOptions& options) {
  // Say what to do about the usual cause, a read-only mount.
  auto not_writable = [](const std::string& what, int err) {
    std::string reason = what + ": " + std::strerror(err);
    if (err == EROFS) reason += " (tigerdoc writes its journal even to read: mount it read-write)";
    return Status(ErrorCode::kInternalError, reason);
  };
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(home) / "journal", ec);
  if (ec) return not_writable("cannot create it and its journal/", ec.value());
  for (const std::string& dir : {home, home + "/journal"}) {
    if (access(dir.c_str(), W_OK) != 0) return not_writable("'" + dir + "' is not writable", errno);
  }
  const int64_t reserve_mb = options.EffectiveDiskReserveMb();
  if (reserve_mb <= 0) return Status::OK();
  const uint64_t needed = static_cast<uint64_t>(reserve_mb) * 1024 * 1024;
  ASSIGN_OR_RETURN(uint64_t free_bytes, FreeDiskBytes(home));
  if (free_bytes < needed) {
    return Status(ErrorCode::kOutOfDiskSpace,
                  OutOfDiskSpaceMessage(home, free_bytes, needed, "start-up"));
  }
  return Status::OK();
}

}  // namespace

struct StorageEngine::Impl {
  std::mutex mu;
  std::vector<WT_SESSION*> idle;                          // guarded by mu
  std::vector<std::unique_ptr<WtSessionState>> states;    // guarded by mu; every session ever opened
  uint64_t cursor_epoch = 0;                              // guarded by mu

  std::mutex flusher_mu;
  std::condition_variable flusher_cv;
  bool stopping = false;  // guarded by flusher_mu
  std::thread flusher;

  std::unique_ptr<DiskSpaceGuard> disk_guard;  // null when in memory or turned off

  std::string scratch_home;  // the empty home of an in-memory engine, removed at close

  // Group commit (group_commit.h) of journal writes to the OS, and of
  // fsyncs (FlushJournal, j:true). `sync_session` is used by the current
  // sync leader only.
  GroupCommit journal_writes;
  GroupCommit journal_syncs;
  WT_SESSION* sync_session = nullptr;
};

StatusWith<std::unique_ptr<StorageEngine>> StorageEngine::Open(const StorageOptions& options) {
  std::unique_ptr<StorageEngine> engine(new StorageEngine());
  engine->options_ = options;
  engine->impl_ = std::make_unique<Impl>();

  std::string home;
  if (options.in_memory) {
    // WiredTiger wants an existing home directory even in memory (nothing is
    // written there), and refuses two connections on one home in a process:
    // give each in-memory engine its own empty directory.
    std::string pattern =
        (std::filesystem::temp_directory_path() / "tigerdoc-mem-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {
      return Status(ErrorCode::kInternalError,
                    std::string("cannot create a directory for an in-memory engine: ") +
                        std::strerror(errno));
    }
    home = pattern;
    engine->impl_->scratch_home = home;
  } else {
    home = options.dbpath;
    RETURN_IF_ERROR(CheckDataDirectory(home, options));
    const int64_t reserve_mb = options.EffectiveDiskReserveMb();
    if (reserve_mb > 0) {
      engine->impl_->disk_guard = std::make_unique<DiskSpaceGuard>(
          home, static_cast<uint64_t>(reserve_mb) * 1024 * 1024);
    }
  }

  std::string config = OpenConfig(options);
  int ret = wiredtiger_open(home.c_str(), &kEventHandler, config.c_str(), &engine->conn_);
  if (ret != 0) return WtToStatus(ret, "wiredtiger_open " + home);

  if (!options.in_memory) {
    ret = engine->conn_->open_session(engine->conn_, nullptr, nullptr, &engine->impl_->sync_session);
    if (ret != 0) return WtToStatus(ret, "open the journal sync session");
  }
  if (!options.in_memory && options.journal_flush_interval_ms > 0) {
    engine->impl_->flusher = std::thread([raw = engine.get()] { raw->JournalFlusherLoop(); });
  }
  return engine;
}

StorageEngine::~StorageEngine() {
  if (impl_ == nullptr) return;
  {
    std::lock_guard<std::mutex> lock(impl_->flusher_mu);
    impl_->stopping = true;
  }
  impl_->flusher_cv.notify_all();
  if (impl_->flusher.joinable()) impl_->flusher.join();
  // Closing the connection closes every session and cursor, and (when
  // durable) writes a final checkpoint.
  if (conn_ != nullptr) conn_->close(conn_, nullptr);
  if (!impl_->scratch_home.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(impl_->scratch_home, ignored);
  }
}

void StorageEngine::JournalFlusherLoop() {
  // Through FlushJournal, so a periodic fsync also releases j:true writers
  // waiting for one, and never runs beside another fsync.
  const auto interval = std::chrono::milliseconds(options_.journal_flush_interval_ms);
  std::unique_lock<std::mutex> lock(impl_->flusher_mu);
  while (!impl_->flusher_cv.wait_for(lock, interval, [this] { return impl_->stopping; })) {
    lock.unlock();
    Status st = FlushJournal();
    if (!st.ok()) std::fprintf(stderr, "journal flush: %s\n", st.ToString().c_str());
    lock.lock();
  }
}

// Group commit of journal writes: a committer calls this after its commit
// returned, so the log buffer holds its records; the step, run by one
// leader for every committer that arrived before it started, writes the
// whole buffer to the OS. With one client this is one write per commit and
// no hand-off; with many, one write serves them all.
Status StorageEngine::WriteJournal(WT_SESSION* session) {
  if (options_.in_memory) return Status::OK();
  return impl_->journal_writes.Run(
      [session] { return WtToStatus(session->log_flush(session, "sync=off"), "journal write"); });
}

bool StorageEngine::TakeOwnJournalWrite() {
  bool expected = false;
  return own_journal_write_.compare_exchange_strong(expected, true, std::memory_order_acq_rel);
}

void StorageEngine::ReleaseOwnJournalWrite() {
  own_journal_write_.store(false, std::memory_order_release);
}

Status StorageEngine::CheckSpaceForWrite() {
  return impl_->disk_guard ? impl_->disk_guard->CheckWrite() : Status::OK();
}

Status StorageEngine::CheckSpaceForRemove() {
  return impl_->disk_guard ? impl_->disk_guard->CheckRemove() : Status::OK();
}

// Group commit of fsyncs, as WriteJournal above: the step fsyncs the
// journal up to its end, which holds the records of every commit that
// returned before the caller took its ticket. With 16 j:true writers one
// fsync serves up to 16 commits.
Status StorageEngine::FlushJournal() {
  if (options_.in_memory) return Status::OK();
  WT_SESSION* sync = impl_->sync_session;
  return impl_->journal_syncs.Run(
      [sync] { return WtToStatus(sync->log_flush(sync, "sync=on"), "journal flush"); });
}

namespace {
// The session TransactionBinding bound to this thread, if any.
thread_local Session* bound_transaction = nullptr;
}  // namespace

TransactionBinding::TransactionBinding(Session* session) {
  INVARIANT(bound_transaction == nullptr);
  bound_transaction = session;
}

TransactionBinding::~TransactionBinding() { bound_transaction = nullptr; }

Session StorageEngine::NewSession() {
  if (bound_transaction != nullptr && bound_transaction->engine_ == this) {
    return Session(bound_transaction);
  }
  return NewUnboundSession();
}

Session StorageEngine::NewUnboundSession() {
  std::lock_guard<std::mutex> lock(impl_->mu);
  if (!impl_->idle.empty()) {
    WT_SESSION* session = impl_->idle.back();
    impl_->idle.pop_back();
    return Session(this, session);
  }
  WT_SESSION* session = nullptr;
  int ret = conn_->open_session(conn_, nullptr, "isolation=snapshot", &session);
  if (ret != 0) {
    // Only reachable when more than session_max sessions are borrowed at
    // once, which the fixed worker pool above us rules out.
    std::fprintf(stderr, "fatal: cannot open a WiredTiger session (session_max=%d): %s\n",
                 options_.session_max, wiredtiger_strerror(ret));
    std::abort();
  }
  auto state = std::make_unique<WtSessionState>();
  state->cursor_epoch = impl_->cursor_epoch;
  session->app_private = state.get();
  impl_->states.push_back(std::move(state));
  return Session(this, session);
}

void StorageEngine::ReturnSession(WT_SESSION* session) {
  WtSessionState* state = WtSessionState::Of(session);
  // Reset before taking the pool's mutex: every request of every
  // connection returns a session, and with the resets inside, connections
  // met on the mutex often enough to cost futex waits and wake-ups (issue
  // #18, bench/README.md "CPU per find, round 4"). The session is not in
  // the pool yet, so ReleaseCursorsFor cannot see it; the epoch check
  // below catches a drop that happened meanwhile.
  state->ResetAll();
  std::lock_guard<std::mutex> lock(impl_->mu);
  if (state->cursor_epoch != impl_->cursor_epoch) {
    // A table was dropped while this session was out; its cached cursors
    // may name it and would keep the drop from succeeding.
    state->CloseAll();
    state->cursor_epoch = impl_->cursor_epoch;
  }
  impl_->idle.push_back(session);
}

void StorageEngine::ReleaseCursorsFor(const std::string& uri) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  ++impl_->cursor_epoch;
  for (WT_SESSION* session : impl_->idle) {
    WtSessionState* state = WtSessionState::Of(session);
    state->CloseFor(uri);
    state->cursor_epoch = impl_->cursor_epoch;
  }
}

}  // namespace tigerdoc::storage
