// Specification of sort keys: each row lists documents in the order MongoDB
// sorts them under a sort spec (BSON comparison order, "Sort Consistency",
// arrays by their smallest element ascending and largest descending).

#include "engine/query/sort.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/bson/bson_doc.h"
#include "tests/engine/query/test_json.h"

namespace tigerdoc::query {
namespace {

using bson::BsonDoc;

struct SortCase {
  const char* spec;
  // Documents in sorted order; adjacent ones with `ties` marked equal.
  std::vector<const char*> ordered;
  std::vector<bool> tie_with_next = {};
};

void PrintTo(const SortCase& c, std::ostream* os) { *os << c.spec; }

class SortOrderTest : public testing::TestWithParam<SortCase> {};

TEST_P(SortOrderTest, KeysOrderDocumentsLikeMongoDB) {
  const SortCase& c = GetParam();
  BsonDoc spec_doc = testing_json::Json(c.spec);
  auto spec = SortSpec::Parse(spec_doc.get());
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  std::vector<std::string> keys;
  for (const char* json : c.ordered) {
    BsonDoc doc = BsonDoc::FromJson(json);
    keys.push_back(spec.value().KeyFor(doc.get()));
  }
  for (size_t i = 0; i + 1 < keys.size(); ++i) {
    bool tie = i < c.tie_with_next.size() && c.tie_with_next[i];
    if (tie) {
      EXPECT_EQ(keys[i], keys[i + 1]) << c.ordered[i] << " vs " << c.ordered[i + 1];
    } else {
      EXPECT_LT(keys[i], keys[i + 1]) << c.ordered[i] << " should sort before " << c.ordered[i + 1];
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Orders, SortOrderTest, testing::Values(
    SortCase{R"({"a": 1})", {R"({"a": 1})", R"({"a": 2})", R"({"a": 3})"}},
    SortCase{R"({"a": -1})", {R"({"a": 3})", R"({"a": 2})", R"({"a": 1})"}},
    SortCase{R"({"a": 1})", {R"({"a": 1})", R"({"a": 1.5})", R"({"a": {"$numberLong": "2"}})",
                             R"({"a": {"$numberDecimal": "2.5"}})"}},
    SortCase{R"({"a": 1})", {R"({"a": 1})", R"({"a": 1.0})"}, {true}},
    // Mixed types: MinKey < null < numbers < strings < objects < arrays-as-elements ... < MaxKey.
    SortCase{R"({"a": 1})", {R"({"a": {"$minKey": 1}})", R"({"a": null})", R"({"a": 5})",
                             R"({"a": "x"})", R"({"a": {"b": 1}})",
                             R"({"a": {"$oid": "5f1d7a1b2c3d4e5f60718293"}})", R"({"a": true})",
                             R"({"a": {"$date": "2020-01-01T00:00:00Z"}})", R"({"a": {"$maxKey": 1}})"}},
    // Missing sorts as null (a tie).
    SortCase{R"({"a": 1})", {R"({})", R"({"a": null})"}, {true}},
    // Empty array sorts below null and missing.
    SortCase{R"({"a": 1})", {R"({"a": []})", R"({})", R"({"a": 0})"}},
    SortCase{R"({"a": -1})", {R"({"a": 0})", R"({})", R"({"a": []})"}},
    // Arrays: ascending by smallest element, descending by largest.
    SortCase{R"({"a": 1})", {R"({"a": [0, 10]})", R"({"a": 1})", R"({"a": [2, 3]})"}},
    SortCase{R"({"a": -1})", {R"({"a": [0, 10]})", R"({"a": 5})", R"({"a": [2, 3]})"}},
    SortCase{R"({"a": 1})", {R"({"a": [5, "x"]})", R"({"a": 6})"}},
    SortCase{R"({"a": -1})", {R"({"a": [5, "x"]})", R"({"a": 6})"}},
    // Nested arrays are values, not expanded: [[0]] contributes [0] (an array > numbers).
    SortCase{R"({"a": 1})", {R"({"a": [1]})", R"({"a": [[0]]})"}},
    // Dotted paths, through documents and arrays of documents.
    SortCase{R"({"a.b": 1})", {R"({"a": {"b": 1}})", R"({"a": {"b": 2}})"}},
    SortCase{R"({"a.b": 1})", {R"({"a": [{"b": 3}, {"b": 0}]})", R"({"a": [{"b": 1}]})"}},
    SortCase{R"({"a.b": -1})", {R"({"a": [{"b": 3}, {"b": 0}]})", R"({"a": [{"b": 1}]})"}},
    SortCase{R"({"a.b": 1})", {R"({"a": [{"c": 1}, {"b": 0}]})", R"({"a": [{"b": 0}]})"}},
    SortCase{R"({"a.b": 1})", {R"({"a": 5})", R"({"a": {"b": 0}})"}},
    SortCase{R"({"a.1": 1})", {R"({"a": [9, 1]})", R"({"a": [0, 2]})"}},
    // Compound keys, mixed directions.
    SortCase{R"({"a": 1, "b": -1})", {R"({"a": 1, "b": 2})", R"({"a": 1, "b": 1})", R"({"a": 2, "b": 3})"}},
    SortCase{R"({"a": -1, "b": 1})", {R"({"a": 2, "b": 3})", R"({"a": 1, "b": 1})", R"({"a": 1, "b": 2})"}},
    SortCase{R"({"s": 1})", {R"({"s": "B"})", R"({"s": "a"})", R"({"s": "ab"})", R"({"s": "b"})"}},
    // Directions are read as numberInt(): 1.5 is 1, -1.9 is -1.
    SortCase{R"({"a": 1.5})", {R"({"a": 1})", R"({"a": 2})"}},
    SortCase{R"({"a": -1.9})", {R"({"a": 2})", R"({"a": 1})"}},
    SortCase{R"({"a": {"$numberLong": "-1"}})", {R"({"a": 2})", R"({"a": 1})"}},
    SortCase{R"({"a": {"$numberDecimal": "1"}})", {R"({"a": 1})", R"({"a": 2})"}},
    // Arrays of documents: an element without the field, or a scalar, counts as null.
    SortCase{R"({"a.b": 1})", {R"({"a": [1, {"b": 2}]})", R"({"a": [{"b": 1}]})"}},
    SortCase{R"({"a.b": -1})", {R"({"a": [{"b": 3}, 1]})", R"({"a": [{"b": 2}]})"}},
    // An empty array on the way is null; at the end, undefined (below null).
    SortCase{R"({"a.b": 1})", {R"({"a": []})", R"({"a": [{"b": null}]})"}, {true}},
    SortCase{R"({"a": 1})", {R"({"a": []})", R"({"a": [null]})"}},
    // A nested empty array is an array value, above every number.
    SortCase{R"({"a": -1})", {R"({"a": [[]]})", R"({"a": [null, 1]})"}},
    // Mixed types inside one array: the canonical type order decides.
    SortCase{R"({"a": -1})", {R"({"a": [1, "x"]})", R"({"a": ["a"]})", R"({"a": [2, 3]})"}},
    SortCase{R"({"a": 1})", {R"({"a": [null, "x"]})", R"({"a": [2, "y"]})", R"({"a": ["a"]})"}}));

struct SortErrorCase {
  const char* spec;
  int code;
  const char* message;
};

void PrintTo(const SortErrorCase& c, std::ostream* os) { *os << c.spec; }

class SortErrorTest : public testing::TestWithParam<SortErrorCase> {};

TEST_P(SortErrorTest, RejectsLikeMongoDB) {
  const SortErrorCase& c = GetParam();
  BsonDoc spec_doc = testing_json::Json(c.spec);
  auto spec = SortSpec::Parse(spec_doc.get());
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.status().code_number(), c.code);
  if (c.message) {
    EXPECT_EQ(spec.status().reason(), c.message);
  }
}

INSTANTIATE_TEST_SUITE_P(Errors, SortErrorTest, testing::Values(
    SortErrorCase{R"({"a": 2})", 15975, "$sort key ordering must be 1 (for ascending) or -1 (for descending)"},
    SortErrorCase{R"({"a": 0})", 15975, nullptr},
    SortErrorCase{R"({"a": "x"})", 15974, "Illegal key in $sort specification: a: \"x\""},
    SortErrorCase{R"({"a": {"b": 1}})", 17312, "$meta is the only expression supported by $sort right now"},
    SortErrorCase{R"({"a": {}})", 17312, nullptr},
    SortErrorCase{R"({"a": {"$meta": "textScore", "b": 1}})", 9,
                  "Cannot have additional keys in a $meta sort specification"},
    SortErrorCase{R"({"a": {"$meta": "foo"}})", 31138, "Illegal $meta sort: $meta: \"foo\""},
    SortErrorCase{R"({"a": {"$meta": 1}})", 31138, "Illegal $meta sort: $meta: 1"},
    SortErrorCase{R"({"a": {"$meta": "textScore"}})", 238, nullptr},
    SortErrorCase{R"({"a": {"$meta": "randVal"}})", 238, nullptr},
    SortErrorCase{R"({"a": 0.5})", 15975, nullptr},
    SortErrorCase{R"({"a": 2.1})", 15975, nullptr},
    SortErrorCase{R"({"a": null})", 15974, "Illegal key in $sort specification: a: null"},
    SortErrorCase{R"({"a": true})", 15974, "Illegal key in $sort specification: a: true"},
    SortErrorCase{R"({"": 1})", 40352, "FieldPath cannot be constructed with empty string"},
    SortErrorCase{R"({"a..b": 1})", 15998, nullptr},
    SortErrorCase{R"({"a.": 1})", 40353, nullptr},
    SortErrorCase{R"({"%a": 1})", 16410, nullptr}));

TEST(SortSpecTest, EmptySpecIsEmpty) {
  BsonDoc spec_doc = BsonDoc::FromJson("{}");
  auto spec = SortSpec::Parse(spec_doc.get());
  ASSERT_TRUE(spec.ok());
  EXPECT_TRUE(spec.value().empty());
}

TEST(SortTextScoreTest, HighestScoreFirstThenTheNextKey) {
  BsonDoc spec_doc = BsonDoc::FromJson(R"({"s": {"$meta": "textScore"}, "_id": 1})");
  auto spec = SortSpec::Parse(spec_doc.get(), nullptr, /*allow_text_score=*/true);
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  ASSERT_TRUE(spec.value().has_text_score());
  // The score comes from the scorer (here the field "score"), not from "s".
  spec.value().SetTextScorer([](const bson_t* doc) {
    bson_iter_t it;
    return bson_iter_init_find(&it, doc, "score") ? bson_iter_as_double(&it) : 0.0;
  });
  BsonDoc high = BsonDoc::FromJson(R"({"_id": 3, "score": 2.5, "s": -100})");
  BsonDoc low_first = BsonDoc::FromJson(R"({"_id": 1, "score": 0.75, "s": 100})");
  BsonDoc low_second = BsonDoc::FromJson(R"({"_id": 2, "score": 0.75})");
  EXPECT_LT(spec.value().KeyFor(high.get()), spec.value().KeyFor(low_first.get()));
  EXPECT_LT(spec.value().KeyFor(low_first.get()), spec.value().KeyFor(low_second.get()));
}

}  // namespace
}  // namespace tigerdoc::query
