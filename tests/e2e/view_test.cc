// Views through the wire: create {viewOn, pipeline}, listCollections,
// find / aggregate / count / distinct on a view (and on a view of a view),
// writes refused, cycles refused, drop, and views surviving a restart.
#include <algorithm>

#include "tests/e2e/e2e_test_base.h"

namespace tigerdoc::e2e {
namespace {

using testutil::ArrayLength;
using testutil::CanonicalJson;
using testutil::DocArray;
using testutil::Integer;
using testutil::Json;
using testutil::String;
using testutil::SubDoc;

class ViewTest : public E2eTest {
 protected:
  void SetUp() override {
    E2eTest::SetUp();
    // The manual's "Create and Query a View" example.
    InsertJson("students", R"([
      {"_id": 1, "sID": 22001, "name": "Alex", "year": 1, "score": 4.0},
      {"_id": 2, "sID": 21001, "name": "Bernie", "year": 2, "score": 3.7},
      {"_id": 3, "sID": 20010, "name": "Chris", "year": 3, "score": 2.5},
      {"_id": 4, "sID": 22021, "name": "Drew", "year": 1, "score": 3.2},
      {"_id": 5, "sID": 17301, "name": "Harley", "year": 6, "score": 3.1},
      {"_id": 6, "sID": 21022, "name": "Farmer", "year": 1, "score": 2.2},
      {"_id": 7, "sID": 20020, "name": "George", "year": 3, "score": 2.8},
      {"_id": 8, "sID": 22034, "name": "Harley", "year": 1, "score": 2.8}])");
    ASSERT_OK_REPLY(Run(R"({"create": "firstYears", "viewOn": "students",
        "pipeline": [{"$match": {"year": 1}}]})"));
  }

};

TEST_F(ViewTest, FindOnAViewFromTheManual) {
  BsonDoc r = Run(R"({"find": "firstYears", "filter": {}, "projection": {"_id": 0, "name": 1}, "sort": {"sID": 1}})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(String(r, "cursor.ns"), db_ + ".firstYears");
  EXPECT_EQ(CanonicalJson(SubDoc(r, "cursor.firstBatch")),
            CanonicalJson(R"({"0": {"name": "Farmer"}, "1": {"name": "Alex"}, "2": {"name": "Drew"},
                              "3": {"name": "Harley"}})"));
  // filter, sort, skip and limit become stages after the view's pipeline.
  r = Run(R"({"find": "firstYears", "filter": {"score": {"$gte": 2.5}}, "sort": {"score": -1},
      "skip": 1, "limit": 1})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Ids(r), (std::vector<int64_t>{4}));
}

TEST_F(ViewTest, AggregateCountDistinctAndGetMore) {
  BsonDoc r = Run(R"({"aggregate": "firstYears", "pipeline": [{"$group": {"_id": null,
      "avg": {"$avg": "$score"}}}], "cursor": {}})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(testutil::Number(r, "cursor.firstBatch.0.avg"), 3.05) << Json(r);
  r = Run(R"({"count": "firstYears"})");
  EXPECT_EQ(Integer(r, "n"), 4) << Json(r);
  r = Run(R"({"count": "firstYears", "query": {"score": {"$lt": 3}}})");
  EXPECT_EQ(Integer(r, "n"), 2) << Json(r);
  r = Run(R"({"distinct": "firstYears", "key": "name"})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(CanonicalJson(SubDoc(r, "values")),
            CanonicalJson(R"({"0": "Alex", "1": "Drew", "2": "Farmer", "3": "Harley"})"));
  // A cursor over a view pages under the view's namespace.
  r = Run(R"({"find": "firstYears", "batchSize": 1})");
  ASSERT_OK_REPLY(r);
  int64_t id = Integer(r, "cursor.id").value_or(0);
  ASSERT_NE(id, 0);
  BsonDoc more = GetMore(id, "firstYears");
  ASSERT_OK_REPLY(more);
  EXPECT_EQ(ArrayLength(more, "cursor.nextBatch"), 3u);
}

TEST_F(ViewTest, ViewOnAViewAndListCollections) {
  ASSERT_OK_REPLY(Run(R"({"create": "goodFirstYears", "viewOn": "firstYears",
      "pipeline": [{"$match": {"score": {"$gte": 3}}}, {"$project": {"name": 1}}]})"));
  BsonDoc r = Run(R"({"find": "goodFirstYears", "sort": {"_id": 1}})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(CanonicalJson(SubDoc(r, "cursor.firstBatch")),
            CanonicalJson(R"({"0": {"_id": 1, "name": "Alex"}, "1": {"_id": 4, "name": "Drew"}})"));
  r = Run(R"({"listCollections": 1, "filter": {"type": "view", "name": "firstYears"}})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(CanonicalJson(SubDoc(r, "cursor.firstBatch")),
            CanonicalJson(R"({"0": {"name": "firstYears", "type": "view",
                "options": {"viewOn": "students", "pipeline": [{"$match": {"year": 1}}]},
                "info": {"readOnly": true}}})"));
  r = Run(R"({"listCollections": 1, "nameOnly": true})");
  EXPECT_EQ(ArrayLength(r, "cursor.firstBatch"), 3u) << Json(r);
  r = Run(R"({"dbStats": 1})");
  EXPECT_EQ(Integer(r, "views"), 2) << Json(r);
}

TEST_F(ViewTest, WritesAreRefused) {
  const char* expected = "is a view, not a collection";
  BsonDoc r = Run(R"({"insert": "firstYears", "documents": [{"a": 1}]})");
  EXPECT_ERROR_REPLY(r, 166, "CommandNotSupportedOnView");
  EXPECT_NE(String(r, "errmsg").value_or("").find(expected), std::string::npos) << Json(r);
  r = Run(R"({"update": "firstYears", "updates": [{"q": {}, "u": {"$set": {"a": 1}}}]})");
  EXPECT_EQ(Integer(r, "writeErrors.0.code"), 166) << Json(r);
  EXPECT_EQ(String(r, "writeErrors.0.errmsg"), "Namespace " + db_ + ".firstYears is a view, not a collection");
  r = Run(R"({"delete": "firstYears", "deletes": [{"q": {}, "limit": 0}]})");
  EXPECT_EQ(Integer(r, "writeErrors.0.code"), 166) << Json(r);
  r = Run(R"({"findAndModify": "firstYears", "query": {}, "remove": true})");
  EXPECT_ERROR_REPLY(r, 166, "CommandNotSupportedOnView");
  r = Run(R"({"collStats": "firstYears"})");
  EXPECT_ERROR_REPLY(r, 166, "CommandNotSupportedOnView");
  // Nothing changed underneath.
  r = Run(R"({"count": "students"})");
  EXPECT_EQ(Integer(r, "n"), 8);
}

TEST_F(ViewTest, IndexCommandsAndAggregateWritesIntoAViewAreRefused) {
  const std::string ns = db_ + ".firstYears";
  BsonDoc r = Run(R"({"createIndexes": "firstYears", "indexes": [{"key": {"name": 1}, "name": "name_1"}]})");
  EXPECT_ERROR_REPLY(r, 166, "CommandNotSupportedOnView");
  EXPECT_EQ(String(r, "errmsg"), "Cannot create indexes on a view") << Json(r);
  r = Run(R"({"dropIndexes": "firstYears", "index": "*"})");
  EXPECT_ERROR_REPLY(r, 166, "CommandNotSupportedOnView");
  EXPECT_EQ(String(r, "errmsg"), "Cannot drop indexes on view " + ns) << Json(r);
  r = Run(R"({"listIndexes": "firstYears"})");
  EXPECT_ERROR_REPLY(r, 166, "CommandNotSupportedOnView");
  EXPECT_EQ(String(r, "errmsg"), "Namespace " + ns + " is a view, not a collection") << Json(r);
  // $out and $merge into a view fail before anything is written.
  r = Run(R"({"aggregate": "students", "pipeline": [{"$out": "firstYears"}], "cursor": {}})");
  EXPECT_ERROR_REPLY(r, 166, "CommandNotSupportedOnView");
  EXPECT_EQ(String(r, "errmsg"), "Namespace " + ns + " is a view, not a collection") << Json(r);
  r = Run(R"({"aggregate": "students", "pipeline": [{"$merge": {"into": "firstYears"}}], "cursor": {}})");
  EXPECT_ERROR_REPLY(r, 166, "CommandNotSupportedOnView");
  // The view and the collection under it are unchanged; no index appeared.
  r = Run(R"({"count": "firstYears"})");
  EXPECT_EQ(Integer(r, "n"), 4) << Json(r);
  r = Run(R"({"listIndexes": "students"})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(ArrayLength(r, "cursor.firstBatch"), 1u) << Json(r);
  r = Run(R"({"listCollections": 1, "filter": {"name": "firstYears"}})");
  EXPECT_EQ(String(r, "cursor.firstBatch.0.type"), "view") << Json(r);
}

TEST_F(ViewTest, CreateErrors) {
  BsonDoc r = Run(R"({"create": "firstYears", "viewOn": "other", "pipeline": []})");
  EXPECT_ERROR_REPLY(r, 48, "NamespaceExists");
  r = Run(R"({"create": "students", "viewOn": "firstYears", "pipeline": []})");
  EXPECT_ERROR_REPLY(r, 48, "NamespaceExists");
  // The same definition again is fine.
  EXPECT_OK_REPLY(Run(R"({"create": "firstYears", "viewOn": "students", "pipeline": [{"$match": {"year": 1}}]})"));
  r = Run(R"({"create": "v", "viewOn": "students", "pipeline": [{"$bogus": 1}]})");
  EXPECT_ERROR_REPLY(r, 40324, "Location40324");
  r = Run(R"({"create": "v", "viewOn": 1})");
  EXPECT_ERROR_REPLY(r, 14, "TypeMismatch");
  r = Run(R"({"create": "v", "viewOn": "students", "pipeline": {"$match": {}}})");
  EXPECT_ERROR_REPLY(r, 14, "TypeMismatch");
  r = Run(R"({"create": "v", "pipeline": []})");
  EXPECT_ERROR_REPLY(r, 2, "BadValue");
  // Cycles.
  ASSERT_OK_REPLY(Run(R"({"create": "a", "viewOn": "b", "pipeline": []})"));
  r = Run(R"({"create": "b", "viewOn": "a", "pipeline": []})");
  EXPECT_ERROR_REPLY(r, 5, "GraphContainsCycle");
  EXPECT_EQ(String(r, "errmsg"), "View cycle detected: " + db_ + ".b => " + db_ + ".a => " + db_ + ".b");
  // A view of a missing collection reads as empty.
  r = Run(R"({"find": "a"})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(ArrayLength(r, "cursor.firstBatch"), 0u);
}

TEST_F(ViewTest, DropAndRestart) {
  ASSERT_OK_REPLY(Run(R"({"create": "names", "viewOn": "students", "pipeline": [{"$project": {"name": 1}}]})"));
  RestartAndReconnect(Shutdown::kClean);
  BsonDoc r = Run(R"({"count": "firstYears"})");
  EXPECT_EQ(Integer(r, "n"), 4) << Json(r);
  r = Run(R"({"find": "names", "filter": {"_id": 2}})");
  EXPECT_EQ(CanonicalJson(SubDoc(r, "cursor.firstBatch")), CanonicalJson(R"({"0": {"_id": 2, "name": "Bernie"}})"));
  ASSERT_OK_REPLY(Run(R"({"drop": "names"})"));
  r = Run(R"({"listCollections": 1, "filter": {"name": "names"}})");
  EXPECT_EQ(ArrayLength(r, "cursor.firstBatch"), 0u) << Json(r);
  // The name is free again, for a collection too.
  ASSERT_OK_REPLY(Run(R"({"insert": "names", "documents": [{"_id": 1}]})"));
  ASSERT_OK_REPLY(Run(R"({"dropDatabase": 1})"));
  r = Run(R"({"listCollections": 1})");
  EXPECT_EQ(ArrayLength(r, "cursor.firstBatch"), 0u) << Json(r);
}

}  // namespace
}  // namespace tigerdoc::e2e
