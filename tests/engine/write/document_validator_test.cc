// DocumentValidator / Validator: validator parsing (MongoDB's refusals),
// validationLevel / validationAction, and errInfo.details for query
// operators in MongoDB's shape (doc_validation_error.cpp). Keys written
// "%x" are "$x" (tests/engine/query/test_json.h).

#include "engine/write/document_validator.h"

#include <gtest/gtest.h>

#include <string>

#include "engine/bson/bson_doc.h"
#include "tests/engine/query/test_json.h"

namespace tigerdoc::engine {
namespace {

using bson::BsonDoc;

std::string Canonical(const bson_t* doc) {
  char* json = bson_as_relaxed_extended_json(doc, nullptr);
  std::string out = json;
  bson_free(json);
  return out;
}

std::string Expected(const char* json) { return Canonical(testing_json::Json(json).get()); }

struct DetailsCase {
  const char* validator;
  const char* doc;
  const char* details;  // expected errInfo.details
};

void PrintTo(const DetailsCase& c, std::ostream* os) {
  *os << "validator " << c.validator << " doc " << c.doc;
}

class ValidatorDetailsTest : public testing::TestWithParam<DetailsCase> {};

TEST_P(ValidatorDetailsTest, DetailsAsMongoDB) {
  const DetailsCase& c = GetParam();
  auto validator = Validator::Parse(testing_json::Json(c.validator).get(), "test");
  ASSERT_TRUE(validator.ok()) << validator.status().ToString();
  BsonDoc doc = testing_json::Json(c.doc);
  EXPECT_FALSE(validator.value().Matches(doc.get()));
  auto details = validator.value().Explain(doc.get());
  ASSERT_TRUE(details.ok());
  ASSERT_TRUE(details.value().has_value());
  EXPECT_EQ(Canonical(details.value()->get()), Expected(c.details));
}

INSTANTIATE_TEST_SUITE_P(QueryOperators, ValidatorDetailsTest, testing::Values(
    DetailsCase{R"({"a": {"%gt": 5}})", R"({"a": 1})",
                R"({"operatorName": "$gt", "specifiedAs": {"a": {"%gt": 5}},
                    "reason": "comparison failed", "consideredValue": 1})"},
    DetailsCase{R"({"a": 5})", R"({"b": 1})",
                R"({"operatorName": "$eq", "specifiedAs": {"a": 5}, "reason": "field was missing"})"},
    DetailsCase{R"({"a": {"%eq": 5}})", R"({"a": [1, 2]})",
                R"({"operatorName": "$eq", "specifiedAs": {"a": {"%eq": 5}},
                    "reason": "comparison failed", "consideredValues": [1, 2]})"},
    DetailsCase{R"({"s": {"%in": ["A", "B"]}})", R"({"s": "C"})",
                R"({"operatorName": "$in", "specifiedAs": {"s": {"%in": ["A", "B"]}},
                    "reason": "no matching value found in array", "consideredValue": "C"})"},
    DetailsCase{R"({"p": {"%exists": true}})", R"({})",
                R"({"operatorName": "$exists", "specifiedAs": {"p": {"%exists": true}},
                    "reason": "path does not exist"})"},
    DetailsCase{R"({"p": {"%type": "string"}})", R"({"p": 1})",
                R"({"operatorName": "$type", "specifiedAs": {"p": {"%type": "string"}},
                    "reason": "type did not match", "consideredValue": 1, "consideredType": "int"})"},
    // Several clauses: the implicit top-level $and, failing clauses only.
    DetailsCase{R"({"a": {"%gte": 1, "%lte": 3}, "b": 2})", R"({"a": 4, "b": 2})",
                R"({"operatorName": "$and", "clausesNotSatisfied": [{"index": 1, "details":
                    {"operatorName": "$lte", "specifiedAs": {"a": {"%lte": 3}},
                     "reason": "comparison failed", "consideredValue": 4}}]})"},
    // The manual's $or example ("Specify Validation With Query Operators").
    DetailsCase{R"({"%or": [{"phone": {"%type": "string"}}, {"status": {"%in": ["Unknown", "Incomplete"]}}]})",
                R"({"phone": 1234, "status": "x"})",
                R"({"operatorName": "$or", "clausesNotSatisfied": [
                    {"index": 0, "details": {"operatorName": "$type", "specifiedAs": {"phone": {"%type": "string"}},
                      "reason": "type did not match", "consideredValue": 1234, "consideredType": "int"}},
                    {"index": 1, "details": {"operatorName": "$in",
                      "specifiedAs": {"status": {"%in": ["Unknown", "Incomplete"]}},
                      "reason": "no matching value found in array", "consideredValue": "x"}}]})"},
    DetailsCase{R"({"%jsonSchema": {"required": ["x"]}, "a": 1})", R"({"a": 1})",
                R"({"operatorName": "$and", "clausesNotSatisfied": [{"index": 0, "details":
                    {"operatorName": "$jsonSchema", "schemaRulesNotSatisfied": [
                    {"operatorName": "required", "specifiedAs": {"required": ["x"]},
                     "missingProperties": ["x"]}]}}]})"},
    DetailsCase{R"({"a": {"%not": {"%gt": 5}}})", R"({"a": 6})",
                R"({"operatorName": "$not", "details": {"operatorName": "$gt",
                    "specifiedAs": {"a": {"%gt": 5}}, "reason": "comparison succeeded",
                    "consideredValue": 6}})"},
    DetailsCase{R"({"%nor": [{"a": 1}, {"b": 2}]})", R"({"a": 1, "b": 3})",
                R"({"operatorName": "$nor", "clausesSatisfied": [{"index": 0, "details":
                    {"operatorName": "$eq", "specifiedAs": {"a": 1}, "reason": "comparison succeeded",
                     "consideredValue": 1}}]})"},
    DetailsCase{R"({"%expr": {"%lt": ["$a", "$b"]}})", R"({"a": 2, "b": 1})",
                R"({"operatorName": "$expr", "specifiedAs": {"%expr": {"%lt": ["$a", "$b"]}},
                    "reason": "expression did not match", "expressionResult": false})"}));

struct RefusalCase {
  const char* validator;
  int code;
};

class ValidatorRefusalTest : public testing::TestWithParam<RefusalCase> {};

TEST_P(ValidatorRefusalTest, RefusedAsMongoDB) {
  auto validator = Validator::Parse(testing_json::Json(GetParam().validator).get(), "test");
  ASSERT_FALSE(validator.ok());
  EXPECT_EQ(validator.status().code_number(), GetParam().code) << validator.status().ToString();
}

INSTANTIATE_TEST_SUITE_P(Operators, ValidatorRefusalTest, testing::Values(
    RefusalCase{R"({"%where": "true"})", 2},
    RefusalCase{R"({"%text": {"%search": "x"}})", 2},
    RefusalCase{R"({"loc": {"%near": [0, 0]}})", 2},
    RefusalCase{R"({"%or": [{"loc": {"%nearSphere": [0, 0]}}]})", 2},
    RefusalCase{R"({"a": {"%bogus": 1}})", 2},
    RefusalCase{R"({"%jsonSchema": {"bogus": 1}})", 9}));

TEST(DocumentValidatorTest, NoValidatorMeansNoChecks) {
  auto v = DocumentValidator::FromOptions(testing_json::Json(R"({"validationLevel": "strict"})").get(),
                                          "test", "test.c");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v.value(), nullptr);
}

TEST(DocumentValidatorTest, StrictRefusesWith121AndErrInfo) {
  auto v = DocumentValidator::FromOptions(testing_json::Json(R"({"validator": {"a": {"%gt": 1}}})").get(),
                                          "test", "test.c");
  ASSERT_TRUE(v.ok());
  ASSERT_NE(v.value(), nullptr);
  BsonDoc good = testing_json::Json(R"({"_id": 1, "a": 2})");
  BsonDoc bad = testing_json::Json(R"({"_id": 7, "a": 0})");
  EXPECT_TRUE(v.value()->Check(nullptr, good.get()).ok());
  Status st = v.value()->Check(nullptr, bad.get());
  EXPECT_EQ(st.code_number(), 121);
  EXPECT_EQ(st.reason(), "Document failed validation");
  bson_t extra;
  ASSERT_TRUE(bson_init_static(&extra, reinterpret_cast<const uint8_t*>(st.extra_bson().data()),
                               st.extra_bson().size()));
  EXPECT_EQ(Canonical(&extra), Expected(R"({"errInfo": {"failingDocumentId": 7, "details":
      {"operatorName": "$gt", "specifiedAs": {"a": {"%gt": 1}}, "reason": "comparison failed",
       "consideredValue": 0}}})"));
  // An update of a valid document to an invalid one is refused too.
  EXPECT_EQ(v.value()->Check(good.get(), bad.get()).code_number(), 121);
}

TEST(DocumentValidatorTest, ModerateLetsUpdatesOfInvalidDocumentsThrough) {
  auto v = DocumentValidator::FromOptions(
      testing_json::Json(R"({"validator": {"a": {"%gt": 1}}, "validationLevel": "moderate"})").get(),
      "test", "test.c");
  ASSERT_TRUE(v.ok());
  BsonDoc good = testing_json::Json(R"({"_id": 1, "a": 2})");
  BsonDoc bad = testing_json::Json(R"({"_id": 1, "a": 0})");
  BsonDoc worse = testing_json::Json(R"({"_id": 1, "a": -1})");
  EXPECT_EQ(v.value()->Check(nullptr, bad.get()).code_number(), 121);  // inserts are checked
  EXPECT_EQ(v.value()->Check(good.get(), bad.get()).code_number(), 121);
  EXPECT_TRUE(v.value()->Check(bad.get(), worse.get()).ok());
}

TEST(DocumentValidatorTest, OffAndWarnLetEverythingThrough) {
  BsonDoc bad = testing_json::Json(R"({"_id": 1, "a": 0})");
  for (const char* options : {R"({"validator": {"a": 1}, "validationLevel": "off"})",
                              R"({"validator": {"a": 1}, "validationAction": "warn"})"}) {
    auto v = DocumentValidator::FromOptions(testing_json::Json(options).get(), "test", "test.c");
    ASSERT_TRUE(v.ok());
    EXPECT_TRUE(v.value()->Check(nullptr, bad.get()).ok()) << options;
  }
}

TEST(DocumentValidatorTest, CheckOptionsRefusesBadValues) {
  Status level = DocumentValidator::CheckOptions(
      testing_json::Json(R"({"validationLevel": "lax"})").get(), "create", "test");
  EXPECT_EQ(level.code_number(), 2);
  EXPECT_EQ(level.reason(), "Enumeration value 'lax' for field 'create.validationLevel' is not a valid value.");
  Status action = DocumentValidator::CheckOptions(
      testing_json::Json(R"({"validationAction": 1})").get(), "collMod", "test");
  EXPECT_EQ(action.code_number(), 14);
  Status validator = DocumentValidator::CheckOptions(
      testing_json::Json(R"({"validator": 5})").get(), "create", "test");
  EXPECT_EQ(validator.code_number(), 14);
  EXPECT_TRUE(DocumentValidator::CheckOptions(
      testing_json::Json(R"({"validator": {}, "validationLevel": "moderate", "validationAction": "warn"})").get(),
      "create", "test").ok());
}

}  // namespace
}  // namespace tigerdoc::engine
