// The operation registry and the counters under load (issue #18): each
// thread reuses one Operation for its commands and the registry links
// running ones into a list under one short mutex. While 8 connections
// insert one document per command, other connections read currentOp and
// serverStatus and one kills long aggregations with killOp: every running
// command must show with its fields and a unique opid, every kill must land
// on its target (11601) and no other, and the counters must come out exact.

#include <atomic>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tests/e2e/e2e_test_base.h"

namespace tigerdoc::e2e {
namespace {

using testutil::DocArray;
using testutil::Integer;
using testutil::Json;

constexpr int kInserters = 8;
constexpr int kInsertsEach = 250;
constexpr int kKills = 3;

class OperationHammerTest : public E2eTest {
 protected:
  int64_t ServerStatusAt(MongoClient& client, const char* path) {
    return Integer(client.RunCommand("admin", R"({"serverStatus": 1})"), path).value_or(-1);
  }
  int64_t Count(const std::string& coll) {
    return Integer(Run(R"({"count": ")" + coll + R"("})"), "n").value_or(-1);
  }
};

// Reads currentOp and checks every operation it shows; false (with a
// failure) when one lacks a field or two share an opid.
bool CheckCurrentOp(MongoClient& client, const std::string& db, std::atomic<int>* inserts_seen) {
  const BsonDoc reply = client.RunCommand("admin", R"({"currentOp": 1})");
  if (!testutil::Has(reply, "inprog")) {
    ADD_FAILURE() << Json(reply);
    return false;
  }
  std::set<int64_t> opids;
  for (const BsonDoc& op : DocArray(reply, "inprog")) {
    if (!testutil::Has(op, "opid") || !testutil::Has(op, "ns") || !testutil::Has(op, "op") ||
        !testutil::Has(op, "client") || !testutil::Has(op, "connectionId") ||
        testutil::String(op, "desc").value_or("").rfind("conn", 0) != 0 || !testutil::Has(op, "command") ||
        !testutil::Has(op, "microsecs_running")) {
      ADD_FAILURE() << "incomplete operation: " << Json(op);
      return false;
    }
    if (!opids.insert(Integer(op, "opid").value_or(-1)).second) {
      ADD_FAILURE() << "opid shown twice: " << Json(reply);
      return false;
    }
    if (testutil::String(op, "op") == "insert") {
      EXPECT_EQ(testutil::String(op, "ns"), db + ".c") << Json(op);
      EXPECT_EQ(testutil::String(op, "command.insert"), "c") << Json(op);
      ++*inserts_seen;
    }
  }
  return true;
}

TEST_F(OperationHammerTest, CurrentOpKillOpAndServerStatusWhileEightConnectionsInsert) {
  // The victims' collection: each $lookup scans it whole (no index on b).
  InsertNumbers("slow", 4000, 4000);

  const std::string uri = server_->uri();
  const std::string db = db_;
  MongoClient status(uri);
  const int64_t insert_before = ServerStatusAt(status, "opcounters.insert");
  const int64_t inserted_before = ServerStatusAt(status, "metrics.document.inserted");
  const int64_t commands_before = ServerStatusAt(status, "opcounters.command");

  std::atomic<int> inserters_left{kInserters};
  std::atomic<int> failed_inserts{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kInserters; ++t) {
    threads.emplace_back([&, t] {
      MongoClient client(uri);
      for (int i = 0; i < kInsertsEach; ++i) {
        const int id = t * kInsertsEach + i;
        BsonDoc reply;
        if (t % 2 == 0) {  // the documents in the body's array
          reply = client.RunCommand(db, R"({"insert": "c", "documents": [{"_id": )" + std::to_string(id) +
                                            R"(, "v": "x"}]})");
          if (Integer(reply, "n") != 1) ++failed_inserts;
        } else {  // in a kind-1 document sequence, as drivers send them
          BsonDoc doc;
          BSON_APPEND_INT32(doc.mutable_get(), "_id", id);
          BSON_APPEND_UTF8(doc.mutable_get(), "v", "x");
          std::vector<BsonDoc> one;
          one.push_back(std::move(doc));
          reply = client.InsertMany(db, "c", one);
          if (Integer(reply, "insertedCount") != 1) ++failed_inserts;
        }
      }
      --inserters_left;
    });
  }

  // Watchers: currentOp and serverStatus from two connections, until the
  // inserters are done; opcounters.insert only grows.
  std::atomic<int> inserts_seen{0}, watcher_commands{0};
  for (int w = 0; w < 2; ++w) {
    threads.emplace_back([&] {
      MongoClient client(uri);
      int64_t last_insert = -1;
      while (inserters_left.load() > 0) {
        if (!CheckCurrentOp(client, db, &inserts_seen)) break;
        const int64_t insert = ServerStatusAt(client, "opcounters.insert");
        EXPECT_GE(insert, last_insert);
        last_insert = insert;
        watcher_commands += 2;
      }
    });
  }

  // The killer: starts a long aggregation on its own connection, finds it
  // in currentOp and kills it, kKills times; and kills an opid that runs
  // nothing, which must touch no insert.
  std::atomic<int> killed{0}, killer_commands{0};
  threads.emplace_back([&] {
    MongoClient killer(uri);
    for (int k = 0; k < kKills; ++k) {
      std::atomic<bool> finished{false};
      BsonDoc victim_reply;
      std::thread victim([&] {
        MongoClient c(uri);
        victim_reply = c.RunCommand(db, R"({"aggregate": "slow", "pipeline": [{"$lookup": {"from": "slow",)"
                                        R"( "localField": "a", "foreignField": "b", "as": "x"}}, {"$count": "n"}],)"
                                        R"( "cursor": {}})");
        finished.store(true);
      });
      int64_t opid = -1;
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
      while (opid < 0 && !finished.load() && std::chrono::steady_clock::now() < deadline) {
        BsonDoc op = killer.RunCommand("admin", R"({"currentOp": 1, "command.aggregate": "slow"})");
        ++killer_commands;
        if (DocArray(op, "inprog").size() == 1) opid = Integer(op, "inprog.0.opid").value_or(-1);
      }
      if (opid >= 0) {
        EXPECT_OK_REPLY(killer.RunCommand("admin", R"({"killOp": 1, "op": )" + std::to_string(opid) + "}"));
        ++killer_commands;
      }
      victim.join();
      ++killer_commands;  // the victim's aggregate
      if (Integer(victim_reply, "code") == 11601) ++killed;
      EXPECT_OK_REPLY(killer.RunCommand("admin", R"({"killOp": 1, "op": 2147483000})"));
      ++killer_commands;
    }
  });
  for (auto& t : threads) t.join();

  EXPECT_EQ(failed_inserts.load(), 0);
  EXPECT_EQ(killed.load(), kKills);
  EXPECT_EQ(ServerStatusAt(status, "opcounters.insert") - insert_before, kInserters * kInsertsEach);
  EXPECT_EQ(ServerStatusAt(status, "metrics.document.inserted") - inserted_before,
            kInserters * kInsertsEach);
  // Every command that is not a read or a write is counted too (drivers'
  // handshakes among them, hence at least).
  EXPECT_GE(ServerStatusAt(status, "opcounters.command") - commands_before,
            watcher_commands.load() + killer_commands.load());
  EXPECT_EQ(Count("c"), kInserters * kInsertsEach);
  // Nothing is left registered once the commands are done: a currentOp
  // shows only itself.
  const BsonDoc after = client_->RunCommand("admin", R"({"currentOp": 1})");
  ASSERT_EQ(DocArray(after, "inprog").size(), 1u) << Json(after);
  EXPECT_TRUE(testutil::Has(after, "inprog.0.command.currentOp")) << Json(after);
  std::atomic<int> unused{0};
  EXPECT_TRUE(CheckCurrentOp(*client_, db_, &unused));
}

}  // namespace
}  // namespace tigerdoc::e2e
