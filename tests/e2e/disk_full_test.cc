// The data directory's file system at its limits, on a small tmpfs mounted
// for each test (root only; skipped otherwise):
//   * read-only at start (empty, or holding data): the server exits at once
//     with status 1 and a message naming the directory and the cause; once
//     read-write again it starts and the data is intact;
//   * full while serving: writes fail with OutOfDiskSpace (14031), reads go
//     on; once space is freed writes work again; after kill -9 and a restart
//     every acknowledged write is there and validate passes;
//   * full at start: exit status 1 with OutOfDiskSpace, nothing damaged;
//   * full with the reserve turned off (--diskReserveMB 0): WiredTiger
//     panics on the journal write; the server exits with status 14 (not a
//     signal, no core) and a restart after freeing space has every
//     acknowledged write.

#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sys/wait.h>

#include "tests/e2e/e2e_test_base.h"

namespace tigerdoc::e2e {
namespace {

using Clock = std::chrono::steady_clock;
using testutil::Integer;
using testutil::Json;

constexpr char kDb[] = "disk";
constexpr int kOutOfDiskSpace = 14031;
constexpr int kDocBytes = 8 * 1024;

// A tmpfs of a given size on a fresh directory under /tmp; unmounted and
// removed on destruction.
class Tmpfs {
 public:
  ~Tmpfs() {
    if (mounted_) umount2(dir_.c_str(), MNT_DETACH);
    if (!dir_.empty()) rmdir(dir_.c_str());
  }
  // Empty on success, else why mounting is impossible here.
  std::string Mount(int size_mb) {
    std::string templ = (std::filesystem::temp_directory_path() / "tigerdoc-fs-XXXXXX").string();
    if (mkdtemp(templ.data()) == nullptr) return std::string("mkdtemp: ") + std::strerror(errno);
    dir_ = templ;
    const std::string opts = "size=" + std::to_string(size_mb) + "m";
    if (mount("tmpfs", dir_.c_str(), "tmpfs", 0, opts.c_str()) != 0) {
      return std::string("mount -t tmpfs: ") + std::strerror(errno);
    }
    mounted_ = true;
    return "";
  }
  bool SetReadOnly(bool read_only) {
    unsigned long flags = MS_REMOUNT | (read_only ? MS_RDONLY : 0);
    return mount("tmpfs", dir_.c_str(), "tmpfs", flags, nullptr) == 0;
  }
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
  bool mounted_ = false;
};

// Writes `path` with `bytes` bytes, or until the file system is full when
// bytes < 0.
void WriteFiller(const std::string& path, int64_t bytes) {
  std::ofstream out(path, std::ios::binary);
  const std::string chunk(1 << 20, 'f');
  for (int64_t done = 0; bytes < 0 || done < bytes; done += chunk.size()) {
    out.write(chunk.data(), bytes < 0 ? chunk.size() : std::min<int64_t>(chunk.size(), bytes - done));
    out.flush();
    if (!out) break;
  }
}

// The server's exit as waitpid describes it inside ServerProcess messages.
bool ExitedWith(const Status& st, int code) {
  return st.reason().find("exited with status " + std::to_string(code) + " ") != std::string::npos;
}

class DiskFullTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "mounting a tmpfs needs root";
  }

  // Mounts the tmpfs (skipping the test when that is impossible) and makes
  // the server that will use <mount>/db.
  void MountAndMakeServer(int size_mb, std::vector<std::string> extra_args = {}) {
    std::string why = fs_.Mount(size_mb);
    if (!why.empty()) GTEST_SKIP() << "cannot mount a tmpfs here: " << why;
    dbpath_ = fs_.dir() + "/db";
    std::filesystem::create_directory(dbpath_);
    ServerProcess::Options options;
    options.dbpath = dbpath_;
    options.cache_size_mb = 16;
    options.shards = 2;
    options.extra_args = std::move(extra_args);
    options.start_timeout = std::chrono::milliseconds(15000);
    server_ = std::make_unique<ServerProcess>(options);
  }

  void TearDown() override {
    if (HasFailure() && server_) std::cerr << "---- server log ----\n" << server_->LogTail() << "\n";
    server_.reset();  // kills the server before the tmpfs goes
  }

  // Inserts {_id: id, pad: <8 KiB>}; the reply.
  static BsonDoc InsertOne(MongoClient& c, int64_t id) {
    static const std::string pad(kDocBytes, 'p');
    return c.RunCommand(kDb, R"({"insert": "c", "documents": [{"_id": )" + std::to_string(id) +
                                 R"(, "pad": ")" + pad + R"("}]})");
  }
  static bool Acknowledged(const BsonDoc& r) {
    return testutil::IsOk(r) && !testutil::Has(r, "writeErrors");
  }
  // The code of a failed write: the command's or its first write error's.
  static std::optional<int64_t> FailureCode(const BsonDoc& r) {
    return testutil::IsOk(r) ? Integer(r, "writeErrors.0.code") : Integer(r, "code");
  }

  int64_t Count(MongoClient& c) {
    BsonDoc r = c.RunCommand(kDb, R"({"count": "c"})");
    EXPECT_TRUE(testutil::IsOk(r)) << Json(r);
    return Integer(r, "n").value_or(-1);
  }

  // Every id in `acked` is stored (a $in count) and validate passes.
  void ExpectIntactAndValid(MongoClient& c, const std::set<int64_t>& acked) {
    std::string ids;
    for (int64_t id : acked) ids += (ids.empty() ? "" : ",") + std::to_string(id);
    BsonDoc r = c.RunCommand(kDb, R"({"count": "c", "query": {"_id": {"$in": [)" + ids + "]}}}");
    EXPECT_EQ(Integer(r, "n"), static_cast<int64_t>(acked.size())) << Json(r);
    BsonDoc v = c.RunCommand(kDb, R"({"validate": "c", "full": true})");
    auto valid = testutil::Lookup(v, "valid");
    EXPECT_TRUE(valid && BSON_ITER_HOLDS_BOOL(&*valid) && bson_iter_bool(&*valid)) << Json(v);
  }

  Tmpfs fs_;
  std::string dbpath_;
  std::unique_ptr<ServerProcess> server_;
};

// The server's refusal to start: quick, status 1, the directory and cause named.
void ExpectRefusedStart(const Status& st, Clock::time_point began, const std::string& dbpath,
                        const std::string& cause) {
  ASSERT_FALSE(st.ok()) << "the server started";
  EXPECT_LT(Clock::now() - began, std::chrono::seconds(5)) << "slow to give up";
  EXPECT_TRUE(ExitedWith(st, 1)) << st.reason();
  EXPECT_NE(st.reason().find("tigerdoc: cannot open data directory '" + dbpath + "'"),
            std::string::npos)
      << st.reason();
  EXPECT_NE(st.reason().find(cause), std::string::npos) << st.reason();
}

TEST_F(DiskFullTest, ReadOnlyEmptyDataDirectoryFailsAtOnceThenStartsReadWrite) {
  MountAndMakeServer(64);
  ASSERT_TRUE(fs_.SetReadOnly(true)) << std::strerror(errno);
  auto began = Clock::now();
  ExpectRefusedStart(server_->Start(), began, dbpath_, "Read-only file system");
  ASSERT_TRUE(fs_.SetReadOnly(false)) << std::strerror(errno);
  ASSERT_TRUE(server_->Restart().ok()) << server_->LogTail();
  MongoClient c(server_->uri());
  EXPECT_TRUE(Acknowledged(InsertOne(c, 1)));
}

TEST_F(DiskFullTest, ReadOnlyDataDirectoryWithDataFailsAndKeepsTheData) {
  MountAndMakeServer(64);
  ASSERT_TRUE(server_->Start().ok()) << server_->LogTail();
  std::set<int64_t> acked;
  {
    MongoClient c(server_->uri());
    for (int64_t id = 0; id < 50; ++id) {
      ASSERT_TRUE(Acknowledged(InsertOne(c, id)));
      acked.insert(id);
    }
  }
  server_->Kill9();  // an unclean end: recovery is due at the next start
  ASSERT_TRUE(fs_.SetReadOnly(true)) << std::strerror(errno);
  auto began = Clock::now();
  ExpectRefusedStart(server_->Restart(), began, dbpath_, "Read-only file system");
  ASSERT_TRUE(fs_.SetReadOnly(false)) << std::strerror(errno);
  ASSERT_TRUE(server_->Restart().ok()) << server_->LogTail();
  MongoClient c(server_->uri());
  EXPECT_EQ(Count(c), 50);
  ExpectIntactAndValid(c, acked);
}

// cacheSizeMB 16: the reserve is 16/4 + 32 = 36 MiB of the 64.
TEST_F(DiskFullTest, FullDiskRefusesWritesServesReadsAndRecoversWhenSpaceIsFreed) {
  MountAndMakeServer(64);
  const std::string filler = fs_.dir() + "/filler";
  WriteFiller(filler, 12 << 20);
  ASSERT_TRUE(server_->Start().ok()) << server_->LogTail();
  auto client = std::make_unique<MongoClient>(server_->uri());
  MongoClient& c = *client;

  std::set<int64_t> acked;
  int64_t id = 0;
  BsonDoc failure;
  for (; id < 10000; ++id) {
    BsonDoc r = InsertOne(c, id);
    if (!Acknowledged(r)) {
      failure = std::move(r);
      break;
    }
    acked.insert(id);
  }
  ASSERT_FALSE(acked.empty());
  ASSERT_EQ(FailureCode(failure), kOutOfDiskSpace) << Json(failure);
  EXPECT_EQ(testutil::String(failure, "writeErrors.0.errmsg").value_or("").find(dbpath_) !=
                std::string::npos,
            true)
      << Json(failure);
  // Every write keeps failing the same way, and the server keeps serving reads.
  EXPECT_EQ(FailureCode(InsertOne(c, ++id)), kOutOfDiskSpace);
  BsonDoc upd = c.RunCommand(
      kDb, R"({"update": "c", "updates": [{"q": {"_id": 0}, "u": {"$set": {"x": 1}}}]})");
  EXPECT_EQ(FailureCode(upd), kOutOfDiskSpace) << Json(upd);
  BsonDoc created = c.RunCommand(kDb, R"({"create": "other"})");
  EXPECT_EQ(FailureCode(created), kOutOfDiskSpace) << Json(created);
  EXPECT_EQ(Count(c), static_cast<int64_t>(acked.size()));
  EXPECT_TRUE(server_->running());

  // Space freed: writes work again.
  std::filesystem::remove(filler);
  for (int i = 0; i < 20; ++i) {
    BsonDoc r = InsertOne(c, ++id);
    ASSERT_TRUE(Acknowledged(r)) << Json(r);
    acked.insert(id);
  }

  client.reset();
  server_->Kill9();
  ASSERT_TRUE(server_->Restart().ok()) << server_->LogTail();
  MongoClient after(server_->uri());
  EXPECT_EQ(Count(after), static_cast<int64_t>(acked.size()));
  ExpectIntactAndValid(after, acked);
  // The rest of the log holds no panic.
  EXPECT_EQ(server_->LogTail(1 << 20).find("panic"), std::string::npos);
}

TEST_F(DiskFullTest, FullDiskAtStartFailsAtOnceAndDamagesNothing) {
  MountAndMakeServer(48);
  ASSERT_TRUE(server_->Start().ok()) << server_->LogTail();
  std::set<int64_t> acked;
  {
    MongoClient c(server_->uri());
    for (int64_t id = 0; id < 50; ++id) {
      ASSERT_TRUE(Acknowledged(InsertOne(c, id)));
      acked.insert(id);
    }
  }
  server_->Kill9();  // an unclean end: recovery is due at the next start
  const std::string filler = fs_.dir() + "/filler";
  WriteFiller(filler, -1);
  auto began = Clock::now();
  ExpectRefusedStart(server_->Restart(), began, dbpath_, "OutOfDiskSpace");
  std::filesystem::remove(filler);
  ASSERT_TRUE(server_->Restart().ok()) << server_->LogTail();
  MongoClient c(server_->uri());
  EXPECT_EQ(Count(c), 50);
  ExpectIntactAndValid(c, acked);
}

// Without the reserve WiredTiger meets ENOSPC itself. It panics on a failed
// journal write; what must hold is a clean exit and a full recovery.
TEST_F(DiskFullTest, WithoutReserveAPanicExitsCleanlyAndRestartKeepsAcknowledgedWrites) {
  MountAndMakeServer(40, {"--diskReserveMB", "0"});
  const std::string filler = fs_.dir() + "/filler";
  WriteFiller(filler, 8 << 20);
  ASSERT_TRUE(server_->Start().ok()) << server_->LogTail();
  std::set<int64_t> acked;
  {
    MongoClient c(server_->uri());
    for (int64_t id = 0; id < 10000; ++id) {
      BsonDoc r = InsertOne(c, id);
      if (!Acknowledged(r)) break;
      acked.insert(id);
    }
  }
  ASSERT_FALSE(acked.empty());
  const int status = server_->WaitForExit(std::chrono::milliseconds(10000));
  if (status == -1) {
    // Still alive: the failure came back as an error instead of a panic.
    std::cout << "[disk] no panic: the failed write was answered with an error" << std::endl;
    server_->Kill9();
  } else {
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 14) << "wait status " << status;
    EXPECT_NE(server_->LogTail().find("tigerdoc: fatal: WiredTiger panicked"), std::string::npos);
    std::cout << "[disk] WiredTiger panicked after " << acked.size() << " acknowledged inserts"
              << std::endl;
  }
  std::filesystem::remove(filler);
  ASSERT_TRUE(server_->Restart().ok()) << server_->LogTail();
  MongoClient c(server_->uri());
  ExpectIntactAndValid(c, acked);
}

}  // namespace
}  // namespace tigerdoc::e2e
