// Text index keys (text_keys.h): one entry per distinct term with its
// score, prefix and suffix values around it, arrays refused in non-text
// fields, the term range a $text scan reads, and the catalog flag that
// tells term-keyed indexes from the earlier null-entry format.

#include "engine/index/text_keys.h"

#include <gtest/gtest.h>

#include "engine/bson/shell_string.h"
#include "engine/keystring/key_string.h"
#include "tests/engine/index/key_test_util.h"

namespace tigerdoc::index {
namespace {

using bson::BsonDoc;
using keytest::Spec;
using keytest::Rendered;

TEST(TextKeysTest, OneEntryPerDistinctTermWithItsScore) {
  IndexSpec spec = Spec(R"({"key": {"t": "text"}, "name": "t_text"})");
  ASSERT_TRUE(spec.fts_term_keys);
  auto keys = GenerateKeys(spec, BsonDoc::FromJson(R"({"t": "Hello hello world", "n": 1})").get());
  ASSERT_TRUE(keys.ok()) << keys.status().ToString();
  // hello: freq 1.5, coeff 0.5 * 2/3 + 0.5; world: 1 * (0.5 / 3 + 0.5).
  std::vector<std::string> values = Rendered(keys.value());
  ASSERT_EQ(values.size(), 2u);
  EXPECT_EQ(values[0], "{ _fts: \"hello\", _ftsx: 1.25 }");
  EXPECT_NE(values[1].find("_fts: \"world\""), std::string::npos) << values[1];
  // No indexable text: no entry at all.
  keys = GenerateKeys(spec, BsonDoc::FromJson(R"({"t": 5, "u": "words"})").get());
  ASSERT_TRUE(keys.ok());
  EXPECT_TRUE(keys.value().keys.empty());
  keys = GenerateKeys(spec, BsonDoc::FromJson(R"({"t": "the and of"})").get());  // stop words
  ASSERT_TRUE(keys.ok());
  EXPECT_TRUE(keys.value().keys.empty());
}

TEST(TextKeysTest, PrefixAndSuffixValuesSurroundTheTerm) {
  IndexSpec spec = Spec(R"({"key": {"a": 1, "t": "text", "b.c": -1}, "name": "x"})");
  EXPECT_EQ(TextPrefixFieldCount(spec), 1u);
  auto keys = GenerateKeys(spec, BsonDoc::FromJson(R"({"a": "k", "t": "tea", "b": {"c": 2}})").get());
  ASSERT_TRUE(keys.ok()) << keys.status().ToString();
  ASSERT_EQ(Rendered(keys.value()), std::vector<std::string>{"{ a: \"k\", _fts: \"tea\", _ftsx: 1.1, b.c: 2 }"});
  // The entry lies in the range a $text for "tea" with a: "k" reads.
  bson_value_t k;
  k.value_type = BSON_TYPE_UTF8;
  k.value.v_utf8.str = const_cast<char*>("k");
  k.value.v_utf8.len = 1;
  const std::string lower = TextTermKeyPrefix(spec, {&k}, "tea");
  const std::string upper = keystring::PrefixSuccessor(lower);
  const std::string& key = keys.value().keys[0].encoded;
  EXPECT_TRUE(key >= lower && key < upper);
  // ... and not in the range of a longer term sharing its letters.
  const std::string other = TextTermKeyPrefix(spec, {&k}, "teas");
  EXPECT_FALSE(key >= other && key < keystring::PrefixSuccessor(other));
  // A missing prefix field keys as null.
  keys = GenerateKeys(spec, BsonDoc::FromJson(R"({"t": "tea"})").get());
  ASSERT_TRUE(keys.ok());
  bson_value_t null_value;
  null_value.value_type = BSON_TYPE_NULL;
  const std::string null_prefix = TextTermKeyPrefix(spec, {&null_value}, "tea");
  EXPECT_EQ(keys.value().keys[0].encoded.compare(0, null_prefix.size(), null_prefix), 0);
}

TEST(TextKeysTest, NonTextFieldsRefuseArrays) {
  IndexSpec spec = Spec(R"({"key": {"a.b": 1, "t": "text"}, "name": "x"})");
  for (const char* doc : {R"({"a": {"b": [1]}, "t": "tea"})", R"({"a": [{"b": 1}], "t": "tea"})",
                          R"({"a": {"b": []}, "t": "tea"})"}) {
    auto keys = GenerateKeys(spec, BsonDoc::FromJson(doc).get());
    ASSERT_FALSE(keys.ok()) << doc;
    EXPECT_EQ(static_cast<int>(keys.status().code()), 201) << doc;
    EXPECT_NE(keys.status().reason().find("Field 'a.b' of text index contains an array in document: "),
              std::string::npos)
        << keys.status().reason();
  }
  // A positional component selects an element.
  IndexSpec positional = Spec(R"({"key": {"a.1": 1, "t": "text"}, "name": "y"})");
  auto keys = GenerateKeys(positional, BsonDoc::FromJson(R"({"a": [5, 6], "t": "tea"})").get());
  ASSERT_TRUE(keys.ok()) << keys.status().ToString();
  EXPECT_EQ(Rendered(keys.value()), std::vector<std::string>{"{ a.1: 6, _fts: \"tea\", _ftsx: 1.1 }"});
}

TEST(TextKeysTest, CatalogFlagTellsTheFormats) {
  IndexSpec spec = Spec(R"({"key": {"t": "text"}, "name": "t_text"})");
  spec.id = 3;
  auto round = IndexSpec::FromCatalogBson(spec.ToCatalogBson().get());
  ASSERT_TRUE(round.ok()) << round.status().ToString();
  EXPECT_TRUE(round.value().fts_term_keys);
  EXPECT_FALSE(bson::ToShellString(spec.ToListIndexesBson().get()).find("ftsTermKeys") !=
               std::string::npos);
  // A catalog entry written before term keys: one null entry per document.
  BsonDoc old_entry;
  bson_copy_to_excluding_noinit(spec.ToCatalogBson().get(), old_entry.mutable_get(), "ftsTermKeys",
                                nullptr);
  auto old = IndexSpec::FromCatalogBson(old_entry.get());
  ASSERT_TRUE(old.ok()) << old.status().ToString();
  EXPECT_FALSE(old.value().fts_term_keys);
  auto keys = GenerateKeys(old.value(), BsonDoc::FromJson(R"({"t": "hello world"})").get());
  ASSERT_TRUE(keys.ok());
  EXPECT_EQ(keys.value().keys.size(), 1u);
}

}  // namespace
}  // namespace tigerdoc::index
