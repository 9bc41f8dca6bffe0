// Sorted index builds (engine/index_builder.h) through the real server:
// every supported index kind (2dsphere is refused) built over 24,000 varied documents, with the sort
// spilling, answers hinted queries exactly like a collection scan and
// validates, also after kill -9 right after createIndexes replied; unique
// duplicates found while merging spilled runs give mongod's E11000; readers
// run during a build and writers on several connections after it.

#include <atomic>
#include <filesystem>
#include <regex>
#include <thread>

#include "tests/e2e/icu_sort_key.h"
#include "tests/e2e/index_test_base.h"

namespace tigerdoc::e2e {
namespace {

using testutil::Integer;
using testutil::Json;
using testutil::String;

constexpr int kDocuments = 24000;

class SortedIndexBuildE2eTest : public IndexE2eTest {
 protected:
  void TearDown() override {
    RunAdmin(R"({"setParameter": 1, "internalIndexBuildMemoryLimitBytesForTest": 0})");
    IndexE2eTest::TearDown();
  }

  void SetBuildMemoryBytes(int64_t bytes) {
    ASSERT_OK_REPLY(RunAdmin(R"({"setParameter": 1, "internalIndexBuildMemoryLimitBytesForTest": )" +
                             std::to_string(bytes) + "}"));
  }

  // Document i of the varied set: every indexed kind of field, arrays
  // included; `sp` only on every fourth document.
  static std::string Document(int i) {
    std::string d = R"({"_id": )" + std::to_string(i) + R"(, "g": )" + std::to_string(i % 997) +
                    R"(, "s": "k)" + std::to_string(i) + R"(", "tags": [)" + std::to_string(i % 7) +
                    ", " + std::to_string(100 + i % 11) + R"(], "h": )" + std::to_string(i % 50) +
                    R"(, "name": ")" + (i % 3 == 0 ? "ABC" : "abc") + std::to_string(i % 100) +
                    R"(", "p": )" + std::to_string(i % 10) + R"(, "loc": {"type": "Point", "coordinates": [)" +
                    std::to_string(i % 360 - 180) + ", " + std::to_string(i % 170 - 85) +
                    R"(]}, "txt": "word)" + std::to_string(i % 13) + R"( common", "w": {"a": )" +
                    std::to_string(i % 5) + R"(, "b": [)" + std::to_string(i % 3) + "]}";
    if (i % 4 == 0) d += R"(, "sp": )" + std::to_string(i % 9);
    return d + "}";
  }

  void Fill(const std::string& coll, int from, int to) {
    for (int start = from; start < to; start += 1000) {
      std::string docs = "[";
      for (int i = start; i < std::min(to, start + 1000); ++i) {
        docs += (i > start ? "," : "") + Document(i);
      }
      InsertJson(coll, docs + "]");
    }
  }

  static constexpr const char* kSpecs = R"([
      {"key": {"g": 1}, "name": "g_1"},
      {"key": {"s": 1}, "name": "s_1", "unique": true},
      {"key": {"tags": 1, "g": -1}, "name": "tags_g"},
      {"key": {"h": "hashed"}, "name": "h_hashed"},
      {"key": {"name": 1}, "name": "name_ci", "collation": {"locale": "en", "strength": 2}},
      {"key": {"p": 1}, "name": "p_partial", "partialFilterExpression": {"p": {"$gt": 5}}},
      {"key": {"sp": 1}, "name": "sp_sparse", "sparse": true},
      {"key": {"txt": "text"}, "name": "txt_text"},
      {"key": {"w.$**": 1}, "name": "w_wild"}])";

  int64_t HintedCount(const std::string& coll, const std::string& filter, const std::string& hint,
                      const std::string& extra = "") {
    BsonDoc r = Run(R"({"count": ")" + coll + R"(", "query": )" + filter + R"(, "hint": )" + hint +
                    extra + "}");
    EXPECT_TRUE(testutil::IsOk(r)) << Json(r) << " for " << filter << " hint " << hint;
    return Integer(r, "n").value_or(-1);
  }

  // Every index answers like a collection scan; validate finds no fault.
  void ExpectIndexesAnswerLikeAScan(const std::string& coll, int64_t documents) {
    struct Probe {
      const char* filter;
      const char* index;
      const char* extra;
    };
    const Probe probes[] = {
        {R"({"g": {"$lt": 100}})", R"("g_1")", ""},
        {R"({"s": {"$gte": "k2"}})", R"("s_1")", ""},
        {R"({"tags": 3})", R"("tags_g")", ""},
        {R"({"tags": {"$gte": 105}, "g": {"$gt": 500}})", R"("tags_g")", ""},
        {R"({"h": 7})", R"("h_hashed")", ""},
        {R"({"name": "abc5"})", R"("name_ci")", R"(, "collation": {"locale": "en", "strength": 2})"},
        {R"({"p": {"$gt": 7}})", R"("p_partial")", ""},
        {R"({"sp": {"$gte": 3}})", R"("sp_sparse")", ""},
        {R"({"w.a": 2})", R"("w_wild")", ""},
        {R"({"w.b": 1})", R"("w_wild")", ""},
    };
    for (const Probe& probe : probes) {
      const int64_t scanned = HintedCount(coll, probe.filter, R"({"$natural": 1})", probe.extra);
      EXPECT_GT(scanned, 0) << probe.filter;
      EXPECT_EQ(HintedCount(coll, probe.filter, probe.index, probe.extra), scanned) << probe.filter;
    }
    // Text: "word3" is in every 13th document.
    EXPECT_EQ(Count(coll, R"({"$text": {"$search": "word3"}})"),
              Count(coll, R"({"txt": {"$regex": "^word3 "}})"));
    EXPECT_EQ(Count(coll), documents);
    BsonDoc v = Run(R"({"validate": ")" + coll + R"(", "full": true})");
    ASSERT_OK_REPLY(v);
    std::optional<bson_iter_t> valid = testutil::Lookup(v, "valid");
    EXPECT_TRUE(valid && bson_iter_as_bool(&*valid)) << Json(v);
    EXPECT_EQ(Integer(v, "nIndexes"), 10) << Json(v);
  }

  // Files the sort left in <dbpath>/_tmp (its spill files are unnamed).
  size_t TempFiles() {
    std::error_code ec;
    size_t n = 0;
    for (auto it = std::filesystem::directory_iterator(server_->dbpath() + "/_tmp", ec);
         !ec && it != std::filesystem::directory_iterator(); ++it) {
      ++n;
    }
    return n;
  }
};

TEST_F(SortedIndexBuildE2eTest, EveryKindBuiltWithSpillsSurvivesKillNineRightAfterTheReply) {
  Fill("c", 0, kDocuments);
  SetBuildMemoryBytes(64 * 1024);  // ~2 MB of keys per index: dozens of sorted runs
  BsonDoc r = CreateIndexes("c", kSpecs);
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "numIndexesAfter"), 10);
  // The sort spilled and every table was bulk loaded (the path under test).
  const std::string log = server_->LogTail(1 << 20);
  EXPECT_TRUE(std::regex_search(log, std::regex(R"("index" : "g_1", "keysInserted" : 24000, "spilledRuns" : [1-9][0-9]*, "bulkLoadedTables" : 4, "insertedTables" : 0)")))
      << log.substr(log.size() > 3000 ? log.size() - 3000 : 0);
  EXPECT_TRUE(std::regex_search(log, std::regex(R"("index" : "s_1", "keysInserted" : 24000, "spilledRuns" : [1-9][0-9]*, "bulkLoadedTables" : 1, "insertedTables" : 0)")));
  RestartAndReconnect(Shutdown::kKill9);
  ExpectIndexesAnswerLikeAScan("c", kDocuments);
  EXPECT_EQ(TempFiles(), 0u);
  // Writes after the restart keep every index exact.
  Fill("c", kDocuments, kDocuments + 2000);
  ExpectIndexesAnswerLikeAScan("c", kDocuments + 2000);
  BsonDoc dup = Run(R"({"insert": "c", "documents": [{"_id": -1, "s": "k17"}]})");
  EXPECT_EQ(testutil::DocArray(dup, "writeErrors").size(), 1u) << Json(dup);
}

TEST_F(SortedIndexBuildE2eTest, UniqueDuplicatesFoundWhileMergingSpilledRuns) {
  Fill("d", 0, kDocuments);
  // The duplicate of k5 is the last document scanned: far apart, in different runs.
  InsertJson("d", R"([{"_id": 999999, "s": "k5"}])");
  for (int64_t bytes : {int64_t{4096}, int64_t{0}}) {  // many runs, then all in memory
    SetBuildMemoryBytes(bytes);
    BsonDoc r = CreateIndexes("d", R"([{"key": {"g": 1}, "name": "g_1"},
                                       {"key": {"s": 1}, "name": "s_1", "unique": true}])");
    EXPECT_ERROR_REPLY(r, 11000, "DuplicateKey");
    EXPECT_EQ(String(r, "errmsg").value_or(""),
              "E11000 duplicate key error collection: " + db_ + ".d index: s_1 dup key: { s: \"k5\" }")
        << Json(r);
    EXPECT_EQ(IndexNames("d"), std::vector<std::string>{"_id_"});
    EXPECT_EQ(TempFiles(), 0u);
  }
  // A collation makes "K7" a duplicate of "k7": the index holds their one
  // collation key, which the error reports hex encoded (as mongod 7).
  ASSERT_OK_REPLY(Run(R"({"delete": "d", "deletes": [{"q": {"_id": 999999}, "limit": 1}]})"));
  InsertJson("d", R"([{"_id": 999998, "s": "K7"}])");
  SetBuildMemoryBytes(4096);
  BsonDoc r = CreateIndexes("d", R"([{"key": {"s": 1}, "name": "s_ci", "unique": true,
                                      "collation": {"locale": "en", "strength": 2}}])");
  EXPECT_ERROR_REPLY(r, 11000, "DuplicateKey");
  const std::string reported = IcuSortKeyHex("en", 2, "k7");
  EXPECT_EQ(String(r, "keyValue.s"), reported) << Json(r);
  EXPECT_EQ(testutil::CanonicalJson(testutil::SubDoc(r, "hexEncoded")), testutil::CanonicalJson(R"({"0": true})"))
      << Json(r);
  EXPECT_NE(String(r, "errmsg").value_or("").find("strength: 2, numericOrdering: false, alternate: "
                                                  "\"non-ignorable\", maxVariable: \"punct\", normalization: "
                                                  "false, backwards: false, version: \"57.1\" } dup key: { s: \"0x" +
                                                  reported + "\" }"),
            std::string::npos)
      << Json(r);
  ASSERT_OK_REPLY(CreateIndexes("d", R"([{"key": {"s": 1}, "name": "s_1", "unique": true}])"));
  EXPECT_EQ(HintedCount("d", R"({"s": {"$gte": "k"}})", R"("s_1")"), kDocuments);
}

TEST_F(SortedIndexBuildE2eTest, ReadersDuringTheBuildAndWritersOnSeveralConnectionsAfter) {
  Fill("c", 0, kDocuments);
  InsertJson("other", R"([{"_id": 1}, {"_id": 2}])");
  SetBuildMemoryBytes(256 * 1024);
  std::atomic<bool> building{true};
  std::atomic<int> reads{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 3; ++t) {
    readers.emplace_back([&, t] {
      MongoClient client(server_->uri());
      const std::string coll = t == 0 ? "other" : "c";
      const int64_t expected = t == 0 ? 2 : kDocuments;
      while (building.load()) {
        BsonDoc r = client.RunCommand(db_, R"({"count": ")" + coll + R"(", "query": {}})");
        EXPECT_EQ(Integer(r, "n"), expected) << Json(r);
        ++reads;
      }
    });
  }
  BsonDoc built = CreateIndexes("c", kSpecs);
  building = false;
  for (auto& t : readers) t.join();
  ASSERT_OK_REPLY(built);
  EXPECT_GT(reads.load(), 0);
  // Four connections insert and update at once through the new indexes.
  std::vector<std::thread> writers;
  for (int t = 0; t < 4; ++t) {
    writers.emplace_back([&, t] {
      MongoClient client(server_->uri());
      for (int i = 0; i < 250; ++i) {
        const int id = kDocuments + t * 250 + i;
        BsonDoc r = client.RunCommand(db_, R"({"insert": "c", "documents": [)" + Document(id) + "]}");
        EXPECT_TRUE(testutil::IsOk(r) && !testutil::Has(r, "writeErrors")) << Json(r);
        const int old = t * 1000 + i;
        r = client.RunCommand(db_, R"({"update": "c", "updates": [{"q": {"_id": )" + std::to_string(old) +
                                       R"(}, "u": {"$set": {"g": 5, "tags": [1, 2, 3], "w.a": 9}}}]})");
        EXPECT_TRUE(testutil::IsOk(r) && !testutil::Has(r, "writeErrors")) << Json(r);
      }
    });
  }
  for (auto& t : writers) t.join();
  ExpectIndexesAnswerLikeAScan("c", kDocuments + 1000);
  EXPECT_EQ(HintedCount("c", R"({"w.a": 9})", R"("w_wild")"), 1000);
}

TEST_F(SortedIndexBuildE2eTest, MaxIndexBuildMemoryUsageMegabytesIsMongodsParameter) {
  BsonDoc got = RunAdmin(R"({"getParameter": 1, "maxIndexBuildMemoryUsageMegabytes": 1})");
  ASSERT_OK_REPLY(got);
  EXPECT_EQ(Integer(got, "maxIndexBuildMemoryUsageMegabytes"), 200);
  BsonDoc low = RunAdmin(R"({"setParameter": 1, "maxIndexBuildMemoryUsageMegabytes": 49})");
  EXPECT_ERROR_REPLY(low, 2, "BadValue");
  EXPECT_EQ(String(low, "errmsg").value_or(""),
            "Invalid value for parameter maxIndexBuildMemoryUsageMegabytes: 49 is not greater than or "
            "equal to 50");
  BsonDoc set = RunAdmin(R"({"setParameter": 1, "maxIndexBuildMemoryUsageMegabytes": 50})");
  ASSERT_OK_REPLY(set);
  EXPECT_EQ(Integer(set, "was"), 200);
  // A build still works at the floor, and the default comes back.
  Fill("c", 0, 3000);
  ASSERT_OK_REPLY(CreateIndexes("c", R"([{"key": {"g": 1}, "name": "g_1"}])"));
  EXPECT_EQ(HintedCount("c", R"({"g": {"$lt": 10}})", R"("g_1")"), 39);  // g < 10: i in [0, 10), [997, 1007), [1994, 2004), [2991, 3000)
  ASSERT_OK_REPLY(RunAdmin(R"({"setParameter": 1, "maxIndexBuildMemoryUsageMegabytes": 200})"));
}

}  // namespace
}  // namespace tigerdoc::e2e
