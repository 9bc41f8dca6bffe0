// The ICU collators behind the `collation` option: spec parsing with
// MongoDB's codes and messages, the normalized spec, comparison at each
// strength and option, and collation keys (keystring) that order as the
// comparison does.

#include "engine/collation/collator_factory.h"

#include <gtest/gtest.h>

#include <string>

#include "engine/bson/bson_doc.h"
#include "engine/bson/compare.h"
#include "engine/bson/shell_string.h"
#include "engine/keystring/key_string.h"

namespace tigerdoc::collation {
namespace {

const bson::Collator* Make(const std::string& json) {
  bson::BsonDoc spec = bson::BsonDoc::FromJson(json);
  StatusWith<const bson::Collator*> c = CollatorFor(spec.get());
  EXPECT_TRUE(c.ok()) << json << ": " << c.status().reason();
  return c.ok() ? c.value() : nullptr;
}

Status Refusal(const std::string& json) {
  bson::BsonDoc spec = bson::BsonDoc::FromJson(json);
  StatusWith<const bson::Collator*> c = CollatorFor(spec.get());
  EXPECT_FALSE(c.ok()) << json;
  return c.ok() ? Status::OK() : c.status();
}

int Sign(int v) { return v < 0 ? -1 : (v > 0 ? 1 : 0); }

std::string Key(const bson::Collator* c, const std::string& s) {
  bson::BsonDoc doc;
  BSON_APPEND_UTF8(doc.mutable_get(), "v", s.c_str());
  bson_iter_t it;
  bson_iter_init_find(&it, doc.get(), "v");
  return keystring::Encode(&it, c);
}

// Compare() and the keystrings of the collation keys agree, both ways.
int Cmp(const bson::Collator* c, const std::string& a, const std::string& b) {
  const int direct = Sign(c->Compare(a, b));
  const std::string ka = Key(c, a), kb = Key(c, b);
  EXPECT_EQ(direct, Sign(ka.compare(kb))) << a << " vs " << b;
  EXPECT_EQ(-direct, Sign(c->Compare(b, a))) << a << " vs " << b;
  return direct;
}

TEST(CollatorTest, SimpleLocaleIsTheBinaryCollation) {
  bson::BsonDoc spec = bson::BsonDoc::FromJson(R"({"locale": "simple"})");
  StatusWith<const bson::Collator*> c = CollatorFor(spec.get());
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c.value(), nullptr);
}

TEST(CollatorTest, StrengthOneIgnoresCaseAndAccents) {
  const bson::Collator* c = Make(R"({"locale": "en", "strength": 1})");
  EXPECT_EQ(Cmp(c, "cafe", "Café"), 0);
  EXPECT_EQ(Cmp(c, "a", "A"), 0);
  EXPECT_EQ(Cmp(c, "a", "b"), -1);
}

TEST(CollatorTest, StrengthTwoIgnoresCaseNotAccents) {
  const bson::Collator* c = Make(R"({"locale": "en", "strength": 2})");
  EXPECT_EQ(Cmp(c, "cafe", "CAFE"), 0);
  EXPECT_NE(Cmp(c, "cafe", "café"), 0);
  EXPECT_EQ(Cmp(c, "apple", "Banana"), -1);  // binary order would put "B" first
}

TEST(CollatorTest, StrengthThreeDistinguishesCaseLowerFirst) {
  const bson::Collator* c = Make(R"({"locale": "en"})");
  EXPECT_EQ(Cmp(c, "a", "A"), -1);  // en: lowercase first at the tertiary level
  EXPECT_EQ(Cmp(c, "A", "b"), -1);
}

TEST(CollatorTest, CaseFirstUpperPutsCapitalsFirst) {
  const bson::Collator* c = Make(R"({"locale": "en", "caseFirst": "upper"})");
  EXPECT_EQ(Cmp(c, "A", "a"), -1);
  const bson::Collator* lower = Make(R"({"locale": "en", "caseFirst": "lower"})");
  EXPECT_EQ(Cmp(lower, "a", "A"), -1);
}

TEST(CollatorTest, NumericOrderingComparesDigitsAsNumbers) {
  const bson::Collator* c = Make(R"({"locale": "en", "numericOrdering": true})");
  EXPECT_EQ(Cmp(c, "10", "9"), 1);
  EXPECT_EQ(Cmp(c, "item2", "item10"), -1);
  const bson::Collator* plain = Make(R"({"locale": "en"})");
  EXPECT_EQ(Cmp(plain, "10", "9"), -1);
}

TEST(CollatorTest, AlternateShiftedIgnoresPunctuationAndSpaces) {
  const bson::Collator* c = Make(R"({"locale": "en", "alternate": "shifted", "strength": 3})");
  EXPECT_EQ(Cmp(c, "a-b", "ab"), 0);
  EXPECT_EQ(Cmp(c, "a b", "ab"), 0);
  const bson::Collator* space =
      Make(R"({"locale": "en", "alternate": "shifted", "maxVariable": "space", "strength": 3})");
  EXPECT_EQ(Cmp(space, "a b", "ab"), 0);
  EXPECT_NE(Cmp(space, "a-b", "ab"), 0);  // punctuation is not ignorable below "space"
  const bson::Collator* ignorable = Make(R"({"locale": "en"})");
  EXPECT_NE(Cmp(ignorable, "a-b", "ab"), 0);
}

TEST(CollatorTest, BackwardsComparesAccentsFromTheEnd) {
  const bson::Collator* c = Make(R"({"locale": "fr", "backwards": true})");
  // French: the last accent difference decides ("cote" < "côte" < "coté" < "côté").
  EXPECT_EQ(Cmp(c, "côte", "coté"), -1);
  const bson::Collator* forward = Make(R"({"locale": "fr"})");
  EXPECT_EQ(Cmp(forward, "côte", "coté"), 1);
}

TEST(CollatorTest, NormalizedSpecHasEveryFieldAndMongoDBsVersion) {
  const bson::Collator* c = Make(R"({"locale": "en", "strength": 2})");
  EXPECT_EQ(bson::ToShellString(c->spec()),
            "{ locale: \"en\", caseLevel: false, caseFirst: \"off\", strength: 2, "
            "numericOrdering: false, alternate: \"non-ignorable\", maxVariable: \"punct\", "
            "normalization: false, backwards: false, version: \"57.1\" }");
}

TEST(CollatorTest, EqualSpecsShareOneCollator) {
  const bson::Collator* a = Make(R"({"locale": "en", "strength": 2})");
  const bson::Collator* b = Make(R"({"strength": 2, "locale": "en"})");
  const bson::Collator* full = Make(
      R"({"locale": "en", "caseLevel": false, "caseFirst": "off", "strength": 2,
          "numericOrdering": false, "alternate": "non-ignorable", "maxVariable": "punct",
          "normalization": false, "backwards": false, "version": "57.1"})");
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, full);
  EXPECT_NE(a, Make(R"({"locale": "en", "strength": 3})"));
}

TEST(CollatorTest, CollatedCompareValuesReachesNestedStrings) {
  const bson::Collator* c = Make(R"({"locale": "en", "strength": 2})");
  bson::BsonDoc a = bson::BsonDoc::FromJson(R"({"v": {"x": ["ABC", 1]}})");
  bson::BsonDoc b = bson::BsonDoc::FromJson(R"({"v": {"x": ["abc", 1]}})");
  EXPECT_EQ(bson::CompareDocuments(a.get(), b.get(), c), 0);
  EXPECT_NE(bson::CompareDocuments(a.get(), b.get()), 0);
}

struct RefusalRow {
  std::string spec;
  int code;
  std::string message;
};

class CollatorRefusalTest : public ::testing::TestWithParam<RefusalRow> {};

TEST_P(CollatorRefusalTest, RefusesWithMongoDBsCodeAndMessage) {
  Status s = Refusal(GetParam().spec);
  EXPECT_EQ(s.code_number(), GetParam().code) << GetParam().spec;
  EXPECT_EQ(s.reason(), GetParam().message) << GetParam().spec;
}

INSTANTIATE_TEST_SUITE_P(
    Specs, CollatorRefusalTest,
    ::testing::Values(
        RefusalRow{R"({"strength": 2})", 40414,
                   "BSON field 'collation.locale' is missing but a required field"},
        RefusalRow{R"({})", 40414, "BSON field 'collation.locale' is missing but a required field"},
        RefusalRow{R"({"locale": "en", "foo": 1})", 40415,
                   "BSON field 'collation.foo' is an unknown field."},
        RefusalRow{R"({"locale": 1})", 14,
                   "BSON field 'collation.locale' is the wrong type 'int', expected type 'string'"},
        RefusalRow{R"({"locale": "en", "caseLevel": 1})", 14,
                   "BSON field 'collation.caseLevel' is the wrong type 'int', expected type 'bool'"},
        RefusalRow{R"({"locale": "en", "strength": 6})", 51024,
                   "BSON field 'strength' value must be <= 5, actual value '6'"},
        RefusalRow{R"({"locale": "en", "strength": 0})", 51024,
                   "BSON field 'strength' value must be >= 1, actual value '0'"},
        RefusalRow{R"({"locale": "en", "caseFirst": "middle"})", 2,
                   "Enumeration value 'middle' for field 'collation.caseFirst' is not a valid value."},
        RefusalRow{R"({"locale": "en", "alternate": "x"})", 2,
                   "Enumeration value 'x' for field 'collation.alternate' is not a valid value."},
        RefusalRow{R"({"locale": "en", "maxVariable": "x"})", 2,
                   "Enumeration value 'x' for field 'collation.maxVariable' is not a valid value."},
        RefusalRow{R"({"locale": "xx"})", 2, "Field 'locale' is invalid in: { locale: \"xx\" }"},
        RefusalRow{R"({"locale": "zz_nope"})", 2,
                   "Field 'locale' is invalid in: { locale: \"zz_nope\" }"},
        RefusalRow{R"({"locale": "en_us"})", 2,
                   "Field 'locale' is invalid in: { locale: \"en_us\" }. Did you mean 'en_US'?"},
        RefusalRow{R"({"locale": ""})", 2,
                   "Field 'locale' cannot be the empty string in: { locale: \"\" }"},
        RefusalRow{R"({"locale": "simple", "strength": 2})", 9,
                   "If locale=simple, no other fields should be present in: { locale: \"simple\", "
                   "strength: 2 }"},
        RefusalRow{R"({"locale": "en", "strength": 1, "backwards": true})", 2,
                   "'backwards' is invalid with 'strength' of 1 in: { locale: \"en\", caseLevel: "
                   "false, caseFirst: \"off\", strength: 1, numericOrdering: false, alternate: "
                   "\"non-ignorable\", maxVariable: \"punct\", normalization: false, backwards: "
                   "true, version: \"57.1\" }"},
        RefusalRow{R"({"locale": "en", "version": "1.0"})", 190,
                   "Requested collation version 1.0 but the only available collator version was "
                   "57.1. Requested collation spec: { locale: \"en\", version: \"1.0\" }"}));

TEST(CollatorTest, CaseFirstNeedsCaseLevelOrStrengthAboveTwo) {
  Status s = Refusal(R"({"locale": "en", "strength": 2, "caseFirst": "upper"})");
  EXPECT_EQ(s.code_number(), 2);
  EXPECT_NE(s.reason().find("'caseFirst' is invalid unless 'caseLevel' is on or 'strength' is "
                            "greater than 2 in: "),
            std::string::npos);
  Make(R"({"locale": "en", "strength": 2, "caseFirst": "upper", "caseLevel": true})");
}

}  // namespace
}  // namespace tigerdoc::collation
