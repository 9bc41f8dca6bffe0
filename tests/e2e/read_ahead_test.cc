// The connection's 8 KiB read-ahead (wire/server/connection.cc, kInboxBytes):
// a recv of up to 8 KiB takes a short request whole, and whatever else has
// arrived with it; remainders of 8 KiB or more are read in place. Each case
// sends inserts whose whole OP_MSG is a chosen length around that size, in
// one write, pipelined behind other messages so that a header or a body
// straddles the inbox's end, and trickled in small pieces, then checks every
// reply (right responseTo, n: 1) and every stored document byte for byte.

#include <thread>

#include "tests/e2e/e2e_test_base.h"
#include "tests/testutil/raw_connection.h"

namespace tigerdoc::e2e {
namespace {

using testutil::Integer;
using testutil::Json;
using testutil::RawConnection;
using ReadResult = RawConnection::ReadResult;

constexpr size_t kInbox = 8 * 1024;  // wire/server/connection.cc
constexpr auto kReadTimeout = std::chrono::milliseconds(30000);

class ReadAheadTest : public E2eTest {
 protected:
  static BsonDoc InsertBody(const std::string& db, int64_t id, size_t filler) {
    BsonDoc body;
    bson_t docs, doc;
    BSON_APPEND_UTF8(body.mutable_get(), "insert", "ra");
    BSON_APPEND_ARRAY_BEGIN(body.mutable_get(), "documents", &docs);
    BSON_APPEND_DOCUMENT_BEGIN(&docs, "0", &doc);
    BSON_APPEND_INT64(&doc, "_id", id);
    const std::string s(filler, static_cast<char>('a' + id % 26));
    BSON_APPEND_UTF8(&doc, "s", s.c_str());
    bson_append_document_end(&docs, &doc);
    bson_append_array_end(body.mutable_get(), &docs);
    BSON_APPEND_UTF8(body.mutable_get(), "$db", db.c_str());
    return body;
  }

  // An OP_MSG insert of {_id: id, s: <filler>} into db_.ra whose whole
  // message is exactly `total` bytes; records the filler length to check.
  std::string InsertMessage(int32_t request_id, int64_t id, size_t total) {
    const size_t empty = testutil::EncodeOpMsg(request_id, InsertBody(db_, id, 0)).size();
    EXPECT_GE(total, empty);
    std::string m = testutil::EncodeOpMsg(request_id, InsertBody(db_, id, total - empty));
    EXPECT_EQ(m.size(), total);
    expected_length_[id] = total - empty;
    return m;
  }

  // Reads one reply per request id, in order, each an insert with n: 1.
  void ExpectInsertReplies(RawConnection& c, const std::vector<int32_t>& request_ids) {
    for (int32_t rid : request_ids) {
      std::string reply;
      ASSERT_EQ(c.ReadMessage(&reply, kReadTimeout), ReadResult::kMessage) << "request " << rid;
      EXPECT_EQ(testutil::ResponseTo(reply), rid);
      auto body = testutil::DecodeOpMsgBody(reply);
      ASSERT_TRUE(body.ok()) << body.status().ToString();
      EXPECT_OK_REPLY(body.value());
      EXPECT_EQ(Integer(body.value(), "n"), 1) << Json(body.value());
    }
  }

  // Every document inserted so far is stored with its whole filler.
  void ExpectStored() {
    for (const auto& [id, length] : expected_length_) {
      BsonDoc r = Run("{\"find\": \"ra\", \"filter\": {\"_id\": " + std::to_string(id) + "}}");
      auto docs = testutil::DocArray(r, "cursor.firstBatch");
      ASSERT_EQ(docs.size(), 1u) << "_id " << id << ": " << Json(r);
      auto s = testutil::String(docs[0], "s");
      ASSERT_TRUE(s.has_value());
      EXPECT_EQ(s->size(), length) << "_id " << id;
      EXPECT_EQ(*s, std::string(length, static_cast<char>('a' + id % 26))) << "_id " << id;
    }
  }

  std::map<int64_t, size_t> expected_length_;
};

// Below, at and above the inbox, two inboxes and change, and a megabyte.
const size_t kSizes[] = {kInbox - 1, kInbox, kInbox + 1, 3 * kInbox + 5, (1u << 20) + 1};

TEST_F(ReadAheadTest, OneMessagePerWriteAroundTheInboxSize) {
  RawConnection c = ConnectRaw();
  int32_t rid = 1;
  for (size_t size : kSizes) {
    ASSERT_TRUE(c.Send(InsertMessage(rid, rid, size)).ok());
    ExpectInsertReplies(c, {rid});
    ++rid;
  }
  ExpectStored();
}

// A first message of 8 KiB - 40 .. 8 KiB + 8 bytes, then a second in the
// same write: the inbox's end falls before, inside and after the second's
// header, and inside the first's body.
TEST_F(ReadAheadTest, PipelinedMessagesStraddleTheInboxEnd) {
  RawConnection c = ConnectRaw();
  int32_t rid = 1;
  for (size_t first = kInbox - 40; first <= kInbox + 8; ++first) {
    const std::string bytes = InsertMessage(rid, rid, first) + InsertMessage(rid + 1, rid + 1, 200);
    ASSERT_TRUE(c.Send(bytes).ok());
    ExpectInsertReplies(c, {rid, rid + 1});
    rid += 2;
  }
  // Three large ones back to back, each past the inbox.
  const std::string bytes = InsertMessage(rid, rid, 2 * kInbox + 3) +
                            InsertMessage(rid + 1, rid + 1, kInbox) +
                            InsertMessage(rid + 2, rid + 2, 150);
  ASSERT_TRUE(c.Send(bytes).ok());
  ExpectInsertReplies(c, {rid, rid + 1, rid + 2});
  ExpectStored();
}

// Pieces of 1, 7, 1000 and 5000 bytes with pauses, so each recv returns a
// fraction of a header or of a body.
TEST_F(ReadAheadTest, TrickledMessagesAreReassembled) {
  RawConnection c = ConnectRaw();
  int32_t rid = 1;
  for (size_t piece : {size_t{1}, size_t{7}, size_t{1000}, size_t{5000}}) {
    for (size_t size : {size_t{300}, kInbox - 1, kInbox + 1}) {
      if (piece == 1 && size > 300) continue;  // 8 K single-byte writes add nothing
      const std::string m = InsertMessage(rid, rid, size);
      for (size_t at = 0; at < m.size(); at += piece) {
        ASSERT_TRUE(c.Send(std::string_view(m).substr(at, piece)).ok());
        if (piece >= 1000 || at % 64 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      ExpectInsertReplies(c, {rid});
      ++rid;
    }
  }
  ExpectStored();
}

// Several connections at once, each pipelining messages of every size.
TEST_F(ReadAheadTest, ManyConnectionsPipelineAtOnce) {
  constexpr int kConnections = 6;
  std::vector<std::string> batches(kConnections);
  std::vector<std::vector<int32_t>> ids(kConnections);
  for (int t = 0; t < kConnections; ++t) {
    for (int i = 0; i < 5; ++i) {
      const int32_t rid = 1000 * (t + 1) + i;
      batches[t] += InsertMessage(rid, rid, kSizes[(t + i) % 4] + static_cast<size_t>(t));
      ids[t].push_back(rid);
    }
  }
  std::vector<std::thread> threads;
  for (int t = 0; t < kConnections; ++t) {
    threads.emplace_back([&, t] {
      RawConnection c = ConnectRaw();
      for (int round = 0; round < 3 && !HasFailure(); ++round) {
        if (round == 0) {
          EXPECT_TRUE(c.Send(batches[t]).ok());
          ExpectInsertReplies(c, ids[t]);
        } else {
          // Re-inserting is a duplicate key: still one whole reply each.
          EXPECT_TRUE(c.Send(batches[t]).ok());
          for (int32_t rid : ids[t]) {
            std::string reply;
            ASSERT_EQ(c.ReadMessage(&reply, kReadTimeout), ReadResult::kMessage);
            EXPECT_EQ(testutil::ResponseTo(reply), rid);
            auto body = testutil::DecodeOpMsgBody(reply);
            ASSERT_TRUE(body.ok());
            EXPECT_EQ(Integer(body.value(), "writeErrors.0.code"), 11000) << Json(body.value());
          }
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  ExpectStored();
}

}  // namespace
}  // namespace tigerdoc::e2e
