// find: comparison/logical/element operators with MongoDB's array and
// dotted-path semantics, sort (including arrays and mixed types), skip,
// limit, projection and batchSize.
#include "tests/e2e/e2e_test_base.h"

namespace tigerdoc::e2e {
namespace {

using testutil::CanonicalJson;
using testutil::DocArray;
using testutil::Integer;
using testutil::Json;
using testutil::String;

using IdList = std::vector<int64_t>;

class FindTest : public E2eTest {
 protected:
  // Documents chosen so each operator has array, null, missing and
  // cross-type cases to get right.
  void InsertMatrix() {
    InsertJson("m", R"([
      {"_id": 1, "a": 1, "b": {"c": 1}, "s": "x"},
      {"_id": 2, "a": 2, "b": {"c": 2}},
      {"_id": 3, "a": [1, 2, 3], "b": [{"c": 1}, {"c": 3}]},
      {"_id": 4, "a": [2, 1]},
      {"_id": 5, "a": null},
      {"_id": 6},
      {"_id": 7, "a": [[1, 2], 3]},
      {"_id": 8, "a": 5.0},
      {"_id": 9, "a": "str"},
      {"_id": 10, "a": {"$numberLong": "2"}}
    ])");
  }

  // _ids matching `filter` (relaxed JSON) in collection m, sorted by _id.
  IdList Match(const std::string& filter) {
    BsonDoc r = Run(R"({"find": "m", "filter": )" + filter + R"(, "sort": {"_id": 1}})");
    EXPECT_OK_REPLY(r) << " filter " << filter;
    return Ids(r);
  }
};

TEST_F(FindTest, EqualityMatchesScalarsArrayElementsAndWholeArrays) {
  InsertMatrix();
  EXPECT_EQ(Match(R"({"a": 1})"), (IdList{1, 3, 4}));
  // 2, 2 inside arrays, and NumberLong(2) compare equal.
  EXPECT_EQ(Match(R"({"a": 2})"), (IdList{2, 3, 4, 10}));
  EXPECT_EQ(Match(R"({"a": {"$eq": 2}})"), (IdList{2, 3, 4, 10}));
  // An array operand matches the whole array or an element that is that array.
  EXPECT_EQ(Match(R"({"a": [1, 2]})"), (IdList{7}));
  EXPECT_EQ(Match(R"({"a": [2, 1]})"), (IdList{4}));
  // 5 matches 5.0 (numbers compare by value).
  EXPECT_EQ(Match(R"({"a": 5})"), (IdList{8}));
  // null matches null and missing.
  EXPECT_EQ(Match(R"({"a": null})"), (IdList{5, 6}));
}

TEST_F(FindTest, NotEqualExcludesArraysContainingTheValue) {
  InsertMatrix();
  EXPECT_EQ(Match(R"({"a": {"$ne": 2}})"), (IdList{1, 5, 6, 7, 8, 9}));
  EXPECT_EQ(Match(R"({"a": {"$ne": null}})"), (IdList{1, 2, 3, 4, 7, 8, 9, 10}));
}

TEST_F(FindTest, RangeOperatorsBracketByTypeAndTraverseArrays) {
  InsertMatrix();
  EXPECT_EQ(Match(R"({"a": {"$gt": 2}})"), (IdList{3, 7, 8}));
  EXPECT_EQ(Match(R"({"a": {"$gte": 2}})"), (IdList{2, 3, 4, 7, 8, 10}));
  EXPECT_EQ(Match(R"({"a": {"$lt": 2}})"), (IdList{1, 3, 4}));
  EXPECT_EQ(Match(R"({"a": {"$lte": 1}})"), (IdList{1, 3, 4}));
  // Strings only compare with strings.
  EXPECT_EQ(Match(R"({"a": {"$gte": ""}})"), (IdList{9}));
  // Two bounds on an array may be satisfied by different elements.
  EXPECT_EQ(Match(R"({"a": {"$gt": 1, "$lt": 3}})"), (IdList{2, 3, 4, 10}));
}

TEST_F(FindTest, InAndNin) {
  InsertMatrix();
  EXPECT_EQ(Match(R"({"a": {"$in": [1, "str"]}})"), (IdList{1, 3, 4, 9}));
  EXPECT_EQ(Match(R"({"a": {"$in": [null]}})"), (IdList{5, 6}));
  EXPECT_EQ(Match(R"({"a": {"$in": []}})"), (IdList{}));
  EXPECT_EQ(Match(R"({"a": {"$nin": [1, 2]}})"), (IdList{5, 6, 7, 8, 9}));
  EXPECT_EQ(Match(R"({"_id": {"$in": [1, 2, 99]}})"), (IdList{1, 2}));
}

TEST_F(FindTest, Exists) {
  InsertMatrix();
  EXPECT_EQ(Match(R"({"a": {"$exists": true}})"), (IdList{1, 2, 3, 4, 5, 7, 8, 9, 10}));
  EXPECT_EQ(Match(R"({"a": {"$exists": false}})"), (IdList{6}));
  EXPECT_EQ(Match(R"({"b.c": {"$exists": true}})"), (IdList{1, 2, 3}));
}

TEST_F(FindTest, LogicalOperatorsAndImplicitAnd) {
  InsertMatrix();
  EXPECT_EQ(Match(R"({"$and": [{"a": {"$gte": 1}}, {"a": {"$lte": 1}}]})"), (IdList{1, 3, 4}));
  EXPECT_EQ(Match(R"({"$or": [{"a": 5}, {"s": "x"}]})"), (IdList{1, 8}));
  EXPECT_EQ(Match(R"({"a": 2, "b.c": 2})"), (IdList{2}));
  EXPECT_EQ(Match(R"({"$or": [{"_id": 1}, {"$and": [{"a": 2}, {"_id": {"$gt": 3}}]}]})"),
            (IdList{1, 4, 10}));
}

TEST_F(FindTest, DottedPathsTraverseEmbeddedDocumentsAndArrays) {
  InsertMatrix();
  EXPECT_EQ(Match(R"({"b.c": 1})"), (IdList{1, 3}));
  EXPECT_EQ(Match(R"({"b.c": {"$gt": 1}})"), (IdList{2, 3}));
  // A numeric component indexes into an array. An array reached that way is
  // not expanded further, so [[1, 2], 3] does not match (MongoDB's
  // jstests/core/match_numeric_components.js: {"a.0": 42} misses [[42]]).
  EXPECT_EQ(Match(R"({"a.0": 1})"), (IdList{3}));
  EXPECT_EQ(Match(R"({"a.0": [1, 2]})"), (IdList{7}));
  EXPECT_EQ(Match(R"({"b.1.c": 3})"), (IdList{3}));
}

TEST_F(FindTest, BadOperatorIsAnError) {
  InsertMatrix();
  BsonDoc r = Run(R"({"find": "m", "filter": {"a": {"$bogus": 1}}})");
  EXPECT_ERROR_REPLY(r, 2, "BadValue");
  EXPECT_EQ(String(r, "errmsg"), "unknown operator: $bogus") << Json(r);
}

TEST_F(FindTest, SortPutsNullAndMissingFirstAndUsesTieBreakers) {
  InsertJson("s", R"([{"_id": 1, "a": 3}, {"_id": 2, "a": 1}, {"_id": 3, "a": 2},
                      {"_id": 4}, {"_id": 5, "a": null}])");
  EXPECT_EQ(Ids(Run(R"({"find": "s", "sort": {"a": 1, "_id": 1}})")), (IdList{4, 5, 2, 3, 1}));
  EXPECT_EQ(Ids(Run(R"({"find": "s", "sort": {"a": -1, "_id": 1}})")), (IdList{1, 3, 2, 4, 5}));
  EXPECT_EQ(Ids(Run(R"({"find": "s", "sort": {"_id": -1}})")), (IdList{5, 4, 3, 2, 1}));
}

TEST_F(FindTest, SortOnArraysUsesMinAscendingAndMaxDescending) {
  InsertJson("s", R"([{"_id": 1, "a": [1, 5]}, {"_id": 2, "a": 3}, {"_id": 3, "a": [0, 4]}])");
  EXPECT_EQ(Ids(Run(R"({"find": "s", "sort": {"a": 1}})")), (IdList{3, 1, 2}));
  EXPECT_EQ(Ids(Run(R"({"find": "s", "sort": {"a": -1}})")), (IdList{1, 3, 2}));
}

TEST_F(FindTest, SortOrdersNumbersBeforeStrings) {
  InsertJson("s", R"([{"_id": 1, "a": "b"}, {"_id": 2, "a": 2}, {"_id": 3, "a": "a"},
                      {"_id": 4, "a": 1.5}, {"_id": 5, "a": {"$numberLong": "3"}}])");
  EXPECT_EQ(Ids(Run(R"({"find": "s", "sort": {"a": 1}})")), (IdList{4, 2, 5, 3, 1}));
}

TEST_F(FindTest, CompoundSort) {
  InsertJson("s", R"([{"_id": 1, "x": 1, "y": 1}, {"_id": 2, "x": 2, "y": 1},
                      {"_id": 3, "x": 1, "y": 2}, {"_id": 4, "x": 2, "y": 3}])");
  EXPECT_EQ(Ids(Run(R"({"find": "s", "sort": {"x": 1, "y": -1}})")), (IdList{3, 1, 4, 2}));
}

TEST_F(FindTest, SkipAndLimit) {
  InsertJson("s", R"([{"_id": 1}, {"_id": 2}, {"_id": 3}, {"_id": 4}, {"_id": 5}, {"_id": 6}])");
  EXPECT_EQ(Ids(Run(R"({"find": "s", "sort": {"_id": 1}, "skip": 2, "limit": 3})")),
            (IdList{3, 4, 5}));
  EXPECT_EQ(Ids(Run(R"({"find": "s", "sort": {"_id": 1}, "skip": 5})")), (IdList{6}));
  EXPECT_EQ(Ids(Run(R"({"find": "s", "sort": {"_id": 1}, "skip": 10})")), (IdList{}));
  // limit 0 means no limit.
  EXPECT_EQ(Ids(Run(R"({"find": "s", "sort": {"_id": 1}, "limit": 0})")).size(), 6u);
  // A limit that is reached closes the cursor.
  BsonDoc r = Run(R"({"find": "s", "sort": {"_id": -1}, "limit": 2})");
  EXPECT_EQ(Ids(r), (IdList{6, 5}));
  EXPECT_EQ(Integer(r, "cursor.id"), 0) << Json(r);
  EXPECT_ERROR_REPLY(Run(R"({"find": "s", "skip": -1})"), 51024, "Location51024");
}

TEST_F(FindTest, InclusionProjectionKeepsIdAndDocumentOrder) {
  InsertJson("p", R"([{"_id": 1, "a": 1, "b": {"c": 1, "d": 2}, "e": [{"c": 1, "d": 1}, {"c": 2}], "f": 3}])");
  auto first = [&](const std::string& projection) {
    BsonDoc r = Run(R"({"find": "p", "projection": )" + projection + "}");
    auto docs = DocArray(r, "cursor.firstBatch");
    return docs.empty() ? "<none: " + Json(r) + ">" : CanonicalJson(docs[0]);
  };
  EXPECT_EQ(first(R"({"f": 1, "a": 1})"), CanonicalJson(R"({"_id": 1, "a": 1, "f": 3})"));
  EXPECT_EQ(first(R"({"a": 1, "_id": 0})"), CanonicalJson(R"({"a": 1})"));
  EXPECT_EQ(first(R"({"b.c": 1, "_id": 0})"), CanonicalJson(R"({"b": {"c": 1}})"));
  EXPECT_EQ(first(R"({"e.c": 1, "_id": 0})"), CanonicalJson(R"({"e": [{"c": 1}, {"c": 2}]})"));
  EXPECT_EQ(first(R"({"missing": 1})"), CanonicalJson(R"({"_id": 1})"));
}

TEST_F(FindTest, ExclusionProjection) {
  InsertJson("p", R"([{"_id": 1, "a": 1, "b": {"c": 1, "d": 2}, "f": 3}])");
  BsonDoc r = Run(R"({"find": "p", "projection": {"a": 0, "b.d": 0}})");
  ASSERT_EQ(DocArray(r, "cursor.firstBatch").size(), 1u) << Json(r);
  EXPECT_EQ(CanonicalJson(DocArray(r, "cursor.firstBatch")[0]),
            CanonicalJson(R"({"_id": 1, "b": {"c": 1}, "f": 3})"));
  r = Run(R"({"find": "p", "projection": {"_id": 0}})");
  EXPECT_EQ(CanonicalJson(DocArray(r, "cursor.firstBatch")[0]),
            CanonicalJson(R"({"a": 1, "b": {"c": 1, "d": 2}, "f": 3})"));
}

TEST_F(FindTest, MixedProjectionIsRejected) {
  InsertJson("p", R"([{"_id": 1, "a": 1, "b": 2}])");
  BsonDoc r = Run(R"({"find": "p", "projection": {"a": 1, "b": 0}})");
  EXPECT_ERROR_REPLY(r, 31254, "Location31254");
  EXPECT_EQ(String(r, "errmsg"), "Cannot do exclusion on field b in inclusion projection")
      << Json(r);
  r = Run(R"({"find": "p", "projection": {"a": 0, "b": 1}})");
  EXPECT_ERROR_REPLY(r, 31253, "Location31253");
  EXPECT_EQ(String(r, "errmsg"), "Cannot do inclusion on field b in exclusion projection")
      << Json(r);
}

TEST_F(FindTest, BatchSizeSplitsResultsIntoGetMores) {
  InsertJson("b", R"([{"_id": 1}, {"_id": 2}, {"_id": 3}, {"_id": 4}, {"_id": 5}])");
  BsonDoc r = Run(R"({"find": "b", "sort": {"_id": 1}, "batchSize": 2})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Ids(r), (IdList{1, 2}));
  EXPECT_EQ(String(r, "cursor.ns"), db_ + ".b") << Json(r);
  EXPECT_EQ(testutil::TypeAt(r, "cursor.id"), BSON_TYPE_INT64) << Json(r);
  int64_t id = Integer(r, "cursor.id").value_or(0);
  ASSERT_NE(id, 0) << Json(r);

  r = GetMore(id, "b", 2);
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Ids(r, "cursor.nextBatch"), (IdList{3, 4}));
  EXPECT_EQ(Integer(r, "cursor.id"), id) << Json(r);
  EXPECT_EQ(String(r, "cursor.ns"), db_ + ".b") << Json(r);

  r = GetMore(id, "b", 2);
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Ids(r, "cursor.nextBatch"), (IdList{5}));
  EXPECT_EQ(Integer(r, "cursor.id"), 0) << Json(r);
}

TEST_F(FindTest, BatchSizeZeroReturnsEmptyFirstBatchAndOpenCursor) {
  InsertJson("b", R"([{"_id": 1}, {"_id": 2}, {"_id": 3}])");
  BsonDoc r = Run(R"({"find": "b", "sort": {"_id": 1}, "batchSize": 0})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Ids(r), (IdList{}));
  int64_t id = Integer(r, "cursor.id").value_or(0);
  ASSERT_NE(id, 0) << Json(r);
  r = GetMore(id, "b");
  EXPECT_EQ(Ids(r, "cursor.nextBatch"), (IdList{1, 2, 3}));
  EXPECT_EQ(Integer(r, "cursor.id"), 0) << Json(r);
}

}  // namespace
}  // namespace tigerdoc::e2e
