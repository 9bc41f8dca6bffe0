// Specification of engine/bson/field_path: the values MongoDB's matcher
// sees at a dotted path (src/mongo/db/matcher/path.cpp semantics). Lives
// beside the matcher tests, its main client.

#include "engine/bson/field_path.h"

#include <gtest/gtest.h>

#include <string>

#include "engine/bson/bson_doc.h"
#include "engine/bson/shell_string.h"

namespace tigerdoc::bson {
namespace {

struct PathCase {
  const char* doc;
  const char* path;
  LeafArrays leaf_arrays;
  const char* expected;  // values in visit order, shell-rendered, "missing" for absent
};

void PrintTo(const PathCase& c, std::ostream* os) { *os << c.path << " in " << c.doc; }

class VisitPathTest : public testing::TestWithParam<PathCase> {};

TEST_P(VisitPathTest, YieldsMongoDBsValues) {
  const PathCase& c = GetParam();
  BsonDoc doc = BsonDoc::FromJson(c.doc);
  std::string seen;
  VisitPath(doc.get(), FieldPath(c.path), c.leaf_arrays, [&](const bson_iter_t* v) {
    if (!seen.empty()) seen += " | ";
    seen += v ? ToShellString(v) : "missing";
    return true;
  });
  EXPECT_EQ(seen, c.expected);
}

constexpr LeafArrays kAll = LeafArrays::kTraverse;
constexpr LeafArrays kArray = LeafArrays::kNoTraversal;

INSTANTIATE_TEST_SUITE_P(Paths, VisitPathTest, testing::Values(
    PathCase{R"({"a": 1})", "a", kAll, "1"},
    PathCase{R"({})", "a", kAll, "missing"},
    PathCase{R"({"a": {"b": 2}})", "a.b", kAll, "2"},
    PathCase{R"({"a": 5})", "a.b", kAll, "missing"},
    PathCase{R"({"a": [1, 2]})", "a", kAll, "1 | 2 | [ 1, 2 ]"},
    PathCase{R"({"a": [1, 2]})", "a", kArray, "[ 1, 2 ]"},
    PathCase{R"({"a": [[1, 2]]})", "a", kAll, "[ 1, 2 ] | [ [ 1, 2 ] ]"},
    PathCase{R"({"a": []})", "a", kAll, "[]"},
    PathCase{R"({"a": [{"b": 1}, {"b": [2, 3]}, 4, {"c": 5}]})", "a.b", kAll,
             "1 | 2 | 3 | [ 2, 3 ] | missing"},
    PathCase{R"({"a": [{"b": [2, 3]}]})", "a.b", kArray, "[ 2, 3 ]"},
    PathCase{R"({"a": [[{"b": 1}]]})", "a.b", kAll, ""},
    PathCase{R"({"a": []})", "a.b", kAll, ""},
    PathCase{R"({"a": [5, 6]})", "a.1", kAll, "6"},
    PathCase{R"({"a": [[1, 2]]})", "a.0", kAll, "[ 1, 2 ]"},
    PathCase{R"({"a": [[1, 2]]})", "a.0.1", kAll, "2"},
    PathCase{R"({"a": [{"b": 1}, {"b": 2}]})", "a.1.b", kAll, "missing | missing | 2"},
    PathCase{R"({"a": [{"0": 7}]})", "a.0", kAll, "7 | { 0: 7 }"},
    PathCase{R"({"a": {"b": [{"c": 1}, {"c": 2}]}})", "a.b.c", kAll, "1 | 2"}));

TEST(FieldPathTest, SplitsAndJoins) {
  FieldPath p("a.b.0.c");
  ASSERT_EQ(p.size(), 4u);
  EXPECT_EQ(p.part(2), "0");
  EXPECT_EQ(p.Suffix(1), "b.0.c");
  EXPECT_EQ(p.Prefix(2), "a.b");
  EXPECT_TRUE(FieldPath("a.b").IsPrefixOf(p));
  EXPECT_FALSE(FieldPath("a.bb").IsPrefixOf(p));
  EXPECT_EQ(FieldPath("a..b").part(1), "");
}

TEST(FieldPathTest, ParsesArrayIndexes) {
  EXPECT_EQ(ParseArrayIndex("0"), 0u);
  EXPECT_EQ(ParseArrayIndex("12"), 12u);
  EXPECT_FALSE(ParseArrayIndex("").has_value());
  EXPECT_FALSE(ParseArrayIndex("-1").has_value());
  EXPECT_FALSE(ParseArrayIndex("1a").has_value());
  EXPECT_FALSE(ParseArrayIndex("99999999999999999999999").has_value());
}

TEST(FieldPathTest, VisitorCanStopEarly) {
  BsonDoc doc = BsonDoc::FromJson(R"({"a": [1, 2, 3]})");
  int calls = 0;
  EXPECT_FALSE(VisitPath(doc.get(), FieldPath("a"), LeafArrays::kTraverse, [&](const bson_iter_t*) {
    ++calls;
    return false;
  }));
  EXPECT_EQ(calls, 1);
}

}  // namespace
}  // namespace tigerdoc::bson
