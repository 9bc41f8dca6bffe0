// The `collation` option end to end: find, count, distinct, aggregate,
// update (upsert included), delete and findAndModify compare strings under
// it; a collection's default collation (create) applies to operations and
// indexes without their own and is listed in full; indexes keep theirs
// (listIndexes, a unique index refuses collation-equal keys) and a query of
// another collation does not use them; bad specs are refused with MongoDB's
// codes.
#include <atomic>
#include <cctype>
#include <thread>

#include "tests/e2e/e2e_test_base.h"
#include "tests/e2e/icu_sort_key.h"

namespace tigerdoc::e2e {
namespace {

using testutil::CanonicalJson;
using testutil::Integer;
using testutil::Json;
using testutil::String;
using testutil::SubDoc;

constexpr char kFruit[] = R"([{"_id": 1, "name": "apple"}, {"_id": 2, "name": "Apple"},
                              {"_id": 3, "name": "APPLE"}, {"_id": 4, "name": "banana"},
                              {"_id": 5, "name": "Banana"}, {"_id": 6, "name": "cherry"}])";
constexpr char kCaseInsensitive[] = R"({"locale": "en", "strength": 2})";
constexpr char kFullEnStrength2[] =
    R"({"locale": "en", "caseLevel": false, "caseFirst": "off", "strength": 2,
        "numericOrdering": false, "alternate": "non-ignorable", "maxVariable": "punct",
        "normalization": false, "backwards": false, "version": "57.1"})";

class CollationTest : public E2eTest {
 protected:
  std::vector<int64_t> FindIds(const std::string& coll, const std::string& args) {
    BsonDoc r = Run(R"({"find": ")" + coll + R"(", )" + args + "}");
    EXPECT_OK_REPLY(r);
    return Ids(r);
  }
  std::string WinningStage(const std::string& coll, const std::string& args) {
    BsonDoc r = Run(R"({"explain": {"find": ")" + coll + R"(", )" + args +
                    R"(}, "verbosity": "queryPlanner"})");
    EXPECT_OK_REPLY(r);
    std::string json = Json(SubDoc(r, "queryPlanner.winningPlan"));
    return json.find("IXSCAN") != std::string::npos ? "IXSCAN" : "COLLSCAN";
  }
};

TEST_F(CollationTest, FindMatchesAndSortsUnderTheCollation) {
  InsertJson("f", kFruit);
  EXPECT_EQ(FindIds("f", R"("filter": {"name": "apple"})"), (std::vector<int64_t>{1}));
  EXPECT_EQ(FindIds("f", std::string(R"("filter": {"name": "apple"}, "sort": {"_id": 1}, "collation": )") +
                             kCaseInsensitive),
            (std::vector<int64_t>{1, 2, 3}));
  // $ne, $in, $nin, ranges and $elemMatch compare the same way.
  EXPECT_EQ(FindIds("f", std::string(R"("filter": {"name": {"$ne": "APPLE"}}, "sort": {"_id": 1}, "collation": )") +
                             kCaseInsensitive),
            (std::vector<int64_t>{4, 5, 6}));
  EXPECT_EQ(FindIds("f", std::string(R"("filter": {"name": {"$in": ["BANANA", "Cherry"]}}, "sort": {"_id": 1}, "collation": )") +
                             kCaseInsensitive),
            (std::vector<int64_t>{4, 5, 6}));
  EXPECT_EQ(FindIds("f", std::string(R"("filter": {"name": {"$nin": ["BANANA", "apple"]}}, "collation": )") +
                             kCaseInsensitive),
            (std::vector<int64_t>{6}));
  // Binary: every capital sorts before "a"; en: "apple" < "Banana" < "cherry".
  EXPECT_EQ(FindIds("f", R"("filter": {"name": {"$gte": "B", "$lt": "c"}}, "sort": {"_id": 1})"),
            (std::vector<int64_t>{1, 4, 5}));
  EXPECT_EQ(FindIds("f", std::string(R"("filter": {"name": {"$gte": "B", "$lt": "c"}}, "sort": {"_id": 1}, "collation": )") +
                             kCaseInsensitive),
            (std::vector<int64_t>{4, 5}));
  EXPECT_EQ(FindIds("f", R"("sort": {"name": 1, "_id": 1}, "collation": {"locale": "en"})"),
            (std::vector<int64_t>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(FindIds("f", R"("sort": {"name": 1, "_id": 1})"), (std::vector<int64_t>{3, 2, 5, 1, 4, 6}));
  InsertJson("arr", R"([{"_id": 1, "tags": ["Red", "x"]}, {"_id": 2, "tags": ["blue"]}])");
  EXPECT_EQ(FindIds("arr", std::string(R"("filter": {"tags": {"$elemMatch": {"$eq": "red"}}}, "collation": )") +
                               kCaseInsensitive),
            (std::vector<int64_t>{1}));
}

TEST_F(CollationTest, NumericOrderingSortsDigitsAsNumbers) {
  InsertJson("n", R"([{"_id": 1, "v": "10"}, {"_id": 2, "v": "9"}, {"_id": 3, "v": "100"}])");
  EXPECT_EQ(FindIds("n", R"("sort": {"v": 1})"), (std::vector<int64_t>{1, 3, 2}));
  EXPECT_EQ(FindIds("n", R"("sort": {"v": 1}, "collation": {"locale": "en", "numericOrdering": true})"),
            (std::vector<int64_t>{2, 1, 3}));
  EXPECT_EQ(FindIds("n", R"("filter": {"v": {"$gt": "9"}}, "sort": {"_id": 1}, "collation": {"locale": "en", "numericOrdering": true})"),
            (std::vector<int64_t>{1, 3}));
}

TEST_F(CollationTest, CountDistinctAndAggregateFollowTheCollation) {
  InsertJson("f", kFruit);
  BsonDoc count = Run(std::string(R"({"count": "f", "query": {"name": "APPLE"}, "collation": )") +
                      kCaseInsensitive + "}");
  ASSERT_OK_REPLY(count);
  EXPECT_EQ(Integer(count, "n"), 3);
  BsonDoc distinct = Run(std::string(R"({"distinct": "f", "key": "name", "collation": )") +
                         kCaseInsensitive + "}");
  ASSERT_OK_REPLY(distinct);
  EXPECT_EQ(testutil::ArrayLength(distinct, "values"), 3u) << Json(distinct);
  BsonDoc plain = Run(R"({"distinct": "f", "key": "name"})");
  EXPECT_EQ(testutil::ArrayLength(plain, "values"), 6u) << Json(plain);

  BsonDoc agg = Run(std::string(R"({"aggregate": "f", "pipeline": [
      {"$match": {"name": {"$in": ["apple", "banana"]}}},
      {"$group": {"_id": "$name", "n": {"$sum": 1}}}, {"$sort": {"n": -1}}],
      "cursor": {}, "collation": )") + kCaseInsensitive + "}");
  ASSERT_OK_REPLY(agg);
  std::vector<BsonDoc> groups = testutil::DocArray(agg, "cursor.firstBatch");
  ASSERT_EQ(groups.size(), 2u) << Json(agg);
  EXPECT_EQ(Integer(groups[0], "n"), 3);
  EXPECT_EQ(Integer(groups[1], "n"), 2);
  BsonDoc sorted = Run(R"({"aggregate": "f", "pipeline": [{"$sort": {"name": -1, "_id": -1}}],
                           "cursor": {}, "collation": {"locale": "en"}})");
  EXPECT_EQ(Ids(sorted), (std::vector<int64_t>{6, 5, 4, 3, 2, 1}));
  // Expression comparisons too.
  BsonDoc expr = Run(std::string(R"({"aggregate": "f", "pipeline": [
      {"$match": {"$expr": {"$eq": ["$name", "APPLE"]}}}, {"$sort": {"_id": 1}}],
      "cursor": {}, "collation": )") + kCaseInsensitive + "}");
  EXPECT_EQ(Ids(expr), (std::vector<int64_t>{1, 2, 3})) << Json(expr);
}

TEST_F(CollationTest, WritesFollowTheCollation) {
  InsertJson("f", kFruit);
  BsonDoc upd = Run(std::string(R"({"update": "f", "updates": [{"q": {"name": "APPLE"},
      "u": {"$set": {"fruit": true}}, "multi": true, "collation": )") + kCaseInsensitive + "}]}");
  ASSERT_OK_REPLY(upd);
  EXPECT_EQ(Integer(upd, "nModified"), 3) << Json(upd);
  // An upsert whose query matches under the collation updates, not inserts.
  BsonDoc ups = Run(std::string(R"({"update": "f", "updates": [{"q": {"name": "CHERRY"},
      "u": {"$set": {"seen": 1}}, "upsert": true, "collation": )") + kCaseInsensitive + "}]}");
  ASSERT_OK_REPLY(ups);
  EXPECT_EQ(Integer(ups, "n"), 1);
  EXPECT_FALSE(testutil::Has(ups, "upserted")) << Json(ups);
  BsonDoc fam = Run(std::string(R"({"findAndModify": "f", "query": {"name": "BANANA"},
      "sort": {"_id": -1}, "update": {"$set": {"picked": 1}}, "new": true, "collation": )") +
                    kCaseInsensitive + "}");
  ASSERT_OK_REPLY(fam);
  EXPECT_EQ(Integer(fam, "value._id"), 5) << Json(fam);
  BsonDoc del = Run(std::string(R"({"delete": "f", "deletes": [{"q": {"name": "aPPle"}, "limit": 0,
      "collation": )") + kCaseInsensitive + "}]}");
  ASSERT_OK_REPLY(del);
  EXPECT_EQ(Integer(del, "n"), 3);
  EXPECT_EQ(FindIds("f", R"("sort": {"_id": 1})"), (std::vector<int64_t>{4, 5, 6}));
}

TEST_F(CollationTest, CollectionDefaultIsListedInFullAndInherited) {
  ASSERT_OK_REPLY(Run(std::string(R"({"create": "d", "collation": )") + kCaseInsensitive + "}"));
  BsonDoc list = Run(R"({"listCollections": 1, "filter": {"name": "d"}})");
  ASSERT_OK_REPLY(list);
  EXPECT_EQ(CanonicalJson(SubDoc(testutil::DocArray(list, "cursor.firstBatch")[0], "options.collation")),
            CanonicalJson(kFullEnStrength2))
      << Json(list);
  InsertJson("d", kFruit);
  EXPECT_EQ(FindIds("d", R"("filter": {"name": "APPLE"}, "sort": {"_id": 1})"),
            (std::vector<int64_t>{1, 2, 3}));
  // An explicit simple collation overrides the default.
  EXPECT_EQ(FindIds("d", R"("filter": {"name": "APPLE"}, "collation": {"locale": "simple"})"),
            (std::vector<int64_t>{3}));
  // A new index takes the default; one with {locale: "simple"} stays simple.
  ASSERT_OK_REPLY(Run(R"({"createIndexes": "d", "indexes": [{"key": {"name": 1}, "name": "name_1"},
      {"key": {"name": -1}, "name": "plain", "collation": {"locale": "simple"}}]})"));
  BsonDoc indexes = Run(R"({"listIndexes": "d"})");
  ASSERT_OK_REPLY(indexes);
  std::vector<BsonDoc> specs = testutil::DocArray(indexes, "cursor.firstBatch");
  ASSERT_EQ(specs.size(), 3u);
  EXPECT_EQ(CanonicalJson(SubDoc(specs[1], "collation")), CanonicalJson(kFullEnStrength2)) << Json(indexes);
  EXPECT_FALSE(testutil::Has(specs[2], "collation")) << Json(indexes);
  // A query without a collation has the default's, and so reads name_1.
  EXPECT_EQ(WinningStage("d", R"("filter": {"name": "APPLE"}, "hint": "name_1")"), "IXSCAN");
  EXPECT_EQ(WinningStage("d", R"("filter": {"name": "APPLE"})"), "IXSCAN");
  EXPECT_EQ(FindIds("d", R"("filter": {"name": "APPLE"}, "hint": "name_1", "sort": {"_id": 1})"),
            (std::vector<int64_t>{1, 2, 3}));
  // Creating it again with the same spec is a no-op, also across the normalization.
  BsonDoc again = Run(R"({"create": "d", "collation": {"strength": 2, "locale": "en"}})");
  EXPECT_OK_REPLY(again);
}

TEST_F(CollationTest, CollatedIndexKeysAndWhichQueriesUseIt) {
  ASSERT_OK_REPLY(Run(std::string(R"({"createIndexes": "i", "indexes": [{"key": {"name": 1},
      "name": "ci", "unique": true, "collation": )") + kCaseInsensitive + "}]}"));
  InsertJson("i", R"([{"_id": 1, "name": "apple"}, {"_id": 2, "name": "Banana"}])");
  // The unique index compares keys under its collation: "APPLE" is "apple".
  BsonDoc dup = Run(R"({"insert": "i", "documents": [{"_id": 3, "name": "APPLE"}]})");
  ASSERT_OK_REPLY(dup);
  EXPECT_EQ(Integer(dup, "writeErrors.0.code"), 11000) << Json(dup);
  // A string query of another collation (here: simple) must not read the
  // collated keys.
  EXPECT_EQ(WinningStage("i", R"("filter": {"name": {"$gte": "B"}})"), "COLLSCAN");
  EXPECT_EQ(FindIds("i", R"("filter": {"name": {"$gte": "B"}}, "sort": {"_id": 1})"),
            (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(FindIds("i", std::string(R"("filter": {"name": "BANANA"}, "collation": )") + kCaseInsensitive),
            (std::vector<int64_t>{2}));
  // A query of the index's collation reads it: equality, ranges, $in, and
  // prefix regexes (which scan every string of it and filter).
  const std::string ci = std::string(R"(, "collation": )") + kCaseInsensitive;
  EXPECT_EQ(WinningStage("i", R"("filter": {"name": "BANANA"})" + ci), "IXSCAN");
  EXPECT_EQ(WinningStage("i", R"("filter": {"name": {"$gte": "b"}})" + ci), "IXSCAN");
  EXPECT_EQ(FindIds("i", R"("filter": {"name": {"$gte": "b"}})" + ci), (std::vector<int64_t>{2}));
  EXPECT_EQ(FindIds("i", R"("filter": {"name": {"$lt": "B"}})" + ci), (std::vector<int64_t>{1}));
  EXPECT_EQ(FindIds("i", R"("filter": {"name": {"$in": ["APPLE", "banana"]}}, "sort": {"_id": 1})" + ci),
            (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(FindIds("i", R"("filter": {"name": {"$regex": "^B"}})" + ci), (std::vector<int64_t>{2}));
  EXPECT_EQ(FindIds("i", R"("filter": {"name": {"$regex": "^b"}})" + ci), (std::vector<int64_t>{}));
  // The index provides the collated sort.
  EXPECT_EQ(FindIds("i", R"("filter": {"name": {"$gt": ""}}, "sort": {"name": -1})" + ci),
            (std::vector<int64_t>{2, 1}));
  BsonDoc explain = Run(R"({"explain": {"find": "i", "filter": {"name": "apple"})" + ci +
                        R"(}, "verbosity": "queryPlanner"})");
  ASSERT_OK_REPLY(explain);
  EXPECT_NE(Json(explain).find("\"collation\" : { \"locale\" : \"en\""), std::string::npos) << Json(explain);
  // Another non-simple collation does not use it either.
  EXPECT_EQ(WinningStage("i", R"("filter": {"name": "BANANA"}, "collation": {"locale": "en", "strength": 1})"),
            "COLLSCAN");
  EXPECT_EQ(FindIds("i", R"("filter": {"name": "BANANA"}, "collation": {"locale": "en", "strength": 1})"),
            (std::vector<int64_t>{2}));
}

TEST_F(CollationTest, BadSpecsAreRefusedWithMongoDBsCodes) {
  InsertJson("f", kFruit);
  BsonDoc r = Run(R"({"find": "f", "collation": {"locale": "xx"}})");
  EXPECT_EQ(Integer(r, "code"), 2) << Json(r);
  EXPECT_EQ(String(r, "errmsg"), "Field 'locale' is invalid in: { locale: \"xx\" }");
  r = Run(R"({"find": "f", "collation": {"strength": 2}})");
  EXPECT_EQ(Integer(r, "code"), 40414) << Json(r);
  r = Run(R"({"find": "f", "collation": "en"})");
  EXPECT_EQ(Integer(r, "code"), 14) << Json(r);
  r = Run(R"({"aggregate": "f", "pipeline": [], "cursor": {}, "collation": {"locale": "en", "strength": 6}})");
  EXPECT_EQ(Integer(r, "code"), 51024) << Json(r);
  r = Run(R"({"count": "f", "collation": {"locale": "en", "bogus": true}})");
  EXPECT_EQ(Integer(r, "code"), 40415) << Json(r);
  r = Run(R"({"create": "bad", "collation": {"locale": "en", "caseFirst": "sideways"}})");
  EXPECT_EQ(Integer(r, "code"), 2) << Json(r);
  r = Run(R"({"createIndexes": "f", "indexes": [{"key": {"a": 1}, "name": "a_1", "collation": {"locale": "nope"}}]})");
  EXPECT_EQ(Integer(r, "code"), 2) << Json(r);
  // In a write command a bad collation fails its statement only.
  r = Run(R"({"update": "f", "updates": [{"q": {}, "u": {"$set": {"x": 1}}, "collation": {"locale": "xx"}}]})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "writeErrors.0.code"), 2) << Json(r);
  r = Run(R"({"delete": "f", "deletes": [{"q": {}, "limit": 0, "collation": {}}]})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "writeErrors.0.code"), 40414) << Json(r);
  // Nothing was written, and the server serves on.
  BsonDoc count = Run(R"({"count": "f"})");
  EXPECT_EQ(Integer(count, "n"), 6);
}

TEST_F(CollationTest, ViewsRefuseAnotherCollation) {
  InsertJson("f", kFruit);
  ASSERT_OK_REPLY(Run(R"({"create": "v", "viewOn": "f", "pipeline": []})"));
  BsonDoc r = Run(std::string(R"({"find": "v", "filter": {}, "collation": )") + kCaseInsensitive + "}");
  EXPECT_EQ(Integer(r, "code"), 167) << Json(r);
  EXPECT_EQ(String(r, "errmsg"), "Cannot override a view's default collation");
  r = Run(std::string(R"({"aggregate": "v", "pipeline": [], "cursor": {}, "collation": )") + kCaseInsensitive + "}");
  EXPECT_EQ(Integer(r, "code"), 167) << Json(r);
  r = Run(R"({"count": "v", "query": {"name": "apple"}, "collation": {"locale": "simple"}})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "n"), 1);
}

TEST_F(CollationTest, ConcurrentCollatedQueriesFromSeveralConnections) {
  InsertJson("f", kFruit);
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      MongoClient client(server_->uri());
      const std::string strength = std::to_string(1 + t % 3);
      for (int i = 0; i < 50; ++i) {
        BsonDoc r = client.RunCommand(
            db_, R"({"count": "f", "query": {"name": "apple"}, "collation": {"locale": "en", "strength": )" +
                     strength + "}}");
        const int64_t expected = t % 3 == 2 ? 1 : 3;
        if (Integer(r, "n") != expected) ++wrong;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST_F(CollationTest, ViewCollationIsItsReadsDefaultAndSurvivesRestart) {
  InsertJson("f", kFruit);
  ASSERT_OK_REPLY(Run(std::string(R"({"create": "ci", "viewOn": "f", "pipeline": [], "collation": )") +
                      kCaseInsensitive + "}"));
  EXPECT_EQ(FindIds("ci", R"("filter": {"name": "APPLE"}, "sort": {"_id": 1})"),
            (std::vector<int64_t>{1, 2, 3}));
  // A view over it without the same collation is refused.
  BsonDoc r = Run(R"({"create": "onCi", "viewOn": "ci", "pipeline": []})");
  EXPECT_EQ(Integer(r, "code"), 167) << Json(r);
  EXPECT_EQ(String(r, "errmsg"),
            "View " + db_ + ".onCi has conflicting collation with view " + db_ + ".ci");
  client_.reset();
  ASSERT_TRUE(server_->Stop().ok());
  ASSERT_TRUE(server_->Restart().ok());
  client_ = std::make_unique<MongoClient>(server_->uri());
  EXPECT_EQ(FindIds("ci", R"("filter": {"name": "APPLE"}, "sort": {"_id": 1})"),
            (std::vector<int64_t>{1, 2, 3}));
  r = Run(R"({"listCollections": 1, "filter": {"name": "ci"}})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(CanonicalJson(SubDoc(r, "cursor.firstBatch.0.options.collation")), CanonicalJson(kFullEnStrength2));
  r = Run(R"({"find": "ci", "collation": {"locale": "simple"}})");
  EXPECT_EQ(Integer(r, "code"), 167) << Json(r);
  EXPECT_EQ(Integer(Run(R"({"create": "onCi", "viewOn": "ci", "pipeline": []})"), "code"), 167);
}

// MongoDB's _id index takes the collection's default collation: _id values
// equal under it collide (E11000 naming the index's collation), and stay
// unique after a restart; other collations' equality is not a collision.
TEST_F(CollationTest, IdIsUniqueUnderTheCollectionsDefaultCollation) {
  ASSERT_OK_REPLY(Run(std::string(R"({"create": "ids", "collation": )") + kCaseInsensitive + "}"));
  InsertJson("ids", R"([{"_id": "a", "n": 1}, {"_id": "b", "n": 2}, {"_id": 1, "n": 3},
                        {"_id": {"k": "x"}, "n": 4}])");
  auto insert_one = [&](const std::string& doc) {
    return Run(R"({"insert": "ids", "documents": [)" + doc + "]}");
  };
  BsonDoc r = insert_one(R"({"_id": "A", "n": 5})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "n"), 0);
  EXPECT_EQ(Integer(r, "writeErrors.0.code"), 11000) << Json(r);
  EXPECT_EQ(String(r, "writeErrors.0.errmsg"),
            "E11000 duplicate key error collection: " + db_ + ".ids index: _id_ collation: { locale: \"en\", "
            "caseLevel: false, caseFirst: \"off\", strength: 2, numericOrdering: false, alternate: "
            "\"non-ignorable\", maxVariable: \"punct\", normalization: false, backwards: false, version: "
            "\"57.1\" } dup key: { _id: \"0x" + IcuSortKeyHex("en", 2, "A") + "\" }");
  // The _id index stores collation keys, and reports them hex encoded.
  EXPECT_EQ(CanonicalJson(SubDoc(r, "writeErrors.0.keyValue")),
            CanonicalJson(R"({"_id": ")" + IcuSortKeyHex("en", 2, "a") + R"("})"));
  // Strings inside a document _id compare under it too; numbers as ever.
  EXPECT_EQ(Integer(insert_one(R"({"_id": {"k": "X"}})"), "writeErrors.0.code"), 11000);
  EXPECT_EQ(Integer(insert_one(R"({"_id": 1.0})"), "writeErrors.0.code"), 11000);
  EXPECT_EQ(Integer(insert_one(R"({"_id": "á"})"), "n"), 1);  // strength 2 keeps accents apart
  // Queries on _id use the same equality: the collection's by default.
  EXPECT_EQ(Integer(Run(R"({"count": "ids", "query": {"_id": "B"}})"), "n"), 1);
  EXPECT_EQ(Integer(Run(R"({"count": "ids", "query": {"_id": "B"}, "collation": {"locale": "simple"}})"), "n"), 0);
  r = Run(R"({"find": "ids", "filter": {"_id": "A"}})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(String(r, "cursor.firstBatch.0._id"), "a");
  EXPECT_EQ(Integer(Run(R"({"count": "ids", "query": {"_id": {"$in": ["A", "B", "c"]}}})"), "n"), 2);
  // An upsert of an _id equal under the collation updates the stored one.
  r = Run(R"({"update": "ids", "updates": [{"q": {"_id": "B"}, "u": {"$set": {"up": 1}}, "upsert": true}]})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "n"), 1);
  EXPECT_FALSE(testutil::Has(r, "upserted")) << Json(r);
  // Removing the document frees its collated key.
  ASSERT_OK_REPLY(Run(R"({"delete": "ids", "deletes": [{"q": {"_id": "a"}, "limit": 1}]})"));
  EXPECT_EQ(Integer(insert_one(R"({"_id": "A", "n": 6})"), "n"), 1);
  // The keys are durable: still unique after a restart.
  client_.reset();
  ASSERT_TRUE(server_->Stop().ok());
  ASSERT_TRUE(server_->Restart().ok());
  client_ = std::make_unique<MongoClient>(server_->uri());
  EXPECT_EQ(Integer(insert_one(R"({"_id": "a"})"), "writeErrors.0.code"), 11000);
  EXPECT_EQ(Integer(insert_one(R"({"_id": "B"})"), "writeErrors.0.code"), 11000);
  ASSERT_OK_REPLY(Run(R"({"validate": "ids"})"));
  EXPECT_EQ(Integer(Run(R"({"count": "ids"})"), "n"), 5);
  // Strength 3 tells case apart: no collision there.
  ASSERT_OK_REPLY(Run(R"({"create": "cs", "collation": {"locale": "en", "strength": 3}})"));
  InsertJson("cs", R"([{"_id": "a"}, {"_id": "A"}])");
  // A collection without a default collation compares _id by bytes.
  InsertJson("plainIds", R"([{"_id": "a"}, {"_id": "A"}])");
  // Renamed, the collection keeps the rule.
  ASSERT_OK_REPLY(RunAdmin(R"({"renameCollection": ")" + db_ + R"(.ids", "to": ")" + db_ + R"(.ids2"})"));
  EXPECT_EQ(Integer(Run(R"({"insert": "ids2", "documents": [{"_id": "b"}]})"), "writeErrors.0.code"), 11000);
}

TEST_F(CollationTest, CollatedIdUniquenessHoldsAcrossConcurrentInserts) {
  ASSERT_OK_REPLY(Run(std::string(R"({"create": "race", "collation": )") + kCaseInsensitive + "}"));
  constexpr int kKeys = 100;
  constexpr int kThreads = 4;
  std::atomic<int> inserted{0}, duplicates{0}, other{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      MongoClient client(server_->uri());
      for (int i = 0; i < kKeys; ++i) {
        // Every thread spells key i in its own case.
        std::string id = "key" + std::to_string(i);
        for (size_t c = 0; c < id.size(); ++c) {
          if ((t >> (c % 2)) & 1) id[c] = static_cast<char>(std::toupper(id[c]));
        }
        BsonDoc r = client.RunCommand(db_, R"({"insert": "race", "documents": [{"_id": ")" + id + R"("}]})");
        if (Integer(r, "n") == 1) {
          ++inserted;
        } else if (Integer(r, "writeErrors.0.code") == 11000 &&
                   String(r, "writeErrors.0.keyValue._id") == IcuSortKeyHex("en", 2, id)) {
          ++duplicates;  // each reports its collation key, whichever thread won
        } else {
          ++other;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(inserted.load(), kKeys);
  EXPECT_EQ(duplicates.load(), kKeys * (kThreads - 1));
  EXPECT_EQ(other.load(), 0);
  EXPECT_EQ(Integer(Run(R"({"count": "race"})"), "n"), kKeys);
}

}  // namespace
}  // namespace tigerdoc::e2e
