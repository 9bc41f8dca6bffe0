// Plan choice: which candidates exist for a query (visibility, sparse and
// partial rules, sort, covering, $or) and which one wins given the key
// counts of each index's bounds.

#include "engine/query/planner/query_planner.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "engine/query/planner/plan_cache.h"
#include "tests/engine/query/test_json.h"

namespace tigerdoc::query::planner {
namespace {

using bson::BsonDoc;

std::shared_ptr<const index::IndexSpec> Spec(std::string_view json, bool multikey = false) {
  auto spec = index::ParseIndexSpec(testing_json::Json(json).get());
  EXPECT_TRUE(spec.ok()) << spec.status().ToString();
  index::IndexSpec out = std::move(spec).value();
  out.id = static_cast<int64_t>(std::hash<std::string>()(out.name) & 0xFFFF);
  out.multikey = multikey;
  out.multikey_paths.assign(out.fields.size(), multikey ? std::set<size_t>{0} : std::set<size_t>{});
  return std::make_shared<const index::IndexSpec>(std::move(out));
}

class QueryPlannerTest : public testing::Test {
 protected:
  void Add(std::shared_ptr<const index::IndexSpec> spec, int64_t keys) {
    keys_[spec->name] = keys;
    indexes_->specs.push_back(std::move(spec));
  }

  // Plans `filter` (with optional sort / projection / hint name).
  StatusWith<PlanChoice> Plan(const char* filter, const char* sort = nullptr,
                              const char* projection = nullptr, const char* hint = nullptr) {
    filter_ = testing_json::Json(filter);
    auto matcher = Matcher::Parse(filter_.get());
    EXPECT_TRUE(matcher.ok());
    matcher_ = std::move(matcher).value();
    PlanRequest request;
    request.matcher = matcher_.get();
    request.indexes = indexes_;
    if (sort) {
      sort_doc_ = testing_json::Json(sort);
      sort_.emplace(SortSpec::Parse(sort_doc_.get()).value());
      request.sort = &*sort_;
    }
    if (projection) {
      projection_ = testing_json::Json(projection);
      request.projection = projection_.get();
    }
    if (hint) {
      if (hint[0] == '{') {
        request.hint.kind = PlanHint::Kind::kKeyPattern;
        request.hint.key_pattern = testing_json::Json(hint);
      } else {
        request.hint.kind = PlanHint::Kind::kIndexName;
        request.hint.name = hint;
      }
    }
    request.collection_docs = collection_docs_;
    return ChoosePlan(request, [this](const IndexScanPlan& scan, int64_t cap) {
      return std::min(cap, keys_.at(scan.index->name));
    });
  }

  std::string Winner(const char* filter, const char* sort = nullptr,
                     const char* projection = nullptr) {
    auto choice = Plan(filter, sort, projection);
    EXPECT_TRUE(choice.ok()) << choice.status().ToString();
    return choice.ok() ? choice.value().winner.Describe() : "";
  }

  std::shared_ptr<index::IndexSet> indexes_ = std::make_shared<index::IndexSet>();
  std::map<std::string, int64_t> keys_;
  int64_t collection_docs_ = 1000;
  BsonDoc filter_, sort_doc_, projection_;
  std::unique_ptr<Matcher> matcher_;
  std::optional<SortSpec> sort_;
};

TEST_F(QueryPlannerTest, WithoutIndexesOnlyCollectionScan) {
  auto choice = Plan(R"({"a": 1})");
  ASSERT_TRUE(choice.ok());
  EXPECT_EQ(choice.value().winner.Describe(), "COLLSCAN");
  EXPECT_TRUE(choice.value().rejected.empty());
}

// As MongoDB's planner: a collection scan is considered only when no index
// applies, so it is never among the rejected plans of an indexed query.
TEST_F(QueryPlannerTest, AnApplicableIndexExcludesTheCollectionScan) {
  Add(Spec(R"({"key": {"a": 1}})"), 3);
  auto choice = Plan(R"({"a": 5})");
  ASSERT_TRUE(choice.ok());
  EXPECT_EQ(choice.value().winner.Describe(), "IXSCAN a_1");
  EXPECT_TRUE(choice.value().rejected.empty());
  EXPECT_TRUE(choice.value().winner.scans[0].exact);
  EXPECT_FALSE(choice.value().winner.NeedsFilter());
  // An index on another field is no candidate.
  EXPECT_EQ(Winner(R"({"b": 5})"), "COLLSCAN");
}

TEST_F(QueryPlannerTest, FewerKeysWin) {
  Add(Spec(R"({"key": {"a": 1}})"), 400);
  Add(Spec(R"({"key": {"b": 1}})"), 2);
  EXPECT_EQ(Winner(R"({"a": {"$gt": 1}, "b": 2})"), "IXSCAN b_1");
  keys_["a_1"] = 1;
  EXPECT_EQ(Winner(R"({"a": {"$gt": 1}, "b": 2})"), "IXSCAN a_1");
}

TEST_F(QueryPlannerTest, UnselectiveIndexStillBeatsTheCollectionScan) {
  Add(Spec(R"({"key": {"a": 1}})"), 1000);
  EXPECT_EQ(Winner(R"({"a": {"$gte": 0}})"), "IXSCAN a_1");
}

TEST_F(QueryPlannerTest, HiddenIndexesAreIgnoredAndCannotBeHinted) {
  Add(Spec(R"({"key": {"a": 1}, "hidden": true})"), 1);
  EXPECT_EQ(Winner(R"({"a": 5})"), "COLLSCAN");
  auto hinted = Plan(R"({"a": 5})", nullptr, nullptr, "a_1");
  ASSERT_FALSE(hinted.ok());
  EXPECT_EQ(hinted.status().code(), ErrorCode::kBadValue);
  EXPECT_EQ(hinted.status().reason(), "hint provided does not correspond to an existing index");
}

TEST_F(QueryPlannerTest, HintByNameOrKeyPatternForcesTheIndex) {
  Add(Spec(R"({"key": {"a": 1}})"), 1000);
  Add(Spec(R"({"key": {"b": -1}, "name": "by_b"})"), 1000);
  auto by_name = Plan(R"({"a": 5})", nullptr, nullptr, "by_b");
  ASSERT_TRUE(by_name.ok());
  EXPECT_EQ(by_name.value().winner.Describe(), "IXSCAN by_b");
  EXPECT_TRUE(by_name.value().rejected.empty());
  auto by_pattern = Plan(R"({})", nullptr, nullptr, R"({"a": 1.0})");
  ASSERT_TRUE(by_pattern.ok());
  EXPECT_EQ(by_pattern.value().winner.Describe(), "IXSCAN a_1");
  EXPECT_FALSE(Plan(R"({})", nullptr, nullptr, "nope").ok());
  EXPECT_FALSE(Plan(R"({})", nullptr, nullptr, R"({"a": -1})").ok());
}

TEST_F(QueryPlannerTest, SparseIndexOnlyWhenMissingFieldsCannotMatch) {
  Add(Spec(R"({"key": {"a": 1}, "sparse": true})"), 1);
  EXPECT_EQ(Winner(R"({"a": 5})"), "IXSCAN a_1");
  EXPECT_EQ(Winner(R"({"a": {"$exists": true}})"), "IXSCAN a_1");
  EXPECT_EQ(Winner(R"({"a": null})"), "COLLSCAN");
  EXPECT_EQ(Winner(R"({"a": {"$exists": false}})"), "COLLSCAN");
  EXPECT_EQ(Winner(R"({"a": {"$ne": 5}})"), "COLLSCAN");
  // Nor for a sort alone (documents without the field would be lost).
  EXPECT_EQ(Winner(R"({})", R"({"a": 1})"), "COLLSCAN");
}

TEST_F(QueryPlannerTest, PartialIndexOnlyWhenTheFilterImpliesIt) {
  // MongoDB's manual: restaurants with rating > 5.
  Add(Spec(R"({"key": {"cuisine": 1}, "partialFilterExpression": {"rating": {"$gt": 5}}})"), 1);
  EXPECT_EQ(Winner(R"({"cuisine": "Italian", "rating": {"$gte": 8}})"), "IXSCAN cuisine_1");
  EXPECT_EQ(Winner(R"({"cuisine": "Italian", "rating": {"$lt": 8}})"), "COLLSCAN");
  EXPECT_EQ(Winner(R"({"cuisine": "Italian"})"), "COLLSCAN");
  EXPECT_FALSE(Plan(R"({"cuisine": "Italian"})", nullptr, nullptr, "cuisine_1").ok());
}

TEST_F(QueryPlannerTest, IndexProvidesSortAfterAnEqualityPrefix) {
  Add(Spec(R"({"key": {"a": 1, "b": -1}})"), 1000);
  auto sorted = Plan(R"({})", R"({"a": 1, "b": -1})");
  ASSERT_TRUE(sorted.ok());
  EXPECT_EQ(sorted.value().winner.Describe(), "IXSCAN a_1_b_-1");
  EXPECT_TRUE(sorted.value().winner.scans[0].provides_sort);
  EXPECT_FALSE(sorted.value().winner.blocking_sort);
  auto prefix = Plan(R"({"a": 3})", R"({"b": -1})");
  ASSERT_TRUE(prefix.ok());
  EXPECT_TRUE(prefix.value().winner.scans[0].provides_sort);
  // A range or $in on the prefix breaks the order.
  keys_["a_1_b_-1"] = 5;
  auto in = Plan(R"({"a": {"$in": [1, 2]}})", R"({"b": -1})");
  ASSERT_TRUE(in.ok());
  EXPECT_EQ(in.value().winner.Describe(), "IXSCAN a_1_b_-1");
  EXPECT_FALSE(in.value().winner.scans[0].provides_sort);
  EXPECT_TRUE(in.value().winner.blocking_sort);
  // The other direction reads the index backward instead of sorting.
  auto reversed = Plan(R"({"a": 3})", R"({"b": 1})");
  ASSERT_TRUE(reversed.ok());
  EXPECT_TRUE(reversed.value().winner.scans[0].provides_sort);
  EXPECT_TRUE(reversed.value().winner.scans[0].backward);
  EXPECT_FALSE(reversed.value().winner.blocking_sort);
  EXPECT_FALSE(prefix.value().winner.scans[0].backward);
}

TEST_F(QueryPlannerTest, MultikeyIndexNeitherSortsNorCovers) {
  Add(Spec(R"({"key": {"a": 1}})", /*multikey=*/true), 2);
  auto choice = Plan(R"({"a": 5})", R"({"a": 1})", R"({"a": 1, "_id": 0})");
  ASSERT_TRUE(choice.ok());
  EXPECT_EQ(choice.value().winner.Describe(), "IXSCAN a_1");
  EXPECT_FALSE(choice.value().winner.scans[0].provides_sort);
  EXPECT_FALSE(choice.value().winner.scans[0].covered);
  EXPECT_TRUE(choice.value().winner.scans[0].multikey);
}

TEST_F(QueryPlannerTest, CoveredWhenProjectionAndFilterNeedOnlyKeyFields) {
  Add(Spec(R"({"key": {"a": 1, "b": 1}})"), 2);
  auto covered = Plan(R"({"a": 5, "b": {"$gt": 1}})", nullptr, R"({"a": 1, "b": 1, "_id": 0})");
  ASSERT_TRUE(covered.ok());
  EXPECT_TRUE(covered.value().winner.scans[0].covered);
  EXPECT_FALSE(covered.value().winner.scans[0].filter_on_keys);
  // An inexact predicate on a key field runs on the key values.
  auto on_keys = Plan(R"({"a": 5, "b": {"$regex": "x"}})", nullptr, R"({"b": 1, "_id": 0})");
  ASSERT_TRUE(on_keys.ok());
  EXPECT_TRUE(on_keys.value().winner.scans[0].covered);
  EXPECT_TRUE(on_keys.value().winner.scans[0].filter_on_keys);
  // _id is projected unless excluded; other fields need the document.
  EXPECT_FALSE(Plan(R"({"a": 5})", nullptr, R"({"a": 1})").value().winner.scans[0].covered);
  EXPECT_FALSE(Plan(R"({"a": 5, "c": 1})", nullptr, R"({"a": 1, "_id": 0})").value().winner.scans[0].covered);
  // Key values keep a missing field absent (unlike MongoDB's keys), so even
  // null equality can run on them when the field never held an array.
  auto null_eq = Plan(R"({"a": null})", nullptr, R"({"a": 1, "_id": 0})");
  EXPECT_TRUE(null_eq.value().winner.scans[0].covered);
  EXPECT_TRUE(null_eq.value().winner.scans[0].filter_on_keys);
}

TEST_F(QueryPlannerTest, OrOfIndexScansWhenEveryBranchHasOne) {
  Add(Spec(R"({"key": {"a": 1}})"), 2);
  Add(Spec(R"({"key": {"b": 1}})"), 3);
  auto choice = Plan(R"({"$or": [{"a": 1}, {"b": 2}]})");
  ASSERT_TRUE(choice.ok());
  EXPECT_EQ(choice.value().winner.Describe(), "OR(IXSCAN a_1, IXSCAN b_1)");
  EXPECT_FALSE(choice.value().winner.NeedsFilter());
  EXPECT_EQ(Winner(R"({"$or": [{"a": 1}, {"c": 2}]})"), "COLLSCAN");
}

// A sorted $or whose every branch has a scan giving the sort (each in its
// own direction) is a SORT_MERGE of those scans, even when a branch's
// cheapest scan does not give it; the unsorted OR is then rejected.
TEST_F(QueryPlannerTest, SortedOrMergesBranchScansThatGiveTheSort) {
  Add(Spec(R"({"key": {"a": 1}})"), 10);
  Add(Spec(R"({"key": {"a": 1, "x": 1}})"), 10);
  Add(Spec(R"({"key": {"b": 1, "x": -1}})"), 10);
  Add(Spec(R"({"key": {"c": 1}})"), 10);
  auto merged = Plan(R"({"$or": [{"a": 1}, {"b": 2}]})", R"({"x": 1})");
  ASSERT_TRUE(merged.ok());
  const QueryPlan& winner = merged.value().winner;
  EXPECT_EQ(winner.Describe(), "SORT_MERGE(IXSCAN a_1_x_1, IXSCAN b_1_x_-1)");
  EXPECT_TRUE(winner.sort_merge);
  EXPECT_FALSE(winner.blocking_sort);
  EXPECT_FALSE(winner.scans[0].backward);
  EXPECT_TRUE(winner.scans[1].backward);
  ASSERT_EQ(merged.value().rejected.size(), 1u);
  EXPECT_EQ(merged.value().rejected[0].Describe(), "OR(IXSCAN a_1, IXSCAN b_1_x_-1)");
  // Descending: the other directions.
  auto down = Plan(R"({"$or": [{"a": 1}, {"b": 2}]})", R"({"x": -1})");
  EXPECT_TRUE(down.value().winner.scans[0].backward);
  EXPECT_FALSE(down.value().winner.scans[1].backward);
  // A branch without such a scan: OR and a blocking sort.
  auto blocking = Plan(R"({"$or": [{"a": 1}, {"c": 2}]})", R"({"x": 1})");
  ASSERT_TRUE(blocking.ok());
  EXPECT_FALSE(blocking.value().winner.sort_merge);
  EXPECT_TRUE(blocking.value().winner.blocking_sort);
  // Unsorted: no merge.
  EXPECT_EQ(Winner(R"({"$or": [{"a": 1}, {"b": 2}]})"), "OR(IXSCAN a_1, IXSCAN b_1_x_-1)");
}

TEST_F(QueryPlannerTest, CachedWinnerIsChosenWithoutCounting) {
  Add(Spec(R"({"key": {"a": 1}})"), 400);
  Add(Spec(R"({"key": {"b": 1}})"), 2);
  filter_ = testing_json::Json(R"({"a": 1, "b": 2})");
  matcher_ = Matcher::Parse(filter_.get()).value();
  PlanRequest request;
  request.matcher = matcher_.get();
  request.indexes = indexes_;
  request.collection_docs = 1000;
  request.cached_winner = "IXSCAN a_1";
  auto choice = ChoosePlan(request, [](const IndexScanPlan&, int64_t) -> int64_t {
    ADD_FAILURE() << "counted keys despite a cached plan";
    return 0;
  });
  ASSERT_TRUE(choice.ok());
  EXPECT_TRUE(choice.value().from_cache);
  EXPECT_EQ(choice.value().winner.Describe(), "IXSCAN a_1");
}

TEST(PlanCacheTest, ShapeIgnoresValuesButNotOperatorsOrTypes) {
  auto shape = [](const char* filter) {
    BsonDoc f = testing_json::Json(filter);
    return PlanCache::ShapeOf(f.get(), nullptr, nullptr, "");
  };
  EXPECT_EQ(shape(R"({"a": 1, "b": {"$gt": 2}})"), shape(R"({"a": 7, "b": {"$gt": 9.5}})"));
  EXPECT_NE(shape(R"({"a": 1})"), shape(R"({"a": {"$gt": 1}})"));
  EXPECT_NE(shape(R"({"a": 1})"), shape(R"({"a": "x"})"));
  EXPECT_NE(shape(R"({"a": 1})"), shape(R"({"b": 1})"));
}

TEST(PlanCacheTest, NewIndexSnapshotInvalidates) {
  PlanCache cache;
  auto v1 = std::make_shared<const index::IndexSet>();
  cache.Store("c1", v1, "shape", "IXSCAN a_1");
  EXPECT_EQ(cache.Lookup("c1", v1, "shape"), std::optional<std::string>("IXSCAN a_1"));
  EXPECT_EQ(cache.Lookup("c2", v1, "shape"), std::nullopt);
  auto v2 = std::make_shared<const index::IndexSet>();
  EXPECT_EQ(cache.Lookup("c1", v2, "shape"), std::nullopt);
  EXPECT_EQ(cache.Lookup("c1", v1, "shape"), std::nullopt);  // dropped for good
  EXPECT_EQ(cache.size(), 0u);
}

}  // namespace
}  // namespace tigerdoc::query::planner
