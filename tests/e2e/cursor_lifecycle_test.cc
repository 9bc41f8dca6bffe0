// Cursor lifecycle against a server started with
// --setParameter cursorTimeoutMillis=500: idle cursors are reaped (and
// noCursorTimeout ones are not), a cursor kept busy lives on; killCursors
// reports killed and not-found ids; getMore on another namespace's cursor.
#include <chrono>
#include <iostream>
#include <thread>

#include "tests/e2e/busy_cursor.h"
#include "tests/e2e/e2e_test_base.h"
#include "tests/testutil/wait_until.h"

namespace tigerdoc::e2e {
namespace {

using testutil::ArrayLength;
using testutil::Integer;
using testutil::Json;
using testutil::String;

class CursorLifecycleTest : public E2eTest {
 protected:
  static void SetUpTestSuite() { StartServer({"--setParameter", "cursorTimeoutMillis=500"}); }

  void Fill(const std::string& coll, int n) {
    std::string docs = "[";
    for (int i = 0; i < n; ++i) docs += (i ? "," : "") + std::string(R"({"_id": )") + std::to_string(i) + "}";
    InsertJson(coll, docs + "]");
  }

  int64_t OpenCursor(const std::string& coll, bool no_timeout = false) {
    BsonDoc r = Run(R"({"find": ")" + coll + R"(", "batchSize": 1, "noCursorTimeout": )" +
                    (no_timeout ? "true" : "false") + "}");
    EXPECT_OK_REPLY(r);
    int64_t id = Integer(r, "cursor.id").value_or(0);
    EXPECT_NE(id, 0) << Json(r);
    return id;
  }

  BsonDoc KillCursors(const std::string& coll, const std::vector<int64_t>& ids) {
    BsonDoc cmd;
    BSON_APPEND_UTF8(cmd.mutable_get(), "killCursors", coll.c_str());
    bson_t array;
    BSON_APPEND_ARRAY_BEGIN(cmd.mutable_get(), "cursors", &array);
    for (size_t i = 0; i < ids.size(); ++i) {
      BSON_APPEND_INT64(&array, std::to_string(i).c_str(), ids[i]);
    }
    bson_append_array_end(cmd.mutable_get(), &array);
    return Run(cmd);
  }
};

// getParameter answers the value the server started with, alone and under
// "*"; setParameter changes it at run time.
TEST_F(CursorLifecycleTest, GetParameterAnswersTheCursorTimeoutItWasStartedWith) {
  BsonDoc one = RunAdmin(R"({"getParameter": 1, "cursorTimeoutMillis": 1})");
  ASSERT_OK_REPLY(one);
  EXPECT_EQ(Integer(one, "cursorTimeoutMillis"), 500) << Json(one);
  BsonDoc all = RunAdmin(R"({"getParameter": "*"})");
  ASSERT_OK_REPLY(all);
  EXPECT_EQ(Integer(all, "cursorTimeoutMillis"), 500) << Json(all);
  EXPECT_EQ(Integer(all, "maxBsonObjectSize"), 16 * 1024 * 1024);
  EXPECT_EQ(String(all, "featureCompatibilityVersion.version"), "7.0");
  EXPECT_EQ(Integer(all, "ttlMonitorSleepSecs"), 60);
  EXPECT_ERROR_REPLY(RunAdmin(R"({"setParameter": 1, "maxBsonObjectSize": 20})"), 20, "IllegalOperation");
  // cursorTimeoutMillis changes at run time, as mongod's (the reaping is
  // checked in diagnostics_test.cc).
  BsonDoc timeout = RunAdmin(R"({"setParameter": 1, "cursorTimeoutMillis": 20000})");
  ASSERT_OK_REPLY(timeout);
  EXPECT_EQ(Integer(timeout, "was"), 500);
  EXPECT_EQ(Integer(RunAdmin(R"({"getParameter": "*"})"), "cursorTimeoutMillis"), 20000);
  ASSERT_OK_REPLY(RunAdmin(R"({"setParameter": 1, "cursorTimeoutMillis": 500})"));
  EXPECT_EQ(Integer(RunAdmin(R"({"getParameter": 1, "cursorTimeoutMillis": 1})"), "cursorTimeoutMillis"), 500);
  // Every settable parameter reads back what was set, under "*" too.
  BsonDoc set = RunAdmin(R"({"setParameter": 1, "ttlMonitorSleepSecs": 7})");
  ASSERT_OK_REPLY(set);
  EXPECT_EQ(Integer(set, "was"), 60);
  EXPECT_EQ(Integer(RunAdmin(R"({"getParameter": "*"})"), "ttlMonitorSleepSecs"), 7);
  ASSERT_OK_REPLY(RunAdmin(R"({"setParameter": 1, "ttlMonitorSleepSecs": 60})"));
  EXPECT_ERROR_REPLY(RunAdmin(R"({"getParameter": 1, "noSuchParameter": 1})"), 72, "InvalidOptions");
}

// An idle cursor is reaped, a noCursorTimeout one and one kept busy (a
// getMore every 150 ms) are not. The test waits for the reaper to count a
// timed-out cursor rather than sleeping a fixed time (a starved reaper
// thread is late, not wrong), and it repeats the run when the machine
// stalled the busy cursor's getMores for the whole timeout (see
// busy_cursor.h).
TEST_F(CursorLifecycleTest, IdleCursorsAreReapedAfterCursorTimeoutMillis) {
  constexpr auto kTimeout = std::chrono::milliseconds(500);  // the suite's cursorTimeoutMillis
  Fill("c", 1000);  // a batch of one per getMore: the busy cursor never runs out while waiting
  for (int attempt = 1; attempt <= kCursorReapingAttempts; ++attempt) {
    const int64_t timed_out = CursorsTimedOut(*client_);
    const auto busy_opened = BusyCursor::Clock::now();
    const int64_t busy_id = OpenCursor("c");
    BusyCursor busy([&] { return GetMore(busy_id, "c", 1); }, busy_opened);
    const int64_t idle = OpenCursor("c");
    const int64_t pinned_open = OpenCursor("c", /*no_timeout=*/true);
    bool stalled = false;
    testutil::WaitUntil(
        [&] {
          BsonDoc r = busy.Use();
          if (busy.LongestIdle() >= kTimeout) return stalled = true;
          EXPECT_OK_REPLY(r);
          return CursorsTimedOut(*client_) > timed_out;
        },
        testutil::kGenerousWait, std::chrono::milliseconds(150));
    BsonDoc gone, pinned, still;
    int64_t reaped = -1;
    if (!stalled) {
      gone = GetMore(idle, "c", 1);
      pinned = GetMore(pinned_open, "c", 1);
      reaped = CursorsTimedOut(*client_);
      still = busy.Use();
      stalled = busy.LongestIdle() >= kTimeout;
    }
    if (stalled) {
      std::cerr << "attempt " << attempt << ": the machine stalled the busy cursor past the timeout; again\n";
      KillCursors("c", {busy_id, idle, pinned_open});
      continue;
    }
    EXPECT_ERROR_REPLY(gone, 43, "CursorNotFound");
    EXPECT_EQ(String(gone, "errmsg"), "cursor id " + std::to_string(idle) + " not found");
    EXPECT_OK_REPLY(pinned);
    EXPECT_OK_REPLY(still);
    EXPECT_EQ(reaped, timed_out + 1) << "only the idle cursor times out";
    return;
  }
  FAIL() << "the machine stalled longer than the cursor timeout in every attempt";
}

TEST_F(CursorLifecycleTest, KillCursorsReportsEachIdOnce) {
  Fill("c", 10);
  // noCursorTimeout: under the suite's 500 ms timeout a stalled machine
  // could reap them before the kill, which is not what this test is about.
  int64_t a = OpenCursor("c", /*no_timeout=*/true);
  int64_t b = OpenCursor("c", /*no_timeout=*/true);
  BsonDoc k = KillCursors("c", {a, 424242, b});
  ASSERT_OK_REPLY(k);
  EXPECT_EQ(ArrayLength(k, "cursorsKilled"), 2u) << Json(k);
  EXPECT_EQ(Integer(k, "cursorsKilled.0"), a);
  EXPECT_EQ(Integer(k, "cursorsKilled.1"), b);
  EXPECT_EQ(ArrayLength(k, "cursorsNotFound"), 1u);
  EXPECT_EQ(Integer(k, "cursorsNotFound.0"), 424242);
  EXPECT_EQ(ArrayLength(k, "cursorsAlive"), 0u);
  EXPECT_EQ(ArrayLength(k, "cursorsUnknown"), 0u);
  EXPECT_ERROR_REPLY(GetMore(a, "c"), 43, "CursorNotFound");
}

TEST_F(CursorLifecycleTest, GetMoreOnAnotherNamespacesCursorIsUnauthorized) {
  Fill("c", 10);
  Fill("d", 10);
  int64_t id = OpenCursor("c", /*no_timeout=*/true);  // not reaped under a stalled test
  BsonDoc r = GetMore(id, "d");
  EXPECT_ERROR_REPLY(r, 13, "Unauthorized");
  EXPECT_EQ(String(r, "errmsg"), "Requested getMore on namespace '" + db_ +
                                     ".d', but cursor belongs to a different namespace " + db_ + ".c")
      << Json(r);
  // The cursor is untouched by the refused getMore.
  EXPECT_OK_REPLY(GetMore(id, "c"));
}

}  // namespace
}  // namespace tigerdoc::e2e
