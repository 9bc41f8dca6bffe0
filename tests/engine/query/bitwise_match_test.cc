// Specification of $bitsAllSet $bitsAllClear $bitsAnySet $bitsAnyClear: each
// row is a collection, a filter, and how many documents MongoDB returns.
// Collections and counts are MongoDB's jstests/core/query/bittest.js.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/bson/bson_doc.h"
#include "engine/query/matcher/matcher.h"
#include "tests/engine/query/test_json.h"

namespace tigerdoc::query {
namespace {

using bson::BsonDoc;

std::string Bin(const char* base64, const char* subtype = "00") {
  return std::string(R"({"$binary": {"base64": ")") + base64 + R"(", "subType": ")" + subtype +
         R"("}})";
}

const std::vector<std::string> kPositive = {"0", "1", "54", "88", "255", "1e18"};
const std::vector<std::string> kLongs = {"0", "1", R"({"$numberLong": "9223372036854775807"})",
                                         R"({"$numberLong": "6917529027641081856"})",
                                         R"({"$numberLong": "2305843009213693952"})"};
const std::vector<std::string> kNegative = {"-0", "-1", "-54", "-1e18"};
const std::vector<std::string> kBinary = {
    Bin("AAAAAAAAAAAAAAAAAAAAAAAAAAAA"), Bin("AANgAAAAAAAAAAAAAAAAAAAAAAAA"),
    Bin("JANgqwetkqwklEWRbWERKKJREtbq"), Bin("////////////////////////////")};
// Integral numbers only: the fractional, NaN, infinite and out-of-range
// values never match.
const std::vector<std::string> kMixed = {
    "0", "1", "[1.1, 54]", "88", "255", R"({"$numberDouble": "NaN"})", "1.1", "-1.1",
    R"({"$numberDouble": "-Infinity"})", R"({"$numberDouble": "Infinity"})",
    R"({"$numberDecimal": "Infinity"})", R"({"$numberDecimal": "-Infinity"})",
    R"({"$numberDecimal": "NaN"})", R"({"$numberDecimal": "9223372036854775808"})",
    R"({"$numberDecimal": "-9223372036854775809"})", R"({"$numberDecimal": "1.1"})",
    R"({"$numberDecimal": "-1.1"})"};
const std::vector<std::string> kVariableBinary = {
    Bin("ZG9n"), Bin("JA4A8gAxqTwciCuF5GGzAA=="), Bin("JA4A8gAxqTwciCuF5GGzAA==", "01"),
    Bin("VGhlIHF1aWNrIGJyb3duIGZveCBqdW1wcyBvdmVyIHRoZSBsYXp5IGRvZw=="),
    Bin("BAAAADEyMzQ=", "02")};

struct BitCase {
  const std::vector<std::string>* values;  // the documents are {a: value}
  std::string filter;
  int count;
};

void PrintTo(const BitCase& c, std::ostream* os) { *os << c.filter << " -> " << c.count; }

class BitTestCountTest : public testing::TestWithParam<BitCase> {};

TEST_P(BitTestCountTest, CountsLikeMongoDB) {
  const BitCase& c = GetParam();
  BsonDoc filter = testing_json::Json(c.filter);
  auto matcher = Matcher::Parse(filter.get());
  ASSERT_TRUE(matcher.ok()) << matcher.status().ToString();
  int count = 0;
  for (const std::string& value : *c.values) {
    BsonDoc doc = BsonDoc::FromJson(R"({"a": )" + value + "}");
    if (matcher.value()->Matches(doc.get())) ++count;
  }
  EXPECT_EQ(count, c.count);
}

std::string F(const char* op, const std::string& operand) {
  return std::string(R"({"a": {")") + op + R"(": )" + operand + "}}";
}

INSTANTIATE_TEST_SUITE_P(PositiveNumbers, BitTestCountTest, testing::Values(
    BitCase{&kPositive, F("$bitsAllSet", "0"), 6}, BitCase{&kPositive, F("$bitsAllSet", "1"), 2},
    BitCase{&kPositive, F("$bitsAllSet", "16"), 3}, BitCase{&kPositive, F("$bitsAllSet", "54"), 2},
    BitCase{&kPositive, F("$bitsAllSet", "55"), 1}, BitCase{&kPositive, F("$bitsAllSet", "88"), 2},
    BitCase{&kPositive, F("$bitsAllSet", "255"), 1},
    BitCase{&kPositive, F("$bitsAllClear", "0"), 6}, BitCase{&kPositive, F("$bitsAllClear", "1"), 4},
    BitCase{&kPositive, F("$bitsAllClear", "16"), 3},
    BitCase{&kPositive, F("$bitsAllClear", "129"), 4},
    BitCase{&kPositive, F("$bitsAllClear", "255"), 2},
    BitCase{&kPositive, F("$bitsAnySet", "0"), 0}, BitCase{&kPositive, F("$bitsAnySet", "9"), 3},
    BitCase{&kPositive, F("$bitsAnySet", "255"), 4},
    BitCase{&kPositive, F("$bitsAnyClear", "0"), 0},
    BitCase{&kPositive, F("$bitsAnyClear", "18"), 4},
    BitCase{&kPositive, F("$bitsAnyClear", "24"), 4},
    BitCase{&kPositive, F("$bitsAnyClear", "255"), 5},
    BitCase{&kPositive, F("$bitsAllSet", "[]"), 6}, BitCase{&kPositive, F("$bitsAllSet", "[0]"), 2},
    BitCase{&kPositive, F("$bitsAllSet", "[4]"), 3},
    BitCase{&kPositive, F("$bitsAllSet", "[1, 2, 4, 5]"), 2},
    BitCase{&kPositive, F("$bitsAllSet", "[0, 1, 2, 4, 5]"), 1},
    BitCase{&kPositive, F("$bitsAllSet", "[3, 4, 6]"), 2},
    BitCase{&kPositive, F("$bitsAllSet", "[0, 1, 2, 3, 4, 5, 6, 7]"), 1},
    BitCase{&kPositive, F("$bitsAllClear", "[]"), 6},
    BitCase{&kPositive, F("$bitsAllClear", "[0]"), 4},
    BitCase{&kPositive, F("$bitsAllClear", "[4]"), 3},
    BitCase{&kPositive, F("$bitsAllClear", "[1, 7]"), 4},
    BitCase{&kPositive, F("$bitsAllClear", "[0, 1, 2, 3, 4, 5, 6, 7]"), 2},
    BitCase{&kPositive, F("$bitsAnySet", "[]"), 0},
    BitCase{&kPositive, F("$bitsAnySet", "[1, 3]"), 3},
    BitCase{&kPositive, F("$bitsAnySet", "[0, 1, 2, 3, 4, 5, 6, 7]"), 4},
    BitCase{&kPositive, F("$bitsAnyClear", "[]"), 0},
    BitCase{&kPositive, F("$bitsAnyClear", "[1, 4]"), 4},
    BitCase{&kPositive, F("$bitsAnyClear", "[3, 4]"), 4},
    BitCase{&kPositive, F("$bitsAnyClear", "[0, 1, 2, 3, 4, 5, 6, 7]"), 5},
    BitCase{&kPositive, R"({"a": {"$bitsAllSet": 54, "$bitsAllClear": 201}})", 1}));

const char* kMaxLong = R"({"$numberLong": "9223372036854775807"})";
const char* kLong6917 = R"({"$numberLong": "6917529027641081856"})";
const char* kLong2305 = R"({"$numberLong": "2305843009213693952"})";

INSTANTIATE_TEST_SUITE_P(LongMasks, BitTestCountTest, testing::Values(
    BitCase{&kLongs, F("$bitsAllSet", "0"), 5}, BitCase{&kLongs, F("$bitsAllSet", "1"), 2},
    BitCase{&kLongs, F("$bitsAllSet", kMaxLong), 1}, BitCase{&kLongs, F("$bitsAllSet", kLong6917), 2},
    BitCase{&kLongs, F("$bitsAllSet", kLong2305), 3},
    BitCase{&kLongs, F("$bitsAllClear", "0"), 5}, BitCase{&kLongs, F("$bitsAllClear", "1"), 3},
    BitCase{&kLongs, F("$bitsAllClear", kMaxLong), 1},
    BitCase{&kLongs, F("$bitsAllClear", kLong6917), 2},
    BitCase{&kLongs, F("$bitsAllClear", kLong2305), 2},
    BitCase{&kLongs, F("$bitsAnySet", "0"), 0}, BitCase{&kLongs, F("$bitsAnySet", "1"), 2},
    BitCase{&kLongs, F("$bitsAnySet", kMaxLong), 4}, BitCase{&kLongs, F("$bitsAnySet", kLong6917), 3},
    BitCase{&kLongs, F("$bitsAnySet", kLong2305), 3},
    BitCase{&kLongs, F("$bitsAnyClear", "0"), 0}, BitCase{&kLongs, F("$bitsAnyClear", "1"), 3},
    BitCase{&kLongs, F("$bitsAnyClear", kMaxLong), 4},
    BitCase{&kLongs, F("$bitsAnyClear", kLong6917), 3},
    BitCase{&kLongs, F("$bitsAnyClear", kLong2305), 2}));

const char* kAllPositions =
    "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, "
    "25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, "
    "48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63]";

// Negative numbers: two's complement, sign-extended past bit 63.
INSTANTIATE_TEST_SUITE_P(NegativeNumbers, BitTestCountTest, testing::Values(
    BitCase{&kNegative, F("$bitsAllSet", "0"), 4}, BitCase{&kNegative, F("$bitsAllSet", "2"), 2},
    BitCase{&kNegative, F("$bitsAllSet", "127"), 1}, BitCase{&kNegative, F("$bitsAllSet", "74"), 2},
    BitCase{&kNegative, F("$bitsAllClear", "0"), 4},
    BitCase{&kNegative, F("$bitsAllClear", "53"), 3},
    BitCase{&kNegative, F("$bitsAllClear", "127"), 2},
    BitCase{&kNegative, F("$bitsAnySet", "0"), 0}, BitCase{&kNegative, F("$bitsAnySet", "2"), 2},
    BitCase{&kNegative, F("$bitsAnySet", "127"), 2},
    BitCase{&kNegative, F("$bitsAnyClear", "0"), 0},
    BitCase{&kNegative, F("$bitsAnyClear", "53"), 3},
    BitCase{&kNegative, F("$bitsAnyClear", "127"), 3},
    BitCase{&kNegative, F("$bitsAllSet", "[]"), 4}, BitCase{&kNegative, F("$bitsAllSet", "[1]"), 2},
    BitCase{&kNegative, F("$bitsAllSet", kAllPositions), 1},
    BitCase{&kNegative, F("$bitsAllSet", "[1, 7, 6, 3, 100]"), 2},
    BitCase{&kNegative, F("$bitsAllClear", "[]"), 4},
    BitCase{&kNegative, F("$bitsAllClear", "[5, 4, 2, 0]"), 3},
    BitCase{&kNegative, F("$bitsAllClear", kAllPositions), 1},
    BitCase{&kNegative, F("$bitsAnySet", "[]"), 0}, BitCase{&kNegative, F("$bitsAnySet", "[1]"), 2},
    BitCase{&kNegative, F("$bitsAnySet", kAllPositions), 3},
    BitCase{&kNegative, F("$bitsAnyClear", "[]"), 0},
    BitCase{&kNegative, F("$bitsAnyClear", "[0, 2, 4, 5, 100]"), 3},
    BitCase{&kNegative, F("$bitsAnyClear", kAllPositions), 3},
    BitCase{&kNegative, R"({"a": {"$bitsAllSet": 74, "$bitsAllClear": 53}})", 1}));

INSTANTIATE_TEST_SUITE_P(BinData, BitTestCountTest, testing::Values(
    BitCase{&kBinary, F("$bitsAllSet", Bin("AAAAAAAAAAAAAAAAAAAAAAAAAAAA")), 4},
    BitCase{&kBinary, F("$bitsAllSet", Bin("AANgAAAAAAAAAAAAAAAAAAAAAAAA")), 3},
    BitCase{&kBinary, F("$bitsAllSet", Bin("JANgqwetkqwklEWRbWERKKJREtbq")), 2},
    BitCase{&kBinary, F("$bitsAllSet", Bin("////////////////////////////")), 1},
    BitCase{&kBinary, F("$bitsAllClear", Bin("AAAAAAAAAAAAAAAAAAAAAAAAAAAA")), 4},
    BitCase{&kBinary, F("$bitsAllClear", Bin("AAyfAAAAAAAAAAAAAAAAAAAAAAAA")), 3},
    BitCase{&kBinary, F("$bitsAllClear", Bin("JAyfqwetkqwklEWRbWERKKJREtbq")), 2},
    BitCase{&kBinary, F("$bitsAllClear", Bin("////////////////////////////")), 1},
    BitCase{&kBinary, F("$bitsAnySet", Bin("AAAAAAAAAAAAAAAAAAAAAAAAAAAA")), 0},
    BitCase{&kBinary, F("$bitsAnySet", Bin("AAyfAAAAAAAAAAAAAAAAAAAAAAAA")), 1},
    BitCase{&kBinary, F("$bitsAnySet", Bin("JAyfqwetkqwklEWRbWERKKJREtbq")), 2},
    BitCase{&kBinary, F("$bitsAnySet", Bin("////////////////////////////")), 3},
    BitCase{&kBinary, F("$bitsAnyClear", Bin("AAAAAAAAAAAAAAAAAAAAAAAAAAAA")), 0},
    BitCase{&kBinary, F("$bitsAnyClear", Bin("AANgAAAAAAAAAAAAAAAAAAAAAAAA")), 1},
    BitCase{&kBinary, F("$bitsAnyClear", Bin("JANgqwetkqwklEWRbWERKKJREtbq")), 2},
    BitCase{&kBinary, F("$bitsAnyClear", Bin("////////////////////////////")), 3},
    BitCase{&kBinary,
            R"({"a": {"$bitsAllSet": )" + Bin("AANgAAAAAAAAAAAAAAAAAAAAAAAA") +
                R"(, "$bitsAllClear": )" + Bin("//yf////////////////////////") + "}}",
            1}));

INSTANTIATE_TEST_SUITE_P(NonIntegralValues, BitTestCountTest, testing::Values(
    BitCase{&kMixed, F("$bitsAllSet", "0"), 5}, BitCase{&kMixed, F("$bitsAllSet", "1"), 2},
    BitCase{&kMixed, F("$bitsAllSet", "16"), 3}, BitCase{&kMixed, F("$bitsAllSet", "54"), 2},
    BitCase{&kMixed, F("$bitsAllSet", "55"), 1}, BitCase{&kMixed, F("$bitsAllSet", "88"), 2},
    BitCase{&kMixed, F("$bitsAllSet", "255"), 1}, BitCase{&kMixed, F("$bitsAllClear", "0"), 5},
    BitCase{&kMixed, F("$bitsAllClear", "1"), 3}, BitCase{&kMixed, F("$bitsAllClear", "16"), 2},
    BitCase{&kMixed, F("$bitsAllClear", "129"), 3}, BitCase{&kMixed, F("$bitsAllClear", "255"), 1},
    BitCase{&kMixed, F("$bitsAnySet", "0"), 0}, BitCase{&kMixed, F("$bitsAnySet", "9"), 3},
    BitCase{&kMixed, F("$bitsAnySet", "255"), 4}, BitCase{&kMixed, F("$bitsAnyClear", "0"), 0},
    BitCase{&kMixed, F("$bitsAnyClear", "18"), 3}, BitCase{&kMixed, F("$bitsAnyClear", "24"), 3},
    BitCase{&kMixed, F("$bitsAnyClear", "255"), 4}));

INSTANTIATE_TEST_SUITE_P(VariableLengthBinData, BitTestCountTest, testing::Values(
    BitCase{&kVariableBinary, F("$bitsAllSet", Bin("ZG9n")), 1},
    BitCase{&kVariableBinary, F("$bitsAllSet", Bin("JA4A8gAxqTwciCuF5GGzAA==")), 2},
    BitCase{&kVariableBinary, F("$bitsAllSet", Bin("BAAAADEyMzQ=", "02")), 1},
    BitCase{&kVariableBinary,
            F("$bitsAllSet",
              Bin("VGhlIHF1aWNrIGJyb3duIGZveCBqdW1wcyBvdmVyIHRoZSBsYXp5IGRvZw==")),
            1},
    BitCase{&kVariableBinary, F("$bitsAllClear", Bin("AAAAAAAAAAAAAAAAAAAAAAAAAAAA")), 5},
    BitCase{&kVariableBinary, F("$bitsAllClear", Bin("JA4A8gAxqTwciCuF5GGzAA==")), 0},
    BitCase{&kVariableBinary, F("$bitsAnySet", Bin("AAAAAAAAAAAAAAAAAAAAAAAAAAAA")), 0},
    BitCase{&kVariableBinary, F("$bitsAnySet", Bin("JA4A8gAxqTwciCuF5GGzAA==")), 5},
    BitCase{&kVariableBinary, F("$bitsAnyClear", Bin("AAAAAAAAAAAAAAAAAAAAAAAAAAAA")), 0},
    BitCase{&kVariableBinary,
            F("$bitsAnyClear",
              Bin("VGhlIHF1aWNrIGJyb3duIGZveCBqdW1wcyBvdmVyIHRoZSBsYXp5IGRvZw==")),
            4}));

// Single-document rows for the rules the jstest does not spell out.
const std::vector<std::string> kMinusOne = {"-1"};
const std::vector<std::string> kIntegralDouble = {"4.0"};
const std::vector<std::string> kIntegralDecimal = {R"({"$numberDecimal": "4.000"})"};
const std::vector<std::string> kString = {R"("4")"};
const std::vector<std::string> kInt32Negative = {R"({"$numberInt": "-2"})"};
const std::vector<std::string> kByte128 = {"128"};
const std::vector<std::string> kByteMinus128 = {"-128"};
const std::vector<std::string> kNestedArray = {"[[4]]"};

INSTANTIATE_TEST_SUITE_P(Rules, BitTestCountTest, testing::Values(
    // Positions past 63 read the sign bit of numbers.
    BitCase{&kMinusOne, F("$bitsAllSet", "[63, 64, 1000]"), 1},
    BitCase{&kPositive, F("$bitsAnySet", "[200]"), 0},
    BitCase{&kIntegralDouble, F("$bitsAllSet", "[2]"), 1},
    BitCase{&kIntegralDecimal, F("$bitsAllSet", "[2]"), 1},
    BitCase{&kString, F("$bitsAllClear", "[2]"), 0},
    BitCase{&kInt32Negative, F("$bitsAllSet", "[1, 31, 32, 63]"), 1},
    // A BinData mask's bytes are sign-extended against numbers, as mongod's.
    BitCase{&kByte128, F("$bitsAllSet", Bin("gA==")), 0},
    BitCase{&kByteMinus128, F("$bitsAllSet", Bin("gA==")), 1},
    // Array elements are tested one by one; nested arrays are not.
    BitCase{&kNestedArray, F("$bitsAllSet", "4"), 0},
    BitCase{&kPositive, R"({"a": {"$not": {"$bitsAnySet": 1}}})", 4}));

struct BitErrorCase {
  const char* filter;
  int code;
  const char* message;
};

void PrintTo(const BitErrorCase& c, std::ostream* os) { *os << c.filter; }

class BitTestErrorTest : public testing::TestWithParam<BitErrorCase> {};

TEST_P(BitTestErrorTest, FailsLikeMongoDB) {
  const BitErrorCase& c = GetParam();
  BsonDoc filter = testing_json::Json(c.filter);
  auto matcher = Matcher::Parse(filter.get());
  ASSERT_FALSE(matcher.ok());
  EXPECT_EQ(matcher.status().code_number(), c.code);
  EXPECT_EQ(matcher.status().reason(), c.message);
}

INSTANTIATE_TEST_SUITE_P(Errors, BitTestErrorTest, testing::Values(
    BitErrorCase{R"({"a": {"$bitsAllSet": -1}})", 9,
                 "Expected a non-negative number in: $bitsAllSet: -1"},
    BitErrorCase{R"({"a": {"$bitsAnySet": 1.5}})", 9, "Expected an integer: $bitsAnySet: 1.5"},
    BitErrorCase{R"({"a": {"$bitsAnySet": {"$numberDouble": "NaN"}}})", 9,
                 "Expected an integer, but found NaN in: $bitsAnySet: nan.0"},
    BitErrorCase{R"({"a": {"$bitsAllClear": 1e19}})", 9,
                 "Cannot represent as a 64-bit integer: $bitsAllClear: 1e+19.0"},
    BitErrorCase{R"({"a": {"$bitsAllClear": {"$numberDecimal": "2.5"}}})", 9,
                 "Cannot represent as a 64-bit integer: $bitsAllClear: 2.5"},
    BitErrorCase{R"({"a": {"$bitsAllSet": [-1]}})", 2,
                 "Failed to parse bit position. Expected a non-negative number in: 0: -1"},
    BitErrorCase{R"({"a": {"$bitsAllSet": [1, 2.5]}})", 2,
                 "Failed to parse bit position. Expected an integer: 1: 2.5"},
    BitErrorCase{R"({"a": {"$bitsAllSet": ["x"]}})", 2,
                 "Failed to parse bit position. Expected a number in: 0: \"x\""},
    BitErrorCase{R"({"a": {"$bitsAllSet": [{"$numberLong": "4294967296"}]}})", 2,
                 "Failed to parse bit position. Cannot represent 0: 4294967296 in an int"},
    BitErrorCase{R"({"a": {"$bitsAnyClear": "x"}})", 2,
                 "a takes an Array, a number, or a BinData but received: $bitsAnyClear: \"x\""},
    BitErrorCase{R"({"a.b": {"$bitsAllSet": null}})", 2,
                 "a.b takes an Array, a number, or a BinData but received: $bitsAllSet: null"}));

}  // namespace
}  // namespace tigerdoc::query
