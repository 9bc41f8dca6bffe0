// An insert reads the documents of an OP_MSG document sequence in place,
// as views into the connection's buffer (wire/protocol/op_msg.h), and that
// buffer holds the connection's next request as soon as the reply is sent.
// What outlives the request must therefore be copies: the change events a
// stream returns later, and the writes of a transaction committed by a
// later request. Each test inserts a batch, then sends another of the same
// size over the same connection (so the buffer is overwritten in place)
// before it looks.
#include <string>
#include <vector>

#include "tests/e2e/e2e_test_base.h"
#include "tests/e2e/sequence_insert.h"

namespace tigerdoc::e2e {
namespace {

using testutil::DocArray;
using testutil::Integer;
using testutil::Json;
using testutil::RawConnection;

// {insert: coll, documents: [{_id: first + i, i, batch: tag, pad: "<tag>-<i>"}...]}
BsonDoc TaggedInsert(const std::string& coll, int64_t first, int64_t count, const std::string& tag) {
  BsonDoc cmd;
  BSON_APPEND_UTF8(cmd.mutable_get(), "insert", coll.c_str());
  bson_t docs;
  BSON_APPEND_ARRAY_BEGIN(cmd.mutable_get(), "documents", &docs);
  for (int64_t i = 0; i < count; ++i) {
    bson_t doc;
    const std::string key = std::to_string(i);
    const std::string pad = tag + "-" + std::to_string(i);
    BSON_APPEND_DOCUMENT_BEGIN(&docs, key.c_str(), &doc);
    BSON_APPEND_INT64(&doc, "_id", first + i);
    BSON_APPEND_INT64(&doc, "i", i);
    BSON_APPEND_UTF8(&doc, "batch", tag.c_str());
    BSON_APPEND_UTF8(&doc, "pad", pad.c_str());
    bson_append_document_end(&docs, &doc);
  }
  bson_append_array_end(cmd.mutable_get(), &docs);
  return cmd;
}

class InsertInPlaceTest : public E2eTest {
 protected:
  static void SetUpTestSuite() { StartServer({"--replSet", "rs0"}); }

  // Sends the insert as a document sequence and returns the reply.
  BsonDoc InsertOver(RawConnection& conn, const BsonDoc& command,
                     const BsonDoc& extra = BsonDoc()) {
    EXPECT_TRUE(conn.Send(InsertAsSequence(++request_id_, db_, command, extra)).ok());
    return ReadReplyBody(conn);
  }

  // Documents of `coll` whose pad is not "<batch>-<i>": each stored document
  // must be the one its statement sent.
  int64_t Misplaced(const std::string& coll) {
    BsonDoc r = Run(R"({"count": ")" + coll + R"(", "query": {"$expr": {"$ne": ["$pad",
        {"$concat": ["$batch", "-", {"$toString": "$i"}]}]}}})");
    EXPECT_OK_REPLY(r);
    return Integer(r, "n").value_or(-1);
  }

  int32_t request_id_ = 0;
};

// A change stream reads its events after the batches' requests are gone:
// every event carries the document its statement sent.
TEST_F(InsertInPlaceTest, ChangeEventsCarryTheDocumentsAfterTheBufferIsReused) {
  ASSERT_OK_REPLY(Run(R"({"create": "c"})"));
  BsonDoc opened = Run(R"({"aggregate": "c", "pipeline": [{"$changeStream": {}}], "cursor": {}})");
  ASSERT_OK_REPLY(opened);
  const int64_t cursor = *Integer(opened, "cursor.id");
  ASSERT_NE(cursor, 0);
  constexpr int64_t kPerBatch = 1000;
  const std::vector<std::string> tags = {"A", "B", "C"};
  RawConnection conn = ConnectRaw();
  for (size_t b = 0; b < tags.size(); ++b) {
    BsonDoc r = InsertOver(conn, TaggedInsert("c", b * kPerBatch, kPerBatch, tags[b]));
    ASSERT_OK_REPLY(r);
    ASSERT_EQ(Integer(r, "n"), kPerBatch) << Json(r);
  }
  int64_t seen = 0;
  const int64_t total = kPerBatch * static_cast<int64_t>(tags.size());
  for (int round = 0; round < 100 && seen < total; ++round) {
    BsonDoc got = Run("{\"getMore\": {\"$numberLong\": \"" + std::to_string(cursor) +
                      "\"}, \"collection\": \"c\", \"maxTimeMS\": 1000}");
    ASSERT_OK_REPLY(got);
    for (const BsonDoc& event : DocArray(got, "cursor.nextBatch")) {
      const int64_t batch = seen / kPerBatch, i = seen % kPerBatch;
      ASSERT_EQ(testutil::String(event, "operationType"), "insert") << Json(event);
      ASSERT_EQ(Integer(event, "documentKey._id"), seen) << Json(event);
      ASSERT_EQ(Integer(event, "fullDocument.i"), i) << Json(event);
      ASSERT_EQ(testutil::String(event, "fullDocument.batch"), tags[batch]) << Json(event);
      ASSERT_EQ(testutil::String(event, "fullDocument.pad"), tags[batch] + "-" + std::to_string(i))
          << Json(event);
      ++seen;
    }
  }
  EXPECT_EQ(seen, total);
  EXPECT_EQ(Misplaced("c"), 0);
}

// Inserts inside a transaction, each from a sequence, committed by a later
// request: what commits is what the statements sent.
TEST_F(InsertInPlaceTest, TransactionInsertsCommitTheirOwnDocuments) {
  ASSERT_OK_REPLY(Run(R"({"create": "t"})"));
  BsonDoc session;
  {
    bson_t lsid;
    uint8_t uuid[16];
    for (int i = 0; i < 16; ++i) uuid[i] = static_cast<uint8_t>(0x40 + i);
    BSON_APPEND_DOCUMENT_BEGIN(session.mutable_get(), "lsid", &lsid);
    bson_append_binary(&lsid, "id", 2, BSON_SUBTYPE_UUID, uuid, 16);
    bson_append_document_end(session.mutable_get(), &lsid);
    BSON_APPEND_INT64(session.mutable_get(), "txnNumber", 1);
    BSON_APPEND_BOOL(session.mutable_get(), "autocommit", false);
  }
  BsonDoc first = session.Copy();
  BSON_APPEND_BOOL(first.mutable_get(), "startTransaction", true);
  constexpr int64_t kPerBatch = 1001;
  RawConnection conn = ConnectRaw();
  BsonDoc a = InsertOver(conn, TaggedInsert("t", 0, kPerBatch, "A"), first);
  ASSERT_OK_REPLY(a);
  ASSERT_EQ(Integer(a, "n"), kPerBatch) << Json(a);
  BsonDoc b = InsertOver(conn, TaggedInsert("t", kPerBatch, kPerBatch, "B"), session);
  ASSERT_OK_REPLY(b);
  ASSERT_EQ(Integer(b, "n"), kPerBatch) << Json(b);
  // Nothing is visible outside the transaction before the commit.
  EXPECT_EQ(Integer(Run(R"({"count": "t"})"), "n"), 0);
  BsonDoc commit;
  BSON_APPEND_INT32(commit.mutable_get(), "commitTransaction", 1);
  bson_concat(commit.mutable_get(), session.get());
  BSON_APPEND_UTF8(commit.mutable_get(), "$db", "admin");
  ASSERT_TRUE(conn.Send(testutil::EncodeOpMsg(++request_id_, commit)).ok());
  ASSERT_OK_REPLY(ReadReplyBody(conn));
  EXPECT_EQ(Integer(Run(R"({"count": "t"})"), "n"), 2 * kPerBatch);
  EXPECT_EQ(Integer(Run(R"({"count": "t", "query": {"batch": "A"}})"), "n"), kPerBatch);
  EXPECT_EQ(Misplaced("t"), 0);
}

}  // namespace
}  // namespace tigerdoc::e2e
