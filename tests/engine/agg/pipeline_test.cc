// Table-driven specification of aggregation stages and accumulators, from
// MongoDB's reference examples: each row runs a pipeline over in-memory
// documents and lists the exact output documents (in order) or the error.

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "engine/agg/stage_registry.h"
#include "tests/engine/agg/agg_test_util.h"

namespace tigerdoc::agg {
namespace {

using testing::J;
using testing::RunPipeline;

struct PipelineCase {
  const char* name;
  const char* pipeline;
  std::vector<std::string> input;
  std::vector<std::string> expected;
  int error = 0;
};

void PrintTo(const PipelineCase& c, std::ostream* os) { *os << c.name << ": " << c.pipeline; }

class PipelineTest : public ::testing::TestWithParam<PipelineCase> {};

void ExpectDocs(const std::vector<bson::BsonDoc>& got, const std::vector<std::string>& want) {
  std::string got_json;
  for (const auto& d : got) got_json += d.ToJson() + "\n";
  ASSERT_EQ(got.size(), want.size()) << got_json;
  for (size_t i = 0; i < want.size(); ++i) {
    bson::BsonDoc w = J(want[i]);
    EXPECT_TRUE(testing::SameDocs(got[i].get(), w.get()))
        << "doc " << i << ": got " << got[i].ToJson() << " want " << w.ToJson();
  }
}

TEST_P(PipelineTest, ProducesMongoDBOutput) {
  const PipelineCase& c = GetParam();
  auto out = RunPipeline(c.pipeline, c.input);
  if (c.error != 0) {
    ASSERT_FALSE(out.ok()) << "expected error " << c.error;
    EXPECT_EQ(out.status().code_number(), c.error) << out.status().ToString();
    return;
  }
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ExpectDocs(out.value(), c.expected);
}

const std::vector<std::string> kSales = {
    R"({"_id": 1, "item": "abc", "price": 10, "quantity": 2})",
    R"({"_id": 2, "item": "jkl", "price": 20, "quantity": 1})",
    R"({"_id": 3, "item": "xyz", "price": 5, "quantity": 10})",
    R"({"_id": 4, "item": "xyz", "price": 5, "quantity": 20})",
    R"({"_id": 5, "item": "abc", "price": 10, "quantity": 10})",
};

INSTANTIATE_TEST_SUITE_P(CountDocuments, PipelineTest, ::testing::Values(
    PipelineCase{"count_documents", R"([{"$match": {"item": "xyz"}}, {"$skip": 0}, {"$limit": 10}, {"$group": {"_id": 1, "n": {"$sum": 1}}}])",
                 kSales, {R"({"_id": 1, "n": 2})"}},
    PipelineCase{"count_documents_empty", R"([{"$match": {"item": "none"}}, {"$group": {"_id": 1, "n": {"$sum": 1}}}])",
                 kSales, {}},
    PipelineCase{"count_documents_skip_limit", R"([{"$match": {}}, {"$skip": 1}, {"$limit": 3}, {"$group": {"_id": 1, "n": {"$sum": 1}}}])",
                 kSales, {R"({"_id": 1, "n": 3})"}}));

INSTANTIATE_TEST_SUITE_P(MatchSortLimitSkip, PipelineTest, ::testing::Values(
    PipelineCase{"match_query", R"([{"$match": {"price": {"$gte": 10}, "quantity": {"$lt": 5}}}])", kSales,
                 {kSales[0], kSales[1]}},
    PipelineCase{"match_expr", R"([{"$match": {"$expr": {"$gt": ["$quantity", "$price"]}}}])", kSales,
                 {kSales[2], kSales[3]}},
    PipelineCase{"match_bad", R"([{"$match": 1}])", kSales, {}, 15959},
    PipelineCase{"sort_desc_then_id", R"([{"$sort": {"price": -1, "_id": 1}}, {"$limit": 3}])", kSales,
                 {kSales[1], kSales[0], kSales[4]}},
    PipelineCase{"skip", R"([{"$skip": 3}])", kSales, {kSales[3], kSales[4]}},
    PipelineCase{"limit_zero", R"([{"$limit": 0}])", kSales, {}, 15958},
    PipelineCase{"limit_string", R"([{"$limit": "a"}])", kSales, {}, 15957},
    PipelineCase{"skip_negative", R"([{"$skip": -1}])", kSales, {}, 15956},
    PipelineCase{"sort_empty", R"([{"$sort": {}}])", kSales, {}, 15976},
    PipelineCase{"sort_bad_direction", R"([{"$sort": {"a": 2}}])", kSales, {}, 15975},
    PipelineCase{"unknown_stage", R"([{"$frobnicate": {}}])", kSales, {}, 40324},
    PipelineCase{"two_fields", R"([{"$match": {}, "$limit": 1}])", kSales, {}, 40323},
    PipelineCase{"count", R"([{"$match": {"item": "abc"}}, {"$count": "total"}])", kSales, {R"({"total": 2})"}},
    PipelineCase{"count_dollar", R"([{"$count": "$x"}])", kSales, {}, 40158},
    PipelineCase{"count_dot", R"([{"$count": "a.b"}])", kSales, {}, 40160}));

INSTANTIATE_TEST_SUITE_P(Group, PipelineTest, ::testing::Values(
    PipelineCase{"group_accumulators",
                 R"([{"$group": {"_id": "$item", "total": {"$sum": {"$multiply": ["$price", "$quantity"]}},
                                 "avgQty": {"$avg": "$quantity"}, "n": {"$count": {}},
                                 "first": {"$first": "$_id"}, "last": {"$last": "$_id"},
                                 "min": {"$min": "$quantity"}, "max": {"$max": "$quantity"}}}])",
                 kSales,
                 {R"({"_id": "abc", "total": 120, "avgQty": 6.0, "n": 2, "first": 1, "last": 5, "min": 2, "max": 10})",
                  R"({"_id": "jkl", "total": 20, "avgQty": 1.0, "n": 1, "first": 2, "last": 2, "min": 1, "max": 1})",
                  R"({"_id": "xyz", "total": 150, "avgQty": 15.0, "n": 2, "first": 3, "last": 4, "min": 10, "max": 20})"}},
    PipelineCase{"group_push_addtoset",
                 R"([{"$group": {"_id": null, "items": {"$addToSet": "$item"}, "q": {"$push": "$quantity"}}}])",
                 kSales, {R"({"_id": null, "items": ["abc", "jkl", "xyz"], "q": [2, 1, 10, 20, 10]})"}},
    PipelineCase{"group_missing_key_is_null", R"([{"$group": {"_id": "$nope", "n": {"$sum": 1}}}])",
                 {"{}", R"({"nope": null})"}, {R"({"_id": null, "n": 2})"}},
    PipelineCase{"group_compound_key", R"([{"$group": {"_id": {"p": "$price"}, "n": {"$sum": 1}}}])",
                 kSales, {R"({"_id": {"p": 10}, "n": 2})", R"({"_id": {"p": 20}, "n": 1})", R"({"_id": {"p": 5}, "n": 2})"}},
    PipelineCase{"group_numeric_keys_equal", R"([{"$group": {"_id": "$a", "n": {"$sum": 1}}}])",
                 {R"({"a": 1})", R"({"a": 1.0})", R"({"a": {"$numberLong": "1"}})"}, {R"({"_id": 1, "n": 3})"}},
    PipelineCase{"group_sum_mixed_types", R"([{"$group": {"_id": 0, "s": {"$sum": "$a"}, "a": {"$avg": "$a"}}}])",
                 {R"({"a": 1})", R"({"a": "x"})", R"({"a": 2.5})", "{}"}, {R"({"_id": 0, "s": 3.5, "a": 1.75})"}},
    PipelineCase{"group_first_missing_is_null", R"([{"$group": {"_id": 0, "f": {"$first": "$a"}}}])",
                 {"{}", R"({"a": 1})"}, {R"({"_id": 0, "f": null})"}},
    PipelineCase{"group_stddev", R"([{"$group": {"_id": 0, "p": {"$stdDevPop": "$a"}, "s": {"$stdDevSamp": "$a"}}}])",
                 {R"({"a": 1})", R"({"a": 3})"}, {R"({"_id": 0, "p": 1.0, "s": 1.4142135623730951})"}},
    PipelineCase{"group_merge_objects", R"([{"$group": {"_id": 0, "m": {"$mergeObjects": "$o"}}}])",
                 {R"({"o": {"a": 1}})", R"({"o": {"b": 2, "a": 3}})"}, {R"({"_id": 0, "m": {"a": 3, "b": 2}})"}},
    PipelineCase{"group_top_bottom",
                 R"([{"$group": {"_id": 0, "t": {"$top": {"output": "$item", "sortBy": {"quantity": -1}}},
                                 "b": {"$bottom": {"output": "$item", "sortBy": {"quantity": -1}}},
                                 "tn": {"$topN": {"n": 2, "output": "$_id", "sortBy": {"quantity": 1}}},
                                 "bn": {"$bottomN": {"n": 2, "output": "$_id", "sortBy": {"quantity": 1}}}}}])",
                 kSales, {R"({"_id": 0, "t": "xyz", "b": "jkl", "tn": [2, 1], "bn": [5, 4]})"}},
    PipelineCase{"group_n_accumulators",
                 R"([{"$group": {"_id": 0, "f": {"$firstN": {"n": 2, "input": "$_id"}}, "l": {"$lastN": {"n": 2, "input": "$_id"}},
                                 "mx": {"$maxN": {"n": 2, "input": "$quantity"}}, "mn": {"$minN": {"n": 2, "input": "$quantity"}}}}])",
                 kSales, {R"({"_id": 0, "f": [1, 2], "l": [4, 5], "mx": [20, 10], "mn": [1, 2]})"}},
    PipelineCase{"group_no_id", R"([{"$group": {"n": {"$sum": 1}}}])", kSales, {}, 15955},
    PipelineCase{"group_unknown_acc", R"([{"$group": {"_id": 0, "n": {"$foo": 1}}}])", kSales, {}, 15952},
    PipelineCase{"group_dotted", R"([{"$group": {"_id": 0, "a.b": {"$sum": 1}}}])", kSales, {}, 40235},
    PipelineCase{"group_not_acc_object", R"([{"$group": {"_id": 0, "a": 1}}])", kSales, {}, 40234},
    PipelineCase{"group_two_accs", R"([{"$group": {"_id": 0, "a": {"$sum": 1, "$max": 1}}}])", kSales, {}, 40238},
    PipelineCase{"sort_by_count", R"([{"$sortByCount": "$price"}])", kSales,
                 {R"({"_id": 10, "count": 2})", R"({"_id": 5, "count": 2})", R"({"_id": 20, "count": 1})"}}));

INSTANTIATE_TEST_SUITE_P(Projection, PipelineTest, ::testing::Values(
    PipelineCase{"project_inclusion", R"([{"$project": {"item": 1}}, {"$limit": 1}])", kSales,
                 {R"({"_id": 1, "item": "abc"})"}},
    PipelineCase{"project_no_id_computed", R"([{"$project": {"_id": 0, "total": {"$multiply": ["$price", "$quantity"]}, "item": 1}}, {"$limit": 1}])",
                 kSales, {R"({"item": "abc", "total": 20})"}},
    PipelineCase{"project_exclusion", R"([{"$project": {"price": 0, "quantity": 0}}, {"$limit": 1}])", kSales,
                 {R"({"_id": 1, "item": "abc"})"}},
    PipelineCase{"project_nested", R"([{"$project": {"a.b": 1, "c": {"d": 1}}}])",
                 {R"({"_id": 1, "a": {"b": 1, "x": 2}, "c": [{"d": 1, "e": 2}, 5], "z": 1})"},
                 {R"({"_id": 1, "a": {"b": 1}, "c": [{"d": 1}]})"}},
    PipelineCase{"project_exclude_nested", R"([{"$project": {"a.x": 0}}])",
                 {R"({"_id": 1, "a": [{"b": 1, "x": 2}, 3]})"}, {R"({"_id": 1, "a": [{"b": 1}, 3]})"}},
    PipelineCase{"project_remove", R"([{"$project": {"a": {"$cond": [true, "$$REMOVE", 1]}, "b": 1}}])",
                 {R"({"_id": 1, "a": 1, "b": 2})"}, {R"({"_id": 1, "b": 2})"}},
    PipelineCase{"project_literal_string", R"([{"$project": {"_id": 0, "s": "text"}}])", {R"({"_id": 1})"},
                 {R"({"s": "text"})"}},
    PipelineCase{"project_mixed", R"([{"$project": {"a": 1, "b": 0}}])", kSales, {}, 31254},
    PipelineCase{"project_empty", R"([{"$project": {}}])", kSales, {}, 51272},
    // A path below a field projected whole: 31249 (MongoDB's
    // addNodeAtPathHelper); the other order is 31250 (project_collision_leaf).
    PipelineCase{"project_collision", R"([{"$project": {"a": 1, "a.b": 1}}])", kSales, {}, 31249},
    PipelineCase{"project_collision_leaf", R"([{"$project": {"a.b": 1, "a": 1}}])", kSales, {}, 31250},
    PipelineCase{"add_fields", R"([{"$addFields": {"total": {"$add": ["$price", 1]}, "price": "x"}}, {"$limit": 1}])", kSales,
                 {R"({"_id": 1, "item": "abc", "price": "x", "quantity": 2, "total": 11})"}},
    PipelineCase{"add_fields_nested", R"([{"$set": {"specs.fuel": "unleaded", "n.m": 1}}])",
                 {R"({"_id": 1, "specs": {"doors": 4}, "n": 5})"},
                 {R"({"_id": 1, "specs": {"doors": 4, "fuel": "unleaded"}, "n": {"m": 1}})"}},
    PipelineCase{"add_fields_object_merges", R"([{"$addFields": {"specs": {"fuel": "unleaded"}}}])",
                 {R"({"_id": 1, "specs": {"doors": 4}})"}, {R"({"_id": 1, "specs": {"doors": 4, "fuel": "unleaded"}})"}},
    PipelineCase{"add_fields_array_elements", R"([{"$addFields": {"a.b": 1}}])",
                 {R"({"_id": 1, "a": [{"c": 1}, 2]})"}, {R"({"_id": 1, "a": [{"c": 1, "b": 1}, {"b": 1}]})"}},
    PipelineCase{"add_fields_remove", R"([{"$addFields": {"price": "$$REMOVE"}}, {"$limit": 1}])", kSales,
                 {R"({"_id": 1, "item": "abc", "quantity": 2})"}},
    PipelineCase{"unset", R"([{"$unset": ["price", "quantity"]}, {"$limit": 1}])", kSales, {R"({"_id": 1, "item": "abc"})"}},
    PipelineCase{"unset_string", R"([{"$unset": "item"}, {"$limit": 1}])", kSales, {R"({"_id": 1, "price": 10, "quantity": 2})"}},
    PipelineCase{"unset_bad", R"([{"$unset": 1}])", kSales, {}, 31002},
    PipelineCase{"replace_root", R"([{"$replaceRoot": {"newRoot": "$a"}}])", {R"({"a": {"x": 1}})"}, {R"({"x": 1})"}},
    PipelineCase{"replace_root_not_object", R"([{"$replaceRoot": {"newRoot": "$a"}}])", {R"({"a": 1})"}, {}, 40228},
    PipelineCase{"replace_with_merge", R"([{"$replaceWith": {"$mergeObjects": [{"d": 0}, "$a"]}}])",
                 {R"({"a": {"x": 1}})"}, {R"({"d": 0, "x": 1})"}}));

INSTANTIATE_TEST_SUITE_P(Unwind, PipelineTest, ::testing::Values(
    PipelineCase{"unwind", R"([{"$unwind": "$sizes"}])", {R"({"_id": 1, "sizes": ["S", "M"]})"},
                 {R"({"_id": 1, "sizes": "S"})", R"({"_id": 1, "sizes": "M"})"}},
    PipelineCase{"unwind_drops_empty_null_missing", R"([{"$unwind": "$s"}])",
                 {R"({"_id": 1, "s": []})", R"({"_id": 2, "s": null})", R"({"_id": 3})", R"({"_id": 4, "s": "x"})"},
                 {R"({"_id": 4, "s": "x"})"}},
    PipelineCase{"unwind_preserve_index", R"([{"$unwind": {"path": "$s", "includeArrayIndex": "i", "preserveNullAndEmptyArrays": true}}])",
                 {R"({"_id": 1, "s": [7, 8]})", R"({"_id": 2})"},
                 {R"({"_id": 1, "s": 7, "i": {"$numberLong": "0"}})", R"({"_id": 1, "s": 8, "i": {"$numberLong": "1"}})",
                  R"({"_id": 2, "i": null})"}},
    PipelineCase{"unwind_nested_path", R"([{"$unwind": "$a.b"}])", {R"({"a": {"b": [1, 2], "c": 0}})"},
                 {R"({"a": {"b": 1, "c": 0}})", R"({"a": {"b": 2, "c": 0}})"}},
    PipelineCase{"unwind_no_dollar", R"([{"$unwind": "s"}])", {}, {}, 28818},
    PipelineCase{"unwind_bad_option", R"([{"$unwind": {"path": "$s", "x": 1}}])", {}, {}, 28811},
    PipelineCase{"unwind_no_path", R"([{"$unwind": {}}])", {}, {}, 28812}));

INSTANTIATE_TEST_SUITE_P(Buckets, PipelineTest, ::testing::Values(
    PipelineCase{"bucket",
                 R"([{"$bucket": {"groupBy": "$price", "boundaries": [0, 10, 100], "default": "Other",
                                  "output": {"count": {"$sum": 1}, "items": {"$push": "$item"}}}}])",
                 {R"({"price": 5, "item": "a"})", R"({"price": 10, "item": "b"})", R"({"price": 50, "item": "c"})",
                  R"({"price": 500, "item": "d"})", R"({"price": "x", "item": "e"})"},
                 {R"({"_id": 0, "count": 1, "items": ["a"]})", R"({"_id": 10, "count": 2, "items": ["b", "c"]})",
                  R"({"_id": "Other", "count": 2, "items": ["d", "e"]})"}},
    PipelineCase{"bucket_default_count", R"([{"$bucket": {"groupBy": "$p", "boundaries": [0, 5]}}])",
                 {R"({"p": 1})", R"({"p": 2})"}, {R"({"_id": 0, "count": 2})"}},
    PipelineCase{"bucket_no_default_fails", R"([{"$bucket": {"groupBy": "$p", "boundaries": [0, 5]}}])",
                 {R"({"p": 9})"}, {}, 40066},
    PipelineCase{"bucket_unsorted", R"([{"$bucket": {"groupBy": "$p", "boundaries": [5, 0]}}])", {}, {}, 40194},
    PipelineCase{"bucket_auto", R"([{"$bucketAuto": {"groupBy": "$p", "buckets": 2}}])",
                 {R"({"p": 1})", R"({"p": 2})", R"({"p": 3})", R"({"p": 4})"},
                 {R"({"_id": {"min": 1, "max": 3}, "count": 2})", R"({"_id": {"min": 3, "max": 4}, "count": 2})"}},
    PipelineCase{"bucket_auto_keeps_equal_values_together", R"([{"$bucketAuto": {"groupBy": "$p", "buckets": 2}}])",
                 {R"({"p": 1})", R"({"p": 1})", R"({"p": 1})", R"({"p": 2})"},
                 {R"({"_id": {"min": 1, "max": 2}, "count": 3})", R"({"_id": {"min": 2, "max": 2}, "count": 1})"}}));

INSTANTIATE_TEST_SUITE_P(Misc, PipelineTest, ::testing::Values(
    PipelineCase{"facet",
                 R"([{"$facet": {"cheap": [{"$match": {"price": {"$lt": 10}}}, {"$count": "n"}],
                                 "byItem": [{"$sortByCount": "$item"}, {"$limit": 1}]}}])",
                 kSales, {R"({"cheap": [{"n": 2}], "byItem": [{"_id": "abc", "count": 2}]})"}},
    PipelineCase{"facet_not_array", R"([{"$facet": {"a": 1}}])", kSales, {}, 40170},
    PipelineCase{"documents", R"([{"$documents": [{"x": 1}, {"x": 2}]}, {"$match": {"x": 2}}])", {}, {R"({"x": 2})"}},
    PipelineCase{"documents_not_first", R"([{"$match": {}}, {"$documents": [{"x": 1}]}])", {}, {}, 40602},
    PipelineCase{"redact",
                 R"([{"$redact": {"$cond": {"if": {"$eq": ["$level", 5]}, "then": "$$PRUNE", "else": "$$DESCEND"}}}])",
                 {R"({"_id": 1, "level": 1, "sub": {"level": 5, "x": 1}, "arr": [{"level": 5}, {"level": 2, "y": 1}]})"},
                 {R"({"_id": 1, "level": 1, "arr": [{"level": 2, "y": 1}]})"}},
    PipelineCase{"sample_bad", R"([{"$sample": {"size": -1}}])", kSales, {}, 28747},
    PipelineCase{"sample_no_size", R"([{"$sample": {}}])", kSales, {}, 28749}));

TEST(SampleStageTest, ReturnsRequestedNumberOfDistinctInputs) {
  auto out = RunPipeline(R"([{"$sample": {"size": 3}}])", kSales);
  ASSERT_TRUE(out.ok());
  ASSERT_EQ(out.value().size(), 3u);
  std::set<std::string> seen;
  for (const auto& d : out.value()) seen.insert(d.ToJson());
  EXPECT_EQ(seen.size(), 3u);
  auto all = RunPipeline(R"([{"$sample": {"size": 10}}])", kSales);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all.value().size(), kSales.size());
}

TEST(GroupStageTest, MemoryLimitWithoutDiskUseFailsWith292) {
  ExpressionContext ctx;
  ctx.max_memory_bytes = 1000;
  std::vector<std::string> docs;
  for (int i = 0; i < 200; ++i) docs.push_back("{\"k\": " + std::to_string(i) + "}");
  auto out = RunPipeline(R"([{"$group": {"_id": "$k", "v": {"$push": "$k"}}}])", docs, ctx);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code_number(), 292);
  ctx.allow_disk_use = true;
  auto ok = RunPipeline(R"([{"$group": {"_id": "$k", "v": {"$push": "$k"}}}])", docs, ctx);
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok.value().size(), 200u);
}

TEST(SortStageTest, MemoryLimitWithoutDiskUseFailsWith292) {
  ExpressionContext ctx;
  ctx.max_memory_bytes = 100;
  auto out = RunPipeline(R"([{"$sort": {"price": 1}}])", kSales, ctx);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code_number(), 292);
}

TEST(PipelineTest, ExposesLeadingMatchSortAndLimitForPushDown) {
  bson::BsonDoc w = J(R"({"p": [{"$match": {"a": 1}}, {"$sort": {"b": -1}}, {"$limit": 5}, {"$skip": 1}]})");
  bson_iter_t it;
  bson_iter_init_find(&it, w.get(), "p");
  uint32_t len;
  const uint8_t* data;
  bson_iter_array(&it, &len, &data);
  bson_t arr;
  bson_init_static(&arr, data, len);
  auto p = Pipeline::Parse(&arr, ExpressionContext());
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  ASSERT_NE(p.value().leading_match(), nullptr);
  EXPECT_EQ(bson::BsonDoc::CopyOf(p.value().leading_match()).ToJson(), J(R"({"a": 1})").ToJson());
  ASSERT_NE(p.value().leading_sort(), nullptr);
  EXPECT_EQ(p.value().leading_limit(), 5);

  bson::BsonDoc w2 = J(R"({"p": [{"$match": {"$expr": {"$eq": ["$a", 1]}}}]})");
  bson_iter_init_find(&it, w2.get(), "p");
  bson_iter_array(&it, &len, &data);
  bson_init_static(&arr, data, len);
  auto p2 = Pipeline::Parse(&arr, ExpressionContext());
  ASSERT_TRUE(p2.ok());
  EXPECT_EQ(p2.value().leading_match(), nullptr);
}

TEST(StageRegistryTest, IsSortedAndResolves) {
  auto names = StageNames();
  for (size_t i = 0; i + 1 < names.size(); ++i) EXPECT_LT(names[i], names[i + 1]);
  for (auto n : names) EXPECT_NE(FindStage(n), nullptr);
}

class LookupTest : public ::testing::Test {
 protected:
  void SetUp() override {
    resolver_.Add("inventory", {R"({"_id": 1, "sku": "almonds", "instock": 120})",
                                R"({"_id": 2, "sku": "bread", "instock": 80})",
                                R"({"_id": 3, "sku": "cashews", "instock": 60})",
                                R"({"_id": 4, "sku": null})", R"({"_id": 5})"});
    resolver_.Add("employees", {R"({"_id": 1, "name": "Dev"})",
                                R"({"_id": 2, "name": "Eliot", "reportsTo": "Dev"})",
                                R"({"_id": 3, "name": "Ron", "reportsTo": "Eliot"})",
                                R"({"_id": 4, "name": "Andrew", "reportsTo": "Eliot"})",
                                R"({"_id": 5, "name": "Asya", "reportsTo": "Ron"})"});
    ctx_.db = "test";
    ctx_.resolver = &resolver_;
  }
  testing::MemoryResolver resolver_;
  ExpressionContext ctx_;
};

TEST_F(LookupTest, EqualityMatchesValuesArraysAndNullToMissing) {
  auto out = RunPipeline(
      R"([{"$lookup": {"from": "inventory", "localField": "item", "foreignField": "sku", "as": "inv"}},
          {"$project": {"_id": 1, "ids": "$inv._id"}}])",
      {R"({"_id": 1, "item": "almonds"})", R"({"_id": 2, "item": ["bread", "cashews"]})", R"({"_id": 3})"}, ctx_);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ExpectDocs(out.value(), {R"({"_id": 1, "ids": [1]})", R"({"_id": 2, "ids": [2, 3]})", R"({"_id": 3, "ids": [4, 5]})"});
}

TEST_F(LookupTest, PipelineFormBindsLetVariables) {
  auto out = RunPipeline(
      R"([{"$lookup": {"from": "inventory", "let": {"need": "$qty"},
                       "pipeline": [{"$match": {"$expr": {"$gte": ["$instock", "$$need"]}}}, {"$project": {"_id": 1}}],
                       "as": "ok"}}])",
      {R"({"_id": 1, "qty": 100})"}, ctx_);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ExpectDocs(out.value(), {R"({"_id": 1, "qty": 100, "ok": [{"_id": 1}]})"});
}

TEST_F(LookupTest, ErrorsAndMissingResolver) {
  auto no_as = RunPipeline(R"([{"$lookup": {"from": "inventory", "localField": "a", "foreignField": "b"}}])", {}, ctx_);
  ASSERT_FALSE(no_as.ok());
  EXPECT_EQ(no_as.status().code_number(), 9);
  auto no_resolver = RunPipeline(R"([{"$lookup": {"from": "x", "localField": "a", "foreignField": "b", "as": "c"}}])", {});
  ASSERT_FALSE(no_resolver.ok());
  EXPECT_EQ(no_resolver.status().code_number(), 238);
}

TEST_F(LookupTest, UnionWithAppendsOtherCollectionThroughPipeline) {
  auto out = RunPipeline(
      R"([{"$unionWith": {"coll": "inventory", "pipeline": [{"$match": {"instock": {"$gt": 70}}}, {"$project": {"sku": 1, "_id": 0}}]}}])",
      {R"({"x": 1})"}, ctx_);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ExpectDocs(out.value(), {R"({"x": 1})", R"({"sku": "almonds"})", R"({"sku": "bread"})"});
}

TEST_F(LookupTest, GraphLookupFollowsReportingChainWithDepth) {
  auto out = RunPipeline(
      R"([{"$graphLookup": {"from": "employees", "startWith": "$reportsTo", "connectFromField": "reportsTo",
                            "connectToField": "name", "as": "chain", "depthField": "d"}},
          {"$project": {"_id": 0, "name": 1, "chain": {"$map": {"input": "$chain", "in": ["$$this.name", "$$this.d"]}}}}])",
      {R"({"_id": 5, "name": "Asya", "reportsTo": "Ron"})"}, ctx_);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ExpectDocs(out.value(), {R"({"name": "Asya", "chain": [["Ron", {"$numberLong": "0"}], ["Eliot", {"$numberLong": "1"}], ["Dev", {"$numberLong": "2"}]]})"});
  auto limited = RunPipeline(
      R"([{"$graphLookup": {"from": "employees", "startWith": "$reportsTo", "connectFromField": "reportsTo",
                            "connectToField": "name", "as": "chain", "maxDepth": 0}},
          {"$project": {"_id": 0, "n": {"$size": "$chain"}}}])",
      {R"({"_id": 5, "name": "Asya", "reportsTo": "Ron"})"}, ctx_);
  ASSERT_TRUE(limited.ok());
  ExpectDocs(limited.value(), {R"({"n": 1})"});
}

}  // namespace
}  // namespace tigerdoc::agg
