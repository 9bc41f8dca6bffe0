#include "engine/bson/compare.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/bson/bson_doc.h"
#include "engine/bson/exact_number.h"

namespace tigerdoc::bson {
namespace {

int Sign(int v) { return v < 0 ? -1 : (v > 0 ? 1 : 0); }

// Compares the values of field "v" in {v: <lhs>} and {v: <rhs>}, both
// written as (canonical or relaxed) extended JSON.
int CompareJson(const std::string& lhs, const std::string& rhs) {
  BsonDoc a = BsonDoc::FromJson("{\"v\": " + lhs + "}");
  BsonDoc b = BsonDoc::FromJson("{\"v\": " + rhs + "}");
  bson_iter_t ia;
  bson_iter_t ib;
  EXPECT_TRUE(bson_iter_init_find(&ia, a.get(), "v"));
  EXPECT_TRUE(bson_iter_init_find(&ib, b.get(), "v"));
  int forward = Sign(CompareValues(&ia, &ib));
  // Antisymmetry holds for every row, so check it everywhere.
  EXPECT_EQ(forward, -Sign(CompareValues(&ib, &ia))) << lhs << " vs " << rhs;
  return forward;
}

struct Row {
  std::string lhs;
  std::string rhs;
  int expected;  // sign of CompareValues(lhs, rhs)
};

std::ostream& operator<<(std::ostream& os, const Row& r) {
  return os << r.lhs << " <=> " << r.rhs << " expect " << r.expected;
}

class CompareValuesTest : public ::testing::TestWithParam<Row> {};

TEST_P(CompareValuesTest, OrdersLikeMongoDB) {
  const Row& row = GetParam();
  EXPECT_EQ(CompareJson(row.lhs, row.rhs), row.expected) << row;
}

std::string L(const char* v) { return std::string("{\"$numberLong\": \"") + v + "\"}"; }
std::string D(const char* v) { return std::string("{\"$numberDouble\": \"") + v + "\"}"; }
std::string Dec(const char* v) { return std::string("{\"$numberDecimal\": \"") + v + "\"}"; }
std::string I(const char* v) { return std::string("{\"$numberInt\": \"") + v + "\"}"; }

INSTANTIATE_TEST_SUITE_P(
    TypeOrder, CompareValuesTest,
    ::testing::Values(Row{"{\"$minKey\": 1}", "null", -1},
                      Row{"{\"$undefined\": true}", "null", -1}, Row{"null", I("-2147483648"), -1},
                      Row{D("-Infinity"), "\"\"", -1}, Row{"\"zzz\"", "{}", -1},
                      Row{"{\"z\": 1}", "[]", -1},
                      Row{"[9]", "{\"$binary\": {\"base64\": \"\", \"subType\": \"00\"}}", -1},
                      Row{"{\"$binary\": {\"base64\": \"AAAA\", \"subType\": \"80\"}}",
                          "{\"$oid\": \"000000000000000000000000\"}", -1},
                      Row{"{\"$oid\": \"ffffffffffffffffffffffff\"}", "false", -1},
                      Row{"true", "{\"$date\": {\"$numberLong\": \"-1\"}}", -1},
                      Row{"{\"$date\": {\"$numberLong\": \"9000000000000\"}}",
                          "{\"$timestamp\": {\"t\": 0, \"i\": 0}}", -1},
                      Row{"{\"$timestamp\": {\"t\": 4294967295, \"i\": 4294967295}}",
                          "{\"$regularExpression\": {\"pattern\": \"\", \"options\": \"\"}}", -1},
                      Row{"{\"$regularExpression\": {\"pattern\": \"z\", \"options\": \"x\"}}",
                          "{\"$dbPointer\": {\"$ref\": \"a.b\", \"$id\": {\"$oid\": "
                          "\"000000000000000000000000\"}}}",
                          -1},
                      Row{"{\"$dbPointer\": {\"$ref\": \"a.b\", \"$id\": {\"$oid\": "
                          "\"000000000000000000000000\"}}}",
                          "{\"$code\": \"\"}", -1},
                      Row{"{\"$code\": \"zzz\"}", "{\"$code\": \"\", \"$scope\": {}}", -1},
                      Row{"{\"$code\": \"z\", \"$scope\": {\"a\": 1}}", "{\"$maxKey\": 1}", -1},
                      Row{"{\"$minKey\": 1}", "{\"$minKey\": 1}", 0},
                      Row{"{\"$maxKey\": 1}", "{\"$maxKey\": 1}", 0}, Row{"null", "null", 0},
                      Row{"{\"$undefined\": true}", "{\"$undefined\": true}", 0}));

INSTANTIATE_TEST_SUITE_P(
    Numbers, CompareValuesTest,
    ::testing::Values(Row{I("1"), L("1"), 0}, Row{I("1"), D("1.0"), 0}, Row{L("1"), Dec("1.00"), 0},
                      Row{D("1.0"), Dec("1"), 0}, Row{D("-0.0"), I("0"), 0},
                      Row{D("-0.0"), Dec("-0"), 0}, Row{Dec("0E+300"), Dec("-0E-300"), 0},
                      Row{I("2"), D("2.5"), -1}, Row{I("-3"), D("-2.5"), -1},
                      Row{L("-3"), D("-3.5"), 1}, Row{D("NaN"), D("-Infinity"), -1},
                      Row{D("NaN"), D("NaN"), 0}, Row{D("NaN"), Dec("NaN"), 0},
                      Row{Dec("NaN"), L("-9223372036854775808"), -1}, Row{D("NaN"), I("-5"), -1},
                      Row{I("-5"), D("NaN"), 1},
                      // Exactness at the int64 boundary: 2^63-1 is not representable as a
                      // double; the nearest double is 2^63.
                      Row{L("9223372036854775807"), D("9.223372036854776E18"), -1},
                      Row{L("9223372036854775807"), D("9.2233720368547748E18"), 1},
                      Row{L("-9223372036854775808"), D("-9.223372036854776E18"), 0},
                      Row{L("-9223372036854775807"), D("-9.223372036854776E18"), 1},
                      Row{L("9007199254740993"), D("9007199254740992.0"), 1},
                      Row{L("9007199254740993"), D("9007199254740994.0"), -1},
                      Row{L("9223372036854775807"), D("Infinity"), -1},
                      Row{L("-9223372036854775808"), D("-Infinity"), 1},
                      Row{L("9223372036854775807"), L("-9223372036854775808"), 1},
                      Row{D("1E308"), D("Infinity"), -1}, Row{D("4.9E-324"), D("0.0"), 1},
                      Row{D("-4.9E-324"), D("-0.0"), -1},
                      // Decimal128 compares exactly against every other type.
                      Row{Dec("0.1"), D("0.1"), -1},  // double 0.1 is 0.1000000000000000055...
                      Row{Dec("0.1000000000000000055511151231257827"), D("0.1"), -1},
                      Row{Dec("0.1000000000000000055511151231257828"), D("0.1"), 1},
                      Row{Dec("9223372036854775807"), L("9223372036854775807"), 0},
                      Row{Dec("9223372036854775806.5"), L("9223372036854775807"), -1},
                      Row{Dec("-Infinity"), D("-Infinity"), 0}, Row{Dec("Infinity"), D("1E308"), 1},
                      Row{Dec("1E+6144"), D("Infinity"), -1}, Row{Dec("-1E-6176"), I("0"), -1},
                      Row{Dec("1.5"), Dec("1.50"), 0}, Row{Dec("1.5"), Dec("1.51"), -1},
                      Row{Dec("-1.5"), Dec("-1.51"), 1}, Row{Dec("15E-1"), D("1.5"), 0},
                      Row{Dec("100"), I("99"), 1}, Row{Dec("1E+2"), I("100"), 0}));

INSTANTIATE_TEST_SUITE_P(Strings, CompareValuesTest,
                         ::testing::Values(Row{"\"\"", "\"a\"", -1}, Row{"\"a\"", "\"ab\"", -1},
                                           Row{"\"ab\"", "\"b\"", -1}, Row{"\"B\"", "\"a\"", -1},
                                           Row{"\"a\"", "\"a\\u0000\"", -1},
                                           Row{"\"a\\u0000b\"", "\"a\\u0001\"", -1},
                                           Row{"\"\\u00e9\"", "\"z\"", 1},  // UTF-8 bytes 0xC3 0xA9
                                           Row{"\"abc\"", "{\"$symbol\": \"abc\"}", 0},
                                           Row{"{\"$symbol\": \"abd\"}", "\"abc\"", 1},
                                           Row{"{\"$code\": \"a\"}", "{\"$code\": \"b\"}", -1}));

INSTANTIATE_TEST_SUITE_P(
    DocumentsAndArrays, CompareValuesTest,
    ::testing::Values(Row{"{}", "{}", 0}, Row{"{}", "{\"a\": {\"$minKey\": 1}}", -1},
                      Row{"{\"a\": 1}", "{\"a\": 1, \"b\": 0}", -1},
                      Row{"{\"a\": 1}", "{\"b\": 1}", -1}, Row{"{\"b\": 1}", "{\"a\": 2}", 1},
                      // Canonical type decides before the field name.
                      Row{"{\"b\": 1}", "{\"a\": \"x\"}", -1}, Row{"{\"a\": 1}", "{\"a\": 1.0}", 0},
                      Row{"{\"a\": 2}", "{\"a\": 10}", -1},
                      Row{"{\"a\": {\"b\": [1, 2]}}", "{\"a\": {\"b\": [1, 3]}}", -1},
                      Row{"[]", "[1]", -1}, Row{"[1, 2]", "[1, 2, 0]", -1}, Row{"[2]", "[1, 9]", 1},
                      Row{"[null]", "[1]", -1}, Row{"[[1]]", "[{}]", 1}));

INSTANTIATE_TEST_SUITE_P(
    OtherTypes, CompareValuesTest,
    ::testing::Values(
        // BinData: length, then subtype, then bytes.
        Row{"{\"$binary\": {\"base64\": \"/w==\", \"subType\": \"80\"}}",
            "{\"$binary\": {\"base64\": \"AAA=\", \"subType\": \"00\"}}", -1},
        Row{"{\"$binary\": {\"base64\": \"/w==\", \"subType\": \"00\"}}",
            "{\"$binary\": {\"base64\": \"AA==\", \"subType\": \"05\"}}", -1},
        Row{"{\"$binary\": {\"base64\": \"AQ==\", \"subType\": \"00\"}}",
            "{\"$binary\": {\"base64\": \"AA==\", \"subType\": \"00\"}}", 1},
        Row{"{\"$oid\": \"000000000000000000000001\"}", "{\"$oid\": \"000000000000000000000002\"}",
            -1},
        Row{"false", "true", -1}, Row{"true", "true", 0},
        Row{"{\"$date\": {\"$numberLong\": \"-5\"}}", "{\"$date\": {\"$numberLong\": \"3\"}}", -1},
        Row{"{\"$timestamp\": {\"t\": 1, \"i\": 9}}", "{\"$timestamp\": {\"t\": 2, \"i\": 0}}", -1},
        Row{"{\"$timestamp\": {\"t\": 2147483648, \"i\": 0}}",
            "{\"$timestamp\": {\"t\": 1, \"i\": 0}}", 1},  // unsigned seconds
        Row{"{\"$regularExpression\": {\"pattern\": \"a\", \"options\": \"x\"}}",
            "{\"$regularExpression\": {\"pattern\": \"b\", \"options\": \"\"}}", -1},
        Row{"{\"$regularExpression\": {\"pattern\": \"a\", \"options\": \"i\"}}",
            "{\"$regularExpression\": {\"pattern\": \"a\", \"options\": \"m\"}}", -1},
        Row{"{\"$code\": \"f\", \"$scope\": {\"a\": 1}}",
            "{\"$code\": \"f\", \"$scope\": {\"a\": 2}}", -1}));

TEST(CompareDocumentsTest, FieldNamesCountAndPrefixSortsFirst) {
  BsonDoc a = BsonDoc::FromJson(R"({"a": 1, "b": 2})");
  BsonDoc b = BsonDoc::FromJson(R"({"a": 1, "c": 0})");
  BsonDoc c = BsonDoc::FromJson(R"({"a": 1})");
  BsonDoc d = BsonDoc::FromJson(R"({"a": {"$numberLong": "1"}, "b": 2.0})");
  EXPECT_LT(CompareDocuments(a.get(), b.get()), 0);
  EXPECT_GT(CompareDocuments(b.get(), a.get()), 0);
  EXPECT_LT(CompareDocuments(c.get(), a.get()), 0);
  EXPECT_EQ(CompareDocuments(a.get(), d.get()), 0);
}

TEST(CanonicalTypeRankTest, MatchesMongoDBNumbers) {
  EXPECT_EQ(CanonicalTypeRank(BSON_TYPE_MINKEY), -1);
  EXPECT_EQ(CanonicalTypeRank(BSON_TYPE_UNDEFINED), 0);
  EXPECT_EQ(CanonicalTypeRank(BSON_TYPE_EOD), 0);
  EXPECT_EQ(CanonicalTypeRank(BSON_TYPE_NULL), 5);
  EXPECT_EQ(CanonicalTypeRank(BSON_TYPE_DECIMAL128), 10);
  EXPECT_EQ(CanonicalTypeRank(BSON_TYPE_SYMBOL), 15);
  EXPECT_EQ(CanonicalTypeRank(BSON_TYPE_TIMESTAMP), 47);
  EXPECT_EQ(CanonicalTypeRank(BSON_TYPE_CODEWSCOPE), 65);
  EXPECT_EQ(CanonicalTypeRank(BSON_TYPE_MAXKEY), 127);
}

TEST(ExactNumberTest, NormalisesDigitsAndExponent) {
  ExactNumber n = ExactFromDouble(1200.0);
  EXPECT_EQ(n.kind, ExactNumber::Kind::kPositive);
  EXPECT_EQ(n.digits, "12");
  EXPECT_EQ(n.exponent, 3);
  n = ExactFromDouble(-0.1);
  EXPECT_EQ(n.kind, ExactNumber::Kind::kNegative);
  EXPECT_EQ(n.digits, "1000000000000000055511151231257827021181583404541015625");
  EXPECT_EQ(n.exponent, -1);
  n = ExactFromInt64(INT64_MIN);
  EXPECT_EQ(n.digits, "9223372036854775808");
  EXPECT_EQ(n.exponent, 18);
  n = ExactFromDouble(4.9406564584124654e-324);  // smallest subnormal: 2^-1074
  EXPECT_EQ(n.exponent, -324);
  EXPECT_EQ(n.digits.size(), 751u);
}

}  // namespace
}  // namespace tigerdoc::bson
