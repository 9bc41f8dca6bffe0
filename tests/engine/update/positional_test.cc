// The positional operators: '$' (the element the query matched, through
// query::MatchDetails), '$[]' (every element) and '$[<identifier>]' with
// arrayFilters, from MongoDB's manual pages and the server's
// update_object_node / update_array_node / parsed_update errors.

#include <gtest/gtest.h>

#include "tests/engine/update/update_test_util.h"

namespace tigerdoc::update {
namespace {

using bson::BsonDoc;
using testing_json::Json;
using testing_update::Case;
using testing_update::ErrorCase;

class PositionalTest : public testing::TestWithParam<Case> {};
TEST_P(PositionalTest, AppliesLikeMongoDB) { testing_update::ExpectApplies(GetParam()); }

class PositionalErrorTest : public testing::TestWithParam<ErrorCase> {};
TEST_P(PositionalErrorTest, FailsLikeMongoDB) { testing_update::ExpectFails(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Dollar, PositionalTest, testing::Values(
    Case{R"({"%set": {"grades.$": 82}})", R"({"_id": 1, "grades": [85, 80, 80]})",
         R"({"_id": 1, "grades": [85, 82, 80]})", true, nullptr, R"({"_id": 1, "grades": 80})"},
    Case{R"({"%set": {"grades.$.std": 6}})",
         R"({"_id": 4, "grades": [{"grade": 80, "mean": 75, "std": 8},
                                  {"grade": 85, "mean": 90, "std": 5},
                                  {"grade": 85, "mean": 85, "std": 8}]})",
         R"({"_id": 4, "grades": [{"grade": 80, "mean": 75, "std": 8},
                                  {"grade": 85, "mean": 90, "std": 6},
                                  {"grade": 85, "mean": 85, "std": 8}]})",
         true, nullptr, R"({"_id": 4, "grades.grade": 85})"},
    Case{R"({"%set": {"grades.$.std": 6}})",
         R"({"_id": 5, "grades": [{"grade": 80, "mean": 75, "std": 8},
                                  {"grade": 85, "mean": 90, "std": 5},
                                  {"grade": 90, "mean": 85, "std": 3}]})",
         R"({"_id": 5, "grades": [{"grade": 80, "mean": 75, "std": 8},
                                  {"grade": 85, "mean": 90, "std": 6},
                                  {"grade": 90, "mean": 85, "std": 3}]})",
         true, nullptr,
         R"({"_id": 5, "grades": {"%elemMatch": {"grade": {"%lte": 90}, "mean": {"%gt": 80}}}})"},
    Case{R"({"%inc": {"a.$": 10}})", R"({"_id": 1, "a": [1, 2, 3]})",
         R"({"_id": 1, "a": [1, 12, 3]})", true, nullptr, R"({"a": 2})"},
    Case{R"({"%unset": {"a.$": 1}})", R"({"_id": 1, "a": [1, 2, 3]})",
         R"({"_id": 1, "a": [1, null, 3]})", true, nullptr, R"({"a": {"%gt": 1}})"},
    Case{R"({"%push": {"a.$.b": 3}})", R"({"_id": 1, "a": [{"b": [1]}, {"b": [2]}]})",
         R"({"_id": 1, "a": [{"b": [1]}, {"b": [2, 3]}]})", true, nullptr, R"({"a.b": 2})"},
    // The outermost array's position: a.1, not b.1.
    Case{R"({"%set": {"a.$.c": true}})", R"({"_id": 1, "a": [{"b": [0]}, {"b": [1, 2]}]})",
         R"({"_id": 1, "a": [{"b": [0]}, {"b": [1, 2], "c": true}]})", true, nullptr,
         R"({"a.b": 2})"},
    // '$' and the field it stands for are applied together.
    Case{R"({"%set": {"a.$.x": 1, "a.0.y": 2}})", R"({"_id": 1, "a": [{"z": 1}]})",
         R"({"_id": 1, "a": [{"z": 1, "x": 1, "y": 2}]})", true, nullptr, R"({"a.z": 1})"},
    Case{R"({"%set": {"a.$": 1, "a.0": 2}})", R"({"_id": 1, "a": [5, 6]})",
         R"({"_id": 1, "a": [2, 1]})", true, nullptr, R"({"a": 6})"},
    Case{R"({"%set": {"a.$": 5}})", R"({"_id": 1, "a": [5, 6]})", R"({"_id": 1, "a": [5, 6]})",
         false, nullptr, R"({"a": 5})"}));

INSTANTIATE_TEST_SUITE_P(AllElements, PositionalTest, testing::Values(
    Case{R"({"%inc": {"grades.$[]": 10}})", R"({"_id": 1, "grades": [85, 82, 80]})",
         R"({"_id": 1, "grades": [95, 92, 90]})", true},
    Case{R"({"%set": {"a.$[].b": 1}})", R"({"_id": 1, "a": [{"b": 0}, {"c": 0}]})",
         R"({"_id": 1, "a": [{"b": 1}, {"c": 0, "b": 1}]})", true},
    Case{R"({"%set": {"a.$[].b": 1}})", R"({"_id": 1, "a": []})", R"({"_id": 1, "a": []})", false},
    Case{R"({"%unset": {"a.$[]": 1}})", R"({"_id": 1, "a": [1, 2]})",
         R"({"_id": 1, "a": [null, null]})", true},
    Case{R"({"%inc": {"a.$[].$[]": 1}})", R"({"_id": 1, "a": [[1, 2], [3]]})",
         R"({"_id": 1, "a": [[2, 3], [4]]})", true},
    Case{R"({"%push": {"a.$[].b": {"%each": [9], "%position": 0}}})",
         R"({"_id": 1, "a": [{"b": [1]}, {}]})", R"({"_id": 1, "a": [{"b": [9, 1]}, {"b": [9]}]})",
         true},
    // $unset of a missing subfield through a scalar element is fine.
    Case{R"({"%unset": {"a.$[].b": 1}})", R"({"_id": 1, "a": [{"b": 1}, 5]})",
         R"({"_id": 1, "a": [{}, 5]})", true},
    // Manual: $[] with a nested $[<identifier>].
    Case{R"({"%inc": {"grades.$[].questions.$[score]": 2}})",
         R"({"_id": 1, "grades": [{"type": "quiz", "questions": [10, 8, 5]},
                                  {"type": "quiz", "questions": [8, 9, 6]},
                                  {"type": "hw", "questions": [5, 4, 3]},
                                  {"type": "exam", "questions": [25, 10, 23, 0]}]})",
         R"({"_id": 1, "grades": [{"type": "quiz", "questions": [12, 10, 5]},
                                  {"type": "quiz", "questions": [10, 11, 6]},
                                  {"type": "hw", "questions": [5, 4, 3]},
                                  {"type": "exam", "questions": [27, 12, 25, 0]}]})",
         true, R"([{"score": {"%gte": 8}}])"}));

INSTANTIATE_TEST_SUITE_P(Identifiers, PositionalTest, testing::Values(
    Case{R"({"%set": {"grades.$[element]": 100}})", R"({"_id": 3, "grades": [95, 110, 100]})",
         R"({"_id": 3, "grades": [95, 100, 100]})", true, R"([{"element": {"%gte": 100}}])"},
    Case{R"({"%set": {"grades.$[element]": 100}})", R"({"_id": 1, "grades": [95, 92, 90]})",
         R"({"_id": 1, "grades": [95, 92, 90]})", false, R"([{"element": {"%gte": 100}}])"},
    Case{R"({"%set": {"grades.$[elem].mean": 100}})",
         R"({"_id": 3, "grades": [{"grade": 95, "mean": 85, "std": 6},
                                  {"grade": 87, "mean": 90, "std": 3},
                                  {"grade": 80, "mean": 90, "std": 4}]})",
         R"({"_id": 3, "grades": [{"grade": 95, "mean": 100, "std": 6},
                                  {"grade": 87, "mean": 100, "std": 3},
                                  {"grade": 80, "mean": 90, "std": 4}]})",
         true, R"([{"elem.grade": {"%gte": 85}}])"},
    // Several conditions on one identifier.
    Case{R"({"%inc": {"grades.$[elem].std": -1}})",
         R"({"_id": 5, "grades": [{"grade": 80, "mean": 75, "std": 6},
                                  {"grade": 85, "mean": 90, "std": 4},
                                  {"grade": 85, "mean": 85, "std": 6}]})",
         R"({"_id": 5, "grades": [{"grade": 80, "mean": 75, "std": 5},
                                  {"grade": 85, "mean": 90, "std": 4},
                                  {"grade": 85, "mean": 85, "std": 5}]})",
         true, R"([{"elem.grade": {"%gte": 80}, "elem.std": {"%gt": 5}}])"},
    // $or inside a filter, over one identifier.
    Case{R"({"%set": {"a.$[e].hit": true}})", R"({"_id": 1, "a": [{"x": 1}, {"y": 2}, {"x": 3}]})",
         R"({"_id": 1, "a": [{"x": 1, "hit": true}, {"y": 2, "hit": true}, {"x": 3}]})", true,
         R"([{"%or": [{"e.x": {"%lt": 2}}, {"e.y": {"%exists": true}}]}])"},
    // Several identifiers on different arrays.
    Case{R"({"%set": {"a.$[x]": 0, "b.$[y]": "z"}})", R"({"_id": 1, "a": [1, 2, 3], "b": ["q", "r"]})",
         R"({"_id": 1, "a": [0, 2, 3], "b": ["z", "r"]})", true,
         R"([{"x": {"%lt": 2}}, {"y": "q"}])"},
    // Nested identifiers: $[i].b.$[j].
    Case{R"({"%set": {"a.$[i].b.$[j]": 0}})", R"({"_id": 1, "a": [{"b": [1, 5]}, {"b": [7]}]})",
         R"({"_id": 1, "a": [{"b": [1, 0]}, {"b": [7]}]})", true,
         R"([{"i.b": {"%size": 2}}, {"j": {"%gt": 2}}])"},
    // Two identifiers selecting the same element apply together.
    Case{R"({"%set": {"a.$[i].x": 1, "a.$[j].y": 2}})", R"({"_id": 1, "a": [{"k": 1}, {"k": 2}]})",
         R"({"_id": 1, "a": [{"k": 1, "x": 1, "y": 2}, {"k": 2, "y": 2}]})", true,
         R"([{"i.k": 1}, {"j.k": {"%gte": 1}}])"},
    // The filter sees an element as a query sees a field: arrays traverse.
    Case{R"({"%set": {"a.$[e]": "hit"}})", R"({"_id": 1, "a": [[1, 2], [3], 2]})",
         R"({"_id": 1, "a": ["hit", [3], "hit"]})", true, R"([{"e": 2}])"},
    Case{R"({"%set": {"a.$[].b.$[x]": 0}})", R"({"_id": 1, "a": [{"b": [1, 2]}, {"b": [2]}]})",
         R"({"_id": 1, "a": [{"b": [1, 0]}, {"b": [0]}]})", true, R"([{"x": 2}])"},
    Case{R"({"%pull": {"a.$[e].tags": "x"}})",
         R"({"_id": 1, "a": [{"n": 1, "tags": ["x", "y"]}, {"n": 2, "tags": ["x"]}]})",
         R"({"_id": 1, "a": [{"n": 1, "tags": ["y"]}, {"n": 2, "tags": ["x"]}]})", true,
         R"([{"e.n": 1}])"}));

INSTANTIATE_TEST_SUITE_P(NumericComponents, PositionalTest, testing::Values(
    // Numeric components index arrays; past the end pads with nulls.
    Case{R"({"%set": {"a.5": 1}})", R"({"_id": 1, "a": [1, 2]})",
         R"({"_id": 1, "a": [1, 2, null, null, null, 1]})", true},
    Case{R"({"%set": {"a.2.b": 1}})", R"({"_id": 1, "a": []})",
         R"({"_id": 1, "a": [null, null, {"b": 1}]})", true},
    Case{R"({"%push": {"a.1": 1}})", R"({"_id": 1, "a": [[0], [1]]})",
         R"({"_id": 1, "a": [[0], [1, 1]]})", true}));

INSTANTIATE_TEST_SUITE_P(ParseErrors, PositionalErrorTest, testing::Values(
    ErrorCase{R"({"%set": {"a.$[x]": 1}})", nullptr, 2,
              "No array filter found for identifier 'x' in path 'a.$[x]'"},
    ErrorCase{R"({"%set": {"a.$[x]": 1}})", nullptr, 2,
              "No array filter found for identifier 'x' in path 'a.$[x]'", R"([{"y": 1}])"},
    ErrorCase{R"({"%set": {"a.$[i]": 1}})", nullptr, 9,
              "The array filter for identifier 'j' was not used in the update { $set: { a.$[i]: 1 "
              "} }",
              R"([{"i": 0}, {"j": 0}])"},
    ErrorCase{R"({"%set": {"a": 1.0}})", nullptr, 9,
              "The array filter for identifier 'i' was not used in the update { $set: { a: 1.0 } }",
              R"([{"i": 0}])"},
    ErrorCase{R"({"%set": {"a.$[i]": 1}})", nullptr, 9,
              "Error parsing array filter :: caused by :: Expected a single top-level field name, "
              "found 'i' and 'j'",
              R"([{"i": 0, "j": 0}])"},
    ErrorCase{R"({"%set": {"a.$[i]": 1}})", nullptr, 9,
              "Error parsing array filter :: caused by :: Expected a single top-level field name, "
              "found 'i' and 'k'",
              R"([{"%or": [{"i.a": 0}, {"k": 1}]}])"},
    ErrorCase{R"({"%set": {"a.$[I]": 1}})", nullptr, 2,
              "Error parsing array filter :: caused by :: The top-level field name must be an "
              "alphanumeric string beginning with a lowercase letter, found 'I'",
              R"([{"I": 0}])"},
    ErrorCase{R"({"%set": {"a.$[i]": 1}})", nullptr, 2,
              "Error parsing array filter :: caused by :: The top-level field name must be an "
              "alphanumeric string beginning with a lowercase letter, found '1i'",
              R"([{"1i.x": 0}])"},
    ErrorCase{R"({"%set": {"a.$[i]": 1}})", nullptr, 9,
              "Cannot use an expression without a top-level field name in arrayFilters",
              R"([{}])"},
    ErrorCase{R"({"%set": {"a.$[i]": 1}})", nullptr, 9,
              "Found multiple array filters with the same top-level field name i",
              R"([{"i": 0}, {"i.x": 1}])"},
    ErrorCase{R"({"%set": {"a.$[i]": 1}})", nullptr, 2,
              "Error parsing array filter :: caused by :: unknown operator: $foo",
              R"([{"i": {"%foo": 1}}])"},
    ErrorCase{R"({"%set": {"a.$[i]": 1}})", nullptr, 14, nullptr, R"(["bad"])"},
    ErrorCase{R"({"%set": {"$[].a": 1}})", nullptr, 2,
              "Cannot have array filter identifier (i.e. '$[<id>]') element in the first position "
              "in path '$[].a'"},
    ErrorCase{R"({"%set": {"$.a": 1}})", nullptr, 2,
              "Cannot have positional (i.e. '$') element in the first position in path '$.a'"},
    ErrorCase{R"({"%set": {"a.$.b.$": 1}})", nullptr, 2,
              "Too many positional (i.e. '$') elements found in path 'a.$.b.$'"},
    ErrorCase{R"({"%set": {"a.$[]": 1, "a.b": 1}})", nullptr, 40,
              "Updating the path 'a.b' would create a conflict at 'a'"},
    ErrorCase{R"({"%set": {"a.$[]": 1}, "%inc": {"a.$[]": 1}})", nullptr, 40,
              "Updating the path 'a.$[]' would create a conflict at 'a.$[]'"},
    ErrorCase{R"({"%set": {"a.$": 1}, "%inc": {"a.$.b": 1}})", nullptr, 40,
              "Updating the path 'a.$.b' would create a conflict at 'a.$'"},
    ErrorCase{R"({"%rename": {"a.$": "b"}})", nullptr, 2,
              "The source field for $rename may not be dynamic: a.$"},
    ErrorCase{R"({"%rename": {"a": "b.$[]"}})", nullptr, 2,
              "The destination field for $rename may not be dynamic: b.$[]"}));

INSTANTIATE_TEST_SUITE_P(ApplyErrors, PositionalErrorTest, testing::Values(
    ErrorCase{R"({"%set": {"a.$": 1}})", R"({"_id": 1, "a": [1]})", 2,
              "The positional operator did not find the match needed from the query.", nullptr,
              R"({"_id": 1})"},
    ErrorCase{R"({"%set": {"a.$": 1}})", R"({"_id": 1, "a": [1]})", 2,
              "The positional operator did not find the match needed from the query.", nullptr,
              R"({"%or": [{"a": 1}, {"b": 1}]})"},
    ErrorCase{R"({"%set": {"b.$": 1}})", R"({"_id": 1})", 2,
              "The positional operator did not find the match needed from the query."},
    ErrorCase{R"({"%set": {"a.$[]": 1}})", R"({"_id": 1, "a": 5})", 2,
              "Cannot apply array updates to non-array element a: 5"},
    ErrorCase{R"({"%set": {"a.$[]": 1}})", R"({"_id": 1, "a": {"b": 1}})", 2,
              "Cannot apply array updates to non-array element a: { b: 1 }"},
    ErrorCase{R"({"%set": {"a.$[]": 1}})", R"({"_id": 1})", 2,
              "The path 'a' must exist in the document in order to apply array updates."},
    ErrorCase{R"({"%set": {"x.a.$[]": 1}})", R"({"_id": 1})", 2,
              "The path 'x.a' must exist in the document in order to apply array updates."},
    ErrorCase{R"({"%set": {"x.a.$[]": 1}})", R"({"_id": 1, "x": 5})", 2,
              "The path 'x.a' must exist in the document in order to apply array updates."},
    ErrorCase{R"({"%set": {"a.$[i]": 1, "a.$[j]": 2}})", R"({"_id": 1, "a": [0, 1]})", 40,
              "Update created a conflict at 'a.1'", R"([{"i": 1}, {"j": {"%gte": 1}}])"},
    ErrorCase{R"({"%set": {"a.$[i].b": 1, "a.$[j].b": 2}})", R"({"_id": 1, "a": [{}, {}]})", 40,
              "Update created a conflict at 'a.0.b'", R"([{"i": {}}, {"j": {"%type": "object"}}])"},
    ErrorCase{R"({"%set": {"a.$": 1, "a.0": 2}})", R"({"_id": 1, "a": [5]})", 40,
              "Update created a conflict at 'a.0'", nullptr, R"({"a": 5})"},
    ErrorCase{R"({"%set": {"a.$[].b": 1}})", R"({"_id": 1, "a": [{"b": 0}, 5]})", 28,
              "Cannot create field 'b' in element {1: 5}"}));

TEST(PositionalTest, UpsertInsertHasNoMatchedPosition) {
  auto driver = testing_update::ParseJson(R"({"%set": {"a.$": 1}})", nullptr);
  ASSERT_TRUE(driver.ok());
  EXPECT_TRUE(driver.value().is_positional());
  BsonDoc seed = Json(R"({"a": 1})");
  auto result = driver.value().Apply(seed.get(), /*is_upsert_insert=*/true, std::nullopt);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code_number(), 2);
}

TEST(PositionalTest, ReportsWhetherAnUpdateIsPositional) {
  EXPECT_FALSE(testing_update::ParseJson(R"({"%set": {"a.$[]": 1}})", nullptr).value().is_positional());
  EXPECT_FALSE(testing_update::ParseJson(R"({"%set": {"a": 1}})", nullptr).value().is_positional());
  EXPECT_TRUE(testing_update::ParseJson(R"({"%inc": {"a.$.b": 1}})", nullptr).value().is_positional());
}

TEST(PositionalTest, ReplacementIgnoresArrayFilters) {
  auto driver = testing_update::ParseJson(R"({"b": 1})", R"([{"i": 0}])");
  ASSERT_TRUE(driver.ok()) << driver.status().ToString();
  EXPECT_TRUE(driver.value().is_replacement());
}

// MatchDetails, the matcher's report of the array element that matched.
struct DetailsCase {
  const char* query;
  const char* doc;
  std::optional<size_t> position;  // nullopt: nothing recorded
};

void PrintTo(const DetailsCase& c, std::ostream* os) { *os << c.query << " on " << c.doc; }

class MatchDetailsTest : public testing::TestWithParam<DetailsCase> {};

TEST_P(MatchDetailsTest, RecordsTheMatchedArrayPositionLikeMongoDB) {
  const DetailsCase& c = GetParam();
  BsonDoc filter = Json(c.query);
  auto matcher = query::Matcher::Parse(filter.get());
  ASSERT_TRUE(matcher.ok()) << matcher.status().ToString();
  BsonDoc doc = Json(c.doc);
  query::MatchDetails details;
  ASSERT_TRUE(matcher.value()->Matches(doc.get(), &details));
  EXPECT_EQ(details.elem_match_index(), c.position);
  EXPECT_TRUE(matcher.value()->Matches(doc.get()));
}

INSTANTIATE_TEST_SUITE_P(Positions, MatchDetailsTest, testing::Values(
    DetailsCase{R"({"a": 2})", R"({"a": [1, 2, 3]})", 1},
    DetailsCase{R"({"a": {"%gt": 1}})", R"({"a": [1, 2, 3]})", 1},
    DetailsCase{R"({"a": 1})", R"({"a": 1})", std::nullopt},
    DetailsCase{R"({"a": [1, 2]})", R"({"a": [1, 2]})", std::nullopt},
    DetailsCase{R"({"a": [1, 2]})", R"({"a": [0, [1, 2]]})", 1},
    DetailsCase{R"({"a.b": 2})", R"({"a": [{"b": 1}, {"b": [0, 2]}]})", 1},
    DetailsCase{R"({"a.b.c": 5})", R"({"a": {"b": [{"c": 4}, {"c": 5}]}})", 1},
    DetailsCase{R"({"a": {"%elemMatch": {"%gt": 1}}})", R"({"a": [1, 5]})", 1},
    DetailsCase{R"({"a": {"%elemMatch": {"b": 2}}})", R"({"a": [{"b": 1}, {"b": 2}]})", 1},
    DetailsCase{R"({"a.b": {"%elemMatch": {"%gt": 1}}})", R"({"a": [{"b": [0]}, {"b": [0, 5]}]})",
                1},
    // An explicit index is no implicit traversal: nothing, or the deeper array's position.
    DetailsCase{R"({"a.1": 5})", R"({"a": [4, 5]})", std::nullopt},
    DetailsCase{R"({"a.1.b": 6})", R"({"a": [{}, {"b": [5, 6]}]})", 1},
    DetailsCase{R"({"a.0.b": 6})", R"({"a": [{"b": [5, 6]}]})", 1},
    // $and: every child may record; a child that matched no array changes nothing.
    DetailsCase{R"({"a": 3, "b": 5})", R"({"a": [1, 3], "b": 5})", 1},
    DetailsCase{R"({"%and": [{"a": {"%gt": 0}}, {"a": {"%lt": 2}}]})", R"({"a": [1, 3]})", 0},
    // $or (of two or more) and negations never record.
    DetailsCase{R"({"%or": [{"a": 2}, {"b": 1}]})", R"({"a": [1, 2]})", std::nullopt},
    DetailsCase{R"({"a": {"%ne": 5}})", R"({"a": [1, 2]})", std::nullopt},
    DetailsCase{R"({"a": {"%size": 2}})", R"({"a": [1, 2]})", std::nullopt},
    DetailsCase{R"({"a.b": null})", R"({"a": [{"c": 1}]})", 0}));

TEST(MatchDetailsTest, NoMatchRecordsNothing) {
  BsonDoc filter = Json(R"({"a": 9})");
  auto matcher = query::Matcher::Parse(filter.get());
  ASSERT_TRUE(matcher.ok());
  BsonDoc doc = Json(R"({"a": [1, 2]})");
  query::MatchDetails details;
  details.set_elem_match_index(7);
  EXPECT_FALSE(matcher.value()->Matches(doc.get(), &details));
  EXPECT_FALSE(details.has_elem_match_index());
}

}  // namespace
}  // namespace tigerdoc::update
