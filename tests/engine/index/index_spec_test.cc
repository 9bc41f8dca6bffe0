// ParseIndexSpec, DefaultIndexName, catalog round trips and CheckNewIndex.

#include "engine/index/index_spec.h"

#include <gtest/gtest.h>

#include "engine/bson/shell_string.h"

namespace tigerdoc::index {
namespace {

using bson::BsonDoc;

IndexSpec Parse(std::string_view json) {
  auto spec = ParseIndexSpec(BsonDoc::FromJson(json).get());
  EXPECT_TRUE(spec.ok()) << json << ": " << spec.status().ToString();
  return spec.ok() ? std::move(spec).value() : IndexSpec();
}

Status ParseError(std::string_view json) {
  auto spec = ParseIndexSpec(BsonDoc::FromJson(json).get());
  EXPECT_FALSE(spec.ok()) << json;
  return spec.ok() ? Status::OK() : spec.status();
}

TEST(IndexSpecTest, ParsesFieldsDirectionsAndOptions) {
  IndexSpec spec = Parse(R"({"key": {"a": 1, "b.c": -1}, "name": "ab", "unique": true,
                             "sparse": 1, "hidden": true})");
  EXPECT_EQ(spec.name, "ab");
  ASSERT_EQ(spec.fields.size(), 2u);
  EXPECT_EQ(spec.fields[0].path.dotted(), "a");
  EXPECT_EQ(spec.fields[0].dir, keystring::Direction::kAscending);
  EXPECT_EQ(spec.fields[1].path.dotted(), "b.c");
  EXPECT_EQ(spec.fields[1].dir, keystring::Direction::kDescending);
  EXPECT_TRUE(spec.unique);
  EXPECT_TRUE(spec.sparse);
  EXPECT_TRUE(spec.hidden);
  EXPECT_FALSE(spec.hashed());
  EXPECT_EQ(spec.multikey_paths.size(), 2u);
}

// $indexStats: a clone is the same index (a snapshot copy), so it shares
// the access counter; a freshly parsed or loaded spec starts its own.
TEST(IndexSpecTest, CloneSharesTheAccessCounter) {
  IndexSpec spec = Parse(R"({"key": {"a": 1}, "name": "a_1"})");
  ASSERT_NE(spec.usage, nullptr);
  spec.usage->Record();
  IndexSpec copy = spec.Clone();
  copy.usage->Record();
  EXPECT_EQ(spec.usage->ops(), 2);
  EXPECT_EQ(copy.usage.get(), spec.usage.get());
  EXPECT_LE(spec.usage->since(), std::chrono::system_clock::now());

  auto loaded = IndexSpec::FromCatalogBson(spec.ToCatalogBson().get());
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ(loaded.value().usage->ops(), 0);
  EXPECT_NE(Parse(R"({"key": {"a": 1}, "name": "a_1"})").usage.get(), spec.usage.get());
}

TEST(IndexSpecTest, DefaultNameJoinsFieldsAndValues) {
  EXPECT_EQ(Parse(R"({"key": {"a": 1, "b": -1}})").name, "a_1_b_-1");
  EXPECT_EQ(Parse(R"({"key": {"a.b": 1.0}})").name, "a.b_1");
  EXPECT_EQ(Parse(R"({"key": {"x": "hashed"}})").name, "x_hashed");
  EXPECT_EQ(DefaultIndexName(BsonDoc::FromJson(R"({"a": 1.5})").get()), "a_1.5");
}

TEST(IndexSpecTest, HashedAndTtlAndPartial) {
  IndexSpec hashed = Parse(R"({"key": {"a": "hashed", "b": 1}, "name": "h"})");
  EXPECT_TRUE(hashed.hashed());
  EXPECT_TRUE(hashed.fields[0].hashed);
  IndexSpec ttl = Parse(R"({"key": {"t": 1}, "name": "t", "expireAfterSeconds": 30})");
  ASSERT_TRUE(ttl.expire_after_seconds.has_value());
  EXPECT_EQ(*ttl.expire_after_seconds, 30);
  EXPECT_TRUE(ttl.IsTtl());
  IndexSpec partial =
      Parse(R"({"key": {"a": 1}, "name": "p", "partialFilterExpression": {"b": {"$gt": 5}}})");
  ASSERT_TRUE(partial.partial_matcher);
  EXPECT_TRUE(partial.partial_matcher->Matches(BsonDoc::FromJson(R"({"b": 6})").get()));
  EXPECT_FALSE(partial.partial_matcher->Matches(BsonDoc::FromJson(R"({"b": 5})").get()));
}

TEST(IndexSpecTest, KeyPatternErrorsUseMongoCodesAndMessages) {
  Status zero = ParseError(R"({"key": {"a": 0}, "name": "a_0"})");
  EXPECT_EQ(zero.code(), ErrorCode::kCannotCreateIndex);
  EXPECT_EQ(zero.reason(),
            "Error in specification { key: { a: 0 }, name: \"a_0\" } :: caused by :: Values in "
            "the index key pattern cannot be 0.");
  Status empty = ParseError(R"({"key": {}, "name": "x"})");
  EXPECT_EQ(empty.code(), ErrorCode::kCannotCreateIndex);
  EXPECT_NE(empty.reason().find("Index keys cannot be empty."), std::string::npos);
  Status boolean = ParseError(R"({"key": {"a": true}, "name": "x"})");
  EXPECT_NE(boolean.reason().find("Values in v:2 index key pattern cannot be of type bool. Only "
                                  "numbers > 0, numbers < 0, and strings are allowed."),
            std::string::npos);
  EXPECT_NE(ParseError(R"({"key": {"a": "nope"}, "name": "x"})").reason().find(
                "Unknown index plugin 'nope'"),
            std::string::npos);
  EXPECT_NE(ParseError(R"({"key": {"$a": 1}, "name": "x"})").reason().find(
                "field name starts with '$'"),
            std::string::npos);
  EXPECT_NE(ParseError(R"({"key": {"a..b": 1}, "name": "x"})").reason().find(
                "Index keys cannot contain an empty field."),
            std::string::npos);
  EXPECT_EQ(ParseError(R"({"key": {"a": "hashed", "b": "hashed"}, "name": "x"})").code_number(),
            31303);
  EXPECT_EQ(ParseError(R"({"key": {"a": "hashed"}, "name": "x", "unique": true})").code_number(),
            16764);
  EXPECT_EQ(ParseError(R"({"key": 5, "name": "x"})").code(), ErrorCode::kTypeMismatch);
  EXPECT_EQ(ParseError(R"({"name": "x"})").code(), ErrorCode::kFailedToParse);
  EXPECT_EQ(ParseError(R"({"key": {"a": 1}, "name": 5})").code(), ErrorCode::kTypeMismatch);
  EXPECT_EQ(ParseError(R"({"key": {"a": 1}, "name": "*"})").code(), ErrorCode::kBadValue);
}

TEST(IndexSpecTest, UnsupportedIndexTypesAreCannotCreateIndex) {
  for (const char* json : {R"({"key": {"a": "2d"}, "name": "x"})",
                           R"({"key": {"a": "2dsphere"}, "name": "x"})"}) {
    Status status = ParseError(json);
    EXPECT_EQ(status.code(), ErrorCode::kCannotCreateIndex) << json << status.ToString();
    EXPECT_NE(status.reason().find("does not support"), std::string::npos) << status.reason();
  }
}

TEST(IndexSpecTest, TextIndexesTakeMongoDBsStoredForm) {
  BsonDoc doc = BsonDoc::FromJson(R"({"key": {"a": "text", "b": "text"}, "name": "t",
                                       "weights": {"b": 3}, "default_language": "french"})");
  StatusWith<IndexSpec> spec = ParseIndexSpec(doc.get());
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  ASSERT_NE(spec.value().text, nullptr);
  EXPECT_FALSE(spec.value().hashed());
  EXPECT_EQ(spec.value().ToListIndexesBson().ToJson(),
            BsonDoc::FromJson(R"({"v": 2, "key": {"_fts": "text", "_ftsx": 1}, "name": "t",
                "weights": {"a": 1, "b": 3}, "default_language": "french",
                "language_override": "language", "textIndexVersion": 3})").ToJson());
  // The catalog form reads back as the same index.
  StatusWith<IndexSpec> back = IndexSpec::FromCatalogBson(spec.value().ToCatalogBson().get());
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(back.value().Identical(spec.value()));
  ASSERT_NE(back.value().text, nullptr);
  EXPECT_STREQ(back.value().text->default_language().name, "french");
}

TEST(IndexSpecTest, OneTextIndexPerCollection) {
  IndexSet set;
  BsonDoc first = BsonDoc::FromJson(R"({"key": {"a": "text"}, "name": "t"})");
  set.specs.push_back(std::make_shared<const IndexSpec>(ParseIndexSpec(first.get()).value()));
  BsonDoc other = BsonDoc::FromJson(R"({"key": {"b": "text"}, "name": "u"})");
  StatusWith<bool> refused = CheckNewIndex(ParseIndexSpec(other.get()).value(), set);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), ErrorCode::kCannotCreateIndex);
  EXPECT_EQ(refused.status().reason(),
            "only one text index per collection allowed, found existing text index \"t\"");
  StatusWith<bool> again = CheckNewIndex(ParseIndexSpec(first.get()).value(), set);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again.value());  // identical: a no-op
}

TEST(IndexSpecTest, OptionErrors) {
  Status unknown = ParseError(R"({"key": {"a": 1}, "name": "x", "bogus": 1})");
  EXPECT_EQ(unknown.code(), ErrorCode::kInvalidIndexSpecificationOption);
  EXPECT_NE(unknown.reason().find("The field 'bogus' is not valid for an index specification."),
            std::string::npos);
  EXPECT_EQ(ParseError(R"({"key": {"a": 1}, "name": "x", "unique": "yes"})").code(),
            ErrorCode::kTypeMismatch);
  EXPECT_EQ(ParseError(R"({"key": {"a": 1}, "name": "x", "hidden": 1})").code(),
            ErrorCode::kTypeMismatch);
  Status negative = ParseError(R"({"key": {"a": 1}, "name": "x", "expireAfterSeconds": -1})");
  EXPECT_EQ(negative.code(), ErrorCode::kCannotCreateIndex);
  EXPECT_NE(negative.reason().find("cannot be less than 0"), std::string::npos);
  EXPECT_EQ(ParseError(R"({"key": {"a": 1}, "name": "x", "expireAfterSeconds": "1"})").code(),
            ErrorCode::kCannotCreateIndex);
  Status compound_ttl =
      ParseError(R"({"key": {"a": 1, "b": 1}, "name": "x", "expireAfterSeconds": 1})");
  EXPECT_NE(compound_ttl.reason().find("compound indexes do not support TTL"), std::string::npos);
  Status partial = ParseError(
      R"({"key": {"a": 1}, "name": "x", "partialFilterExpression": {"a": {"$ne": 1}}})");
  EXPECT_EQ(partial.code(), ErrorCode::kCannotCreateIndex);
  EXPECT_NE(partial.reason().find("Expression not supported in partial index"), std::string::npos);
  EXPECT_EQ(ParseError(R"({"key": {"a": 1}, "name": "x", "partialFilterExpression": 1})").code(),
            ErrorCode::kTypeMismatch);
  EXPECT_EQ(ParseError(R"({"key": {"a": 1}, "name": "x", "v": 3})").code(),
            ErrorCode::kCannotCreateIndex);
}

TEST(IndexSpecTest, ListIndexesShapeAndCatalogRoundTrip) {
  IndexSpec spec = Parse(R"({"key": {"a": 1, "b": -1}, "name": "ab", "unique": true,
      "partialFilterExpression": {"a": {"$gt": 1}}, "hidden": true})");
  spec.id = 7;
  spec.multikey = true;
  spec.multikey_paths[1].insert(0);
  EXPECT_EQ(bson::ToShellString(spec.ToListIndexesBson().get()),
            "{ v: 2, key: { a: 1, b: -1 }, name: \"ab\", unique: true, partialFilterExpression: "
            "{ a: { $gt: 1 } }, hidden: true }");
  BsonDoc stored = spec.ToCatalogBson();
  auto back = IndexSpec::FromCatalogBson(stored.get());
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back.value().id, 7);
  EXPECT_TRUE(back.value().multikey);
  EXPECT_EQ(back.value().multikey_paths[1], std::set<size_t>{0});
  EXPECT_TRUE(back.value().Identical(spec));
  EXPECT_TRUE(back.value().partial_matcher);
  EXPECT_EQ(bson::ToShellString(IdIndexDocument().get()),
            "{ v: 2, key: { _id: 1 }, name: \"_id_\" }");
}

IndexSet SetOf(std::initializer_list<const char*> jsons) {
  IndexSet set;
  for (const char* json : jsons) {
    auto spec = std::make_shared<IndexSpec>(Parse(json));
    spec->id = set.next_index_id++;
    set.specs.push_back(std::move(spec));
  }
  return set;
}

TEST(IndexSpecTest, ConflictsFollowMongoRules) {
  IndexSet set = SetOf({R"({"key": {"a": 1}, "name": "a_1"})",
                        R"({"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 10})"});
  // Identical: no-op.
  auto same = CheckNewIndex(Parse(R"({"key": {"a": 1}, "name": "a_1"})"), set);
  ASSERT_TRUE(same.ok());
  EXPECT_TRUE(same.value());
  // New: buildable.
  auto fresh = CheckNewIndex(Parse(R"({"key": {"b": 1}})"), set);
  ASSERT_TRUE(fresh.ok());
  EXPECT_FALSE(fresh.value());
  // Same name, different key: 86.
  auto key_conflict = CheckNewIndex(Parse(R"({"key": {"b": 1}, "name": "a_1"})"), set);
  EXPECT_EQ(key_conflict.status().code(), ErrorCode::kIndexKeySpecsConflict);
  EXPECT_NE(key_conflict.status().reason().find(
                "An existing index has the same name as the requested index."),
            std::string::npos);
  // Same name, unique differs: signature differs -> 86.
  EXPECT_EQ(CheckNewIndex(Parse(R"({"key": {"a": 1}, "name": "a_1", "unique": true})"), set)
                .status()
                .code(),
            ErrorCode::kIndexKeySpecsConflict);
  // Same name and signature, other options differ: 85.
  auto options = CheckNewIndex(Parse(R"({"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 5})"), set);
  EXPECT_EQ(options.status().code(), ErrorCode::kIndexOptionsConflict);
  EXPECT_NE(options.status().reason().find("same name but different options"), std::string::npos);
  // Other name, same signature: 85.
  auto renamed = CheckNewIndex(Parse(R"({"key": {"a": 1}, "name": "other"})"), set);
  EXPECT_EQ(renamed.status().code(), ErrorCode::kIndexOptionsConflict);
  EXPECT_EQ(renamed.status().reason(), "Index already exists with a different name: a_1");
  // Other name, same key but unique: a different signature, buildable.
  auto unique = CheckNewIndex(Parse(R"({"key": {"a": 1}, "name": "u", "unique": true})"), set);
  ASSERT_TRUE(unique.ok());
  EXPECT_FALSE(unique.value());
  // The implicit _id index.
  auto id = CheckNewIndex(Parse(R"({"key": {"_id": 1}, "name": "_id_"})"), set);
  ASSERT_TRUE(id.ok());
  EXPECT_TRUE(id.value());
  EXPECT_EQ(CheckNewIndex(Parse(R"({"key": {"_id": 1}, "name": "x"})"), set).status().code(),
            ErrorCode::kIndexOptionsConflict);
  EXPECT_EQ(CheckNewIndex(Parse(R"({"key": {"b": 1}, "name": "_id_"})"), set).status().code(),
            ErrorCode::kIndexKeySpecsConflict);
}

TEST(IndexSpecTest, FindersCompareKeyPatternsAsValues) {
  IndexSet set = SetOf({R"({"key": {"a": 1}, "name": "a_1"})"});
  EXPECT_NE(set.FindByName("a_1"), nullptr);
  EXPECT_EQ(set.FindByName("b_1"), nullptr);
  EXPECT_EQ(set.FindByKeyPattern(BsonDoc::FromJson(R"({"a": 1.0})").get()).size(), 1u);
  EXPECT_EQ(set.FindByKeyPattern(BsonDoc::FromJson(R"({"a": -1})").get()).size(), 0u);
  EXPECT_NE(set.FindById(1), nullptr);
}

}  // namespace
}  // namespace tigerdoc::index
