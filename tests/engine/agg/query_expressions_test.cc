// The query bridge: $expr in filters and computed fields of find
// projections, compiled by engine/agg (query_expressions.h), and `let`.

#include "engine/agg/query_expressions.h"

#include <gtest/gtest.h>

#include "engine/query/matcher/matcher.h"
#include "engine/query/projection.h"
#include "tests/engine/agg/agg_test_util.h"

namespace tigerdoc::agg {
namespace {

using testing::J;
using testing::SameDocs;

ExpressionContext ContextWithLet(const std::string& let_json) {
  ExpressionContext ctx;
  ctx.now_millis = 1700000000000;
  bson::BsonDoc let = J(let_json);
  auto vars = EvaluateLet(let.get(), ctx);
  EXPECT_TRUE(vars.ok()) << vars.status().ToString();
  ctx.variables = std::move(vars).value();
  return ctx;
}

std::unique_ptr<query::Matcher> ParseFilter(const std::string& filter_json,
                                            const ExpressionContext& ctx = ExpressionContext()) {
  auto parser = MakeQueryExpressionParser(ctx);
  bson::BsonDoc filter = J(filter_json);
  auto matcher = query::Matcher::Parse(filter.get(), parser.get());
  EXPECT_TRUE(matcher.ok()) << matcher.status().ToString();
  return std::move(matcher).value();
}

// The manual's monthlyBudget example ($expr page).
TEST(ExprFilterTest, ComparesTwoFieldsOfTheDocument) {
  auto m = ParseFilter(R"({"%expr": {"%gt": ["$spent", "$budget"]}})");
  EXPECT_TRUE(m->Matches(J(R"({"_id": 1, "budget": 400, "spent": 450})").get()));
  EXPECT_FALSE(m->Matches(J(R"({"_id": 3, "budget": 100, "spent": 50})").get()));
  EXPECT_TRUE(m->has_expr());
  EXPECT_TRUE(m->EvaluationError().ok());
}

TEST(ExprFilterTest, TruthinessIsCoerceToBool) {
  auto m = ParseFilter(R"({"%expr": "$a"})");
  EXPECT_TRUE(m->Matches(J(R"({"a": "x"})").get()));
  EXPECT_TRUE(m->Matches(J(R"({"a": []})").get()));
  EXPECT_FALSE(m->Matches(J(R"({"a": 0})").get()));
  EXPECT_FALSE(m->Matches(J(R"({"a": null})").get()));
  EXPECT_FALSE(m->Matches(J(R"({})").get()));
}

TEST(ExprFilterTest, CombinesWithOtherPredicatesAndUnderOr) {
  auto m = ParseFilter(R"({"qty": {"%gte": 5}, "%or": [{"%expr": {"%eq": ["$a", "$b"]}}, {"c": 1}]})");
  EXPECT_TRUE(m->Matches(J(R"({"qty": 5, "a": 1, "b": 1})").get()));
  EXPECT_TRUE(m->Matches(J(R"({"qty": 6, "a": 1, "b": 2, "c": 1})").get()));
  EXPECT_FALSE(m->Matches(J(R"({"qty": 6, "a": 1, "b": 2})").get()));
  EXPECT_FALSE(m->Matches(J(R"({"qty": 1, "a": 1, "b": 1})").get()));
}

TEST(ExprFilterTest, ReadsLetVariablesAndNow) {
  ExpressionContext ctx = ContextWithLet(R"({"limit": {"%add": [300, 100]}, "t": "$$NOW"})");
  auto m = ParseFilter(R"({"%expr": {"%and": [{"%gt": ["$spent", "$$limit"]}, {"%lt": ["$at", "$$t"]}]}})", ctx);
  EXPECT_TRUE(m->Matches(J(R"({"spent": 450, "at": {"$date": {"$numberLong": "1600000000000"}}})").get()));
  EXPECT_FALSE(m->Matches(J(R"({"spent": 350, "at": {"$date": {"$numberLong": "1600000000000"}}})").get()));
  EXPECT_FALSE(m->Matches(J(R"({"spent": 450, "at": {"$date": {"$numberLong": "1800000000000"}}})").get()));
}

TEST(ExprFilterTest, EvaluationErrorIsKeptAndReported) {
  auto m = ParseFilter(R"({"%expr": {"%gt": [{"%divide": [1, "$d"]}, 0]}})");
  EXPECT_TRUE(m->Matches(J(R"({"d": 2})").get()));
  EXPECT_TRUE(m->EvaluationError().ok());
  EXPECT_FALSE(m->Matches(J(R"({"d": 0})").get()));
  EXPECT_EQ(m->EvaluationError().code_number(), 2);
  EXPECT_EQ(m->EvaluationError().reason(), "can't $divide by zero");
}

TEST(ExprFilterTest, ParseErrorsAreTheExpressionLanguages) {
  auto parser = MakeQueryExpressionParser(ExpressionContext());
  struct Case {
    const char* filter;
    int code;
  } cases[] = {
      {R"({"%expr": {"%foo": 1}})", 168},
      {R"({"%expr": "$$nope"})", 17276},
      {R"({"a": {"%elemMatch": {"%expr": {"%eq": [1, 1]}}}})", 2},
  };
  for (const Case& c : cases) {
    bson::BsonDoc filter = J(c.filter);
    auto m = query::Matcher::Parse(filter.get(), parser.get());
    ASSERT_FALSE(m.ok()) << c.filter;
    EXPECT_EQ(m.status().code_number(), c.code) << c.filter << ": " << m.status().ToString();
  }
}

TEST(ExprFilterTest, WithoutAnyParserExprIsNotImplemented) {
  query::SetDefaultExpressionParser(nullptr);
  bson::BsonDoc filter = J(R"({"%expr": true})");
  auto m = query::Matcher::Parse(filter.get());
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code_number(), 238);
  InstallDefaultQueryExpressionParser();
  auto with_default = query::Matcher::Parse(filter.get());
  ASSERT_TRUE(with_default.ok()) << with_default.status().ToString();
  EXPECT_TRUE(with_default.value()->Matches(J("{}").get()));
  query::SetDefaultExpressionParser(nullptr);
}

TEST(LetTest, NamesAreCheckedAndValuesEvaluatedInOrder) {
  ExpressionContext ctx;
  bson::BsonDoc ok = J(R"({"a": {"%add": [1, 2]}, "b": {"%multiply": ["$$a", 2]}, "c": {"%literal": "$x"}})");
  auto vars = EvaluateLet(ok.get(), ctx);
  ASSERT_TRUE(vars.ok()) << vars.status().ToString();
  ASSERT_EQ(vars.value().size(), 3u);
  EXPECT_EQ(vars.value()[0].second.ToString(), "3");
  EXPECT_EQ(vars.value()[1].second.ToString(), "6");
  EXPECT_EQ(vars.value()[2].second.ToString(), "\"$x\"");
  bson::BsonDoc bad = J(R"({"Upper": 1})");
  auto refused = EvaluateLet(bad.get(), ctx);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code_number(), 16867);
}

// --- find projections with computed fields -------------------------------

struct ProjectionCase {
  const char* spec;
  const char* doc;
  const char* expected;
};

class ComputedProjectionTest : public ::testing::TestWithParam<ProjectionCase> {};

TEST_P(ComputedProjectionTest, ProjectsLikeMongoDB) {
  const ProjectionCase& c = GetParam();
  ExpressionContext ctx = ContextWithLet(R"({"v": 7})");
  auto parser = MakeQueryExpressionParser(ctx);
  bson::BsonDoc spec = J(c.spec);
  auto projection = query::Projection::Parse(spec.get(), nullptr, parser.get());
  ASSERT_TRUE(projection.ok()) << projection.status().ToString();
  auto out = projection.value().Apply(J(c.doc).get(), nullptr);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  bson::BsonDoc expected = J(c.expected);
  EXPECT_TRUE(SameDocs(out.value().get(), expected.get()))
      << c.spec << " gave " << out.value().ToJson() << ", expected " << expected.ToJson();
}

INSTANTIATE_TEST_SUITE_P(
    Computed, ComputedProjectionTest,
    ::testing::Values(
        // Computed fields follow the included ones, in spec order.
        ProjectionCase{R"({"total": {"%add": ["$a", "$b"]}, "a": 1})",
                       R"({"_id": 1, "b": 2, "a": 1, "c": 3})", R"({"_id": 1, "a": 1, "total": 3})"},
        ProjectionCase{R"({"x": "$c", "y": "text", "_id": 0})", R"({"_id": 1, "c": 3})",
                       R"({"x": 3, "y": "text"})"},
        ProjectionCase{R"({"z": {"%literal": 0}, "v": "$$v"})", R"({"_id": 1})",
                       R"({"_id": 1, "z": 0, "v": 7})"},
        // A missing value writes no field.
        ProjectionCase{R"({"m": "$nope", "r": "$$REMOVE"})", R"({"_id": 1})", R"({"_id": 1})"},
        // Paths: created through missing fields and scalars, per element
        // through arrays; the expression sees the whole document.
        ProjectionCase{R"({"a.b": {"%add": ["$n", 1]}})", R"({"_id": 1, "n": 1})",
                       R"({"_id": 1, "a": {"b": 2}})"},
        ProjectionCase{R"({"a.b": "$n"})", R"({"_id": 1, "n": 1, "a": 5})",
                       R"({"_id": 1, "a": {"b": 1}})"},
        ProjectionCase{R"({"a.b": "$n", "a.c": 1})", R"({"_id": 1, "n": 1, "a": [{"c": 1, "d": 2}, 3]})",
                       R"({"_id": 1, "a": [{"c": 1, "b": 1}, {"b": 1}]})"},
        ProjectionCase{R"({"arr": ["$n", 1]})", R"({"_id": 1, "n": 4})",
                       R"({"_id": 1, "arr": [4, 1]})"},
        // The aggregation form of $slice.
        ProjectionCase{R"({"s": {"%slice": ["$a", 1, 1]}})", R"({"_id": 1, "a": [1, 2, 3]})",
                       R"({"_id": 1, "s": [2]})"}));

TEST(ComputedProjectionErrorTest, MixingRulesAndErrors) {
  auto parser = MakeQueryExpressionParser(ExpressionContext());
  struct Case {
    const char* spec;
    int code;
  } cases[] = {
      {R"({"a": 0, "b": {"%add": [1, 2]}})", 31252},
      {R"({"a": 0, "b": "x"})", 31310},
      {R"({"b": {"%add": [1, 2]}, "a": 0})", 31254},
      {R"({"b": {"%nope": 1}})", 31325},
      {R"({"b": {"%add": "$$undefined"}})", 17276},
      {R"({"b": {"%meta": "textScore"}})", 238},
  };
  for (const Case& c : cases) {
    bson::BsonDoc spec = J(c.spec);
    auto projection = query::Projection::Parse(spec.get(), nullptr, parser.get());
    ASSERT_FALSE(projection.ok()) << c.spec;
    EXPECT_EQ(projection.status().code_number(), c.code) << c.spec << ": "
                                                         << projection.status().ToString();
  }
  // Evaluation errors surface from Apply.
  bson::BsonDoc spec = J(R"({"q": {"%divide": [1, "$d"]}})");
  auto projection = query::Projection::Parse(spec.get(), nullptr, parser.get());
  ASSERT_TRUE(projection.ok());
  auto out = projection.value().Apply(J(R"({"d": 0})").get(), nullptr);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code_number(), 2);
}

}  // namespace
}  // namespace tigerdoc::agg
