// $bucketAuto (with granularity), $densify and $fill, table-driven from
// MongoDB's reference examples (artwork, things, weather, coffee,
// dailySales, stock, restaurantReviews), plus type and error rows.

#include <gtest/gtest.h>

#include <algorithm>

#include "engine/agg/granularity.h"
#include "tests/engine/agg/agg_test_util.h"

namespace tigerdoc::agg {
namespace {

using testing::StageCase;

class StagesTest : public ::testing::TestWithParam<StageCase> {};

TEST_P(StagesTest, ProducesMongoDBOutput) { testing::ExpectStageCase(GetParam()); }

#define DEC(s) R"({"$numberDecimal": ")" s R"("})"
#define D(s) R"({"$date": ")" s R"("})"

const std::vector<std::string> kArtwork = {
    R"({"_id": 1, "price": )" DEC("199.99") "}", R"({"_id": 2, "price": )" DEC("280.00") "}",
    R"({"_id": 3, "price": )" DEC("76.04") "}",  R"({"_id": 4, "price": )" DEC("167.30") "}",
    R"({"_id": 5, "price": )" DEC("483.00") "}", R"({"_id": 6, "price": )" DEC("385.00") "}",
    R"({"_id": 7, "price": )" DEC("159.00") "}", R"({"_id": 8, "price": )" DEC("118.42") "}",
};

std::vector<std::string> Things(int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.push_back(R"({"_id": )" + std::to_string(i) + "}");
  return out;
}

INSTANTIATE_TEST_SUITE_P(BucketAuto, StagesTest, ::testing::Values(
    StageCase{"artwork_price_four_buckets", R"([{"$bucketAuto": {"groupBy": "$price", "buckets": 4}}])", kArtwork,
              {R"({"_id": {"min": )" DEC("76.04") R"(, "max": )" DEC("159.00") R"(}, "count": 2})",
               R"({"_id": {"min": )" DEC("159.00") R"(, "max": )" DEC("199.99") R"(}, "count": 2})",
               R"({"_id": {"min": )" DEC("199.99") R"(, "max": )" DEC("385.00") R"(}, "count": 2})",
               R"({"_id": {"min": )" DEC("385.00") R"(, "max": )" DEC("483.00") R"(}, "count": 2})"}},
    StageCase{"granularity_r20", R"([{"$bucketAuto": {"groupBy": "$_id", "buckets": 5, "granularity": "R20"}}])", Things(100),
              {R"({"_id": {"min": 0, "max": 20.0}, "count": 20})", R"({"_id": {"min": 20.0, "max": 40.0}, "count": 20})",
               R"({"_id": {"min": 40.0, "max": 63.0}, "count": 23})", R"({"_id": {"min": 63.0, "max": 90.0}, "count": 27})",
               R"({"_id": {"min": 90.0, "max": 100.0}, "count": 10})"}},
    StageCase{"granularity_e6", R"([{"$bucketAuto": {"groupBy": "$_id", "buckets": 5, "granularity": "E6"}}])", Things(100),
              {R"({"_id": {"min": 0, "max": 22.0}, "count": 22})", R"({"_id": {"min": 22.0, "max": 47.0}, "count": 25})",
               R"({"_id": {"min": 47.0, "max": 68.0}, "count": 21})", R"({"_id": {"min": 68.0, "max": 100.0}, "count": 32})"}},
    StageCase{"granularity_1_2_5", R"([{"$bucketAuto": {"groupBy": "$_id", "buckets": 5, "granularity": "1-2-5"}}])", Things(100),
              {R"({"_id": {"min": 0, "max": 20.0}, "count": 20})", R"({"_id": {"min": 20.0, "max": 50.0}, "count": 30})",
               R"({"_id": {"min": 50.0, "max": 100.0}, "count": 50})"}},
    StageCase{"granularity_powers_of_two", R"([{"$bucketAuto": {"groupBy": "$_id", "buckets": 5, "granularity": "POWERSOF2"}}])", Things(100),
              {R"({"_id": {"min": 0, "max": 32}, "count": 32})", R"({"_id": {"min": 32, "max": 64}, "count": 32})",
               R"({"_id": {"min": 64, "max": 128}, "count": 36})"}},
    StageCase{"rounds_bucket_size_and_keeps_ties",
              R"([{"$bucketAuto": {"groupBy": "$v", "buckets": 2, "output": {"ids": {"$push": "$_id"}}}}])",
              {R"({"_id": 1, "v": 1})", R"({"_id": 2, "v": 2})", R"({"_id": 3, "v": 2})", R"({"_id": 4})", R"({"_id": 5, "v": 3})"},
              // round(5 / 2) = 3 per bucket; the tie at 2 stays in the first.
              {R"({"_id": {"min": null, "max": 3}, "ids": [4, 1, 2, 3]})", R"({"_id": {"min": 3, "max": 3}, "ids": [5]})"}},
    StageCase{"granularity_needs_numbers", R"([{"$bucketAuto": {"groupBy": "$v", "buckets": 2, "granularity": "R5"}}])",
              {R"({"v": "a"})"}, {}, 40258},
    StageCase{"granularity_negative", R"([{"$bucketAuto": {"groupBy": "$v", "buckets": 2, "granularity": "R5"}}])",
              {R"({"v": -1})"}, {}, 40260},
    StageCase{"granularity_unknown", R"([{"$bucketAuto": {"groupBy": "$v", "buckets": 2, "granularity": "R7"}}])", {}, {}, 40257},
    StageCase{"granularity_not_string", R"([{"$bucketAuto": {"groupBy": "$v", "buckets": 2, "granularity": 5}}])", {}, {}, 40261},
    StageCase{"buckets_not_integral", R"([{"$bucketAuto": {"groupBy": "$v", "buckets": 2.5}}])", {}, {}, 40242}));

const std::vector<std::string> kWeather = {
    R"({"_id": 1, "timestamp": )" D("2021-05-18T00:00:00Z") R"(, "temp": 12})",
    R"({"_id": 2, "timestamp": )" D("2021-05-18T04:00:00Z") R"(, "temp": 11})",
    R"({"_id": 3, "timestamp": )" D("2021-05-18T08:00:00Z") R"(, "temp": 11})",
    R"({"_id": 4, "timestamp": )" D("2021-05-18T12:00:00Z") R"(, "temp": 12})",
};
const std::vector<std::string> kCoffee = {
    R"({"_id": 1, "altitude": 600, "variety": "Arabica Typica", "score": 68.3})",
    R"({"_id": 2, "altitude": 750, "variety": "Arabica Typica", "score": 69.5})",
    R"({"_id": 3, "altitude": 950, "variety": "Arabica Typica", "score": 70.5})",
    R"({"_id": 4, "altitude": 1250, "variety": "Gesha", "score": 88.15})",
    R"({"_id": 5, "altitude": 1700, "variety": "Gesha", "score": 95.5, "price": 1029})",
};
std::string Alt(int a, const char* variety) {
  return R"({"altitude": )" + std::to_string(a) + R"(, "variety": ")" + variety + R"("})";
}

INSTANTIATE_TEST_SUITE_P(Densify, StagesTest, ::testing::Values(
    StageCase{"time_series_hours_within_bounds",
              R"([{"$densify": {"field": "timestamp", "range": {"step": 1, "unit": "hour",
                  "bounds": [)" D("2021-05-18T00:00:00Z") "," D("2021-05-18T08:00:00Z") R"(]}}}])",
              kWeather,
              {kWeather[0], R"({"timestamp": )" D("2021-05-18T01:00:00Z") "}", R"({"timestamp": )" D("2021-05-18T02:00:00Z") "}",
               R"({"timestamp": )" D("2021-05-18T03:00:00Z") "}", kWeather[1], R"({"timestamp": )" D("2021-05-18T05:00:00Z") "}",
               R"({"timestamp": )" D("2021-05-18T06:00:00Z") "}", R"({"timestamp": )" D("2021-05-18T07:00:00Z") "}",
               kWeather[2], kWeather[3]}},
    StageCase{"partitions_full_range",
              R"([{"$densify": {"field": "altitude", "partitionByFields": ["variety"], "range": {"bounds": "full", "step": 200}}}])",
              kCoffee,
              {kCoffee[0], kCoffee[1], Alt(800, "Arabica Typica"), kCoffee[2], Alt(1000, "Arabica Typica"),
               Alt(1200, "Arabica Typica"), Alt(1400, "Arabica Typica"), Alt(1600, "Arabica Typica"),
               Alt(600, "Gesha"), Alt(800, "Gesha"), Alt(1000, "Gesha"), Alt(1200, "Gesha"), kCoffee[3],
               Alt(1400, "Gesha"), Alt(1600, "Gesha"), kCoffee[4]}},
    StageCase{"partitions_own_range",
              R"([{"$densify": {"field": "altitude", "partitionByFields": ["variety"], "range": {"bounds": "partition", "step": 200}}}])",
              kCoffee,
              {kCoffee[0], kCoffee[1], Alt(800, "Arabica Typica"), kCoffee[2], kCoffee[3], Alt(1450, "Gesha"),
               Alt(1650, "Gesha"), kCoffee[4]}},
    StageCase{"missing_field_passes_through_first",
              R"([{"$densify": {"field": "x", "range": {"bounds": "full", "step": 2}}}])",
              {R"({"_id": 1, "x": 5})", R"({"_id": 2})", R"({"_id": 3, "x": 1})"},
              {R"({"_id": 2})", R"({"_id": 3, "x": 1})", R"({"x": 3})", R"({"_id": 1, "x": 5})"}},
    StageCase{"month_steps", R"([{"$densify": {"field": "d", "range": {"bounds": "full", "step": 1, "unit": "month"}}}])",
              {R"({"d": )" D("2021-01-31T00:00:00Z") "}", R"({"d": )" D("2021-04-30T00:00:00Z") "}"},
              {R"({"d": )" D("2021-01-31T00:00:00Z") "}", R"({"d": )" D("2021-02-28T00:00:00Z") "}",
               R"({"d": )" D("2021-03-31T00:00:00Z") "}", R"({"d": )" D("2021-04-30T00:00:00Z") "}"}},
    StageCase{"fractional_step", R"([{"$densify": {"field": "x", "range": {"bounds": [0, 1], "step": 0.25}}}])",
              {R"({"_id": 1, "x": 0.5})", R"({"_id": 2, "x": 7})"},
              {R"({"x": 0})", R"({"x": 0.25})", R"({"_id": 1, "x": 0.5})", R"({"x": 0.75})", R"({"_id": 2, "x": 7})"}},
    StageCase{"date_without_unit", R"([{"$densify": {"field": "d", "range": {"bounds": "full", "step": 1}}}])",
              {R"({"d": )" D("2021-01-31T00:00:00Z") "}"}, {}, 5733201},
    StageCase{"step_not_positive", R"([{"$densify": {"field": "x", "range": {"bounds": "full", "step": 0}}}])", {}, {}, 5733401},
    StageCase{"bad_bounds", R"([{"$densify": {"field": "x", "range": {"bounds": [2, 1], "step": 1}}}])", {}, {}, 5733402},
    StageCase{"three_bounds", R"([{"$densify": {"field": "x", "range": {"bounds": [1, 2, 3], "step": 1}}}])", {}, {}, 5733403},
    StageCase{"number_and_date_bounds",
              R"([{"$densify": {"field": "x", "range": {"bounds": [1, {"$date": "2021-01-01T00:00:00Z"}], "step": 1}}}])", {}, {}, 5733406},
    StageCase{"numeric_bounds_with_unit",
              R"([{"$densify": {"field": "x", "range": {"bounds": [1, 2], "step": 1, "unit": "day"}}}])", {}, {}, 5733409},
    StageCase{"date_bounds_without_unit",
              R"([{"$densify": {"field": "x", "range": {"bounds": [{"$date": "2021-01-01T00:00:00Z"}, {"$date": "2021-01-02T00:00:00Z"}], "step": 1}}}])",
              {}, {}, 5733410},
    StageCase{"string_bounds_array", R"([{"$densify": {"field": "x", "range": {"bounds": ["a", "b"], "step": 1}}}])", {}, {}, 5946800},
    StageCase{"unknown_bounds_string", R"([{"$densify": {"field": "x", "range": {"bounds": "all", "step": 1}}}])", {}, {}, 5946802},
    StageCase{"bounds_not_array_or_string", R"([{"$densify": {"field": "x", "range": {"bounds": 1, "step": 1}}}])", {}, {}, 5733404},
    StageCase{"partition_bounds_need_partitions",
              R"([{"$densify": {"field": "x", "range": {"bounds": "partition", "step": 1}}}])", {}, {}, 5733408},
    StageCase{"missing_range", R"([{"$densify": {"field": "x"}}])", {}, {}, 40414}));

const std::vector<std::string> kDailySales = {
    R"({"_id": 1, "bootsSold": 10, "sandalsSold": 20, "sneakersSold": 12})",
    R"({"_id": 2, "bootsSold": 7, "sneakersSold": 18})",
    R"({"_id": 3, "sneakersSold": 5})",
};
const std::vector<std::string> kStock = {
    R"({"_id": 1, "time": 9, "price": 500})", R"({"_id": 2, "time": 10})", R"({"_id": 3, "time": 11, "price": 515})",
    R"({"_id": 4, "time": 12})",              R"({"_id": 5, "time": 13})", R"({"_id": 6, "time": 14, "price": 485})",
};

INSTANTIATE_TEST_SUITE_P(Fill, StagesTest, ::testing::Values(
    StageCase{"constant_values",
              R"([{"$fill": {"output": {"bootsSold": {"value": 0}, "sandalsSold": {"value": 0}, "sneakersSold": {"value": 0}}}}])",
              kDailySales,
              {kDailySales[0], R"({"_id": 2, "bootsSold": 7, "sneakersSold": 18, "sandalsSold": 0})",
               R"({"_id": 3, "sneakersSold": 5, "bootsSold": 0, "sandalsSold": 0})"}},
    StageCase{"linear", R"([{"$fill": {"sortBy": {"time": 1}, "output": {"price": {"method": "linear"}}}}])", kStock,
              {kStock[0], R"({"_id": 2, "time": 10, "price": 507.5})", kStock[2], R"({"_id": 4, "time": 12, "price": 505.0})",
               R"({"_id": 5, "time": 13, "price": 495.0})", kStock[5]}},
    StageCase{"locf_by_partition_fields",
              R"([{"$fill": {"sortBy": {"t": 1}, "partitionByFields": ["g"], "output": {"s": {"method": "locf"}}}}])",
              {R"({"_id": 1, "g": "b", "t": 1, "s": 90})", R"({"_id": 2, "g": "a", "t": 1, "s": 1})",
               R"({"_id": 3, "g": "b", "t": 2})", R"({"_id": 4, "g": "a", "t": 2, "s": null})"},
              {R"({"_id": 2, "g": "a", "t": 1, "s": 1})", R"({"_id": 4, "g": "a", "t": 2, "s": 1})",
               R"({"_id": 1, "g": "b", "t": 1, "s": 90})", R"({"_id": 3, "g": "b", "t": 2, "s": 90})"}},
    StageCase{"value_is_an_expression", R"([{"$fill": {"output": {"x": {"value": {"$multiply": ["$y", 2]}}}}}])",
              {R"({"_id": 1, "y": 4})"}, {R"({"_id": 1, "y": 4, "x": 8})"}},
    StageCase{"both_value_and_method", R"([{"$fill": {"output": {"x": {"value": 1, "method": "locf"}}}}])", {}, {}, 6050201},
    StageCase{"empty_output", R"([{"$fill": {"output": {}}}])", {}, {}, 6050203},
    StageCase{"output_spec_not_object", R"([{"$fill": {"output": {"x": 1}}}])", {}, {}, 6050200},
    StageCase{"output_spec_unknown_field", R"([{"$fill": {"output": {"x": {"value": 1, "v": 2}}}}])", {}, {}, 40415},
    StageCase{"method_not_string", R"([{"$fill": {"output": {"x": {"method": 1}}}}])", {}, {}, 14},
    StageCase{"fill_spec_not_object", R"([{"$fill": 1}])", {}, {}, 9},
    StageCase{"unknown_method", R"([{"$fill": {"sortBy": {"t": 1}, "output": {"x": {"method": "mean"}}}}])", {}, {}, 6050202},
    StageCase{"both_partitions", R"([{"$fill": {"partitionBy": "$a", "partitionByFields": ["a"], "output": {"x": {"value": 1}}}}])",
              {}, {}, 6050204},
    StageCase{"linear_needs_sort", R"([{"$fill": {"output": {"x": {"method": "linear"}}}}])", {}, {}, 605001}));

TEST(GranularityTest, RoundsStrictlyUpAndDown) {
  auto r5 = GranularityRounder::Make("R5").value();
  EXPECT_EQ(r5->RoundUp(Value::Int(16)).value().AsDouble(), 25.0);
  EXPECT_EQ(r5->RoundDown(Value::Int(16)).value().AsDouble(), 10.0);
  EXPECT_EQ(r5->RoundUp(Value::Double(0.8)).value().AsDouble(), 1.0);   // between decades
  EXPECT_EQ(r5->RoundDown(Value::Double(0.8)).value().AsDouble(), 0.63);
  EXPECT_EQ(r5->RoundUp(Value::Int(0)).value().AsDouble(), 0.0);
  auto p2 = GranularityRounder::Make("POWERSOF2").value();
  EXPECT_EQ(p2->RoundUp(Value::Int(8)).value().type(), BSON_TYPE_INT32);
  EXPECT_EQ(p2->RoundUp(Value::Int(8)).value().AsDouble(), 16.0);
  EXPECT_EQ(p2->RoundDown(Value::Int(8)).value().AsDouble(), 4.0);
  EXPECT_EQ(p2->RoundUp(Value::Double(0.3)).value().AsDouble(), 0.5);
  EXPECT_EQ(r5->RoundUp(Value::String("x")).status().code_number(), 40262);
}

}  // namespace
}  // namespace tigerdoc::agg

namespace tigerdoc::agg {
namespace {

// Sorted canonical JSON of documents, for order-insensitive comparison.
std::vector<std::string> SortedJson(const std::vector<bson::BsonDoc>& docs) {
  std::vector<std::string> out;
  for (const auto& d : docs) out.push_back(d.ToJson());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(GroupSpillTest, SpilledGroupsMatchInMemoryGroups) {
  std::vector<std::string> input;
  for (int i = 0; i < 3000; ++i) {
    input.push_back(R"({"_id": )" + std::to_string(i) + R"(, "k": )" + std::to_string(i % 97) +
                    R"(, "pad": ")" + std::string(100, 'x') + R"("})");
  }
  const char* pipeline = R"([{"$group": {"_id": "$k", "n": {"$sum": 1}, "first": {"$first": "$_id"},
      "ids": {"$push": "$_id"}, "last": {"$last": "$_id"}}}])";
  auto in_memory = testing::RunPipeline(pipeline, input);
  ASSERT_TRUE(in_memory.ok()) << in_memory.status().ToString();
  ASSERT_EQ(in_memory.value().size(), 97u);

  ExpressionContext small;
  small.max_memory_bytes = 20 * 1024;
  auto refused = testing::RunPipeline(pipeline, input, small);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code_number(), 292);

  small.allow_disk_use = true;
  small.max_memory_bytes = 20 * 1024;  // the sorter spills runs of ~20 KiB
  auto spilled = testing::RunPipeline(pipeline, input, small);
  ASSERT_TRUE(spilled.ok()) << spilled.status().ToString();
  EXPECT_EQ(SortedJson(spilled.value()), SortedJson(in_memory.value()));
}

TEST(BucketAutoSpillTest, SpillsWithAllowDiskUse) {
  std::vector<std::string> input;
  for (int i = 0; i < 2000; ++i) {
    input.push_back(R"({"v": )" + std::to_string((i * 7919) % 2000) + R"(, "pad": ")" + std::string(100, 'y') + R"("})");
  }
  const char* pipeline = R"([{"$bucketAuto": {"groupBy": "$v", "buckets": 4}}])";
  ExpressionContext small;
  small.max_memory_bytes = 20 * 1024;
  EXPECT_EQ(testing::RunPipeline(pipeline, input, small).status().code_number(), 292);
  small.allow_disk_use = true;
  auto out = testing::RunPipeline(pipeline, input, small);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  testing::ExpectSameDocs(out.value(), {R"({"_id": {"min": 0, "max": 500}, "count": 500})",
                                        R"({"_id": {"min": 500, "max": 1000}, "count": 500})",
                                        R"({"_id": {"min": 1000, "max": 1500}, "count": 500})",
                                        R"({"_id": {"min": 1500, "max": 1999}, "count": 500})"});
}

}  // namespace
}  // namespace tigerdoc::agg
