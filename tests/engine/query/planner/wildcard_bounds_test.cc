// Wildcard expansion: which paths of a filter a wildcard index answers,
// the {$_path, <path>} bounds of each, and the plans ChoosePlan makes of
// them (hint, min/max refusal, sort).

#include "engine/query/planner/wildcard_bounds.h"

#include <gtest/gtest.h>

#include "engine/bson/shell_string.h"
#include "engine/index/key_generator.h"
#include "engine/query/planner/query_planner.h"
#include "tests/engine/query/test_json.h"

namespace tigerdoc::query::planner {
namespace {

std::shared_ptr<const index::IndexSpec> Spec(std::string_view json,
                                             std::set<std::string> multikey = {}) {
  auto spec = index::ParseIndexSpec(testing_json::Json(json).get());
  EXPECT_TRUE(spec.ok()) << spec.status().ToString();
  index::IndexSpec out = std::move(spec).value();
  out.id = 1;
  out.wildcard_multikey_paths = std::move(multikey);
  out.multikey = !out.wildcard_multikey_paths.empty();
  return std::make_shared<const index::IndexSpec>(std::move(out));
}

// Each expansion as "<keyPattern> <indexBounds>".
std::vector<std::string> Expand(const index::IndexSpec& spec, std::string_view filter) {
  bson::BsonDoc doc = testing_json::Json(filter);
  auto matcher = Matcher::Parse(doc.get());
  EXPECT_TRUE(matcher.ok());
  std::vector<std::string> out;
  for (const WildcardExpansion& e : ExpandWildcard(spec, matcher.value()->root())) {
    out.push_back(e.shape.fields[1].path + " " +
                  bson::ToShellString(e.bounds.ToBson(e.shape).get()));
  }
  return out;
}

using V = std::vector<std::string>;

TEST(WildcardBoundsTest, OneExpansionPerAnswerablePath) {
  auto all = Spec(R"({"key": {"$**": 1}})");
  EXPECT_EQ(Expand(*all, R"({"a": 5})"),
            V{R"~(a { $_path: [ "["a", "a"]" ], a: [ "[5, 5]" ] })~"});
  EXPECT_EQ(Expand(*all, R"({"a": {"$gt": 1, "$lt": 4}, "b.c": {"$in": [1, "x"]}})"),
            (V{R"~(a { $_path: [ "["a", "a"]" ], a: [ "(1, 4)" ] })~",
               R"~(b.c { $_path: [ "["b.c", "b.c"]" ], b.c: [ "[1, 1]", "["x", "x"]" ] })~"}));
  EXPECT_EQ(Expand(*all, R"({"a": {"$exists": true}})"),
            V{R"~(a { $_path: [ "["a", "a"]", "["a.", "a/")" ], a: [ "[MinKey, MaxKey]" ] })~"});
}

TEST(WildcardBoundsTest, QueriesTheIndexCannotAnswerExpandToNothing) {
  auto all = Spec(R"({"key": {"$**": 1}})");
  for (const char* filter :
       {R"({"a": null})", R"({"a": {"$ne": 1}})", R"({"a": {"$exists": false}})",
        R"({"a": {"b": 1}})", R"({"a": [1]})", R"({"a": {"$in": [1, null]}})",
        R"({"_id": 1})", R"({"a": {"$type": "string"}})",
        R"({"$or": [{"a": 1}, {"b": 1}]})", R"({"a": {"$gte": {"$minKey": 1}}})"}) {
    EXPECT_EQ(Expand(*all, filter), V{}) << filter;
  }
  auto rooted = Spec(R"({"key": {"a.$**": 1}})");
  EXPECT_EQ(Expand(*rooted, R"({"b": 1, "ab": 1})"), V{});
  EXPECT_EQ(Expand(*rooted, R"({"a.x": 1})").size(), 1u);
}

TEST(WildcardBoundsTest, PositionalPathsAfterAnArrayReadTheArraysPathToo) {
  // No array seen at "a": "0" can only be a field name.
  auto flat = Spec(R"({"key": {"$**": 1}})");
  EXPECT_EQ(Expand(*flat, R"({"a.0": 1})"),
            V{R"~(a.0 { $_path: [ "["a.0", "a.0"]" ], a.0: [ "[1, 1]" ] })~"});
  // "a" held an array: a.0 is an element (keyed under "a", arrays inside
  // kept whole) or a field "0" of a document in it.
  auto multikey = Spec(R"({"key": {"$**": 1}})", {"a", "a.b"});
  EXPECT_EQ(Expand(*multikey, R"({"a.0": 1})"),
            V{R"~(a.0 { $_path: [ "["a", "a"]", "["a.0", "a.0"]" ], a.0: [ "[1, 1]", "[[], BinData(0, ))" ] })~"});
  // Each position doubles the spellings: a.0.b.1 reads a.b, a.0.b, a.b.1,
  // a.0.b.1 and, for arrays held in arrays, a, a.b and a.0.b.
  EXPECT_EQ(Expand(*multikey, R"({"a.0.b.1": 2})"),
            V{R"~(a.0.b.1 { $_path: [ "["a", "a"]", "["a.0.b", "a.0.b"]", "["a.0.b.1", "a.0.b.1"]", "["a.b", "a.b"]", "["a.b.1", "a.b.1"]" ], a.0.b.1: [ "[2, 2]", "[[], BinData(0, ))" ] })~"});
  EXPECT_EQ(Expand(*multikey, R"({"a.1.c": "x"})"),
            V{R"~(a.1.c { $_path: [ "["a", "a"]", "["a.1.c", "a.1.c"]", "["a.c", "a.c"]" ], a.1.c: [ "["x", "x"]", "[[], BinData(0, ))" ] })~"});
  EXPECT_EQ(Expand(*multikey, R"({"a.0": {"$exists": true}})"),
            V{R"~(a.0 { $_path: [ "["a", "a"]", "["a.", "a/")" ], a.0: [ "[MinKey, MaxKey]" ] })~"});
  // Two positions in a row after an array would need a nested array's
  // elements, which the index never holds.
  EXPECT_EQ(Expand(*multikey, R"({"a.0.1": 1})"), V{});
  // More than 8 positions: MongoDB's limit on the 2^n spellings.
  std::set<std::string> deep_paths;
  std::string prefix, query;
  for (int i = 0; i < 9; ++i) {
    prefix += (i ? ".f" : "f");
    deep_paths.insert(prefix);
  }
  auto deep = Spec(R"({"key": {"$**": 1}})", deep_paths);
  for (int depth = 1; depth <= 9; ++depth) {
    query += (depth > 1 ? ".f.0" : "f.0");
    EXPECT_EQ(Expand(*deep, "{\"" + query + "\": 1}").size(), depth <= 8 ? 1u : 0u) << query;
  }
  // The index must hold every spelling: an inclusion of "a.0" does not
  // hold the elements of an array "a".
  auto projected = Spec(R"({"key": {"$**": 1}, "wildcardProjection": {"a.0": 1}})", {"a"});
  EXPECT_EQ(Expand(*projected, R"({"a.0": 1})"), V{});
}

TEST(WildcardBoundsTest, CollatedIndexBoundsValuesByCollationKeysAndPathsBinary) {
  auto collated = Spec(R"({"key": {"$**": 1}, "collation": {"locale": "en", "strength": 2}})");
  std::vector<WildcardExpansion> out;
  bson::BsonDoc filter = testing_json::Json(R"({"a": "ABC"})");
  auto matcher = Matcher::Parse(filter.get());
  ASSERT_TRUE(matcher.ok());
  out = ExpandWildcard(*collated, matcher.value()->root());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(out[0].shape.fields[0].never_collated);
  EXPECT_EQ(out[0].shape.collator, collated->collator);
  size_t enforced = 0;
  std::vector<KeyRange> ranges = out[0].bounds.ToKeyRanges(out[0].shape, &enforced);
  ASSERT_EQ(ranges.size(), 1u);
  EXPECT_EQ(enforced, 2u);
  // The scanned keys are those the key generator writes for "abc" at "a".
  bson::BsonDoc doc = testing_json::Json(R"({"_id": 1, "a": "abc"})");
  auto generated = index::GenerateKeys(*collated, doc.get());
  ASSERT_TRUE(generated.ok());
  const index::DocumentKeys& keys = generated.value();
  ASSERT_EQ(keys.keys.size(), 1u);
  EXPECT_GE(keys.keys[0].encoded, ranges[0].lower);
  EXPECT_LT(keys.keys[0].encoded, ranges[0].upper);
}

TEST(WildcardBoundsTest, AnArrayOnThePathForbidsIntersecting) {
  auto flat = Spec(R"({"key": {"$**": 1}})");
  EXPECT_EQ(Expand(*flat, R"({"a.b": {"$gt": 1, "$lt": 4}})"),
            V{R"~(a.b { $_path: [ "["a.b", "a.b"]" ], a.b: [ "(1, 4)" ] })~"});
  auto multikey = Spec(R"({"key": {"$**": 1}})", {"a"});
  EXPECT_EQ(Expand(*multikey, R"({"a.b": {"$gt": 1, "$lt": 4}})"),
            V{R"~(a.b { $_path: [ "["a.b", "a.b"]" ], a.b: [ "(1, inf.0]" ] })~"});
}

TEST(WildcardBoundsTest, DescendingIndexKeepsAscendingPathBounds) {
  auto desc = Spec(R"({"key": {"$**": -1}})");
  EXPECT_EQ(Expand(*desc, R"({"a": {"$lt": 3}})"),
            V{R"~(a { $_path: [ "["a", "a"]" ], a: [ "(3, -inf.0]" ] })~"});
}

class WildcardPlanTest : public testing::Test {
 protected:
  StatusWith<PlanChoice> Plan(const char* filter, const char* sort = nullptr,
                              const char* hint = nullptr, bool min_max = false) {
    filter_ = testing_json::Json(filter);
    matcher_ = std::move(Matcher::Parse(filter_.get())).value();
    PlanRequest request;
    request.matcher = matcher_.get();
    request.indexes = indexes_;
    request.min_max = min_max;
    if (sort) {
      sort_doc_ = testing_json::Json(sort);
      sort_.emplace(SortSpec::Parse(sort_doc_.get()).value());
      request.sort = &*sort_;
    }
    if (hint) {
      request.hint.kind = PlanHint::Kind::kKeyPattern;
      request.hint.key_pattern = testing_json::Json(hint);
    }
    request.collection_docs = 1000;
    return ChoosePlan(request, [](const IndexScanPlan&, int64_t) { return int64_t{5}; });
  }

  std::shared_ptr<index::IndexSet> indexes_ = std::make_shared<index::IndexSet>();
  bson::BsonDoc filter_, sort_doc_;
  std::unique_ptr<Matcher> matcher_;
  std::optional<SortSpec> sort_;
};

TEST_F(WildcardPlanTest, ChoosesAnExpandedScanFetchesAndProvidesSort) {
  indexes_->specs.push_back(Spec(R"({"key": {"$**": 1}})", {"m"}));
  auto choice = Plan(R"({"a": {"$gt": 1}})", R"({"a": -1})");
  ASSERT_TRUE(choice.ok());
  EXPECT_EQ(choice.value().winner.Describe(), "IXSCAN $**_1 a");
  EXPECT_TRUE(choice.value().winner.NeedsFilter());
  EXPECT_TRUE(choice.value().winner.scans[0].provides_sort);
  EXPECT_TRUE(choice.value().winner.scans[0].backward);
  EXPECT_FALSE(choice.value().winner.blocking_sort);
  // A multikey path, or bounds that take in the paths below, sort after.
  choice = Plan(R"({"m": {"$gt": 1}})", R"({"m": 1})");
  ASSERT_TRUE(choice.ok());
  EXPECT_TRUE(choice.value().winner.blocking_sort);
  choice = Plan(R"({"a": {"$exists": true}})", R"({"a": 1})");
  ASSERT_TRUE(choice.ok());
  EXPECT_TRUE(choice.value().winner.blocking_sort);
  EXPECT_EQ(Plan(R"({"a": null})").value().winner.Describe(), "COLLSCAN");
}

TEST_F(WildcardPlanTest, HintsAndMinMax) {
  indexes_->specs.push_back(Spec(R"({"key": {"$**": 1}})"));
  indexes_->specs.push_back(Spec(R"({"key": {"c.$**": 1}})"));
  auto choice = Plan(R"({"c.d": 1, "e": 2})", nullptr, R"({"c.$**": 1})");
  ASSERT_TRUE(choice.ok());
  EXPECT_EQ(choice.value().winner.Describe(), "IXSCAN c.$**_1 c.d");
  EXPECT_EQ(Plan(R"({"e": 2})", nullptr, R"({"c.$**": 1})").status().code_number(), 291);
  EXPECT_EQ(Plan(R"({"e": 2})", nullptr, R"({"$**": 1})", true).status().code_number(), 51174);
}

}  // namespace
}  // namespace tigerdoc::query::planner
