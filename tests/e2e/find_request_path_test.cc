// The request path of a find by _id after issue #18's round 4 (bench/README.md
// "CPU per find, round 4"): a connection answers with one recv and one send
// and no poll(2) unless the reply hands over a cursor; the counters
// (opcounters, metrics.document.returned, top) are read from the reply in
// one walk; the operation registry and the session pool do their
// allocations and cursor resets outside their mutexes; round 5 reuses the
// Operation block and the point read's vector per thread. Each case runs 8
// connections at once where that is what could break.

#include <atomic>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "tests/e2e/e2e_test_base.h"
#include "tests/testutil/raw_connection.h"
#include "tests/testutil/wait_until.h"

namespace tigerdoc::e2e {
namespace {

using testutil::DocArray;
using testutil::Integer;
using testutil::Json;
using testutil::RawConnection;
using ReadResult = RawConnection::ReadResult;

constexpr auto kReadTimeout = std::chrono::milliseconds(30000);
constexpr int kConnections = 8;
constexpr int kDocs = 100;

class FindRequestPathTest : public E2eTest {
 protected:
  void SetUp() override {
    E2eTest::SetUp();
    std::string docs = "[";
    for (int i = 0; i < kDocs; ++i) {
      docs += (i ? "," : "") + std::string(R"({"_id": )") + std::to_string(i) + R"(, "v": )" +
              std::to_string(i * 3) + "}";
    }
    InsertJson("c", docs + "]");
  }

  std::string FindById(int32_t request_id, int id, const std::string& extra = "") {
    return testutil::EncodeOpMsg(
        request_id, BsonDoc::FromJson(R"({"find": "c", "filter": {"_id": )" + std::to_string(id) +
                                      R"(}, "limit": 1, "singleBatch": true)" + extra + R"(, "$db": ")" +
                                      db_ + "\"}"));
  }

  // Reads one reply and checks it answers `request_id` with document `id`.
  static void ExpectFound(RawConnection& c, int32_t request_id, int id) {
    std::string reply;
    ASSERT_EQ(c.ReadMessage(&reply, kReadTimeout), ReadResult::kMessage) << request_id;
    int32_t response_to = 0;
    std::memcpy(&response_to, reply.data() + 8, 4);
    EXPECT_EQ(response_to, request_id);
    auto body = testutil::DecodeOpMsgBody(reply);
    ASSERT_TRUE(body.ok()) << body.status().ToString();
    const auto batch = DocArray(body.value(), "cursor.firstBatch");
    ASSERT_EQ(batch.size(), 1u) << Json(body.value());
    EXPECT_EQ(Integer(batch[0], "_id"), id);
    EXPECT_EQ(Integer(batch[0], "v"), id * 3);
    EXPECT_EQ(Integer(body.value(), "cursor.id"), 0);
  }

  int64_t ServerStatusAt(const char* path) {
    return Integer(RunAdmin(R"({"serverStatus": 1})"), path).value_or(-1);
  }

  int64_t TopQueries() {
    const BsonDoc top = RunAdmin(R"({"top": 1})");
    bson_iter_t totals, entry, count;
    const std::string ns = db_ + ".c";
    if (!bson_iter_init_find(&totals, top.get(), "totals") || !bson_iter_recurse(&totals, &entry) ||
        !bson_iter_find(&entry, ns.c_str()) || !bson_iter_recurse(&entry, &count) ||
        !bson_iter_find_descendant(&count, "queries.count", &count)) {
      return 0;
    }
    return bson_iter_as_int64(&count);
  }
};

// 8 connections read by _id at once; every reply is the right document and
// every find is counted once in opcounters, metrics.document.returned and
// top (RecordCommand's one walk over the reply, the registry and session
// pool under concurrency).
TEST_F(FindRequestPathTest, EightConnectionsFindByIdAndEveryFindIsCounted) {
  constexpr int kEach = 300;
  const int64_t query_before = ServerStatusAt("opcounters.query");
  const int64_t returned_before = ServerStatusAt("metrics.document.returned");
  const int64_t top_before = TopQueries();
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < kConnections; ++t) {
    threads.emplace_back([&, t] {
      MongoClient client(server_->uri());
      for (int i = 0; i < kEach; ++i) {
        const int id = (t * 37 + i * 11) % kDocs;
        BsonDoc r = client.RunCommand(db_, R"({"find": "c", "filter": {"_id": )" + std::to_string(id) +
                                               R"(}, "limit": 1, "singleBatch": true})");
        const auto batch = DocArray(r, "cursor.firstBatch");
        if (batch.size() != 1 || Integer(batch[0], "_id") != id || Integer(batch[0], "v") != id * 3) {
          ++wrong;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(ServerStatusAt("opcounters.query") - query_before, kConnections * kEach);
  EXPECT_EQ(ServerStatusAt("metrics.document.returned") - returned_before, kConnections * kEach);
  EXPECT_EQ(TopQueries() - top_before, kConnections * kEach);
}

// Through the 8 KiB read-ahead: 40 finds in one write (several requests in
// one segment), then one trickled in pieces of 1, 15 and 7 bytes and the
// rest (a request across several segments), on 8 connections at once.
TEST_F(FindRequestPathTest, PipelinedAndTrickledFindsOnEightConnections) {
  std::vector<std::thread> threads;
  for (int t = 0; t < kConnections; ++t) {
    threads.emplace_back([&, t] {
      RawConnection c = ConnectRaw();
      std::string burst;
      for (int i = 0; i < 40; ++i) burst += FindById(1000 * t + i, (t + i * 7) % kDocs);
      ASSERT_TRUE(c.Send(burst).ok());
      for (int i = 0; i < 40; ++i) ExpectFound(c, 1000 * t + i, (t + i * 7) % kDocs);
      const std::string one = FindById(1000 * t + 999, t);
      size_t at = 0;
      for (size_t piece : {size_t{1}, size_t{15}, size_t{7}, one.size() - 23}) {
        ASSERT_TRUE(c.Send(std::string_view(one).substr(at, piece)).ok());
        at += piece;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
      ExpectFound(c, 1000 * t + 999, t);
    });
  }
  for (auto& t : threads) t.join();
}

// A client that leaves while its find runs: when the reply would have
// handed over a cursor, the server sees the client gone (its one poll(2))
// and kills the cursor; when it hands over none, the reply is sent into
// the closed socket and the connection ends at its next read. Either way
// no cursor stays open and the server keeps serving.
TEST_F(FindRequestPathTest, ClientLeavingMidFindLeavesNoCursor) {
  InsertSlowToSort("big");
  const std::string sorted = R"({"find": "big", "filter": {"s": {"$regex": "x"}}, "sort": {"k": -1, "s": 1})";
  // Delivered, the batchSize 1 find opens a cursor.
  BsonDoc r = Run(sorted + R"(, "batchSize": 1})");
  ASSERT_OK_REPLY(r);
  const int64_t id = Integer(r, "cursor.id").value_or(0);
  ASSERT_NE(id, 0);
  ASSERT_OK_REPLY(
      Run(R"({"killCursors": "big", "cursors": [{"$numberLong": ")" + std::to_string(id) + "\"}]}"));
  ASSERT_EQ(ServerStatusAt("metrics.cursor.open.total"), 0);
  for (const char* tail : {R"(, "batchSize": 1})", R"(, "singleBatch": true, "limit": 5})"}) {
    for (int round = 0; round < 3; ++round) {
      RawConnection c = ConnectRaw();
      BsonDoc find = BsonDoc::FromJson(sorted + tail);
      BSON_APPEND_UTF8(find.mutable_get(), "$db", db_.c_str());
      ASSERT_TRUE(c.Send(testutil::EncodeOpMsg(1, find)).ok());
    }  // each client leaves before its reply
  }
  int64_t open = -1;
  testutil::WaitUntil(
      [&] {
        open = ServerStatusAt("metrics.cursor.open.total");
        return open == 0;
      },
      testutil::kGenerousWait, std::chrono::milliseconds(100));
  EXPECT_EQ(open, 0);
  // The abandoned finds run to their end (the singleBatch ones open no
  // cursor): wait for them too, so that they leave nothing running behind
  // this test for the suite's next one, which counts the server's finds.
  MongoClient admin(server_->uri());
  size_t running = 0;
  EXPECT_TRUE(testutil::WaitUntil(
      [&] {
        BsonDoc ops = admin.RunCommand("admin", R"({"currentOp": 1, "ns": ")" + db_ + R"(.big"})");
        running = testutil::ArrayLength(ops, "inprog");
        return running == 0;
      },
      testutil::kGenerousWait, std::chrono::milliseconds(50)))
      << running << " abandoned finds still running";
  // The server still answers, on a new connection and on 8 at once.
  std::vector<std::thread> threads;
  for (int t = 0; t < kConnections; ++t) {
    threads.emplace_back([&, t] {
      RawConnection c = ConnectRaw();
      ASSERT_TRUE(c.Send(FindById(t + 1, t)).ok());
      ExpectFound(c, t + 1, t);
    });
  }
  for (auto& t : threads) t.join();
}

// maxTimeMS still ends a find (the deadline the dispatcher registers with
// the operation), on 8 connections at once, and a find by _id with a
// generous maxTimeMS still answers.
TEST_F(FindRequestPathTest, MaxTimeMSStillEndsALongFind) {
  InsertSlowToSort("big");
  std::vector<std::thread> threads;
  std::atomic<int> expired{0}, found{0};
  for (int t = 0; t < kConnections; ++t) {
    threads.emplace_back([&] {
      MongoClient client(server_->uri());
      // A regex over 20,000 documents and a sort of what matches: far more
      // than a millisecond (up to 5 tries, for a machine that races).
      for (int i = 0; i < 5; ++i) {
        BsonDoc r = client.RunCommand(
            db_, R"({"find": "big", "filter": {"s": {"$regex": "q.*z$"}}, "sort": {"k": 1, "s": -1},
                     "maxTimeMS": 1})");
        if (Integer(r, "code") == 50) {
          ++expired;
          EXPECT_EQ(testutil::String(r, "codeName"), "MaxTimeMSExpired");
          break;
        }
      }
      BsonDoc r = client.RunCommand(db_, R"({"find": "c", "filter": {"_id": 5}, "maxTimeMS": 60000})");
      if (DocArray(r, "cursor.firstBatch").size() == 1) ++found;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(expired.load(), kConnections);
  EXPECT_EQ(found.load(), kConnections);
}

// Round 5 (bench/README.md "CPU per find, round 5") reuses per thread what
// a find by _id allocates: the registry's Operation block and the batch
// vector a point read fills (RecycleBatch). Each of 8 connections mixes
// point reads that hit and miss with finds whose batches are small (a
// vector kept for reuse), large (freed) or leave a cursor that getMore
// drains or killCursors ends, and a projection find that takes the planner;
// every reply must be right, and opcounters and metrics.document.returned
// must count each command and document once.
TEST_F(FindRequestPathTest, ReusedObjectsAcrossMixedFindsOnEightConnections) {
  constexpr int kRounds = 40;
  const int64_t query_before = ServerStatusAt("opcounters.query");
  const int64_t getmore_before = ServerStatusAt("opcounters.getmore");
  const int64_t returned_before = ServerStatusAt("metrics.document.returned");
  std::atomic<int> wrong{0};
  std::atomic<int64_t> returned{0}, getmores{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kConnections; ++t) {
    threads.emplace_back([&, t] {
      MongoClient client(server_->uri());
      auto batch_of = [&](const BsonDoc& r, const char* field) {
        auto batch = DocArray(r, field);
        returned += static_cast<int64_t>(batch.size());
        return batch;
      };
      auto expect_id = [&](int id) {
        BsonDoc r = client.RunCommand(db_, R"({"find": "c", "filter": {"_id": )" + std::to_string(id) +
                                               R"(}, "limit": 1, "singleBatch": true})");
        const auto batch = batch_of(r, "cursor.firstBatch");
        if (batch.size() != 1 || Integer(batch[0], "_id") != id || Integer(batch[0], "v") != id * 3 ||
            Integer(r, "cursor.id") != 0) {
          ++wrong;
        }
      };
      for (int round = 0; round < kRounds; ++round) {
        const int id = (t * 13 + round * 7) % kDocs;
        expect_id(id);
        // A miss: an empty batch, no cursor.
        BsonDoc miss = client.RunCommand(db_, R"({"find": "c", "filter": {"_id": 100000}})");
        if (!batch_of(miss, "cursor.firstBatch").empty() || Integer(miss, "cursor.id") != 0) ++wrong;
        // Large then small batches, then point reads again.
        const int size = round % 2 == 0 ? kDocs : 1 + round % 4;
        BsonDoc all = client.RunCommand(
            db_, R"({"find": "c", "filter": {}, "sort": {"_id": 1}, "batchSize": )" + std::to_string(size) + "}");
        auto first = batch_of(all, "cursor.firstBatch");
        int next = 0;
        for (const BsonDoc& doc : first) next += Integer(doc, "_id") == next ? 1 : kDocs * 2;
        const int64_t cursor = Integer(all, "cursor.id").value_or(0);
        if (cursor != 0 && round % 3 == 0) {
          BsonDoc killed = client.RunCommand(
              db_, R"({"killCursors": "c", "cursors": [{"$numberLong": ")" + std::to_string(cursor) + R"("}]})");
          if (Integer(killed, "cursorsKilled.0") != cursor || Integer(killed, "cursorsKilled.1")) ++wrong;
        } else if (cursor != 0) {
          ++getmores;
          BsonDoc more = client.RunCommand(
              db_, R"({"getMore": {"$numberLong": ")" + std::to_string(cursor) + R"("}, "collection": "c"})");
          for (const BsonDoc& doc : batch_of(more, "cursor.nextBatch")) {
            next += Integer(doc, "_id") == next ? 1 : kDocs * 2;
          }
          if (next != kDocs || Integer(more, "cursor.id") != 0) ++wrong;
        } else if (next != kDocs) {
          ++wrong;
        }
        expect_id((id + 1) % kDocs);
        // Not a point read (a projection): the planner, its own vector.
        BsonDoc projected = client.RunCommand(
            db_, R"({"find": "c", "filter": {"_id": )" + std::to_string(id) + R"(}, "projection": {"v": 0}})");
        const auto p = batch_of(projected, "cursor.firstBatch");
        if (p.size() != 1 || Integer(p[0], "_id") != id || Integer(p[0], "v").has_value()) ++wrong;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
  // Per round: five finds, and a getMore when a cursor was left and not killed.
  EXPECT_GE(getmores.load(), kConnections * kRounds / 4);
  EXPECT_EQ(ServerStatusAt("opcounters.query") - query_before, kConnections * kRounds * 5);
  EXPECT_EQ(ServerStatusAt("opcounters.getmore") - getmore_before, getmores.load());
  EXPECT_EQ(ServerStatusAt("metrics.document.returned") - returned_before, returned.load());
  EXPECT_EQ(ServerStatusAt("metrics.cursor.open.total"), 0);
}

// The dispatcher reads the transaction fields, maxTimeMS and currentOp's
// ns in one raw walk of the command; a command that walk leaves to libbson
// (a regex in it) gets the same answers from libbson's helpers.
TEST_F(FindRequestPathTest, CommandsTheRawWalkLeavesToLibbsonAnswerAlike) {
  const std::string regex = R"({"$regularExpression": {"pattern": "probe", "options": ""}})";
  for (const std::string& comment : {std::string(R"("plain")"), regex}) {
    // Transaction fields are refused wherever they sit.
    for (const char* field : {R"("txnNumber": {"$numberLong": "3"})", R"("autocommit": false)",
                              R"("startTransaction": true)"}) {
      BsonDoc r = Run(R"({"find": "c", "comment": )" + comment + ", " + field + "}");
      EXPECT_ERROR_REPLY(r, 20, "IllegalOperation");
      EXPECT_EQ(testutil::String(r, "errmsg"),
                "Transaction numbers are only allowed on a replica set member or mongos");
    }
    // maxTimeMS: a valid one is taken, a bad one answered by find.
    BsonDoc r = Run(R"({"find": "c", "comment": )" + comment + R"(, "maxTimeMS": 60000, "filter": {"_id": 5}})");
    ASSERT_OK_REPLY(r);
    EXPECT_EQ(DocArray(r, "cursor.firstBatch").size(), 1u) << Json(r);
    r = Run(R"({"find": "c", "comment": )" + comment + R"(, "maxTimeMS": "x"})");
    EXPECT_ERROR_REPLY(r, 2, "BadValue");
    // currentOp shows the running command itself: ns "<db>.$cmd" for a
    // first field that is not a string, its comment as sent.
    r = RunAdmin(R"({"aggregate": 1, "comment": )" + comment +
                 R"(, "pipeline": [{"$currentOp": {}}, {"$match": {"command.aggregate": 1, "command.pipeline.0.$currentOp": {"$exists": true}}}], "cursor": {}})");
    ASSERT_OK_REPLY(r);
    const auto ops = DocArray(r, "cursor.firstBatch");
    ASSERT_EQ(ops.size(), 1u) << Json(r);
    EXPECT_EQ(testutil::String(ops[0], "ns"), "admin.$cmd") << Json(r);
    EXPECT_TRUE(testutil::Has(ops[0], "command.comment")) << Json(r);
  }
}

}  // namespace
}  // namespace tigerdoc::e2e
