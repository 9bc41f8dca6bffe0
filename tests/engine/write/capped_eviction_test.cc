// Capped collections' eviction in the write path (CollectionWriter through
// Engine::InsertMany): the oldest documents go, indexes included, exactly
// when `max` or `size` is exceeded; failed inserts in a batch do not skew
// the counts the next eviction uses.

#include <gtest/gtest.h>

#include "engine/engine.h"
#include "tests/engine/in_memory_engine.h"

namespace tigerdoc::engine {
namespace {

using bson::BsonDoc;

class CappedEvictionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    engine_ = OpenInMemoryEngine();
    ASSERT_NE(engine_, nullptr);
  }

  void Create(const std::string& options_json) {
    CreateParams params;
    params.db = "db";
    params.name = "c";
    params.num_shards = 1;
    params.options = BsonDoc::FromJson(options_json);
    ASSERT_TRUE(engine_->CreateCollection(params).ok());
  }

  std::vector<Status> Insert(const std::vector<std::string>& jsons, bool ordered = true) {
    std::vector<BsonDoc> docs;
    for (const std::string& j : jsons) docs.push_back(BsonDoc::FromJson(j));
    auto inserted = engine_->InsertMany("db", "c", std::move(docs), ordered);
    EXPECT_TRUE(inserted.ok()) << inserted.status().ToString();
    return inserted.ok() ? inserted.value() : std::vector<Status>{};
  }

  // _ids in natural order, read from the store.
  std::vector<int64_t> Ids() {
    auto entry = engine_->catalog().Lookup("db.c");
    std::vector<int64_t> out;
    storage::Session session = engine_->storage().NewSession();
    Status st = entry->store->ForEachDocument(session, [&](int, const bson_t* doc) {
      bson_iter_t it;
      if (bson_iter_init_find(&it, doc, "_id")) out.push_back(bson_iter_as_int64(&it));
      return Status::OK();
    });
    EXPECT_TRUE(st.ok()) << st.ToString();
    return out;
  }

  storage::ShardStats Stats() { return engine_->catalog().Lookup("db.c")->store->TotalStats(); }

  std::unique_ptr<Engine> engine_;
};

std::string Doc(int id) { return "{\"_id\": " + std::to_string(id) + "}"; }

TEST_F(CappedEvictionTest, MaxBelowAtAndAboveInOneBatch) {
  Create(R"({"capped": true, "size": 100000, "max": 4})");
  Insert({Doc(9), Doc(8), Doc(7)});
  EXPECT_EQ(Ids(), (std::vector<int64_t>{9, 8, 7}));
  Insert({Doc(6)});
  EXPECT_EQ(Ids(), (std::vector<int64_t>{9, 8, 7, 6}));
  std::vector<std::string> many;
  for (int i = 100; i < 150; ++i) many.push_back(Doc(i));
  Insert(many);
  EXPECT_EQ(Ids(), (std::vector<int64_t>{146, 147, 148, 149}));
  EXPECT_EQ(Stats().count, 4);
}

TEST_F(CappedEvictionTest, SizeCountsBsonBytes) {
  // {_id: int32} is 14 bytes: 5 fit in 70, the sixth pushes one out.
  Create(R"({"capped": true, "size": 70})");
  Insert({Doc(1), Doc(2), Doc(3), Doc(4), Doc(5)});
  EXPECT_EQ(Stats().data_bytes, 70);
  EXPECT_EQ(Ids().size(), 5u);
  Insert({Doc(6)});
  EXPECT_EQ(Ids(), (std::vector<int64_t>{2, 3, 4, 5, 6}));
}

TEST_F(CappedEvictionTest, FailedInsertsDoNotSkewTheCounts) {
  Create(R"({"capped": true, "size": 100000, "max": 3})");
  // Unordered: the duplicates fail and roll back their own units.
  std::vector<Status> results = Insert({Doc(1), Doc(1), Doc(2), Doc(2), Doc(3)}, false);
  ASSERT_EQ(results.size(), 5u);
  EXPECT_EQ(results[1].code(), ErrorCode::kDuplicateKey);
  EXPECT_EQ(Ids(), (std::vector<int64_t>{1, 2, 3}));
  Insert({Doc(4)});
  EXPECT_EQ(Ids(), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(Stats().count, 3);
}

TEST_F(CappedEvictionTest, TooLargeDocumentIsRefusedWithoutEvicting) {
  Create(R"({"capped": true, "size": 40})");
  Insert({Doc(1), Doc(2)});
  std::vector<Status> results = Insert({R"({"_id": 3, "s": "0123456789012345678901234567890"})"});
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].code(), ErrorCode::kBadValue);
  EXPECT_EQ(results[0].reason(), "object to insert exceeds cappedMaxSize");
  EXPECT_EQ(Ids(), (std::vector<int64_t>{1, 2}));
}

TEST_F(CappedEvictionTest, EvictionRemovesIndexEntries) {
  Create(R"({"capped": true, "size": 100000, "max": 2})");
  CreateIndexesParams ip;
  ip.db = "db";
  ip.coll = "c";
  ip.specs.push_back(BsonDoc::FromJson(R"({"key": {"a": 1}, "name": "a_1", "unique": true})"));
  ASSERT_TRUE(engine_->CreateIndexes(ip).ok());
  Insert({R"({"_id": 1, "a": 1})", R"({"_id": 2, "a": 2})", R"({"_id": 3, "a": 3})"});
  // a: 1 left with its document: inserting it again is no duplicate.
  std::vector<Status> results = Insert({R"({"_id": 4, "a": 1})"});
  ASSERT_EQ(results.size(), 1u);
  EXPECT_TRUE(results[0].ok()) << results[0].ToString();
  auto validated = engine_->Validate("db", "c");
  ASSERT_TRUE(validated.ok()) << validated.status().ToString();
  EXPECT_TRUE(validated.value().valid()) << (validated.value().errors.empty() ? "" : validated.value().errors[0]);
}

}  // namespace
}  // namespace tigerdoc::engine
