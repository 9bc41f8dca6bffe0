// Table-driven specification of the query matcher: each row is a filter, a
// document, and whether MongoDB matches it. Rows follow MongoDB's manual
// (query operator pages, "Query an Array", "Query for Null or Missing
// Fields") and its jstests.

#include "engine/query/matcher/matcher.h"

#include <gtest/gtest.h>

#include <string>

#include "engine/bson/bson_doc.h"
#include "tests/engine/query/test_json.h"

namespace tigerdoc::query {
namespace {

using bson::BsonDoc;

struct MatchCase {
  const char* filter;
  const char* doc;
  bool matches;
};

void PrintTo(const MatchCase& c, std::ostream* os) {
  *os << "filter " << c.filter << " doc " << c.doc << " -> " << (c.matches ? "match" : "no match");
}

class MatchTest : public testing::TestWithParam<MatchCase> {};

TEST_P(MatchTest, MatchesLikeMongoDB) {
  const MatchCase& c = GetParam();
  BsonDoc filter = testing_json::Json(c.filter);
  BsonDoc doc = BsonDoc::FromJson(c.doc);
  auto matcher = Matcher::Parse(filter.get());
  ASSERT_TRUE(matcher.ok()) << matcher.status().ToString();
  EXPECT_EQ(matcher.value()->Matches(doc.get()), c.matches);
  // Recording match details never changes the answer.
  MatchDetails details;
  EXPECT_EQ(matcher.value()->Matches(doc.get(), &details), c.matches);
}

// Implicit equality and $eq, including arrays and nested documents.
INSTANTIATE_TEST_SUITE_P(Equality, MatchTest, testing::Values(
    MatchCase{R"({})", R"({"a": 1})", true},
    MatchCase{R"({"a": 1})", R"({"a": 1})", true},
    MatchCase{R"({"a": 1})", R"({"a": 2})", false},
    MatchCase{R"({"a": 1})", R"({"a": 1.0})", true},
    MatchCase{R"({"a": 1})", R"({"a": {"$numberLong": "1"}})", true},
    MatchCase{R"({"a": 1})", R"({"a": {"$numberDecimal": "1.00"}})", true},
    MatchCase{R"({"a": 1})", R"({"a": "1"})", false},
    MatchCase{R"({"a": 1})", R"({})", false},
    MatchCase{R"({"a": 1})", R"({"a": [1, 2]})", true},
    MatchCase{R"({"a": 1})", R"({"a": [[1, 2]]})", false},
    MatchCase{R"({"a": [1, 2]})", R"({"a": [1, 2]})", true},
    MatchCase{R"({"a": [1, 2]})", R"({"a": [[1, 2], 3]})", true},
    MatchCase{R"({"a": [1, 2]})", R"({"a": [2, 1]})", false},
    MatchCase{R"({"a": [1, 2]})", R"({"a": 1})", false},
    MatchCase{R"({"a": []})", R"({"a": []})", true},
    MatchCase{R"({"a": []})", R"({"a": [[]]})", true},
    MatchCase{R"({"a": {"b": 1}})", R"({"a": {"b": 1}})", true},
    MatchCase{R"({"a": {"b": 1}})", R"({"a": {"b": 1, "c": 2}})", false},
    MatchCase{R"({"a": {"b": 1, "c": 2}})", R"({"a": {"c": 2, "b": 1}})", false},
    MatchCase{R"({"a": {"b": 1}})", R"({"a": [{"b": 1}]})", true},
    MatchCase{R"({"a.b": 1})", R"({"a": {"b": 1}})", true},
    MatchCase{R"({"a.b": 1})", R"({"a": [{"b": 2}, {"b": 1}]})", true},
    MatchCase{R"({"a.b": 1})", R"({"a": [{"b": [0, 1]}]})", true},
    MatchCase{R"({"a.b": 1})", R"({"a": [[{"b": 1}]]})", false},
    MatchCase{R"({"a.b": 1})", R"({"a": 1})", false},
    MatchCase{R"({"a.0": 5})", R"({"a": [5, 6]})", true},
    MatchCase{R"({"a.1": 5})", R"({"a": [5, 6]})", false},
    MatchCase{R"({"a.0": 1})", R"({"a": [[1, 2]]})", false},
    MatchCase{R"({"a.0": [1, 2]})", R"({"a": [[1, 2]]})", true},
    MatchCase{R"({"a.0.b": 1})", R"({"a": [{"b": 1}]})", true},
    MatchCase{R"({"a.0.b": 1})", R"({"a": [{"b": 2}, {"b": 1}]})", false},
    MatchCase{R"({"a.0.b": 1})", R"({"a": [{"0": {"b": 1}}]})", true},
    MatchCase{R"({"a.0.0": 1})", R"({"a": [[1, 2]]})", true},
    MatchCase{R"({"a.b.c": 1})", R"({"a": [{"b": [{"c": 1}]}]})", true},
    MatchCase{R"({"a": {"$eq": 1}})", R"({"a": [3, 1]})", true},
    MatchCase{R"({"a": {"$eq": {"$regularExpression": {"pattern": "x", "options": ""}}}})",
              R"({"a": "x"})", false},
    MatchCase{R"({"a": {"$eq": {"$regularExpression": {"pattern": "x", "options": ""}}}})",
              R"({"a": {"$regularExpression": {"pattern": "x", "options": ""}}})", true},
    MatchCase{R"({"a": {"$numberDouble": "NaN"}})", R"({"a": {"$numberDouble": "NaN"}})", true},
    MatchCase{R"({"a": {"$numberDouble": "NaN"}})", R"({"a": 1})", false},
    MatchCase{R"({"a": {"$numberDouble": "NaN"}})", R"({"a": {"$numberDecimal": "NaN"}})", true},
    MatchCase{R"({"a": {"$ref": "c", "$id": 1}})", R"({"a": {"$ref": "c", "$id": 1}})", true},
    MatchCase{R"({"a": 1, "b": 2})", R"({"a": 1, "b": 2})", true},
    MatchCase{R"({"a": 1, "b": 2})", R"({"a": 1, "b": 3})", false},
    MatchCase{R"({"a": {"$minKey": 1}})", R"({"a": {"$minKey": 1}})", true},
    MatchCase{R"({"a": true})", R"({"a": 1})", false}));

// Null and missing ("Query for Null or Missing Fields").
INSTANTIATE_TEST_SUITE_P(NullAndMissing, MatchTest, testing::Values(
    MatchCase{R"({"a": null})", R"({"a": null})", true},
    MatchCase{R"({"a": null})", R"({})", true},
    MatchCase{R"({"a": null})", R"({"a": {"$undefined": true}})", true},
    MatchCase{R"({"a": null})", R"({"a": 0})", false},
    MatchCase{R"({"a": null})", R"({"a": [1, null]})", true},
    MatchCase{R"({"a": null})", R"({"a": []})", false},
    MatchCase{R"({"a.b": null})", R"({"a": 5})", true},
    MatchCase{R"({"a.b": null})", R"({"a": {"c": 1}})", true},
    MatchCase{R"({"a.b": null})", R"({"a": [{"b": 1}, {"c": 1}]})", true},
    MatchCase{R"({"a.b": null})", R"({"a": [{"b": 1}]})", false},
    MatchCase{R"({"a.b": null})", R"({"a": [1, 2]})", false},
    MatchCase{R"({"a": {"$ne": null}})", R"({})", false},
    MatchCase{R"({"a": {"$ne": null}})", R"({"a": 1})", true},
    MatchCase{R"({"a": {"$gte": null}})", R"({})", true},
    MatchCase{R"({"a": {"$lte": null}})", R"({"a": null})", true},
    MatchCase{R"({"a": {"$gt": null}})", R"({"a": null})", false},
    MatchCase{R"({"a": {"$lt": null}})", R"({})", false},
    MatchCase{R"({"a": {"$in": [null]}})", R"({})", true},
    MatchCase{R"({"a": {"$in": [null, 1]}})", R"({"a": 1})", true},
    MatchCase{R"({"a": {"$nin": [null]}})", R"({})", false},
    MatchCase{R"({"a": {"$nin": [null]}})", R"({"a": 2})", true}));

// $gt $gte $lt $lte: type bracketing, numbers across types, NaN, Min/MaxKey.
INSTANTIATE_TEST_SUITE_P(Ordering, MatchTest, testing::Values(
    MatchCase{R"({"a": {"$gt": 5}})", R"({"a": 6})", true},
    MatchCase{R"({"a": {"$gt": 5}})", R"({"a": 5})", false},
    MatchCase{R"({"a": {"$gte": 5}})", R"({"a": 5.0})", true},
    MatchCase{R"({"a": {"$gt": 5}})", R"({"a": 5.5})", true},
    MatchCase{R"({"a": {"$gt": 5}})", R"({"a": {"$numberLong": "6"}})", true},
    MatchCase{R"({"a": {"$gt": 5}})", R"({"a": {"$numberDecimal": "5.000001"}})", true},
    MatchCase{R"({"a": {"$gt": 5}})", R"({"a": "6"})", false},
    MatchCase{R"({"a": {"$gt": 5}})", R"({"a": "abc"})", false},
    MatchCase{R"({"a": {"$lt": 5}})", R"({"a": "abc"})", false},
    MatchCase{R"({"a": {"$lt": 5}})", R"({"a": null})", false},
    MatchCase{R"({"a": {"$lt": 5}})", R"({})", false},
    MatchCase{R"({"a": {"$gt": 5}})", R"({"a": [1, 6]})", true},
    MatchCase{R"({"a": {"$gt": 5}})", R"({"a": [1, 2]})", false},
    MatchCase{R"({"a": {"$gt": 5, "$lt": 8}})", R"({"a": [1, 9]})", true},
    MatchCase{R"({"a": {"$gt": 5, "$lt": 8}})", R"({"a": 9})", false},
    MatchCase{R"({"a": {"$gt": "abc"}})", R"({"a": "abd"})", true},
    MatchCase{R"({"a": {"$gt": "abc"}})", R"({"a": 100})", false},
    MatchCase{R"({"a": {"$lt": [2]}})", R"({"a": [1]})", true},
    MatchCase{R"({"a": {"$gt": {"b": 1}}})", R"({"a": {"b": 2}})", true},
    MatchCase{R"({"a": {"$gt": {"$numberDouble": "NaN"}}})", R"({"a": 1})", false},
    MatchCase{R"({"a": {"$lt": {"$numberDouble": "NaN"}}})", R"({"a": 1})", false},
    MatchCase{R"({"a": {"$gte": {"$numberDouble": "NaN"}}})", R"({"a": {"$numberDouble": "NaN"}})", true},
    MatchCase{R"({"a": {"$lt": 1}})", R"({"a": {"$numberDouble": "NaN"}})", false},
    MatchCase{R"({"a": {"$gt": {"$numberDouble": "-Infinity"}}})", R"({"a": -1e308})", true},
    MatchCase{R"({"a": {"$gt": {"$minKey": 1}}})", R"({"a": "x"})", true},
    MatchCase{R"({"a": {"$gt": {"$minKey": 1}}})", R"({})", true},
    MatchCase{R"({"a": {"$lt": {"$maxKey": 1}}})", R"({"a": {"b": 1}})", true},
    MatchCase{R"({"a": {"$gt": {"$maxKey": 1}}})", R"({"a": 1})", false},
    MatchCase{R"({"a": {"$gt": {"$date": "2020-01-01T00:00:00Z"}}})",
              R"({"a": {"$date": "2021-01-01T00:00:00Z"}})", true},
    MatchCase{R"({"a": {"$gt": {"$date": "2020-01-01T00:00:00Z"}}})", R"({"a": 1})", false},
    MatchCase{R"({"a.b": {"$gt": 1}})", R"({"a": [{"b": 0}, {"b": 2}]})", true}));

// $ne and $nin: "no value at the path equals".
INSTANTIATE_TEST_SUITE_P(Negation, MatchTest, testing::Values(
    MatchCase{R"({"a": {"$ne": 1}})", R"({"a": 2})", true},
    MatchCase{R"({"a": {"$ne": 1}})", R"({})", true},
    MatchCase{R"({"a": {"$ne": 1}})", R"({"a": [1, 2]})", false},
    MatchCase{R"({"a": {"$ne": 1}})", R"({"a": [2, 3]})", true},
    MatchCase{R"({"a": {"$ne": [1, 2]}})", R"({"a": [1, 2]})", false},
    MatchCase{R"({"a.b": {"$ne": 1}})", R"({"a": [{"b": 1}, {"b": 2}]})", false},
    MatchCase{R"({"a": {"$nin": [1, 2]}})", R"({"a": 3})", true},
    MatchCase{R"({"a": {"$nin": [1, 2]}})", R"({"a": [3, 2]})", false},
    MatchCase{R"({"a": {"$nin": []}})", R"({"a": 1})", true},
    MatchCase{R"({"a": {"$not": {"$gt": 5}}})", R"({"a": 3})", true},
    MatchCase{R"({"a": {"$not": {"$gt": 5}}})", R"({"a": "x"})", true},
    MatchCase{R"({"a": {"$not": {"$gt": 5}}})", R"({})", true},
    MatchCase{R"({"a": {"$not": {"$gt": 5}}})", R"({"a": [1, 6]})", false},
    MatchCase{R"({"a": {"$not": {"$regularExpression": {"pattern": "^x", "options": ""}}}})",
              R"({"a": "xy"})", false},
    MatchCase{R"({"a": {"$not": {"$regularExpression": {"pattern": "^x", "options": ""}}}})",
              R"({"a": "yx"})", true}));

// $in.
INSTANTIATE_TEST_SUITE_P(In, MatchTest, testing::Values(
    MatchCase{R"({"a": {"$in": [1, 2]}})", R"({"a": 2})", true},
    MatchCase{R"({"a": {"$in": [1, 2]}})", R"({"a": 2.0})", true},
    MatchCase{R"({"a": {"$in": [1, 2]}})", R"({"a": 3})", false},
    MatchCase{R"({"a": {"$in": [1, 2]}})", R"({"a": [3, 1]})", true},
    MatchCase{R"({"a": {"$in": []}})", R"({"a": 1})", false},
    MatchCase{R"({"a": {"$in": [[1, 2]]}})", R"({"a": [1, 2]})", true},
    MatchCase{R"({"a": {"$in": [[1, 2]]}})", R"({"a": 1})", false},
    MatchCase{R"({"a": {"$in": [{"b": 1}]}})", R"({"a": {"b": 1}})", true},
    MatchCase{R"({"a": {"$in": [{"$regularExpression": {"pattern": "^ab", "options": ""}}, 5]}})",
              R"({"a": "abc"})", true},
    MatchCase{R"({"a": {"$in": [{"$regularExpression": {"pattern": "^AB", "options": "i"}}]}})",
              R"({"a": ["x", "abc"]})", true},
    MatchCase{R"({"a": {"$in": [{"$regularExpression": {"pattern": "^ab", "options": ""}}]}})",
              R"({"a": 5})", false},
    // Values of every type, unsorted: the binary search over (type rank,
    // BSON order) finds each and nothing else.
    MatchCase{R"({"a": {"$in": ["z", 3, {"b": 1}, 1.5, null, "a", [2], true, {"$numberLong": "7"}]}})",
              R"({"a": 7.0})", true},
    MatchCase{R"({"a": {"$in": ["z", 3, {"b": 1}, 1.5, null, "a", [2], true, {"$numberLong": "7"}]}})",
              R"({"a": "a"})", true},
    MatchCase{R"({"a": {"$in": ["z", 3, {"b": 1}, 1.5, null, "a", [2], true, {"$numberLong": "7"}]}})",
              R"({"a": true})", true},
    MatchCase{R"({"a": {"$in": ["z", 3, {"b": 1}, 1.5, null, "a", [2], true, {"$numberLong": "7"}]}})",
              R"({"a": {"b": 1}})", true},
    MatchCase{R"({"a": {"$in": ["z", 3, {"b": 1}, 1.5, null, "a", [2], true, {"$numberLong": "7"}]}})",
              R"({"a": [2]})", true},
    MatchCase{R"({"a": {"$in": ["z", 3, {"b": 1}, 1.5, null, "a", [2], true, {"$numberLong": "7"}]}})",
              R"({"a": "3"})", false},
    MatchCase{R"({"a": {"$in": ["z", 3, {"b": 1}, 1.5, null, "a", [2], true, {"$numberLong": "7"}]}})",
              R"({"a": 2})", false},
    MatchCase{R"({"a": {"$in": ["z", 3, {"b": 1}, 1.5, null, "a", [2], true, {"$numberLong": "7"}]}})",
              R"({"a": false})", false},
    MatchCase{R"({"a": {"$in": ["z", 3, {"b": 1}, 1.5, null, "a", [2], true, {"$numberLong": "7"}]}})",
              R"({})", true},
    MatchCase{R"({"a": {"$in": [5, 1, 4, 2, 3]}})", R"({"a": 6})", false},
    MatchCase{R"({"a": {"$in": [5, 1, 4, 2, 3]}})", R"({"a": 0})", false},
    MatchCase{R"({"a": {"$in": [5, 1, 4, 2, 3]}})", R"({"a": {"$numberDecimal": "4.0"}})", true}));

// $exists and $type.
INSTANTIATE_TEST_SUITE_P(Element, MatchTest, testing::Values(
    MatchCase{R"({"a": {"$exists": true}})", R"({"a": null})", true},
    MatchCase{R"({"a": {"$exists": true}})", R"({})", false},
    MatchCase{R"({"a": {"$exists": false}})", R"({})", true},
    MatchCase{R"({"a": {"$exists": false}})", R"({"a": 1})", false},
    MatchCase{R"({"a": {"$exists": 1}})", R"({"a": 1})", true},
    MatchCase{R"({"a": {"$exists": 0}})", R"({"a": 1})", false},
    MatchCase{R"({"a": {"$exists": true}})", R"({"a": []})", true},
    MatchCase{R"({"a.b": {"$exists": true}})", R"({"a": [{"c": 1}, {"b": 1}]})", true},
    MatchCase{R"({"a.b": {"$exists": true}})", R"({"a": [1, 2]})", false},
    MatchCase{R"({"a.b": {"$exists": false}})", R"({"a": [1, 2]})", true},
    MatchCase{R"({"a.1": {"$exists": true}})", R"({"a": [1, 2]})", true},
    MatchCase{R"({"a.2": {"$exists": true}})", R"({"a": [1, 2]})", false},
    MatchCase{R"({"a": {"%type": "string"}})", R"({"a": "x"})", true},
    MatchCase{R"({"a": {"%type": 2}})", R"({"a": "x"})", true},
    MatchCase{R"({"a": {"%type": "string"}})", R"({"a": ["x", 1]})", true},
    MatchCase{R"({"a": {"%type": "string"}})", R"({"a": 1})", false},
    MatchCase{R"({"a": {"%type": "number"}})", R"({"a": {"$numberDecimal": "1"}})", true},
    MatchCase{R"({"a": {"%type": "number"}})", R"({"a": "1"})", false},
    MatchCase{R"({"a": {"%type": "int"}})", R"({"a": 1.0})", false},
    MatchCase{R"({"a": {"%type": "double"}})", R"({"a": 1.5})", true},
    MatchCase{R"({"a": {"%type": "long"}})", R"({"a": {"$numberLong": "1"}})", true},
    MatchCase{R"({"a": {"%type": "array"}})", R"({"a": [1]})", true},
    MatchCase{R"({"a": {"%type": "array"}})", R"({"a": []})", true},
    MatchCase{R"({"a": {"%type": "array"}})", R"({"a": 1})", false},
    MatchCase{R"({"a": {"%type": "null"}})", R"({"a": null})", true},
    MatchCase{R"({"a": {"%type": "null"}})", R"({})", false},
    MatchCase{R"({"a": {"%type": ["string", "int"]}})", R"({"a": 1})", true},
    MatchCase{R"({"a": {"%type": "minKey"}})", R"({"a": {"$minKey": 1}})", true},
    MatchCase{R"({"a": {"%type": -1}})", R"({"a": {"$minKey": 1}})", true},
    MatchCase{R"({"a": {"%type": 127}})", R"({"a": {"$maxKey": 1}})", true},
    MatchCase{R"({"a": {"%type": "objectId"}})", R"({"a": {"$oid": "5f1d7a1b2c3d4e5f60718293"}})", true},
    MatchCase{R"({"a": {"%type": "object"}})", R"({"a": {"b": 1}})", true}));

// $size, $all, $elemMatch ("Query an Array", "Query an Array of Embedded Documents").
INSTANTIATE_TEST_SUITE_P(Array, MatchTest, testing::Values(
    MatchCase{R"({"a": {"$size": 2}})", R"({"a": [1, 2]})", true},
    MatchCase{R"({"a": {"$size": 1}})", R"({"a": [[1, 2]]})", true},
    MatchCase{R"({"a": {"$size": 2}})", R"({"a": [[1, 2]]})", false},
    MatchCase{R"({"a": {"$size": 0}})", R"({"a": []})", true},
    MatchCase{R"({"a": {"$size": 0}})", R"({})", false},
    MatchCase{R"({"a": {"$size": 1}})", R"({"a": 1})", false},
    MatchCase{R"({"a.b": {"$size": 2}})", R"({"a": [{"b": [1, 2]}]})", true},
    MatchCase{R"({"a": {"$size": 2.0}})", R"({"a": [1, 2]})", true},
    MatchCase{R"({"tags": {"$all": ["red", "blank"]}})", R"({"tags": ["blank", "red", "x"]})", true},
    MatchCase{R"({"tags": {"$all": ["red", "blank"]}})", R"({"tags": ["red"]})", false},
    MatchCase{R"({"tags": {"$all": ["red"]}})", R"({"tags": "red"})", true},
    MatchCase{R"({"tags": {"$all": []}})", R"({"tags": []})", false},
    MatchCase{R"({"tags": {"$all": [[1, 2]]}})", R"({"tags": [[1, 2], 3]})", true},
    MatchCase{R"({"tags": {"$all": [{"$regularExpression": {"pattern": "^r", "options": ""}}, "x"]}})",
              R"({"tags": ["red", "x"]})", true},
    MatchCase{R"({"a": {"$all": [{"$elemMatch": {"b": 1}}, {"$elemMatch": {"c": 2}}]}})",
              R"({"a": [{"b": 1}, {"c": 2}]})", true},
    MatchCase{R"({"a": {"$all": [{"$elemMatch": {"b": 1}}, {"$elemMatch": {"c": 2}}]}})",
              R"({"a": [{"b": 1}]})", false},
    MatchCase{R"({"results": {"$elemMatch": {"$gte": 80, "$lt": 85}}})", R"({"results": [82, 85, 88]})", true},
    MatchCase{R"({"results": {"$elemMatch": {"$gte": 80, "$lt": 85}}})", R"({"results": [75, 88, 89]})", false},
    MatchCase{R"({"results": {"$gte": 80, "$lt": 85}})", R"({"results": [75, 88, 89]})", true},
    MatchCase{R"({"results": {"$elemMatch": {"product": "xyz", "score": {"$gte": 8}}}})",
              R"({"results": [{"product": "abc", "score": 10}, {"product": "xyz", "score": 5}]})", false},
    MatchCase{R"({"results": {"$elemMatch": {"product": "xyz", "score": {"$gte": 8}}}})",
              R"({"results": [{"product": "abc", "score": 10}, {"product": "xyz", "score": 9}]})", true},
    MatchCase{R"({"a": {"$elemMatch": {"$gt": 1}}})", R"({"a": 5})", false},
    MatchCase{R"({"a": {"$elemMatch": {"$gt": 1}}})", R"({"a": [[5]]})", false},
    MatchCase{R"({"a": {"$elemMatch": {"$elemMatch": {"$gt": 1}}}})", R"({"a": [[5]]})", true},
    MatchCase{R"({"a": {"$elemMatch": {"$not": {"$gt": 1}}}})", R"({"a": [5, 0]})", true},
    MatchCase{R"({"a": {"$elemMatch": {"$in": [1, 2]}}})", R"({"a": [3, 2]})", true},
    MatchCase{R"({"a": {"$elemMatch": {"b": {"$exists": true}}}})", R"({"a": [{"c": 1}]})", false},
    MatchCase{R"({"a": {"$elemMatch": {"$or": [{"b": 1}, {"c": 1}]}}})", R"({"a": [{"c": 1}]})", true},
    MatchCase{R"({"a": {"$elemMatch": {"0": 1}}})", R"({"a": [[1, 2]]})", true},
    MatchCase{R"({"a.b": {"$elemMatch": {"c": 1}}})", R"({"a": [{"b": [{"c": 1}]}]})", true}));

// $and $or $nor.
INSTANTIATE_TEST_SUITE_P(Logical, MatchTest, testing::Values(
    MatchCase{R"({"$and": [{"a": 1}, {"b": 2}]})", R"({"a": 1, "b": 2})", true},
    MatchCase{R"({"$and": [{"a": 1}, {"b": 2}]})", R"({"a": 1})", false},
    MatchCase{R"({"$or": [{"a": 1}, {"b": 2}]})", R"({"b": 2})", true},
    MatchCase{R"({"$or": [{"a": 1}, {"b": 2}]})", R"({"c": 2})", false},
    MatchCase{R"({"$nor": [{"a": 1}, {"b": 2}]})", R"({"c": 2})", true},
    MatchCase{R"({"$nor": [{"a": 1}, {"b": 2}]})", R"({"a": 1})", false},
    MatchCase{R"({"$nor": [{"price": 1.99}, {"sale": true}]})", R"({"price": 1.99})", false},
    MatchCase{R"({"$nor": [{"price": 1.99}, {"sale": true}]})", R"({})", true},
    MatchCase{R"({"$and": [{"$or": [{"a": 1}, {"a": 2}]}, {"$or": [{"b": 1}, {"b": 2}]}]})",
              R"({"a": 2, "b": 1})", true},
    MatchCase{R"({"a": 1, "$or": [{"b": 1}, {"c": 1}]})", R"({"a": 1, "c": 1})", true},
    MatchCase{R"({"$comment": "hello", "a": 1})", R"({"a": 1})", true},
    MatchCase{R"({"$alwaysTrue": 1})", R"({})", true},
    MatchCase{R"({"$alwaysFalse": 1})", R"({})", false}));

// $regex and regex literals; $mod.
INSTANTIATE_TEST_SUITE_P(Evaluation, MatchTest, testing::Values(
    MatchCase{R"({"a": {"$regularExpression": {"pattern": "^ab", "options": ""}}})", R"({"a": "abc"})", true},
    MatchCase{R"({"a": {"$regularExpression": {"pattern": "^ab", "options": ""}}})", R"({"a": "xabc"})", false},
    MatchCase{R"({"a": {"$regularExpression": {"pattern": "^ab", "options": "i"}}})", R"({"a": "ABC"})", true},
    MatchCase{R"({"a": {"%regex": "^ab"}})", R"({"a": "abc"})", true},
    MatchCase{R"({"a": {"%regex": "^ab", "%options": "i"}})", R"({"a": "ABc"})", true},
    MatchCase{R"({"a": {"%options": "i", "%regex": "^ab"}})", R"({"a": "ABc"})", true},
    MatchCase{R"({"a": {"%regex": "^b", "%options": "m"}})", R"({"a": "a\nb"})", true},
    MatchCase{R"({"a": {"%regex": "^b"}})", R"({"a": "a\nb"})", false},
    MatchCase{R"({"a": {"%regex": "a.b", "%options": "s"}})", R"({"a": "a\nb"})", true},
    MatchCase{R"({"a": {"%regex": "a.b"}})", R"({"a": "a\nb"})", false},
    MatchCase{R"({"a": {"%regex": "a b # comment", "%options": "x"}})", R"({"a": "ab"})", true},
    MatchCase{R"({"a": {"%regex": {"$regularExpression": {"pattern": "^AB", "options": "i"}}}})",
              R"({"a": "abc"})", true},
    MatchCase{R"({"a": {"%regex": "é"}})", R"({"a": "café"})", true},
    MatchCase{R"({"a": {"%regex": "^.$"}})", R"({"a": "é"})", true},
    MatchCase{R"({"a": {"%regex": "1"}})", R"({"a": 1})", false},
    MatchCase{R"({"a": {"%regex": "^x"}})", R"({"a": ["y", "xz"]})", true},
    MatchCase{R"({"a": {"%regex": "^x"}})", R"({"a": {"$symbol": "xy"}})", true},
    MatchCase{R"({"a": {"$mod": [4, 0]}})", R"({"a": 8})", true},
    MatchCase{R"({"a": {"$mod": [4, 0]}})", R"({"a": 9})", false},
    MatchCase{R"({"a": {"$mod": [4, 1]}})", R"({"a": 9.9})", true},
    MatchCase{R"({"a": {"$mod": [4, -1]}})", R"({"a": -5})", true},
    MatchCase{R"({"a": {"$mod": [4, 0]}})", R"({"a": {"$numberDecimal": "8.5"}})", true},
    MatchCase{R"({"a": {"$mod": [4, 0]}})", R"({"a": {"$numberDouble": "NaN"}})", false},
    MatchCase{R"({"a": {"$mod": [4, 0]}})", R"({"a": "8"})", false},
    MatchCase{R"({"a": {"$mod": [4.5, 0]}})", R"({"a": 8})", true},
    MatchCase{R"({"a": {"$mod": [4, 0]}})", R"({"a": [1, 8]})", true}));

// Further rows per operator family, checked against MongoDB's manual and
// server behaviour.
INSTANTIATE_TEST_SUITE_P(ModRules, MatchTest, testing::Values(
    // Truncated division: the remainder takes the dividend's sign.
    MatchCase{R"({"a": {"$mod": [4, -1]}})", R"({"a": -1})", true},
    MatchCase{R"({"a": {"$mod": [4, 3]}})", R"({"a": -1})", false},
    MatchCase{R"({"a": {"$mod": [-4, 1]}})", R"({"a": 5})", true},
    MatchCase{R"({"a": {"$mod": [-4, -1]}})", R"({"a": -5})", true},
    // Divisor and remainder are truncated toward zero when parsed.
    MatchCase{R"({"a": {"$mod": [{"$numberDecimal": "4.9"}, 0]}})", R"({"a": 8})", true},
    MatchCase{R"({"a": {"$mod": [4, 1.9]}})", R"({"a": 9})", true},
    MatchCase{R"({"a": {"$mod": [4, -0.5]}})", R"({"a": 8})", true},
    MatchCase{R"({"a": {"$mod": [4, 0]}})", R"({"a": -8.9})", true},
    MatchCase{R"({"a": {"$mod": [4, 0]}})", R"({"a": {"$numberDouble": "Infinity"}})", false},
    MatchCase{R"({"a": {"$mod": [4, 0]}})", R"({"a": 1e300})", false},
    MatchCase{R"({"a": {"$mod": [4, 0]}})", R"({"a": {"$numberDecimal": "-7.99"}})", false},
    MatchCase{R"({"a": {"$mod": [-1, 0]}})", R"({"a": {"$numberLong": "-9223372036854775808"}})", true},
    MatchCase{R"({"a": {"$mod": [4, 0]}})", R"({"a": null})", false},
    MatchCase{R"({"a": {"$mod": [4, 0]}})", R"({})", false},
    MatchCase{R"({"a": {"$not": {"$mod": [4, 0]}}})", R"({"a": "x"})", true}));

INSTANTIATE_TEST_SUITE_P(RegexRules, MatchTest, testing::Values(
    MatchCase{R"({"a": {"%regex": "^B", "%options": "im"}})", R"({"a": "a\nb"})", true},
    MatchCase{R"({"a": {"%regex": "a.c", "%options": "si"}})", R"({"a": "A\nC"})", true},
    MatchCase{R"({"a": {"%regex": "a # letter\n b", "%options": "x"}})", R"({"a": "ab"})", true},
    MatchCase{R"({"a": {"%regex": "a b"}})", R"({"a": "ab"})", false},
    MatchCase{R"({"a": {"%regex": "x"}})", R"({"a": ["y", ["x"]]})", false},
    MatchCase{R"({"a": {"%regex": "^x"}})", R"({"a": {"$regularExpression": {"pattern": "^x", "options": ""}}})", true},
    MatchCase{R"({"a": {"%regex": "^x", "%options": "i"}})", R"({"a": {"$regularExpression": {"pattern": "^x", "options": ""}}})", false},
    MatchCase{R"({"a": {"$regularExpression": {"pattern": "^x", "options": ""}}})", R"({"a": {"b": "x"}})", false},
    MatchCase{R"({"a.b": {"$regularExpression": {"pattern": "^x", "options": ""}}})", R"({"a": [{"b": "y"}, {"b": "xy"}]})", true},
    MatchCase{R"({"a": {"$nin": [{"$regularExpression": {"pattern": "^x", "options": ""}}]}})", R"({"a": "xy"})", false},
    MatchCase{R"({"a": {"$nin": [{"$regularExpression": {"pattern": "^x", "options": ""}}]}})", R"({"a": "yx"})", true},
    MatchCase{R"({"a": {"$nin": [{"$regularExpression": {"pattern": "^x", "options": ""}}]}})", R"({})", true},
    MatchCase{R"({"a": {"$in": [{"$regularExpression": {"pattern": "^x", "options": "i"}}, null]}})", R"({})", true},
    MatchCase{R"({"a": {"$not": {"%regex": "^x"}}})", R"({"a": "xy"})", false},
    MatchCase{R"({"a": {"$not": {"%regex": "^x", "%options": "i"}}})", R"({"a": "Xy"})", false},
    MatchCase{R"({"a": {"$not": {"%regex": "^x"}}})", R"({"a": 5})", true},
    MatchCase{R"({"a": {"$all": [{"$regularExpression": {"pattern": "^x", "options": ""}}, {"$regularExpression": {"pattern": "y$", "options": ""}}]}})", R"({"a": "xy"})", true}));

INSTANTIATE_TEST_SUITE_P(TypeAliases, MatchTest, testing::Values(
    MatchCase{R"({"a": {"%type": "double"}})", R"({"a": 1.0})", true},
    MatchCase{R"({"a": {"%type": 1}})", R"({"a": 1.5})", true},
    MatchCase{R"({"a": {"%type": 1.0}})", R"({"a": 1.5})", true},
    MatchCase{R"({"a": {"%type": {"$numberLong": "2"}}})", R"({"a": "s"})", true},
    MatchCase{R"({"a": {"%type": {"$numberDecimal": "2"}}})", R"({"a": "s"})", true},
    MatchCase{R"({"a": {"%type": 3}})", R"({"a": {"b": 1}})", true},
    MatchCase{R"({"a": {"%type": 4}})", R"({"a": [[1]]})", true},
    MatchCase{R"({"a": {"%type": "array"}})", R"({"a": [1, 2]})", true},
    MatchCase{R"({"a.b": {"%type": "array"}})", R"({"a": [{"b": 1}]})", false},
    MatchCase{R"({"a": {"%type": "binData"}})", R"({"a": {"$binary": {"base64": "AA==", "subType": "00"}}})", true},
    MatchCase{R"({"a": {"%type": 5}})", R"({"a": {"$binary": {"base64": "AA==", "subType": "04"}}})", true},
    MatchCase{R"({"a": {"%type": "undefined"}})", R"({"a": {"$undefined": true}})", true},
    MatchCase{R"({"a": {"%type": 6}})", R"({"a": null})", false},
    MatchCase{R"({"a": {"%type": 7}})", R"({"a": {"$oid": "5f1d7a1b2c3d4e5f60718293"}})", true},
    MatchCase{R"({"a": {"%type": "bool"}})", R"({"a": false})", true},
    MatchCase{R"({"a": {"%type": 8}})", R"({"a": 0})", false},
    MatchCase{R"({"a": {"%type": "date"}})", R"({"a": {"$date": "2020-01-01T00:00:00Z"}})", true},
    MatchCase{R"({"a": {"%type": 9}})", R"({"a": {"$timestamp": {"t": 1, "i": 1}}})", false},
    MatchCase{R"({"a": {"%type": 10}})", R"({})", false},
    MatchCase{R"({"a": {"%type": "regex"}})", R"({"a": {"$regularExpression": {"pattern": "x", "options": ""}}})", true},
    MatchCase{R"({"a": {"%type": 11}})", R"({"a": "x"})", false},
    MatchCase{R"({"a": {"%type": "javascript"}})", R"J({"a": {"$code": "f()"}})J", true},
    MatchCase{R"({"a": {"%type": 13}})", R"J({"a": {"$code": "f()", "$scope": {}}})J", false},
    MatchCase{R"({"a": {"%type": "javascriptWithScope"}})", R"J({"a": {"$code": "f()", "$scope": {}}})J", true},
    MatchCase{R"({"a": {"%type": "symbol"}})", R"({"a": {"$symbol": "s"}})", true},
    MatchCase{R"({"a": {"%type": 14}})", R"({"a": "s"})", false},
    MatchCase{R"({"a": {"%type": "int"}})", R"({"a": 1})", true},
    MatchCase{R"({"a": {"%type": 16}})", R"({"a": {"$numberLong": "1"}})", false},
    MatchCase{R"({"a": {"%type": "timestamp"}})", R"({"a": {"$timestamp": {"t": 1, "i": 1}}})", true},
    MatchCase{R"({"a": {"%type": 17}})", R"({"a": {"$timestamp": {"t": 1, "i": 1}}})", true},
    MatchCase{R"({"a": {"%type": 18}})", R"({"a": {"$numberLong": "1"}})", true},
    MatchCase{R"({"a": {"%type": "decimal"}})", R"({"a": {"$numberDecimal": "1"}})", true},
    MatchCase{R"({"a": {"%type": 19}})", R"({"a": 1.5})", false},
    MatchCase{R"({"a": {"%type": "maxKey"}})", R"({"a": {"$maxKey": 1}})", true},
    MatchCase{R"({"a": {"%type": "minKey"}})", R"({"a": {"$maxKey": 1}})", false},
    MatchCase{R"({"a": {"%type": "number"}})", R"({"a": 1})", true},
    MatchCase{R"({"a": {"%type": "number"}})", R"({"a": {"$numberLong": "1"}})", true},
    MatchCase{R"({"a": {"%type": "number"}})", R"({"a": 1.5})", true},
    MatchCase{R"({"a": {"%type": "number"}})", R"({"a": ["x", 2]})", true},
    MatchCase{R"({"a": {"%type": "number"}})", R"({"a": true})", false},
    MatchCase{R"({"a": {"%type": ["number", "string"]}})", R"({"a": "x"})", true},
    MatchCase{R"({"a": {"%type": [2, "bool"]}})", R"({"a": false})", true},
    MatchCase{R"({"a": {"%type": [2, "bool"]}})", R"({"a": null})", false},
    MatchCase{R"({"a.0": {"%type": "string"}})", R"({"a": ["x"]})", true}));

INSTANTIATE_TEST_SUITE_P(ArrayRules, MatchTest, testing::Values(
    MatchCase{R"({"a": {"$all": [1]}})", R"({"a": 1})", true},
    MatchCase{R"({"a": {"$all": [[1]]}})", R"({"a": [1]})", true},
    MatchCase{R"({"a": {"$all": [[1]]}})", R"({"a": [[1]]})", true},
    MatchCase{R"({"a": {"$all": [null]}})", R"({})", true},
    MatchCase{R"({"a": {"$all": [1, 1]}})", R"({"a": [1]})", true},
    MatchCase{R"({"a": {"$all": [{"$not": 1}]}})", R"({"a": {"$not": 1}})", true},
    MatchCase{R"({"a": {"$all": [{"b": 1}]}})", R"({"a": [{"b": 1}, {"b": 2}]})", true},
    MatchCase{R"({"a.b": {"$all": [1, 2]}})", R"({"a": [{"b": 1}, {"b": 2}]})", true},
    MatchCase{R"({"a": {"$all": [{"$elemMatch": {"$gt": 5}}, {"$elemMatch": {"$lt": 2}}]}})", R"({"a": [1, 6]})", true},
    MatchCase{R"({"a": {"$all": [{"$elemMatch": {"$gt": 5, "$lt": 2}}]}})", R"({"a": [1, 6]})", false},
    MatchCase{R"({"a": {"$all": [{"$elemMatch": {"b": 1, "c": 2}}]}})", R"({"a": [{"b": 1}, {"c": 2}]})", false},
    MatchCase{R"({"a": {"$elemMatch": {"b": 1}}})", R"({"a": {"b": 1}})", false},
    MatchCase{R"({"a": {"$elemMatch": {}}})", R"({"a": [1]})", false},
    MatchCase{R"({"a": {"$elemMatch": {}}})", R"({"a": [{}]})", true},
    MatchCase{R"({"a": {"$elemMatch": {}}})", R"({"a": [[1]]})", true},
    MatchCase{R"({"a": {"$elemMatch": {"$exists": true}}})", R"({"a": [null]})", true},
    MatchCase{R"({"a": {"$elemMatch": {"$eq": null}}})", R"({"a": []})", false},
    MatchCase{R"({"a": {"$elemMatch": {"$type": "string"}}})", R"({"a": [1, "x"]})", true},
    MatchCase{R"({"a": {"$elemMatch": {"b": {"$elemMatch": {"c": 1}}}}})", R"({"a": [{"b": [{"c": 1}]}]})", true},
    MatchCase{R"({"a": {"$size": 2}})", R"({"a": [[1, 2, 3], 4]})", true},
    MatchCase{R"({"a": {"$size": {"$numberLong": "2"}}})", R"({"a": [1, 2]})", true},
    MatchCase{R"({"a": {"$size": {"$numberDecimal": "2.0"}}})", R"({"a": [1, 2]})", true},
    MatchCase{R"({"a.b": {"$size": 1}})", R"({"a": [{"b": [1]}, {"b": [1, 2]}]})", true},
    MatchCase{R"({"a": {"$not": {"$size": 1}}})", R"({"a": 5})", true},
    MatchCase{R"({"a.1.b": 2})", R"({"a": [{"b": 1}, {"b": 2}]})", true},
    MatchCase{R"({"a.1": {"$gt": 1}})", R"({"a": {"1": 5}})", true},
    MatchCase{R"({"a.b.1": 3})", R"({"a": [{"b": [2, 3]}]})", true},
    MatchCase{R"({"a.01": 3})", R"({"a": [2, 3]})", false},
    MatchCase{R"({"a": [1, [2]]})", R"({"a": [1, [2]]})", true},
    MatchCase{R"({"a": [1, [2]]})", R"({"a": [[1, [2]]]})", true},
    MatchCase{R"({"a": {"$in": [[1, 2], 3]}})", R"({"a": [[1, 2]]})", true},
    MatchCase{R"({"a": {"$gte": [1, 2]}})", R"({"a": [1, 3]})", true},
    MatchCase{R"({"a": {"$eq": []}})", R"({"a": [[], 1]})", true}));

INSTANTIATE_TEST_SUITE_P(LogicalRules, MatchTest, testing::Values(
    MatchCase{R"({"$nor": [{"a": {"$exists": true}}]})", R"({})", true},
    MatchCase{R"({"$nor": [{"a": 1}, {"a": 2}]})", R"({"a": [3, 4]})", true},
    MatchCase{R"({"$nor": [{"a": 1}, {"a": 2}]})", R"({"a": [3, 2]})", false},
    MatchCase{R"({"$or": [{"a": 1}], "$nor": [{"b": 1}]})", R"({"a": 1, "b": 2})", true},
    MatchCase{R"({"$and": [{"a": {"$gt": 1}}, {"a": {"$lt": 3}}]})", R"({"a": [0, 4]})", true},
    MatchCase{R"({"a": {"$not": {"$gt": 1, "$lt": 3}}})", R"({"a": 2})", false},
    MatchCase{R"({"a": {"$not": {"$gt": 1, "$lt": 3}}})", R"({"a": 5})", true},
    MatchCase{R"({"a": {"$not": {"$elemMatch": {"$gt": 1}}}})", R"({"a": [0]})", true},
    MatchCase{R"({"a": {"$not": {"$eq": null}}})", R"({})", false},
    MatchCase{R"({"$comment": {"any": "thing"}})", R"({"a": 1})", true},
    MatchCase{R"({"a": 1, "$comment": "x"})", R"({"a": 2})", false},
    MatchCase{R"({"$sampleRate": 1})", R"({})", true},
    MatchCase{R"({"$sampleRate": 0})", R"({})", false},
    MatchCase{R"({"$alwaysTrue": {"$numberLong": "1"}})", R"({})", true},
    MatchCase{R"({"$alwaysFalse": 1.0})", R"({})", false}));

struct ErrorCase {
  const char* filter;
  int code;
  const char* message;
};

void PrintTo(const ErrorCase& c, std::ostream* os) { *os << c.filter; }

// MongoDB's PCRE2 limit (src/mongo/util/pcre.cpp kMaxPatternLength):
// patterns of up to 32,764 bytes compile, longer ones are 51091 whatever
// they would compile to (a comment compiles to nothing).
TEST(RegexLimitTest, PatternsUpTo32764Bytes) {
  auto filter_for = [](const std::string& pattern) {
    return testing_json::Json(R"({"a": {"%regex": ")" + pattern + R"("}})");
  };
  EXPECT_TRUE(Matcher::Parse(filter_for(std::string(32764, 'c')).get()).ok());
  const std::string comment = "(?#" + std::string(32761, 'x') + ")";  // 32,765 bytes
  for (const std::string& pattern : {std::string(32765, 'c'), comment, std::string(100000, 'c')}) {
    auto matcher = Matcher::Parse(filter_for(pattern).get());
    ASSERT_FALSE(matcher.ok()) << pattern.size();
    EXPECT_EQ(matcher.status().code_number(), 51091);
    EXPECT_EQ(matcher.status().reason(),
              "Regular expression is invalid: pattern string is longer than the limit set by the "
              "application");
  }
  EXPECT_TRUE(Matcher::Parse(filter_for("(?#" + std::string(32760, 'x') + ")").get()).ok());
}

class MatchErrorTest : public testing::TestWithParam<ErrorCase> {};

TEST_P(MatchErrorTest, FailsLikeMongoDB) {
  const ErrorCase& c = GetParam();
  BsonDoc filter = testing_json::Json(c.filter);
  auto matcher = Matcher::Parse(filter.get());
  ASSERT_FALSE(matcher.ok());
  EXPECT_EQ(matcher.status().code_number(), c.code);
  EXPECT_EQ(matcher.status().reason(), c.message);
}

INSTANTIATE_TEST_SUITE_P(Errors, MatchErrorTest, testing::Values(
    ErrorCase{R"({"a": {"$foo": 1}})", 2, "unknown operator: $foo"},
    ErrorCase{R"({"a": {"$gt": 1, "b": 1}})", 2, "unknown operator: b"},
    ErrorCase{R"({"$foo": 1})", 2,
              "unknown top level operator: $foo. If you have a field name that starts with a '$' "
              "symbol, consider using $getField or $setField."},
    ErrorCase{R"({"a": {"$in": 1}})", 2, "$in needs an array"},
    ErrorCase{R"({"a": {"$nin": {}}})", 2, "$nin needs an array"},
    ErrorCase{R"({"a": {"$in": [{"$gt": 1}]}})", 2, "cannot nest $ under $in"},
    ErrorCase{R"({"$and": []})", 2, "$and/$or/$nor must be a nonempty array"},
    ErrorCase{R"({"$or": []})", 2, "$and/$or/$nor must be a nonempty array"},
    ErrorCase{R"({"$nor": {}})", 2, "$nor must be an array"},
    ErrorCase{R"({"$or": [1]})", 2, "$or/$and/$nor entries need to be full objects"},
    ErrorCase{R"({"$or": [{"a": {"$bad": 1}}]})", 2, "unknown operator: $bad"},
    ErrorCase{R"({"a": {"$not": 1}})", 2, "$not needs a regex or a document"},
    ErrorCase{R"({"a": {"$not": {}}})", 2, "$not cannot be empty"},
    ErrorCase{R"({"a": {"$not": {"b": 1}}})", 2, "unknown operator: b"},
    ErrorCase{R"({"a": {"$ne": {"$regularExpression": {"pattern": "x", "options": ""}}}})", 2,
              "Can't have regex as arg to $ne."},
    ErrorCase{R"({"a": {"$gt": {"$regularExpression": {"pattern": "x", "options": ""}}}})", 2,
              "Can't have RegEx as arg to predicate over field 'a'."},
    ErrorCase{R"({"a": {"$undefined": true}})", 2, "cannot compare to undefined"},
    ErrorCase{R"({"a": {"$size": "x"}})", 2,
              "Failed to parse $size. Expected a number in: $size: \"x\""},
    ErrorCase{R"({"a": {"$size": -1}})", 2,
              "Failed to parse $size. Expected a non-negative number in: $size: -1"},
    ErrorCase{R"({"a": {"$size": 1.5}})", 2, "Failed to parse $size. Expected an integer: $size: 1.5"},
    ErrorCase{R"({"a": {"$size": {"$gte": 3}}})", 2,
              "Failed to parse $size. Expected a number in: $size: { $gte: 3 }"},
    ErrorCase{R"({"a": {"$size": {"$numberLong": "3000000000"}}})", 2,
              "Failed to parse $size. Cannot represent $size: 3000000000 in an int"},
    ErrorCase{R"({"a": {"$size": {"$numberDouble": "NaN"}}})", 2,
              "Failed to parse $size. Expected an integer, but found NaN in: $size: nan.0"},
    ErrorCase{R"({"a": {"$all": 1}})", 2, "$all needs an array"},
    ErrorCase{R"({"a": {"$all": [{"$elemMatch": {"b": 1}}, 1]}})", 2,
              "$all/$elemMatch has to be consistent"},
    ErrorCase{R"({"a": {"$all": [{"$gt": 1}]}})", 2, "no $ expressions in $all"},
    ErrorCase{R"({"a": {"$elemMatch": 1}})", 2, "$elemMatch needs an Object"},
    ErrorCase{R"({"a": {"%regex": 1}})", 2, "$regex has to be a string"},
    ErrorCase{R"({"a": {"%options": "i"}})", 2, "$options needs a $regex"},
    ErrorCase{R"({"a": {"%regex": "x", "%options": 1}})", 2, "$options has to be a string"},
    ErrorCase{R"({"a": {"%regex": "x", "%options": "q"}})", 51108, "invalid flag in regex options: q"},
    ErrorCase{R"({"a": {"%regex": "("}})", 51091,
              "Regular expression is invalid: missing closing parenthesis"},
    ErrorCase{R"({"a": {"%type": "foo"}})", 2, "Unknown type name alias: foo"},
    ErrorCase{R"({"a": {"%type": 100}})", 2, "Invalid numerical type code: 100"},
    ErrorCase{R"({"a": {"%type": {}}})", 14, "type must be represented as a number or a string"},
    ErrorCase{R"({"a": {"%type": []}})", 9, "a must match at least one type"},
    ErrorCase{R"({"a.b": {"%type": []}})", 9, "a.b must match at least one type"},
    ErrorCase{R"({"a": {"%type": "missing"}})", 2,
              "'missing' is not a legal type name. To query for non-existence of a field, use "
              "{$exists:false}."},
    ErrorCase{R"({"a": {"%type": 0}})", 2,
              "Invalid numerical type code: 0. Instead use {$exists:false}."},
    ErrorCase{R"({"a": {"%type": 2.5}})", 2, "Invalid numerical type code: 2.5"},
    ErrorCase{R"({"a": {"%type": ["string", "foo"]}})", 2, "Unknown type name alias: foo"},
    ErrorCase{R"({"a": {"%type": [2, null]}})", 14, "type must be represented as a number or a string"},
    ErrorCase{R"({"a": {"$mod": 1}})", 2, "malformed mod, needs to be an array"},
    ErrorCase{R"({"a": {"$mod": [1]}})", 2, "malformed mod, not enough elements"},
    ErrorCase{R"({"a": {"$mod": [1, 2, 3]}})", 2, "malformed mod, too many elements"},
    ErrorCase{R"({"a": {"$mod": ["x", 2]}})", 2, "malformed mod, divisor not a number"},
    ErrorCase{R"({"a": {"$mod": [1, "x"]}})", 2, "malformed mod, remainder not a number"},
    ErrorCase{R"({"a": {"$mod": [0, 1]}})", 2, "divisor cannot be 0"},
    ErrorCase{R"({"a": {"$mod": [{"$numberDouble": "NaN"}, 1]}})", 2,
              "malformed mod, divisor value is invalid :: caused by :: Unable to coerce NaN/Inf "
              "to integral type"},
    ErrorCase{R"({"a": {"$where": "1"}})", 2, "$where cannot be applied to a field"},
    ErrorCase{R"({"$where": "this.a == 1"})", 2, "no globalScriptEngine in $where parsing"},
    // A well-formed $text parses (the plan executor binds it to the text
    // index, or answers 27); its operand is checked here.
    ErrorCase{R"({"$text": {"$search": 1}})", 14, "$search requires a string value"},
    ErrorCase{R"({"$text": {"$search": "x", "y": 1}})", 2, "extra fields in $text"},
    ErrorCase{R"({"$expr": {"$eq": ["$a", 1]}})", 238, "$expr is not supported by tigerdoc yet"},
    ErrorCase{R"({"a": {"$near": [0, 0]}})", 238, "$near is not supported by tigerdoc yet"},
    ErrorCase{R"({"$alwaysTrue": 2})", 9, "$alwaysTrue must be an integer value of 1"},
    ErrorCase{R"({"$alwaysFalse": "x"})", 9, "Expected a number in: $alwaysFalse: \"x\""},
    ErrorCase{R"({"$alwaysFalse": 1.5})", 9, "Expected an integer: $alwaysFalse: 1.5"},
    ErrorCase{R"({"$not": {"a": 1}})", 2,
              "unknown top level operator: $not. If you are trying to negate an entire "
              "expression, use $nor."},
    ErrorCase{R"({"a": {"$elemMatch": {"$where": "1"}}})", 2,
              "$where can only be applied to the top-level document"},
    ErrorCase{R"({"a": {"$elemMatch": {"$or": [{"$where": "1"}]}}})", 2,
              "$where can only be applied to the top-level document"},
    ErrorCase{R"({"a": {"$elemMatch": {"$expr": {"$eq": ["$b", 1]}}}})", 2,
              "$expr can only be applied to the top-level document"},
    ErrorCase{R"({"a": {"$elemMatch": {"$text": {"$search": "x"}}}})", 2,
              "$text can only be applied to the top-level document"},
    ErrorCase{R"({"$sampleRate": "x"})", 2, "argument to $sampleRate must be a numeric type"},
    ErrorCase{R"({"$sampleRate": 1.5})", 2, "numeric argument to $sampleRate must be in [0, 1]"},
    ErrorCase{R"({"$sampleRate": 0.5})", 238, "$sampleRate is not supported by tigerdoc yet"},
    ErrorCase{R"({"$jsonSchema": 1})", 14, "$jsonSchema must be an object"},
    ErrorCase{R"({"$jsonSchema": {"foo": 1}})", 9, "Unknown $jsonSchema keyword: foo"},
    ErrorCase{R"({"a": {"$mod": [1e19, 1]}})", 2,
              "malformed mod, divisor value is invalid :: caused by :: Out of bounds coercing to "
              "integral value"},
    ErrorCase{R"({"a": {"$mod": [4, {"$numberDouble": "-Infinity"}]}})", 2,
              "malformed mod, remainder value is invalid :: caused by :: Unable to coerce NaN/Inf "
              "to integral type"},
    ErrorCase{R"({"a": {"$mod": [{"$numberDecimal": "Infinity"}, 1]}})", 2,
              "malformed mod, divisor value is invalid :: caused by :: Unable to coerce NaN/Inf "
              "to integral type"},
    ErrorCase{R"({"a": {"$mod": [{"$numberDecimal": "1E+19"}, 1]}})", 2,
              "malformed mod, divisor value is invalid :: caused by :: Out of bounds coercing to "
              "integral value"},
    ErrorCase{R"({"a": {"$mod": [0.9, 1]}})", 2, "divisor cannot be 0"},
    ErrorCase{R"({"a": {"$mod": []}})", 2, "malformed mod, not enough elements"},
    ErrorCase{R"({"a": {"$in": [{"$undefined": true}]}})", 2,
              "InMatchExpression equality cannot be undefined"},
    ErrorCase{R"({"a": {"%regex": "x", "%options": "i", "b": 1}})", 2, "unknown operator: b"},
    ErrorCase{R"({"a": {"%regex": {"$regularExpression": {"pattern": "x", "options": "i"}},
                         "%options": "m"}})", 51075, "options set in both $regex and $options"},
    ErrorCase{R"({"a": {"%options": "m",
                         "%regex": {"$regularExpression": {"pattern": "x", "options": "i"}}}})",
              51074, "options set in both $regex and $options"},
    ErrorCase{R"({"a": {"$elemMatch": {"$gt": 1, "b": 1}}})", 2, "unknown operator: b"},
    ErrorCase{R"({"a": {"$all": [{"$elemMatch": {"b": 1}}, {"b": 1}]}})", 2,
              "$all/$elemMatch has to be consistent"}));

struct EqualityCase {
  const char* filter;
  const char* path;
  // JSON array of the expected values, or nullptr for nullopt.
  const char* values;
};

void PrintTo(const EqualityCase& c, std::ostream* os) { *os << c.filter << " @" << c.path; }

class EqualityValuesTest : public testing::TestWithParam<EqualityCase> {};

TEST_P(EqualityValuesTest, FindsFiniteValueSets) {
  const EqualityCase& c = GetParam();
  BsonDoc filter = testing_json::Json(c.filter);
  auto matcher = Matcher::Parse(filter.get());
  ASSERT_TRUE(matcher.ok()) << matcher.status().ToString();
  auto values = matcher.value()->EqualityValuesFor(c.path);
  if (c.values == nullptr) {
    EXPECT_FALSE(values.has_value());
    return;
  }
  ASSERT_TRUE(values.has_value());
  // Compare as one document {"0": v0, "1": v1, ...} rendered to JSON.
  bson::BsonDoc got;
  for (size_t i = 0; i < values->size(); ++i) {
    bson_iter_t it;
    ASSERT_TRUE(bson_iter_init_find(&it, (*values)[i].get(), ""));
    std::string key = std::to_string(i);
    bson_append_iter(got.mutable_get(), key.c_str(), -1, &it);
  }
  std::string expected_json = std::string(R"({"v": )") + c.values + "}";
  BsonDoc expected_wrapper = BsonDoc::FromJson(expected_json);
  bson_iter_t it;
  ASSERT_TRUE(bson_iter_init_find(&it, expected_wrapper.get(), "v"));
  bson_t expected;
  ASSERT_TRUE(bson::OpenSubdocument(&it, &expected));
  EXPECT_TRUE(bson_equal(&expected, got.get())) << got.ToJson();
}

INSTANTIATE_TEST_SUITE_P(ShardTargeting, EqualityValuesTest, testing::Values(
    EqualityCase{R"({"k": 5})", "k", "[5]"},
    EqualityCase{R"({"k": 5, "x": {"$gt": 1}})", "k", "[5]"},
    EqualityCase{R"({"k": {"$eq": "a"}})", "k", R"(["a"])"},
    EqualityCase{R"({"k": {"$in": [1, 2, 1.0]}})", "k", "[1, 2]"},
    EqualityCase{R"({"k": {"$in": []}})", "k", "[]"},
    EqualityCase{R"({"k": null})", "k", "[null]"},
    EqualityCase{R"({"k": {"a": 1}})", "k", R"([{"a": 1}])"},
    EqualityCase{R"({"k.a": 1})", "k.a", "[1]"},
    EqualityCase{R"({"$and": [{"k": {"$in": [1, 2, 3]}}, {"k": {"$in": [2, 3, 4]}}]})", "k", "[2, 3]"},
    EqualityCase{R"({"$and": [{"k": 1}, {"k": 2}]})", "k", "[]"},
    EqualityCase{R"({"$and": [{"x": 1}, {"$and": [{"k": 7}]}]})", "k", "[7]"},
    EqualityCase{R"({"k": {"$gt": 5}})", "k", nullptr},
    EqualityCase{R"({"x": 5})", "k", nullptr},
    EqualityCase{R"({})", "k", nullptr},
    EqualityCase{R"({"k": [1, 2]})", "k", nullptr},
    EqualityCase{R"({"k": {"$in": [1, {"$regularExpression": {"pattern": "a", "options": ""}}]}})", "k", nullptr},
    EqualityCase{R"({"k": {"$regularExpression": {"pattern": "a", "options": ""}}})", "k", nullptr},
    EqualityCase{R"({"$or": [{"k": 1}, {"k": 2}]})", "k", nullptr},
    EqualityCase{R"({"k": {"$ne": 1}})", "k", nullptr},
    EqualityCase{R"({"k": {"$eq": 1, "$gt": 0}})", "k", "[1]"}));

}  // namespace
}  // namespace tigerdoc::query
