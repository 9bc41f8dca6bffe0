// Table-driven specification of index bounds derivation: each row is a
// filter, an index (key pattern, multikey fields, sparse), the bounds
// MongoDB's explain prints for it, and whether the bounds are exact. A
// second table checks the key ranges against the matcher on sample
// documents: an entry is scanned (in a range and KeyInBounds) whenever its
// document matches, and only then when the bounds are exact.

#include "engine/query/planner/index_bounds.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "engine/bson/bson_doc.h"
#include "engine/bson/field_path.h"
#include "engine/query/matcher/matcher.h"
#include "tests/engine/query/test_json.h"

namespace tigerdoc::query::planner {
namespace {

using bson::BsonDoc;

// {a: 1, b: -1} -> fields; `multikey` lists multikey fields, comma-separated.
IndexShape ShapeOf(const char* key_pattern, const std::string& multikey, bool sparse) {
  IndexShape shape;
  shape.sparse = sparse;
  BsonDoc pattern = BsonDoc::FromJson(key_pattern);
  bson_iter_t it;
  bson_iter_init(&it, pattern.get());
  while (bson_iter_next(&it)) {
    IndexKeyField field;
    field.path = bson_iter_key(&it);
    field.direction = bson_iter_as_int64(&it) < 0 ? keystring::Direction::kDescending
                                                  : keystring::Direction::kAscending;
    std::stringstream list(multikey);
    std::string name;
    while (std::getline(list, name, ',')) {
      if (name == field.path) field.multikey = true;
      // "a.b^": multikey through an array before the last component.
      if (name == field.path + "^") field.multikey = field.array_before_leaf = true;
    }
    shape.fields.push_back(field);
  }
  return shape;
}

struct BoundsCase {
  const char* filter;
  const char* index;
  const char* multikey;
  bool sparse;
  const char* bounds;  // explain's indexBounds, as JSON
  bool exact;
};

void PrintTo(const BoundsCase& c, std::ostream* os) {
  *os << "filter " << c.filter << " index " << c.index << " multikey [" << c.multikey << "]";
}

class BoundsTest : public testing::TestWithParam<BoundsCase> {};

TEST_P(BoundsTest, MatchesMongoDBExplain) {
  const BoundsCase& c = GetParam();
  BsonDoc filter = testing_json::Json(c.filter);
  auto matcher = Matcher::Parse(filter.get());
  ASSERT_TRUE(matcher.ok()) << matcher.status().ToString();
  IndexShape shape = ShapeOf(c.index, c.multikey, c.sparse);
  ConjunctionBounds result = BoundsForConjunction(matcher.value()->root(), shape);
  EXPECT_EQ(result.bounds.ToBson(shape).ToJson(), BsonDoc::FromJson(c.bounds).ToJson());
  EXPECT_EQ(result.exact, c.exact);
}

INSTANTIATE_TEST_SUITE_P(
    Equality, BoundsTest,
    testing::Values(
        BoundsCase{R"j({"a": 5})j", R"j({"a": 1})j", "", false, R"j({"a": ["[5, 5]"]})j", true},
        BoundsCase{R"j({"a": {"%eq": "x"}})j", R"j({"a": 1})j", "", false,
                   R"j({"a": ["[\"x\", \"x\"]"]})j", true},
        BoundsCase{R"j({"a": 5.5})j", R"j({"a": -1})j", "", false, R"j({"a": ["[5.5, 5.5]"]})j", true},
        BoundsCase{R"j({"a": {"b": 1}})j", R"j({"a": 1})j", "", false,
                   R"j({"a": ["[{ b: 1 }, { b: 1 }]"]})j", true},
        // Null also finds missing fields and undefined: never exact.
        BoundsCase{R"j({"a": null})j", R"j({"a": 1})j", "", false,
                   R"j({"a": ["[undefined, undefined]", "[null, null]"]})j", false},
        // An array finds itself and, through a multikey index, its first element.
        BoundsCase{R"j({"a": [1, 2]})j", R"j({"a": 1})j", "", false,
                   R"j({"a": ["[1, 1]", "[[ 1, 2 ], [ 1, 2 ]]"]})j", false},
        BoundsCase{R"j({"a": []})j", R"j({"a": 1})j", "", false,
                   R"j({"a": ["[undefined, undefined]", "[[], []]"]})j", false},
        // Equality on a multikey field is still exact (with dedupe).
        BoundsCase{R"j({"a": 5})j", R"j({"a": 1})j", "a", false, R"j({"a": ["[5, 5]"]})j", true},
        // A predicate on another field stays in the filter.
        BoundsCase{R"j({"a": 5, "c": 1})j", R"j({"a": 1})j", "", false, R"j({"a": ["[5, 5]"]})j",
                   false},
        BoundsCase{R"j({"b": 5})j", R"j({"a": 1})j", "", false, R"j({"a": ["[MinKey, MaxKey]"]})j",
                   false},
        BoundsCase{R"j({"a.b": 5})j", R"j({"a.b": 1})j", "", false, R"j({"a.b": ["[5, 5]"]})j", true}));

INSTANTIATE_TEST_SUITE_P(
    Ranges, BoundsTest,
    testing::Values(
        BoundsCase{R"j({"a": {"%gt": 5}})j", R"j({"a": 1})j", "", false, R"j({"a": ["(5, inf.0]"]})j",
                   true},
        BoundsCase{R"j({"a": {"%lt": 5}})j", R"j({"a": 1})j", "", false, R"j({"a": ["[-inf.0, 5)"]})j",
                   true},
        BoundsCase{R"j({"a": {"%gte": 1, "%lt": 5}})j", R"j({"a": 1})j", "", false,
                   R"j({"a": ["[1, 5)"]})j", true},
        // Descending fields print (and scan) their intervals reversed.
        BoundsCase{R"j({"a": {"%gt": 5}})j", R"j({"a": -1})j", "", false, R"j({"a": ["[inf.0, 5)"]})j",
                   true},
        BoundsCase{R"j({"a": {"%lte": "m"}})j", R"j({"a": 1})j", "", false,
                   R"j({"a": ["[\"\", \"m\"]"]})j", true},
        BoundsCase{R"j({"a": {"%gt": "m"}})j", R"j({"a": 1})j", "", false,
                   R"j({"a": ["(\"m\", {})"]})j", true},
        BoundsCase{R"j({"a": {"%gt": true}})j", R"j({"a": 1})j", "", false,
                   R"j({"a": []})j", true},
        BoundsCase{R"j({"a": {"%gte": {"$date": 0}}})j", R"j({"a": 1})j", "", false,
                   R"j({"a": ["[new Date(0), new Date(9223372036854775807)]"]})j", true},
        BoundsCase{R"j({"a": {"%gt": {"$minKey": 1}}})j", R"j({"a": 1})j", "", false,
                   R"j({"a": ["(MinKey, MaxKey]"]})j", true},
        BoundsCase{R"j({"a": {"%lt": {"$maxKey": 1}}})j", R"j({"a": 1})j", "", false,
                   R"j({"a": ["[MinKey, MaxKey)"]})j", true},
        BoundsCase{R"j({"a": {"%lt": {"$minKey": 1}}})j", R"j({"a": 1})j", "", false, R"j({"a": []})j",
                   true},
        BoundsCase{R"j({"a": {"%gt": null}})j", R"j({"a": 1})j", "", false, R"j({"a": []})j", true},
        BoundsCase{R"j({"a": {"%gte": null}})j", R"j({"a": 1})j", "", false,
                   R"j({"a": ["[undefined, undefined]", "[null, null]"]})j", false},
        BoundsCase{R"j({"a": {"%gt": 5, "%lt": 3}})j", R"j({"a": 1})j", "", false, R"j({"a": []})j",
                   true},
        // Multikey: the two ranges are not intersected; the second stays in
        // the filter.
        BoundsCase{R"j({"a": {"%gt": 1, "%lt": 5}})j", R"j({"a": 1})j", "a", false,
                   R"j({"a": ["(1, inf.0]"]})j", false},
        // ... unless one $elemMatch holds both for one element.
        BoundsCase{R"j({"a": {"%elemMatch": {"%gt": 1, "%lt": 5}}})j", R"j({"a": 1})j", "a", false,
                   R"j({"a": ["(1, 5)"]})j", false},
        // Comparisons to arrays are not bounded.
        BoundsCase{R"j({"a": {"%gt": [1]}})j", R"j({"a": 1})j", "", false,
                   R"j({"a": ["[MinKey, MaxKey]"]})j", false}));

INSTANTIATE_TEST_SUITE_P(
    InAndRegex, BoundsTest,
    testing::Values(
        BoundsCase{R"j({"a": {"%in": [3, 1, 2, 1]}})j", R"j({"a": 1})j", "", false,
                   R"j({"a": ["[1, 1]", "[2, 2]", "[3, 3]"]})j", true},
        BoundsCase{R"j({"a": {"%in": [3, 1]}})j", R"j({"a": -1})j", "", false,
                   R"j({"a": ["[3, 3]", "[1, 1]"]})j", true},
        BoundsCase{R"j({"a": {"%in": []}})j", R"j({"a": 1})j", "", false, R"j({"a": []})j", true},
        BoundsCase{R"j({"a": {"%in": [1, null]}})j", R"j({"a": 1})j", "", false,
                   R"j({"a": ["[undefined, undefined]", "[null, null]", "[1, 1]"]})j", false},
        BoundsCase{R"j({"a": {"%regex": "^abc"}})j", R"j({"a": 1})j", "", false,
                   R"j({"a": ["[\"abc\", \"abd\")", "[/^abc/, /^abc/]"]})j", true},
        BoundsCase{R"j({"a": {"%regex": "^abc.*x"}})j", R"j({"a": 1})j", "", false,
                   R"j({"a": ["[\"abc\", \"abd\")", "[/^abc.*x/, /^abc.*x/]"]})j", false},
        BoundsCase{R"j({"a": {"%regex": "^abc?"}})j", R"j({"a": 1})j", "", false,
                   R"j({"a": ["[\"ab\", \"ac\")", "[/^abc?/, /^abc?/]"]})j", false},
        BoundsCase{R"j({"a": {"%regex": "^a\\.b"}})j", R"j({"a": 1})j", "", false,
                   R"j({"a": ["[\"a.b\", \"a.c\")", "[/^a\\.b/, /^a\\.b/]"]})j", true},
        // Not anchored, or case-insensitive: all strings.
        BoundsCase{R"j({"a": {"%regex": "abc"}})j", R"j({"a": 1})j", "", false,
                   R"j({"a": ["[\"\", {})", "[/abc/, /abc/]"]})j", false},
        BoundsCase{R"j({"a": {"%regex": "^abc", "%options": "i"}})j", R"j({"a": 1})j", "", false,
                   R"j({"a": ["[\"\", {})", "[/^abc/i, /^abc/i]"]})j", false},
        BoundsCase{R"j({"a": {"%regex": "^a|b"}})j", R"j({"a": 1})j", "", false,
                   R"j({"a": ["[\"\", {})", "[/^a|b/, /^a|b/]"]})j", false},
        BoundsCase{R"j({"a": {"%in": [1, {"$regularExpression": {"pattern": "^x", "options": ""}}]}})j",
                   R"j({"a": 1})j", "", false,
                   R"j({"a": ["[1, 1]", "[\"x\", \"y\")", "[/^x/, /^x/]"]})j", true}));

INSTANTIATE_TEST_SUITE_P(
    ExistsAndNegation, BoundsTest,
    testing::Values(
        BoundsCase{R"j({"a": {"%exists": true}})j", R"j({"a": 1})j", "", false,
                   R"j({"a": ["[MinKey, MaxKey]"]})j", false},
        BoundsCase{R"j({"a": {"%exists": true}})j", R"j({"a": 1})j", "", true,
                   R"j({"a": ["[MinKey, MaxKey]"]})j", true},
        BoundsCase{R"j({"a": {"%exists": false}})j", R"j({"a": 1})j", "", false,
                   R"j({"a": ["[null, null]"]})j", false},
        BoundsCase{R"j({"a": {"%ne": 5}})j", R"j({"a": 1})j", "", false,
                   R"j({"a": ["[MinKey, 5)", "(5, MaxKey]"]})j", true},
        // Multikey: an empty array (keyed undefined) matches every negation.
        BoundsCase{R"j({"a": {"%ne": 5}})j", R"j({"a": 1})j", "a", false,
                   R"j({"a": ["[MinKey, 5)", "(5, MaxKey]"]})j", false},
        BoundsCase{R"j({"a": {"%ne": null}})j", R"j({"a": 1})j", "a", false,
                   R"j({"a": ["[MinKey, undefined]", "(null, MaxKey]"]})j", false},
        // Issue #19: {"a.b"} through an array keys null where a.b has no
        // value ({a: []}, {a: ["x"]}) and $ne: null matches: null stays in.
        BoundsCase{R"j({"a.b": {"%ne": null}})j", R"j({"a.b": 1})j", "a.b^", false,
                   R"j({"a.b": ["[MinKey, undefined]", "[null, MaxKey]"]})j", false},
        BoundsCase{R"j({"a.b": {"%nin": [null, 5]}})j", R"j({"a.b": 1})j", "a.b^", false,
                   R"j({"a.b": ["[MinKey, undefined]", "[null, 5)", "(5, MaxKey]"]})j", false},
        BoundsCase{R"j({"a": {"%ne": 5}})j", R"j({"a": -1})j", "", false,
                   R"j({"a": ["[MaxKey, 5)", "(5, MinKey]"]})j", true},
        BoundsCase{R"j({"a": {"%ne": null}})j", R"j({"a": 1})j", "", false,
                   R"j({"a": ["[MinKey, undefined)", "(null, MaxKey]"]})j", true},
        BoundsCase{R"j({"a": {"%nin": [1, 3]}})j", R"j({"a": 1})j", "", false,
                   R"j({"a": ["[MinKey, 1)", "(1, 3)", "(3, MaxKey]"]})j", true},
        BoundsCase{R"j({"a": {"%not": {"%gt": 5}}})j", R"j({"a": 1})j", "", false,
                   R"j({"a": ["[MinKey, 5]", "(inf.0, MaxKey]"]})j", true},
        // $not of a regex and $ne of an array are not indexable.
        BoundsCase{R"j({"a": {"%not": {"$regularExpression": {"pattern": "^x", "options": ""}}}})j",
                   R"j({"a": 1})j", "", false, R"j({"a": ["[MinKey, MaxKey]"]})j", false},
        BoundsCase{R"j({"a": {"%ne": [1]}})j", R"j({"a": 1})j", "", false,
                   R"j({"a": ["[MinKey, MaxKey]"]})j", false},
        BoundsCase{R"j({"a": {"%mod": [2, 0]}})j", R"j({"a": 1})j", "", false,
                   R"j({"a": ["[MinKey, MaxKey]"]})j", false}));

INSTANTIATE_TEST_SUITE_P(
    Compound, BoundsTest,
    testing::Values(
        BoundsCase{R"j({"a": 1, "b": {"%gt": 2}})j", R"j({"a": 1, "b": 1})j", "", false,
                   R"j({"a": ["[1, 1]"], "b": ["(2, inf.0]"]})j", true},
        BoundsCase{R"j({"a": 1, "b": {"%gt": 2}})j", R"j({"a": 1, "b": -1})j", "", false,
                   R"j({"a": ["[1, 1]"], "b": ["[inf.0, 2)"]})j", true},
        BoundsCase{R"j({"b": 2})j", R"j({"a": 1, "b": 1})j", "", false,
                   R"j({"a": ["[MinKey, MaxKey]"], "b": ["[2, 2]"]})j", true},
        // Multikey fields may compound when their paths differ...
        BoundsCase{R"j({"a": 1, "b": 2})j", R"j({"a": 1, "b": 1})j", "a", false,
                   R"j({"a": ["[1, 1]"], "b": ["[2, 2]"]})j", true},
        // ... but not below a shared multikey prefix ...
        BoundsCase{R"j({"a.b": 1, "a.c": 2})j", R"j({"a.b": 1, "a.c": 1})j", "a.b,a.c", false,
                   R"j({"a.b": ["[1, 1]"], "a.c": ["[MinKey, MaxKey]"]})j", false},
        // ... unless one $elemMatch holds both for one element.
        BoundsCase{R"j({"a": {"%elemMatch": {"b": 1, "c": 2}}})j", R"j({"a.b": 1, "a.c": 1})j",
                   "a.b,a.c", false, R"j({"a.b": ["[1, 1]"], "a.c": ["[2, 2]"]})j", false},
        BoundsCase{R"j({"%and": [{"a": {"%in": [1, 2]}}, {"b": {"%lte": 0}}]})j",
                   R"j({"a": 1, "b": 1})j", "", false,
                   R"j({"a": ["[1, 1]", "[2, 2]"], "b": ["[-inf.0, 0]"]})j", true},
        BoundsCase{R"j({"a": 1, "%or": [{"b": 1}, {"c": 1}]})j", R"j({"a": 1, "b": 1})j", "", false,
                   R"j({"a": ["[1, 1]"], "b": ["[MinKey, MaxKey]"]})j", false}));

// --- key ranges against the matcher -----------------------------------------

struct RangeCase {
  const char* filter;
  const char* index;
};

void PrintTo(const RangeCase& c, std::ostream* os) { *os << c.filter << " on " << c.index; }

// The keys a non-multikey index holds for `doc` (missing -> null), plus a
// record-key suffix, and the key values document the entry carries.
std::string KeyFor(const bson_t* doc, const IndexShape& shape, BsonDoc* key_values) {
  keystring::KeyBuilder key;
  for (const IndexKeyField& field : shape.fields) {
    bool found = false;
    bson::VisitPath(doc, bson::FieldPath(field.path), bson::LeafArrays::kNoTraversal,
                    [&](const bson_iter_t* v) {
                      if (v == nullptr || found) return true;
                      key.Append(v, field.direction);
                      bson_append_iter(key_values->mutable_get(), field.path.c_str(), -1, v);
                      found = true;
                      return true;
                    });
    if (!found) key.AppendNull(field.direction);  // absent from the key values
  }
  key.AppendEncoded(std::string("\x50record", 7));
  return key.Release();
}

class KeyRangeTest : public testing::TestWithParam<RangeCase> {};

TEST_P(KeyRangeTest, ScansEveryMatchAndOnlyMatchesWhenExact) {
  const RangeCase& c = GetParam();
  const char* docs[] = {
      R"j({})j",
      R"j({"a": null, "b": null})j",
      R"j({"a": 0, "b": 0})j",
      R"j({"a": 1, "b": 1})j",
      R"j({"a": 1, "b": 2})j",
      R"j({"a": 1, "b": 3})j",
      R"j({"a": 2, "b": 1})j",
      R"j({"a": 2, "b": 5.5})j",
      R"j({"a": 3, "b": "x"})j",
      R"j({"a": -1.5, "b": {"c": 1}})j",
      R"j({"a": 5, "b": -1})j",
      R"j({"a": 5.5, "b": 9})j",
      R"j({"a": {"$numberDouble": "NaN"}, "b": 1})j",
      R"j({"a": {"$numberDouble": "Infinity"}, "b": 1})j",
      R"j({"a": "abc", "b": 1})j",
      R"j({"a": "abd", "b": 1})j",
      R"j({"a": "ab", "b": 1})j",
      R"j({"a": "abcdef", "b": 2})j",
      R"j({"a": "m", "b": 2})j",
      R"j({"a": true, "b": false})j",
      R"j({"a": {"$date": 5}, "b": 1})j",
      R"j({"a": {"$oid": "5f1d7a1b2c3d4e5f60718293"}, "b": 2})j",
      R"j({"a": {"x": 1}, "b": 2})j",
      R"j({"b": 2})j",
      R"j({"a": 2})j",
  };
  BsonDoc filter = testing_json::Json(c.filter);
  auto matcher = Matcher::Parse(filter.get());
  ASSERT_TRUE(matcher.ok()) << matcher.status().ToString();
  IndexShape shape = ShapeOf(c.index, "", false);
  ConjunctionBounds result = BoundsForConjunction(matcher.value()->root(), shape);
  size_t enforced = 0;
  std::vector<KeyRange> ranges = result.bounds.ToKeyRanges(shape, &enforced);
  for (size_t i = 1; i < ranges.size(); ++i) {
    EXPECT_LE(ranges[i - 1].upper, ranges[i].lower) << "ranges overlap or are out of order";
  }
  for (const char* text : docs) {
    BsonDoc doc = testing_json::Json(text);
    BsonDoc key_values;
    std::string key = KeyFor(doc.get(), shape, &key_values);
    bool in_range = false;
    for (const KeyRange& r : ranges) {
      if (key >= r.lower && (r.upper.empty() || key < r.upper)) in_range = true;
    }
    bool scanned = in_range && result.bounds.KeyInBounds(key_values.get(), shape, enforced);
    bool matches = matcher.value()->Matches(doc.get());
    if (matches) {
      EXPECT_TRUE(scanned) << "missed matching document " << text;
    }
    if (result.exact) {
      EXPECT_EQ(scanned, matches) << "exact bounds scanned " << text;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Documents, KeyRangeTest,
    testing::Values(RangeCase{R"j({"a": 1})j", R"j({"a": 1})j"},
                    RangeCase{R"j({"a": 1})j", R"j({"a": -1})j"},
                    RangeCase{R"j({"a": null})j", R"j({"a": 1})j"},
                    RangeCase{R"j({"a": {"%gt": 1}})j", R"j({"a": 1})j"},
                    RangeCase{R"j({"a": {"%gt": 1}})j", R"j({"a": -1})j"},
                    RangeCase{R"j({"a": {"%gte": 1, "%lte": 5}})j", R"j({"a": -1})j"},
                    RangeCase{R"j({"a": {"%lt": 5}})j", R"j({"a": 1})j"},
                    RangeCase{R"j({"a": {"%lt": "abd"}})j", R"j({"a": -1})j"},
                    RangeCase{R"j({"a": {"%in": [1, "abc", 5.5]}})j", R"j({"a": -1})j"},
                    RangeCase{R"j({"a": {"%regex": "^ab"}})j", R"j({"a": 1})j"},
                    RangeCase{R"j({"a": {"%regex": "^ab"}})j", R"j({"a": -1})j"},
                    RangeCase{R"j({"a": {"%regex": "bc"}})j", R"j({"a": 1})j"},
                    RangeCase{R"j({"a": {"%ne": 1}})j", R"j({"a": 1})j"},
                    RangeCase{R"j({"a": {"%ne": null}})j", R"j({"a": -1})j"},
                    RangeCase{R"j({"a": {"%nin": [1, 2, "m"]}})j", R"j({"a": 1})j"},
                    RangeCase{R"j({"a": {"%not": {"%lt": 2}}})j", R"j({"a": -1})j"},
                    RangeCase{R"j({"a": {"%exists": false}})j", R"j({"a": 1})j"},
                    RangeCase{R"j({"a": {"%exists": true}})j", R"j({"a": 1})j"},
                    RangeCase{R"j({"a": 1, "b": {"%gte": 2}})j", R"j({"a": 1, "b": 1})j"},
                    RangeCase{R"j({"a": 1, "b": {"%gte": 2}})j", R"j({"a": -1, "b": -1})j"},
                    RangeCase{R"j({"a": {"%in": [1, 2]}, "b": {"%lt": 3}})j", R"j({"a": 1, "b": -1})j"},
                    RangeCase{R"j({"a": {"%gt": 0}, "b": 1})j", R"j({"a": 1, "b": 1})j"},
                    RangeCase{R"j({"b": {"%in": [1, 2]}})j", R"j({"a": 1, "b": 1})j"},
                    RangeCase{R"j({"a": {"%lte": 2}, "b": {"%ne": 1}})j", R"j({"a": -1, "b": 1})j"}));

// --- partial filter implication -----------------------------------------------

struct ImpliesCase {
  const char* query;
  const char* partial;
  bool implies;
};

void PrintTo(const ImpliesCase& c, std::ostream* os) {
  *os << c.query << (c.implies ? " implies " : " does not imply ") << c.partial;
}

class ImpliesTest : public testing::TestWithParam<ImpliesCase> {};

TEST_P(ImpliesTest, LikeMongoDBPartialIndexes) {
  const ImpliesCase& c = GetParam();
  BsonDoc query = testing_json::Json(c.query);
  BsonDoc partial = testing_json::Json(c.partial);
  auto q = Matcher::Parse(query.get());
  auto p = Matcher::Parse(partial.get());
  ASSERT_TRUE(q.ok() && p.ok());
  EXPECT_EQ(QueryImplies(q.value()->root(), p.value()->root()), c.implies);
}

INSTANTIATE_TEST_SUITE_P(
    ManualExamples, ImpliesTest,
    testing::Values(
        // MongoDB's manual, "Partial Indexes": {rating: {$gt: 5}}.
        ImpliesCase{R"j({"cuisine": "Italian", "rating": {"%gte": 8}})j",
                    R"j({"rating": {"%gt": 5}})j", true},
        ImpliesCase{R"j({"cuisine": "Italian", "rating": {"%lt": 8}})j",
                    R"j({"rating": {"%gt": 5}})j", false},
        ImpliesCase{R"j({"cuisine": "Italian"})j", R"j({"rating": {"%gt": 5}})j", false},
        ImpliesCase{R"j({"rating": 6})j", R"j({"rating": {"%gt": 5}})j", true},
        ImpliesCase{R"j({"rating": {"%in": [6, 7]}})j", R"j({"rating": {"%gt": 5}})j", true},
        ImpliesCase{R"j({"rating": {"%in": [5, 7]}})j", R"j({"rating": {"%gt": 5}})j", false},
        // {email: {$exists: true}}: implied by any predicate a missing field fails.
        ImpliesCase{R"j({"email": "x@y"})j", R"j({"email": {"%exists": true}})j", true},
        ImpliesCase{R"j({"email": {"%exists": true}})j", R"j({"email": {"%exists": true}})j", true},
        ImpliesCase{R"j({"email": null})j", R"j({"email": {"%exists": true}})j", false},
        ImpliesCase{R"j({"a": 1, "b": {"%gt": 3}})j", R"j({"a": 1, "b": {"%gt": 2}})j", true},
        ImpliesCase{R"j({"a": 1})j", R"j({"a": 1, "b": {"%gt": 2}})j", false}));

}  // namespace
}  // namespace tigerdoc::query::planner
