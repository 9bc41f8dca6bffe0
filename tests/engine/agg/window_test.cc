// $setWindowFields and its window functions, table-driven from MongoDB's
// reference examples (the cakeSales collection of the $setWindowFields
// page, the $shift / $rank / $expMovingAvg / $locf / $linearFill pages),
// plus type-mixing, null/missing and error rows.

#include <gtest/gtest.h>

#include "tests/engine/agg/agg_test_util.h"

namespace tigerdoc::agg {
namespace {

using testing::StageCase;

class WindowTest : public ::testing::TestWithParam<StageCase> {};

TEST_P(WindowTest, ProducesMongoDBOutput) { testing::ExpectStageCase(GetParam()); }

#define D(s) R"({"$date": ")" s R"("})"
const std::vector<std::string> kCakeSales = {
    R"({"_id": 0, "type": "chocolate", "orderDate": )" D("2020-05-18T14:10:30Z") R"(, "state": "CA", "price": 13, "quantity": 120})",
    R"({"_id": 1, "type": "chocolate", "orderDate": )" D("2021-03-20T11:30:05Z") R"(, "state": "WA", "price": 14, "quantity": 140})",
    R"({"_id": 2, "type": "vanilla", "orderDate": )" D("2021-01-11T06:31:15Z") R"(, "state": "CA", "price": 12, "quantity": 145})",
    R"({"_id": 3, "type": "vanilla", "orderDate": )" D("2020-02-08T13:13:23Z") R"(, "state": "WA", "price": 13, "quantity": 104})",
    R"({"_id": 4, "type": "strawberry", "orderDate": )" D("2019-05-18T16:09:01Z") R"(, "state": "CA", "price": 41, "quantity": 162})",
    R"({"_id": 5, "type": "strawberry", "orderDate": )" D("2019-01-08T06:12:03Z") R"(, "state": "WA", "price": 43, "quantity": 134})",
};

// The cake sale `id` with `extra` fields appended (`extra` starts with ", ").
std::string Sale(int id, const std::string& extra) {
  std::string s = kCakeSales[id];
  s.pop_back();
  return s + extra + "}";
}

INSTANTIATE_TEST_SUITE_P(CakeSales, WindowTest, ::testing::Values(
    StageCase{"cumulative_quantity_per_state",
              R"([{"$setWindowFields": {"partitionBy": "$state", "sortBy": {"orderDate": 1}, "output": {
                  "cumulativeQuantityForState": {"$sum": "$quantity", "window": {"documents": ["unbounded", "current"]}}}}}])",
              kCakeSales,
              {Sale(4, R"(, "cumulativeQuantityForState": 162)"), Sale(0, R"(, "cumulativeQuantityForState": 282)"),
               Sale(2, R"(, "cumulativeQuantityForState": 427)"), Sale(5, R"(, "cumulativeQuantityForState": 134)"),
               Sale(3, R"(, "cumulativeQuantityForState": 238)"), Sale(1, R"(, "cumulativeQuantityForState": 378)")}},
    StageCase{"cumulative_quantity_per_year",
              R"([{"$setWindowFields": {"partitionBy": {"$year": "$orderDate"}, "sortBy": {"orderDate": 1}, "output": {
                  "cumulativeQuantityForYear": {"$sum": "$quantity", "window": {"documents": ["unbounded", "current"]}}}}}])",
              kCakeSales,
              {Sale(5, R"(, "cumulativeQuantityForYear": 134)"), Sale(4, R"(, "cumulativeQuantityForYear": 296)"),
               Sale(3, R"(, "cumulativeQuantityForYear": 104)"), Sale(0, R"(, "cumulativeQuantityForYear": 224)"),
               Sale(2, R"(, "cumulativeQuantityForYear": 145)"), Sale(1, R"(, "cumulativeQuantityForYear": 285)")}},
    StageCase{"moving_average_per_year",
              R"([{"$setWindowFields": {"partitionBy": {"$year": "$orderDate"}, "sortBy": {"orderDate": 1}, "output": {
                  "averageQuantity": {"$avg": "$quantity", "window": {"documents": [-1, 0]}}}}}])",
              kCakeSales,
              {Sale(5, R"(, "averageQuantity": 134.0)"), Sale(4, R"(, "averageQuantity": 148.0)"),
               Sale(3, R"(, "averageQuantity": 104.0)"), Sale(0, R"(, "averageQuantity": 112.0)"),
               Sale(2, R"(, "averageQuantity": 145.0)"), Sale(1, R"(, "averageQuantity": 142.5)")}},
    StageCase{"cumulative_and_maximum_per_year",
              R"([{"$setWindowFields": {"partitionBy": {"$year": "$orderDate"}, "sortBy": {"orderDate": 1}, "output": {
                  "cumulativeQuantityForYear": {"$sum": "$quantity", "window": {"documents": ["unbounded", "current"]}},
                  "maximumQuantityForYear": {"$max": "$quantity", "window": {"documents": ["unbounded", "unbounded"]}}}}}])",
              kCakeSales,
              {Sale(5, R"(, "cumulativeQuantityForYear": 134, "maximumQuantityForYear": 162)"),
               Sale(4, R"(, "cumulativeQuantityForYear": 296, "maximumQuantityForYear": 162)"),
               Sale(3, R"(, "cumulativeQuantityForYear": 104, "maximumQuantityForYear": 120)"),
               Sale(0, R"(, "cumulativeQuantityForYear": 224, "maximumQuantityForYear": 120)"),
               Sale(2, R"(, "cumulativeQuantityForYear": 145, "maximumQuantityForYear": 145)"),
               Sale(1, R"(, "cumulativeQuantityForYear": 285, "maximumQuantityForYear": 145)")}},
    StageCase{"range_window_similar_prices",
              R"([{"$setWindowFields": {"partitionBy": "$state", "sortBy": {"price": 1}, "output": {
                  "quantityFromSimilarOrders": {"$sum": "$quantity", "window": {"range": [-10, 10]}}}}}])",
              kCakeSales,
              {Sale(2, R"(, "quantityFromSimilarOrders": 265)"), Sale(0, R"(, "quantityFromSimilarOrders": 265)"),
               Sale(4, R"(, "quantityFromSimilarOrders": 162)"), Sale(3, R"(, "quantityFromSimilarOrders": 244)"),
               Sale(1, R"(, "quantityFromSimilarOrders": 244)"), Sale(5, R"(, "quantityFromSimilarOrders": 134)")}},
    StageCase{"range_window_with_time_unit",
              R"([{"$setWindowFields": {"partitionBy": "$state", "sortBy": {"orderDate": 1}, "output": {
                  "recentOrders": {"$push": "$_id", "window": {"range": ["unbounded", 10], "unit": "month"}}}}}])",
              kCakeSales,
              {Sale(4, R"(, "recentOrders": [4])"), Sale(0, R"(, "recentOrders": [4, 0, 2])"),
               Sale(2, R"(, "recentOrders": [4, 0, 2])"), Sale(5, R"(, "recentOrders": [5])"),
               Sale(3, R"(, "recentOrders": [5, 3])"), Sale(1, R"(, "recentOrders": [5, 3, 1])")}},
    StageCase{"range_window_negative_time_unit",
              R"([{"$setWindowFields": {"partitionBy": "$state", "sortBy": {"orderDate": 1}, "output": {
                  "previous": {"$push": "$_id", "window": {"range": [-10, "current"], "unit": "month"}}}}}])",
              kCakeSales,
              {Sale(4, R"(, "previous": [4])"), Sale(0, R"(, "previous": [0])"), Sale(2, R"(, "previous": [0, 2])"),
               Sale(5, R"(, "previous": [5])"), Sale(3, R"(, "previous": [3])"), Sale(1, R"(, "previous": [1])")}},
    StageCase{"rank_by_quantity",
              R"([{"$setWindowFields": {"partitionBy": "$state", "sortBy": {"quantity": -1}, "output": {
                  "rankQuantityForState": {"$rank": {}}}}}])",
              kCakeSales,
              {Sale(4, R"(, "rankQuantityForState": 1)"), Sale(2, R"(, "rankQuantityForState": 2)"),
               Sale(0, R"(, "rankQuantityForState": 3)"), Sale(1, R"(, "rankQuantityForState": 1)"),
               Sale(5, R"(, "rankQuantityForState": 2)"), Sale(3, R"(, "rankQuantityForState": 3)")}},
    StageCase{"shift_by_one",
              R"([{"$setWindowFields": {"partitionBy": "$state", "sortBy": {"quantity": -1}, "output": {
                  "shiftQuantityForState": {"$shift": {"output": "$quantity", "by": 1, "default": "Not available"}}}}}])",
              kCakeSales,
              {Sale(4, R"(, "shiftQuantityForState": 145)"), Sale(2, R"(, "shiftQuantityForState": 120)"),
               Sale(0, R"(, "shiftQuantityForState": "Not available")"), Sale(1, R"(, "shiftQuantityForState": 134)"),
               Sale(5, R"(, "shiftQuantityForState": 104)"), Sale(3, R"(, "shiftQuantityForState": "Not available")")}},
    StageCase{"shift_back_default_null",
              R"([{"$setWindowFields": {"partitionBy": "$state", "sortBy": {"quantity": -1}, "output": {
                  "prev": {"$shift": {"output": "$_id", "by": -1}}}}}])",
              kCakeSales,
              {Sale(4, R"(, "prev": null)"), Sale(2, R"(, "prev": 4)"), Sale(0, R"(, "prev": 2)"),
               Sale(1, R"(, "prev": null)"), Sale(5, R"(, "prev": 1)"), Sale(3, R"(, "prev": 5)")}}));

const std::vector<std::string> kScores = {
    R"({"_id": 1, "g": "a", "t": 1, "v": 5})",     R"({"_id": 2, "g": "a", "t": 2, "v": 5})",
    R"({"_id": 3, "g": "a", "t": 3, "v": 7})",     R"({"_id": 4, "g": "a", "t": 4, "v": null})",
    R"({"_id": 5, "g": "a", "t": 5})",            R"({"_id": 6, "g": "a", "t": 6, "v": "x"})",
};

INSTANTIATE_TEST_SUITE_P(Functions, WindowTest, ::testing::Values(
    StageCase{"dense_rank_and_document_number_with_ties",
              R"([{"$setWindowFields": {"sortBy": {"v": 1}, "output": {"r": {"$rank": {}}, "d": {"$denseRank": {}},
                  "n": {"$documentNumber": {}}}}}, {"$project": {"r": 1, "d": 1, "n": 1}}])",
              {R"({"_id": 1, "v": 5})", R"({"_id": 2, "v": 3})", R"({"_id": 3, "v": 5})", R"({"_id": 4})"},
              {R"({"_id": 4, "r": 1, "d": 1, "n": 1})", R"({"_id": 2, "r": 2, "d": 2, "n": 2})",
               R"({"_id": 1, "r": 3, "d": 3, "n": 3})", R"({"_id": 3, "r": 3, "d": 3, "n": 4})"}},
    StageCase{"accumulators_skip_non_numbers_and_nulls",
              R"([{"$setWindowFields": {"sortBy": {"t": 1}, "output": {"sum": {"$sum": "$v"}, "avg": {"$avg": "$v"},
                  "min": {"$min": "$v"}, "max": {"$max": "$v"}, "count": {"$count": {}}, "first": {"$first": "$v"},
                  "last": {"$last": "$v"}, "set": {"$addToSet": "$v"}}}},
                  {"$match": {"_id": 1}}, {"$project": {"g": 0, "t": 0, "v": 0}}])",
              kScores,
              {R"({"_id": 1, "sum": 17, "avg": 5.666666666666667, "min": 5, "max": "x", "count": 6, "first": 5,
                   "last": "x", "set": [5, 7, null, "x"]})"}},
    StageCase{"push_skips_missing_keeps_null",
              R"([{"$setWindowFields": {"sortBy": {"t": 1}, "output": {"all": {"$push": "$v"}}}}, {"$limit": 1},
                  {"$project": {"all": 1}}])",
              kScores, {R"({"_id": 1, "all": [5, 5, 7, null, "x"]})"}},
    StageCase{"sliding_documents_window_min_max",
              R"([{"$setWindowFields": {"sortBy": {"t": 1}, "output": {"lo": {"$min": "$v", "window": {"documents": [-1, 1]}},
                  "n": {"$count": {}, "window": {"documents": [1, 2]}}}}}, {"$project": {"lo": 1, "n": 1}}])",
              kScores,
              {R"({"_id": 1, "lo": 5, "n": 2})", R"({"_id": 2, "lo": 5, "n": 2})", R"({"_id": 3, "lo": 5, "n": 2})",
               R"({"_id": 4, "lo": 7, "n": 2})", R"({"_id": 5, "lo": "x", "n": 1})", R"({"_id": 6, "lo": "x", "n": 0})"}},
    StageCase{"empty_window_values",
              R"([{"$setWindowFields": {"sortBy": {"t": 1}, "output": {"s": {"$sum": "$v", "window": {"documents": [6, 9]}},
                  "a": {"$avg": "$v", "window": {"documents": [6, 9]}}, "p": {"$push": "$v", "window": {"documents": [6, 9]}},
                  "f": {"$first": "$v", "window": {"documents": [6, 9]}}, "sd": {"$stdDevPop": "$v", "window": {"documents": [6, 9]}}}}},
                  {"$limit": 1}, {"$project": {"s": 1, "a": 1, "p": 1, "f": 1, "sd": 1}}])",
              kScores, {R"({"_id": 1, "s": 0, "a": null, "p": [], "f": null, "sd": null})"}},
    StageCase{"std_dev_pop_and_samp",
              R"([{"$setWindowFields": {"output": {"p": {"$stdDevPop": "$v"}, "s": {"$stdDevSamp": "$v"}}}},
                  {"$limit": 1}, {"$project": {"p": 1, "s": 1}}])",
              {R"({"_id": 1, "v": 2})", R"({"_id": 2, "v": 4})", R"({"_id": 3, "v": 4})", R"({"_id": 4, "v": 4})",
               R"({"_id": 5, "v": 5})", R"({"_id": 6, "v": 5})", R"({"_id": 7, "v": 7})", R"({"_id": 8, "v": 9})"},
              {R"({"_id": 1, "p": 2.0, "s": 2.138089935299395})"}},
    StageCase{"locf_carries_last_non_null",
              R"([{"$setWindowFields": {"sortBy": {"t": 1}, "output": {"v": {"$locf": "$v"}}}}, {"$project": {"v": 1}}])",
              kScores,
              {R"({"_id": 1, "v": 5})", R"({"_id": 2, "v": 5})", R"({"_id": 3, "v": 7})", R"({"_id": 4, "v": 7})",
               R"({"_id": 5, "v": 7})", R"({"_id": 6, "v": "x"})"}},
    StageCase{"linear_fill_interpolates",
              R"([{"$setWindowFields": {"sortBy": {"t": 1}, "output": {"v": {"$linearFill": "$v"}}}}, {"$project": {"v": 1}}])",
              {R"({"_id": 1, "t": 1})", R"({"_id": 2, "t": 2, "v": 10})", R"({"_id": 3, "t": 3, "v": null})",
               R"({"_id": 4, "t": 5})", R"({"_id": 5, "t": 6, "v": 18})", R"({"_id": 6, "t": 7})"},
              {R"({"_id": 1, "v": null})", R"({"_id": 2, "v": 10})", R"({"_id": 3, "v": 12.0})", R"({"_id": 4, "v": 16.0})",
               R"({"_id": 5, "v": 18})", R"({"_id": 6, "v": null})"}},
    StageCase{"exp_moving_avg_n",
              R"([{"$setWindowFields": {"partitionBy": "$stock", "sortBy": {"date": 1}, "output": {
                  "expMovingAvgForStock": {"$expMovingAvg": {"input": "$price", "N": 3}}}}}, {"$project": {"expMovingAvgForStock": 1}}])",
              {R"({"_id": 1, "stock": "ABC", "date": 1, "price": 13})", R"({"_id": 2, "stock": "ABC", "date": 2, "price": 15})",
               R"({"_id": 3, "stock": "ABC", "date": 3, "price": "n/a"})", R"({"_id": 4, "stock": "ABC", "date": 4, "price": 11})"},
              {R"({"_id": 1, "expMovingAvgForStock": 13.0})", R"({"_id": 2, "expMovingAvgForStock": 14.0})",
               R"({"_id": 3, "expMovingAvgForStock": 14.0})", R"({"_id": 4, "expMovingAvgForStock": 12.5})"}},
    StageCase{"exp_moving_avg_alpha",
              R"([{"$setWindowFields": {"sortBy": {"date": 1}, "output": {
                  "e": {"$expMovingAvg": {"input": "$price", "alpha": 0.75}}}}}, {"$project": {"e": 1}}])",
              {R"({"_id": 1, "date": 1, "price": 8})", R"({"_id": 2, "date": 2, "price": 16})"},
              {R"({"_id": 1, "e": 8.0})", R"({"_id": 2, "e": 14.0})"}},
    StageCase{"derivative_over_range_in_hours",
              R"([{"$setWindowFields": {"partitionBy": "$truck", "sortBy": {"ts": 1}, "output": {
                  "speed": {"$derivative": {"input": "$miles", "unit": "hour"}, "window": {"range": [-30, 0], "unit": "minute"}}}}},
                  {"$project": {"speed": 1}}])",
              {R"({"_id": 1, "truck": 1, "ts": )" D("2020-05-18T14:00:00Z") R"(, "miles": 100})",
               R"({"_id": 2, "truck": 1, "ts": )" D("2020-05-18T14:30:00Z") R"(, "miles": 130})",
               R"({"_id": 3, "truck": 1, "ts": )" D("2020-05-18T15:00:00Z") R"(, "miles": 150})"},
              {R"({"_id": 1, "speed": null})", R"({"_id": 2, "speed": 60.0})", R"({"_id": 3, "speed": 40.0})"}},
    StageCase{"integral_trapezoids",
              R"([{"$setWindowFields": {"sortBy": {"x": 1}, "output": {
                  "area": {"$integral": {"input": "$y"}, "window": {"documents": ["unbounded", "current"]}}}}},
                  {"$project": {"area": 1}}])",
              {R"({"_id": 1, "x": 0, "y": 0})", R"({"_id": 2, "x": 2, "y": 2})", R"({"_id": 3, "x": 3, "y": 0})"},
              {R"({"_id": 1, "area": 0.0})", R"({"_id": 2, "area": 2.0})", R"({"_id": 3, "area": 3.0})"}},
    StageCase{"dotted_output_path",
              R"([{"$setWindowFields": {"output": {"stats.total": {"$sum": "$v"}}}}])",
              {R"({"_id": 1, "v": 2})", R"({"_id": 2, "v": 3})"},
              {R"({"_id": 1, "v": 2, "stats": {"total": 5}})", R"({"_id": 2, "v": 3, "stats": {"total": 5}})"}},
    StageCase{"missing_partition_value_is_null",
              R"([{"$setWindowFields": {"partitionBy": "$p", "output": {"n": {"$count": {}}}}}, {"$project": {"n": 1}}])",
              {R"({"_id": 1, "p": null})", R"({"_id": 2})", R"({"_id": 3, "p": 1})"},
              {R"({"_id": 1, "n": 2})", R"({"_id": 2, "n": 2})", R"({"_id": 3, "n": 1})"}},
    StageCase{"empty_window_object_is_the_whole_partition",
              R"([{"$setWindowFields": {"output": {"n": {"$sum": "$_id", "window": {}}}}}, {"$project": {"n": 1}}])",
              {R"({"_id": 1})", R"({"_id": 2})"}, {R"({"_id": 1, "n": 3})", R"({"_id": 2, "n": 3})"}}));

INSTANTIATE_TEST_SUITE_P(Errors, WindowTest, ::testing::Values(
    StageCase{"unknown_function", R"([{"$setWindowFields": {"output": {"a": {"$summ": "$x"}}}}])", {}, {}, 9},
    StageCase{"missing_output", R"([{"$setWindowFields": {"sortBy": {"a": 1}}}])", {}, {}, 40414},
    StageCase{"unknown_field", R"([{"$setWindowFields": {"output": {}, "foo": 1}}])", {}, {}, 40415},
    StageCase{"rank_needs_sort", R"([{"$setWindowFields": {"output": {"r": {"$rank": {}}}}}])", {}, {}, 5371602},
    StageCase{"document_number_needs_one_sort_field",
              R"([{"$setWindowFields": {"sortBy": {"a": 1, "b": 1}, "output": {"r": {"$documentNumber": {}}}}}])", {}, {}, 5371602},
    StageCase{"rank_value_not_empty",
              R"([{"$setWindowFields": {"sortBy": {"a": 1}, "output": {"r": {"$denseRank": {"x": 1}}}}}])", {}, {}, 5371603},
    StageCase{"rank_with_window",
              R"([{"$setWindowFields": {"sortBy": {"a": 1}, "output": {"r": {"$rank": {}, "window": {"documents": [0, 0]}}}}}])",
              {}, {}, 5371601},
    StageCase{"derivative_unit_month",
              R"([{"$setWindowFields": {"sortBy": {"a": 1}, "output": {"d": {"$derivative": {"input": "$a", "unit": "month"}, "window": {"documents": [-1, 0]}}}}}])",
              {}, {}, 5490710},
    StageCase{"integral_needs_sort",
              R"([{"$setWindowFields": {"output": {"d": {"$integral": {"input": "$a"}}}}}])", {}, {}, 9},
    StageCase{"locf_with_window",
              R"([{"$setWindowFields": {"sortBy": {"a": 1}, "output": {"l": {"$locf": "$a", "window": {"documents": [0, 0]}}}}}])",
              {}, {}, 9},
    StageCase{"documents_window_needs_sort",
              R"([{"$setWindowFields": {"output": {"a": {"$sum": 1, "window": {"documents": [-1, 0]}}}}}])", {}, {}, 5339901},
    StageCase{"range_needs_one_sort_field",
              R"([{"$setWindowFields": {"sortBy": {"a": 1, "b": 1}, "output": {"a": {"$sum": 1, "window": {"range": [-1, 0]}}}}}])",
              {}, {}, 5339902},
    StageCase{"range_needs_ascending_sort",
              R"([{"$setWindowFields": {"sortBy": {"a": -1}, "output": {"a": {"$sum": 1, "window": {"range": [-1, 0]}}}}}])",
              {}, {}, 8947401},
    StageCase{"lower_above_upper",
              R"([{"$setWindowFields": {"sortBy": {"a": 1}, "output": {"a": {"$sum": 1, "window": {"documents": [1, 0]}}}}}])",
              {}, {}, 5339900},
    StageCase{"range_lower_above_upper",
              R"([{"$setWindowFields": {"sortBy": {"a": 1}, "output": {"a": {"$sum": 1, "window": {"range": ["current", -1]}}}}}])",
              {}, {}, 5339900},
    StageCase{"documents_and_range",
              R"([{"$setWindowFields": {"sortBy": {"a": 1}, "output": {"a": {"$sum": 1, "window": {"documents": [0, 1], "range": [0, 1]}}}}}])",
              {}, {}, 9},
    StageCase{"unit_with_documents",
              R"([{"$setWindowFields": {"sortBy": {"a": 1}, "output": {"a": {"$sum": 1, "window": {"documents": [0, 1], "unit": "day"}}}}}])",
              {}, {}, 9},
    StageCase{"unknown_window_field",
              R"([{"$setWindowFields": {"sortBy": {"a": 1}, "output": {"a": {"$sum": 1, "window": {"documents": [0, 1], "x": 1}}}}}])",
              {}, {}, 9},
    StageCase{"bad_bound_string",
              R"([{"$setWindowFields": {"sortBy": {"a": 1}, "output": {"a": {"$sum": 1, "window": {"documents": ["now", 1]}}}}}])",
              {}, {}, 9},
    StageCase{"range_bound_not_a_number",
              R"([{"$setWindowFields": {"sortBy": {"a": 1}, "output": {"a": {"$sum": 1, "window": {"range": [true, 1]}}}}}])",
              {}, {}, 9},
    StageCase{"unit_bound_not_integral",
              R"([{"$setWindowFields": {"sortBy": {"a": 1}, "output": {"a": {"$sum": 1, "window": {"range": [-1.5, 0], "unit": "day"}}}}}])",
              {}, {}, 9},
    StageCase{"unit_not_a_string",
              R"([{"$setWindowFields": {"sortBy": {"a": 1}, "output": {"a": {"$sum": 1, "window": {"range": [-1, 0], "unit": 1}}}}}])",
              {}, {}, 9},
    StageCase{"range_over_dates_needs_unit",
              R"([{"$setWindowFields": {"sortBy": {"a": 1}, "output": {"s": {"$sum": 1, "window": {"range": [-1, 0]}}}}}])",
              {R"({"a": {"$date": "2021-01-01T00:00:00Z"}})"}, {}, 5429413},
    StageCase{"range_over_strings",
              R"([{"$setWindowFields": {"sortBy": {"a": 1}, "output": {"s": {"$sum": 1, "window": {"range": [-1, 0]}}}}}])",
              {R"({"a": "x"})"}, {}, 5429414},
    StageCase{"range_unit_over_numbers",
              R"([{"$setWindowFields": {"sortBy": {"a": 1}, "output": {"s": {"$sum": 1, "window": {"range": [-1, 0], "unit": "day"}}}}}])",
              {R"({"a": 1})"}, {}, 5429513},
    StageCase{"exp_moving_avg_shape",
              R"([{"$setWindowFields": {"sortBy": {"a": 1}, "output": {"e": {"$expMovingAvg": {"input": "$a"}}}}}])", {}, {}, 9},
    StageCase{"exp_moving_avg_alpha_range",
              R"([{"$setWindowFields": {"sortBy": {"a": 1}, "output": {"e": {"$expMovingAvg": {"input": "$a", "alpha": 1}}}}}])",
              {}, {}, 9},
    StageCase{"derivative_needs_window",
              R"([{"$setWindowFields": {"sortBy": {"a": 1}, "output": {"d": {"$derivative": {"input": "$a"}}}}}])", {}, {}, 9},
    StageCase{"shift_by_not_integer",
              R"([{"$setWindowFields": {"sortBy": {"a": 1}, "output": {"s": {"$shift": {"output": "$a", "by": 1.5}}}}}])",
              {}, {}, 9}));

}  // namespace
}  // namespace tigerdoc::agg
