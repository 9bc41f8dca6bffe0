// Paging 100,000 documents with batchSize 1000 while another connection
// inserts, updates and deletes documents: every document that existed
// throughout is returned exactly once and no document is returned twice
// (the executor resumes each shard after the last record key it read, and
// record keys never move).
#include <atomic>
#include <chrono>
#include <thread>
#include <unordered_map>

#include "tests/e2e/e2e_test_base.h"

namespace tigerdoc::e2e {
namespace {

using testutil::Integer;
using testutil::Json;

constexpr int kStable = 100000;
constexpr int kChurnBase = 1000000;  // _ids of the documents the writer churns

class PagingTest : public E2eTest {};

TEST_F(PagingTest, ConcurrentWritesNeverDuplicateOrLoseStableDocuments) {
  {
    std::vector<BsonDoc> docs;
    docs.reserve(kStable);
    for (int i = 0; i < kStable; ++i) {
      BsonDoc d;
      BSON_APPEND_INT32(d.mutable_get(), "_id", i);
      BSON_APPEND_INT32(d.mutable_get(), "n", 0);
      BSON_APPEND_UTF8(d.mutable_get(), "pad", "0123456789012345678901234567890123456789");
      docs.push_back(std::move(d));
    }
    BsonDoc r = client_->InsertMany(db_, "p", docs);
    ASSERT_EQ(Integer(r, "insertedCount"), kStable) << Json(r);
  }

  std::atomic<bool> stop{false};
  std::atomic<int> writes{0};
  std::atomic<int> write_errors{0};
  std::thread writer([&] {
    MongoClient writer_client(server_->uri());
    int next = 0;
    while (!stop.load()) {
      const std::string id = std::to_string(kChurnBase + next);
      const std::string stable_id = std::to_string((next * 7919) % kStable);
      const std::string old_id = std::to_string(kChurnBase + next / 2);
      for (const std::string& cmd : {
               // a new document anywhere in the key space (all shards)
               R"({"insert": "p", "documents": [{"_id": )" + id + R"(, "n": 1}]})",
               // stable documents change in place (their record keys do not move)
               R"({"update": "p", "updates": [{"q": {"_id": )" + stable_id +
                   R"(}, "u": {"$inc": {"n": 1}, "$set": {"pad": "grown a little longer than before"}}}]})",
               // churned documents change and go away
               R"({"update": "p", "updates": [{"q": {"_id": )" + id + R"(}, "u": {"$inc": {"n": 1}}}]})",
               R"({"delete": "p", "deletes": [{"q": {"_id": )" + old_id + R"(}, "limit": 1}]})"}) {
        BsonDoc r = writer_client.RunCommand(db_, cmd);
        if (!testutil::IsOk(r) || testutil::Has(r, "writeErrors")) ++write_errors;
        ++writes;
      }
      ++next;
    }
  });

  std::unordered_map<int64_t, int> seen;
  BsonDoc r = Run(R"({"find": "p", "batchSize": 1000})");
  ASSERT_OK_REPLY(r);
  for (int64_t id : Ids(r)) ++seen[id];
  int64_t cursor = Integer(r, "cursor.id").value_or(0);
  int batches = 1;
  while (cursor != 0) {
    r = GetMore(cursor, "p", 1000);
    ASSERT_OK_REPLY(r);
    for (int64_t id : Ids(r, "cursor.nextBatch")) ++seen[id];
    cursor = Integer(r, "cursor.id").value_or(0);
    ++batches;
  }
  stop.store(true);
  writer.join();

  EXPECT_EQ(write_errors.load(), 0);
  EXPECT_GT(writes.load(), 100) << "the writer should have run during the paging";
  EXPECT_GE(batches, 100);
  for (int i = 0; i < kStable; ++i) {
    auto it = seen.find(i);
    ASSERT_NE(it, seen.end()) << "stable document " << i << " was never returned";
    ASSERT_EQ(it->second, 1) << "stable document " << i << " returned " << it->second << " times";
  }
  for (const auto& [id, count] : seen) {
    ASSERT_EQ(count, 1) << "document " << id << " returned " << count << " times";
    ASSERT_TRUE(id < kStable || id >= kChurnBase) << id;
  }
}

}  // namespace
}  // namespace tigerdoc::e2e
