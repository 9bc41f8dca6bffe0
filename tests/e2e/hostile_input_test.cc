// Hostile input over raw sockets and libmongoc, beyond the framing cases of
// malformed_message_test.cc (which covers lengths below 16 and above
// 48,000,000 closing the connection):
//   * a message of exactly maxMessageSizeBytes (48,000,000) is served;
//   * a document over 16 MiB is BadValue (2) "object to insert too large", as
//     mongod's fixDocumentForInsert (jstests/core/max_doc_size.js);
//   * a stored document deeper than 180 levels is Overflow (15), for insert
//     and update; a command nested past BSON's 200 levels (deep filters,
//     expressions, update specs) is Overflow before any recursion;
//   * a client that disconnects while its aggregation runs leaves no cursor
//     and no lock behind.
// After each, the server answers everyone.

#include <iostream>
#include <thread>

#include "tests/e2e/e2e_test_base.h"
#include "tests/testutil/raw_connection.h"
#include "tests/testutil/wait_until.h"

namespace tigerdoc::e2e {
namespace {

using testutil::Integer;
using testutil::Json;
using testutil::RawConnection;
using ReadResult = RawConnection::ReadResult;

constexpr int32_t kMaxMessageSizeBytes = 48000000;
constexpr int32_t kMaxBsonObjectSize = 16 * 1024 * 1024;
constexpr auto kReadTimeout = std::chrono::milliseconds(60000);

void PutInt32(std::string* out, int32_t v) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

// {_id: id, s: "<filler>"} of exactly `size` bytes (size >= 22).
std::string DocOfSize(int32_t id, int32_t size) {
  const int32_t filler = size - 22;
  std::string d;
  PutInt32(&d, size);
  d += '\x10';
  d += std::string("_id", 4);
  PutInt32(&d, id);
  d += '\x02';
  d += std::string("s", 2);
  PutInt32(&d, filler + 1);
  d += std::string(static_cast<size_t>(filler), 'x');
  d += '\0';
  d += '\0';
  return d;
}

// An OP_MSG: kind-0 `body`, then a kind-1 section `identifier` holding
// `docs` (already encoded).
std::string OpMsgWithSequence(int32_t request_id, const BsonDoc& body, const std::string& identifier,
                              const std::vector<std::string>& docs) {
  std::string payload(4, '\0');
  payload += '\0';
  payload.append(body.bytes());
  std::string section;
  for (const auto& d : docs) section += d;
  payload += '\x01';
  PutInt32(&payload, static_cast<int32_t>(4 + identifier.size() + 1 + section.size()));
  payload += identifier;
  payload += '\0';
  payload += section;
  return testutil::EncodeHeader(static_cast<int32_t>(16 + payload.size()), request_id, 0,
                                testutil::kOpMsg) +
         payload;
}

// {v: {a: {a: ... 1}}} with `levels` "a" levels, built inside out (libbson's
// JSON parser stops at 100 levels).
BsonDoc Nested(int levels) {
  BsonDoc inner;
  BSON_APPEND_INT32(inner.mutable_get(), "a", 1);
  for (int i = 1; i < levels; ++i) {
    BsonDoc outer;
    BSON_APPEND_DOCUMENT(outer.mutable_get(), "a", inner.get());
    inner = std::move(outer);
  }
  BsonDoc out;
  BSON_APPEND_DOCUMENT(out.mutable_get(), "v", inner.get());
  return out;
}

class HostileInputTest : public E2eTest {
 protected:
  void ExpectServerAlive() {
    ASSERT_TRUE(server_->running());
    MongoClient fresh(server_->uri());
    EXPECT_OK_REPLY(fresh.RunCommand("admin", R"({"ping": 1})"));
  }
  // Sends `message` and returns the decoded reply body.
  BsonDoc Exchange(const std::string& message) {
    RawConnection c = ConnectRaw();
    EXPECT_TRUE(c.Send(message).ok());
    std::string reply;
    EXPECT_EQ(c.ReadMessage(&reply, kReadTimeout), ReadResult::kMessage);
    auto body = testutil::DecodeOpMsgBody(reply);
    EXPECT_TRUE(body.ok()) << body.status().ToString();
    return body.ok() ? std::move(body).value() : BsonDoc();
  }
  int64_t OpenCursors() {
    BsonDoc status = RunAdmin(R"({"serverStatus": 1})");
    return Integer(status, "metrics.cursor.open.total").value_or(-1);
  }
};

TEST_F(HostileInputTest, MessageOfExactlyMaxMessageSizeIsServed) {
  BsonDoc body = BsonDoc::FromJson("{\"insert\": \"big\", \"$db\": \"" + db_ + "\"}");
  const int32_t overhead = 16 + 4 + 1 + static_cast<int32_t>(body.size()) + 1 + 4 + 10;
  const int32_t docs_bytes = kMaxMessageSizeBytes - overhead;
  const int32_t each = docs_bytes / 3;
  ASSERT_LT(docs_bytes - 2 * each, kMaxBsonObjectSize);
  const std::string message = OpMsgWithSequence(
      7, body, "documents",
      {DocOfSize(1, each), DocOfSize(2, each), DocOfSize(3, docs_bytes - 2 * each)});
  ASSERT_EQ(message.size(), static_cast<size_t>(kMaxMessageSizeBytes));
  BsonDoc reply = Exchange(message);
  EXPECT_OK_REPLY(reply);
  EXPECT_EQ(Integer(reply, "n"), 3) << Json(reply);
  EXPECT_EQ(Integer(Run(R"({"count": "big"})"), "n"), 3);
  ExpectServerAlive();
}

TEST_F(HostileInputTest, DocumentOverSixteenMebibytesIsBadValue) {
  BsonDoc body = BsonDoc::FromJson("{\"insert\": \"big\", \"$db\": \"" + db_ + "\"}");
  BsonDoc reply =
      Exchange(OpMsgWithSequence(8, body, "documents", {DocOfSize(1, kMaxBsonObjectSize + 1)}));
  EXPECT_EQ(Integer(reply, "writeErrors.0.code"), 2) << Json(reply).substr(0, 400);
  EXPECT_EQ(Integer(Run(R"({"count": "big"})"), "n"), 0);
  ExpectServerAlive();
}

TEST_F(HostileInputTest, StoredDocumentsNestDeeperThan180LevelsAreOverflow) {
  // {v: {a: ... 1}}: the top document is level 1, so 179 "a" levels make 180.
  BsonDoc ok_doc = Nested(179);
  BSON_APPEND_INT32(ok_doc.mutable_get(), "_id", 1);
  BsonDoc cmd;
  BSON_APPEND_UTF8(cmd.mutable_get(), "insert", "deep");
  bson_t docs;
  bson_append_array_begin(cmd.mutable_get(), "documents", -1, &docs);
  BSON_APPEND_DOCUMENT(&docs, "0", ok_doc.get());
  bson_append_array_end(cmd.mutable_get(), &docs);
  BsonDoc r = Run(cmd);
  EXPECT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "n"), 1) << Json(r);

  BsonDoc too_deep = Nested(180);
  BSON_APPEND_INT32(too_deep.mutable_get(), "_id", 2);
  BsonDoc cmd2;
  BSON_APPEND_UTF8(cmd2.mutable_get(), "insert", "deep");
  bson_append_array_begin(cmd2.mutable_get(), "documents", -1, &docs);
  BSON_APPEND_DOCUMENT(&docs, "0", too_deep.get());
  bson_append_array_end(cmd2.mutable_get(), &docs);
  r = Run(cmd2);
  EXPECT_EQ(Integer(r, "writeErrors.0.code"), 15) << Json(r).substr(0, 300);
  EXPECT_EQ(testutil::String(r, "writeErrors.0.errmsg"),
            "cannot insert document because it exceeds 180 levels of nesting");

  // An update that would make the stored document too deep.
  BsonDoc update;
  BSON_APPEND_UTF8(update.mutable_get(), "update", "deep");
  bson_t updates, u, q, set;
  bson_append_array_begin(update.mutable_get(), "updates", -1, &updates);
  bson_append_document_begin(&updates, "0", -1, &u);
  bson_append_document_begin(&u, "q", -1, &q);
  BSON_APPEND_INT32(&q, "_id", 1);
  bson_append_document_end(&u, &q);
  bson_append_document_begin(&u, "u", -1, &set);
  BSON_APPEND_DOCUMENT(&set, "$set", Nested(180).get());
  bson_append_document_end(&u, &set);
  bson_append_document_end(&updates, &u);
  bson_append_array_end(update.mutable_get(), &updates);
  r = Run(update);
  EXPECT_EQ(Integer(r, "writeErrors.0.code"), 15) << Json(r).substr(0, 300);
  EXPECT_EQ(testutil::String(r, "writeErrors.0.errmsg"),
            "Document exceeds maximum nesting depth of 180");
  EXPECT_EQ(Integer(Run(R"({"count": "deep"})"), "n"), 1);
  ExpectServerAlive();
}

TEST_F(HostileInputTest, DeepFiltersExpressionsAndUpdatesAreBoundedWithOverflow) {
  InsertJson("c", R"([{"_id": 1, "x": 1}])");
  // {$and: [{$and: [... {x: 1}]}]}: two BSON levels per $and.
  auto and_filter = [](int levels) {
    BsonDoc f = BsonDoc::FromJson(R"({"x": 1})");
    for (int i = 0; i < levels; ++i) {
      BsonDoc outer;
      bson_t array;
      bson_append_array_begin(outer.mutable_get(), "$and", -1, &array);
      BSON_APPEND_DOCUMENT(&array, "0", f.get());
      bson_append_array_end(outer.mutable_get(), &array);
      f = std::move(outer);
    }
    return f;
  };
  // {$add: [{$add: [... 1, 1]}, 1]}
  auto add_expr = [](int levels) {
    BsonDoc e;
    bson_t array;
    bson_append_array_begin(e.mutable_get(), "$add", -1, &array);
    BSON_APPEND_INT32(&array, "0", 1);
    BSON_APPEND_INT32(&array, "1", 1);
    bson_append_array_end(e.mutable_get(), &array);
    for (int i = 1; i < levels; ++i) {
      BsonDoc outer;
      bson_append_array_begin(outer.mutable_get(), "$add", -1, &array);
      BSON_APPEND_DOCUMENT(&array, "0", e.get());
      BSON_APPEND_INT32(&array, "1", 1);
      bson_append_array_end(outer.mutable_get(), &array);
      e = std::move(outer);
    }
    return e;
  };
  auto find = [&](const BsonDoc& filter) {
    BsonDoc cmd;
    BSON_APPEND_UTF8(cmd.mutable_get(), "find", "c");
    BSON_APPEND_DOCUMENT(cmd.mutable_get(), "filter", filter.get());
    return Run(cmd);
  };
  auto project = [&](const BsonDoc& expr) {
    BsonDoc cmd, cursor;
    BSON_APPEND_UTF8(cmd.mutable_get(), "aggregate", "c");
    bson_t pipeline, stage, proj;
    bson_append_array_begin(cmd.mutable_get(), "pipeline", -1, &pipeline);
    bson_append_document_begin(&pipeline, "0", -1, &stage);
    bson_append_document_begin(&stage, "$project", -1, &proj);
    BSON_APPEND_DOCUMENT(&proj, "y", expr.get());
    bson_append_document_end(&stage, &proj);
    bson_append_document_end(&pipeline, &stage);
    bson_append_array_end(cmd.mutable_get(), &pipeline);
    BSON_APPEND_DOCUMENT(cmd.mutable_get(), "cursor", cursor.get());
    return Run(cmd);
  };
  // Deep but legal: evaluated.
  BsonDoc r = find(and_filter(90));
  EXPECT_OK_REPLY(r);
  EXPECT_EQ(testutil::ArrayLength(r, "cursor.firstBatch"), 1u);
  r = project(add_expr(90));
  EXPECT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "cursor.firstBatch.0.y"), 91) << Json(r);
  // Past BSON's 200 levels: refused before anything recurses over it.
  EXPECT_ERROR_REPLY(find(and_filter(150)), 15, "Overflow");
  EXPECT_ERROR_REPLY(project(add_expr(150)), 15, "Overflow");
  BsonDoc expr_filter;
  BSON_APPEND_DOCUMENT(expr_filter.mutable_get(), "$expr", add_expr(150).get());
  EXPECT_ERROR_REPLY(find(expr_filter), 15, "Overflow");
  BsonDoc update;
  BSON_APPEND_UTF8(update.mutable_get(), "update", "c");
  bson_t updates, u, q, set;
  bson_append_array_begin(update.mutable_get(), "updates", -1, &updates);
  bson_append_document_begin(&updates, "0", -1, &u);
  bson_append_document_begin(&u, "q", -1, &q);
  bson_append_document_end(&u, &q);
  bson_append_document_begin(&u, "u", -1, &set);
  BSON_APPEND_DOCUMENT(&set, "$set", Nested(250).get());
  bson_append_document_end(&u, &set);
  bson_append_document_end(&updates, &u);
  bson_append_array_end(update.mutable_get(), &updates);
  EXPECT_ERROR_REPLY(Run(update), 15, "Overflow");
  ExpectServerAlive();
}

TEST_F(HostileInputTest, ClientLeavingMidAggregationLeavesNoCursorAndNoLock) {
  InsertSlowToSort("c");
  const std::string pipeline =
      R"([{"$sort": {"k": -1, "s": 1}}, {"$addFields": {"t": {"$concat": ["$s", "$s"]}}}, {"$sort": {"t": 1, "k": 1}}])";
  // Delivered, it opens a cursor (killed here).
  const auto started = std::chrono::steady_clock::now();
  BsonDoc r = Run(R"({"aggregate": "c", "pipeline": )" + pipeline + R"(, "cursor": {"batchSize": 1}})");
  const auto took = std::chrono::steady_clock::now() - started;
  ASSERT_OK_REPLY(r);
  const int64_t id = Integer(r, "cursor.id").value_or(0);
  ASSERT_NE(id, 0);
  std::cout << "[hostile] the aggregation takes "
            << std::chrono::duration_cast<std::chrono::milliseconds>(took).count() << " ms"
            << std::endl;
  ASSERT_EQ(OpenCursors(), 1);
  ASSERT_OK_REPLY(
      Run(R"({"killCursors": "c", "cursors": [{"$numberLong": ")" + std::to_string(id) + "\"}]}"));
  ASSERT_EQ(OpenCursors(), 0);
  for (int round = 0; round < 3; ++round) {
    RawConnection c = ConnectRaw();
    BsonDoc agg = BsonDoc::FromJson(R"({"aggregate": "c", "pipeline": )" + pipeline +
                                    R"(, "cursor": {"batchSize": 1}, "$db": ")" + db_ + "\"}");
    ASSERT_TRUE(c.Send(testutil::EncodeOpMsg(1, agg)).ok());
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }  // each client leaves before its reply
  // The aggregations finish on their own; none leaves a cursor.
  // (Waited for: three of them under ASan on a loaded machine take long.)
  int64_t open = -1;
  testutil::WaitUntil(
      [&] {
        open = OpenCursors();
        return open == 0;
      },
      testutil::kGenerousWait, std::chrono::milliseconds(100));
  EXPECT_EQ(open, 0);
  // No lock held either: the collection can be dropped at once.
  const auto start = std::chrono::steady_clock::now();
  EXPECT_OK_REPLY(Run(R"({"drop": "c"})"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  ExpectServerAlive();
}

}  // namespace
}  // namespace tigerdoc::e2e
