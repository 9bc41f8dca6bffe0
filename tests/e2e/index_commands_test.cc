// createIndexes / listIndexes / dropIndexes / collMod index through
// libmongoc: reply shapes, every option, and MongoDB's errors.

#include "tests/e2e/index_test_base.h"

namespace tigerdoc::e2e {
namespace {

using testutil::DocArray;
using testutil::Has;
using testutil::Integer;
using testutil::Json;
using testutil::String;

using IndexCommandsTest = IndexE2eTest;

TEST_F(IndexCommandsTest, CreateListDropRoundTrip) {
  BsonDoc created = CreateIndexes("c", R"([{"key": {"a": 1, "b": -1}, "name": "a_1_b_-1"},
      {"key": {"h": "hashed"}, "name": "h_hashed"},
      {"key": {"u": 1}, "name": "u", "unique": true, "sparse": true},
      {"key": {"p": 1}, "name": "p", "partialFilterExpression": {"q": {"$exists": true}}},
      {"key": {"t": 1}, "name": "t", "expireAfterSeconds": 3600, "hidden": true}])");
  ASSERT_OK_REPLY(created);
  EXPECT_EQ(Integer(created, "numIndexesBefore"), 1);
  EXPECT_EQ(Integer(created, "numIndexesAfter"), 6);
  auto created_flag = testutil::Lookup(created, "createdCollectionAutomatically");
  ASSERT_TRUE(created_flag.has_value()) << Json(created);
  EXPECT_TRUE(bson_iter_as_bool(&*created_flag));

  BsonDoc list = Run(R"({"listIndexes": "c"})");
  ASSERT_OK_REPLY(list);
  EXPECT_EQ(String(list, "cursor.ns"), db_ + ".$cmd.listIndexes.c");
  EXPECT_EQ(Integer(list, "cursor.id"), 0);
  auto indexes = DocArray(list, "cursor.firstBatch");
  ASSERT_EQ(indexes.size(), 6u);
  EXPECT_EQ(testutil::CanonicalJson(indexes[0]),
            testutil::CanonicalJson(R"({"v": 2, "key": {"_id": 1}, "name": "_id_"})"));
  EXPECT_EQ(testutil::CanonicalJson(indexes[1]),
            testutil::CanonicalJson(R"({"v": 2, "key": {"a": 1, "b": -1}, "name": "a_1_b_-1"})"));
  EXPECT_EQ(testutil::CanonicalJson(indexes[3]),
            testutil::CanonicalJson(R"({"v": 2, "key": {"u": 1}, "name": "u", "unique": true, "sparse": true})"));
  EXPECT_EQ(testutil::CanonicalJson(indexes[4]),
            testutil::CanonicalJson(R"({"v": 2, "key": {"p": 1}, "name": "p", "partialFilterExpression": {"q": {"$exists": true}}})"));
  EXPECT_EQ(testutil::CanonicalJson(indexes[5]),
            testutil::CanonicalJson(R"({"v": 2, "key": {"t": 1}, "name": "t", "expireAfterSeconds": 3600, "hidden": true})"));

  // Identical again: a no-op with MongoDB's note.
  BsonDoc again = CreateIndexes("c", R"([{"key": {"a": 1, "b": -1}, "name": "a_1_b_-1"}])");
  ASSERT_OK_REPLY(again);
  EXPECT_EQ(String(again, "note"), "all indexes already exist");
  EXPECT_EQ(Integer(again, "numIndexesAfter"), 6);

  // Drop by name, by key pattern, by list, then "*".
  BsonDoc by_name = Run(R"({"dropIndexes": "c", "index": "h_hashed"})");
  ASSERT_OK_REPLY(by_name);
  EXPECT_EQ(Integer(by_name, "nIndexesWas"), 6);
  ASSERT_OK_REPLY(Run(R"({"dropIndexes": "c", "index": {"a": 1, "b": -1}})"));
  ASSERT_OK_REPLY(Run(R"({"dropIndexes": "c", "index": ["u", "p"]})"));
  EXPECT_EQ(IndexNames("c"), (std::vector<std::string>{"_id_", "t"}));
  BsonDoc all = Run(R"({"dropIndexes": "c", "index": "*"})");
  ASSERT_OK_REPLY(all);
  EXPECT_EQ(Integer(all, "nIndexesWas"), 2);
  EXPECT_EQ(String(all, "msg"), "non-_id indexes dropped for collection");
  EXPECT_EQ(IndexNames("c"), std::vector<std::string>{"_id_"});
}

TEST_F(IndexCommandsTest, ImplicitCollectionCreationAndDefaultNames) {
  BsonDoc created = CreateIndexes("fresh", R"([{"key": {"a": 1, "b": -1}}, {"key": {"x.y": "hashed"}}])");
  ASSERT_OK_REPLY(created);
  auto flag = testutil::Lookup(created, "createdCollectionAutomatically");
  ASSERT_TRUE(flag.has_value()) << Json(created);
  EXPECT_TRUE(bson_iter_as_bool(&*flag));
  // On an existing collection it is false.
  BsonDoc second = CreateIndexes("fresh", R"([{"key": {"c": 1}}])");
  auto second_flag = testutil::Lookup(second, "createdCollectionAutomatically");
  ASSERT_TRUE(second_flag.has_value()) << Json(second);
  EXPECT_FALSE(bson_iter_as_bool(&*second_flag));
  EXPECT_EQ(IndexNames("fresh"), (std::vector<std::string>{"_id_", "a_1_b_-1", "x.y_hashed", "c_1"}));
  BsonDoc collections = Run(R"({"listCollections": 1, "filter": {"name": "fresh"}})");
  EXPECT_EQ(testutil::ArrayLength(collections, "cursor.firstBatch"), 1u);
}

TEST_F(IndexCommandsTest, ConflictsAndInvalidSpecs) {
  ASSERT_OK_REPLY(CreateIndexes("c", R"([{"key": {"a": 1}, "name": "a_1"}])"));
  EXPECT_ERROR_REPLY(CreateIndexes("c", R"([{"key": {"b": 1}, "name": "a_1"}])"), 86,
                     "IndexKeySpecsConflict");
  BsonDoc renamed = CreateIndexes("c", R"([{"key": {"a": 1}, "name": "other"}])");
  EXPECT_ERROR_REPLY(renamed, 85, "IndexOptionsConflict");
  EXPECT_EQ(String(renamed, "errmsg"), "Index already exists with a different name: a_1");
  EXPECT_ERROR_REPLY(CreateIndexes("c", R"([{"key": {"a": 0}, "name": "z"}])"), 67, "CannotCreateIndex");
  for (const char* type : {"2d", "2dsphere"}) {
    BsonDoc r = CreateIndexes("c", std::string(R"([{"key": {"g": ")") + type + R"("}, "name": "g"}])");
    EXPECT_ERROR_REPLY(r, 67, "CannotCreateIndex");
  }
  // Wildcard indexes exist (wildcard_index_test.cc); a compound one does not yet.
  EXPECT_ERROR_REPLY(CreateIndexes("c", R"([{"key": {"$**": 1, "b": 1}, "name": "w"}])"), 67,
                     "CannotCreateIndex");
  EXPECT_ERROR_REPLY(CreateIndexes("c", R"([{"key": {"a": 1}, "name": "q", "bogus": 1}])"), 197,
                     "InvalidIndexSpecificationOption");
  EXPECT_ERROR_REPLY(Run(R"({"createIndexes": "c", "indexes": []})"), 2, "BadValue");
  EXPECT_ERROR_REPLY(Run(R"({"createIndexes": "c"})"), 40414, "Location40414");
  // Nothing of a failed request is created, even the valid part.
  EXPECT_ERROR_REPLY(CreateIndexes("c", R"([{"key": {"ok": 1}}, {"key": {"bad": true}}])"), 67,
                     "CannotCreateIndex");
  EXPECT_EQ(IndexNames("c"), (std::vector<std::string>{"_id_", "a_1"}));
  // commitQuorum is accepted on a standalone.
  ASSERT_OK_REPLY(Run(R"({"createIndexes": "c", "indexes": [{"key": {"k": 1}, "name": "k_1"}], "commitQuorum": "votingMembers"})"));
}

TEST_F(IndexCommandsTest, ListAndDropErrors) {
  BsonDoc missing = Run(R"({"listIndexes": "nope"})");
  EXPECT_ERROR_REPLY(missing, 26, "NamespaceNotFound");
  EXPECT_EQ(String(missing, "errmsg"), "ns does not exist: " + db_ + ".nope");
  ASSERT_OK_REPLY(CreateIndexes("c", R"([{"key": {"a": 1}, "name": "a_1"}])"));
  BsonDoc no_index = Run(R"({"dropIndexes": "c", "index": "b_1"})");
  EXPECT_ERROR_REPLY(no_index, 27, "IndexNotFound");
  EXPECT_EQ(String(no_index, "errmsg"), "index not found with name [b_1]");
  BsonDoc no_key = Run(R"({"dropIndexes": "c", "index": {"b": 1}})");
  EXPECT_ERROR_REPLY(no_key, 27, "IndexNotFound");
  EXPECT_EQ(String(no_key, "errmsg"), "can't find index with key: { b: 1 }");
  EXPECT_ERROR_REPLY(Run(R"({"dropIndexes": "c", "index": "_id_"})"), 72, "InvalidOptions");
  EXPECT_ERROR_REPLY(Run(R"({"dropIndexes": "c", "index": {"_id": 1}})"), 72, "InvalidOptions");
  // A list with one missing name drops nothing.
  EXPECT_ERROR_REPLY(Run(R"({"dropIndexes": "c", "index": ["a_1", "zzz"]})"), 27, "IndexNotFound");
  EXPECT_EQ(IndexNames("c"), (std::vector<std::string>{"_id_", "a_1"}));
  EXPECT_ERROR_REPLY(Run(R"({"dropIndexes": "nope", "index": "*"})"), 26, "NamespaceNotFound");
}

TEST_F(IndexCommandsTest, CollModHidesAndChangesTtl) {
  ASSERT_OK_REPLY(CreateIndexes("c", R"([{"key": {"a": 1}, "name": "a_1"},
                                         {"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 10}])"));
  BsonDoc hide = Run(R"({"collMod": "c", "index": {"name": "a_1", "hidden": true}})");
  ASSERT_OK_REPLY(hide);
  EXPECT_EQ(Json(hide).find("\"hidden_old\" : false") != std::string::npos, true) << Json(hide);
  auto list = DocArray(Run(R"({"listIndexes": "c"})"), "cursor.firstBatch");
  ASSERT_EQ(list.size(), 3u);
  EXPECT_TRUE(Has(list[1], "hidden"));
  ASSERT_OK_REPLY(Run(R"({"collMod": "c", "index": {"keyPattern": {"a": 1}, "hidden": false}})"));
  list = DocArray(Run(R"({"listIndexes": "c"})"), "cursor.firstBatch");
  EXPECT_FALSE(Has(list[1], "hidden"));
  BsonDoc ttl = Run(R"({"collMod": "c", "index": {"name": "t_1", "expireAfterSeconds": 20}})");
  ASSERT_OK_REPLY(ttl);
  EXPECT_EQ(Integer(ttl, "expireAfterSeconds_old"), 10);
  EXPECT_EQ(Integer(ttl, "expireAfterSeconds_new"), 20);
  EXPECT_ERROR_REPLY(Run(R"({"collMod": "c", "index": {"name": "zz", "hidden": true}})"), 27, "IndexNotFound");
}

TEST_F(IndexCommandsTest, StatsCountIndexesAndDropRemovesTables) {
  ASSERT_OK_REPLY(Run(R"({"create": "c", "shards": 3})"));
  InsertJson("c", R"([{"_id": 1, "a": 1}, {"_id": 2, "a": 2}, {"_id": 3, "a": 3}])");
  ASSERT_OK_REPLY(CreateIndexes("c", R"([{"key": {"a": 1}, "name": "a_1"}])"));
  BsonDoc stats = Run(R"({"collStats": "c"})");
  ASSERT_OK_REPLY(stats);
  EXPECT_EQ(Integer(stats, "nindexes"), 2);
  EXPECT_GT(Integer(stats, "indexSizes.a_1").value_or(0), 0);
  EXPECT_GT(Integer(stats, "totalIndexSize").value_or(0), 0);
  BsonDoc db_stats = Run(R"({"dbStats": 1})");
  EXPECT_EQ(Integer(db_stats, "indexes"), 2);
  ASSERT_OK_REPLY(Run(R"({"drop": "c"})"));
  // Re-created: no index survives the drop.
  InsertJson("c", R"([{"_id": 1, "a": 1}])");
  EXPECT_EQ(IndexNames("c"), std::vector<std::string>{"_id_"});
}

TEST_F(IndexCommandsTest, TtlMonitorParameter) {
  BsonDoc got = RunAdmin(R"({"getParameter": 1, "ttlMonitorSleepSecs": 1})");
  ASSERT_OK_REPLY(got);
  EXPECT_EQ(Integer(got, "ttlMonitorSleepSecs"), 1);
  BsonDoc set = RunAdmin(R"({"setParameter": 1, "ttlMonitorSleepSecs": 5})");
  ASSERT_OK_REPLY(set);
  EXPECT_EQ(Integer(set, "was"), 1);
  EXPECT_EQ(Integer(RunAdmin(R"({"getParameter": 1, "ttlMonitorSleepSecs": 1})"), "ttlMonitorSleepSecs"), 5);
  ASSERT_OK_REPLY(RunAdmin(R"({"setParameter": 1, "ttlMonitorSleepSecs": 1})"));
  EXPECT_ERROR_REPLY(RunAdmin(R"({"setParameter": 1, "noSuchParameter": 5})"), 72, "InvalidOptions");
  // Without --setParameter: MongoDB's default of 10 minutes.
  EXPECT_EQ(Integer(RunAdmin(R"({"getParameter": 1, "cursorTimeoutMillis": 1})"), "cursorTimeoutMillis"),
            600000);
}

}  // namespace
}  // namespace tigerdoc::e2e
