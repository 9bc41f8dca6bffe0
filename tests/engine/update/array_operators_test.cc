// $push (with $each, $position, $sort, $slice), $addToSet, $pop, $pull and
// $pullAll, row by row from MongoDB's manual pages of each operator and its
// server code's edge cases (src/mongo/db/update/*_node.cpp).

#include <gtest/gtest.h>

#include "tests/engine/update/update_test_util.h"

namespace tigerdoc::update {
namespace {

using testing_update::Case;
using testing_update::ErrorCase;

class ArrayOperatorTest : public testing::TestWithParam<Case> {};
TEST_P(ArrayOperatorTest, AppliesLikeMongoDB) { testing_update::ExpectApplies(GetParam()); }

class ArrayOperatorErrorTest : public testing::TestWithParam<ErrorCase> {};
TEST_P(ArrayOperatorErrorTest, FailsLikeMongoDB) { testing_update::ExpectFails(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Push, ArrayOperatorTest, testing::Values(
    Case{R"({"%push": {"scores": 89}})", R"({"_id": 1, "scores": [44, 78, 38, 80]})",
         R"({"_id": 1, "scores": [44, 78, 38, 80, 89]})", true},
    Case{R"({"%push": {"scores": {"%each": [90, 92, 85]}}})", R"({"_id": 1, "scores": [44]})",
         R"({"_id": 1, "scores": [44, 90, 92, 85]})", true},
    // A missing field becomes an array; a missing path is created.
    Case{R"({"%push": {"a": 1}})", R"({"_id": 1})", R"({"_id": 1, "a": [1]})", true},
    Case{R"({"%push": {"a.b": {"%each": [1, 2]}}})", R"({"_id": 1})",
         R"({"_id": 1, "a": {"b": [1, 2]}})", true},
    Case{R"({"%push": {"a": {"%each": []}}})", R"({"_id": 1})", R"({"_id": 1, "a": []})", true},
    // The value is pushed whole: arrays and documents without $each.
    Case{R"({"%push": {"a": [1, 2]}})", R"({"_id": 1, "a": [0]})",
         R"({"_id": 1, "a": [0, [1, 2]]})", true},
    Case{R"({"%push": {"a": {"b": 1, "%slice": 1}}})", R"({"_id": 1, "a": []})",
         R"({"_id": 1, "a": [{"b": 1, "%slice": 1}]})", true},
    Case{R"({"%push": {"a": {"%each": []}}})", R"({"_id": 1, "a": [1]})", R"({"_id": 1, "a": [1]})",
         false},
    Case{R"({"%push": {"a.0.b": 1}})", R"({"_id": 1, "a": [{"b": []}]})",
         R"({"_id": 1, "a": [{"b": [1]}]})", true},
    // $position (manual): 0, positive, negative, past either end.
    Case{R"({"%push": {"scores": {"%each": [50, 60, 70], "%position": 0}}})",
         R"({"_id": 1, "scores": [100]})", R"({"_id": 1, "scores": [50, 60, 70, 100]})", true},
    Case{R"({"%push": {"scores": {"%each": [20, 30], "%position": 2}}})",
         R"({"_id": 1, "scores": [50, 60, 70, 100]})",
         R"({"_id": 1, "scores": [50, 60, 20, 30, 70, 100]})", true},
    Case{R"({"%push": {"scores": {"%each": [90, 80], "%position": -2}}})",
         R"({"_id": 1, "scores": [50, 60, 20, 30, 70, 100]})",
         R"({"_id": 1, "scores": [50, 60, 20, 30, 90, 80, 70, 100]})", true},
    Case{R"({"%push": {"a": {"%each": [9], "%position": 10}}})", R"({"_id": 1, "a": [1, 2]})",
         R"({"_id": 1, "a": [1, 2, 9]})", true},
    Case{R"({"%push": {"a": {"%each": [9], "%position": -10}}})", R"({"_id": 1, "a": [1, 2]})",
         R"({"_id": 1, "a": [9, 1, 2]})", true},
    Case{R"({"%push": {"a": {"%each": [9], "%position": 2.0}}})", R"({"_id": 1, "a": [1, 2, 3]})",
         R"({"_id": 1, "a": [1, 2, 9, 3]})", true},
    // $slice (manual): negative keeps the end, positive the start, 0 empties.
    Case{R"({"%push": {"scores": {"%each": [80, 78, 86], "%slice": -5}}})",
         R"({"_id": 1, "scores": [40, 50, 60]})", R"({"_id": 1, "scores": [50, 60, 80, 78, 86]})",
         true},
    Case{R"({"%push": {"scores": {"%each": [100, 20], "%slice": 3}}})",
         R"({"_id": 2, "scores": [89, 90]})", R"({"_id": 2, "scores": [89, 90, 100]})", true},
    Case{R"({"%push": {"scores": {"%each": [], "%slice": -3}}})",
         R"({"_id": 3, "scores": [89, 70, 100, 20]})", R"({"_id": 3, "scores": [70, 100, 20]})",
         true},
    Case{R"({"%push": {"a": {"%each": [1], "%slice": 0}}})", R"({"_id": 1, "a": [5]})",
         R"({"_id": 1, "a": []})", true},
    Case{R"({"%push": {"a": {"%each": [1], "%slice": {"$numberLong": "5"}}}})",
         R"({"_id": 1, "a": [5]})", R"({"_id": 1, "a": [5, 1]})", true},
    // $sort (manual): by a field, stable; whole values ascending and descending.
    Case{R"({"%push": {"quizzes": {"%each": [{"id": 3, "score": 8}, {"id": 4, "score": 7},
                                              {"id": 5, "score": 6}],
                                   "%sort": {"score": 1}}}})",
         R"({"_id": 1, "quizzes": [{"id": 1, "score": 6}, {"id": 2, "score": 9}]})",
         R"({"_id": 1, "quizzes": [{"id": 1, "score": 6}, {"id": 5, "score": 6},
                                   {"id": 4, "score": 7}, {"id": 3, "score": 8},
                                   {"id": 2, "score": 9}]})", true},
    Case{R"({"%push": {"tests": {"%each": [40, 60], "%sort": 1}}})",
         R"({"_id": 2, "tests": [89, 70, 89, 50]})",
         R"({"_id": 2, "tests": [40, 50, 60, 70, 89, 89]})", true},
    Case{R"({"%push": {"tests": {"%each": [], "%sort": -1}}})",
         R"({"_id": 3, "tests": [89, 70, 100, 20]})", R"({"_id": 3, "tests": [100, 89, 70, 20]})",
         true},
    // Whole values in BSON order across types: null < numbers < strings < objects.
    Case{R"({"%push": {"a": {"%each": [], "%sort": 1}}})",
         R"({"_id": 1, "a": ["b", 2.5, {"x": 1}, null, 1]})",
         R"({"_id": 1, "a": [null, 1, 2.5, "b", {"x": 1}]})", true},
    // Sorting by a dotted field; elements that are no documents sort as null.
    Case{R"({"%push": {"a": {"%each": [{"b": {"c": 1}}], "%sort": {"b.c": -1}}}})",
         R"({"_id": 1, "a": [5, {"b": {"c": 2}}, {"b": {"c": 0}}]})",
         R"({"_id": 1, "a": [{"b": {"c": 2}}, {"b": {"c": 1}}, {"b": {"c": 0}}, 5]})", true},
    Case{R"({"%push": {"a": {"%each": [{"x": 2, "y": 1}], "%sort": {"x": 1, "y": -1}}}})",
         R"({"_id": 1, "a": [{"x": 2, "y": 0}, {"x": 1, "y": 5}]})",
         R"({"_id": 1, "a": [{"x": 1, "y": 5}, {"x": 2, "y": 1}, {"x": 2, "y": 0}]})", true},
    // Already sorted: same bytes, so not modified.
    Case{R"({"%push": {"a": {"%each": [], "%sort": 1}}})", R"({"_id": 1, "a": [1, 2]})",
         R"({"_id": 1, "a": [1, 2]})", false},
    // All modifiers together (manual): insert at $position, then $sort, then $slice.
    Case{R"({"%push": {"quizzes": {"%each": [{"wk": 5, "score": 8}, {"wk": 6, "score": 7},
                                              {"wk": 7, "score": 6}],
                                   "%sort": {"score": -1}, "%slice": 3}}})",
         R"({"_id": 5, "quizzes": [{"wk": 1, "score": 10}, {"wk": 2, "score": 8},
                                   {"wk": 3, "score": 5}, {"wk": 4, "score": 6}]})",
         R"({"_id": 5, "quizzes": [{"wk": 1, "score": 10}, {"wk": 2, "score": 8},
                                   {"wk": 5, "score": 8}]})", true},
    Case{R"({"%push": {"a": {"%slice": 4, "%position": 1, "%each": [9, 8]}}})",
         R"({"_id": 1, "a": [1, 2, 3]})", R"({"_id": 1, "a": [1, 9, 8, 2]})", true},
    Case{R"({"%push": {"a": {"%each": [9, 8], "%position": 1, "%sort": -1, "%slice": -2}}})",
         R"({"_id": 1, "a": [1, 2, 3]})", R"({"_id": 1, "a": [2, 1]})", true},
    Case{R"({"%push": {"a": {"%each": [3, 1, 2], "%sort": 1, "%slice": 2}}})", R"({"_id": 1})",
         R"({"_id": 1, "a": [1, 2]})", true}));

INSTANTIATE_TEST_SUITE_P(AddToSet, ArrayOperatorTest, testing::Values(
    // Manual: an array value is added as one element.
    Case{R"({"%addToSet": {"letters": ["c", "d"]}})", R"({"_id": 1, "letters": ["a", "b"]})",
         R"({"_id": 1, "letters": ["a", "b", ["c", "d"]]})", true},
    Case{R"({"%addToSet": {"tags": "accessories"}})",
         R"({"_id": 1, "item": "polarizing_filter", "tags": ["electronics", "camera"]})",
         R"({"_id": 1, "item": "polarizing_filter", "tags": ["electronics", "camera", "accessories"]})",
         true},
    Case{R"({"%addToSet": {"tags": "camera"}})", R"({"_id": 1, "tags": ["electronics", "camera"]})",
         R"({"_id": 1, "tags": ["electronics", "camera"]})", false},
    Case{R"({"%addToSet": {"tags": {"%each": ["camera", "electronics", "accessories"]}}})",
         R"({"_id": 2, "item": "cable", "tags": ["electronics", "supplies"]})",
         R"({"_id": 2, "item": "cable", "tags": ["electronics", "supplies", "camera", "accessories"]})",
         true},
    // Set equality is BSON comparison: 1, 1.0 and NumberLong(1) are one value.
    Case{R"({"%addToSet": {"a": 1.0}})", R"({"_id": 1, "a": [1]})", R"({"_id": 1, "a": [1]})", false},
    Case{R"({"%addToSet": {"a": {"$numberLong": "1"}}})", R"({"_id": 1, "a": [1.0]})",
         R"({"_id": 1, "a": [1.0]})", false},
    Case{R"({"%addToSet": {"a": {"%each": [2, 2.0, 3, {"$numberLong": "3"}]}}})",
         R"({"_id": 1, "a": []})", R"({"_id": 1, "a": [2, 3]})", true},
    // Documents compare field by field, in order.
    Case{R"({"%addToSet": {"a": {"y": 2, "x": 1}}})", R"({"_id": 1, "a": [{"x": 1, "y": 2}]})",
         R"({"_id": 1, "a": [{"x": 1, "y": 2}, {"y": 2, "x": 1}]})", true},
    Case{R"({"%addToSet": {"a": {"x": 1, "y": 2}}})", R"({"_id": 1, "a": [{"x": 1, "y": 2}]})",
         R"({"_id": 1, "a": [{"x": 1, "y": 2}]})", false},
    // Missing field: created, even from an empty $each.
    Case{R"({"%addToSet": {"a": 1}})", R"({"_id": 1})", R"({"_id": 1, "a": [1]})", true},
    Case{R"({"%addToSet": {"a": {"%each": []}}})", R"({"_id": 1})", R"({"_id": 1, "a": []})", true},
    Case{R"({"%addToSet": {"a.b": {"%each": [1, 1]}}})", R"({"_id": 1, "a": {}})",
         R"({"_id": 1, "a": {"b": [1]}})", true}));

INSTANTIATE_TEST_SUITE_P(Pop, ArrayOperatorTest, testing::Values(
    Case{R"({"%pop": {"scores": -1}})", R"({"_id": 1, "scores": [8, 9, 10]})",
         R"({"_id": 1, "scores": [9, 10]})", true},
    Case{R"({"%pop": {"scores": 1}})", R"({"_id": 1, "scores": [9, 10]})",
         R"({"_id": 1, "scores": [9]})", true},
    Case{R"({"%pop": {"a": 1.0}})", R"({"_id": 1, "a": [1]})", R"({"_id": 1, "a": []})", true},
    Case{R"({"%pop": {"a": {"$numberLong": "-1"}}})", R"({"_id": 1, "a": [1, 2]})",
         R"({"_id": 1, "a": [2]})", true},
    Case{R"({"%pop": {"a": 1}})", R"({"_id": 1, "a": []})", R"({"_id": 1, "a": []})", false},
    Case{R"({"%pop": {"a": 1}})", R"({"_id": 1})", R"({"_id": 1})", false},
    Case{R"({"%pop": {"a.b": 1}})", R"({"_id": 1, "a": {}})", R"({"_id": 1, "a": {}})", false},
    Case{R"({"%pop": {"a.5": 1}})", R"({"_id": 1, "a": [1]})", R"({"_id": 1, "a": [1]})", false},
    Case{R"({"%pop": {"a.0.b": -1}})", R"({"_id": 1, "a": [{"b": [[1], 2]}]})",
         R"({"_id": 1, "a": [{"b": [2]}]})", true}));

INSTANTIATE_TEST_SUITE_P(Pull, ArrayOperatorTest, testing::Values(
    // Manual: a condition per field, values and conditions.
    Case{R"({"%pull": {"fruits": {"%in": ["apples", "oranges"]}, "vegetables": "carrots"}})",
         R"({"_id": 1, "fruits": ["apples", "pears", "oranges", "grapes", "bananas"],
             "vegetables": ["carrots", "celery", "squash", "carrots"]})",
         R"({"_id": 1, "fruits": ["pears", "grapes", "bananas"],
             "vegetables": ["celery", "squash"]})", true},
    Case{R"({"%pull": {"votes": {"%gte": 6}}})", R"({"_id": 1, "votes": [3, 5, 6, 7, 7, 8]})",
         R"({"_id": 1, "votes": [3, 5]})", true},
    // A document condition is a query on each document element.
    Case{R"({"%pull": {"results": {"score": 8, "item": "B"}}})",
         R"({"_id": 1, "results": [{"item": "A", "score": 5}, {"item": "B", "score": 8}]})",
         R"({"_id": 1, "results": [{"item": "A", "score": 5}]})", true},
    Case{R"({"%pull": {"results": {"answers": {"%elemMatch": {"q": 2, "a": {"%gte": 8}}}}}})",
         R"({"_id": 1, "results": [
              {"item": "A", "score": 5, "answers": [{"q": 1, "a": 4}, {"q": 2, "a": 6}]},
              {"item": "B", "score": 8, "answers": [{"q": 1, "a": 8}, {"q": 2, "a": 9}]}]})",
         R"({"_id": 1, "results": [
              {"item": "A", "score": 5, "answers": [{"q": 1, "a": 4}, {"q": 2, "a": 6}]}]})", true},
    Case{R"({"%pull": {"a": {"x": 1}}})", R"({"_id": 1, "a": [{"x": 1, "y": 2}, {"x": 2}, 1]})",
         R"({"_id": 1, "a": [{"x": 2}, 1]})", true},
    Case{R"({"%pull": {"a": {"%or": [{"x": 1}, {"y": {"%exists": true}}]}}})",
         R"({"_id": 1, "a": [{"x": 1}, {"y": null}, {"z": 1}]})", R"({"_id": 1, "a": [{"z": 1}]})",
         true},
    // {} matches every document element, and nothing else.
    Case{R"({"%pull": {"a": {}}})", R"({"_id": 1, "a": [1, {"b": 1}, {}, [2]]})",
         R"({"_id": 1, "a": [1, [2]]})", true},
    // Equality across numeric types; arrays compare whole.
    Case{R"({"%pull": {"a": 1}})", R"({"_id": 1, "a": [1, 1.0, 2, {"$numberLong": "1"}]})",
         R"({"_id": 1, "a": [2]})", true},
    Case{R"({"%pull": {"a": [1, 2]}})", R"({"_id": 1, "a": [[1, 2], [2, 1], 1]})",
         R"({"_id": 1, "a": [[2, 1], 1]})", true},
    // Operator conditions see each element as a query sees a field value,
    // arrays included.
    Case{R"({"%pull": {"a": {"%ne": 2}}})", R"({"_id": 1, "a": [1, 2, 3]})",
         R"({"_id": 1, "a": [2]})", true},
    Case{R"({"%pull": {"a": {"%gte": 6}}})", R"({"_id": 1, "a": [[1, 7], [2], 9]})",
         R"({"_id": 1, "a": [[2]]})", true},
    Case{R"({"%pull": {"a": {"$regularExpression": {"pattern": "^a", "options": ""}}}})",
         R"({"_id": 1, "a": ["apple", "banana", "avocado", 1]})",
         R"({"_id": 1, "a": ["banana", 1]})", true},
    Case{R"({"%pull": {"a": {"%type": "string"}}})", R"({"_id": 1, "a": ["x", 1, "y"]})",
         R"({"_id": 1, "a": [1]})", true},
    // Nothing removed, or nothing there: not modified.
    Case{R"({"%pull": {"a": 5}})", R"({"_id": 1, "a": [1, 2]})", R"({"_id": 1, "a": [1, 2]})", false},
    Case{R"({"%pull": {"a": 5}})", R"({"_id": 1})", R"({"_id": 1})", false},
    Case{R"({"%pull": {"a.b": 5}})", R"({"_id": 1, "a": {"c": 1}})", R"({"_id": 1, "a": {"c": 1}})",
         false},
    Case{R"({"%pull": {"a.1.b": {"%lt": 3}}})", R"({"_id": 1, "a": [{"b": [1]}, {"b": [1, 5, 2]}]})",
         R"({"_id": 1, "a": [{"b": [1]}, {"b": [5]}]})", true}));

INSTANTIATE_TEST_SUITE_P(PullAll, ArrayOperatorTest, testing::Values(
    Case{R"({"%pullAll": {"scores": [0, 5]}})", R"({"_id": 1, "scores": [0, 2, 5, 5, 1, 0]})",
         R"({"_id": 1, "scores": [2, 1]})", true},
    Case{R"({"%pullAll": {"a": [1.0, "x", [1]]}})", R"({"_id": 1, "a": [1, "x", [1], [1, 2], "y"]})",
         R"({"_id": 1, "a": [[1, 2], "y"]})", true},
    Case{R"({"%pullAll": {"a": [{"b": 1}]}})", R"({"_id": 1, "a": [{"b": 1}, {"b": 1, "c": 2}]})",
         R"({"_id": 1, "a": [{"b": 1, "c": 2}]})", true},
    Case{R"({"%pullAll": {"a": []}})", R"({"_id": 1, "a": [1]})", R"({"_id": 1, "a": [1]})", false},
    Case{R"({"%pullAll": {"a": [1]}})", R"({"_id": 1})", R"({"_id": 1})", false}));

INSTANTIATE_TEST_SUITE_P(ParseErrors, ArrayOperatorErrorTest, testing::Values(
    ErrorCase{R"({"%push": {"a": {"%each": 1}}})", nullptr, 2,
              "The argument to $each in $push must be an array but it was of type: int"},
    ErrorCase{R"({"%push": {"a": {"%each": [1], "%foo": 1}}})", nullptr, 2,
              "Unrecognized clause in $push: $foo"},
    ErrorCase{R"({"%push": {"a": {"%each": [1], "%slice": "x"}}})", nullptr, 2,
              "The value for $slice must be an integer value but was given type: string"},
    ErrorCase{R"({"%push": {"a": {"%each": [1], "%slice": 1.5}}})", nullptr, 2,
              "The value for $slice must be an integer value but was given type: double"},
    ErrorCase{R"({"%push": {"a": {"%each": [1], "%position": "x"}}})", nullptr, 2,
              "The value for $position must be an integer value, not of type: string"},
    ErrorCase{R"({"%push": {"a": {"%each": [1], "%sort": 2}}})", nullptr, 2,
              "The $sort element value must be either 1 or -1"},
    ErrorCase{R"({"%push": {"a": {"%each": [1], "%sort": "x"}}})", nullptr, 2,
              "The $sort is invalid: use 1/-1 to sort the whole element, or {field:1/-1} to "
              "sort embedded fields"},
    ErrorCase{R"({"%push": {"a": {"%each": [1], "%sort": {}}}})", nullptr, 2,
              "The sort pattern is empty when it should be a set of fields."},
    ErrorCase{R"({"%push": {"a": {"%each": [1], "%sort": {"b": 0}}}})", nullptr, 2,
              "The sort element value must be either 1 or -1"},
    ErrorCase{R"({"%push": {"a": {"%each": [1], "%sort": {"b..c": 1}}}})", nullptr, 2,
              "The sort field is a dotted field but has an empty part: b..c"},
    ErrorCase{R"({"%addToSet": {"a": {"%each": 1}}})", nullptr, 14,
              "The argument to $each in $addToSet must be an array but it was of type int"},
    ErrorCase{R"({"%addToSet": {"a": {"%each": [1], "x": 1}}})", nullptr, 2,
              "Found unexpected fields after $each in $addToSet: { $each: [ 1 ], x: 1 }"},
    ErrorCase{R"({"%pop": {"a": 2}})", nullptr, 9, "$pop expects 1 or -1, found: 2"},
    ErrorCase{R"({"%pop": {"a": 0}})", nullptr, 9, "$pop expects 1 or -1, found: 0"},
    ErrorCase{R"({"%pop": {"a": "x"}})", nullptr, 9, "Expected a number in: a: \"x\""},
    ErrorCase{R"({"%pop": {"a.b": 1.5}})", nullptr, 9, "Expected an integer: a.b: 1.5"},
    ErrorCase{R"({"%pullAll": {"a": 1}})", nullptr, 2,
              "$pullAll requires an array argument but was given a int"},
    ErrorCase{R"({"%pull": {"a": {"%foo": 1}}})", nullptr, 2,
              "unknown top level operator: $foo. If you have a field name that starts with a '$' "
              "symbol, consider using $getField or $setField."},
    ErrorCase{R"({"%pull": {"a": {"%gt": 1, "b": 1}}})", nullptr, 2, "unknown operator: b"},
    ErrorCase{R"({"%push": {"a": 1}, "%pull": {"a": 1}})", nullptr, 40,
              "Updating the path 'a' would create a conflict at 'a'"}));

INSTANTIATE_TEST_SUITE_P(ApplyErrors, ArrayOperatorErrorTest, testing::Values(
    ErrorCase{R"({"%push": {"a": 1}})", R"({"_id": 1, "a": 1})", 2,
              "The field 'a' must be an array but is of type int in document {_id: 1}"},
    ErrorCase{R"({"%push": {"b.c": {"%each": [1]}}})", R"({"_id": "x", "b": {"c": "s"}})", 2,
              "The field 'b.c' must be an array but is of type string in document {_id: \"x\"}"},
    ErrorCase{R"({"%push": {"a": 1}})", R"({"a": {}})", 2,
              "The field 'a' must be an array but is of type object in document {no id}"},
    ErrorCase{R"({"%push": {"a.b": 1}})", R"({"_id": 1, "a": 5})", 28,
              "Cannot create field 'b' in element {a: 5}"},
    ErrorCase{R"({"%addToSet": {"colors": "c"}})", R"({"_id": 1, "colors": "blue,green,red"})", 2,
              "Cannot apply $addToSet to non-array field. Field named 'colors' has non-array type "
              "string"},
    ErrorCase{R"({"%pop": {"a": 1}})", R"({"_id": 1, "a": 5})", 14,
              "Path 'a' contains an element of non-array type 'int'"},
    ErrorCase{R"({"%pop": {"a.b": 1}})", R"({"_id": 1, "a": 5})", 28,
              "Cannot use the part (b of a.b) to traverse the element ({a: 5})"},
    ErrorCase{R"({"%pull": {"a": 1}})", R"({"_id": 1, "a": {"b": 1}})", 2,
              "Cannot apply $pull to a non-array value"},
    ErrorCase{R"({"%pullAll": {"a": [1]}})", R"({"_id": 1, "a": 1})", 2,
              "Cannot apply $pull to a non-array value"},
    ErrorCase{R"({"%pull": {"a.b.c": 1}})", R"({"_id": 1, "a": [1]})", 28,
              "Cannot use the part (b of a.b.c) to traverse the element ({a: [ 1 ]})"}));

}  // namespace
}  // namespace tigerdoc::update
