// Durability of acknowledged commits across kill -9, and persistence across
// a clean reopen, with a real data directory.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "engine/storage/storage_engine.h"
#include "tests/engine/temp_dir.h"

namespace tigerdoc::storage {
namespace {

using testing_dirs::TempDir;

std::string KeyOf(uint64_t i) {
  // Big-endian so keys sort in commit order.
  std::string key(8, '\0');
  for (int b = 7; b >= 0; --b, i >>= 8) key[b] = static_cast<char>(i & 0xff);
  return key;
}

StorageOptions DiskOptions(const std::string& dir) {
  StorageOptions options;
  options.dbpath = dir;
  options.cache_size_mb = 64;
  options.checkpoint_interval_secs = 3600;  // recovery must come from the journal
  options.journal_flush_interval_ms = 0;    // no background flush to mask a missing commit write
  return options;
}

// Child: commit records 0, 1, 2, ... one transaction each, reporting the
// number acknowledged so far after every commit, until killed.
[[noreturn]] void RunWriter(const std::string& dir, int report_fd) {
  auto engine = StorageEngine::Open(DiskOptions(dir));
  if (!engine.ok()) _exit(2);
  Session session = engine.value()->NewSession();
  if (!session.CreateTable("t").ok()) _exit(3);
  for (uint64_t i = 0;; ++i) {
    if (!session.Begin().ok()) _exit(4);
    if (!session.Insert("t", KeyOf(i), "value-" + std::to_string(i)).ok()) _exit(5);
    if (!session.Commit().ok()) _exit(6);
    uint64_t acked = i + 1;
    if (write(report_fd, &acked, sizeof(acked)) != sizeof(acked)) _exit(7);
  }
}

// Forks a child that runs `writer` (which never returns) with the write end
// of a pipe; returns the child's pid and puts the read end in *report_fd.
pid_t ForkWriter(void (*writer)(const std::string&, int), const std::string& dir, int* report_fd) {
  int fds[2];
  if (pipe(fds) != 0) return -1;
  pid_t child = fork();
  if (child == 0) {
    close(fds[0]);
    writer(dir, fds[1]);
  }
  close(fds[1]);
  *report_fd = fds[0];
  return child;
}

TEST(DurabilityTest, AcknowledgedCommitsSurviveKillMinus9) {
  TempDir dir("tigerdoc-dur");
  int report_fd = -1;
  pid_t child = ForkWriter(RunWriter, dir.path(), &report_fd);
  ASSERT_GE(child, 0);

  // Kill the writer mid-stream, after a few thousand commits.
  constexpr uint64_t kKillAfter = 3000;
  uint64_t acked = 0, report = 0;
  while (acked < kKillAfter && read(report_fd, &report, sizeof(report)) == sizeof(report)) {
    acked = report;
  }
  ASSERT_EQ(kill(child, SIGKILL), 0);
  int wstatus = 0;
  ASSERT_EQ(waitpid(child, &wstatus, 0), child);
  ASSERT_TRUE(WIFSIGNALED(wstatus)) << "writer exited early with " << WEXITSTATUS(wstatus);
  // Reports written before the kill are acknowledgements too.
  while (read(report_fd, &report, sizeof(report)) == sizeof(report)) acked = report;
  close(report_fd);
  ASSERT_GE(acked, kKillAfter);

  auto engine = StorageEngine::Open(DiskOptions(dir.path()));
  ASSERT_TRUE(engine.ok()) << engine.status().ToString();
  Session session = engine.value()->NewSession();
  uint64_t missing = 0, first_missing = 0;
  for (uint64_t i = 0; i < acked; ++i) {
    auto got = session.Get("t", KeyOf(i));
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    if (!got.value().has_value() || *got.value() != "value-" + std::to_string(i)) {
      if (missing++ == 0) first_missing = i;
    }
  }
  EXPECT_EQ(missing, 0u) << "of " << acked << " acknowledged commits, first lost: "
                         << first_missing;
}

// Child: kWriters threads commit records (writer, 0), (writer, 1), ... one
// transaction each and report {writer, acknowledged so far} after every
// commit, until killed. Their commits overlap, so some write their own
// journal records inside commit_transaction and the others leave theirs to
// the group commit (Session::Commit): both ways must hold.
constexpr int kWriters = 8;

std::string WriterKeyOf(uint64_t writer, uint64_t i) { return KeyOf(writer << 48 | i); }

[[noreturn]] void RunConcurrentWriters(const std::string& dir, int report_fd) {
  auto engine = StorageEngine::Open(DiskOptions(dir));
  if (!engine.ok()) _exit(2);
  {
    Session session = engine.value()->NewSession();
    if (!session.CreateTable("t").ok()) _exit(3);
  }
  std::vector<std::thread> writers;
  for (uint64_t w = 0; w < kWriters; ++w) {
    writers.emplace_back([&engine, report_fd, w] {
      Session session = engine.value()->NewSession();
      for (uint64_t i = 0;; ++i) {
        if (!session.Begin().ok()) _exit(4);
        if (!session.Insert("t", WriterKeyOf(w, i), "value-" + std::to_string(i)).ok()) _exit(5);
        if (!session.Commit().ok()) _exit(6);
        // 16 bytes: one atomic pipe write, never interleaved with another.
        const uint64_t report[2] = {w, i + 1};
        if (write(report_fd, report, sizeof(report)) != sizeof(report)) _exit(7);
      }
    });
  }
  for (std::thread& t : writers) t.join();
  _exit(8);
}

TEST(DurabilityTest, AcknowledgedCommitsOfConcurrentWritersSurviveKillMinus9) {
  TempDir dir("tigerdoc-dur");
  int report_fd = -1;
  pid_t child = ForkWriter(RunConcurrentWriters, dir.path(), &report_fd);
  ASSERT_GE(child, 0);

  constexpr uint64_t kKillAfter = 4000;  // commits, all writers together
  uint64_t acked[kWriters] = {};
  uint64_t total = 0, report[2];
  while (total < kKillAfter && read(report_fd, report, sizeof(report)) == sizeof(report)) {
    ASSERT_LT(report[0], static_cast<uint64_t>(kWriters));
    acked[report[0]] = report[1];
    ++total;
  }
  ASSERT_EQ(kill(child, SIGKILL), 0);
  int wstatus = 0;
  ASSERT_EQ(waitpid(child, &wstatus, 0), child);
  ASSERT_TRUE(WIFSIGNALED(wstatus)) << "writers exited early with " << WEXITSTATUS(wstatus);
  while (read(report_fd, report, sizeof(report)) == sizeof(report)) acked[report[0]] = report[1];
  close(report_fd);
  ASSERT_GE(total, kKillAfter);

  auto engine = StorageEngine::Open(DiskOptions(dir.path()));
  ASSERT_TRUE(engine.ok()) << engine.status().ToString();
  Session session = engine.value()->NewSession();
  for (uint64_t w = 0; w < kWriters; ++w) {
    uint64_t missing = 0, first_missing = 0;
    for (uint64_t i = 0; i < acked[w]; ++i) {
      auto got = session.Get("t", WriterKeyOf(w, i));
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      if (!got.value().has_value() || *got.value() != "value-" + std::to_string(i)) {
        if (missing++ == 0) first_missing = i;
      }
    }
    EXPECT_EQ(missing, 0u) << "writer " << w << ": of " << acked[w]
                           << " acknowledged commits, first lost: " << first_missing;
  }
}

TEST(DurabilityTest, DataPersistsAcrossCleanReopen) {
  TempDir dir("tigerdoc-dur");
  {
    auto engine = StorageEngine::Open(DiskOptions(dir.path()));
    ASSERT_TRUE(engine.ok()) << engine.status().ToString();
    Session session = engine.value()->NewSession();
    ASSERT_TRUE(session.CreateTable("t").ok());
    ASSERT_TRUE(session.Insert("t", "k", "v").ok());
    ASSERT_TRUE(engine.value()->FlushJournal().ok());
  }
  auto engine = StorageEngine::Open(DiskOptions(dir.path()));
  ASSERT_TRUE(engine.ok()) << engine.status().ToString();
  Session session = engine.value()->NewSession();
  EXPECT_EQ(session.ListTables().value(), std::vector<std::string>{"t"});
  EXPECT_EQ(*session.Get("t", "k").value(), "v");
}

TEST(DurabilityTest, BackgroundFlusherRunsAndStopsCleanly) {
  TempDir dir("tigerdoc-dur");
  StorageOptions options = DiskOptions(dir.path());
  options.journal_flush_interval_ms = 5;
  auto engine = StorageEngine::Open(options);
  ASSERT_TRUE(engine.ok()) << engine.status().ToString();
  Session session = engine.value()->NewSession();
  ASSERT_TRUE(session.CreateTable("t").ok());
  for (int i = 0; i < 50; ++i) ASSERT_TRUE(session.Insert("t", KeyOf(i), "v").ok());
  ASSERT_TRUE(engine.value()->FlushJournal().ok());
  EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(dir.path()) / "journal"));
}

// The dirty eviction targets (storage_engine.cc, bench/README.md "WiredTiger
// dirty eviction targets") are part of what WiredTiger was opened with: it
// records that in WiredTiger.basecfg, which a later open also reads.
TEST(StorageEngineConfigTest, DirtyEvictionTargetsAreWhatWiredTigerWasOpenedWith) {
  TempDir dir("tigerdoc-evict");
  {
    auto engine = StorageEngine::Open(DiskOptions(dir.path()));
    ASSERT_TRUE(engine.ok()) << engine.status().ToString();
  }
  std::ifstream in(std::filesystem::path(dir.path()) / "WiredTiger.basecfg");
  ASSERT_TRUE(in.good());
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(text.str().find("eviction_dirty_target=20"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("eviction_dirty_trigger=40"), std::string::npos) << text.str();
}

// mongod's storage.wiredTiger.engineConfig.configString: appended last, so
// its keys override tigerdoc's; one WiredTiger refuses stops the open.
TEST(StorageEngineConfigTest, ExtraWiredTigerConfigOverridesOursAndABadOneFailsTheOpen) {
  TempDir dir("tigerdoc-wtconfig");
  StorageOptions options = DiskOptions(dir.path());
  options.wiredtiger_config = "eviction_dirty_target=30,eviction_dirty_trigger=60";
  {
    auto engine = StorageEngine::Open(options);
    ASSERT_TRUE(engine.ok()) << engine.status().ToString();
  }
  std::ifstream in(std::filesystem::path(dir.path()) / "WiredTiger.basecfg");
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(text.str().find("eviction_dirty_target=30"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("eviction_dirty_trigger=60"), std::string::npos) << text.str();
  EXPECT_EQ(text.str().find("eviction_dirty_target=20"), std::string::npos) << text.str();

  TempDir bad_dir("tigerdoc-wtconfig-bad");
  StorageOptions bad = DiskOptions(bad_dir.path());
  bad.wiredtiger_config = "no_such_key=1";
  auto refused = StorageEngine::Open(bad);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().reason().find("wiredtiger_open"), std::string::npos)
      << refused.status().ToString();
}

}  // namespace
}  // namespace tigerdoc::storage
