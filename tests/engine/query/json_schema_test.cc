// $jsonSchema as a query operator: a table of schema, document and whether
// MongoDB matches it (rows from the manual's "$jsonSchema" and "Schema
// Validation" pages and MongoDB's JSON Schema semantics), a table of parse
// errors with MongoDB's codes, and the errInfo.details shapes.
// Keys written "%x" are "$x" (test_json.h).

#include "engine/query/matcher/json_schema.h"

#include <gtest/gtest.h>

#include <string>

#include "engine/bson/bson_doc.h"
#include "engine/query/matcher/matcher.h"
#include "tests/engine/query/test_json.h"

namespace tigerdoc::query {
namespace {

using bson::BsonDoc;

struct SchemaCase {
  const char* schema;
  const char* doc;
  bool matches;
};

void PrintTo(const SchemaCase& c, std::ostream* os) {
  *os << "schema " << c.schema << " doc " << c.doc << " -> " << (c.matches ? "match" : "no match");
}

BsonDoc Filter(const char* schema) {
  return testing_json::Json(std::string(R"({"%jsonSchema": )") + schema + "}");
}

class JsonSchemaMatchTest : public testing::TestWithParam<SchemaCase> {};

TEST_P(JsonSchemaMatchTest, MatchesLikeMongoDB) {
  const SchemaCase& c = GetParam();
  BsonDoc filter = Filter(c.schema);
  BsonDoc doc = BsonDoc::FromJson(c.doc);
  auto matcher = Matcher::Parse(filter.get());
  ASSERT_TRUE(matcher.ok()) << matcher.status().ToString();
  EXPECT_EQ(matcher.value()->Matches(doc.get()), c.matches);
  // A failing document always has details to explain it.
  if (!c.matches) {
    const auto* expr = static_cast<const JsonSchemaExpression*>(matcher.value()->root());
    BsonDoc details = expr->Explain(doc.get());
    bson_iter_t it;
    ASSERT_TRUE(bson_iter_init_find(&it, details.get(), "schemaRulesNotSatisfied") ||
                bson_iter_init_find(&it, details.get(), "reason"));
  }
}

INSTANTIATE_TEST_SUITE_P(Types, JsonSchemaMatchTest, testing::Values(
    SchemaCase{R"({})", R"({"a": 1})", true},
    SchemaCase{R"({"bsonType": "object"})", R"({"a": 1})", true},
    SchemaCase{R"({"bsonType": "array"})", R"({"a": 1})", false},
    SchemaCase{R"({"type": "object"})", R"({})", true},
    SchemaCase{R"({"properties": {"a": {"bsonType": "int"}}})", R"({"a": 1})", true},
    SchemaCase{R"({"properties": {"a": {"bsonType": "int"}}})", R"({"a": 1.5})", false},
    SchemaCase{R"({"properties": {"a": {"bsonType": "int"}}})", R"({})", true},
    SchemaCase{R"({"properties": {"a": {"bsonType": "long"}}})", R"({"a": {"$numberLong": "1"}})", true},
    SchemaCase{R"({"properties": {"a": {"bsonType": "number"}}})", R"({"a": {"$numberDecimal": "1"}})", true},
    SchemaCase{R"({"properties": {"a": {"bsonType": "number"}}})", R"({"a": "1"})", false},
    SchemaCase{R"({"properties": {"a": {"bsonType": ["string", "null"]}}})", R"({"a": null})", true},
    SchemaCase{R"({"properties": {"a": {"bsonType": "objectId"}}})", R"({"a": {"$oid": "5f0000000000000000000000"}})", true},
    SchemaCase{R"({"properties": {"a": {"bsonType": "date"}}})", R"({"a": {"$date": 0}})", true},
    SchemaCase{R"({"properties": {"a": {"bsonType": "bool"}}})", R"({"a": true})", true},
    SchemaCase{R"({"properties": {"a": {"type": "boolean"}}})", R"({"a": false})", true},
    SchemaCase{R"({"properties": {"a": {"type": "number"}}})", R"({"a": 2.5})", true},
    SchemaCase{R"({"properties": {"a": {"type": "string"}}})", R"({"a": 2.5})", false},
    SchemaCase{R"({"properties": {"a": {"type": ["string", "array"]}}})", R"({"a": []})", true},
    // No implicit array traversal: the array itself is the value.
    SchemaCase{R"({"properties": {"a": {"bsonType": "int"}}})", R"({"a": [1]})", false}));

INSTANTIATE_TEST_SUITE_P(ObjectKeywords, JsonSchemaMatchTest, testing::Values(
    SchemaCase{R"({"required": ["a", "b"]})", R"({"a": 1, "b": null})", true},
    SchemaCase{R"({"required": ["a", "b"]})", R"({"a": 1})", false},
    SchemaCase{R"({"properties": {"o": {"required": ["x"]}}})", R"({"o": {"y": 1}})", false},
    SchemaCase{R"({"properties": {"o": {"required": ["x"]}}})", R"({"o": 5})", true},
    SchemaCase{R"({"properties": {"o": {"properties": {"x": {"minimum": 3}}}}})", R"({"o": {"x": 2}})", false},
    SchemaCase{R"({"minProperties": 2})", R"({"a": 1})", false},
    SchemaCase{R"({"maxProperties": 2})", R"({"a": 1, "b": 2})", true},
    SchemaCase{R"({"maxProperties": 1})", R"({"a": 1, "b": 2})", false},
    SchemaCase{R"({"properties": {"_id": {}, "a": {}}, "additionalProperties": false})", R"({"_id": 1, "a": 1})", true},
    SchemaCase{R"({"properties": {"_id": {}, "a": {}}, "additionalProperties": false})", R"({"_id": 1, "b": 1})", false},
    SchemaCase{R"({"properties": {"a": {}}, "additionalProperties": {"bsonType": "string"}})", R"({"a": 1, "b": "x"})", true},
    SchemaCase{R"({"properties": {"a": {}}, "additionalProperties": {"bsonType": "string"}})", R"({"a": 1, "b": 2})", false},
    SchemaCase{R"({"patternProperties": {"^s_": {"bsonType": "string"}}})", R"({"s_a": "x", "n": 1})", true},
    SchemaCase{R"({"patternProperties": {"^s_": {"bsonType": "string"}}})", R"({"s_a": 1})", false},
    SchemaCase{R"({"patternProperties": {"^s_": {}}, "additionalProperties": false})", R"({"s_a": 1, "x": 1})", false},
    SchemaCase{R"({"patternProperties": {"^s_": {}}, "additionalProperties": false})", R"({"s_a": 1})", true},
    SchemaCase{R"({"dependencies": {"card": ["address"]}})", R"({"card": 1})", false},
    SchemaCase{R"({"dependencies": {"card": ["address"]}})", R"({"card": 1, "address": 2})", true},
    SchemaCase{R"({"dependencies": {"card": ["address"]}})", R"({"other": 1})", true},
    SchemaCase{R"({"dependencies": {"card": {"required": ["cvv"]}}})", R"({"card": 1})", false},
    SchemaCase{R"({"dependencies": {"card": {"required": ["cvv"]}}})", R"({"card": 1, "cvv": 1})", true}));

INSTANTIATE_TEST_SUITE_P(ScalarKeywords, JsonSchemaMatchTest, testing::Values(
    SchemaCase{R"({"properties": {"n": {"minimum": 5}}})", R"({"n": 5})", true},
    SchemaCase{R"({"properties": {"n": {"minimum": 5, "exclusiveMinimum": true}}})", R"({"n": 5})", false},
    SchemaCase{R"({"properties": {"n": {"maximum": 5}}})", R"({"n": 5.5})", false},
    SchemaCase{R"({"properties": {"n": {"maximum": 5, "exclusiveMaximum": true}}})", R"({"n": 4.99})", true},
    SchemaCase{R"({"properties": {"n": {"minimum": 5}}})", R"({"n": "a string"})", true},
    SchemaCase{R"({"properties": {"n": {"multipleOf": 3}}})", R"({"n": 9})", true},
    SchemaCase{R"({"properties": {"n": {"multipleOf": 3}}})", R"({"n": 10})", false},
    SchemaCase{R"({"properties": {"n": {"multipleOf": 0.5}}})", R"({"n": 2.5})", true},
    SchemaCase{R"({"properties": {"s": {"minLength": 2}}})", R"({"s": "ab"})", true},
    SchemaCase{R"({"properties": {"s": {"minLength": 3}}})", R"({"s": "ab"})", false},
    // Code points, not bytes: "é" is two bytes, one code point.
    SchemaCase{R"({"properties": {"s": {"maxLength": 2}}})", R"({"s": "\u00e9\u00e9"})", true},
    SchemaCase{R"({"properties": {"s": {"maxLength": 1}}})", R"({"s": "ab"})", false},
    SchemaCase{R"({"properties": {"s": {"minLength": 3}}})", R"({"s": 1})", true},
    SchemaCase{R"({"properties": {"s": {"pattern": "^[a-z]+$"}}})", R"({"s": "abc"})", true},
    SchemaCase{R"({"properties": {"s": {"pattern": "^[a-z]+$"}}})", R"({"s": "ab1"})", false},
    SchemaCase{R"({"properties": {"e": {"pattern": "@mongodb\\.com$"}}})", R"({"e": "x@mongodb.com"})", true},
    SchemaCase{R"({"properties": {"c": {"enum": ["red", "green", 1]}}})", R"({"c": "green"})", true},
    SchemaCase{R"({"properties": {"c": {"enum": ["red", "green", 1]}}})", R"({"c": 1.0})", true},
    SchemaCase{R"({"properties": {"c": {"enum": ["red", "green"]}}})", R"({"c": "blue"})", false},
    SchemaCase{R"({"properties": {"c": {"enum": [{"a": 1}]}}})", R"({"c": {"a": 1}})", true},
    SchemaCase{R"({"enum": [{"a": 1}]})", R"({"a": 1})", true},
    SchemaCase{R"({"enum": [{"a": 1}]})", R"({"a": 2})", false}));

INSTANTIATE_TEST_SUITE_P(ArrayKeywords, JsonSchemaMatchTest, testing::Values(
    SchemaCase{R"({"properties": {"t": {"items": {"bsonType": "string"}}}})", R"({"t": ["a", "b"]})", true},
    SchemaCase{R"({"properties": {"t": {"items": {"bsonType": "string"}}}})", R"({"t": ["a", 1]})", false},
    SchemaCase{R"({"properties": {"t": {"items": {"bsonType": "string"}}}})", R"({"t": "not an array"})", true},
    SchemaCase{R"({"properties": {"t": {"items": [{"bsonType": "int"}, {"bsonType": "string"}]}}})", R"({"t": [1, "a", true]})", true},
    SchemaCase{R"({"properties": {"t": {"items": [{"bsonType": "int"}, {"bsonType": "string"}]}}})", R"({"t": ["a"]})", false},
    SchemaCase{R"({"properties": {"t": {"items": [{}], "additionalItems": false}}})", R"({"t": [1, 2]})", false},
    SchemaCase{R"({"properties": {"t": {"items": [{}], "additionalItems": false}}})", R"({"t": [1]})", true},
    SchemaCase{R"({"properties": {"t": {"items": [{}], "additionalItems": {"bsonType": "int"}}}})", R"({"t": ["x", 2, 3]})", true},
    SchemaCase{R"({"properties": {"t": {"items": [{}], "additionalItems": {"bsonType": "int"}}}})", R"({"t": ["x", "y"]})", false},
    SchemaCase{R"({"properties": {"t": {"minItems": 2}}})", R"({"t": [1]})", false},
    SchemaCase{R"({"properties": {"t": {"maxItems": 2}}})", R"({"t": [1, 2]})", true},
    SchemaCase{R"({"properties": {"t": {"maxItems": 1}}})", R"({"t": [1, 2]})", false},
    SchemaCase{R"({"properties": {"t": {"uniqueItems": true}}})", R"({"t": [1, 2, 3]})", true},
    SchemaCase{R"({"properties": {"t": {"uniqueItems": true}}})", R"({"t": [1, 2, 1.0]})", false},
    SchemaCase{R"({"properties": {"t": {"uniqueItems": false}}})", R"({"t": [1, 1]})", true}));

INSTANTIATE_TEST_SUITE_P(LogicalKeywords, JsonSchemaMatchTest, testing::Values(
    SchemaCase{R"({"properties": {"a": {"allOf": [{"minimum": 1}, {"maximum": 3}]}}})", R"({"a": 2})", true},
    SchemaCase{R"({"properties": {"a": {"allOf": [{"minimum": 1}, {"maximum": 3}]}}})", R"({"a": 4})", false},
    SchemaCase{R"({"properties": {"a": {"anyOf": [{"bsonType": "string"}, {"minimum": 10}]}}})", R"({"a": 11})", true},
    SchemaCase{R"({"properties": {"a": {"anyOf": [{"bsonType": "string"}, {"minimum": 10}]}}})", R"({"a": 9})", false},
    SchemaCase{R"({"properties": {"a": {"oneOf": [{"minimum": 5}, {"maximum": 10}]}}})", R"({"a": 7})", false},
    SchemaCase{R"({"properties": {"a": {"oneOf": [{"minimum": 5}, {"maximum": 10}]}}})", R"({"a": 11})", true},
    SchemaCase{R"({"properties": {"a": {"not": {"bsonType": "string"}}}})", R"({"a": 1})", true},
    SchemaCase{R"({"properties": {"a": {"not": {"bsonType": "string"}}}})", R"({"a": "x"})", false},
    SchemaCase{R"({"not": {"required": ["secret"]}})", R"({"secret": 1})", false},
    SchemaCase{R"({"title": "t", "description": "d", "properties": {"a": {"title": "x"}}})", R"({"a": 1})", true}));

// The manual's "Specify JSON Schema Validation" students schema.
constexpr char kStudents[] = R"({
  "bsonType": "object", "title": "Student Object Validation",
  "required": ["address", "major", "name", "year"],
  "properties": {
    "name": {"bsonType": "string", "description": "'name' must be a string and is required"},
    "year": {"bsonType": "int", "minimum": 2017, "maximum": 3017,
             "description": "'year' must be an integer in [ 2017, 3017 ] and is required"},
    "gpa": {"bsonType": ["double"], "description": "'gpa' must be a double if the field exists"}}})";

INSTANTIATE_TEST_SUITE_P(ManualStudents, JsonSchemaMatchTest, testing::Values(
    SchemaCase{kStudents, R"({"name": "Alice", "year": {"$numberInt": "2019"}, "major": "History",
                             "gpa": {"$numberInt": "3"}, "address": {"city": "NYC"}})", false},
    SchemaCase{kStudents, R"({"name": "Alice", "year": {"$numberInt": "2019"}, "major": "History",
                             "gpa": 3.0, "address": {"city": "NYC"}})", true},
    SchemaCase{kStudents, R"({"name": "Alice", "year": {"$numberInt": "2016"}, "major": "History",
                             "address": {}})", false},
    SchemaCase{kStudents, R"({"name": "Alice", "year": {"$numberInt": "2019"}, "address": {}})", false}));

// Parse errors: code and message.
struct ErrorCase {
  const char* schema;
  int code;
  const char* message;
};

void PrintTo(const ErrorCase& c, std::ostream* os) { *os << "schema " << c.schema; }

class JsonSchemaErrorTest : public testing::TestWithParam<ErrorCase> {};

TEST_P(JsonSchemaErrorTest, RefusedWithMongoDBsCode) {
  const ErrorCase& c = GetParam();
  auto matcher = Matcher::Parse(Filter(c.schema).get());
  ASSERT_FALSE(matcher.ok());
  EXPECT_EQ(matcher.status().code_number(), c.code) << matcher.status().ToString();
  EXPECT_EQ(matcher.status().reason(), c.message);
}

INSTANTIATE_TEST_SUITE_P(Keywords, JsonSchemaErrorTest, testing::Values(
    ErrorCase{R"({"foo": 1})", 9, "Unknown $jsonSchema keyword: foo"},
    ErrorCase{R"({"format": "email"})", 9, "$jsonSchema keyword 'format' is not currently supported"},
    ErrorCase{R"({"default": 1})", 9, "$jsonSchema keyword 'default' is not currently supported"},
    ErrorCase{R"({"definitions": {}})", 9, "$jsonSchema keyword 'definitions' is not currently supported"},
    ErrorCase{R"({"%ref": "#/x"})", 9, "$jsonSchema keyword '$ref' is not currently supported"},
    ErrorCase{R"({"type": "integer"})", 9, "$jsonSchema type 'integer' is not currently supported."},
    ErrorCase{R"({"bsonType": "foo"})", 2, "Unknown type name alias: foo"},
    ErrorCase{R"({"bsonType": 1})", 14, "$jsonSchema keyword 'bsonType' must be either a string or an array of strings"},
    ErrorCase{R"({"type": "object", "bsonType": "object"})", 9, "Cannot specify both $jsonSchema keywords 'type' and 'bsonType'"},
    ErrorCase{R"({"properties": 1})", 14, "$jsonSchema keyword 'properties' must be an object"},
    ErrorCase{R"({"properties": {"a": 1}})", 14, "Nested schema for $jsonSchema property 'a' must be an object"},
    ErrorCase{R"({"required": "a"})", 14, "$jsonSchema keyword 'required' must be an array, but found an element of type string"},
    ErrorCase{R"({"required": [1]})", 14, "$jsonSchema keyword 'required' must be an array of strings, but found an element of type: int"},
    ErrorCase{R"({"bsonType": ["int", "int"]})", 9, "$jsonSchema keyword 'bsonType' has duplicate value: int"},
    ErrorCase{R"({"bsonType": "integer"})", 9, "$jsonSchema type 'integer' is not currently supported."},
    ErrorCase{R"({"additionalProperties": 1})", 14, "$jsonSchema keyword 'additionalProperties' must be an object or a boolean"},
    ErrorCase{R"({"dependencies": {"a": 1}})", 14, "property 'a' in $jsonSchema keyword 'dependencies' must be either an object or an array"},
    ErrorCase{R"({"dependencies": {"a": []}})", 9, "property 'a' in $jsonSchema keyword 'dependencies' cannot be an empty array"},
    ErrorCase{R"({"dependencies": {"a": ["b", "b"]}})", 9, "array 'a' in $jsonSchema keyword 'dependencies' contains duplicate element: b"},
    ErrorCase{R"({"foo": 1, "bar": 2})", 9, "Unknown $jsonSchema keyword: foo"},
    ErrorCase{R"({"required": []})", 9, "$jsonSchema keyword 'required' cannot be an empty array"},
    ErrorCase{R"({"required": ["a", "a"]})", 9, "$jsonSchema keyword 'required' array cannot contain duplicate values"},
    ErrorCase{R"({"minimum": "1"})", 14, "$jsonSchema keyword 'minimum' must be a number"},
    ErrorCase{R"({"exclusiveMinimum": true})", 9, "$jsonSchema keyword 'minimum' must be a present if exclusiveMinimum is present"},
    ErrorCase{R"({"multipleOf": 0})", 9, "$jsonSchema keyword 'multipleOf' must have a positive value"},
    ErrorCase{R"({"pattern": 1})", 14, "$jsonSchema keyword 'pattern' must be a string"},
    ErrorCase{R"({"enum": []})", 9, "$jsonSchema keyword 'enum' cannot be an empty array"},
    ErrorCase{R"({"enum": [1, 1]})", 9, "$jsonSchema keyword 'enum' array cannot contain duplicate values."},
    ErrorCase{R"({"allOf": []})", 2, "$jsonSchema keyword 'allOf' must be a non-empty array"},
    ErrorCase{R"({"not": 1})", 14, "$jsonSchema keyword 'not' must be an object, but found an element of type int"},
    ErrorCase{R"({"uniqueItems": 1})", 14, "$jsonSchema keyword 'uniqueItems' must be a boolean"},
    ErrorCase{R"({"title": 1})", 14, "$jsonSchema keyword 'title' must be of type string"}));

TEST(JsonSchemaErrorTest, OperandMustBeAnObject) {
  auto matcher = Matcher::Parse(testing_json::Json(R"({"%jsonSchema": 1})").get());
  ASSERT_FALSE(matcher.ok());
  EXPECT_EQ(matcher.status().code_number(), 14);
  EXPECT_EQ(matcher.status().reason(), "$jsonSchema must be an object");
}

// errInfo.details shapes.
BsonDoc ExplainOf(const char* schema, const char* doc) {
  auto matcher = Matcher::Parse(Filter(schema).get());
  EXPECT_TRUE(matcher.ok());
  const auto* expr = static_cast<const JsonSchemaExpression*>(matcher.value()->root());
  BsonDoc d = BsonDoc::FromJson(doc);
  EXPECT_FALSE(expr->Matches(d.get()));
  return expr->Explain(d.get());
}

std::string Canonical(const bson_t* doc) {
  char* json = bson_as_relaxed_extended_json(doc, nullptr);
  std::string out = json;
  bson_free(json);
  return out;
}

std::string Expected(const char* json) { return Canonical(testing_json::Json(json).get()); }

TEST(JsonSchemaExplainTest, ManualStudentsGpaIsAnInt) {
  BsonDoc details = ExplainOf(kStudents, R"({"name": "Alice", "year": {"$numberInt": "2019"},
      "major": "History", "gpa": {"$numberInt": "3"}, "address": {"city": "NYC"}})");
  EXPECT_EQ(Canonical(details.get()), Expected(R"({"operatorName": "$jsonSchema",
      "title": "Student Object Validation",
      "schemaRulesNotSatisfied": [{"operatorName": "properties", "propertiesNotSatisfied": [
        {"propertyName": "gpa", "description": "'gpa' must be a double if the field exists",
         "details": [{"operatorName": "bsonType", "specifiedAs": {"bsonType": ["double"]},
                      "reason": "type did not match", "consideredValue": 3,
                      "consideredType": "int"}]}]}]})"));
}

TEST(JsonSchemaExplainTest, RequiredListsMissingProperties) {
  BsonDoc details = ExplainOf(R"({"required": ["a", "b", "c"]})", R"({"b": 1})");
  EXPECT_EQ(Canonical(details.get()), Expected(R"({"operatorName": "$jsonSchema",
      "schemaRulesNotSatisfied": [{"operatorName": "required",
        "specifiedAs": {"required": ["a", "b", "c"]}, "missingProperties": ["a", "c"]}]})"));
}

TEST(JsonSchemaExplainTest, MinimumEnumPatternAndLength) {
  BsonDoc details = ExplainOf(
      R"({"properties": {"n": {"minimum": 5}, "c": {"enum": ["x"]}, "s": {"pattern": "^a", "maxLength": 2}}})",
      R"({"n": 4, "c": "y", "s": "bcd"})");
  EXPECT_EQ(Canonical(details.get()), Expected(R"({"operatorName": "$jsonSchema",
      "schemaRulesNotSatisfied": [{"operatorName": "properties", "propertiesNotSatisfied": [
        {"propertyName": "n", "details": [{"operatorName": "minimum", "specifiedAs": {"minimum": 5},
           "reason": "comparison failed", "consideredValue": 4}]},
        {"propertyName": "c", "details": [{"operatorName": "enum", "specifiedAs": {"enum": ["x"]},
           "reason": "value was not found in enum", "consideredValue": "y"}]},
        {"propertyName": "s", "details": [
           {"operatorName": "pattern", "specifiedAs": {"pattern": "^a"},
            "reason": "regular expression did not match", "consideredValue": "bcd"},
           {"operatorName": "maxLength", "specifiedAs": {"maxLength": 2},
            "reason": "specified string length was not satisfied", "consideredValue": "bcd"}]}]}]})"));
}

TEST(JsonSchemaExplainTest, AdditionalPropertiesFalseNamesThem) {
  BsonDoc details = ExplainOf(R"({"properties": {"a": {}}, "additionalProperties": false})",
                              R"({"a": 1, "x": 2, "y": 3})");
  EXPECT_EQ(Canonical(details.get()), Expected(R"({"operatorName": "$jsonSchema",
      "schemaRulesNotSatisfied": [{"operatorName": "additionalProperties",
        "specifiedAs": {"additionalProperties": false}, "additionalProperties": ["x", "y"]}]})"));
}

TEST(JsonSchemaExplainTest, ItemsReportsTheFirstFailingItem) {
  BsonDoc details = ExplainOf(R"({"properties": {"t": {"items": {"bsonType": "string"}}}})",
                              R"({"t": ["a", 1, 2]})");
  EXPECT_EQ(Canonical(details.get()), Expected(R"({"operatorName": "$jsonSchema",
      "schemaRulesNotSatisfied": [{"operatorName": "properties", "propertiesNotSatisfied": [
        {"propertyName": "t", "details": [{"operatorName": "items",
          "reason": "At least one item did not match the sub-schema", "itemIndex": 1,
          "details": [{"operatorName": "bsonType", "specifiedAs": {"bsonType": "string"},
            "reason": "type did not match", "consideredValue": 1, "consideredType": "int"}]}]}]}]})"));
}

// MongoDB's order within one schema: scalar keywords, array keywords,
// object keywords, logical keywords, then the type.
TEST(JsonSchemaExplainTest, KeywordsInMongoDBsOrder) {
  BsonDoc details = ExplainOf(
      R"({"properties": {"a": {}}, "additionalProperties": false, "required": ["z", "b"],
          "minProperties": 5, "enum": [{"q": 1}]})",
      R"({"a": 1, "x": 2})");
  EXPECT_EQ(Canonical(details.get()), Expected(R"({"operatorName": "$jsonSchema",
      "schemaRulesNotSatisfied": [
        {"operatorName": "additionalProperties", "specifiedAs": {"additionalProperties": false},
         "additionalProperties": ["x"]},
        {"operatorName": "required", "specifiedAs": {"required": ["z", "b"]},
         "missingProperties": ["b", "z"]},
        {"operatorName": "minProperties", "specifiedAs": {"minProperties": 5},
         "reason": "specified number of properties was not satisfied", "numberOfProperties": 2},
        {"operatorName": "enum", "specifiedAs": {"enum": [{"q": 1}]},
         "reason": "value was not found in enum", "consideredValue": {"a": 1, "x": 2}}]})"));
}

TEST(JsonSchemaExplainTest, RootTypeWithoutObjectMatchesNothing) {
  BsonDoc details = ExplainOf(R"({"bsonType": "array"})", R"({"a": 1})");
  EXPECT_EQ(Canonical(details.get()), Expected(R"({"operatorName": "$jsonSchema",
      "specifiedAs": {"%jsonSchema": {"bsonType": "array"}},
      "reason": "expression always evaluates to false"})"));
}

TEST(JsonSchemaExplainTest, ArrayKeywords) {
  BsonDoc details = ExplainOf(R"({"properties": {"t": {"minItems": 4, "uniqueItems": true}}})",
                              R"({"t": [1, 2, 1.5, 2.0]})");
  EXPECT_EQ(Canonical(details.get()), Expected(R"({"operatorName": "$jsonSchema",
      "schemaRulesNotSatisfied": [{"operatorName": "properties", "propertiesNotSatisfied": [
        {"propertyName": "t", "details": [
          {"operatorName": "uniqueItems", "specifiedAs": {"uniqueItems": true},
           "reason": "found a duplicate item", "consideredValue": [1, 2, 1.5, 2.0],
           "duplicatedValue": 2.0}]}]}]})"));
}

TEST(JsonSchemaExplainTest, LogicalKeywords) {
  BsonDoc details = ExplainOf(R"({"anyOf": [{"required": ["a"]}, {"required": ["b"]}], "not": {"required": ["c"]}})",
                              R"({"c": 1})");
  EXPECT_EQ(Canonical(details.get()), Expected(R"({"operatorName": "$jsonSchema",
      "schemaRulesNotSatisfied": [
        {"operatorName": "anyOf", "schemasNotSatisfied": [
          {"index": 0, "details": [{"operatorName": "required", "specifiedAs": {"required": ["a"]},
                                    "missingProperties": ["a"]}]},
          {"index": 1, "details": [{"operatorName": "required", "specifiedAs": {"required": ["b"]},
                                    "missingProperties": ["b"]}]}]},
        {"operatorName": "not", "reason": "child expression matched"}]})"));
}

}  // namespace
}  // namespace tigerdoc::query
