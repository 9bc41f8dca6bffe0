// DuplicateKeyError, the E11000 status of a unique violation, against the
// shape of mongod 7 (buildDupKeyErrorStatus, DuplicateKeyErrorInfo::
// serialize): keyPattern, keyValue, then hexEncoded and collation only when
// they apply; a collated index reports collation keys, top-level string
// components hex encoded ("0x..." in errmsg, bare in keyValue), nested ones
// raw, other types unchanged. Each expected extra document is built field
// by field, so its bytes pin the field order and every value.

#include "engine/write/duplicate_key_error.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "engine/bson/hex.h"
#include "engine/collation/collator_factory.h"

namespace tigerdoc::engine {
namespace {

using bson::BsonDoc;

const bson::Collator* Collator(const std::string& spec_json) {
  StatusWith<const bson::Collator*> collator = collation::CollatorFor(BsonDoc::FromJson(spec_json).get());
  EXPECT_TRUE(collator.ok()) << collator.status().ToString();
  return collator.ok() ? collator.value() : nullptr;
}

std::string SortKey(const bson::Collator* collator, const std::string& s) {
  std::string key;
  collator->AppendSortKey(s, &key);
  return key;
}

std::string Hex(const std::string& bytes) {
  std::string hex;
  bson::AppendLowerHex(bytes, &hex);
  return hex;
}

void AppendString(bson_t* doc, const char* key, const std::string& value) {
  bson_append_utf8(doc, key, -1, value.data(), static_cast<int>(value.size()));
}

void AppendHexEncoded(bson_t* doc, std::initializer_list<bool> flags) {
  bson_t array;
  BSON_APPEND_ARRAY_BEGIN(doc, "hexEncoded", &array);
  int i = 0;
  for (bool flag : flags) {
    const std::string index = std::to_string(i++);
    BSON_APPEND_BOOL(&array, index.c_str(), flag);
  }
  bson_append_array_end(doc, &array);
}

// The extra fields of `status` as a document.
std::string ExtraOf(const Status& status) { return status.extra_bson(); }

constexpr const char* kNs = "db.c";
constexpr const char* kStrength2 = R"({"locale": "en", "strength": 2})";
constexpr const char* kStrength1 = R"({"locale": "en", "strength": 1})";

TEST(DuplicateKeyErrorTest, SimpleIndexReportsTheValuesAsStored) {
  BsonDoc pattern = BsonDoc::FromJson(R"({"u": 1, "s": -1})");
  BsonDoc value = BsonDoc::FromJson(R"({"u": 1, "s": "Apple"})");
  Status status = DuplicateKeyError(kNs, "u_s", pattern.get(), value.get());
  EXPECT_EQ(status.code(), ErrorCode::kDuplicateKey);
  EXPECT_EQ(status.reason(),
            "E11000 duplicate key error collection: db.c index: u_s dup key: { u: 1, s: \"Apple\" }");
  BsonDoc expected;
  BSON_APPEND_DOCUMENT(expected.mutable_get(), "keyPattern", pattern.get());
  BSON_APPEND_DOCUMENT(expected.mutable_get(), "keyValue", value.get());
  EXPECT_EQ(ExtraOf(status), expected.bytes());
}

TEST(DuplicateKeyErrorTest, SimpleIndexHexEncodesOnlyInvalidUtf8Strings) {
  BsonDoc pattern = BsonDoc::FromJson(R"({"a": 1, "b": 1})");
  BsonDoc value;
  AppendString(value.mutable_get(), "a", std::string("ok\0nul", 6));  // NUL is valid UTF-8
  AppendString(value.mutable_get(), "b", "x\xff\xfe");
  Status status = DuplicateKeyError(kNs, "ab", pattern.get(), value.get());
  EXPECT_EQ(status.reason(), "E11000 duplicate key error collection: db.c index: ab dup key: { a: \"ok" +
                                std::string("\0", 1) + "nul\", b: \"0x78fffe\" }");
  BsonDoc expected;
  BSON_APPEND_DOCUMENT(expected.mutable_get(), "keyPattern", pattern.get());
  BsonDoc key_value;
  AppendString(key_value.mutable_get(), "a", std::string("ok\0nul", 6));
  AppendString(key_value.mutable_get(), "b", "78fffe");
  BSON_APPEND_DOCUMENT(expected.mutable_get(), "keyValue", key_value.get());
  AppendHexEncoded(expected.mutable_get(), {false, true});
  EXPECT_EQ(ExtraOf(status), expected.bytes());
}

// Compound key: the string component hex encoded, the number unchanged,
// the subdocument's and array's strings raw collation keys.
TEST(DuplicateKeyErrorTest, CollatedIndexReportsCollationKeys) {
  const bson::Collator* collator = Collator(kStrength2);
  ASSERT_NE(collator, nullptr);
  BsonDoc pattern = BsonDoc::FromJson(R"({"name": 1, "n": 1, "d": 1})");
  BsonDoc value = BsonDoc::FromJson(R"({"name": "Apple", "n": 5, "d": {"s": "X", "arr": ["Y", 1]}})");
  Status status = DuplicateKeyError(kNs, "name_n_d", pattern.get(), value.get(), collator);
  EXPECT_EQ(status.code(), ErrorCode::kDuplicateKey);

  const std::string name_key = SortKey(collator, "Apple");
  ASSERT_FALSE(name_key.empty());
  EXPECT_NE(name_key, "Apple");
  BsonDoc expected_value;
  AppendString(expected_value.mutable_get(), "name", Hex(name_key));
  BSON_APPEND_INT32(expected_value.mutable_get(), "n", 5);
  bson_t d, arr;
  BSON_APPEND_DOCUMENT_BEGIN(expected_value.mutable_get(), "d", &d);
  AppendString(&d, "s", SortKey(collator, "X"));
  BSON_APPEND_ARRAY_BEGIN(&d, "arr", &arr);
  AppendString(&arr, "0", SortKey(collator, "Y"));
  BSON_APPEND_INT32(&arr, "1", 1);
  bson_append_array_end(&d, &arr);
  bson_append_document_end(expected_value.mutable_get(), &d);
  BsonDoc expected;
  BSON_APPEND_DOCUMENT(expected.mutable_get(), "keyPattern", pattern.get());
  BSON_APPEND_DOCUMENT(expected.mutable_get(), "keyValue", expected_value.get());
  AppendHexEncoded(expected.mutable_get(), {true, false, false});
  BSON_APPEND_DOCUMENT(expected.mutable_get(), "collation", collator->spec());
  EXPECT_EQ(ExtraOf(status), expected.bytes());

  EXPECT_EQ(status.reason(),
            "E11000 duplicate key error collection: db.c index: name_n_d collation: { locale: \"en\", "
            "caseLevel: false, caseFirst: \"off\", strength: 2, numericOrdering: false, alternate: "
            "\"non-ignorable\", maxVariable: \"punct\", normalization: false, backwards: false, version: "
            "\"57.1\" } dup key: { name: \"0x" + Hex(name_key) + "\", n: 5, d: { s: \"" +
                SortKey(collator, "X") + "\", arr: [ \"" + SortKey(collator, "Y") + "\", 1 ] } }");
}

// The reported key is the collation key, so every spelling equal under the
// collation reports the same bytes; strength 1 also ignores accents.
TEST(DuplicateKeyErrorTest, EqualSpellingsReportOneKeyPerStrength) {
  BsonDoc pattern = BsonDoc::FromJson(R"({"s": 1})");
  auto key_value_of = [&](const bson::Collator* collator, const char* json) {
    Status status = DuplicateKeyError(kNs, "s_1", pattern.get(), BsonDoc::FromJson(json).get(), collator);
    bson_t extra;
    EXPECT_TRUE(bson_init_static(&extra, reinterpret_cast<const uint8_t*>(status.extra_bson().data()),
                                 status.extra_bson().size()));
    bson_iter_t it;
    EXPECT_TRUE(bson_iter_init(&it, &extra) && bson_iter_find_descendant(&it, "keyValue.s", &it));
    return std::string(bson_iter_utf8(&it, nullptr));
  };
  const bson::Collator* strength2 = Collator(kStrength2);
  const bson::Collator* strength1 = Collator(kStrength1);
  ASSERT_NE(strength2, nullptr);
  ASSERT_NE(strength1, nullptr);
  EXPECT_EQ(key_value_of(strength2, R"({"s": "apple"})"), key_value_of(strength2, R"({"s": "APPLE"})"));
  EXPECT_NE(key_value_of(strength2, R"({"s": "apple"})"), key_value_of(strength2, R"({"s": "àpple"})"));
  EXPECT_EQ(key_value_of(strength1, R"({"s": "apple"})"), key_value_of(strength1, R"({"s": "àPPLE"})"));
  EXPECT_EQ(key_value_of(strength1, R"({"s": "apple"})"), Hex(SortKey(strength1, "apple")));
}

// Without a string component nothing is hex encoded, so no hexEncoded;
// the collation is still reported.
TEST(DuplicateKeyErrorTest, CollatedIndexWithoutStringsHasNoHexEncoded) {
  const bson::Collator* collator = Collator(kStrength2);
  ASSERT_NE(collator, nullptr);
  BsonDoc pattern = BsonDoc::FromJson(R"({"n": 1, "m": 1})");
  BsonDoc value = BsonDoc::FromJson(R"({"n": 1.5, "m": null})");
  Status status = DuplicateKeyError(kNs, "n_m", pattern.get(), value.get(), collator);
  BsonDoc expected;
  BSON_APPEND_DOCUMENT(expected.mutable_get(), "keyPattern", pattern.get());
  BSON_APPEND_DOCUMENT(expected.mutable_get(), "keyValue", value.get());
  BSON_APPEND_DOCUMENT(expected.mutable_get(), "collation", collator->spec());
  EXPECT_EQ(ExtraOf(status), expected.bytes());
  EXPECT_NE(status.reason().find("\" } dup key: { n: 1.5, m: null }"), std::string::npos) << status.reason();
}

// errmsg truncates a string of 160 bytes or more to its first 150 bytes
// (BSONElement::toString), the "0x" included; keyValue keeps all of it.
TEST(DuplicateKeyErrorTest, LongCollationKeysAreTruncatedOnlyInErrmsg) {
  const bson::Collator* collator = Collator(kStrength2);
  ASSERT_NE(collator, nullptr);
  BsonDoc pattern = BsonDoc::FromJson(R"({"s": 1})");
  auto check = [&](const std::string& s) {
    BsonDoc value;
    AppendString(value.mutable_get(), "s", s);
    Status status = DuplicateKeyError(kNs, "s_1", pattern.get(), value.get(), collator);
    const std::string shown = "0x" + Hex(SortKey(collator, s));
    const std::string tail = shown.size() >= 160 ? shown.substr(0, 150) + "...\" }" : shown + "\" }";
    const std::string reason = status.reason();
    EXPECT_EQ(reason.substr(reason.find(" dup key: ")), " dup key: { s: \"" + tail) << shown.size();
    return shown.size();
  };
  // Just below, at and above the 160-byte limit of the shown string (hex
  // is even, so 158 is just below), and well above it.
  std::set<size_t> seen;
  for (size_t n = 1; n <= 100; ++n) seen.insert(check(std::string(n, 'a')));
  EXPECT_TRUE(seen.count(158) && seen.count(160) && seen.count(162));
  EXPECT_GT(check(std::string(500, 'q')), 1000u);
}

}  // namespace
}  // namespace tigerdoc::engine
