// collMod of a view: {collMod: <view>, viewOn?, pipeline?} changes what the
// view reads (each option defaults to the view's current one), persists
// across a restart, and refuses what MongoDB refuses: a cycle (5), options
// a view does not have (72), viewOn / pipeline on a collection (72), a
// missing namespace (26).
#include "tests/e2e/e2e_test_base.h"

namespace tigerdoc::e2e {
namespace {

using testutil::CanonicalJson;
using testutil::DocArray;
using testutil::Json;
using testutil::String;
using testutil::SubDoc;

class ViewCollModTest : public E2eTest {
 protected:
  void SetUp() override {
    E2eTest::SetUp();
    InsertJson("a", R"([{"_id": 1, "x": 1}, {"_id": 2, "x": 2}, {"_id": 3, "x": 3}])");
    InsertJson("b", R"([{"_id": 10, "x": 10}, {"_id": 20, "x": 20}])");
    ASSERT_OK_REPLY(Run(R"({"create": "v", "viewOn": "a", "pipeline": [{"$match": {"x": {"$gte": 2}}}]})"));
  }

  std::string Contents(const std::string& coll) {
    BsonDoc r = Run(R"({"find": ")" + coll + R"(", "sort": {"_id": 1}})");
    EXPECT_OK_REPLY(r);
    return CanonicalJson(SubDoc(r, "cursor.firstBatch"));
  }

  // The options listCollections shows for the view.
  std::string ViewOptions() {
    BsonDoc r = Run(R"({"listCollections": 1, "filter": {"name": "v"}})");
    EXPECT_OK_REPLY(r);
    auto colls = DocArray(r, "cursor.firstBatch");
    EXPECT_EQ(colls.size(), 1u) << Json(r);
    return colls.empty() ? "" : CanonicalJson(SubDoc(colls[0], "options"));
  }
};

TEST_F(ViewCollModTest, ChangesViewOnAndPipeline) {
  ASSERT_OK_REPLY(Run(R"({"collMod": "v", "viewOn": "b", "pipeline": [{"$match": {"x": 20}}]})"));
  EXPECT_EQ(Contents("v"), CanonicalJson(R"({"0": {"_id": 20, "x": 20}})"));
  EXPECT_EQ(ViewOptions(), CanonicalJson(R"({"viewOn": "b", "pipeline": [{"$match": {"x": 20}}]})"));
}

TEST_F(ViewCollModTest, EachOptionAloneKeepsTheOther) {
  ASSERT_OK_REPLY(Run(R"({"collMod": "v", "pipeline": [{"$match": {"x": 3}}]})"));
  EXPECT_EQ(Contents("v"), CanonicalJson(R"({"0": {"_id": 3, "x": 3}})"));
  ASSERT_OK_REPLY(Run(R"({"collMod": "v", "viewOn": "b"})"));
  EXPECT_EQ(Contents("v"), CanonicalJson(R"({})"));  // b has no x: 3
  EXPECT_EQ(ViewOptions(), CanonicalJson(R"({"viewOn": "b", "pipeline": [{"$match": {"x": 3}}]})"));
  // No option at all: a no-op.
  ASSERT_OK_REPLY(Run(R"({"collMod": "v"})"));
  EXPECT_EQ(ViewOptions(), CanonicalJson(R"({"viewOn": "b", "pipeline": [{"$match": {"x": 3}}]})"));
}

TEST_F(ViewCollModTest, PersistsAcrossRestart) {
  ASSERT_OK_REPLY(Run(R"({"collMod": "v", "viewOn": "b", "pipeline": [{"$project": {"y": "$x"}}]})"));
  client_.reset();
  ASSERT_TRUE(server_->Stop().ok());
  ASSERT_TRUE(server_->Restart().ok());
  client_ = std::make_unique<MongoClient>(server_->uri());
  EXPECT_EQ(Contents("v"), CanonicalJson(R"({"0": {"_id": 10, "y": 10}, "1": {"_id": 20, "y": 20}})"));
}

TEST_F(ViewCollModTest, RefusesACycle) {
  ASSERT_OK_REPLY(Run(R"({"create": "w", "viewOn": "v", "pipeline": []})"));
  EXPECT_ERROR_REPLY(Run(R"({"collMod": "v", "viewOn": "w"})"), 5, "GraphContainsCycle");
  EXPECT_ERROR_REPLY(Run(R"({"collMod": "v", "viewOn": "v"})"), 5, "GraphContainsCycle");
  // The view is unchanged.
  EXPECT_EQ(Contents("v"), CanonicalJson(R"({"0": {"_id": 2, "x": 2}, "1": {"_id": 3, "x": 3}})"));
}

TEST_F(ViewCollModTest, RefusesWhatMongoDBRefuses) {
  BsonDoc r = Run(R"({"collMod": "v", "index": {"name": "x_1", "hidden": true}})");
  EXPECT_ERROR_REPLY(r, 72, "InvalidOptions");
  EXPECT_EQ(String(r, "errmsg"), "option not supported on a view: index");
  r = Run(R"({"collMod": "v", "viewOn": 1})");
  EXPECT_ERROR_REPLY(r, 72, "InvalidOptions");
  EXPECT_EQ(String(r, "errmsg"), "'viewOn' option must be a string");
  r = Run(R"({"collMod": "v", "pipeline": {"$match": {}}})");
  EXPECT_ERROR_REPLY(r, 72, "InvalidOptions");
  EXPECT_EQ(String(r, "errmsg"), "not a valid aggregation pipeline");
  EXPECT_ERROR_REPLY(Run(R"({"collMod": "v", "pipeline": [{"$out": "z"}]})"), 167, "OptionNotSupportedOnView");
  EXPECT_ERROR_REPLY(Run(R"({"collMod": "v", "pipeline": [{"$bogus": 1}]})"), 40324, "Location40324");
  // viewOn / pipeline on a collection, and on nothing.
  r = Run(R"({"collMod": "a", "viewOn": "b"})");
  EXPECT_ERROR_REPLY(r, 72, "InvalidOptions");
  EXPECT_EQ(String(r, "errmsg"), "'viewOn' option only supported on a view");
  r = Run(R"({"collMod": "a", "pipeline": []})");
  EXPECT_ERROR_REPLY(r, 72, "InvalidOptions");
  EXPECT_EQ(String(r, "errmsg"), "'pipeline' option only supported on a view");
  EXPECT_ERROR_REPLY(Run(R"({"collMod": "nothing", "viewOn": "b"})"), 26, "NamespaceNotFound");
  // Nothing changed.
  EXPECT_EQ(ViewOptions(), CanonicalJson(R"({"viewOn": "a", "pipeline": [{"$match": {"x": {"$gte": 2}}}]})"));
}

}  // namespace
}  // namespace tigerdoc::e2e
