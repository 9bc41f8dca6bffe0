// A capped ShardedRecordStore: records keyed by insertion sequence (so
// record order is insertion order whatever the _id), found through the _id
// table, the sequence resumed after a reopen, and commits that wake
// tailing readers.

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "engine/storage/sharded_record_store.h"
#include "tests/engine/storage/in_memory_storage.h"

namespace tigerdoc::storage {
namespace {

using bson::BsonDoc;

class CappedRecordStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    engine_ = OpenInMemoryStorage();
    ASSERT_NE(engine_, nullptr);
    Session session = engine_->NewSession();
    ASSERT_TRUE(ShardedRecordStore::CreateTables(session, "c1", 1, false).ok());
    store_ = std::make_unique<ShardedRecordStore>("c1", 1, "_id", /*capped=*/true);
  }

  void Insert(int id) {
    Session session = engine_->NewSession();
    ASSERT_TRUE(session.Begin().ok());
    BsonDoc doc = BsonDoc::FromJson("{\"_id\": " + std::to_string(id) + "}");
    ASSERT_TRUE(store_->Insert(session, doc.get()).ok());
    ASSERT_TRUE(session.Commit().ok());
  }

  std::vector<int64_t> Ids(ShardedRecordStore& store) {
    std::vector<int64_t> out;
    Session session = engine_->NewSession();
    EXPECT_TRUE(store
                    .ForEachDocument(session,
                                     [&](int, const bson_t* doc) {
                                       bson_iter_t it;
                                       bson_iter_init_find(&it, doc, "_id");
                                       out.push_back(bson_iter_as_int64(&it));
                                       return Status::OK();
                                     })
                    .ok());
    return out;
  }

  std::unique_ptr<StorageEngine> engine_;
  std::unique_ptr<ShardedRecordStore> store_;
};

TEST_F(CappedRecordStoreTest, RecordOrderIsInsertionOrder) {
  EXPECT_FALSE(store_->shard_key_is_id());
  for (int id : {30, 10, 20}) Insert(id);
  EXPECT_EQ(Ids(*store_), (std::vector<int64_t>{30, 10, 20}));
  Session session = engine_->NewSession();
  BsonDoc ten = BsonDoc::FromJson(R"({"_id": 10})");
  auto at = store_->LocationOf(session, ten.get());
  ASSERT_TRUE(at.ok()) << at.status().ToString();
  EXPECT_EQ(ShardedRecordStore::SequenceOf(at.value().record_key), 2u);
  // Without a session the location is unknown (it is in the _id table).
  EXPECT_EQ(store_->LocationOf(ten.get()).status().code(), ErrorCode::kInternalError);
  bson_iter_t it;
  bson_iter_init_find(&it, ten.get(), "_id");
  auto found = store_->FindById(session, bson_iter_value(&it));
  ASSERT_TRUE(found.ok());
  EXPECT_TRUE(found.value().has_value());
}

TEST_F(CappedRecordStoreTest, DuplicateIdIsRefusedAndUpdateKeepsThePlace) {
  Insert(1);
  Insert(2);
  Session session = engine_->NewSession();
  ASSERT_TRUE(session.Begin().ok());
  BsonDoc again = BsonDoc::FromJson(R"({"_id": 1})");
  EXPECT_EQ(store_->Insert(session, again.get()).code(), ErrorCode::kDuplicateKey);
  session.Rollback();
  ASSERT_TRUE(session.Begin().ok());
  BsonDoc grown = BsonDoc::FromJson(R"({"_id": 1, "pad": "xxxxxxxxxxxxxxxxxxxx"})");
  ASSERT_TRUE(store_->Update(session, again.get(), grown.get()).ok());
  ASSERT_TRUE(session.Commit().ok());
  EXPECT_EQ(Ids(*store_), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(store_->TotalStats().data_bytes, grown.get()->len + again.get()->len);
  ASSERT_TRUE(session.Begin().ok());
  ASSERT_TRUE(store_->Remove(session, grown.get()).ok());
  EXPECT_EQ(store_->Remove(session, grown.get()).code(), ErrorCode::kNoSuchKey);
  session.Rollback();
}

TEST_F(CappedRecordStoreTest, SequenceResumesAfterTheNewestKeptRecordOnReopen) {
  for (int id : {5, 4, 3}) Insert(id);
  store_ = std::make_unique<ShardedRecordStore>("c1", 1, "_id", true);
  Session session = engine_->NewSession();
  ASSERT_TRUE(store_->LoadStats(session).ok());
  Insert(1);
  EXPECT_EQ(Ids(*store_), (std::vector<int64_t>{5, 4, 3, 1}));
  EXPECT_EQ(store_->TotalStats().count, 4);
}

TEST_F(CappedRecordStoreTest, CommitWakesAWaiterAndTimeoutReturns) {
  const uint64_t seen = store_->commits();
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(store_->WaitForCommitAfter(seen, start + std::chrono::milliseconds(50)), seen);
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(50));
  std::thread writer([this] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    Insert(1);
  });
  const uint64_t after =
      store_->WaitForCommitAfter(seen, std::chrono::steady_clock::now() + std::chrono::seconds(30));
  writer.join();
  EXPECT_EQ(after, seen + 1);
}

}  // namespace
}  // namespace tigerdoc::storage
