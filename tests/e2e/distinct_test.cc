// distinct: values along dotted paths through arrays, array values unwound
// one level, missing fields skipped, numeric duplicates merged, BSON order,
// with a query; and explain of distinct.
#include "tests/e2e/e2e_test_base.h"

namespace tigerdoc::e2e {
namespace {

using testutil::CanonicalJson;
using testutil::Integer;
using testutil::Json;
using testutil::SubDoc;

class DistinctTest : public E2eTest {};

TEST_F(DistinctTest, UnwindsArraysAndMergesEqualNumbers) {
  InsertJson("d", R"([{"_id": 1, "a": 1}, {"_id": 2, "a": [2, 1, [3]]}, {"_id": 3, "a": 1.0},
                      {"_id": 4}, {"_id": 5, "a": null}, {"_id": 6, "a": "x"}])");
  BsonDoc r = Run(R"({"distinct": "d", "key": "a"})");
  ASSERT_OK_REPLY(r);
  // BSON order: null < numbers < strings < arrays.
  EXPECT_EQ(CanonicalJson(SubDoc(r, "values")), CanonicalJson(R"({"0": null, "1": 1, "2": 2, "3": "x", "4": [3]})"))
      << Json(r);
}

TEST_F(DistinctTest, DottedPathThroughArrayOfDocumentsWithQuery) {
  InsertJson("d", R"([{"_id": 1, "t": "a", "items": [{"sku": "p"}, {"sku": "q"}]},
                      {"_id": 2, "t": "b", "items": [{"sku": "r"}]},
                      {"_id": 3, "t": "a", "items": {"sku": "s"}}])");
  BsonDoc r = Run(R"({"distinct": "d", "key": "items.sku", "query": {"t": "a"}})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(CanonicalJson(SubDoc(r, "values")), CanonicalJson(R"({"0": "p", "1": "q", "2": "s"})"));
}

TEST_F(DistinctTest, MissingCollectionAndErrors) {
  BsonDoc empty = Run(R"({"distinct": "nothing", "key": "a"})");
  ASSERT_OK_REPLY(empty);
  EXPECT_EQ(CanonicalJson(SubDoc(empty, "values")), CanonicalJson("{}"));
  BsonDoc no_key = Run(R"({"distinct": "d"})");
  EXPECT_EQ(Integer(no_key, "code"), 40414) << Json(no_key);
  BsonDoc bad_query = Run(R"({"distinct": "d", "key": "a", "query": {"a": {"$foo": 1}}})");
  EXPECT_EQ(Integer(bad_query, "code"), 2) << Json(bad_query);
}

TEST_F(DistinctTest, ExplainReportsDocumentsExamined) {
  InsertJson("d", R"([{"_id": 1, "a": 1}, {"_id": 2, "a": 2}])");
  BsonDoc r = Run(R"({"explain": {"distinct": "d", "key": "a"}, "verbosity": "executionStats"})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "executionStats.totalDocsExamined"), 2) << Json(r);
}

}  // namespace
}  // namespace tigerdoc::e2e
