// Hash-sharded collections: `create` with shardKey and shards, and explain
// showing that a shard-key equality reads one shard while anything else
// fans out to all of them. The explain shape is tigerdoc's (wire/README.md,
// engine/engine.cc ExplainFind):
//   {queryPlanner: {winningPlan: {stage: SINGLE_SHARD|SHARD_MERGE|..., shards: [...]}},
//    executionStats: {...}, sharding: {shardKey, numShards, targeted, shardsRead: [...]}}
#include <set>

#include "tests/e2e/e2e_test_base.h"

namespace tigerdoc::e2e {
namespace {

using testutil::ArrayLength;
using testutil::Integer;
using testutil::Json;
using testutil::Number;
using testutil::String;

constexpr int kDocs = 200;
constexpr int kKeys = 20;

class ShardExplainTest : public E2eTest {
 protected:
  void CreateAndFill() {
    BsonDoc r = Run(R"({"create": "s", "shardKey": {"k": 1}, "shards": 8})");
    ASSERT_OK_REPLY(r);
    std::string docs = "[";
    for (int i = 0; i < kDocs; ++i) {
      if (i) docs += ",";
      docs += R"({"_id": )" + std::to_string(i) + R"(, "k": )" + std::to_string(i % kKeys) +
              R"(, "a": )" + std::to_string(i % 3) + "}";
    }
    docs += "]";
    InsertJson("s", docs);
  }

  BsonDoc Explain(const std::string& filter) {
    BsonDoc r = Run(R"({"explain": {"find": "s", "filter": )" + filter +
                    R"(}, "verbosity": "executionStats"})");
    EXPECT_OK_REPLY(r);
    return r;
  }

  static std::set<std::string> ShardsRead(const BsonDoc& explain) {
    std::set<std::string> out;
    BsonDoc arr = testutil::SubDoc(explain, "sharding.shardsRead");
    bson_iter_t it;
    if (bson_iter_init(&it, arr.get())) {
      while (bson_iter_next(&it)) {
        if (BSON_ITER_HOLDS_UTF8(&it)) out.insert(bson_iter_utf8(&it, nullptr));
      }
    }
    return out;
  }
};

TEST_F(ShardExplainTest, ShardKeyEqualityReadsOneShard) {
  CreateAndFill();
  BsonDoc e = Explain(R"({"k": 5})");
  EXPECT_EQ(Number(e, "sharding.numShards"), 8.0) << Json(e);
  EXPECT_EQ(Number(e, "sharding.targeted"), 1.0) << Json(e);
  EXPECT_EQ(ShardsRead(e).size(), 1u) << Json(e);
  EXPECT_EQ(String(e, "queryPlanner.winningPlan.stage"), "SINGLE_SHARD") << Json(e);
  EXPECT_EQ(ArrayLength(e, "queryPlanner.winningPlan.shards"), 1u) << Json(e);
  EXPECT_EQ(Integer(e, "executionStats.nReturned"), kDocs / kKeys) << Json(e);
  // A partition is one contiguous key range: only its documents are read.
  EXPECT_EQ(Integer(e, "executionStats.totalDocsExamined"), kDocs / kKeys) << Json(e);

  // Extra conditions beside the key equality keep the query targeted.
  e = Explain(R"({"k": 5, "a": 1})");
  EXPECT_EQ(ShardsRead(e).size(), 1u) << Json(e);
}

TEST_F(ShardExplainTest, QueriesWithoutKeyEqualityReadAllShards) {
  CreateAndFill();
  for (const char* filter : {R"({"a": 1})", R"({})", R"({"k": {"$gt": 5}})"}) {
    BsonDoc e = Explain(filter);
    EXPECT_EQ(ShardsRead(e).size(), 8u) << filter << " " << Json(e);
    EXPECT_EQ(Number(e, "sharding.targeted"), 0.0) << filter << " " << Json(e);
    EXPECT_EQ(ArrayLength(e, "queryPlanner.winningPlan.shards"), 8u) << Json(e);
    EXPECT_EQ(Integer(e, "executionStats.totalDocsExamined"), kDocs) << filter << " " << Json(e);
  }
}

TEST_F(ShardExplainTest, KeysSpreadOverShardsAndTargetingIsStable) {
  CreateAndFill();
  std::set<std::string> used;
  std::vector<std::string> first_pass;
  for (int k = 0; k < kKeys; ++k) {
    auto read = ShardsRead(Explain(R"({"k": )" + std::to_string(k) + "}"));
    ASSERT_EQ(read.size(), 1u);
    used.insert(*read.begin());
    first_pass.push_back(*read.begin());
  }
  // 20 keys over 8 shards by a hash: several shards get used.
  EXPECT_GE(used.size(), 4u);
  // The same key goes to the same shard after a restart (a stable hash).
  ASSERT_TRUE(server_->Stop().ok());
  client_.reset();
  ASSERT_TRUE(server_->Restart().ok());
  client_ = std::make_unique<MongoClient>(server_->uri());
  for (int k = 0; k < kKeys; ++k) {
    auto read = ShardsRead(Explain(R"({"k": )" + std::to_string(k) + "}"));
    ASSERT_EQ(read.size(), 1u);
    EXPECT_EQ(*read.begin(), first_pass[k]) << "key " << k;
  }
}

TEST_F(ShardExplainTest, ShardedCollectionAnswersLikeAnyOther) {
  CreateAndFill();
  BsonDoc r = Run(R"({"find": "s", "filter": {"k": 7}, "sort": {"_id": 1}})");
  ASSERT_OK_REPLY(r);
  std::vector<int64_t> expected;
  for (int i = 7; i < kDocs; i += kKeys) expected.push_back(i);
  EXPECT_EQ(Ids(r), expected);
  EXPECT_EQ(Integer(Run(R"({"count": "s"})"), "n"), kDocs);
  // _id stays unique across shards: the same _id under another key is a
  // duplicate.
  r = Run(R"({"insert": "s", "documents": [{"_id": 7, "k": 999}]})");
  ASSERT_EQ(testutil::DocArray(r, "writeErrors").size(), 1u) << Json(r);
  EXPECT_EQ(Integer(testutil::DocArray(r, "writeErrors")[0], "code"), 11000) << Json(r);
  // Updates and deletes by shard key touch only that partition's documents.
  r = Run(R"({"update": "s", "updates": [{"q": {"k": 7}, "u": {"$inc": {"a": 10}}, "multi": true}]})");
  EXPECT_EQ(Integer(r, "n"), kDocs / kKeys) << Json(r);
  r = Run(R"({"delete": "s", "deletes": [{"q": {"k": 7}, "limit": 0}]})");
  EXPECT_EQ(Integer(r, "n"), kDocs / kKeys) << Json(r);
  EXPECT_EQ(Integer(Run(R"({"count": "s"})"), "n"), kDocs - kDocs / kKeys);
}

// The blogging model (issue #18): posts, comments and likes in one
// collection sharded by postId, with an index {postId: 1, type: 1}. A read
// that fixes postId and _id is one point read of its record key (IDHACK,
// 1 document examined), not a scan of the partition through the index.
TEST_F(ShardExplainTest, ShardKeyAndIdEqualityIsAPointRead) {
  ASSERT_OK_REPLY(Run(R"({"create": "posts", "shardKey": {"postId": 1}})"));
  ASSERT_OK_REPLY(Run(R"({"createIndexes": "posts", "indexes": [{"key": {"postId": 1, "type": 1}, "name": "post_type"}]})"));
  std::string docs = "[";
  for (int post = 0; post < 3; ++post) {
    docs += R"({"_id": "p)" + std::to_string(post) + R"(", "postId": "p)" + std::to_string(post) +
            R"(", "type": "post"},)";
    for (int i = 0; i < 55; ++i) {
      docs += R"({"_id": "p)" + std::to_string(post) + "c" + std::to_string(i) + R"(", "postId": "p)" +
              std::to_string(post) + R"(", "type": ")" + (i % 2 ? "like" : "comment") + R"("},)";
    }
  }
  docs.back() = ']';
  InsertJson("posts", docs);

  auto explain = [&](const std::string& filter) {
    BsonDoc r = Run(R"({"explain": {"find": "posts", "filter": )" + filter +
                    R"(}, "verbosity": "executionStats"})");
    EXPECT_OK_REPLY(r);
    return r;
  };
  BsonDoc e = explain(R"({"_id": "p1", "postId": "p1"})");
  EXPECT_EQ(Integer(e, "executionStats.totalDocsExamined"), 1) << Json(e);
  EXPECT_EQ(Integer(e, "executionStats.totalKeysExamined"), 0) << Json(e);
  EXPECT_EQ(Integer(e, "executionStats.nReturned"), 1) << Json(e);
  EXPECT_NE(Json(e).find(R"("stage" : "IDHACK")"), std::string::npos) << Json(e);
  EXPECT_EQ(ShardsRead(e).size(), 1u) << Json(e);

  // $in on both: one read per combination; duplicates read once; a pair
  // whose _id lives in another partition finds nothing.
  e = explain(R"({"_id": {"$in": ["p1", "p2c3", "p1", "p0c9"]}, "postId": {"$in": ["p1", "p2"]}})");
  EXPECT_EQ(Integer(e, "executionStats.nReturned"), 2) << Json(e);  // p1, p2c3
  EXPECT_EQ(Integer(e, "executionStats.totalDocsExamined"), 2) << Json(e);
  // The other conditions still apply.
  BsonDoc r = Run(R"({"find": "posts", "filter": {"_id": "p2c4", "postId": "p2", "type": "like"}})");
  EXPECT_EQ(ArrayLength(r, "cursor.firstBatch"), 0u) << Json(r);
  r = Run(R"({"find": "posts", "filter": {"_id": "p2c3", "postId": "p2", "type": "like"}})");
  EXPECT_EQ(ArrayLength(r, "cursor.firstBatch"), 1u) << Json(r);
  // A hint is obeyed.
  r = Run(R"({"explain": {"find": "posts", "filter": {"_id": "p1", "postId": "p1"}, "hint": "post_type"},
              "verbosity": "executionStats"})");
  EXPECT_NE(Json(r).find("post_type"), std::string::npos) << Json(r);
  // Updates and deletes by (shard key, _id) find their document the same way.
  r = Run(R"({"update": "posts", "updates": [{"q": {"_id": "p0c1", "postId": "p0"}, "u": {"$set": {"seen": true}}}]})");
  EXPECT_EQ(Integer(r, "nModified"), 1) << Json(r);
  r = Run(R"({"delete": "posts", "deletes": [{"q": {"_id": "p0c2", "postId": "p0"}, "limit": 1}]})");
  EXPECT_EQ(Integer(r, "n"), 1) << Json(r);
  r = Run(R"({"count": "posts", "query": {"postId": "p0"}})");
  EXPECT_EQ(Integer(r, "n"), 55) << Json(r);
}

// Record keys order by _id within each shard of an _id-sharded collection
// (and within each partition of another): an _id range seeks every shard to
// its bounds instead of scanning from the first record (issue #18: 10,053
// documents examined to return 50 of 20,000).
TEST_F(ShardExplainTest, IdRangeSeeksEachShard) {
  constexpr int kIds = 20000;
  for (int start = 0; start < kIds; start += 5000) {
    std::string docs = "[";
    for (int i = start; i < start + 5000; ++i) {
      docs += (i > start ? "," : "") + std::string(R"({"_id": )") + std::to_string(i) +
              R"(, "k": )" + std::to_string(i % 7) + "}";
    }
    InsertJson("ids", docs + "]");
  }
  BsonDoc e = Run(R"({"explain": {"find": "ids", "filter": {"_id": {"$gte": 10000}}, "sort": {"_id": 1},
                      "limit": 50}, "verbosity": "executionStats"})");
  ASSERT_OK_REPLY(e);
  EXPECT_EQ(Integer(e, "executionStats.nReturned"), 50) << Json(e);
  // Each of the 4 shards yields at most the 50 the merge may need.
  EXPECT_LE(Integer(e, "executionStats.totalDocsExamined").value_or(1 << 30), 4 * 51) << Json(e);
  EXPECT_NE(Json(e).find(R"("stage" : "CLUSTERED_IXSCAN")"), std::string::npos) << Json(e);
  BsonDoc r = Run(R"({"find": "ids", "filter": {"_id": {"$gte": 10000}}, "sort": {"_id": 1}, "limit": 50})");
  std::vector<int64_t> ids = Ids(r);
  ASSERT_EQ(ids.size(), 50u) << Json(r);
  for (int i = 0; i < 50; ++i) EXPECT_EQ(ids[i], 10000 + i);

  // Bounded on both sides, several intervals, and types: exact answers.
  r = Run(R"({"count": "ids", "query": {"_id": {"$gt": 100, "$lte": 300}}})");
  EXPECT_EQ(Integer(r, "n"), 200) << Json(r);
  r = Run(R"({"count": "ids", "query": {"$or": [{"_id": {"$lt": 10}}, {"_id": {"$gte": 19995}}]}})");
  EXPECT_EQ(Integer(r, "n"), 15) << Json(r);
  ASSERT_OK_REPLY(Run(R"({"insert": "ids", "documents": [{"_id": "a"}, {"_id": "b"}, {"_id": 5.5}]})"));
  r = Run(R"({"count": "ids", "query": {"_id": {"$gte": 5, "$lt": 6}}})");
  EXPECT_EQ(Integer(r, "n"), 2) << Json(r);  // 5 and 5.5, not the strings
  r = Run(R"({"count": "ids", "query": {"_id": {"$gte": "a"}}})");
  EXPECT_EQ(Integer(r, "n"), 2) << Json(r);
  // Whole-document predicates beside the bounds ($expr and $jsonSchema are
  // not path predicates: the bounds builder once read them as if they were).
  r = Run(R"({"count": "ids", "query": {"_id": {"$lt": 100}, "$expr": {"$lt": ["$k", 3]},
                                          "$jsonSchema": {"required": ["k"]}}})");
  EXPECT_EQ(Integer(r, "n"), 44) << Json(r);  // k = i % 7 < 3 for i < 100 (5.5 has no k)
  r = Run(R"({"count": "ids", "query": {"_id": {"$gt": 5, "$lt": 5}}})");
  EXPECT_EQ(Integer(r, "n"), 0) << Json(r);
  e = Run(R"({"explain": {"count": "ids", "query": {"_id": {"$gt": 100, "$lte": 300}}}, "verbosity": "executionStats"})");
  EXPECT_LE(Integer(e, "executionStats.totalDocsExamined").value_or(1 << 30), 200) << Json(e);

  // Within a targeted partition of a collection sharded by another key.
  ASSERT_OK_REPLY(Run(R"({"create": "byk", "shardKey": {"k": 1}})"));
  std::string docs = "[";
  for (int i = 0; i < 3000; ++i) {
    docs += (i ? "," : "") + std::string(R"({"_id": )") + std::to_string(i) + R"(, "k": )" +
            std::to_string(i % 3) + "}";
  }
  InsertJson("byk", docs + "]");
  e = Run(R"({"explain": {"find": "byk", "filter": {"k": 1, "_id": {"$gte": 2900}}},
              "verbosity": "executionStats"})");
  EXPECT_EQ(Integer(e, "executionStats.nReturned"), 33) << Json(e);
  EXPECT_EQ(Integer(e, "executionStats.totalDocsExamined"), 33) << Json(e);
  r = Run(R"({"count": "byk", "query": {"k": {"$in": [0, 2]}, "_id": {"$lt": 30}}})");
  EXPECT_EQ(Integer(r, "n"), 20) << Json(r);
}

}  // namespace
}  // namespace tigerdoc::e2e
