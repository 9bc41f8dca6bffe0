// Capped options: create's rules as MongoDB 7 (codes and messages), the
// limits read back from stored options, and the over-limit predicate at,
// below and above each limit.

#include "engine/catalog/capped_options.h"

#include <gtest/gtest.h>

namespace tigerdoc::catalog {
namespace {

using bson::BsonDoc;

StatusWith<BsonDoc> Parse(const char* json) {
  return ParseCappedCreateOptions(BsonDoc::FromJson(json).get());
}

TEST(CappedOptionsTest, CreateKeepsSizeAsGivenAndNormalisesMax) {
  auto parsed = Parse(R"({"create": "c", "capped": true, "size": 1000.9, "max": -7})");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed.value().ToJson(), R"({ "capped" : true, "size" : 1000, "max" : 2147483647 })");
  parsed = Parse(R"({"create": "c", "capped": 1, "size": {"$numberLong": "5000000000"}})");
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed.value().ToJson(), R"({ "capped" : true, "size" : 5000000000 })");
  // Not capped: nothing to store (capped: false is what drivers send).
  parsed = Parse(R"({"create": "c", "capped": false})");
  ASSERT_TRUE(parsed.ok());
  EXPECT_TRUE(parsed.value().empty());
}

struct Refusal {
  const char* command;
  int code;
  const char* message;
};

class CappedRefusalTest : public ::testing::TestWithParam<Refusal> {};

TEST_P(CappedRefusalTest, AnswersMongoDBsCodeAndMessage) {
  auto parsed = Parse(GetParam().command);
  ASSERT_FALSE(parsed.ok()) << GetParam().command;
  EXPECT_EQ(parsed.status().code_number(), GetParam().code);
  EXPECT_EQ(parsed.status().reason(), GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(
    MongoDB7, CappedRefusalTest,
    ::testing::Values(
        Refusal{R"({"capped": true})", 72, "the 'size' field is required when 'capped' is true"},
        Refusal{R"({"capped": true, "max": 5})", 72,
                "the 'size' field is required when 'capped' is true"},
        Refusal{R"({"size": 100})", 72,
                "the 'capped' field needs to be true when either the 'size' or 'max' fields are "
                "present"},
        Refusal{R"({"capped": true, "size": 0})", 51024,
                "BSON field 'size' value must be >= 1, actual value '0'"},
        Refusal{R"({"capped": true, "size": 0.5})", 51024,
                "BSON field 'size' value must be >= 1, actual value '0'"},
        Refusal{R"({"capped": true, "size": {"$numberLong": "1125899906842625"}})", 51024,
                "BSON field 'size' value must be <= 1125899906842624, actual value "
                "'1125899906842625'"},
        Refusal{R"({"capped": true, "size": 10, "max": 2147483648})", 51024,
                "BSON field 'max' value must be < 2147483648, actual value '2147483648'"},
        // Ranges are checked before the rules about capped itself.
        Refusal{R"({"size": 0})", 51024, "BSON field 'size' value must be >= 1, actual value '0'"},
        Refusal{R"({"capped": true, "size": "x"})", 14,
                "BSON field 'create.size' is the wrong type 'string', expected types '[long, int, "
                "decimal, double']"},
        Refusal{R"({"capped": "x", "size": 10})", 14,
                "BSON field 'create.capped' is the wrong type 'string', expected types '[bool, "
                "long, int, decimal, double']"}));

TEST(CappedOptionsTest, LimitsOfStoredOptions) {
  EXPECT_FALSE(CappedLimitsOf(BsonDoc::FromJson(R"({"validator": {}})").get()).has_value());
  auto limits = CappedLimitsOf(BsonDoc::FromJson(R"({"capped": true, "size": 1000})").get());
  ASSERT_TRUE(limits.has_value());
  EXPECT_EQ(limits->max_bytes, 1000);
  EXPECT_EQ(limits->max_docs, 0);
  limits = CappedLimitsOf(
      BsonDoc::FromJson(R"({"capped": true, "size": 1000, "max": 2147483647})").get());
  EXPECT_EQ(limits->max_docs, 0) << "2^31-1 is MongoDB's 'no limit'";
}

TEST(CappedOptionsTest, OverLimitsJustBelowAtAndAbove) {
  const CappedLimits limits{1000, 10};
  EXPECT_FALSE(CappedOverLimits(limits, 9, 999));
  EXPECT_FALSE(CappedOverLimits(limits, 10, 1000));
  EXPECT_TRUE(CappedOverLimits(limits, 11, 500));
  EXPECT_TRUE(CappedOverLimits(limits, 5, 1001));
  const CappedLimits bytes_only{1000, 0};
  EXPECT_FALSE(CappedOverLimits(bytes_only, 1000000, 1000));
}

}  // namespace
}  // namespace tigerdoc::catalog
