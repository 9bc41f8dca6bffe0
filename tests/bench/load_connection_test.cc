// tigerdoc_load's server connections (bench/server_backend.h), through
// libmongoc and through the thin wire client:
//  - against the real server, each operation does what it says and reports
//    success only then (a duplicate _id, a missing document, a document of
//    another _id type, a batch stopped by a duplicate are failures); batches
//    of 1, 999, 1000 and 1001 documents land whole; several connections at
//    once;
//  - against a scripted peer (wire client only), the requests are the ones
//    libmongoc sends (documents and updates in a kind-1 sequence, ordered:
//    true, writeConcern with --j), a batch is split at the server's
//    maxWriteBatchSize, and every well-formed but wrong reply (a count off
//    by one, nModified 0, a writeConcernError, another document) is a
//    failed operation that leaves the connection usable.
#include "bench/server_backend.h"

#include <atomic>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "tests/bench/scripted_peer.h"
#include "tests/e2e/e2e_test_base.h"

namespace tigerdoc::bench {
namespace {

// ---- Against the real server, through each client --------------------------

class LoadConnectionTest : public e2e::E2eTest, public ::testing::WithParamInterface<LoadClient> {
 protected:
  std::unique_ptr<ServerConnection> Connect(bool journaled = false) {
    auto conn = ConnectServer(GetParam(), server_->uri(), db_, "load", journaled);
    EXPECT_TRUE(conn.ok()) << conn.status().ToString();
    return conn.ok() ? std::move(conn).value() : nullptr;
  }
  int64_t Count(const std::string& query = "{}") {
    BsonDoc reply = Run(R"({"count": "load", "query": )" + query + "}");
    return testutil::Integer(reply, "n").value_or(-1);
  }
  // Documents with _id in [first, first + count).
  int64_t CountIds(int64_t first, int64_t count) {
    return Count(R"({"_id": {"$gte": )" + std::to_string(first) + R"(, "$lt": )" +
                 std::to_string(first + count) + "}}");
  }
  BsonDoc FindId(int64_t id) {
    return Run(R"({"find": "load", "filter": {"_id": )" + std::to_string(id) + "}}");
  }
};

TEST_P(LoadConnectionTest, InsertWritesTheLoadDocumentAndRefusesADuplicate) {
  auto conn = Connect();
  ASSERT_NE(conn, nullptr);
  EXPECT_TRUE(conn->Insert(7));
  BsonDoc found = FindId(7);
  EXPECT_EQ(testutil::String(found, "cursor.firstBatch.0.type"), "order.paid") << testutil::Json(found);
  EXPECT_EQ(testutil::Integer(found, "cursor.firstBatch.0.n"), 0);
  EXPECT_EQ(testutil::String(found, "cursor.firstBatch.0.v"), std::string(kPayloadBytes, 'x'));
  EXPECT_FALSE(conn->Insert(7)) << "a duplicate _id is a writeError, not an insert";
  EXPECT_EQ(Count(), 1);
  EXPECT_TRUE(conn->Insert(8)) << "the connection stays usable after a refused insert";
  EXPECT_EQ(Count(), 2);
}

TEST_P(LoadConnectionTest, ReadFindsOnlyTheDocumentWithItsId) {
  auto conn = Connect();
  ASSERT_NE(conn, nullptr);
  ASSERT_TRUE(conn->Insert(1));
  EXPECT_TRUE(conn->ReadById(1));
  EXPECT_FALSE(conn->ReadById(2)) << "nothing found is a failed read";
  EXPECT_TRUE(conn->ReadById(1));
  // {_id: NumberLong(5)} matches an int32 5, but that is not the load's
  // document: the read must have found the int64 _id it asked for.
  InsertJson("load", R"([{"_id": 5}])");
  EXPECT_FALSE(conn->ReadById(5));
}

TEST_P(LoadConnectionTest, IncrementAddsOneToExactlyTheDocumentAsked) {
  auto conn = Connect();
  ASSERT_NE(conn, nullptr);
  ASSERT_TRUE(conn->Insert(3));
  ASSERT_TRUE(conn->Insert(4));
  EXPECT_TRUE(conn->IncrementById(3));
  EXPECT_TRUE(conn->IncrementById(3));
  EXPECT_EQ(testutil::Integer(FindId(3), "cursor.firstBatch.0.n"), 2);
  EXPECT_EQ(testutil::Integer(FindId(4), "cursor.firstBatch.0.n"), 0);
  EXPECT_FALSE(conn->IncrementById(404)) << "an update that matches nothing is a failure";
  EXPECT_EQ(Count(), 2) << "and inserts nothing";
  EXPECT_TRUE(conn->IncrementById(4));
}

// Just below, at and above 1,000 documents, each size twice: the second
// batch reuses the first's documents with their _ids overwritten.
TEST_P(LoadConnectionTest, BatchesOfEverySizeLandWhole) {
  auto conn = Connect();
  ASSERT_NE(conn, nullptr);
  int64_t next = 0, total = 0;
  for (int size : {1, 999, 1000, 1001}) {
    for (int round = 0; round < 2; ++round) {
      ASSERT_TRUE(conn->InsertBatch(next, size)) << size << " documents from " << next;
      EXPECT_EQ(CountIds(next, size), size) << size << " documents from " << next;
      EXPECT_EQ(testutil::Integer(FindId(next + size - 1), "cursor.firstBatch.0._id"), next + size - 1);
      next += size;
      total += size;
    }
  }
  EXPECT_EQ(Count(), total);
  EXPECT_TRUE(conn->ReadById(next - 1));
}

TEST_P(LoadConnectionTest, ABatchStoppedByADuplicateFails) {
  auto conn = Connect();
  ASSERT_NE(conn, nullptr);
  ASSERT_TRUE(conn->Insert(500));
  EXPECT_FALSE(conn->InsertBatch(0, 1000));
  // Ordered: the 500 documents before the duplicate went in, none after.
  EXPECT_EQ(Count(), 501);
  EXPECT_TRUE(conn->InsertBatch(2000, 10)) << "the connection stays usable";
}

TEST_P(LoadConnectionTest, FindNoneExaminesTheCollectionAndFindsNothing) {
  auto conn = Connect();
  ASSERT_NE(conn, nullptr);
  ASSERT_TRUE(conn->InsertBatch(0, 300));
  EXPECT_TRUE(conn->FindNone());
  InsertJson("load", std::string(R"([{"_id": "odd", "v": ")") + kNoSuchValue + R"("}])");
  EXPECT_FALSE(conn->FindNone()) << "a document found is a failure";
}

TEST_P(LoadConnectionTest, JournaledWritesAreAcknowledged) {
  auto conn = Connect(/*journaled=*/true);
  ASSERT_NE(conn, nullptr);
  EXPECT_TRUE(conn->Insert(1));
  EXPECT_TRUE(conn->InsertBatch(10, 20));
  EXPECT_TRUE(conn->IncrementById(1));
  EXPECT_EQ(Count(), 21);
  EXPECT_EQ(testutil::Integer(FindId(1), "cursor.firstBatch.0.n"), 1);
}

TEST_P(LoadConnectionTest, SeveralConnectionsAtOnce) {
  auto first = Connect();
  ASSERT_NE(first, nullptr);
  constexpr int kThreads = 8, kBatch = 250, kIncrements = 50;
  constexpr int64_t kShared = 100000;  // the document every thread increments
  ASSERT_TRUE(first->Insert(kShared));
  std::vector<std::unique_ptr<ServerConnection>> conns;
  for (int t = 0; t < kThreads; ++t) conns.push_back(Connect());
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      ServerConnection* conn = conns[t].get();
      if (conn == nullptr) {
        failures.fetch_add(1);
        return;
      }
      const int64_t base = 1000 * (t + 1);
      if (!conn->InsertBatch(base, kBatch)) failures.fetch_add(1);
      if (!conn->Insert(base + kBatch)) failures.fetch_add(1);
      for (int i = 0; i < kIncrements; ++i) {
        if (!conn->IncrementById(kShared)) failures.fetch_add(1);
        if (!conn->ReadById(base + i)) failures.fetch_add(1);
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(Count(), 1 + kThreads * (kBatch + 1));
  EXPECT_EQ(testutil::Integer(FindId(kShared), "cursor.firstBatch.0.n"), kThreads * kIncrements);
}

INSTANTIATE_TEST_SUITE_P(Clients, LoadConnectionTest,
                         ::testing::Values(LoadClient::kLibmongoc, LoadClient::kWire),
                         [](const ::testing::TestParamInfo<LoadClient>& info) {
                           return std::string(LoadClientName(info.param));
                         });

// ---- The wire client against a scripted peer ---------------------------------

// Documents in the request's first sequence.
size_t SequenceLength(const ScriptedPeer::Request& r) {
  return r.msg.sequences.empty() ? 0 : r.msg.sequences[0].documents.size();
}

BsonDoc SequenceDoc(const ScriptedPeer::Request& r, size_t i) {
  const std::string_view bytes = r.msg.sequences[0].documents[i];
  auto doc = BsonDoc::FromBytes(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  EXPECT_TRUE(doc.ok());
  return doc.ok() ? std::move(doc).value() : BsonDoc();
}

// What a server that did as asked answers: an insert wrote its documents,
// an update matched and modified one, a find by _id found it, another find
// found nothing.
BsonDoc RightReply(const ScriptedPeer::Request& r) {
  const BsonDoc& body = r.msg.body;
  if (testutil::Has(body, "insert")) {
    return BsonDoc::FromJson(R"({"n": )" + std::to_string(SequenceLength(r)) + R"(, "ok": 1.0})");
  }
  if (testutil::Has(body, "update")) return BsonDoc::FromJson(R"({"n": 1, "nModified": 1, "ok": 1.0})");
  std::string batch;
  if (auto id = testutil::Integer(body, "filter._id")) {
    batch = R"({"_id": {"$numberLong": ")" + std::to_string(*id) + R"("}, "n": 0})";
  }
  return BsonDoc::FromJson(R"({"cursor": {"id": 0, "ns": "db.load", "firstBatch": [)" + batch +
                           R"(]}, "ok": 1.0})");
}

// Answers the handshake (with `max_write_batch_size`), then request i with
// `wrong(i)` when it gives a body, else with RightReply.
ScriptedPeer::Answer Script(int max_write_batch_size,
                            std::function<std::optional<BsonDoc>(size_t)> wrong = nullptr) {
  return [=](size_t index, const ScriptedPeer::Request& r) -> std::vector<std::string> {
    if (index == 0) return {Reply(r, HelloBody(21, max_write_batch_size))};
    if (wrong) {
      if (std::optional<BsonDoc> body = wrong(index)) return {Reply(r, *body)};
    }
    return {Reply(r, RightReply(r))};
  };
}

std::unique_ptr<ServerConnection> ConnectWire(const ScriptedPeer& peer, bool journaled = false) {
  auto conn = ConnectWireLoad("mongodb://127.0.0.1:" + std::to_string(peer.port()) + "/", "db",
                              "load", journaled);
  EXPECT_TRUE(conn.ok()) << conn.status().ToString();
  return conn.ok() ? std::move(conn).value() : nullptr;
}

TEST(WireLoadProtocolTest, RequestsAreTheOnesLibmongocSends) {
  ScriptedPeer peer(Script(100000));
  auto conn = ConnectWire(peer, /*journaled=*/true);
  ASSERT_NE(conn, nullptr);
  EXPECT_TRUE(conn->Insert(7));
  EXPECT_TRUE(conn->IncrementById(7));
  EXPECT_TRUE(conn->ReadById(7));
  EXPECT_TRUE(conn->FindNone());
  conn.reset();
  std::vector<ScriptedPeer::Request> requests = peer.Finish();
  ASSERT_EQ(requests.size(), 5u);

  const ScriptedPeer::Request& insert = requests[1];
  EXPECT_EQ(testutil::String(insert.msg.body, "insert"), "load") << testutil::Json(insert.msg.body);
  EXPECT_EQ(testutil::String(insert.msg.body, "$db"), "db");
  EXPECT_TRUE(testutil::Has(insert.msg.body, "ordered"));
  EXPECT_TRUE(testutil::Has(insert.msg.body, "writeConcern.j"));
  EXPECT_FALSE(testutil::Has(insert.msg.body, "documents")) << "the documents go in a sequence";
  ASSERT_EQ(insert.msg.sequences.size(), 1u);
  EXPECT_EQ(insert.msg.sequences[0].identifier, "documents");
  ASSERT_EQ(SequenceLength(insert), 1u);
  EXPECT_EQ(testutil::Json(SequenceDoc(insert, 0)), testutil::Json(MakeLoadDoc(7)));

  const ScriptedPeer::Request& update = requests[2];
  EXPECT_EQ(testutil::String(update.msg.body, "update"), "load") << testutil::Json(update.msg.body);
  EXPECT_TRUE(testutil::Has(update.msg.body, "writeConcern.j"));
  ASSERT_EQ(update.msg.sequences.size(), 1u);
  EXPECT_EQ(update.msg.sequences[0].identifier, "updates");
  ASSERT_EQ(SequenceLength(update), 1u);
  BsonDoc statement = SequenceDoc(update, 0);
  EXPECT_EQ(testutil::Integer(statement, "q._id"), 7) << testutil::Json(statement);
  EXPECT_EQ(testutil::Integer(statement, "u.$inc.n"), 1) << testutil::Json(statement);

  const ScriptedPeer::Request& read = requests[3];
  EXPECT_EQ(testutil::String(read.msg.body, "find"), "load") << testutil::Json(read.msg.body);
  EXPECT_EQ(testutil::Integer(read.msg.body, "filter._id"), 7);
  EXPECT_EQ(testutil::Integer(read.msg.body, "limit"), 1);
  EXPECT_TRUE(testutil::Has(read.msg.body, "singleBatch"));
  EXPECT_TRUE(read.msg.sequences.empty());

  EXPECT_EQ(testutil::String(requests[4].msg.body, "filter.v"), kNoSuchValue)
      << testutil::Json(requests[4].msg.body);
}

// The server's maxWriteBatchSize (here 1,000) caps the documents of one
// request: 999 and 1,000 go in one, 1,001 in two (1,000 + 1), with every
// _id once and in order.
TEST(WireLoadProtocolTest, ABatchIsSplitAtTheServersMaxWriteBatchSize) {
  ScriptedPeer peer(Script(1000));
  auto conn = ConnectWire(peer);
  ASSERT_NE(conn, nullptr);
  const std::vector<int> sizes = {1, 999, 1000, 1001};
  int64_t next = 0;
  for (int size : sizes) {
    EXPECT_TRUE(conn->InsertBatch(next, size)) << size;
    next += size;
  }
  conn.reset();
  std::vector<ScriptedPeer::Request> requests = peer.Finish();
  ASSERT_EQ(requests.size(), 1u + 5u);
  const std::vector<size_t> expected = {1, 999, 1000, 1000, 1};
  int64_t id = 0;
  for (size_t i = 0; i < expected.size(); ++i) {
    const ScriptedPeer::Request& r = requests[i + 1];
    ASSERT_EQ(SequenceLength(r), expected[i]) << "request " << i;
    for (size_t d = 0; d < expected[i]; ++d, ++id) {
      ASSERT_EQ(testutil::Integer(SequenceDoc(r, d), "_id"), id) << "request " << i << " document " << d;
    }
  }
}

// One operation the peer answers wrongly, though in well-formed OP_MSG.
enum class Op { kInsert, kBatch, kRead, kIncrement, kFindNone };

struct WrongReply {
  const char* name;
  Op op;
  const char* body;  // relaxed extended JSON
};

bool Perform(ServerConnection& conn, Op op) {
  switch (op) {
    case Op::kInsert:
      return conn.Insert(7);
    case Op::kBatch:
      return conn.InsertBatch(10, 3);
    case Op::kRead:
      return conn.ReadById(7);
    case Op::kIncrement:
      return conn.IncrementById(7);
    case Op::kFindNone:
      return conn.FindNone();
  }
  return false;
}

class WireLoadWrongReplyTest : public ::testing::TestWithParam<WrongReply> {};

TEST_P(WireLoadWrongReplyTest, IsAFailedOperationAndTheConnectionStaysUsable) {
  const WrongReply& wrong = GetParam();
  ScriptedPeer peer(Script(100000, [&wrong](size_t index) -> std::optional<BsonDoc> {
    if (index == 1) return BsonDoc::FromJson(wrong.body);
    return std::nullopt;
  }));
  auto conn = ConnectWire(peer);
  ASSERT_NE(conn, nullptr);
  EXPECT_FALSE(Perform(*conn, wrong.op)) << "accepted " << wrong.body;
  EXPECT_TRUE(Perform(*conn, wrong.op)) << "the same operation, answered rightly";
}

INSTANTIATE_TEST_SUITE_P(
    Replies, WireLoadWrongReplyTest,
    ::testing::Values(
        WrongReply{"InsertedNone", Op::kInsert, R"({"n": 0, "ok": 1.0})"},
        WrongReply{"InsertWithoutN", Op::kInsert, R"({"ok": 1.0})"},
        WrongReply{"InsertWriteError", Op::kInsert,
                   R"({"n": 1, "writeErrors": [{"index": 0, "code": 11000, "errmsg": "dup"}], "ok": 1.0})"},
        WrongReply{"InsertWriteConcernError", Op::kInsert,
                   R"({"n": 1, "writeConcernError": {"code": 64, "errmsg": "timeout"}, "ok": 1.0})"},
        WrongReply{"InsertCommandError", Op::kInsert,
                   R"({"ok": 0.0, "code": 2, "codeName": "BadValue", "errmsg": "no"})"},
        WrongReply{"BatchOneShort", Op::kBatch, R"({"n": 2, "ok": 1.0})"},
        WrongReply{"BatchOneOver", Op::kBatch, R"({"n": 4, "ok": 1.0})"},
        WrongReply{"ReadFoundNothing", Op::kRead,
                   R"({"cursor": {"id": 0, "ns": "db.load", "firstBatch": []}, "ok": 1.0})"},
        WrongReply{"ReadFoundAnotherId", Op::kRead,
                   R"({"cursor": {"id": 0, "ns": "db.load", "firstBatch": [{"_id": {"$numberLong": "8"}}]}, "ok": 1.0})"},
        WrongReply{"ReadFoundAnInt32Id", Op::kRead,
                   R"({"cursor": {"id": 0, "ns": "db.load", "firstBatch": [{"_id": 7}]}, "ok": 1.0})"},
        WrongReply{"ReadFoundTwo", Op::kRead,
                   R"({"cursor": {"id": 0, "ns": "db.load", "firstBatch": [{"_id": {"$numberLong": "7"}}, {"_id": {"$numberLong": "7"}}]}, "ok": 1.0})"},
        WrongReply{"ReadCursorLeftOpen", Op::kRead,
                   R"({"cursor": {"id": 5, "ns": "db.load", "firstBatch": [{"_id": {"$numberLong": "7"}}]}, "ok": 1.0})"},
        WrongReply{"ReadWithoutCursor", Op::kRead, R"({"ok": 1.0})"},
        WrongReply{"IncrementMatchedNone", Op::kIncrement, R"({"n": 0, "nModified": 0, "ok": 1.0})"},
        WrongReply{"IncrementModifiedNone", Op::kIncrement, R"({"n": 1, "nModified": 0, "ok": 1.0})"},
        WrongReply{"IncrementWithoutNModified", Op::kIncrement, R"({"n": 1, "ok": 1.0})"},
        WrongReply{"IncrementWriteConcernError", Op::kIncrement,
                   R"({"n": 1, "nModified": 1, "writeConcernError": {"code": 64, "errmsg": "t"}, "ok": 1.0})"},
        WrongReply{"IncrementWriteError", Op::kIncrement,
                   R"({"n": 0, "nModified": 0, "writeErrors": [{"index": 0, "code": 14, "errmsg": "x"}], "ok": 1.0})"},
        WrongReply{"FindNoneFoundOne", Op::kFindNone,
                   R"({"cursor": {"id": 0, "ns": "db.load", "firstBatch": [{"_id": 1}]}, "ok": 1.0})"}),
    [](const ::testing::TestParamInfo<WrongReply>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace tigerdoc::bench
