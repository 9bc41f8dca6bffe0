#include "engine/keystring/key_string.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "engine/bson/bson_doc.h"
#include "engine/bson/compare.h"
#include "engine/bson/shell_string.h"

namespace tigerdoc::keystring {
namespace {

using bson::BsonDoc;

int Sign(int v) { return v < 0 ? -1 : (v > 0 ? 1 : 0); }

int MemcmpSign(const std::string& a, const std::string& b) { return Sign(a.compare(b)); }

// Extended JSON for {v: <json>}.
BsonDoc Wrap(const std::string& json) { return BsonDoc::FromJson("{\"v\": " + json + "}"); }

std::string EncodeJson(const std::string& json, Direction dir = Direction::kAscending) {
  BsonDoc doc = Wrap(json);
  bson_iter_t it;
  EXPECT_TRUE(bson_iter_init_find(&it, doc.get(), "v"));
  KeyBuilder b;
  b.Append(&it, dir);
  return b.Release();
}

std::string Hex(const std::string& s) {
  static const char* kDigits = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 0xF]);
    out.push_back(' ');
  }
  return out;
}

// Groups of values in ascending BSON order; values within a group are equal.
const std::vector<std::vector<std::string>> kAscendingGroups = {
    {R"({"$minKey": 1})"},
    {R"({"$undefined": true})"},
    {"null"},
    {R"({"$numberDouble": "NaN"})", R"({"$numberDecimal": "NaN"})",
     R"({"$numberDecimal": "-NaN"})"},
    {R"({"$numberDouble": "-Infinity"})", R"({"$numberDecimal": "-Infinity"})"},
    {R"({"$numberDecimal": "-9.999999999999999999999999999999999E+6144"})"},
    {R"({"$numberDouble": "-1.7976931348623157E308"})"},
    {R"({"$numberDouble": "-9.223372036854777E18"})"},
    {R"({"$numberLong": "-9223372036854775808"})", R"({"$numberDouble": "-9.223372036854776E18"})",
     R"({"$numberDecimal": "-9223372036854775808"})"},
    {R"({"$numberLong": "-9223372036854775807"})"},
    {R"({"$numberDouble": "-10.0"})", R"({"$numberInt": "-10"})", R"({"$numberDecimal": "-1E1"})"},
    {R"({"$numberDouble": "-2.5"})"},
    {R"({"$numberInt": "-2"})"},
    {R"({"$numberDecimal": "-1.01"})"},
    {R"({"$numberInt": "-1"})", R"({"$numberDecimal": "-1.000"})"},
    {R"({"$numberDecimal": "-0.1"})"},
    {R"({"$numberDouble": "-4.9E-324"})"},
    {R"({"$numberDecimal": "-1E-6176"})"},
    {R"({"$numberInt": "0"})", R"({"$numberLong": "0"})", R"({"$numberDouble": "0.0"})",
     R"({"$numberDouble": "-0.0"})", R"({"$numberDecimal": "0"})",
     R"({"$numberDecimal": "-0E+10"})", R"({"$numberDecimal": "0E-6176"})"},
    {R"({"$numberDecimal": "1E-6176"})"},
    {R"({"$numberDouble": "4.9E-324"})"},
    {R"({"$numberDecimal": "0.1"})"},
    {R"({"$numberDouble": "0.1"})"},
    {R"({"$numberDecimal": "0.1000000000000000055511151231257828"})"},
    {R"({"$numberDouble": "0.5"})", R"({"$numberDecimal": "0.50"})"},
    {R"({"$numberInt": "1"})", R"({"$numberLong": "1"})", R"({"$numberDouble": "1.0"})",
     R"({"$numberDecimal": "1"})", R"({"$numberDecimal": "1.00"})",
     R"({"$numberDecimal": "0.1E1"})"},
    {R"({"$numberDecimal": "1.000000000000000000000000000000001"})"},
    {R"({"$numberDouble": "1.0000000000000002"})"},
    {R"({"$numberDouble": "1.5"})", R"({"$numberDecimal": "1.5"})"},
    {R"({"$numberInt": "2"})"},
    {R"({"$numberInt": "10"})", R"({"$numberDecimal": "1E+1"})"},
    {R"({"$numberInt": "2147483647"})"},
    {R"({"$numberLong": "9007199254740993"})"},
    {R"({"$numberLong": "9223372036854775807"})"},
    {R"({"$numberDouble": "9.223372036854776E18"})",
     R"({"$numberDecimal": "9223372036854775808"})"},
    {R"({"$numberDouble": "1E300"})"},
    {R"({"$numberDecimal": "9.999999999999999999999999999999999E+6144"})"},
    {R"({"$numberDouble": "Infinity"})", R"({"$numberDecimal": "Infinity"})"},
    {R"("")"},
    {R"("\u0000")"},
    {R"("\u0000\u0000")"},
    {R"("\u0000a")"},
    {R"("\u0001")"},
    {R"("A")"},
    {R"("a")", R"({"$symbol": "a"})"},
    {R"("a\u0000")"},
    {R"("a\u0000b")"},
    {R"("aa")"},
    {R"("b")"},
    {R"("\u00ff")"},
    {R"({})"},
    {R"({"a": null})"},  // the canonical type decides before the field name
    {R"({"": 1})"},
    {R"({"a": 1})", R"({"a": 1.0})"},
    {R"({"a": 1, "b": 1})"},
    {R"({"a": 2})"},
    {R"({"b": -5})"},
    {R"({"b": 1})"},
    {R"({"a": "x"})"},
    {R"({"a": {}})"},
    {R"({"a": {"b": [1]}})"},
    {R"({"a": {"b": [1, 2]}})"},
    {R"({"a": []})"},
    {R"([])"},
    {R"([null])"},
    {R"([1])", R"([1.0])"},
    {R"([1, null])"},
    {R"([1, 2])"},
    {R"([2])"},
    {R"(["a"])"},
    {R"([{}])"},
    {R"([[]])"},
    {R"({"$binary": {"base64": "", "subType": "05"}})"},
    {R"({"$binary": {"base64": "/w==", "subType": "00"}})"},
    {R"({"$binary": {"base64": "AA==", "subType": "01"}})"},
    {R"({"$binary": {"base64": "AAA=", "subType": "00"}})"},
    {R"({"$oid": "000000000000000000000000"})"},
    {R"({"$oid": "5f1d7a1b2c3d4e5f60718293"})"},
    {R"({"$oid": "ffffffffffffffffffffffff"})"},
    {"false"},
    {"true"},
    {R"({"$date": {"$numberLong": "-9223372036854775808"}})"},
    {R"({"$date": {"$numberLong": "-1"}})"},
    {R"({"$date": {"$numberLong": "0"}})"},
    {R"({"$date": {"$numberLong": "1600000000000"}})"},
    {R"({"$timestamp": {"t": 0, "i": 0}})"},
    {R"({"$timestamp": {"t": 1, "i": 4294967295}})"},
    {R"({"$timestamp": {"t": 4294967295, "i": 0}})"},
    {R"({"$regularExpression": {"pattern": "", "options": ""}})"},
    {R"({"$regularExpression": {"pattern": "a", "options": ""}})"},
    {R"({"$regularExpression": {"pattern": "a", "options": "i"}})"},
    {R"({"$regularExpression": {"pattern": "ab", "options": ""}})"},
    {R"({"$dbPointer": {"$ref": "z", "$id": {"$oid": "ffffffffffffffffffffffff"}}})"},
    {R"({"$dbPointer": {"$ref": "aa", "$id": {"$oid": "000000000000000000000000"}}})"},
    {R"({"$code": ""})"},
    {R"({"$code": "f"})"},
    {R"({"$code": "", "$scope": {"z": 1}})"},
    {R"({"$code": "f", "$scope": {}})"},
    {R"({"$code": "f", "$scope": {"a": 1}})"},
    {R"({"$maxKey": 1})"},
};

TEST(KeyStringTest, AscendingGroupsEncodeInOrderAndEqualValuesIdentically) {
  std::vector<std::string> previous;
  for (const auto& group : kAscendingGroups) {
    std::string first = EncodeJson(group.front());
    for (const std::string& json : group) {
      EXPECT_EQ(EncodeJson(json), first) << json << " vs " << group.front();
      // The table itself must agree with CompareValues.
      BsonDoc a = Wrap(json);
      BsonDoc b = Wrap(group.front());
      bson_iter_t ia, ib;
      ASSERT_TRUE(bson_iter_init_find(&ia, a.get(), "v"));
      ASSERT_TRUE(bson_iter_init_find(&ib, b.get(), "v"));
      EXPECT_EQ(bson::CompareValues(&ia, &ib), 0) << json;
    }
    if (!previous.empty()) {
      EXPECT_LT(previous.front(), first)
          << previous.back() << " should sort before " << group.front() << "\n  "
          << Hex(previous.front()) << "\n  " << Hex(first);
      // Descending reverses the order.
      EXPECT_GT(EncodeJson(previous.back(), Direction::kDescending),
                EncodeJson(group.front(), Direction::kDescending))
          << group.front();
    }
    previous = {first, group.front()};
  }
}

TEST(KeyStringTest, EveryPairOfTableValuesOrdersLikeCompareValues) {
  std::vector<std::string> all;
  for (const auto& group : kAscendingGroups) all.insert(all.end(), group.begin(), group.end());
  for (const std::string& x : all) {
    for (const std::string& y : all) {
      BsonDoc a = Wrap(x);
      BsonDoc b = Wrap(y);
      bson_iter_t ia, ib;
      ASSERT_TRUE(bson_iter_init_find(&ia, a.get(), "v"));
      ASSERT_TRUE(bson_iter_init_find(&ib, b.get(), "v"));
      ASSERT_EQ(MemcmpSign(EncodeJson(x), EncodeJson(y)), Sign(bson::CompareValues(&ia, &ib)))
          << x << " vs " << y;
    }
  }
}

TEST(KeyStringTest, NumberEncodingIsTheDocumentedFormat) {
  // Golden bytes: these are stored on disk.
  EXPECT_EQ(Hex(EncodeJson("1")), "1E 28 80 00 20 ");
  EXPECT_EQ(Hex(EncodeJson(R"({"$numberDouble": "1.5"})")), "1E 28 80 00 26 00 ");
  EXPECT_EQ(Hex(EncodeJson("-1")), "1E 18 7F FF DF ");
  EXPECT_EQ(Hex(EncodeJson("0")), "1E 20 ");
  EXPECT_EQ(Hex(EncodeJson(R"({"$numberDouble": "NaN"})")), "1E 08 ");
  EXPECT_EQ(Hex(EncodeJson(R"("a\u0000")")), "28 61 00 FF 00 00 ");
  EXPECT_EQ(Hex(EncodeJson(R"({"a": true})")), "32 5A 61 00 00 01 04 ");
  EXPECT_EQ(Hex(EncodeJson("[null]")), "3C 18 04 ");
  EXPECT_EQ(Hex(EncodeJson("1", Direction::kDescending)), "E1 D7 7F FF DF ");
}

// int32 and int64 take PutInteger's direct path (issue #18); decimal128
// and double still go through ExactNumber. Equal numbers encode
// identically whatever their type, so each integer's bytes must be those
// of the decimal128 with its digits, and of the double when it is exact:
// zero, one digit, trailing zeros, odd and even digit counts, every power
// of ten, the int32 and int64 limits (INT64_MIN's magnitude has no int64)
// and random values of every length, both signs.
TEST(KeyStringTest, IntegersEncodeLikeTheSameDecimalAndDouble) {
  std::vector<int64_t> values = {0, 1, 9, 10, 11, 99, 100, 101, 120, 1200, 123456789, 1000000007,
                                 INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN, INT64_MAX - 1,
                                 INT64_MIN + 1, (int64_t{1} << 53), (int64_t{1} << 53) + 1};
  for (int64_t p = 1; p <= INT64_MAX / 10; p *= 10) {
    values.push_back(p);
    values.push_back(p * 10 - 1);
    values.push_back(p * 7);
  }
  std::mt19937_64 rng(18);
  for (int i = 0; i < 2000; ++i) {
    const int64_t v = static_cast<int64_t>(rng());
    values.push_back(v >> (i % 63));
  }
  for (int64_t magnitude : std::vector<int64_t>(values)) {
    if (magnitude != INT64_MIN) values.push_back(-magnitude);
  }
  for (int64_t v : values) {
    SCOPED_TRACE(v);
    bson_value_t as_int64{};
    as_int64.value_type = BSON_TYPE_INT64;
    as_int64.value.v_int64 = v;
    const std::string encoded = Encode(&as_int64);
    bson_value_t as_decimal{};
    as_decimal.value_type = BSON_TYPE_DECIMAL128;
    ASSERT_TRUE(bson_decimal128_from_string(std::to_string(v).c_str(), &as_decimal.value.v_decimal128));
    EXPECT_EQ(Hex(encoded), Hex(Encode(&as_decimal)));
    if (v >= -(int64_t{1} << 53) && v <= (int64_t{1} << 53)) {
      bson_value_t as_double{};
      as_double.value_type = BSON_TYPE_DOUBLE;
      as_double.value.v_double = static_cast<double>(v);
      EXPECT_EQ(Hex(encoded), Hex(Encode(&as_double)));
    }
    if (v >= INT32_MIN && v <= INT32_MAX) {
      bson_value_t as_int32{};
      as_int32.value_type = BSON_TYPE_INT32;
      as_int32.value.v_int32 = static_cast<int32_t>(v);
      EXPECT_EQ(Hex(encoded), Hex(Encode(&as_int32)));
    }
  }
}

TEST(KeyStringTest, MissingMinKeyAndMaxKeyComponents) {
  KeyBuilder null_key;
  null_key.AppendNull();
  EXPECT_EQ(null_key.bytes(), EncodeJson("null"));
  bson_value_t missing{};
  missing.value_type = BSON_TYPE_EOD;
  EXPECT_EQ(Encode(&missing), EncodeJson("null"));

  KeyBuilder lo, hi;
  lo.AppendMinKey();
  hi.AppendMaxKey();
  EXPECT_EQ(lo.bytes(), EncodeJson(R"({"$minKey": 1})"));
  EXPECT_EQ(hi.bytes(), EncodeJson(R"({"$maxKey": 1})"));
  for (const auto& group : kAscendingGroups) {
    std::string e = EncodeJson(group.front());
    if (group.front().find("Key") != std::string::npos) continue;
    EXPECT_LT(lo.bytes(), e) << group.front();
    EXPECT_GT(hi.bytes(), e) << group.front();
  }
  // Descending MinKey is the largest descending component.
  KeyBuilder desc_min;
  desc_min.AppendMinKey(Direction::kDescending);
  EXPECT_GT(desc_min.bytes(), EncodeJson(R"({"$maxKey": 1})", Direction::kDescending));
}

TEST(KeyStringTest, ConcatenatedComponentsCompareComponentByComponent) {
  // (shard key, _id)-style keys: the first component decides even when its
  // encoding is shorter or is a string prefix of the other.
  auto key = [](const std::string& a, Direction da, const std::string& b, Direction db) {
    KeyBuilder k;
    k.AppendEncoded(EncodeJson(a, da));
    k.AppendEncoded(EncodeJson(b, db));
    return k.Release();
  };
  const auto asc = Direction::kAscending;
  const auto desc = Direction::kDescending;
  EXPECT_LT(key(R"("a")", asc, R"("zzz")", asc), key(R"("aa")", asc, R"("")", asc));
  EXPECT_LT(key(R"("a")", asc, "1", asc), key(R"("a")", asc, "2", asc));
  EXPECT_LT(key("1", asc, R"("z")", asc), key("1.5", asc, R"("a")", asc));
  EXPECT_LT(key("[1]", asc, "9", asc), key("[1, 0]", asc, "0", asc));
  EXPECT_LT(key(R"({"a": 1})", asc, "9", asc), key(R"({"a": 1, "b": 1})", asc, "0", asc));
  // Descending first component, ascending second.
  EXPECT_LT(key(R"("b")", desc, "9", asc), key(R"("a")", desc, "0", asc));
  EXPECT_LT(key(R"("aa")", desc, "9", asc), key(R"("a")", desc, "0", asc));
  EXPECT_LT(key("2", desc, "0", asc), key("1", desc, "0", asc));
  EXPECT_LT(key("1", desc, "0", asc), key("1", desc, "1", asc));
  EXPECT_LT(key("1.5", desc, "9", asc), key("1", desc, "0", asc));
  EXPECT_LT(key("-1", desc, "9", asc), key("-1.5", desc, "0", asc));
}

TEST(PrefixSuccessorTest, IsTheSmallestStringAboveEveryExtension) {
  EXPECT_EQ(PrefixSuccessor("abc"), "abd");
  EXPECT_EQ(PrefixSuccessor(std::string("a\xFF\xFF", 3)), "b");
  EXPECT_EQ(PrefixSuccessor(std::string("\x01\xFE\xFF", 3)), std::string("\x01\xFF", 2));
  EXPECT_EQ(PrefixSuccessor(std::string("\xFF\xFF", 2)), "");
  EXPECT_EQ(PrefixSuccessor(""), "");
  // Every key with the prefix sorts below the successor; the next
  // "sibling" prefix does not.
  std::string prefix = EncodeJson(R"("shard")");
  std::string succ = PrefixSuccessor(prefix);
  EXPECT_LT(prefix + EncodeJson(R"({"$maxKey": 1})"), succ);
  EXPECT_LT(prefix + std::string(8, '\xFF'), succ);
  EXPECT_GE(EncodeJson(R"("shard\u0000")"), succ);
  EXPECT_GE(EncodeJson(R"("sharda")"), succ);
}

// ---- Randomised property: memcmp order == CompareValues order -------------

class RandomValues {
 public:
  explicit RandomValues(uint64_t seed) : rng_(seed) {}

  // Appends a random value under `key`.
  void Append(bson_t* parent, const char* key, int depth) {
    switch (Pick(depth < 3 ? 22 : 20)) {
      case 0:
        BSON_APPEND_INT32(parent, key, static_cast<int32_t>(Pick(7)) - 3);
        break;
      case 1:
        BSON_APPEND_INT64(parent, key, PickInt64());
        break;
      case 2:
      case 3:
        BSON_APPEND_DOUBLE(parent, key, PickDouble());
        break;
      case 4: {
        bson_decimal128_t dec;
        const char* text = PickDecimalText();
        EXPECT_TRUE(bson_decimal128_from_string(text, &dec)) << text;
        BSON_APPEND_DECIMAL128(parent, key, &dec);
        break;
      }
      case 5:
      case 6: {
        std::string s = PickString();
        bson_append_utf8(parent, key, -1, s.data(), static_cast<int>(s.size()));
        break;
      }
      case 7: {
        std::string s = PickString();
        bson_append_symbol(parent, key, -1, s.data(), static_cast<int>(s.size()));
        break;
      }
      case 8: {
        uint8_t bytes[3] = {static_cast<uint8_t>(Pick(2) * 255), static_cast<uint8_t>(Pick(2)), 7};
        bson_append_binary(parent, key, -1, Pick(2) ? BSON_SUBTYPE_BINARY : BSON_SUBTYPE_USER,
                           bytes, static_cast<uint32_t>(Pick(4)));
        break;
      }
      case 9: {
        bson_oid_t oid;
        std::memset(oid.bytes, 0, sizeof(oid.bytes));
        oid.bytes[Pick(2) * 11] = static_cast<uint8_t>(Pick(3) * 127);
        BSON_APPEND_OID(parent, key, &oid);
        break;
      }
      case 10:
        BSON_APPEND_BOOL(parent, key, Pick(2) == 1);
        break;
      case 11: {
        static const int64_t kDates[] = {INT64_MIN, -1, 0, 1, 1600000000000, INT64_MAX};
        BSON_APPEND_DATE_TIME(parent, key, kDates[Pick(6)]);
        break;
      }
      case 12: {
        static const uint32_t kParts[] = {0, 1, 0x80000000u, 0xFFFFFFFFu};
        BSON_APPEND_TIMESTAMP(parent, key, kParts[Pick(4)], kParts[Pick(4)]);
        break;
      }
      case 13: {
        static const char* kPatterns[] = {"", "a", "ab", "b"};
        static const char* kFlags[] = {"", "i", "im", "m"};
        BSON_APPEND_REGEX(parent, key, kPatterns[Pick(4)], kFlags[Pick(4)]);
        break;
      }
      case 14: {
        static const char* kNs[] = {"a", "b", "ab"};
        bson_oid_t oid;
        std::memset(oid.bytes, static_cast<int>(Pick(2) * 255), sizeof(oid.bytes));
        bson_append_dbpointer(parent, key, -1, kNs[Pick(3)], &oid);
        break;
      }
      case 15:
        BSON_APPEND_CODE(parent, key, Pick(2) ? "f" : "g");
        break;
      case 16: {
        bson_t scope = BSON_INITIALIZER;
        if (Pick(2)) BSON_APPEND_INT32(&scope, Pick(2) ? "a" : "b", static_cast<int32_t>(Pick(2)));
        BSON_APPEND_CODE_WITH_SCOPE(parent, key, Pick(2) ? "f" : "g", &scope);
        bson_destroy(&scope);
        break;
      }
      case 17: {
        switch (Pick(4)) {
          case 0:
            BSON_APPEND_MINKEY(parent, key);
            break;
          case 1:
            BSON_APPEND_MAXKEY(parent, key);
            break;
          case 2:
            BSON_APPEND_UNDEFINED(parent, key);
            break;
          default:
            BSON_APPEND_NULL(parent, key);
        }
        break;
      }
      case 18:
      case 19:
        // Small common values so that nested containers often share
        // prefixes, including numbers whose digit strings are prefixes of
        // one another at the same exponent (1.2 / 1.25, 1 / 1.5).
        switch (Pick(4)) {
          case 0:
            BSON_APPEND_INT32(parent, key, static_cast<int32_t>(Pick(2)));
            break;
          case 1: {
            static const double kSmall[] = {0.5, 1.0, 1.25, 1.5, -1.25};
            BSON_APPEND_DOUBLE(parent, key, kSmall[Pick(5)]);
            break;
          }
          default: {
            static const char* kSmall[] = {"1.2", "1.25", "1.50", "12", "-1.2", "-1.25"};
            bson_decimal128_t dec;
            EXPECT_TRUE(bson_decimal128_from_string(kSmall[Pick(6)], &dec));
            BSON_APPEND_DECIMAL128(parent, key, &dec);
          }
        }
        break;
      case 20: {
        bson_t child;
        BSON_APPEND_DOCUMENT_BEGIN(parent, key, &child);
        static const char* kNames[] = {"", "a", "b", "ab", "a\xC3\xA9"};
        size_t n = Pick(4);
        for (size_t i = 0; i < n; ++i) Append(&child, kNames[Pick(5)], depth + 1);
        bson_append_document_end(parent, &child);
        break;
      }
      default: {
        bson_t child;
        BSON_APPEND_ARRAY_BEGIN(parent, key, &child);
        size_t n = Pick(4);
        for (size_t i = 0; i < n; ++i) {
          std::string index = std::to_string(i);
          Append(&child, index.c_str(), depth + 1);
        }
        bson_append_array_end(parent, &child);
        break;
      }
    }
  }

 private:
  size_t Pick(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng_); }

  int64_t PickInt64() {
    static const int64_t kInts[] = {
        INT64_MIN,          INT64_MIN + 1,      -9007199254740993LL, -1,       0, 1, 2,
        9007199254740992LL, 9007199254740993LL, INT64_MAX - 1,       INT64_MAX};
    if (Pick(3) == 0) return static_cast<int64_t>(rng_());
    return kInts[Pick(sizeof(kInts) / sizeof(kInts[0]))];
  }

  double PickDouble() {
    static const double kDoubles[] = {std::numeric_limits<double>::quiet_NaN(),
                                      -std::numeric_limits<double>::quiet_NaN(),
                                      -std::numeric_limits<double>::infinity(),
                                      std::numeric_limits<double>::infinity(),
                                      -0.0,
                                      0.0,
                                      0.1,
                                      -0.1,
                                      0.5,
                                      1.0,
                                      -1.0,
                                      1.5,
                                      2.0,
                                      9007199254740992.0,
                                      9223372036854775808.0,
                                      -9223372036854775808.0,
                                      9223372036854774784.0,
                                      1e300,
                                      -1e300,
                                      5e-324,
                                      -5e-324,
                                      std::numeric_limits<double>::max(),
                                      std::numeric_limits<double>::min()};
    switch (Pick(3)) {
      case 0: {
        // Any bit pattern: exercises subnormals, huge exponents, NaN payloads.
        uint64_t bits = rng_();
        double d;
        std::memcpy(&d, &bits, sizeof(d));
        return d;
      }
      case 1:
        return static_cast<double>(static_cast<int64_t>(rng_() >> Pick(64))) / (1 << Pick(20));
      default:
        return kDoubles[Pick(sizeof(kDoubles) / sizeof(kDoubles[0]))];
    }
  }

  const char* PickDecimalText() {
    static const char* kDecimals[] = {"NaN",
                                      "-Infinity",
                                      "Infinity",
                                      "0",
                                      "-0",
                                      "0E+20",
                                      "1",
                                      "1.0",
                                      "-1",
                                      "0.1",
                                      "-0.1",
                                      "0.5",
                                      "1.5",
                                      "2",
                                      "1E+1",
                                      "10",
                                      "1E-6176",
                                      "-1E-6176",
                                      "9.999999999999999999999999999999999E+6144",
                                      "9223372036854775807",
                                      "9223372036854775808",
                                      "-9223372036854775808",
                                      "9007199254740993",
                                      "0.1000000000000000055511151231257827",
                                      "0.1000000000000000055511151231257828",
                                      "1.000000000000000000000000000000001",
                                      "4.940656458412465441765687928682213E-324",
                                      "1E+300",
                                      "1.797693134862315708145274237317044E+308"};
    return kDecimals[Pick(sizeof(kDecimals) / sizeof(kDecimals[0]))];
  }

  std::string PickString() {
    static const char kAlphabet[] = {'\0', '\x01', 'a', 'b', '\x7F', '\xFF'};
    std::string s;
    size_t n = Pick(4);
    for (size_t i = 0; i < n; ++i) s.push_back(kAlphabet[Pick(sizeof(kAlphabet))]);
    return s;
  }

  std::mt19937_64 rng_;
};

TEST(KeyStringPropertyTest, MemcmpOrderEqualsCompareValuesOrderForRandomValues) {
  constexpr int kValues = 3000;
  constexpr int kPairs = 200000;
  RandomValues gen(20240607);
  bson_t values = BSON_INITIALIZER;
  for (int i = 0; i < kValues; ++i) gen.Append(&values, "v", 0);

  // bson_value_t copies point into `values`, which outlives them. (Not a
  // vector of bson_iter_t: that type asks for 128-byte alignment.)
  struct Item {
    bson_value_t value;
  };
  std::vector<Item> items;
  std::vector<std::string> asc;
  std::vector<std::string> desc;
  bson_iter_t it;
  ASSERT_TRUE(bson_iter_init(&it, &values));
  while (bson_iter_next(&it)) {
    items.push_back(Item{*bson_iter_value(&it)});
    asc.push_back(Encode(&items.back().value));
    KeyBuilder d;
    d.Append(&items.back().value, Direction::kDescending);
    desc.push_back(d.Release());
  }
  ASSERT_EQ(items.size(), static_cast<size_t>(kValues));

  auto show = [](const bson_value_t& v) {
    bson_t doc = BSON_INITIALIZER;
    bson_append_value(&doc, "v", 1, &v);
    std::string out = bson::ToShellString(&doc);
    bson_destroy(&doc);
    return out;
  };
  std::mt19937_64 pick(7);
  std::uniform_int_distribution<int> index(0, kValues - 1);
  int equal_pairs = 0;
  for (int n = 0; n < kPairs; ++n) {
    int i = index(pick);
    int j = index(pick);
    int expected = Sign(bson::CompareValues(&items[i].value, &items[j].value));
    if (expected == 0) ++equal_pairs;
    ASSERT_EQ(MemcmpSign(asc[i], asc[j]), expected)
        << show(items[i].value) << " vs " << show(items[j].value) << "\n  " << Hex(asc[i]) << "\n  "
        << Hex(asc[j]);
    ASSERT_EQ(MemcmpSign(desc[i], desc[j]), -expected);
    // Two-component keys keep component order whatever the first lengths.
    int k = index(pick);
    int expected2 =
        expected != 0 ? expected : Sign(bson::CompareValues(&items[k].value, &items[j].value));
    ASSERT_EQ(MemcmpSign(asc[i] + desc[k], asc[j] + desc[j]),
              expected != 0 ? expected : -expected2);
  }
  // The generator is meant to produce collisions across types; make sure it does.
  EXPECT_GT(equal_pairs, 100);
  bson_destroy(&values);
}

}  // namespace
}  // namespace tigerdoc::keystring
