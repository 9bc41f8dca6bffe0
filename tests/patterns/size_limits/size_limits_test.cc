// Size limits (patterns/size_limits): option parsing, the accounting in
// "<ident>-sizes", refusals at each limit, and exactness under concurrent
// writers, on an in-memory engine.

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "engine/engine.h"
#include "engine/write/pattern_registry.h"
#include "patterns/size_limits/size_limits_pattern.h"
#include "patterns/size_limits/size_table.h"
#include "tests/patterns/pattern_engine.h"

namespace tigerdoc::patterns::size_limits {
namespace {

using bson::BsonDoc;

class SizeLimitsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    engine_ = pattern_testing::OpenEngineWith(MakeSizeLimitsPattern(), 128);
    ASSERT_NE(engine_, nullptr);
  }

  Status Create(const std::string& name, const std::string& options_json, int shards = 4,
                const std::string& shard_key = "p") {
    engine::CreateParams create = pattern_testing::CreateIn(name, options_json);
    create.shard_key_field = shard_key;
    create.num_shards = shards;
    return engine_->CreateCollection(create);
  }

  // A document of exactly `bytes` BSON bytes in partition `p`.
  static BsonDoc Doc(int id, const std::string& p, int bytes) {
    BsonDoc doc;
    BSON_APPEND_INT32(doc.mutable_get(), "_id", id);
    BSON_APPEND_UTF8(doc.mutable_get(), "p", p.c_str());
    // "pad": type (1) + "pad\0" (4) + length (4) + n + NUL (1) bytes.
    int n = bytes - static_cast<int>(doc.size()) - 10;
    EXPECT_GE(n, 0);
    std::string pad(static_cast<size_t>(std::max(n, 0)), 'x');
    BSON_APPEND_UTF8(doc.mutable_get(), "pad", pad.c_str());
    EXPECT_EQ(static_cast<int>(doc.size()), bytes);
    return doc;
  }

  Status Insert(const std::string& coll, BsonDoc doc) {
    std::vector<BsonDoc> docs;
    docs.push_back(std::move(doc));
    auto results = engine_->InsertMany("db", coll, std::move(docs), true);
    if (!results.ok()) return results.status();
    return results.value()[0];
  }

  std::vector<std::string> Recount(const std::string& coll) {
    auto entry = engine_->catalog().Lookup("db." + coll);
    std::vector<std::string> problems;
    EXPECT_TRUE(engine_->ValidatePatterns(*entry, &problems).ok());
    return problems;
  }

  TableCounts Table(const std::string& coll) {
    auto entry = engine_->catalog().Lookup("db." + coll);
    storage::Session session = engine_->storage().NewSession();
    auto table = ReadTable(session, *entry);
    EXPECT_TRUE(table.ok());
    return std::move(table).value();
  }

  int64_t PartitionBytes(const std::string& coll, const std::string& p) {
    int64_t bytes = 0;
    for (const auto& [prefix, row] : Table(coll).partitions) {
      bson_iter_t it;
      bson_iter_init(&it, row.value.get());
      bson_iter_next(&it);
      if (BSON_ITER_HOLDS_UTF8(&it) && p == bson_iter_utf8(&it, nullptr)) bytes = row.counts.bytes;
    }
    return bytes;
  }

  std::unique_ptr<engine::Engine> engine_;
};

TEST_F(SizeLimitsTest, OptionsAreValidatedNamingTheField) {
  struct Case {
    const char* options;
    ErrorCode code;
  } cases[] = {
      {R"({"maxDocumentBytes": 1023})", ErrorCode::kBadValue},
      {R"({"maxDocumentBytes": 16777217})", ErrorCode::kBadValue},
      {R"({"maxDocumentBytes": "2MB"})", ErrorCode::kTypeMismatch},
      {R"({"maxDocumentBytes": 2048.5})", ErrorCode::kFailedToParse},
      {R"({"maxPartitionBytes": 0})", ErrorCode::kBadValue},
      {R"({"maxShardBytes": {"gb": 1}})", ErrorCode::kTypeMismatch},
  };
  for (const Case& c : cases) {
    Status status = Create("bad", c.options);
    EXPECT_EQ(status.code(), c.code) << c.options << " -> " << status.ToString();
    EXPECT_NE(status.reason().find("create.max"), std::string::npos) << status.ToString();
  }
  ASSERT_TRUE(Create("ok", R"({"maxDocumentBytes": 2097152.0, "maxPartitionBytes": {"$numberLong": "21474836480"}})").ok());
  auto entry = engine_->catalog().Lookup("db.ok");
  EXPECT_EQ(entry->patterns()->configs.ToJson(),
            R"({ "sizeLimits" : { "maxDocumentBytes" : 2097152, "maxPartitionBytes" : 21474836480 } })");
}

TEST_F(SizeLimitsTest, DocumentLimitJustBelowAtAndAbove) {
  ASSERT_TRUE(Create("c", R"({"maxDocumentBytes": 2048})").ok());
  EXPECT_TRUE(Insert("c", Doc(1, "a", 2047)).ok());
  EXPECT_TRUE(Insert("c", Doc(2, "a", 2048)).ok());
  Status above = Insert("c", Doc(3, "a", 2049));
  EXPECT_EQ(above.code(), ErrorCode::kBSONObjectTooLarge);
  EXPECT_NE(above.reason().find("max size: 2048"), std::string::npos) << above.ToString();
  engine::UpdateStatement update;
  update.query = BsonDoc::FromJson(R"({"_id": 1})");
  update.update = BsonDoc::FromJson(R"({"$set": {"more": "xxxxxxxxxxxxxxxxxxxx"}})");
  auto updated = engine_->Update("db", "c", update);
  EXPECT_EQ(updated.status().code(), ErrorCode::kLocation17419);
  EXPECT_NE(updated.status().reason().find("2048"), std::string::npos);
  EXPECT_TRUE(Recount("c").empty());
}

TEST_F(SizeLimitsTest, PartitionLimitIsExactAndDeletesFreeSpace) {
  ASSERT_TRUE(Create("c", R"({"maxPartitionBytes": 4096})").ok());
  EXPECT_TRUE(Insert("c", Doc(1, "a", 2048)).ok());
  EXPECT_TRUE(Insert("c", Doc(2, "a", 2048)).ok());  // exactly at the limit
  Status above = Insert("c", Doc(3, "a", 1100));
  EXPECT_EQ(above.code(), ErrorCode::kPartitionSizeLimitExceeded);
  EXPECT_NE(above.reason().find("partition { p: \"a\" } of db.c would reach 5196 bytes"),
            std::string::npos)
      << above.ToString();
  EXPECT_NE(above.reason().find("maxPartitionBytes: 4096"), std::string::npos);
  EXPECT_TRUE(Insert("c", Doc(4, "b", 1100)).ok());  // another partition has room
  engine::DeleteStatement del;
  del.query = BsonDoc::FromJson(R"({"_id": 1})");
  ASSERT_TRUE(engine_->Delete("db", "c", del).ok());
  EXPECT_TRUE(Insert("c", Doc(3, "a", 1100)).ok());
  EXPECT_EQ(PartitionBytes("c", "a"), 2048 + 1100);
  EXPECT_TRUE(Recount("c").empty());
}

TEST_F(SizeLimitsTest, UpdatesThatMoveOrGrowDocumentsAreCounted) {
  ASSERT_TRUE(Create("c", R"({"maxPartitionBytes": 4096})").ok());
  ASSERT_TRUE(Insert("c", Doc(1, "a", 3000)).ok());
  ASSERT_TRUE(Insert("c", Doc(2, "b", 3000)).ok());
  // Moving 1 into b would make b 6000 bytes.
  engine::UpdateStatement move;
  move.query = BsonDoc::FromJson(R"({"_id": 1})");
  move.update = BsonDoc::FromJson(R"({"$set": {"p": "b"}})");
  EXPECT_EQ(engine_->Update("db", "c", move).status().code(), ErrorCode::kPartitionSizeLimitExceeded);
  move.update = BsonDoc::FromJson(R"({"$set": {"p": "c"}})");
  ASSERT_TRUE(engine_->Update("db", "c", move).ok());
  EXPECT_EQ(PartitionBytes("c", "a"), 0);
  EXPECT_EQ(Table("c").partitions.size(), 2u);
  // Shrinking frees space.
  engine::UpdateStatement shrink;
  shrink.query = BsonDoc::FromJson(R"({"_id": 2})");
  shrink.update = BsonDoc::FromJson(R"({"$set": {"pad": ""}})");
  ASSERT_TRUE(engine_->Update("db", "c", shrink).ok());
  EXPECT_LT(PartitionBytes("c", "b"), 100);
  EXPECT_TRUE(Recount("c").empty());
}

TEST_F(SizeLimitsTest, ShardLimitRefusesWithItsOwnCode) {
  ASSERT_TRUE(Create("c", R"({"maxShardBytes": 5000})", /*shards=*/1).ok());
  EXPECT_TRUE(Insert("c", Doc(1, "a", 2500)).ok());
  EXPECT_TRUE(Insert("c", Doc(2, "b", 2500)).ok());
  Status above = Insert("c", Doc(3, "c", 1024));
  EXPECT_EQ(above.code(), ErrorCode::kShardSizeLimitExceeded);
  EXPECT_NE(above.reason().find("shard 0 of db.c would reach 6024 bytes"), std::string::npos)
      << above.ToString();
  auto entry = engine_->catalog().Lookup("db.c");
  auto stats = engine_->PatternStats(*entry);
  ASSERT_TRUE(stats.ok());
  const std::string json = stats.value().ToJson();
  EXPECT_NE(json.find(R"("shards" : [ { "shard" : 0, "count" : 2, "size" : 5000 } ])"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find(R"("largestPartitions" : [ { "key" : { "p" : "a" })"), std::string::npos)
      << json;
}

TEST_F(SizeLimitsTest, CollModOnAnExistingCollectionBuildsItsCounters) {
  ASSERT_TRUE(Create("old", "{}").ok());
  for (int i = 0; i < 50; ++i) ASSERT_TRUE(Insert("old", Doc(i, "p" + std::to_string(i % 5), 1500)).ok());
  ASSERT_TRUE(engine_->ModifyPatterns("db", "old",
                                      BsonDoc::FromJson(R"({"maxPartitionBytes": 16000})").get())
                  .ok());
  EXPECT_EQ(PartitionBytes("old", "p1"), 15000);
  EXPECT_TRUE(Recount("old").empty());
  EXPECT_EQ(Insert("old", Doc(100, "p1", 1024)).code(), ErrorCode::kPartitionSizeLimitExceeded);
  // Off, writes, on again: rebuilt from the documents.
  ASSERT_TRUE(engine_->ModifyPatterns("db", "old",
                                      BsonDoc::FromJson(R"({"maxPartitionBytes": null})").get())
                  .ok());
  EXPECT_TRUE(engine_->catalog().Lookup("db.old")->patterns()->configs.empty());
  ASSERT_TRUE(Insert("old", Doc(100, "p1", 1024)).ok());
  ASSERT_TRUE(engine_->ModifyPatterns("db", "old",
                                      BsonDoc::FromJson(R"({"maxShardBytes": 1000000})").get())
                  .ok());
  EXPECT_EQ(PartitionBytes("old", "p1"), 16024);
  EXPECT_TRUE(Recount("old").empty());
}

TEST_F(SizeLimitsTest, RecountReportsEveryDifference) {
  ASSERT_TRUE(Create("c", R"({"maxPartitionBytes": 1000000})").ok());
  ASSERT_TRUE(Insert("c", Doc(1, "a", 1500)).ok());
  ASSERT_TRUE(Insert("c", Doc(2, "b", 1500)).ok());
  EXPECT_TRUE(Recount("c").empty());
  // Damage the counters behind the engine's back: one partition row wrong,
  // one missing.
  auto entry = engine_->catalog().Lookup("db.c");
  storage::Session session = engine_->storage().NewSession();
  TableCounts table = Table("c");
  auto it = table.partitions.begin();
  PartitionRow wrong = std::move(it->second);
  wrong.counts.bytes += 7;
  const std::string table_name = SizeTableName(entry->metadata.ident);
  ASSERT_TRUE(session.Put(table_name, PartitionKey(it->first), EncodePartitionRow(wrong)).ok());
  ++it;
  ASSERT_TRUE(session.Remove(table_name, PartitionKey(it->first)).ok());
  std::vector<std::string> problems = Recount("c");
  // Two partitions, and the shard totals (stripes untouched) agree.
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_NE(problems[0].find("partition { p: \"a\" } of db.c: counters say 1 documents, 1507 bytes"),
            std::string::npos) << problems[0];
  EXPECT_NE(problems[1].find("partition { p: \"b\" }"), std::string::npos) << problems[1];
}

TEST_F(SizeLimitsTest, EightWritersNeverPassALimitAndCountersMatchARecount) {
  // Partition limit 10 documents of 1 KiB; shard limit below the sum of
  // what the writers try, so both limits are contended.
  ASSERT_TRUE(Create("c", R"({"maxPartitionBytes": 10240, "maxShardBytes": 40960})", 2).ok());
  std::vector<std::thread> writers;
  std::atomic<int> refused_partition{0}, refused_shard{0};
  for (int t = 0; t < 8; ++t) {
    writers.emplace_back([&, t] {
      for (int i = 0; i < 40; ++i) {
        Status st = Insert("c", Doc(t * 1000 + i, "p" + std::to_string(i % 6), 1024));
        if (st.code() == ErrorCode::kPartitionSizeLimitExceeded) refused_partition++;
        if (st.code() == ErrorCode::kShardSizeLimitExceeded) refused_shard++;
        EXPECT_TRUE(st.ok() || st.code() == ErrorCode::kPartitionSizeLimitExceeded ||
                    st.code() == ErrorCode::kShardSizeLimitExceeded)
            << st.ToString();
      }
    });
  }
  for (auto& w : writers) w.join();
  EXPECT_GT(refused_partition.load() + refused_shard.load(), 0);
  TableCounts table = Table("c");
  for (const auto& [prefix, row] : table.partitions) EXPECT_LE(row.counts.bytes, 10240);
  for (const Counts& shard : table.shards) EXPECT_LE(shard.bytes, 40960);
  EXPECT_TRUE(Recount("c").empty());
}

}  // namespace
}  // namespace tigerdoc::patterns::size_limits
