// Pipeline-style updates through update and findAndModify: the manual's
// "Updates with Aggregation Pipeline" examples, upserts, `let` and `c`,
// and MongoDB's errors.
#include "tests/e2e/e2e_test_base.h"

namespace tigerdoc::e2e {
namespace {

using testutil::CanonicalJson;
using testutil::Integer;
using testutil::Json;
using testutil::String;
using testutil::SubDoc;
using testutil::TypeAt;

class PipelineUpdateTest : public E2eTest {
 protected:
  BsonDoc FindOne(const std::string& coll, int id) {
    BsonDoc r = Run(R"({"find": ")" + coll + R"(", "filter": {"_id": )" + std::to_string(id) + "}}");
    return SubDoc(r, "cursor.firstBatch.0");
  }
};

TEST_F(PipelineUpdateTest, SetWithNowAndUnset) {
  InsertJson("students", R"([
    {"_id": 1, "test1": 95, "test2": 92, "test3": 90, "modified": {"$date": "2019-01-01T00:00:00Z"}},
    {"_id": 2, "test1": 98, "test2": 100, "test3": 102, "modified": {"$date": "2019-01-01T00:00:00Z"}},
    {"_id": 3, "test1": 95, "test2": 110, "modified": {"$date": "2019-01-01T00:00:00Z"}}])");
  BsonDoc r = Run(R"({"update": "students", "updates": [{"q": {"_id": 3},
      "u": [{"$set": {"test3": 98, "modified": "$$NOW"}}]}]})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "nModified"), 1);
  BsonDoc doc = FindOne("students", 3);
  EXPECT_EQ(Integer(doc, "test3"), 98);
  EXPECT_EQ(TypeAt(doc, "modified"), BSON_TYPE_DATE_TIME);
  auto modified = testutil::Lookup(doc, "modified");
  ASSERT_TRUE(modified.has_value());
  EXPECT_GT(bson_iter_date_time(&*modified), 1546300800000) << Json(doc);

  r = Run(R"({"update": "students", "updates": [{"q": {}, "u": [{"$unset": ["test3", "modified"]}],
      "multi": true}]})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "nModified"), 3);
  EXPECT_EQ(CanonicalJson(FindOne("students", 1)), CanonicalJson(R"({"_id": 1, "test1": 95, "test2": 92})"));
}

TEST_F(PipelineUpdateTest, ReplaceRootMergeAndComputedAverage) {
  InsertJson("students2", R"([
    {"_id": 1, "quiz1": 8, "test2": 100, "quiz2": 9},
    {"_id": 2, "quiz2": 5, "test1": 80, "test2": 89}])");
  BsonDoc r = Run(R"({"update": "students2", "updates": [{"q": {}, "multi": true, "u": [
      {"$replaceRoot": {"newRoot": {"$mergeObjects": [{"quiz1": 0, "quiz2": 0, "test1": 0, "test2": 0}, "$$ROOT"]}}},
      {"$set": {"total": {"$add": ["$quiz1", "$quiz2", "$test1", "$test2"]}}}]}]})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "nModified"), 2);
  // The pipeline's output replaces the document, field order included.
  EXPECT_EQ(CanonicalJson(FindOne("students2", 2)),
            CanonicalJson(R"({"quiz1": 0, "quiz2": 5, "test1": 80, "test2": 89, "_id": 2, "total": 174})"));
}

TEST_F(PipelineUpdateTest, ConditionalUpdateWithLetAndConstants) {
  InsertJson("grades", R"([{"_id": 1, "tests": [95, 92, 90]}, {"_id": 2, "tests": [70, 75, 72]}])");
  BsonDoc r = Run(R"({"update": "grades", "let": {"cutoff": 90}, "updates": [{"q": {}, "multi": true, "u": [
      {"$set": {"average": {"$trunc": [{"$avg": "$tests"}, 0]}}},
      {"$set": {"grade": {"$cond": [{"$gte": ["$average", "$$cutoff"]}, "$$top", "other"]}}}],
      "c": {"top": "A"}}]})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "nModified"), 2) << Json(r);
  EXPECT_EQ(String(FindOne("grades", 1), "grade"), "A");
  EXPECT_EQ(String(FindOne("grades", 2), "grade"), "other");
  EXPECT_EQ(testutil::Number(FindOne("grades", 2), "average"), 72.0);
}

TEST_F(PipelineUpdateTest, UpsertRunsThePipelineOverTheSeed) {
  BsonDoc r = Run(R"({"update": "c", "updates": [{"q": {"_id": 7, "k": 2},
      "u": [{"$set": {"double": {"$multiply": ["$k", 2]}}}], "upsert": true}]})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "upserted.0._id"), 7) << Json(r);
  EXPECT_EQ(CanonicalJson(FindOne("c", 7)), CanonicalJson(R"({"_id": 7, "k": 2, "double": 4})"));
  // Without an _id in the filter, one is generated.
  r = Run(R"({"update": "c", "updates": [{"q": {"name": "x"}, "u": [{"$replaceWith": {"n": "$name"}}],
      "upsert": true}]})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(TypeAt(r, "upserted.0._id"), BSON_TYPE_OID) << Json(r);
}

TEST_F(PipelineUpdateTest, FindAndModifyWithPipeline) {
  InsertJson("c", R"([{"_id": 1, "a": 1, "b": 2}])");
  BsonDoc r = Run(R"({"findAndModify": "c", "query": {"_id": 1},
      "update": [{"$project": {"sum": {"$add": ["$a", "$b", "$$x"]}}}], "new": true, "let": {"x": 10}})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(CanonicalJson(SubDoc(r, "value")), CanonicalJson(R"({"_id": 1, "sum": 13})"));
  r = Run(R"({"findAndModify": "c", "query": {"_id": 9}, "update": [{"$set": {"n": 1}}], "upsert": true,
      "new": true})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(CanonicalJson(SubDoc(r, "value")), CanonicalJson(R"({"_id": 9, "n": 1})"));
}

TEST_F(PipelineUpdateTest, Errors) {
  InsertJson("c", R"([{"_id": 1, "a": 1}])");
  BsonDoc r = Run(R"({"update": "c", "updates": [{"q": {}, "u": [{"$match": {"a": 1}}]}]})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "writeErrors.0.code"), 72) << Json(r);
  EXPECT_EQ(String(r, "writeErrors.0.errmsg"), "$match is not allowed to be used within an update");
  r = Run(R"({"update": "c", "updates": [{"q": {}, "u": [{"$bogus": {}}]}]})");
  EXPECT_EQ(Integer(r, "writeErrors.0.code"), 40324) << Json(r);
  r = Run(R"({"update": "c", "updates": [{"q": {}, "u": [{"$set": {"a": 2}}], "arrayFilters": [{"x": 1}]}]})");
  EXPECT_EQ(Integer(r, "writeErrors.0.code"), 9) << Json(r);
  r = Run(R"({"update": "c", "updates": [{"q": {}, "u": [{"$set": {"_id": 2}}]}]})");
  EXPECT_EQ(Integer(r, "writeErrors.0.code"), 66) << Json(r);
  r = Run(R"({"update": "c", "updates": [{"q": {}, "u": {"$set": {"a": 2}}, "c": {"x": 1}}]})");
  EXPECT_EQ(Integer(r, "writeErrors.0.code"), 51198) << Json(r);
  r = Run(R"({"findAndModify": "c", "query": {}, "update": [{"$group": {"_id": null}}]})");
  EXPECT_ERROR_REPLY(r, 72, "InvalidOptions");
  EXPECT_EQ(CanonicalJson(FindOne("c", 1)), CanonicalJson(R"({"_id": 1, "a": 1})"));
}

}  // namespace
}  // namespace tigerdoc::e2e
