// Wildcard expansion: which paths of a filter a wildcard index answers,
// the {$_path, <path>} bounds of each, and the plans ChoosePlan makes of
// them (hint, min/max refusal, sort).

#include "engine/query/planner/wildcard_bounds.h"

#include <gtest/gtest.h>

#include "engine/bson/shell_string.h"
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
        R"({"a.0": 1})", R"({"a.b.1.c": 1})", R"({"_id": 1})", R"({"a": {"$type": "string"}})",
        R"({"$or": [{"a": 1}, {"b": 1}]})", R"({"a": {"$gte": {"$minKey": 1}}})"}) {
    EXPECT_EQ(Expand(*all, filter), V{}) << filter;
  }
  auto rooted = Spec(R"({"key": {"a.$**": 1}})");
  EXPECT_EQ(Expand(*rooted, R"({"b": 1, "ab": 1})"), V{});
  EXPECT_EQ(Expand(*rooted, R"({"a.x": 1})").size(), 1u);
  auto collated = Spec(R"({"key": {"$**": 1}, "collation": {"locale": "fr"}})");
  EXPECT_EQ(Expand(*collated, R"({"a": 1})"), V{});
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
