#include "engine/bson/shell_string.h"

#include <gtest/gtest.h>

#include <string>

#include "engine/bson/bson_doc.h"

namespace tigerdoc::bson {
namespace {

struct Case {
  std::string json;      // extended JSON document
  std::string expected;  // MongoDB's BSONObj::toString() of it
};

std::ostream& operator<<(std::ostream& os, const Case& c) { return os << c.json; }

class ShellStringTest : public ::testing::TestWithParam<Case> {};

TEST_P(ShellStringTest, RendersLikeBSONObjToString) {
  BsonDoc doc = BsonDoc::FromJson(GetParam().json);
  EXPECT_EQ(ToShellString(doc.get()), GetParam().expected);
}

INSTANTIATE_TEST_SUITE_P(
    Documents, ShellStringTest,
    ::testing::Values(
        Case{"{}", "{}"}, Case{R"({"_id": 1})", "{ _id: 1 }"},
        Case{R"({"_id": "abc"})", R"({ _id: "abc" })"},
        Case{R"({"_id": {"$oid": "5f1d7a1b2c3d4e5f60718293"}})",
             "{ _id: ObjectId('5f1d7a1b2c3d4e5f60718293') }"},
        Case{R"({"a": 1.5, "b": [1, 2], "c": {"d": null}, "e": true,
                 "f": {"$date": {"$numberLong": "1600000000000"}}})",
             "{ a: 1.5, b: [ 1, 2 ], c: { d: null }, e: true, f: new Date(1600000000000) }"},
        Case{R"({"a": {}, "b": [], "c": [{}, []]})", "{ a: {}, b: [], c: [ {}, [] ] }"},
        Case{R"({"a": {"b": {"c": [[1]]}}})", "{ a: { b: { c: [ [ 1 ] ] } } }"}));

INSTANTIATE_TEST_SUITE_P(
    Numbers, ShellStringTest,
    ::testing::Values(Case{R"({"d": 1.0})", "{ d: 1.0 }"}, Case{R"({"d": -0.0})", "{ d: -0.0 }"},
                      Case{R"({"d": 0.1})", "{ d: 0.1 }"},
                      Case{R"({"d": 3.141592653589793})", "{ d: 3.141592653589793 }"},
                      Case{R"({"d": 123456789012.0})", "{ d: 123456789012.0 }"},
                      // %.16g switches to exponent form; MongoDB then still appends ".0".
                      Case{R"({"d": 1e20})", "{ d: 1e+20.0 }"},
                      Case{R"({"d": 1.5e-7})", "{ d: 1.5e-07 }"},
                      Case{R"({"d": {"$numberDouble": "Infinity"}})", "{ d: inf.0 }"},
                      Case{R"({"d": {"$numberDouble": "-Infinity"}})", "{ d: -inf.0 }"},
                      Case{R"({"i": {"$numberInt": "-7"}})", "{ i: -7 }"},
                      Case{R"({"l": {"$numberLong": "9223372036854775807"}})",
                           "{ l: 9223372036854775807 }"},
                      Case{R"({"l": {"$numberLong": "5"}})", "{ l: 5 }"},
                      Case{R"({"m": {"$numberDecimal": "1.50"}})", "{ m: 1.50 }"},
                      Case{R"({"m": {"$numberDecimal": "1E+3"}})", "{ m: 1E+3 }"},
                      Case{R"({"m": {"$numberDecimal": "-0"}})", "{ m: -0 }"},
                      Case{R"({"m": {"$numberDecimal": "NaN"}})", "{ m: NaN }"},
                      Case{R"({"m": {"$numberDecimal": "-Infinity"}})", "{ m: -Infinity }"}));

INSTANTIATE_TEST_SUITE_P(
    OtherTypes, ShellStringTest,
    ::testing::Values(
        Case{R"({"t": {"$timestamp": {"t": 1600000000, "i": 7}}})",
             "{ t: Timestamp(1600000000, 7) }"},
        Case{R"({"b": {"$binary": {"base64": "SGVsbG8=", "subType": "00"}}})",
             "{ b: BinData(0, 48656C6C6F) }"},
        Case{R"({"b": {"$binary": {"base64": "", "subType": "80"}}})", "{ b: BinData(128, ) }"},
        Case{R"({"u": {"$binary": {"base64": "ASNFZ4mrze/+3LqYdlQyEA==", "subType": "04"}}})",
             R"({ u: UUID("01234567-89ab-cdef-fedc-ba9876543210") })"},
        Case{R"({"r": {"$regularExpression": {"pattern": "^a.*b", "options": "im"}}})",
             "{ r: /^a.*b/im }"},
        Case{R"({"r": {"$regularExpression": {"pattern": "x", "options": ""}}})", "{ r: /x/ }"},
        Case{R"({"lo": {"$minKey": 1}, "hi": {"$maxKey": 1}})", "{ lo: MinKey, hi: MaxKey }"},
        Case{R"({"u": {"$undefined": true}, "f": false})", "{ u: undefined, f: false }"},
        Case{R"({"s": {"$symbol": "sym"}})", R"({ s: "sym" })"},
        Case{R"({"c": {"$code": "function() { return 1; }"}})", "{ c: function() { return 1; } }"},
        Case{R"j({"c": {"$code": "f()", "$scope": {"x": 1}}})j",
             "{ c: CodeWScope( f(), { x: 1 }) }"},
        Case{
            R"({"p": {"$dbPointer": {"$ref": "db.coll", "$id": {"$oid": "5f1d7a1b2c3d4e5f60718293"}}}})",
            "{ p: DBRef('db.coll',5f1d7a1b2c3d4e5f60718293) }"}));

TEST(ShellStringLimitsTest, LongStringsAreTruncatedAt150Bytes) {
  std::string s159(159, 'x');
  std::string s160(160, 'y');
  BsonDoc fits = BsonDoc::FromJson("{\"s\": \"" + s159 + "\"}");
  BsonDoc cut = BsonDoc::FromJson("{\"s\": \"" + s160 + "\"}");
  EXPECT_EQ(ToShellString(fits.get()), "{ s: \"" + s159 + "\" }");
  EXPECT_EQ(ToShellString(cut.get()), "{ s: \"" + std::string(150, 'y') + "...\" }");
}

TEST(ShellStringLimitsTest, LongBinDataIsTruncatedAt70Bytes) {
  bson_t doc = BSON_INITIALIZER;
  uint8_t bytes[81] = {0};
  bytes[0] = 0xAB;
  bson_append_binary(&doc, "b", -1, BSON_SUBTYPE_BINARY, bytes, sizeof(bytes));
  std::string expected = "{ b: BinData(0, AB" + std::string(69 * 2, '0') + "...) }";
  EXPECT_EQ(ToShellString(&doc), expected);
  bson_destroy(&doc);
}

TEST(ShellStringLimitsTest, NestingBeyond100LevelsPrintsEllipsis) {
  // {a: {a: ... {a: 1} ...}} with 102 documents; built inside out because
  // the JSON parser refuses this depth.
  bson_t* inner = bson_new();
  BSON_APPEND_INT32(inner, "a", 1);
  for (int i = 0; i < 101; ++i) {
    bson_t* outer = bson_new();
    BSON_APPEND_DOCUMENT(outer, "a", inner);
    bson_destroy(inner);
    inner = outer;
  }
  std::string out = ToShellString(inner);
  bson_destroy(inner);
  // Elements at nesting levels 0..100 print; the one at level 101 is "...".
  std::string expected;
  for (int i = 0; i <= 100; ++i) expected += "{ a: ";
  expected += "{ ... }";
  for (int i = 0; i <= 100; ++i) expected += " }";
  EXPECT_EQ(out, expected);
}

TEST(ShellStringValueTest, RendersOneValueWithoutItsName) {
  BsonDoc doc = BsonDoc::FromJson(R"({"k": {"x": [1, "two"]}, "n": 2.0})");
  bson_iter_t it;
  ASSERT_TRUE(bson_iter_init_find(&it, doc.get(), "k"));
  EXPECT_EQ(ToShellString(&it), R"({ x: [ 1, "two" ] })");
  ASSERT_TRUE(bson_iter_init_find(&it, doc.get(), "n"));
  EXPECT_EQ(ToShellString(&it), "2.0");
}

}  // namespace
}  // namespace tigerdoc::bson
