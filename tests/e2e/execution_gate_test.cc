// --maxConcurrentCommands end to end (wire/server/execution_gate.h): with
// one or two tickets, many connections at once all get their commands
// answered, and a getMore waiting for new data on a tailable cursor takes
// no ticket (the insert it waits for would otherwise wait for it).

#include <atomic>
#include <thread>
#include <vector>

#include "tests/e2e/e2e_test_base.h"

namespace tigerdoc::e2e {
namespace {

class ExecutionGateTest : public ::testing::Test {
 protected:
  void Start(int tickets) {
    ServerProcess::Options options;
    options.extra_args = {"--maxConcurrentCommands", std::to_string(tickets)};
    server_ = std::make_unique<ServerProcess>(options);
    Status st = server_->Start();
    ASSERT_TRUE(st.ok()) << st.ToString();
  }
  void TearDown() override {
    if (server_ && server_->running()) EXPECT_TRUE(server_->Stop().ok());
  }
  std::unique_ptr<ServerProcess> server_;
};

TEST_F(ExecutionGateTest, ManyConnectionsShareTwoTickets) {
  Start(2);
  constexpr int kThreads = 16, kRounds = 40;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      MongoClient client(server_->uri());
      for (int r = 0; r < kRounds; ++r) {
        const std::string id = std::to_string(t * 1000 + r);
        const bool ok =
            testutil::IsOk(client.RunCommand("gate", R"({"insert": "c", "documents": [{"_id": )" + id +
                                                         R"(, "n": 0}]})")) &&
            testutil::IsOk(client.RunCommand("gate", R"({"update": "c", "updates": [{"q": {"_id": )" +
                                                         id + R"(}, "u": {"$inc": {"n": 1}}}]})")) &&
            testutil::IsOk(client.RunCommand("gate", R"({"find": "c", "filter": {"_id": )" + id + "}}")) &&
            testutil::IsOk(client.RunCommand("admin", R"({"ping": 1})"));
        if (!ok) failures.fetch_add(1);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  MongoClient client(server_->uri());
  BsonDoc count = client.RunCommand("gate", R"({"count": "c", "query": {"n": 1}})");
  EXPECT_EQ(testutil::Integer(count, "n").value_or(-1), kThreads * kRounds);
}

TEST_F(ExecutionGateTest, AnAwaitingGetMoreHoldsNoTicket) {
  Start(1);
  MongoClient reader(server_->uri());
  ASSERT_OK_REPLY(reader.RunCommand("gate", R"({"create": "log", "capped": true, "size": 100000})"));
  ASSERT_OK_REPLY(reader.RunCommand("gate", R"({"insert": "log", "documents": [{"_id": 0}]})"));
  BsonDoc opened = reader.RunCommand("gate", R"({"find": "log", "tailable": true, "awaitData": true})");
  ASSERT_OK_REPLY(opened);
  const int64_t cursor = testutil::Integer(opened, "cursor.id").value_or(0);
  ASSERT_NE(cursor, 0);
  // The getMore waits up to a minute for a new document; the insert from
  // another connection must get the one ticket meanwhile and wake it, so
  // the getMore returns that document (not an empty batch at its timeout).
  BsonDoc more;
  std::atomic<bool> returned{false};
  std::thread waiting([&] {
    more = reader.RunCommand("gate", R"({"getMore": )" + std::to_string(cursor) +
                                          R"(, "collection": "log", "maxTimeMS": 60000})");
    returned.store(true);
  });
  MongoClient writer(server_->uri());
  // Keep inserting until the waiting getMore has returned (it may start
  // waiting after the first insert).
  bool inserted = true;
  for (int i = 1; i < 600 && inserted && !returned.load(); ++i) {
    inserted = testutil::IsOk(writer.RunCommand(
        "gate", R"({"insert": "log", "documents": [{"_id": )" + std::to_string(i) + "}]}"));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  waiting.join();
  EXPECT_TRUE(inserted);
  ASSERT_OK_REPLY(more);
  EXPECT_GE(testutil::ArrayLength(more, "cursor.nextBatch"), 1u);
}

}  // namespace
}  // namespace tigerdoc::e2e
