// GenerateKeys: MongoDB's key rules for compound, dotted, multikey, sparse,
// partial and hashed indexes.

#include "engine/index/key_generator.h"

#include <gtest/gtest.h>

#include "engine/bson/shell_string.h"
#include "tests/engine/index/key_test_util.h"

namespace tigerdoc::index {
namespace {

using bson::BsonDoc;
using keytest::Keys;
using keytest::Spec;

using V = std::vector<std::string>;

TEST(KeyGeneratorTest, SingleAndCompoundFields) {
  IndexSpec spec = Spec(R"({"key": {"a": 1, "b.c": -1}})");
  EXPECT_EQ(Keys(spec, R"({"a": 1, "b": {"c": "x"}})"), V{"{ a: 1, b.c: \"x\" }"});
  // Missing fields are absent from the values (and encode as null).
  EXPECT_EQ(Keys(spec, R"({"z": 1})"), V{"{}"});
  EXPECT_EQ(Keys(spec, R"({"a": null})"), V{"{ a: null }"});
  // A path ending at a scalar is missing.
  EXPECT_EQ(Keys(spec, R"({"a": 1, "b": 5})"), V{"{ a: 1 }"});
}

TEST(KeyGeneratorTest, MissingAndNullEncodeAlike) {
  IndexSpec spec = Spec(R"({"key": {"a": 1}})");
  auto missing = GenerateKeys(spec, BsonDoc::FromJson(R"({})").get());
  auto null = GenerateKeys(spec, BsonDoc::FromJson(R"({"a": null})").get());
  ASSERT_TRUE(missing.ok() && null.ok());
  EXPECT_EQ(missing.value().keys[0].encoded, null.value().keys[0].encoded);
}

TEST(KeyGeneratorTest, MultikeyOneKeyPerElementWithoutDuplicates) {
  IndexSpec spec = Spec(R"({"key": {"a": 1}})");
  auto keys = GenerateKeys(spec, BsonDoc::FromJson(R"({"a": [3, 1, 3, 2.0, [7]]})").get());
  ASSERT_TRUE(keys.ok());
  EXPECT_TRUE(keys.value().multikey);
  EXPECT_EQ(keys.value().multikey_paths[0], std::set<size_t>{0});
  V rendered;
  for (const auto& k : keys.value().keys) rendered.push_back(bson::ToShellString(k.values.get()));
  // BSON order: numbers before arrays; nested arrays are indexed whole.
  EXPECT_EQ(rendered, (V{"{ a: 1 }", "{ a: 2.0 }", "{ a: 3 }", "{ a: [ 7 ] }"}));
}

TEST(KeyGeneratorTest, EmptyArrayIsUndefinedAndMultikey) {
  IndexSpec spec = Spec(R"({"key": {"a": 1}})");
  auto keys = GenerateKeys(spec, BsonDoc::FromJson(R"({"a": []})").get());
  ASSERT_TRUE(keys.ok());
  ASSERT_EQ(keys.value().keys.size(), 1u);
  EXPECT_EQ(bson::ToShellString(keys.value().keys[0].values.get()), "{ a: undefined }");
  EXPECT_TRUE(keys.value().multikey);
  // A path continuing through an empty array is missing (null).
  IndexSpec dotted = Spec(R"({"key": {"a.b": 1}})");
  EXPECT_EQ(Keys(dotted, R"({"a": []})"), V{"{}"});
}

TEST(KeyGeneratorTest, DottedPathsThroughArraysOfDocuments) {
  IndexSpec spec = Spec(R"({"key": {"a.b": 1}})");
  EXPECT_EQ(Keys(spec, R"({"a": [{"b": 1}, {"b": [2, 3]}, {"c": 1}, 4]})"),
            (V{"{}", "{ a.b: 1 }", "{ a.b: 2 }", "{ a.b: 3 }"}));
  auto keys = GenerateKeys(spec, BsonDoc::FromJson(R"({"a": [{"b": [2]}]})").get());
  ASSERT_TRUE(keys.ok());
  EXPECT_EQ(keys.value().multikey_paths[0], (std::set<size_t>{0, 1}));
}

TEST(KeyGeneratorTest, FieldsThroughTheSameArrayStayCorrelated) {
  IndexSpec spec = Spec(R"({"key": {"a.b": 1, "a.c": 1}})");
  EXPECT_EQ(Keys(spec, R"({"a": [{"b": 1, "c": 2}, {"b": 3, "c": 4}]})"),
            (V{"{ a.b: 1, a.c: 2 }", "{ a.b: 3, a.c: 4 }"}));
}

TEST(KeyGeneratorTest, OneArrayFieldCrossesWithScalars) {
  IndexSpec spec = Spec(R"({"key": {"a": 1, "b": 1}})");
  EXPECT_EQ(Keys(spec, R"({"a": 5, "b": [1, 2]})"), (V{"{ a: 5, b: 1 }", "{ a: 5, b: 2 }"}));
}

TEST(KeyGeneratorTest, ParallelArraysAreRefused) {
  IndexSpec spec = Spec(R"({"key": {"a": 1, "b": 1}})");
  auto keys = GenerateKeys(spec, BsonDoc::FromJson(R"({"a": [1, 2], "b": [3]})").get());
  ASSERT_FALSE(keys.ok());
  EXPECT_EQ(keys.status().code(), ErrorCode::kCannotIndexParallelArrays);
  EXPECT_EQ(keys.status().reason(), "cannot index parallel arrays [b] [a]");
  // Nested parallel arrays inside one element too.
  IndexSpec nested = Spec(R"({"key": {"a.b": 1, "a.c": 1}})");
  EXPECT_FALSE(GenerateKeys(nested, BsonDoc::FromJson(R"({"a": [{"b": [1], "c": [2]}]})").get()).ok());
}

TEST(KeyGeneratorTest, PositionalComponentSelectsAnElement) {
  IndexSpec spec = Spec(R"({"key": {"a.1": 1}})");
  auto keys = GenerateKeys(spec, BsonDoc::FromJson(R"({"a": [5, 6, 7]})").get());
  ASSERT_TRUE(keys.ok());
  ASSERT_EQ(keys.value().keys.size(), 1u);
  EXPECT_EQ(bson::ToShellString(keys.value().keys[0].values.get()), "{ a.1: 6 }");
  EXPECT_FALSE(keys.value().multikey);
}

// Issue #19: a position selecting an array with path left expands it (the
// matcher reads {"a.0.b"} over {a: [[{b: x}]]} as a[0]'s elements' b); a
// position at the end keeps the element whole; a position past the end
// names a field of the elements.
TEST(KeyGeneratorTest, PositionalComponentThroughNestedArrays) {
  EXPECT_EQ(Keys(Spec(R"({"key": {"a.0.b": 1}})"), R"({"a": [[{"b": "old"}, {"b": "new"}]]})"),
            (V{"{ a.0.b: \"new\" }", "{ a.0.b: \"old\" }"}));
  EXPECT_EQ(Keys(Spec(R"({"key": {"a.0": 1}})"), R"({"a": [[1, 2]]})"), (V{"{ a.0: [ 1, 2 ] }"}));
  EXPECT_EQ(Keys(Spec(R"({"key": {"a.0.0": 1}})"), R"({"a": [[5, 6]]})"), (V{"{ a.0.0: 5 }"}));
  EXPECT_EQ(Keys(Spec(R"({"key": {"a.5": 1}})"), R"({"a": [{"5": "x"}, {"5": "y"}]})"),
            (V{"{ a.5: \"x\" }", "{ a.5: \"y\" }"}));
}

TEST(KeyGeneratorTest, NumericFieldInsidePositionallyIndexedArrayIsAmbiguous) {
  IndexSpec spec = Spec(R"({"key": {"a.0": 1}})");
  auto keys = GenerateKeys(spec, BsonDoc::FromJson(R"({"a": [{"x": 1}, {"0": 2}]})").get());
  ASSERT_FALSE(keys.ok());
  EXPECT_EQ(static_cast<int>(keys.status().code()), 16746);
  EXPECT_TRUE(GenerateKeys(spec, BsonDoc::FromJson(R"({"a": {"0": 2}})").get()).ok());
}

TEST(KeyGeneratorTest, SparseSkipsOnlyWhenAllFieldsMissing) {
  IndexSpec spec = Spec(R"({"key": {"a": 1, "b": 1}, "sparse": true})");
  EXPECT_TRUE(Keys(spec, R"({"c": 1})").empty());
  EXPECT_EQ(Keys(spec, R"({"b": 1})"), V{"{ b: 1 }"});
  EXPECT_EQ(Keys(spec, R"({"a": null})"), V{"{ a: null }"});
  EXPECT_EQ(Keys(spec, R"({"a": []})"), V{"{ a: undefined }"});
}

TEST(KeyGeneratorTest, PartialFilterDecidesMembership) {
  IndexSpec spec = Spec(R"({"key": {"a": 1}, "partialFilterExpression": {"b": {"$gt": 5}}})");
  EXPECT_TRUE(Keys(spec, R"({"a": 1, "b": 5})").empty());
  EXPECT_EQ(Keys(spec, R"({"a": 1, "b": 6})"), V{"{ a: 1 }"});
}

TEST(KeyGeneratorTest, HashedFieldsHoldAStableHash) {
  IndexSpec spec = Spec(R"({"key": {"a": "hashed"}})");
  auto one = GenerateKeys(spec, BsonDoc::FromJson(R"({"a": 1})").get());
  auto one_double = GenerateKeys(spec, BsonDoc::FromJson(R"({"a": 1.0})").get());
  auto two = GenerateKeys(spec, BsonDoc::FromJson(R"({"a": 2})").get());
  ASSERT_TRUE(one.ok() && one_double.ok() && two.ok());
  EXPECT_EQ(one.value().keys[0].encoded, one_double.value().keys[0].encoded);
  EXPECT_NE(one.value().keys[0].encoded, two.value().keys[0].encoded);
  bson_iter_t it;
  ASSERT_TRUE(bson_iter_init_find(&it, one.value().keys[0].values.get(), "a"));
  ASSERT_TRUE(BSON_ITER_HOLDS_INT64(&it));
  bson_value_t v;
  v.value_type = BSON_TYPE_INT32;
  v.value.v_int32 = 1;
  EXPECT_EQ(bson_iter_int64(&it), HashIndexValue(&v));
  // A compatibility promise (stored on disk): this value must never change.
  // FNV-1a 64 + splitmix64 of keystring(1) = 1E 28 80 00 20.
  EXPECT_EQ(HashIndexValue(&v), INT64_C(1683976530283119813));
  auto array = GenerateKeys(spec, BsonDoc::FromJson(R"({"a": [1]})").get());
  ASSERT_FALSE(array.ok());
  EXPECT_EQ(array.status().code_number(), 16766);
}

TEST(KeyGeneratorTest, DescendingFieldsInvertOrder) {
  IndexSpec spec = Spec(R"({"key": {"a": -1}})");
  auto one = GenerateKeys(spec, BsonDoc::FromJson(R"({"a": 1})").get());
  auto two = GenerateKeys(spec, BsonDoc::FromJson(R"({"a": 2})").get());
  ASSERT_TRUE(one.ok() && two.ok());
  EXPECT_GT(one.value().keys[0].encoded, two.value().keys[0].encoded);
}

}  // namespace
}  // namespace tigerdoc::index
