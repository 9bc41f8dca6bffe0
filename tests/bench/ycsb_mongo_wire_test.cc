// tigerdoc_ycsb's thin wire client (bench/ycsb/ycsb_mongo_wire.h) against
// the real server: each YCSB operation reports success only when the
// server did what it was asked (checked through libmongoc), and failure
// when it did not (absent record, duplicate key, bad namespace), from one
// connection and from several at once.
#include "bench/ycsb/ycsb_mongo_wire.h"

#include <algorithm>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "bench/ycsb/ycsb_workload.h"
#include "tests/e2e/e2e_test_base.h"

namespace tigerdoc::bench::ycsb {
namespace {

class YcsbMongoWireTest : public e2e::E2eTest {
 protected:
  std::unique_ptr<Client> NewClient(const std::string& collection = "usertable") {
    auto client = NewMongoWireClient("127.0.0.1", server_->port(), db_, collection);
    EXPECT_TRUE(client.ok()) << client.status().ToString();
    return client.ok() ? std::move(client).value() : nullptr;
  }

  static std::vector<std::string> Fields(char fill) {
    std::vector<std::string> fields;
    for (int i = 0; i < kFieldCount; ++i) fields.emplace_back(kFieldLength, static_cast<char>(fill + i));
    return fields;
  }

  // The record as the driver sees it.
  testutil::BsonDoc FindByDriver(const std::string& key) {
    return Run(R"({"find": "usertable", "filter": {"_id": ")" + key + R"("}})");
  }
};

TEST_F(YcsbMongoWireTest, InsertWritesTheRecordAndRefusesADuplicate) {
  auto client = NewClient();
  ASSERT_NE(client, nullptr);
  EXPECT_TRUE(client->Insert("user1", Fields('a')));
  testutil::BsonDoc found = FindByDriver("user1");
  EXPECT_EQ(testutil::String(found, "cursor.firstBatch.0.field0"), std::string(kFieldLength, 'a'));
  EXPECT_EQ(testutil::String(found, "cursor.firstBatch.0.field9"), std::string(kFieldLength, 'a' + 9));
  // A duplicate _id: ok 1 with writeErrors, which is no insert.
  EXPECT_FALSE(client->Insert("user1", Fields('k')));
  EXPECT_EQ(testutil::String(FindByDriver("user1"), "cursor.firstBatch.0.field0"),
            std::string(kFieldLength, 'a'));
}

TEST_F(YcsbMongoWireTest, ReadFindsARecordAndOnlyAnExistingOne) {
  auto client = NewClient();
  ASSERT_NE(client, nullptr);
  ASSERT_TRUE(client->Insert("user1", Fields('a')));
  EXPECT_TRUE(client->Read("user1"));
  EXPECT_FALSE(client->Read("user2"));
  EXPECT_TRUE(client->Read("user1")) << "a read that found nothing leaves the connection usable";
}

TEST_F(YcsbMongoWireTest, UpdateSetsOneFieldOfAnExistingRecordOnly) {
  auto client = NewClient();
  ASSERT_NE(client, nullptr);
  ASSERT_TRUE(client->Insert("user1", Fields('a')));
  const std::string value(kFieldLength, 'z');
  EXPECT_TRUE(client->Update("user1", 3, value));
  testutil::BsonDoc found = FindByDriver("user1");
  EXPECT_EQ(testutil::String(found, "cursor.firstBatch.0.field3"), value);
  EXPECT_EQ(testutil::String(found, "cursor.firstBatch.0.field2"), std::string(kFieldLength, 'a' + 2));
  // An update that matches nothing (n: 0) is not a success, and inserts nothing.
  EXPECT_FALSE(client->Update("user2", 3, value));
  EXPECT_EQ(testutil::ArrayLength(FindByDriver("user2"), "cursor.firstBatch"), 0u);
}

// A scan of up to 100 records of ~1.1 KB: replies from a few hundred bytes
// to over 100 KiB, several reads each.
TEST_F(YcsbMongoWireTest, ScanReturnsTheRecordsFromItsStartKeyInOrder) {
  auto client = NewClient();
  ASSERT_NE(client, nullptr);
  std::vector<std::string> keys;
  for (int i = 0; i < 150; ++i) keys.push_back(KeyOf(i));
  for (const std::string& key : keys) ASSERT_TRUE(client->Insert(key, Fields('a')));
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(client->Scan(keys[0], 1), 1);
  EXPECT_EQ(client->Scan(keys[0], 99), 99);
  EXPECT_EQ(client->Scan(keys[0], kMaxScanLength), kMaxScanLength);
  EXPECT_EQ(client->Scan(keys[100], kMaxScanLength), 50) << "only 50 keys from the 101st on";
  EXPECT_EQ(client->Scan(keys[149], kMaxScanLength), 1);
  EXPECT_EQ(client->Scan(keys[149] + "~", kMaxScanLength), 0) << "past the last key";
  // The count matches the driver's for the same filter.
  testutil::BsonDoc n = Run(R"({"count": "usertable", "query": {"_id": {"$gte": ")" + keys[120] + R"("}}})");
  EXPECT_EQ(client->Scan(keys[120], kMaxScanLength), testutil::Integer(n, "n").value_or(-1));
}

TEST_F(YcsbMongoWireTest, ServerErrorsAreFailures) {
  // An invalid collection name: every operation gets ok: 0 (InvalidNamespace).
  auto client = NewClient("bad$name");
  ASSERT_NE(client, nullptr);
  EXPECT_FALSE(client->Insert("user1", Fields('a')));
  EXPECT_FALSE(client->Read("user1"));
  EXPECT_FALSE(client->Update("user1", 0, "v"));
  EXPECT_EQ(client->Scan("user", 10), -1);
}

TEST_F(YcsbMongoWireTest, SeveralConnectionsAtOnce) {
  constexpr int kThreads = 4, kPerThread = 150;
  std::vector<std::unique_ptr<Client>> clients;
  for (int t = 0; t < kThreads; ++t) {
    clients.push_back(NewClient());
    ASSERT_NE(clients.back(), nullptr);
  }
  std::vector<int> failures(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      Client& c = *clients[static_cast<size_t>(t)];
      for (int i = 0; i < kPerThread; ++i) {
        const std::string key = KeyOf(t * kPerThread + i);
        if (!c.Insert(key, Fields('a'))) ++failures[static_cast<size_t>(t)];
        if (!c.Update(key, i % kFieldCount, std::string(kFieldLength, 'u'))) ++failures[static_cast<size_t>(t)];
        if (!c.Read(key)) ++failures[static_cast<size_t>(t)];
        if (c.Scan(key, 10) < 1) ++failures[static_cast<size_t>(t)];
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[static_cast<size_t>(t)], 0) << "thread " << t;
  EXPECT_EQ(testutil::Integer(Run(R"({"count": "usertable"})"), "n"), kThreads * kPerThread);
  EXPECT_EQ(testutil::Integer(Run(R"({"count": "usertable", "query": {"field0": {"$ne": ")" +
                                  std::string(kFieldLength, 'a') + R"("}}})"),
                              "n"),
            kThreads * kPerThread / kFieldCount)
      << "every tenth update set field0";
}

TEST_F(YcsbMongoWireTest, TheBackendResetsItsTableAndHandsOutClients) {
  auto backend = MongoWireYcsb::Connect(server_->uri(), server_->pid());
  ASSERT_TRUE(backend.ok()) << backend.status().ToString();
  EXPECT_EQ(backend.value()->name(), "tigerdoc-wire");
  ASSERT_TRUE(backend.value()->Reset().ok());
  auto client = backend.value()->NewClient();
  ASSERT_TRUE(client.ok()) << client.status().ToString();
  ASSERT_TRUE(client.value()->Insert("user1", Fields('a')));
  EXPECT_TRUE(client.value()->Read("user1"));
  EXPECT_EQ(testutil::Integer(client_->RunCommand("ycsb", R"({"count": "usertable_wire"})"), "n"), 1);
  // Reset empties it again (drop + create), with a client still connected.
  ASSERT_TRUE(backend.value()->Reset().ok());
  EXPECT_FALSE(client.value()->Read("user1"));
  EXPECT_GT(backend.value()->ServerCpuSeconds(), 0);
  EXPECT_FALSE(MongoWireYcsb::Connect("mongodb://127.0.0.1:1/", 0).ok()) << "nobody listens on port 1";
}

}  // namespace
}  // namespace tigerdoc::bench::ycsb
