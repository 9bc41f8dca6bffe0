#include "engine/bson/decimal.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

namespace tigerdoc::bson {
namespace {

Decimal128 Dec(const char* s) {
  bson_decimal128_t raw;
  EXPECT_TRUE(bson_decimal128_from_string(s, &raw)) << s;
  return DecimalFromBson(raw);
}

std::string Str(const Decimal128& d) {
  char buf[BSON_DECIMAL128_STRING];
  const bson_decimal128_t raw = DecimalToBson(d);
  bson_decimal128_to_string(&raw, buf);
  return buf;
}

TEST(Decimal128Test, ArithmeticKeepsDecimalDigits) {
  EXPECT_EQ(Str(Dec("0.1") + Dec("0.2")), "0.3");
  EXPECT_EQ(Str(Dec("1.10") - Dec("0.1")), "1.00");
  EXPECT_EQ(Str(Dec("2.5") * Decimal128(4)), "10.0");
  EXPECT_EQ(Str(Decimal128(1) / Decimal128(4)), "0.25");
  EXPECT_EQ(Str(Decimal128(1) / Decimal128(0)), "Infinity");
}

TEST(Decimal128Test, IntegersConvertExactlyBothWays) {
  const int64_t max = std::numeric_limits<int64_t>::max();
  const int64_t min = std::numeric_limits<int64_t>::min();
  EXPECT_EQ(Str(Decimal128(max)), "9223372036854775807");
  EXPECT_EQ(Str(Decimal128(min)), "-9223372036854775808");
  EXPECT_EQ(Decimal128(max).TruncateToInt64(), max);
  EXPECT_EQ(Decimal128(min).TruncateToInt64(), min);
  EXPECT_EQ(Dec("-2.9").TruncateToInt64(), -2);
  EXPECT_EQ(Str(Decimal128(max) + 1), "9223372036854775808");
}

TEST(Decimal128Test, ComparesNumericallyAcrossScales) {
  EXPECT_TRUE(Dec("1.0") == Decimal128(1));
  EXPECT_TRUE(Dec("0.99") < Decimal128(1));
  EXPECT_TRUE(Dec("-0") == Decimal128(0));
  EXPECT_TRUE(Dec("2") >= Dec("2.00"));
  EXPECT_TRUE(Dec("-Infinity") < Dec("-1E+6000"));
  EXPECT_EQ(Str(-Dec("1.5")), "-1.5");
}

TEST(Decimal128Test, NaNComparesUnorderedWithEverything) {
  const Decimal128 nan = Dec("NaN");
  EXPECT_TRUE(nan.IsNaN());
  EXPECT_FALSE(Decimal128(0).IsNaN());
  EXPECT_FALSE(nan == nan);
  EXPECT_TRUE(nan != nan);
  EXPECT_FALSE(nan < Decimal128(1));
  EXPECT_FALSE(nan >= Decimal128(1));
  EXPECT_FALSE(nan <= nan);
}

}  // namespace
}  // namespace tigerdoc::bson
