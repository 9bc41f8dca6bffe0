// insert batches around and far past every internal group size, with
// duplicates inside them: the reply (n, writeErrors with their indexes) and
// what is stored must be exactly MongoDB's, ordered and unordered, whatever
// way the server splits the batch into transactions, and whether the
// documents come as the body's array or as an OP_MSG document sequence
// (which the server reads in place: sequence_insert.h). Also the batch-size
// limit (100,000 statements) and several connections inserting at once.
#include <atomic>
#include <optional>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "tests/e2e/e2e_test_base.h"
#include "tests/e2e/sequence_insert.h"

namespace tigerdoc::e2e {
namespace {

using testutil::CanonicalJson;
using testutil::DocArray;
using testutil::Integer;
using testutil::Json;
using testutil::SubDoc;

// {insert: coll, ordered, documents: [{_id: first_id + i, i, pad}...]} where
// the statements at `duplicate_at` repeat _id first_id (statement 0's).
BsonDoc InsertCommand(const std::string& coll, int64_t count, bool ordered,
                      const std::vector<int64_t>& duplicate_at, int64_t first_id = 0) {
  BsonDoc cmd;
  BSON_APPEND_UTF8(cmd.mutable_get(), "insert", coll.c_str());
  BSON_APPEND_BOOL(cmd.mutable_get(), "ordered", ordered);
  bson_t docs;
  BSON_APPEND_ARRAY_BEGIN(cmd.mutable_get(), "documents", &docs);
  size_t next_duplicate = 0;
  for (int64_t i = 0; i < count; ++i) {
    const bool duplicate = next_duplicate < duplicate_at.size() && duplicate_at[next_duplicate] == i;
    if (duplicate) ++next_duplicate;
    bson_t doc;
    const std::string key = std::to_string(i);
    BSON_APPEND_DOCUMENT_BEGIN(&docs, key.c_str(), &doc);
    BSON_APPEND_INT64(&doc, "_id", duplicate ? first_id : first_id + i);
    BSON_APPEND_INT64(&doc, "i", i);
    BSON_APPEND_UTF8(&doc, "pad", "abcdefghijklmnop");
    bson_append_document_end(&docs, &doc);
  }
  bson_append_array_end(cmd.mutable_get(), &docs);
  return cmd;
}

// (batch size, ordered, documents as a sequence rather than an array)
class InsertBatchTest : public E2eTest,
                        public ::testing::WithParamInterface<std::tuple<int64_t, bool, bool>> {
 protected:
  // Runs an insert built by InsertCommand the way the test's parameter
  // says: through libmongoc (the body's array) or as a document sequence
  // over a raw connection kept for the test, so each insert reuses the
  // buffer the previous one was read into.
  BsonDoc Insert(const BsonDoc& command) {
    if (!std::get<2>(GetParam())) return Run(command);
    return sequence_.Insert(server_->port(), db_, command);
  }

  int64_t Count(const std::string& coll, const std::string& filter = "{}") {
    BsonDoc r = Run(R"({"count": ")" + coll + R"(", "query": )" + filter + "}");
    EXPECT_OK_REPLY(r);
    return Integer(r, "n").value_or(-1);
  }

  SequenceInserter sequence_;

  void ExpectDuplicateError(const BsonDoc& error, int64_t index) {
    EXPECT_EQ(Integer(error, "index"), index) << Json(error);
    EXPECT_EQ(Integer(error, "code"), 11000) << Json(error);
    EXPECT_EQ(CanonicalJson(SubDoc(error, "keyValue")), CanonicalJson(R"({"_id": {"$numberLong": "0"}})"))
        << Json(error);
  }
};

// One duplicate in the middle: ordered stops there (n = the statements
// before it), unordered skips only it.
TEST_P(InsertBatchTest, DuplicateInTheMiddle) {
  const auto [count, ordered, as_sequence] = GetParam();
  const int64_t middle = count / 2;
  BsonDoc r = Insert(InsertCommand("c", count, ordered, {middle}));
  ASSERT_OK_REPLY(r);
  auto errors = DocArray(r, "writeErrors");
  ASSERT_EQ(errors.size(), 1u) << Json(SubDoc(r, "writeErrors.0"));
  ExpectDuplicateError(errors[0], middle);
  const int64_t stored = ordered ? middle : count - 1;
  EXPECT_EQ(Integer(r, "n"), stored);
  EXPECT_EQ(Count("c"), stored);
  // Exactly the statements before the duplicate (ordered), or all others.
  EXPECT_EQ(Count("c", R"({"$expr": {"$eq": ["$_id", "$i"]}})"), stored);
  EXPECT_EQ(Count("c", R"({"i": {"$gte": )" + std::to_string(middle) + "}}"),
            ordered ? 0 : count - middle - 1);
}

// Duplicates at the second statement, the middle and the last: unordered
// reports all three in index order; ordered stops at the first.
TEST_P(InsertBatchTest, DuplicatesAtBothEndsAndTheMiddle) {
  const auto [count, ordered, as_sequence] = GetParam();
  const std::vector<int64_t> duplicates = {1, count / 2, count - 1};
  BsonDoc r = Insert(InsertCommand("c", count, ordered, duplicates));
  ASSERT_OK_REPLY(r);
  auto errors = DocArray(r, "writeErrors");
  if (ordered) {
    ASSERT_EQ(errors.size(), 1u);
    ExpectDuplicateError(errors[0], 1);
    EXPECT_EQ(Integer(r, "n"), 1);
    EXPECT_EQ(Count("c"), 1);
  } else {
    ASSERT_EQ(errors.size(), 3u);
    for (size_t k = 0; k < 3; ++k) ExpectDuplicateError(errors[k], duplicates[k]);
    EXPECT_EQ(Integer(r, "n"), count - 3);
    EXPECT_EQ(Count("c"), count - 3);
  }
}

// A batch whose every statement is new, after one that stored part of it:
// the statements already there fail one by one, the rest go in.
TEST_P(InsertBatchTest, RepeatedBatchOnlyAddsTheNewDocuments) {
  const auto [count, ordered, as_sequence] = GetParam();
  // At most a few hundred errors: MongoDB shortens the messages of a reply
  // with megabytes of them, which is not what this test is about.
  const int64_t existing = std::min<int64_t>(count / 3, 300);
  ASSERT_OK_REPLY(Insert(InsertCommand("c", existing, true, {})));
  BsonDoc r = Insert(InsertCommand("c", count, ordered, {}));
  ASSERT_OK_REPLY(r);
  auto errors = DocArray(r, "writeErrors");
  if (ordered) {
    EXPECT_EQ(Integer(r, "n"), 0);
    ASSERT_EQ(errors.size(), 1u);
    ExpectDuplicateError(errors[0], 0);
    EXPECT_EQ(Count("c"), existing);
  } else {
    EXPECT_EQ(Integer(r, "n"), count - existing);
    ASSERT_EQ(errors.size(), static_cast<size_t>(existing));
    for (int64_t k = 0; k < existing; ++k) {
      EXPECT_EQ(Integer(errors[k], "index"), k);
      EXPECT_EQ(Integer(errors[k], "code"), 11000);
    }
    EXPECT_EQ(Count("c"), count);
  }
}

INSTANTIATE_TEST_SUITE_P(AroundAndPastTheGroups, InsertBatchTest,
                         ::testing::Combine(::testing::Values(999, 1000, 1001, 100000),
                                            ::testing::Bool(), ::testing::Bool()));

class InsertBatchLimitTest : public E2eTest {};

// MongoDB's maxWriteBatchSize is 100,000 statements; one more is refused
// whole, with nothing written.
TEST_F(InsertBatchLimitTest, OneStatementPastTheLimitIsRefused) {
  BsonDoc r = Run(InsertCommand("c", 100001, true, {}));
  EXPECT_EQ(testutil::Number(r, "ok"), 0.0) << Json(r);
  EXPECT_EQ(Integer(r, "code"), 16) << Json(r);
  EXPECT_EQ(testutil::String(r, "errmsg"),
            "Write batch sizes must be between 1 and 100000. Got 100001 operations.");
  EXPECT_EQ(Integer(Run(R"({"count": "c"})"), "n"), 0);
}

// Four connections insert 1,000-document batches at once, each over its own
// _ids plus one _id every connection tries: exactly one insert of the shared
// _id wins, every other document is stored once.
TEST_F(InsertBatchLimitTest, ConcurrentBatchesFromFourConnections) {
  constexpr int kConnections = 4;
  constexpr int64_t kBatches = 10;
  constexpr int64_t kPerBatch = 1000;
  std::atomic<int64_t> inserted{0}, duplicates{0};
  const std::string uri = server_->uri();
  const std::string db = db_;
  std::vector<std::thread> threads;
  for (int c = 0; c < kConnections; ++c) {
    threads.emplace_back([&, c] {
      MongoClient client(uri);
      for (int64_t b = 0; b < kBatches; ++b) {
        const int64_t first = (c * kBatches + b) * kPerBatch + 1;
        BsonDoc cmd = InsertCommand("c", kPerBatch, false, {}, first);
        // Statement 500 of every batch takes the shared _id -1 instead.
        bson_iter_t it;
        ASSERT_TRUE(bson_iter_init_find(&it, cmd.get(), "documents"));
        BsonDoc with_shared;
        {
          bson_t docs;
          BSON_APPEND_UTF8(with_shared.mutable_get(), "insert", "c");
          BSON_APPEND_BOOL(with_shared.mutable_get(), "ordered", false);
          BSON_APPEND_ARRAY_BEGIN(with_shared.mutable_get(), "documents", &docs);
          bson_iter_t child;
          bson_iter_recurse(&it, &child);
          for (int64_t i = 0; bson_iter_next(&child); ++i) {
            if (i == 500) {
              bson_t doc;
              BSON_APPEND_DOCUMENT_BEGIN(&docs, "500", &doc);
              BSON_APPEND_INT64(&doc, "_id", -1);
              bson_append_document_end(&docs, &doc);
            } else {
              bson_append_iter(&docs, bson_iter_key(&child), -1, &child);
            }
          }
          bson_append_array_end(with_shared.mutable_get(), &docs);
        }
        BsonDoc r = client.RunCommand(db, with_shared);
        ASSERT_TRUE(testutil::IsOk(r)) << Json(r);
        inserted.fetch_add(Integer(r, "n").value_or(0));
        duplicates.fetch_add(static_cast<int64_t>(DocArray(r, "writeErrors").size()));
      }
    });
  }
  for (auto& t : threads) t.join();
  const int64_t total = kConnections * kBatches * kPerBatch;
  EXPECT_EQ(inserted.load(), total - kConnections * kBatches + 1);
  EXPECT_EQ(duplicates.load(), kConnections * kBatches - 1);
  EXPECT_EQ(Integer(Run(R"({"count": "c"})"), "n"), total - kConnections * kBatches + 1);
}

// The same over document sequences, pipelined: each connection sends its
// next batch before reading the reply to the previous one, so a batch
// arrives in the connection's read-ahead while the one before it is being
// inserted from the connection's buffer. Every stored document must be the
// one its statement sent (_id - i is its batch's first _id).
TEST_F(InsertBatchLimitTest, PipelinedSequenceBatchesFromFourConnections) {
  constexpr int kConnections = 4;
  constexpr int64_t kBatches = 10;
  constexpr int64_t kPerBatch = 1000;
  std::atomic<int64_t> inserted{0};
  const int port = server_->port();
  const std::string db = db_;
  std::vector<std::thread> threads;
  for (int c = 0; c < kConnections; ++c) {
    threads.emplace_back([&, c] {
      auto conn = testutil::RawConnection::Connect(port);
      ASSERT_TRUE(conn.ok()) << conn.status().ToString();
      for (int64_t b = 0; b <= kBatches; ++b) {
        if (b < kBatches) {
          const int64_t first = (c * kBatches + b) * kPerBatch + 1;
          ASSERT_TRUE(conn.value()
                          .Send(InsertAsSequence(static_cast<int32_t>(b + 1), db,
                                                 InsertCommand("c", kPerBatch, true, {}, first)))
                          .ok());
        }
        if (b == 0) continue;
        BsonDoc r = ReadReplyBody(conn.value());
        ASSERT_TRUE(testutil::IsOk(r)) << Json(r);
        EXPECT_EQ(DocArray(r, "writeErrors").size(), 0u) << Json(r);
        inserted.fetch_add(Integer(r, "n").value_or(0));
      }
    });
  }
  for (auto& t : threads) t.join();
  const int64_t total = kConnections * kBatches * kPerBatch;
  EXPECT_EQ(inserted.load(), total);
  EXPECT_EQ(Integer(Run(R"({"count": "c"})"), "n"), total);
  BsonDoc misplaced = Run(
      R"({"count": "c", "query": {"$expr": {"$ne": [{"$mod": [{"$subtract": ["$_id", "$i"]}, 1000]}, 1]}}})");
  EXPECT_EQ(Integer(misplaced, "n"), 0) << Json(misplaced);
}

}  // namespace
}  // namespace tigerdoc::e2e
