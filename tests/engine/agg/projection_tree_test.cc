// $project / $addFields / $set through ProjectionTree, where the input has
// fields the spec also names. Regression: ApplyNode kept pointers to the
// input's field names, which live in a temporary that dies before the
// computed fields are placed; under TIGERDOC_SANITIZE=address these rows
// reported heap-use-after-free, and under load the server crashed.

#include <gtest/gtest.h>

#include "tests/engine/agg/agg_test_util.h"

namespace tigerdoc::agg {
namespace {

using testing::StageCase;

class ProjectionTreeTest : public ::testing::TestWithParam<StageCase> {};

TEST_P(ProjectionTreeTest, ProducesMongoDBOutput) { testing::ExpectStageCase(GetParam()); }

INSTANTIATE_TEST_SUITE_P(ComputedOverExistingFields, ProjectionTreeTest, ::testing::Values(
    StageCase{"add_fields_replaces_in_place_and_appends_new",
              R"([{"$addFields": {"a": 5, "b": {"$add": [1, 2]}}}])",
              {R"({"_id": 1, "a": 1, "c": 2})"},
              {R"({"_id": 1, "a": 5, "c": 2, "b": 3})"}},
    StageCase{"project_computed_field_named_like_an_input_field",
              R"([{"$project": {"x": 1, "y": {"$strLenBytes": "abc"}}}])",
              {R"({"_id": 1, "y": 7, "x": 2, "z": 3})"},
              {R"({"_id": 1, "x": 2, "y": 3})"}},
    StageCase{"project_computed_literal_over_many_fields",
              R"([{"$project": {"strLen": {"$strLenBytes": "xy"}, "f3": 1, "f7": 1}}])",
              {R"({"_id": 1, "f1": 1, "f2": 2, "f3": 3, "f4": 4, "f5": 5, "f6": 6, "f7": 7, "strLen": 0})"},
              {R"({"_id": 1, "f3": 3, "f7": 7, "strLen": 2})"}},
    StageCase{"nested_computed_field_inside_an_existing_subdocument",
              R"([{"$project": {"a.b": {"$literal": 1}, "a.c": 1}}])",
              {R"({"_id": 1, "a": {"b": 0, "c": 1, "d": 2}})"},
              {R"({"_id": 1, "a": {"c": 1, "b": 1}})"}},
    StageCase{"set_nested_path_missing_from_the_input",
              R"([{"$set": {"a.b": 1, "n.m": {"$add": [2, 3]}}}])",
              {R"({"_id": 1, "a": {"x": 1}})"},
              {R"({"_id": 1, "a": {"x": 1, "b": 1}, "n": {"m": 5}})"}},
    StageCase{"date_from_string_on_error_over_one_document",
              R"([{"$project": {"date": {"$dateFromString": {"dateString": "July 4th", "onError": "bad"}}}}])",
              {R"({"_id": 1, "date": 1})"},
              {R"({"_id": 1, "date": "bad"})"}}));

}  // namespace
}  // namespace tigerdoc::agg
