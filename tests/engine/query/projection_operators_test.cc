// Specification of find()'s projection operators: positional "$",
// $elemMatch and $slice. Rows follow MongoDB's manual pages for the three
// operators (their example collections and documented results) and the
// rules of src/mongo/db/query/projection_parser.cpp.

#include <gtest/gtest.h>

#include <optional>

#include "engine/bson/bson_doc.h"
#include "engine/query/matcher/matcher.h"
#include "engine/query/projection.h"
#include "tests/engine/query/test_json.h"

namespace tigerdoc::query {
namespace {

using bson::BsonDoc;

struct OperatorCase {
  const char* filter;  // the find filter (nullptr: none)
  const char* spec;
  const char* doc;
  const char* expected;
};

void PrintTo(const OperatorCase& c, std::ostream* os) {
  *os << (c.filter ? c.filter : "-") << " " << c.spec << " on " << c.doc;
}

class ProjectionOperatorTest : public testing::TestWithParam<OperatorCase> {};

TEST_P(ProjectionOperatorTest, ProjectsLikeMongoDB) {
  const OperatorCase& c = GetParam();
  BsonDoc spec = testing_json::Json(c.spec);
  std::optional<BsonDoc> filter;
  if (c.filter) filter.emplace(testing_json::Json(c.filter));
  auto projection = Projection::Parse(spec.get(), filter ? filter->get() : nullptr);
  ASSERT_TRUE(projection.ok()) << projection.status().ToString();
  BsonDoc doc = BsonDoc::FromJson(c.doc);
  BsonDoc expected = BsonDoc::FromJson(c.expected);

  // Without details: the projection matches the query itself.
  auto out = projection.value().Apply(doc.get(), nullptr);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(bson_equal(out.value().get(), expected.get())) << out.value().ToJson();

  // With details from the executor's own matcher: the same result.
  if (filter) {
    auto matcher = Matcher::Parse(filter->get());
    ASSERT_TRUE(matcher.ok());
    MatchDetails details;
    ASSERT_TRUE(matcher.value()->Matches(doc.get(), &details)) << "the row's doc must match";
    auto with_details = projection.value().Apply(doc.get(), &details);
    ASSERT_TRUE(with_details.ok()) << with_details.status().ToString();
    EXPECT_TRUE(bson_equal(with_details.value().get(), expected.get()))
        << with_details.value().ToJson();
  }
  // The error-free form agrees when there is no error.
  EXPECT_TRUE(bson_equal(projection.value().Apply(doc.get()).get(), expected.get()));
}

// "Project Array Elements: $ (projection)": the students examples.
INSTANTIATE_TEST_SUITE_P(Positional, ProjectionOperatorTest, testing::Values(
    OperatorCase{R"({"semester": 1, "grades": {"$gte": 85}})", R"({"grades.$": 1})",
                 R"({"_id": 1, "semester": 1, "grades": [70, 87, 90]})",
                 R"({"_id": 1, "grades": [87]})"},
    OperatorCase{R"({"semester": 1, "grades": {"$gte": 85}})", R"({"grades.$": 1})",
                 R"({"_id": 2, "semester": 1, "grades": [90, 88, 92]})",
                 R"({"_id": 2, "grades": [90]})"},
    OperatorCase{R"({"semester": 1, "grades": {"$gte": 85}})", R"({"grades.$": 1})",
                 R"({"_id": 3, "semester": 1, "grades": [85, 100, 90]})",
                 R"({"_id": 3, "grades": [85]})"},
    OperatorCase{R"({"grades.mean": {"$gt": 70}})", R"({"grades.$": 1})",
                 R"({"_id": 7, "semester": 3, "grades": [{"grade": 80, "mean": 75, "std": 8},
                     {"grade": 85, "mean": 90, "std": 5}, {"grade": 90, "mean": 85, "std": 3}]})",
                 R"({"_id": 7, "grades": [{"grade": 80, "mean": 75, "std": 8}]})"},
    OperatorCase{R"({"grades.mean": {"$gt": 80}})", R"({"grades.$": 1, "_id": 0})",
                 R"({"_id": 7, "grades": [{"grade": 80, "mean": 75, "std": 8},
                     {"grade": 85, "mean": 90, "std": 5}]})",
                 R"({"grades": [{"grade": 85, "mean": 90, "std": 5}]})"},
    // A deeper positional path: the inclusion of a.b first, then the element.
    OperatorCase{R"({"a.b": 2})", R"({"a.b.$": 1})",
                 R"({"_id": 1, "a": [{"b": 1, "c": 1}, {"b": 2, "c": 2}], "x": 1})",
                 R"({"_id": 1, "a": [{"b": 2}]})"},
    OperatorCase{R"({"a.b": 1})", R"({"a.b.$": 1})", R"({"a": {"b": [0, 1], "c": 2}})",
                 R"({"a": {"b": [1]}})"},
    // No array on the path: the inclusion alone.
    OperatorCase{R"({"a": 5})", R"({"a.$": 1})", R"({"_id": 1, "a": 5, "b": 6})",
                 R"({"_id": 1, "a": 5})"},
    OperatorCase{R"({"a": {"$elemMatch": {"$gt": 1}}})", R"({"a.$": 1})",
                 R"({"_id": 1, "a": [0, 5, 7]})", R"({"_id": 1, "a": [5]})"},
    OperatorCase{R"({"a": {"$elemMatch": {"b": {"$gt": 1}}}})", R"({"a.$": 1})",
                 R"({"_id": 1, "a": [{"b": 0}, {"b": 4}]})", R"({"_id": 1, "a": [{"b": 4}]})"},
    // The last predicate that matched through an array decides.
    OperatorCase{R"({"x": 1, "a": 3})", R"({"a.$": 1})",
                 R"({"_id": 1, "x": [1, 1, 1], "a": [1, 2, 3]})", R"({"_id": 1, "a": [3]})"},
    OperatorCase{R"({"a": {"$gt": 1}, "a.0": {"$exists": true}})", R"({"a.$": 1, "b": 1})",
                 R"({"_id": 1, "a": [1, 2, 3], "b": [4]})", R"({"_id": 1, "a": [2], "b": [4]})"},
    // $all is an $and of equalities: the last one (3, at 0) decides.
    OperatorCase{R"({"a": {"$all": [2, 3]}})", R"({"a.$": 1})", R"({"_id": 1, "a": [3, 2, 1]})",
                 R"({"_id": 1, "a": [3]})"},
    OperatorCase{R"({"$and": [{"a": 1}]})", R"({"a.$": 1})", R"({"_id": 1, "a": [0, 1]})",
                 R"({"_id": 1, "a": [1]})"},
    // Nested spelling of the positional path.
    OperatorCase{R"({"a.b": 2})", R"({"a": {"b.$": 1}})",
                 R"({"_id": 1, "a": {"b": [1, 2], "c": 0}})", R"({"_id": 1, "a": {"b": [2]}})"}));

// "$elemMatch (projection)": the schools and players examples.
const char* kSchool1 = R"({"_id": 1, "zipcode": "63109", "students": [
    {"name": "john", "school": 102, "age": 10}, {"name": "jess", "school": 102, "age": 11},
    {"name": "jeff", "school": 108, "age": 15}]})";
const char* kSchool3 = R"({"_id": 3, "zipcode": "63109", "students": [
    {"name": "ajax", "school": 100, "age": 7}, {"name": "achilles", "school": 100, "age": 8}],
    "athletics": ["baseball", "basketball", "soccer"]})";
const char* kSchool4 = R"({"_id": 4, "zipcode": "63109", "students": [
    {"name": "barney", "school": 102, "age": 7}, {"name": "ruth", "school": 102, "age": 16}]})";

INSTANTIATE_TEST_SUITE_P(ElemMatch, ProjectionOperatorTest, testing::Values(
    OperatorCase{R"({"zipcode": "63109"})", R"({"students": {"$elemMatch": {"school": 102}}})",
                 kSchool1, R"({"_id": 1, "students": [{"name": "john", "school": 102, "age": 10}]})"},
    OperatorCase{R"({"zipcode": "63109"})", R"({"students": {"$elemMatch": {"school": 102}}})",
                 kSchool3, R"({"_id": 3})"},
    OperatorCase{R"({"zipcode": "63109"})", R"({"students": {"$elemMatch": {"school": 102}}})",
                 kSchool4, R"({"_id": 4, "students": [{"name": "barney", "school": 102, "age": 7}]})"},
    OperatorCase{R"({"zipcode": "63109"})",
                 R"({"students": {"$elemMatch": {"school": 102, "age": {"$gt": 10}}}})", kSchool1,
                 R"({"_id": 1, "students": [{"name": "jess", "school": 102, "age": 11}]})"},
    OperatorCase{R"({"zipcode": "63109"})",
                 R"({"students": {"$elemMatch": {"school": 102, "age": {"$gt": 10}}}})", kSchool4,
                 R"({"_id": 4, "students": [{"name": "ruth", "school": 102, "age": 16}]})"},
    // After the included fields, whatever the document's order.
    OperatorCase{nullptr,
                 R"({"games": {"$elemMatch": {"score": {"$gt": 5}}}, "joined": 1, "lastLogin": 1})",
                 R"({"_id": 1, "name": "player1", "games": [{"game": "abc", "score": 8},
                     {"game": "xyz", "score": 5}], "joined": 1, "lastLogin": 2})",
                 R"({"_id": 1, "joined": 1, "lastLogin": 2, "games": [{"game": "abc", "score": 8}]})"},
    OperatorCase{nullptr, R"({"a": {"$elemMatch": {"$gt": 1}}, "_id": 0})",
                 R"({"_id": 1, "a": [0, 2, 3], "b": 1})", R"({"a": [2]})"},
    OperatorCase{nullptr, R"({"a": {"$elemMatch": {"$gt": 1}}})", R"({"_id": 1, "a": 5})",
                 R"({"_id": 1})"},
    // In an exclusion the field stays in place, or goes when nothing matches.
    OperatorCase{nullptr, R"({"b": 0, "a": {"$elemMatch": {"$gt": 1}}})",
                 R"({"_id": 1, "a": [0, 5], "b": 1, "c": 2})", R"({"_id": 1, "a": [5], "c": 2})"},
    OperatorCase{nullptr, R"({"b": 0, "a": {"$elemMatch": {"$gt": 9}}})",
                 R"({"_id": 1, "a": [0, 5], "b": 1, "c": 2})", R"({"_id": 1, "c": 2})"},
    OperatorCase{nullptr, R"({"a": {"$elemMatch": {"b": {"$size": 2}}}, "c": {"$elemMatch": {"$type": "string"}}})",
                 R"({"_id": 1, "c": [1, "x", "y"], "a": [{"b": [1]}, {"b": [1, 2]}]})",
                 R"({"_id": 1, "a": [{"b": [1, 2]}], "c": ["x"]})"}));

INSTANTIATE_TEST_SUITE_P(Slice, ProjectionOperatorTest, testing::Values(
    // "$slice (projection)": inclusion and exclusion with a nested path.
    OperatorCase{nullptr, R"({"qty": 1, "details.colors": {"$slice": 1}})",
                 R"({"_id": 1, "item": "socks", "qty": 100, "details": {"colors": ["blue", "red"],
                     "sizes": ["S", "M", "L"]}})",
                 R"({"_id": 1, "qty": 100, "details": {"colors": ["blue"]}})"},
    OperatorCase{nullptr, R"({"_id": 0, "details.colors": {"$slice": 1}})",
                 R"({"_id": 1, "item": "socks", "qty": 100, "details": {"colors": ["blue", "red"],
                     "sizes": ["S", "M", "L"]}})",
                 R"({"item": "socks", "qty": 100, "details": {"colors": ["blue"],
                     "sizes": ["S", "M", "L"]}})"},
    // Alone, $slice keeps every other field; {_id: 1} makes an inclusion.
    OperatorCase{nullptr, R"({"a": {"$slice": 2}})", R"({"_id": 1, "a": [1, 2, 3, 4, 5], "b": 6})",
                 R"({"_id": 1, "a": [1, 2], "b": 6})"},
    OperatorCase{nullptr, R"({"_id": 1, "a": {"$slice": 2}})",
                 R"({"_id": 1, "a": [1, 2, 3, 4, 5], "b": 6})", R"({"_id": 1, "a": [1, 2]})"},
    OperatorCase{nullptr, R"({"a": {"$slice": -2}})", R"({"a": [1, 2, 3, 4, 5]})", R"({"a": [4, 5]})"},
    OperatorCase{nullptr, R"({"a": {"$slice": 10}})", R"({"a": [1, 2, 3]})", R"({"a": [1, 2, 3]})"},
    OperatorCase{nullptr, R"({"a": {"$slice": -10}})", R"({"a": [1, 2, 3]})", R"({"a": [1, 2, 3]})"},
    OperatorCase{nullptr, R"({"a": {"$slice": 0}})", R"({"a": [1, 2, 3]})", R"({"a": []})"},
    OperatorCase{nullptr, R"({"a": {"$slice": 1.9}})", R"({"a": [1, 2, 3]})", R"({"a": [1]})"},
    OperatorCase{nullptr, R"({"a": {"$slice": [1, 2]}})", R"({"a": [1, 2, 3, 4, 5]})", R"({"a": [2, 3]})"},
    OperatorCase{nullptr, R"({"a": {"$slice": [-2, 1]}})", R"({"a": [1, 2, 3, 4, 5]})", R"({"a": [4]})"},
    OperatorCase{nullptr, R"({"a": {"$slice": [-10, 2]}})", R"({"a": [1, 2, 3, 4, 5]})", R"({"a": [1, 2]})"},
    OperatorCase{nullptr, R"({"a": {"$slice": [10, 2]}})", R"({"a": [1, 2, 3, 4, 5]})", R"({"a": []})"},
    OperatorCase{nullptr, R"({"a": {"$slice": [1, 10]}})", R"({"a": [1, 2, 3]})", R"({"a": [2, 3]})"},
    // Not an array: left alone; missing: stays missing.
    OperatorCase{nullptr, R"({"a": {"$slice": 1}})", R"({"a": "xyz", "b": 1})", R"({"a": "xyz", "b": 1})"},
    OperatorCase{nullptr, R"({"a": {"$slice": 1}, "b": 1})", R"({"_id": 1, "b": 1})", R"({"_id": 1, "b": 1})"},
    // Arrays of documents on the way are sliced element by element.
    OperatorCase{nullptr, R"({"a.b": {"$slice": 1}})",
                 R"({"a": [{"b": [1, 2], "c": 1}, {"b": 3}, 4, [{"b": [5, 6]}]]})",
                 R"({"a": [{"b": [1], "c": 1}, {"b": 3}, 4, [{"b": [5, 6]}]]})"},
    OperatorCase{nullptr, R"({"a.b": {"$slice": -1}, "_id": 0, "x": 1})",
                 R"({"a": [{"b": [1, 2], "c": 1}, 4], "x": 0, "y": 0})",
                 R"({"a": [{"b": [2]}], "x": 0})"},
    OperatorCase{nullptr, R"({"a": {"$slice": 1}, "b": {"$slice": -1}, "c": 0})",
                 R"({"a": [1, 2], "b": [1, 2], "c": [1, 2]})", R"({"a": [1], "b": [2]})"},
    // With a positional on another field.
    OperatorCase{R"({"a": 2})", R"({"a.$": 1, "b": {"$slice": 1}})",
                 R"({"_id": 1, "a": [1, 2], "b": [3, 4], "c": 0})",
                 R"({"_id": 1, "a": [2], "b": [3]})"}));

INSTANTIATE_TEST_SUITE_P(IdAndPaths, ProjectionOperatorTest, testing::Values(
    OperatorCase{nullptr, R"({"_id.x": 1})", R"({"_id": {"x": 1, "y": 2}, "a": 1})",
                 R"({"_id": {"x": 1}})"},
    OperatorCase{nullptr, R"({"_id.x": 0})", R"({"_id": {"x": 1, "y": 2}, "a": 1})",
                 R"({"_id": {"y": 2}, "a": 1})"},
    OperatorCase{nullptr, R"({"a": {"_id": 0}})", R"({"_id": 1, "a": {"_id": 2, "b": 3}})",
                 R"({"_id": 1, "a": {"b": 3}})"},
    OperatorCase{nullptr, R"({"a.b": 1, "a": {"c": 1}})", R"({"_id": 1, "a": {"b": 1, "c": 2, "d": 3}})",
                 R"({"_id": 1, "a": {"b": 1, "c": 2}})"},
    OperatorCase{nullptr, R"({"_id": 1, "a": 0})", R"({"_id": 1, "a": 2, "b": 3})",
                 R"({"_id": 1, "b": 3})"}));

struct OperatorErrorCase {
  const char* filter;  // nullptr: no query
  const char* spec;
  int code;
  const char* message;  // nullptr: only the code is checked
};

void PrintTo(const OperatorErrorCase& c, std::ostream* os) { *os << c.spec; }

class ProjectionOperatorErrorTest : public testing::TestWithParam<OperatorErrorCase> {};

TEST_P(ProjectionOperatorErrorTest, RejectsLikeMongoDB) {
  const OperatorErrorCase& c = GetParam();
  BsonDoc spec = testing_json::Json(c.spec);
  std::optional<BsonDoc> filter;
  if (c.filter) filter.emplace(testing_json::Json(c.filter));
  auto projection = Projection::Parse(spec.get(), filter ? filter->get() : nullptr);
  ASSERT_FALSE(projection.ok());
  EXPECT_EQ(projection.status().code_number(), c.code) << projection.status().ToString();
  if (c.message) EXPECT_EQ(projection.status().reason(), c.message);
}

INSTANTIATE_TEST_SUITE_P(PositionalErrors, ProjectionOperatorErrorTest, testing::Values(
    OperatorErrorCase{nullptr, R"({"a.$": 1})", 51050,
                      "Projections with a positional operator require a matcher"},
    OperatorErrorCase{R"({"a": 1, "b": 1})", R"({"a.$": 1, "b.$": 1})", 31276,
                      "Cannot specify more than one positional projection per query."},
    OperatorErrorCase{R"({"a": 1})", R"({"b": {"$elemMatch": {"c": 1}}, "a.$": 1})", 31256,
                      "Cannot specify positional operator and $elemMatch."},
    OperatorErrorCase{R"({"a": 1})", R"({"a.$": 1, "b": {"$elemMatch": {"c": 1}}})", 31255,
                      "Cannot specify positional operator and $elemMatch."},
    OperatorErrorCase{R"({"a": 1})", R"({"b.$": 1})", 31277,
                      "Positional projection 'b.$' does not match the query document."},
    OperatorErrorCase{R"({"ab": 1})", R"({"a.$": 1})", 31277, nullptr},
    OperatorErrorCase{R"({"a.b": 1})", R"({"a.$.": 1})", 31270, "Path cannot end with '.$.'"},
    OperatorErrorCase{R"({"a": 1})", R"({"a.$.$": 1})", 31287,
                      "Cannot use positional operator twice: a.$.$"},
    OperatorErrorCase{R"({"a": 1})", R"({"a.$.b.$": 1})", 31287, nullptr},
    OperatorErrorCase{R"({"a": 1})", R"({"a.$": {"b": 1}})", 31271,
                      "positional projection cannot be used with an expression or sub object"},
    OperatorErrorCase{R"({"a": 1})", R"({"a.$": {"$slice": 1}})", 31271, nullptr},
    OperatorErrorCase{R"({"a": 1})", R"({"a.$": "x"})", 31308,
                      "positional projection cannot be used with a literal"},
    OperatorErrorCase{R"({"a": 1})", R"({"a.$": 0})", 16410, nullptr},
    OperatorErrorCase{R"({"a": 1})", R"({"a.$": 1, "b": 0})", 31254,
                      "Cannot do exclusion on field b in inclusion projection"},
    OperatorErrorCase{R"({"a": 1})", R"({"b": 0, "a.$": 1})", 31253,
                      "Cannot do inclusion on field a.$ in exclusion projection"},
    OperatorErrorCase{R"({"a": 1})", R"({"a.$": 1, "a": 1})", 31250, "Path collision at a"},
    OperatorErrorCase{R"({"a": 1})", R"({"a.$": 1, "a.b": 1})", 31249,
                      "Path collision at a.b remaining portion b"}));

INSTANTIATE_TEST_SUITE_P(ElemMatchErrors, ProjectionOperatorErrorTest, testing::Values(
    OperatorErrorCase{nullptr, R"({"a": {"$elemMatch": 1}})", 31274,
                      "elemMatch: Invalid argument, object required, but got int"},
    OperatorErrorCase{nullptr, R"({"a": {"$elemMatch": [1]}})", 31274,
                      "elemMatch: Invalid argument, object required, but got array"},
    OperatorErrorCase{nullptr, R"({"a.b": {"$elemMatch": {"c": 1}}})", 31275,
                      "Cannot use $elemMatch projection on a nested field."},
    OperatorErrorCase{nullptr, R"({"a": {"b": {"$elemMatch": {"c": 1}}}})", 31275, nullptr},
    OperatorErrorCase{nullptr, R"({"a": {"$elemMatch": {"$bad": 1}}})", 2,
                      "unknown operator: $bad"},
    OperatorErrorCase{nullptr, R"({"a": {"$elemMatch": {"b": 1}}, "a.c": 1})", 31249,
                      "Path collision at a.c remaining portion c"}));

INSTANTIATE_TEST_SUITE_P(SliceErrors, ProjectionOperatorErrorTest, testing::Values(
    OperatorErrorCase{nullptr, R"({"a": {"$slice": "x"}})", 28667,
                      "Invalid $slice syntax. The given syntax { $slice: \"x\" } did not match the "
                      "find() syntax because :: Location31273: $slice only supports numbers and "
                      "[skip, limit] arrays :: The given syntax did not match the expression $slice "
                      "syntax. :: caused by :: Expression $slice takes at least 2 arguments, and at "
                      "most 3, but 1 were passed in."},
    OperatorErrorCase{nullptr, R"({"a": {"$slice": [1]}})", 28667,
                      "Invalid $slice syntax. The given syntax { $slice: [ 1 ] } did not match the "
                      "find() syntax because :: Location31272: $slice array argument should be of "
                      "form [skip, limit] :: The given syntax did not match the expression $slice "
                      "syntax. :: caused by :: Expression $slice takes at least 2 arguments, and at "
                      "most 3, but 1 were passed in."},
    OperatorErrorCase{nullptr, R"({"a": {"$slice": {"b": 1, "c": "d"}}})", 28667, nullptr},
    OperatorErrorCase{nullptr, R"({"a": {"$slice": [1, 2, 3, 4]}})", 28667, nullptr},
    // Valid aggregation $slice syntax: a computed field tigerdoc lacks.
    OperatorErrorCase{nullptr, R"({"a": {"$slice": [1, 0]}})", 238, nullptr},
    OperatorErrorCase{nullptr, R"({"a": {"$slice": ["$a", 1]}})", 238, nullptr},
    OperatorErrorCase{nullptr, R"({"b": 0, "a": {"$slice": [1, 0]}})", 31252, nullptr},
    OperatorErrorCase{nullptr, R"({"a": {"$slice": 1, "b": 1}})", 16410, nullptr},
    OperatorErrorCase{nullptr, R"({"a": {"$slice": 1}, "a.b": 1})", 31249,
                      "Path collision at a.b remaining portion b"},
    OperatorErrorCase{nullptr, R"({"a.b": 1, "a": {"$slice": 1}})", 31250, "Path collision at a"}));

INSTANTIATE_TEST_SUITE_P(OtherErrors, ProjectionOperatorErrorTest, testing::Values(
    OperatorErrorCase{nullptr, R"({"a": {"$foo": 1}})", 31325, "Unknown expression $foo"},
    OperatorErrorCase{nullptr, R"({"a": {"$add": [1, 2]}})", 238, nullptr},
    OperatorErrorCase{nullptr, R"({"a": {"$meta": "textScore"}})", 238, nullptr},
    OperatorErrorCase{nullptr, R"({"b": 0, "a": {"$add": [1, 2]}})", 31252,
                      "Cannot use expression other than $meta in exclusion projection"},
    OperatorErrorCase{nullptr, R"({"b": 0, "a": "x"})", 31310,
                      "Cannot use an expression a: \"x\" in an exclusion projection"},
    OperatorErrorCase{nullptr, R"({"a": 1, "a.b": 0})", 31249,
                      "Path collision at a.b remaining portion b"},
    OperatorErrorCase{nullptr, R"({"a.b.c": 1, "a.b": 1})", 31250, "Path collision at a.b"},
    OperatorErrorCase{nullptr, R"({"a.b": 1, "a.b.c": 1})", 31249,
                      "Path collision at a.b.c remaining portion b.c"},
    OperatorErrorCase{nullptr, R"({"a.": 1})", 40353, "FieldPath must not end with a '.'."},
    OperatorErrorCase{nullptr, R"({"": 1})", 40352, nullptr}));

struct RuntimeErrorCase {
  const char* filter;
  const char* spec;
  const char* doc;
  int code;
  const char* message;
};

void PrintTo(const RuntimeErrorCase& c, std::ostream* os) { *os << c.spec << " on " << c.doc; }

class ProjectionRuntimeErrorTest : public testing::TestWithParam<RuntimeErrorCase> {};

TEST_P(ProjectionRuntimeErrorTest, FailsLikeMongoDB) {
  const RuntimeErrorCase& c = GetParam();
  BsonDoc spec = testing_json::Json(c.spec);
  BsonDoc filter = testing_json::Json(c.filter);
  auto projection = Projection::Parse(spec.get(), filter.get());
  ASSERT_TRUE(projection.ok()) << projection.status().ToString();
  BsonDoc doc = BsonDoc::FromJson(c.doc);
  auto out = projection.value().Apply(doc.get(), nullptr);
  ASSERT_FALSE(out.ok()) << out.value().ToJson();
  EXPECT_EQ(out.status().code_number(), c.code);
  EXPECT_EQ(out.status().reason(), c.message);
}

INSTANTIATE_TEST_SUITE_P(Positional, ProjectionRuntimeErrorTest, testing::Values(
    // $or records no position.
    RuntimeErrorCase{R"({"$or": [{"a": 1}, {"a": 3}]})", R"({"a.$": 1})", R"({"a": [1, 2]})", 51246,
                     "positional operator '.$' couldn't find a matching element in the array"},
    // An explicit index is no implicit traversal: nothing recorded.
    RuntimeErrorCase{R"({"a.0": 5})", R"({"a.$": 1})", R"({"a": [5, 6]})", 51246,
                     "positional operator '.$' couldn't find a matching element in the array"},
    // The position recorded for x is past the end of a ($size records none).
    RuntimeErrorCase{R"({"x": 2, "a": {"$size": 1}})", R"({"a.$": 1})",
                     R"({"x": [0, 0, 2], "a": [9]})", 51247,
                     "positional operator '.$' element mismatch"},
    // The inclusion of a.b dropped the scalar before the matching element.
    RuntimeErrorCase{R"({"a.b": 5})", R"({"a.b.$": 1})", R"({"a": [1, {"b": 5}]})", 51247,
                     "positional operator '.$' element mismatch"}));

}  // namespace
}  // namespace tigerdoc::query
