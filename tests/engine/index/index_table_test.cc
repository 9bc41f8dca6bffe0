// Index table names, entry encoding and DecodeIndexEntry.

#include "engine/index/index_table.h"

#include <gtest/gtest.h>

#include "engine/bson/shell_string.h"

namespace tigerdoc::index {
namespace {

using bson::BsonDoc;

IndexSpec Spec(std::string_view json, int64_t id) {
  auto spec = ParseIndexSpec(BsonDoc::FromJson(json).get());
  EXPECT_TRUE(spec.ok());
  IndexSpec out = std::move(spec).value();
  out.id = id;
  return out;
}

TEST(IndexTableTest, NamesPerShardOrOnePerUniqueIndex) {
  IndexSpec plain = Spec(R"({"key": {"a": 1}})", 3);
  IndexSpec unique = Spec(R"({"key": {"a": 1}, "unique": true})", 4);
  auto all = IndexTablesFor("c7", plain, 3);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].table, "c7-x3-s0");
  EXPECT_EQ(all[2].table, "c7-x3-s2");
  EXPECT_EQ(all[2].shard, 2);
  auto some = IndexTablesFor("c7", plain, 3, {1});
  ASSERT_EQ(some.size(), 1u);
  EXPECT_EQ(some[0].table, "c7-x3-s1");
  auto one = IndexTablesFor("c7", unique, 3, {1});
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].table, "c7-x4");
  EXPECT_EQ(one[0].shard, -1);
  EXPECT_EQ(EntryTable("c7", plain, 2), "c7-x3-s2");
  EXPECT_EQ(EntryTable("c7", unique, 2), "c7-x4");
}

TEST(IndexTableTest, IndexIdOfTable) {
  EXPECT_EQ(IndexIdOfTable("c7-x3-s0"), 3);
  EXPECT_EQ(IndexIdOfTable("c7-x12"), 12);
  EXPECT_EQ(IndexIdOfTable("c7-s0"), std::nullopt);
  EXPECT_EQ(IndexIdOfTable("c7-id"), std::nullopt);
  EXPECT_EQ(IndexIdOfTable("c7-x"), std::nullopt);
  EXPECT_EQ(IndexIdOfTable("c7-x3-q"), std::nullopt);
}

TEST(IndexTableTest, EntryKeysAppendTheRecordKeyUnlessUnique) {
  IndexSpec plain = Spec(R"({"key": {"a": 1}})", 1);
  IndexSpec unique = Spec(R"({"key": {"a": 1}, "unique": true})", 2);
  EXPECT_EQ(EncodeEntryKey(plain, "KEY", "REC"), "KEYREC");
  EXPECT_EQ(EncodeEntryKey(unique, "KEY", "REC"), "KEY");
}

TEST(IndexTableTest, EntryValuesRoundTrip) {
  BsonDoc values = BsonDoc::FromJson(R"({"a": 1, "b.c": "x"})");
  std::string record_key("\x1e\x28\x80\x00\x20\x00rec", 10);
  std::string value = EncodeEntryValue(5, record_key, values);
  auto entry = DecodeIndexEntry("ignored", value);
  ASSERT_TRUE(entry.ok()) << entry.status().ToString();
  EXPECT_EQ(entry.value().shard, 5);
  EXPECT_EQ(entry.value().record_key, record_key);
  EXPECT_EQ(bson::ToShellString(entry.value().key_values.get()), "{ a: 1, b.c: \"x\" }");
}

TEST(IndexTableTest, CorruptValuesAreErrors) {
  EXPECT_FALSE(DecodeIndexEntry("", "").ok());
  EXPECT_FALSE(DecodeIndexEntry("", std::string("\x02\0\0\0\0\0\0\0\0", 9)).ok());
  std::string truncated = EncodeEntryValue(1, "record", BsonDoc::FromJson(R"({"a": 1})"));
  EXPECT_FALSE(DecodeIndexEntry("", truncated.substr(0, 12)).ok());
  EXPECT_FALSE(DecodeIndexEntry("", truncated.substr(0, truncated.size() - 1)).ok());
}

}  // namespace
}  // namespace tigerdoc::index
