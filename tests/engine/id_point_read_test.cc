// id_point_read.h's pieces that need no storage: the recognition of
// {_id: v} without a copy (FindIdEquality, IdEqualityOf built on it) and
// the per-thread reuse of a batch's vector (RecycleBatch). The point read
// itself is e2e (find_by_id_test, find_request_path_test).

#include "engine/id_point_read.h"

#include <gtest/gtest.h>

#include <limits>
#include <thread>
#include <vector>

namespace tigerdoc::engine {
namespace {

using bson::BsonDoc;

TEST(FindIdEquality, PointsAtTheValueOfExactlyAnIdFilter) {
  for (const char* json : {R"({"_id": 5})", R"({"_id": {"$numberLong": "7"}})", R"({"_id": "s"})",
                           R"({"_id": 1.5})", R"({"_id": {"$oid": "5f1d7f0e9d3b3c2a1b0c0d0e"}})"}) {
    SCOPED_TRACE(json);
    const BsonDoc filter = BsonDoc::FromJson(json);
    bson_iter_t id;
    ASSERT_TRUE(FindIdEquality(filter.get(), &id));
    EXPECT_STREQ(bson_iter_key(&id), "_id");
    // The iterator points into the filter's own bytes.
    EXPECT_GE(bson_iter_value(&id)->value_type, BSON_TYPE_DOUBLE);
    std::optional<BsonDoc> copy = IdEqualityOf(filter.get());
    ASSERT_TRUE(copy.has_value());
    EXPECT_EQ(copy->bytes(), filter.bytes());
  }
  for (const char* json : {R"({})", R"({"a": 1})", R"({"_id": 1, "a": 1})", R"({"a": 1, "_id": 1})",
                           R"({"_id": null})", R"({"_id": {"$gt": 1}})", R"({"_id": [1]})",
                           R"({"_id": {"$numberDouble": "NaN"}})", R"({"_id": {"$numberDouble": "Infinity"}})",
                           R"({"_id": true})", R"({"_id": {"$numberDecimal": "1"}})"}) {
    SCOPED_TRACE(json);
    const BsonDoc filter = BsonDoc::FromJson(json);
    bson_iter_t id;
    EXPECT_FALSE(FindIdEquality(filter.get(), &id));
    EXPECT_FALSE(IdEqualityOf(filter.get()).has_value());
  }
}

std::vector<BsonDoc> Docs(size_t n) {
  std::vector<BsonDoc> docs;
  docs.reserve(n);
  for (size_t i = 0; i < n; ++i) docs.push_back(BsonDoc::FromJson(R"({"_id": 1})"));
  return docs;
}

TEST(RecycleBatch, LeavesTheBatchEmptyAndFreesLargeVectors) {
  for (size_t n : {0, 1, 3, 4, 5, 101}) {
    SCOPED_TRACE(n);
    std::vector<BsonDoc> docs = Docs(n);
    RecycleBatch(&docs);
    EXPECT_TRUE(docs.empty());
    // Large vectors are not kept (nor left holding their storage).
    if (n > 4) EXPECT_EQ(docs.capacity(), 0u);
  }
  // Several threads at once, each with its own spare; a kept vector is
  // never handed to two batches (each push below would corrupt the other).
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([] {
      for (int i = 0; i < 1000; ++i) {
        std::vector<BsonDoc> a = Docs(1 + i % 4), b = Docs(1);
        RecycleBatch(&a);
        RecycleBatch(&b);
        ASSERT_TRUE(a.empty() && b.empty());
      }
    });
  }
  for (auto& thread : threads) thread.join();
}

}  // namespace
}  // namespace tigerdoc::engine
