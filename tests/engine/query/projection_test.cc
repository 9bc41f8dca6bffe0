// Table-driven specification of find() projections (MongoDB manual:
// "Project Fields to Return from Query", projection restrictions).

#include "engine/query/projection.h"

#include <gtest/gtest.h>

#include "engine/bson/bson_doc.h"
#include "tests/engine/query/test_json.h"

namespace tigerdoc::query {
namespace {

using bson::BsonDoc;

struct ProjectionCase {
  const char* spec;
  const char* doc;
  const char* expected;
};

void PrintTo(const ProjectionCase& c, std::ostream* os) { *os << c.spec << " on " << c.doc; }

class ProjectionTest : public testing::TestWithParam<ProjectionCase> {};

TEST_P(ProjectionTest, ProjectsLikeMongoDB) {
  const ProjectionCase& c = GetParam();
  BsonDoc spec = testing_json::Json(c.spec);
  auto projection = Projection::Parse(spec.get());
  ASSERT_TRUE(projection.ok()) << projection.status().ToString();
  BsonDoc doc = BsonDoc::FromJson(c.doc);
  BsonDoc out = projection.value().Apply(doc.get());
  BsonDoc expected = BsonDoc::FromJson(c.expected);
  // bson_equal compares bytes: field order and types matter.
  EXPECT_TRUE(bson_equal(out.get(), expected.get())) << out.ToJson();
}

INSTANTIATE_TEST_SUITE_P(Inclusion, ProjectionTest, testing::Values(
    ProjectionCase{R"({})", R"({"_id": 1, "a": 1})", R"({"_id": 1, "a": 1})"},
    ProjectionCase{R"({"a": 1})", R"({"_id": 1, "a": 2, "b": 3})", R"({"_id": 1, "a": 2})"},
    ProjectionCase{R"({"a": true})", R"({"_id": 1, "a": 2, "b": 3})", R"({"_id": 1, "a": 2})"},
    ProjectionCase{R"({"a": 5.5})", R"({"_id": 1, "a": 2, "b": 3})", R"({"_id": 1, "a": 2})"},
    ProjectionCase{R"({"a": 1, "_id": 0})", R"({"_id": 1, "a": 2, "b": 3})", R"({"a": 2})"},
    ProjectionCase{R"({"_id": 1})", R"({"_id": 1, "a": 2})", R"({"_id": 1})"},
    ProjectionCase{R"({"b": 1, "a": 1})", R"({"_id": 1, "a": 2, "b": 3, "c": 4})",
                   R"({"_id": 1, "a": 2, "b": 3})"},
    ProjectionCase{R"({"x": 1})", R"({"_id": 1, "a": 2})", R"({"_id": 1})"},
    ProjectionCase{R"({"a.b": 1})", R"({"_id": 1, "a": {"b": 1, "c": 2}})", R"({"_id": 1, "a": {"b": 1}})"},
    ProjectionCase{R"({"a": {"b": 1}})", R"({"_id": 1, "a": {"b": 1, "c": 2}})", R"({"_id": 1, "a": {"b": 1}})"},
    ProjectionCase{R"({"a.b": 1})", R"({"_id": 1, "a": {"c": 2}})", R"({"_id": 1, "a": {}})"},
    ProjectionCase{R"({"a.b": 1})", R"({"_id": 1, "a": 5})", R"({"_id": 1})"},
    ProjectionCase{R"({"a.b": 1})", R"({"_id": 1, "a": [{"b": 1, "c": 2}, 3, {"c": 4}, [{"b": 5, "d": 6}]]})",
                   R"({"_id": 1, "a": [{"b": 1}, {}, [{"b": 5}]]})"},
    ProjectionCase{R"({"a.b": 1, "a.c": 1})", R"({"_id": 1, "a": {"d": 0, "c": 1, "b": 2}})",
                   R"({"_id": 1, "a": {"c": 1, "b": 2}})"},
    ProjectionCase{R"({"a.b.c": 1})", R"({"a": {"b": {"c": 1, "d": 2}, "e": 3}})", R"({"a": {"b": {"c": 1}}})"}));

INSTANTIATE_TEST_SUITE_P(Exclusion, ProjectionTest, testing::Values(
    ProjectionCase{R"({"a": 0})", R"({"_id": 1, "a": 2, "b": 3})", R"({"_id": 1, "b": 3})"},
    ProjectionCase{R"({"a": false})", R"({"_id": 1, "a": 2, "b": 3})", R"({"_id": 1, "b": 3})"},
    ProjectionCase{R"({"_id": 0})", R"({"_id": 1, "a": 2})", R"({"a": 2})"},
    ProjectionCase{R"({"_id": 0, "a": 0})", R"({"_id": 1, "a": 2, "b": 3})", R"({"b": 3})"},
    ProjectionCase{R"({"_id": 1, "a": 0})", R"({"_id": 1, "a": 2, "b": 3})", R"({"_id": 1, "b": 3})"},
    ProjectionCase{R"({"a.b": 0})", R"({"_id": 1, "a": {"b": 1, "c": 2}})", R"({"_id": 1, "a": {"c": 2}})"},
    ProjectionCase{R"({"a.b": 0})", R"({"_id": 1, "a": 5})", R"({"_id": 1, "a": 5})"},
    ProjectionCase{R"({"a.b": 0})", R"({"a": [{"b": 1, "c": 2}, 3, [{"b": 5, "d": 6}]]})",
                   R"({"a": [{"c": 2}, 3, [{"d": 6}]]})"},
    ProjectionCase{R"({"x": 0})", R"({"_id": 1, "a": 2})", R"({"_id": 1, "a": 2})"}));

struct ProjectionErrorCase {
  const char* spec;
  int code;
  const char* message;
};

void PrintTo(const ProjectionErrorCase& c, std::ostream* os) { *os << c.spec; }

class ProjectionErrorTest : public testing::TestWithParam<ProjectionErrorCase> {};

TEST_P(ProjectionErrorTest, RejectsLikeMongoDB) {
  const ProjectionErrorCase& c = GetParam();
  BsonDoc spec = testing_json::Json(c.spec);
  auto projection = Projection::Parse(spec.get());
  ASSERT_FALSE(projection.ok());
  EXPECT_EQ(projection.status().code_number(), c.code);
  if (c.message) {
    EXPECT_EQ(projection.status().reason(), c.message);
  }
}

INSTANTIATE_TEST_SUITE_P(Errors, ProjectionErrorTest, testing::Values(
    ProjectionErrorCase{R"({"a": 1, "b": 0})", 31254, "Cannot do exclusion on field b in inclusion projection"},
    ProjectionErrorCase{R"({"a": 0, "b": 1})", 31253, "Cannot do inclusion on field b in exclusion projection"},
    ProjectionErrorCase{R"({"a": 1, "a.b": 1})", 31249, "Path collision at a.b remaining portion b"},
    ProjectionErrorCase{R"({"a.b": 1, "a": 1})", 31250, "Path collision at a"},
    ProjectionErrorCase{R"({"a": {}})", 51270, nullptr},
    ProjectionErrorCase{R"({"%a": 1})", 16410, nullptr},
    ProjectionErrorCase{R"({"a..b": 1})", 15998, nullptr},
    ProjectionErrorCase{R"({"a": {"%slice": "x"}})", 28667, nullptr},
    ProjectionErrorCase{R"({"a.$": 1})", 51050, "Projections with a positional operator require a matcher"},
    ProjectionErrorCase{R"({"a": "x"})", 238, nullptr}));

}  // namespace
}  // namespace tigerdoc::query
