// TransactionBinding: while a thread has a transaction bound, NewSession()
// gives views that join it; nothing of it is visible elsewhere until the
// owner commits, and a view's rollback ends the whole transaction.

#include <gtest/gtest.h>

#include <thread>

#include "engine/storage/storage_engine.h"
#include "tests/engine/storage/in_memory_storage.h"

namespace tigerdoc::storage {
namespace {

class TransactionBindingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    engine_ = OpenInMemoryStorage();
    ASSERT_NE(engine_, nullptr);
    Session session = engine_->NewSession();
    ASSERT_TRUE(session.CreateTable("t").ok());
    ASSERT_TRUE(session.Put("t", "a", "1").ok());
  }

  std::optional<std::string> ReadCommitted(std::string_view key) {
    Session session = engine_->NewUnboundSession();
    auto value = session.Get("t", key);
    EXPECT_TRUE(value.ok());
    return value.value();
  }

  std::unique_ptr<StorageEngine> engine_;
};

TEST_F(TransactionBindingTest, ViewsJoinTheBoundTransactionUntilItCommits) {
  Session owner = engine_->NewUnboundSession();
  ASSERT_TRUE(owner.Begin().ok());
  {
    TransactionBinding bind(&owner);
    Session view = engine_->NewSession();
    EXPECT_TRUE(view.joins_outer_transaction());
    EXPECT_TRUE(view.in_transaction());
    ASSERT_TRUE(view.Begin().ok());  // a unit inside the outer transaction
    ASSERT_TRUE(view.Put("t", "b", "2").ok());
    ASSERT_TRUE(view.Commit().ok());  // does not commit the outer one
    Session second = engine_->NewSession();
    auto own = second.Get("t", "b");
    ASSERT_TRUE(own.ok());
    EXPECT_EQ(own.value(), std::optional<std::string>("2"));  // reads its own write
    // The catalog's sessions stay outside.
    Session unbound = engine_->NewUnboundSession();
    EXPECT_FALSE(unbound.joins_outer_transaction());
  }
  EXPECT_EQ(ReadCommitted("b"), std::nullopt);
  bool committed = false;
  owner.OnCommit([&] { committed = true; });
  ASSERT_TRUE(owner.Commit().ok());
  EXPECT_TRUE(committed);
  EXPECT_EQ(ReadCommitted("b"), std::optional<std::string>("2"));
}

TEST_F(TransactionBindingTest, AViewsRollbackEndsTheWholeTransaction) {
  Session owner = engine_->NewUnboundSession();
  ASSERT_TRUE(owner.Begin().ok());
  bool undone = false;
  {
    TransactionBinding bind(&owner);
    Session view = engine_->NewSession();
    ASSERT_TRUE(view.Put("t", "b", "2").ok());
    view.OnRollback([&] { undone = true; });
    view.Rollback();
    EXPECT_FALSE(owner.in_transaction());
    Status again = view.Begin();
    EXPECT_EQ(again.code(), ErrorCode::kNoSuchTransaction);
  }
  EXPECT_TRUE(undone);
  EXPECT_EQ(ReadCommitted("b"), std::nullopt);
}

TEST_F(TransactionBindingTest, OtherThreadsAreNotBound) {
  Session owner = engine_->NewUnboundSession();
  ASSERT_TRUE(owner.Begin().ok());
  TransactionBinding bind(&owner);
  bool joined = true;
  std::thread other([&] { joined = engine_->NewSession().joins_outer_transaction(); });
  other.join();
  EXPECT_FALSE(joined);
  owner.Rollback();
}

TEST_F(TransactionBindingTest, ConflictingWriteOfAnotherSessionFails) {
  Session owner = engine_->NewUnboundSession();
  ASSERT_TRUE(owner.Begin().ok());
  ASSERT_TRUE(owner.Put("t", "a", "owner").ok());
  Session other = engine_->NewUnboundSession();
  ASSERT_TRUE(other.Begin().ok());
  EXPECT_EQ(other.Put("t", "a", "other").code(), ErrorCode::kWriteConflict);
  other.Rollback();
  ASSERT_TRUE(owner.Commit().ok());
  EXPECT_EQ(ReadCommitted("a"), std::optional<std::string>("owner"));
}

}  // namespace
}  // namespace tigerdoc::storage
