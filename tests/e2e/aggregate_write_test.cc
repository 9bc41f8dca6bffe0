// $out and $merge through the wire: the aggregate returns an empty cursor;
// $out replaces its target atomically (same or another database, options
// and shard key kept, nothing left behind on failure); every $merge mode;
// and MongoDB's errors for misplaced or invalid writer stages.
#include "tests/e2e/e2e_test_base.h"

namespace tigerdoc::e2e {
namespace {

using testutil::CanonicalJson;
using testutil::DocArray;
using testutil::Integer;
using testutil::Json;
using testutil::SubDoc;

class AggregateWriteTest : public E2eTest {
 protected:
  void SetUp() override {
    E2eTest::SetUp();
    InsertJson("src", R"([{"_id": 1, "k": "a", "v": 10}, {"_id": 2, "k": "b", "v": 20},
                          {"_id": 3, "k": "a", "v": 30}])");
  }

  // The documents of `coll` sorted by _id, as canonical JSON of the batch.
  std::string Contents(const std::string& coll, const std::string& db = "") {
    std::string cmd = R"({"find": ")" + coll + R"(", "sort": {"_id": 1}})";
    BsonDoc r = db.empty() ? Run(cmd) : client_->RunCommand(db, cmd);
    EXPECT_OK_REPLY(r);
    return CanonicalJson(SubDoc(r, "cursor.firstBatch"));
  }

  BsonDoc Aggregate(const std::string& pipeline, const std::string& coll = "src") {
    return Run(R"({"aggregate": ")" + coll + R"(", "pipeline": )" + pipeline + R"(, "cursor": {}})");
  }
};

TEST_F(AggregateWriteTest, OutWritesResultsAndReturnsEmptyCursor) {
  BsonDoc r = Aggregate(R"([{"$group": {"_id": "$k", "total": {"$sum": "$v"}}}, {"$sort": {"_id": 1}},
                            {"$out": "totals"}])");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(DocArray(r, "cursor.firstBatch").size(), 0u);
  EXPECT_EQ(Integer(r, "cursor.id"), 0);
  EXPECT_EQ(Contents("totals"), CanonicalJson(R"({"0": {"_id": "a", "total": 40}, "1": {"_id": "b", "total": 20}})"));
}

TEST_F(AggregateWriteTest, OutReplacesTargetAndKeepsItsOptions) {
  ASSERT_OK_REPLY(Run(R"({"create": "dest", "shards": 2})"));
  InsertJson("dest", R"([{"_id": 100, "old": true}])");
  ASSERT_OK_REPLY(Aggregate(R"([{"$match": {"k": "a"}}, {"$out": "dest"}])"));
  EXPECT_EQ(Contents("dest"), CanonicalJson(R"({"0": {"_id": 1, "k": "a", "v": 10}, "1": {"_id": 3, "k": "a", "v": 30}})"));
  BsonDoc list = Run(R"J({"listCollections": 1, "filter": {"name": {"$regex": "^(dest|tmp)"}}})J");
  ASSERT_OK_REPLY(list);
  auto colls = DocArray(list, "cursor.firstBatch");
  ASSERT_EQ(colls.size(), 1u) << Json(list);  // no temporary collection left
  // Running it again replaces the result rather than adding to it.
  ASSERT_OK_REPLY(Aggregate(R"([{"$match": {"k": "b"}}, {"$out": "dest"}])"));
  EXPECT_EQ(Contents("dest"), CanonicalJson(R"({"0": {"_id": 2, "k": "b", "v": 20}})"));
}

TEST_F(AggregateWriteTest, OutToAnotherDatabase) {
  ASSERT_OK_REPLY(Aggregate(R"([{"$project": {"v": 1}}, {"$out": {"db": "otherdb_out", "coll": "copy"}}])"));
  EXPECT_EQ(Contents("copy", "otherdb_out"),
            CanonicalJson(R"({"0": {"_id": 1, "v": 10}, "1": {"_id": 2, "v": 20}, "2": {"_id": 3, "v": 30}})"));
  client_->RunCommand("otherdb_out", R"({"dropDatabase": 1})");
}

TEST_F(AggregateWriteTest, FailedOutLeavesTargetUntouched) {
  InsertJson("dest", R"([{"_id": 100}])");
  // Two documents with _id "a": the second insert fails with a duplicate key.
  BsonDoc r = Aggregate(R"([{"$project": {"_id": "$k"}}, {"$out": "dest"}])");
  EXPECT_ERROR_REPLY(r, 11000, "DuplicateKey");
  EXPECT_EQ(Contents("dest"), CanonicalJson(R"({"0": {"_id": 100}})"));
  BsonDoc list = Run(R"({"listCollections": 1, "filter": {"name": {"$regex": "^tmp"}}})");
  EXPECT_EQ(DocArray(list, "cursor.firstBatch").size(), 0u) << Json(list);
}

TEST_F(AggregateWriteTest, WriterStageErrors) {
  EXPECT_ERROR_REPLY(Aggregate(R"([{"$out": "x"}, {"$match": {}}])"), 40601, "Location40601");
  EXPECT_ERROR_REPLY(Aggregate(R"([{"$merge": "x"}, {"$match": {}}])"), 40601, "Location40601");
  EXPECT_ERROR_REPLY(Aggregate(R"([{"$out": 1}])"), 16990, "Location16990");
  EXPECT_ERROR_REPLY(Aggregate(R"([{"$out": "system.foo"}])"), 17385, "Location17385");
  EXPECT_ERROR_REPLY(Aggregate(R"([{"$out": {"db": "admin", "coll": "x"}}])"), 31321, "Location31321");
  EXPECT_ERROR_REPLY(Aggregate(R"([{"$out": {"coll": "x"}}])"), 40414, "Location40414");
  EXPECT_ERROR_REPLY(Aggregate(R"([{"$facet": {"a": [{"$out": "x"}]}}])"), 40600, "Location40600");
  EXPECT_ERROR_REPLY(Aggregate(R"([{"$lookup": {"from": "src", "pipeline": [{"$out": "x"}], "as": "a"}}])"), 51047,
                     "Location51047");
  EXPECT_ERROR_REPLY(Aggregate(R"([{"$merge": {"into": "x", "whenMatched": "fail", "whenNotMatched": "discard"}}])"),
                     51181, "Location51181");
  EXPECT_ERROR_REPLY(Aggregate(R"([{"$merge": {"into": "x", "on": "k"}}])"), 51183, "Location51183");
  EXPECT_ERROR_REPLY(Aggregate(R"([{"$merge": {"into": "x", "whenMatched": "replace", "let": {"a": 1}}}])"), 51199,
                     "Location51199");
  EXPECT_ERROR_REPLY(Aggregate(R"([{"$merge": {"into": "x", "whenMatched": "bogus"}}])"), 2, "BadValue");
  EXPECT_ERROR_REPLY(Aggregate(R"([{"$merge": {"on": "_id"}}])"), 40414, "Location40414");
  EXPECT_ERROR_REPLY(Aggregate(R"([{"$merge": {"into": "x", "whenMatched": [{"$group": {"_id": 1}}]}}])"), 72,
                     "InvalidOptions");
}

class MergeModeTest : public AggregateWriteTest {
 protected:
  void SetUp() override {
    AggregateWriteTest::SetUp();
    InsertJson("target", R"([{"_id": 1, "k": "old", "extra": true}, {"_id": 9, "k": "keep"}])");
  }
  std::string Merge(const std::string& spec) {
    BsonDoc r = Aggregate(R"([{"$merge": )" + spec + "}]");
    EXPECT_OK_REPLY(r);
    EXPECT_EQ(DocArray(r, "cursor.firstBatch").size(), 0u);
    return Contents("target");
  }
};

TEST_F(MergeModeTest, DefaultIsMergeAndInsert) {
  EXPECT_EQ(Merge(R"("target")"),
            CanonicalJson(R"({"0": {"_id": 1, "k": "a", "extra": true, "v": 10}, "1": {"_id": 2, "k": "b", "v": 20},
                              "2": {"_id": 3, "k": "a", "v": 30}, "3": {"_id": 9, "k": "keep"}})"));
}

TEST_F(MergeModeTest, ReplaceAndInsert) {
  EXPECT_EQ(Merge(R"({"into": "target", "whenMatched": "replace"})"),
            CanonicalJson(R"({"0": {"_id": 1, "k": "a", "v": 10}, "1": {"_id": 2, "k": "b", "v": 20},
                              "2": {"_id": 3, "k": "a", "v": 30}, "3": {"_id": 9, "k": "keep"}})"));
}

TEST_F(MergeModeTest, KeepExistingAndInsert) {
  EXPECT_EQ(Merge(R"({"into": "target", "whenMatched": "keepExisting"})"),
            CanonicalJson(R"({"0": {"_id": 1, "k": "old", "extra": true}, "1": {"_id": 2, "k": "b", "v": 20},
                              "2": {"_id": 3, "k": "a", "v": 30}, "3": {"_id": 9, "k": "keep"}})"));
}

TEST_F(MergeModeTest, ReplaceAndDiscard) {
  EXPECT_EQ(Merge(R"({"into": "target", "whenMatched": "replace", "whenNotMatched": "discard"})"),
            CanonicalJson(R"({"0": {"_id": 1, "k": "a", "v": 10}, "1": {"_id": 9, "k": "keep"}})"));
}

TEST_F(MergeModeTest, PipelineWithNewAndLet) {
  EXPECT_EQ(Merge(R"({"into": "target", "let": {"inc": {"$multiply": ["$v", 2]}}, "whenNotMatched": "discard",
                      "whenMatched": [{"$set": {"k": {"$concat": ["$k", "+", "$$new.k"]}, "doubled": "$$inc"}}]})"),
            CanonicalJson(R"({"0": {"_id": 1, "k": "old+a", "extra": true, "doubled": 20}, "1": {"_id": 9, "k": "keep"}})"));
}

TEST_F(MergeModeTest, FailWhenMatchedIsADuplicateKey) {
  BsonDoc r = Aggregate(R"([{"$merge": {"into": "target", "whenMatched": "fail"}}])");
  EXPECT_ERROR_REPLY(r, 11000, "DuplicateKey");
}

TEST_F(MergeModeTest, FailWhenNotMatched) {
  BsonDoc r = Aggregate(R"([{"$merge": {"into": "target", "whenMatched": "merge", "whenNotMatched": "fail"}}])");
  EXPECT_ERROR_REPLY(r, 13113, "MergeStageNoMatchingDocument");
}

TEST_F(MergeModeTest, ChangingIdIsRefused) {
  BsonDoc r = Aggregate(R"([{"$match": {"_id": 1}}, {"$merge": {"into": "target", "whenNotMatched": "discard",
      "whenMatched": [{"$set": {"_id": 5}}]}}])");
  EXPECT_ERROR_REPLY(r, 66, "ImmutableField");
}

TEST_F(MergeModeTest, DocumentsWithoutIdGetOne) {
  BsonDoc r = Aggregate(R"([{"$project": {"_id": 0, "k": 1}}, {"$merge": {"into": "fresh"}}])");
  ASSERT_OK_REPLY(r);
  BsonDoc count = Run(R"({"count": "fresh"})");
  EXPECT_EQ(Integer(count, "n"), 3) << Json(count);
}

}  // namespace
}  // namespace tigerdoc::e2e
