// decimal_math: results and exponents as MongoDB's Decimal128 computes them.

#include "engine/bson/decimal_math.h"

#include <gtest/gtest.h>

#include <string>

namespace tigerdoc::bson {
namespace {

Decimal128 D(const char* s) {
  bson_decimal128_t raw;
  EXPECT_TRUE(bson_decimal128_from_string(s, &raw)) << s;
  return Decimal128::FromBson(raw);
}

std::string S(const Decimal128& d) {
  char buf[BSON_DECIMAL128_STRING];
  bson_decimal128_t raw = d.ToBson();
  bson_decimal128_to_string(&raw, buf);
  return buf;
}

TEST(DecimalMathTest, LogarithmsAreExactWhereTheResultIs) {
  EXPECT_EQ(S(DecimalApply(DecimalUnaryFn::kLog10, D("10"))), "1");
  EXPECT_EQ(S(DecimalApply(DecimalUnaryFn::kLog10, D("1000"))), "3");
  EXPECT_EQ(S(DecimalLog(D("8"), D("2"))), "3");
  EXPECT_EQ(S(DecimalLog(D("100"), D("10"))), "2");
  EXPECT_EQ(S(DecimalApply(DecimalUnaryFn::kLn, D("1"))), "0");
  EXPECT_EQ(S(DecimalApply(DecimalUnaryFn::kSqrt, D("4"))), "2");
  EXPECT_EQ(S(DecimalPow(D("2"), D("10"))), "1024");
}

TEST(DecimalMathTest, Trigonometry) {
  EXPECT_EQ(S(DecimalApply(DecimalUnaryFn::kSin, D("10"))), "-0.5440211108893698134047476618513773");
  // The library's exponents, which MongoDB returns too.
  EXPECT_EQ(S(DecimalApply(DecimalUnaryFn::kCos, D("0"))), "1.000000000000000000000000000000000");
  EXPECT_EQ(S(DecimalAtan2(D("0"), D("1"))), "0E-6176");
  EXPECT_EQ(S(DecimalApply(DecimalUnaryFn::kExp, D("0"))), "1");
  EXPECT_EQ(S(DecimalPiOver180() * Decimal128(180)).substr(0, 32), "3.141592653589793238462643383279");
}

TEST(DecimalMathTest, RoundToPlaceKeepsTrailingZerosUpTo34Digits) {
  EXPECT_EQ(S(DecimalRoundToPlace(D("1.5"), 3, DecimalRounding::kNearestEven)), "1.500");
  EXPECT_EQ(S(DecimalRoundToPlace(D("1.298"), 1, DecimalRounding::kNearestEven)), "1.3");
  EXPECT_EQ(S(DecimalRoundToPlace(D("1.298"), 1, DecimalRounding::kTowardZero)), "1.2");
  EXPECT_EQ(S(DecimalRoundToPlace(D("23.298"), -1, DecimalRounding::kTowardZero)), "2E+1");
  EXPECT_EQ(S(DecimalRoundToPlace(D("1.298"), 100, DecimalRounding::kTowardZero)),
            "1.298000000000000000000000000000000");
  EXPECT_EQ(S(DecimalRoundToPlace(D("-1.6"), 0, DecimalRounding::kCeil)), "-1");
  EXPECT_EQ(S(DecimalRoundToPlace(D("-1.6"), 0, DecimalRounding::kFloor)), "-2");
  EXPECT_EQ(S(DecimalRoundToPlace(D("2.5"), 0, DecimalRounding::kNearestEven)), "2");
  EXPECT_EQ(S(DecimalRoundToPlace(D("Infinity"), 0, DecimalRounding::kNearestEven)), "Infinity");
  EXPECT_EQ(S(DecimalRoundToPlace(D("NaN"), 2, DecimalRounding::kNearestEven)), "NaN");
  EXPECT_EQ(S(DecimalRoundToPlace(D("0"), 5, DecimalRounding::kNearestEven)), "0.00000");
  // 34 digits round up into a carry that still fits.
  EXPECT_EQ(S(DecimalRoundToPlace(D("999999999999999999999999999999999.9"), 0,
                                  DecimalRounding::kNearestEven)),
            "1000000000000000000000000000000000");
}

TEST(DecimalMathTest, ArithmeticThroughIntelsLibrary) {
  EXPECT_EQ(S(D("0.1") + D("0.2")), "0.3");
  EXPECT_EQ(S(D("1.10") * D("2")), "2.20");
  EXPECT_EQ(S(D("1") / D("3")), "0.3333333333333333333333333333333333");
  EXPECT_TRUE(D("1.0") == D("1"));
  EXPECT_TRUE(D("1") < D("2"));
  EXPECT_FALSE(D("NaN") == D("NaN"));
  EXPECT_FALSE(D("NaN") < D("1"));
  EXPECT_EQ(D("-7.9").TruncateToInt64(), -7);
  EXPECT_TRUE(DecimalIsInfinite(D("-Infinity")));
}

}  // namespace
}  // namespace tigerdoc::bson
