// find {_id: v} without a query plan (engine/id_point_read.h): the answer
// must equal the planner's for every value, the fast path must step aside
// for what it does not handle (batchSize 0, projections, collations,
// secondary indexes, values with their own equality), and $indexStats must
// count one _id index use per find, as the plan's point read did.
//
// The planner's answer is {_id: {$eq: v}}, which the fast path never takes
// (its filter is not exactly {_id: <scalar>}).

#include <bson/bson.h>

#include <string>
#include <thread>
#include <vector>

#include "tests/e2e/e2e_test_base.h"

namespace tigerdoc::e2e {
namespace {

using testutil::CanonicalJson;
using testutil::DocArray;
using testutil::Integer;
using testutil::Json;
using testutil::String;

class FindByIdTest : public E2eTest {
 protected:
  // firstBatch of find with `filter` (relaxed JSON) and extra fields, as
  // canonical JSON of the array, and the cursor id.
  std::string Batch(const std::string& coll, const std::string& filter, const std::string& extra = "",
                    int64_t* cursor_id = nullptr) {
    BsonDoc r = Run(R"({"find": ")" + coll + R"(", "filter": )" + filter + extra + "}");
    EXPECT_OK_REPLY(r);
    if (cursor_id != nullptr) *cursor_id = Integer(r, "cursor.id").value_or(-1);
    std::string out;
    for (const BsonDoc& d : DocArray(r, "cursor.firstBatch")) out += CanonicalJson(d) + ";";
    return out;
  }

  int64_t IdIndexOps(const std::string& coll) {
    BsonDoc r = Run(R"({"aggregate": ")" + coll + R"(", "pipeline": [{"$indexStats": {}}], "cursor": {}})");
    EXPECT_OK_REPLY(r);
    for (const BsonDoc& d : DocArray(r, "cursor.firstBatch")) {
      if (String(d, "name") == "_id_") return Integer(d, "accesses.ops").value_or(-1);
    }
    return -1;
  }
};

TEST_F(FindByIdTest, EveryValueAnswersAsThePlannedQuery) {
  InsertJson("c", R"([
      {"_id": 1, "t": "int"}, {"_id": {"$numberLong": "2"}, "t": "long"}, {"_id": 3.0, "t": "double"},
      {"_id": 4.5, "t": "fraction"}, {"_id": "s", "t": "string"}, {"_id": "S", "t": "upper"},
      {"_id": "", "t": "empty"}, {"_id": {"$oid": "0123456789abcdef01234567"}, "t": "oid"},
      {"_id": {"a": 1}, "t": "document"}, {"_id": null, "t": "null"},
      {"_id": {"$numberLong": "9007199254740993"}, "t": "2^53+1"}, {"_id": -0.0, "t": "minus zero"}])");
  const std::vector<std::string> values = {
      "1", R"({"$numberLong": "1"})", "1.0", "2", "2.0", R"({"$numberLong": "2"})", "3",
      R"({"$numberInt": "3"})", "4.5", "4", "\"s\"", "\"S\"", "\"x\"", "\"\"",
      R"({"$oid": "0123456789abcdef01234567"})", R"({"$oid": "0123456789abcdef01234568"})",
      R"({"a": 1})", "null", R"({"$numberDouble": "NaN"})", "9007199254740992.0",
      R"({"$numberLong": "9007199254740993"})", R"({"$numberLong": "9007199254740992"})", "0",
      "-0.0", "1e300", R"({"$numberDecimal": "1"})", "true"};
  for (const std::string& v : values) {
    const std::string planned = Batch("c", R"({"_id": {"$eq": )" + v + "}}");
    int64_t cursor = -1;
    EXPECT_EQ(Batch("c", R"({"_id": )" + v + "}", "", &cursor), planned) << "_id: " << v;
    EXPECT_EQ(cursor, 0) << "_id: " << v;
    EXPECT_EQ(Batch("c", R"({"_id": )" + v + "}", R"(, "limit": 1, "singleBatch": true)"), planned)
        << "_id: " << v;
  }
  EXPECT_EQ(Batch("c", R"({"_id": 4.5})"), CanonicalJson(R"({"_id": 4.5, "t": "fraction"})") + ";");
  EXPECT_EQ(Batch("missing_collection", R"({"_id": 1})"), "");
}

TEST_F(FindByIdTest, OptionsTheFastPathLeavesToThePlanner) {
  InsertJson("c", R"([{"_id": 1, "x": 10, "y": 20}, {"_id": 2, "x": 11}])");
  // batchSize 0: an open cursor with nothing in it; the document comes with getMore.
  int64_t cursor = 0;
  EXPECT_EQ(Batch("c", R"({"_id": 1})", R"(, "batchSize": 0)", &cursor), "");
  ASSERT_NE(cursor, 0);
  BsonDoc more = GetMore(cursor, "c");
  EXPECT_OK_REPLY(more);
  ASSERT_EQ(DocArray(more, "cursor.nextBatch").size(), 1u) << Json(more);
  EXPECT_EQ(Batch("c", R"({"_id": 1})", R"(, "projection": {"y": 0})"),
            CanonicalJson(R"({"_id": 1, "x": 10})") + ";");
  EXPECT_EQ(Batch("c", R"({"_id": 1})", R"(, "skip": 1)"), "");
  EXPECT_EQ(Batch("c", R"({"_id": 1})", R"(, "showRecordId": true)").find("$recordId") != std::string::npos,
            true);
  EXPECT_EQ(Batch("c", R"({"_id": 1})", R"(, "returnKey": true, "hint": {"_id": 1})"),
            CanonicalJson(R"({"_id": 1})") + ";");
  EXPECT_EQ(Batch("c", R"({"_id": 2, "x": 12})"), "");  // more than _id

  // A collection whose default collation makes "a" equal "A".
  ASSERT_OK_REPLY(Run(R"({"create": "ci", "collation": {"locale": "en", "strength": 2}})"));
  InsertJson("ci", R"([{"_id": "A", "v": 1}])");
  EXPECT_EQ(Batch("ci", R"({"_id": "a"})"), CanonicalJson(R"({"_id": "A", "v": 1})") + ";");
  // A collation given with the find.
  EXPECT_EQ(Batch("c", R"({"_id": 1})", R"(, "collation": {"locale": "en", "strength": 2})"),
            CanonicalJson(R"({"_id": 1, "x": 10, "y": 20})") + ";");

  // A collection with a secondary index: the planner decides.
  ASSERT_OK_REPLY(Run(R"({"createIndexes": "c", "indexes": [{"key": {"x": 1}, "name": "x_1"}]})"));
  EXPECT_EQ(Batch("c", R"({"_id": 2})"), CanonicalJson(R"({"_id": 2, "x": 11})") + ";");
}

TEST_F(FindByIdTest, EachFindCountsOneUseOfTheIdIndex) {
  InsertJson("c", R"([{"_id": 1}, {"_id": 2}])");
  const int64_t before = IdIndexOps("c");
  ASSERT_GE(before, 0);
  Batch("c", R"({"_id": 1})");
  Batch("c", R"({"_id": 2})", R"(, "limit": 1, "singleBatch": true)");
  Batch("c", R"({"_id": 3})");  // no document: still one use, as the plan's point read
  EXPECT_EQ(IdIndexOps("c"), before + 3);
}

TEST_F(FindByIdTest, ConcurrentReadersAndAWriterSeeEveryDocumentWhole) {
  std::string docs = "[";
  for (int i = 0; i < 200; ++i) docs += (i ? "," : "") + std::string(R"({"_id": )") + std::to_string(i) + R"(, "v": )" + std::to_string(i * 7) + "}";
  InsertJson("c", docs + "]");
  std::vector<std::thread> threads;
  std::vector<int> wrong(5, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      testutil::MongoClient client(server_->uri());
      for (int n = 0; n < 300; ++n) {
        const int id = (n * 13 + t) % 200;
        BsonDoc r = client.RunCommand(db_, R"({"find": "c", "filter": {"_id": )" + std::to_string(id) + "}}");
        std::vector<BsonDoc> batch = DocArray(r, "cursor.firstBatch");
        if (batch.size() != 1 || Integer(batch[0], "v") != id * 7) ++wrong[t];
      }
    });
  }
  threads.emplace_back([&] {
    // Inserts and deletes of other _ids while the readers run.
    testutil::MongoClient client(server_->uri());
    for (int i = 1000; i < 1200; ++i) {
      BsonDoc r = client.RunCommand(db_, R"({"insert": "c", "documents": [{"_id": )" + std::to_string(i) + "}]}");
      if (Integer(r, "n") != 1) ++wrong[4];
      BsonDoc f = client.RunCommand(db_, R"({"find": "c", "filter": {"_id": )" + std::to_string(i) + "}}");
      if (DocArray(f, "cursor.firstBatch").size() != 1) ++wrong[4];
    }
  });
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(wrong, std::vector<int>(5, 0));
}

}  // namespace
}  // namespace tigerdoc::e2e
