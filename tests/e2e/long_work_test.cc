// Long work admission end to end (engine/long_work_admission.h), with one
// slot (--setParameter longWorkSlots=1): many connections scanning beside
// point readers all get exact results and serverStatus.longWork counts the
// admissions and yields; currentOp shows a long scan's numYields and a
// waiting one's waitingForLock; killOp ends a waiting scan with 11601 at
// once, and killCursors a waiting getMore with 237; the slow query log and
// the profiler count each command's yields; maxTimeMS ends a waiting or
// running one with 50; setParameter changes the slots. The suite shares one server: every test ends its
// scans and restores longWorkSlots.

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "tests/e2e/e2e_test_base.h"

namespace tigerdoc::e2e {
namespace {

using Clock = std::chrono::steady_clock;
using testutil::DocArray;
using testutil::Integer;
using testutil::Json;

class LongWorkTest : public E2eTest {
 protected:
  static void SetUpTestSuite() { StartServer({"--setParameter", "longWorkSlots=1"}); }

  void TearDown() override {
    // Leave the shared server quiet: no scan of this test still runs.
    const auto give_up = Clock::now() + std::chrono::seconds(60);
    while (LongWork("inUse") + LongWork("waiting") > 0 && Clock::now() < give_up) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    EXPECT_EQ(LongWork("inUse"), 0);
    EXPECT_EQ(LongWork("waiting"), 0);
    E2eTest::TearDown();
  }

  int64_t LongWork(const std::string& field) {
    MongoClient c(server_->uri());
    BsonDoc status = c.RunCommand("admin", R"({"serverStatus": 1})");
    return Integer(status, "longWork." + field).value_or(-1);
  }

  // An aggregation that runs for seconds (each $lookup scans the whole
  // collection: 4,000 x 4,000 reads), tagged so currentOp can find it.
  std::string LongAggregate(const std::string& tag, const std::string& extra = "") {
    return R"({"aggregate": "c", "pipeline": [{"$lookup": {"from": "c", "localField": "a",)"
           R"( "foreignField": "b", "as": "x"}}, {"$count": "n"}], "cursor": {}, "comment": ")" +
           tag + R"(")" + extra + "}";
  }

  // Runs LongAggregate(tag, extra) on replies->size() connections at once,
  // each reply into its slot; the caller joins the threads.
  std::vector<std::thread> StartAggregates(const std::string& tag, const std::string& extra,
                                           std::vector<BsonDoc>* replies) {
    std::vector<std::thread> threads;
    for (size_t t = 0; t < replies->size(); ++t) {
      threads.emplace_back([uri = server_->uri(), db = db_, command = LongAggregate(tag, extra),
                            reply = &(*replies)[t]] { *reply = MongoClient(uri).RunCommand(db, command); });
    }
    return threads;
  }

  // The currentOp entries of the aggregations tagged `tag`.
  std::vector<BsonDoc> Ops(MongoClient& c, const std::string& tag) {
    BsonDoc op = c.RunCommand("admin", R"({"currentOp": 1, "command.comment": ")" + tag + R"("})");
    return DocArray(op, "inprog");
  }

  void KillAll(MongoClient& c, const std::string& tag) {
    for (const BsonDoc& op : Ops(c, tag)) {
      c.RunCommand("admin", R"({"killOp": 1, "op": )" + std::to_string(Integer(op, "opid").value_or(-1)) + "}");
    }
  }
};

TEST_F(LongWorkTest, ScannersAndPointReadersAllGetExactResults) {
  constexpr int kDocs = 20000, kScanners = 8, kReaders = 4, kRounds = 6;
  InsertNumbers("c", kDocs, 10);
  const int64_t admitted_before = LongWork("admitted");
  const int64_t yields_before = LongWork("yields");
  const std::string uri = server_->uri();
  const std::string db = db_;
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kScanners; ++t) {
    threads.emplace_back([&, t] {
      MongoClient c(uri);
      for (int r = 0; r < kRounds; ++r) {
        const int a = (t + r) % 10;
        // Examines all 20,000 documents (no index on a), returns 2,000.
        BsonDoc reply = c.RunCommand(db, R"({"aggregate": "c", "pipeline": [{"$match": {"a": )" +
                                             std::to_string(a) + R"(}}, {"$count": "n"}], "cursor": {}})");
        if (Integer(reply, "cursor.firstBatch.0.n").value_or(-1) != kDocs / 10) {
          ADD_FAILURE() << Json(reply);
          wrong.fetch_add(1);
        }
      }
    });
  }
  for (int t = 0; t < kReaders; ++t) {
    threads.emplace_back([&, t] {
      MongoClient c(uri);
      for (int r = 0; r < 200; ++r) {
        const int id = (t * 977 + r * 31) % kDocs;
        BsonDoc reply = c.RunCommand(db, R"({"find": "c", "filter": {"_id": )" + std::to_string(id) + "}}");
        if (Integer(reply, "cursor.firstBatch.0.b").value_or(-1) != id % 100) {
          ADD_FAILURE() << Json(reply);
          wrong.fetch_add(1);
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
  // Scans of 20,000 documents beside seven others run past 1 ms: each
  // takes the one slot, and the holders hand it over to the waiting ones.
  EXPECT_GE(LongWork("admitted") - admitted_before, kScanners);
  EXPECT_GT(LongWork("yields") - yields_before, 0);
  EXPECT_EQ(LongWork("slots"), 1);
}

TEST_F(LongWorkTest, CurrentOpShowsYieldsAndKillOpEndsAWaitingScanAtOnce) {
  InsertNumbers("c", 4000, 10);
  constexpr int kScans = 6;
  std::vector<BsonDoc> replies(kScans);
  std::vector<std::thread> threads = StartAggregates("yields", R"(, "maxTimeMS": 120000)", &replies);
  MongoClient watcher(server_->uri());
  // Six scans, one slot: the holder yields to the waiting ones every few
  // ms, and five of them wait at any time. Wait until all six have
  // arrived: the first two can yield and wait before the last connects
  // (so it went under ASan on a loaded machine, with three of six).
  std::vector<BsonDoc> ops;
  bool yielded = false, one_waits = false;
  const auto give_up = Clock::now() + std::chrono::seconds(60);
  while (!(yielded && one_waits && ops.size() == static_cast<size_t>(kScans)) && Clock::now() < give_up) {
    ops = Ops(watcher, "yields");
    yielded = one_waits = false;
    for (const BsonDoc& op : ops) {
      if (Integer(op, "numYields").value_or(0) > 0) yielded = true;
      if (testutil::Number(op, "waitingForLock").value_or(0) == 1) one_waits = true;
    }
  }
  ASSERT_TRUE(yielded) << "no numYields > 0 in " << ops.size() << " ops";
  ASSERT_TRUE(one_waits);
  EXPECT_EQ(ops.size(), static_cast<size_t>(kScans));
  // Kill one that waits: it ends with 11601 at once, while the others run
  // on. The holder hands the slot on every few ms, so the one picked may
  // have got it by the time killOp arrives: up to four tries (of five
  // waiting), until one ends from its wait.
  const int64_t interrupted_before = LongWork("interruptedWaits");
  size_t running = kScans;
  for (int attempt = 0; attempt < 4 && LongWork("interruptedWaits") == interrupted_before; ++attempt) {
    int64_t waiting_opid = -1;
    for (const BsonDoc& op : Ops(watcher, "yields")) {
      if (testutil::Number(op, "waitingForLock").value_or(0) == 1) waiting_opid = Integer(op, "opid").value_or(-1);
    }
    ASSERT_GT(waiting_opid, 0);
    const auto killed_at = Clock::now();
    ASSERT_OK_REPLY(watcher.RunCommand("admin", R"({"killOp": 1, "op": )" + std::to_string(waiting_opid) + "}"));
    --running;
    bool ended = false;
    while (!ended && Clock::now() < killed_at + std::chrono::seconds(30)) {
      ended = Ops(watcher, "yields").size() == running;
    }
    ASSERT_TRUE(ended) << "the killed scan did not end";
    EXPECT_LT(Clock::now() - killed_at, std::chrono::seconds(10));
  }
  EXPECT_GE(LongWork("interruptedWaits") - interrupted_before, 1) << "no killed scan ended from its wait";
  KillAll(watcher, "yields");
  for (auto& t : threads) t.join();
  int interrupted = 0;
  for (const BsonDoc& reply : replies) {
    EXPECT_ERROR_REPLY(reply, 11601, "Interrupted");
    if (Integer(reply, "code") == 11601) ++interrupted;
  }
  EXPECT_EQ(interrupted, kScans);
}

// killCursors of a cursor whose getMore waits for the slot ends that wait
// at once with 237, as killOp does: serverStatus counts an interrupted wait,
// where a kill seen only once the getMore got the slot would not. Five long
// scans keep the one slot busy; the getMore runs the same $lookup (its
// aggregate, with batchSize 0, only planned it). The slot changes hands
// every few ms, so the getMore may hold it when the kill arrives: up to
// four tries, each with a new cursor.
TEST_F(LongWorkTest, KillCursorsEndsAWaitingGetMoreAtOnce) {
  InsertNumbers("c", 4000, 10);
  std::vector<BsonDoc> busy(5);
  std::vector<std::thread> threads = StartAggregates("busy", R"(, "maxTimeMS": 120000)", &busy);
  MongoClient watcher(server_->uri());
  const auto all_busy_by = Clock::now() + std::chrono::seconds(60);
  while (Ops(watcher, "busy").size() < busy.size() && Clock::now() < all_busy_by) {
  }
  ASSERT_EQ(Ops(watcher, "busy").size(), busy.size());
  const int64_t interrupted_before = LongWork("interruptedWaits");
  for (int attempt = 0; attempt < 4 && LongWork("interruptedWaits") == interrupted_before; ++attempt) {
    BsonDoc opened = Run(R"({"aggregate": "c", "pipeline": [{"$lookup": {"from": "c", "localField": "a",)"
                         R"( "foreignField": "b", "as": "x"}}, {"$count": "n"}], "cursor": {"batchSize": 0}})");
    ASSERT_OK_REPLY(opened);
    const int64_t id = Integer(opened, "cursor.id").value_or(0);
    ASSERT_NE(id, 0) << Json(opened);
    BsonDoc got;
    std::thread get_more([&] { got = GetMore(id, "c"); });
    const std::string filter =
        R"({"currentOp": 1, "command.getMore": {"$numberLong": ")" + std::to_string(id) + R"("}})";
    bool waits = false;
    const auto give_up = Clock::now() + std::chrono::seconds(60);
    while (!waits && Clock::now() < give_up) {
      const std::vector<BsonDoc> ops = DocArray(watcher.RunCommand("admin", filter), "inprog");
      waits = ops.size() == 1 && testutil::Number(ops[0], "waitingForLock").value_or(0) == 1;
    }
    ASSERT_TRUE(waits) << "the getMore never waited for the slot";
    BsonDoc killed = watcher.RunCommand(db_, KillCursorsCommand("c", id));
    get_more.join();
    ASSERT_OK_REPLY(killed);
    EXPECT_EQ(Integer(killed, "cursorsKilled.0"), id) << Json(killed);
    EXPECT_ERROR_REPLY(got, 237, "CursorKilled");
  }
  EXPECT_EQ(LongWork("interruptedWaits") - interrupted_before, 1) << "no killed getMore ended from its wait";
  KillAll(watcher, "busy");
  for (auto& t : threads) t.join();
  // Killed, or (on a fast machine, while the tries ran) finished.
  for (const BsonDoc& reply : busy) {
    if (Integer(reply, "ok") == 1) {
      EXPECT_EQ(Integer(reply, "cursor.firstBatch.0.n"), 4000) << Json(reply);
    } else {
      EXPECT_ERROR_REPLY(reply, 11601, "Interrupted");
    }
  }
}

// The yields currentOp shows are also in the slow query log line
// (numYields) and the profiler entry (numYield) of each finished command:
// three scans, one slot, so the holders hand it on.
TEST_F(LongWorkTest, SlowQueryLogAndProfilerCountTheYields) {
  InsertNumbers("c", 2000, 10);  // 2,000 x 2,000 reads per scan: far past slowms (100)
  ASSERT_OK_REPLY(Run(R"({"profile": 2})"));
  constexpr int kScans = 3;
  std::vector<BsonDoc> replies(kScans);
  std::vector<std::thread> threads = StartAggregates("counted", "", &replies);
  for (auto& t : threads) t.join();
  for (const BsonDoc& reply : replies) {
    ASSERT_OK_REPLY(reply);
    EXPECT_EQ(Integer(reply, "cursor.firstBatch.0.n"), 2000);  // every document, with its matches
  }
  ASSERT_OK_REPLY(Run(R"({"profile": 0})"));

  BsonDoc profiled = Run(R"({"find": "system.profile", "filter": {"command.comment": "counted"}})");
  const std::vector<BsonDoc> entries = DocArray(profiled, "cursor.firstBatch");
  ASSERT_EQ(entries.size(), static_cast<size_t>(kScans)) << Json(profiled);
  int64_t profiled_yields = 0;
  for (const BsonDoc& entry : entries) {
    const std::optional<int64_t> n = Integer(entry, "numYield");
    ASSERT_TRUE(n.has_value()) << Json(entry);
    profiled_yields += *n;
  }
  EXPECT_GT(profiled_yields, 0);

  BsonDoc log = RunAdmin(R"({"getLog": "global"})");
  int64_t logged_yields = 0, lines = 0;
  for (size_t i = 0; i < testutil::ArrayLength(log, "log"); ++i) {
    const std::string line = testutil::String(log, "log." + std::to_string(i)).value_or("");
    if (line.find(R"("msg":"Slow query")") == std::string::npos ||
        line.find(R"("comment" : "counted")") == std::string::npos) {
      continue;
    }
    const std::string key = R"("numYields" : )";
    const size_t at = line.find(key);
    ASSERT_NE(at, std::string::npos) << line;
    EXPECT_LT(at, line.find(R"("nreturned" : )")) << "mongod's order: " << line;
    logged_yields += std::stoll(line.substr(at + key.size()));
    ++lines;
  }
  EXPECT_EQ(lines, kScans);
  EXPECT_EQ(logged_yields, profiled_yields);
}

TEST_F(LongWorkTest, MaxTimeMSEndsAWaitingScan) {
  InsertNumbers("c", 4000, 10);
  const std::string uri = server_->uri();
  const std::string db = db_;
  BsonDoc holder_reply;
  std::thread holder([&] {
    MongoClient c(uri);
    holder_reply = c.RunCommand(db, LongAggregate("holder", R"(, "maxTimeMS": 120000)"));
  });
  MongoClient watcher(uri);
  const auto give_up = Clock::now() + std::chrono::seconds(60);
  while (LongWork("inUse") < 1 && Clock::now() < give_up) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_EQ(LongWork("inUse"), 1);
  // Another long scan waits for the slot (or runs in turns) and ends at its
  // deadline with 50.
  const auto began = Clock::now();
  BsonDoc limited = client_->RunCommand(db_, LongAggregate("limited", R"(, "maxTimeMS": 300)"));
  EXPECT_ERROR_REPLY(limited, 50, "MaxTimeMSExpired");
  EXPECT_LT(Clock::now() - began, std::chrono::seconds(20));
  KillAll(watcher, "holder");
  holder.join();
  EXPECT_ERROR_REPLY(holder_reply, 11601, "Interrupted");
  // The same short scan still answers normally.
  BsonDoc count = Run(R"({"count": "c", "query": {"a": 3}})");
  EXPECT_EQ(Integer(count, "n"), 400) << Json(count);
}

TEST_F(LongWorkTest, SetParameterChangesTheSlots) {
  BsonDoc got = client_->RunCommand("admin", R"({"getParameter": 1, "longWorkSlots": 1})");
  EXPECT_EQ(Integer(got, "longWorkSlots"), 1) << Json(got);
  BsonDoc set = client_->RunCommand("admin", R"({"setParameter": 1, "longWorkSlots": 4})");
  ASSERT_OK_REPLY(set);
  EXPECT_EQ(Integer(set, "was"), 1) << Json(set);
  EXPECT_EQ(LongWork("slots"), 4);
  EXPECT_ERROR_REPLY(client_->RunCommand("admin", R"({"setParameter": 1, "longWorkSlots": -1})"), 2, "BadValue");
  EXPECT_ERROR_REPLY(client_->RunCommand("admin", R"({"setParameter": 1, "longWorkSlots": "two"})"), 2,
                     "BadValue");
  ASSERT_OK_REPLY(client_->RunCommand("admin", R"({"setParameter": 1, "longWorkSlots": 0})"));
  EXPECT_EQ(LongWork("slots"), 0);
  ASSERT_OK_REPLY(client_->RunCommand("admin", R"({"setParameter": 1, "longWorkSlots": 1})"));
  EXPECT_EQ(LongWork("slots"), 1);
}

}  // namespace
}  // namespace tigerdoc::e2e
