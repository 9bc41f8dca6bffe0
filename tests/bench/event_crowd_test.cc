// EventCrowd (bench/event_crowd.h) against the real server: its
// connections are spread over the shards and each runs a closed loop until
// the deadline; a reply that is not what the request must get (no document,
// another document, a scan that found one) counts as an error and drops
// that connection, as the blocking wire client's checks would fail it.
#include "bench/event_crowd.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "bench/server_backend.h"
#include "tests/e2e/e2e_test_base.h"

namespace tigerdoc::bench {
namespace {

using Clock = EventCrowd::Clock;

class EventCrowdTest : public e2e::E2eTest {
 protected:
  // Loads documents 0..count-1 of tigerdoc_load's shape into "load".
  void Load(int64_t count) {
    auto conn = ConnectServer(LoadClient::kWire, server_->uri(), db_, "load", false);
    ASSERT_TRUE(conn.ok()) << conn.status().ToString();
    ASSERT_TRUE(conn.value()->InsertBatch(0, static_cast<int>(count)));
  }
  EventCrowd::Options Options(int connections, int shards, int64_t docs, bool scans = false) {
    EventCrowd::Options o;
    o.uri = server_->uri();
    o.db = db_;
    o.coll = "load";
    o.connections = connections;
    o.shards = shards;
    o.docs = docs;
    o.scans = scans;
    return o;
  }
  struct Result {
    std::vector<std::vector<uint32_t>> latencies;  // per shard
    int64_t errors = 0;
  };
  // Runs every shard on a thread of its own for `ms`.
  Result RunFor(EventCrowd* crowd, int shards, int ms) {
    Result r;
    r.latencies.resize(shards);
    std::vector<int64_t> errors(shards, 0);
    const Clock::time_point start = Clock::now() + std::chrono::milliseconds(20);
    const Clock::time_point deadline = start + std::chrono::milliseconds(ms);
    std::vector<std::thread> threads;
    for (int s = 0; s < shards; ++s) {
      threads.emplace_back([&, s] { crowd->Run(s, start, deadline, &r.latencies[s], &errors[s]); });
    }
    for (auto& t : threads) t.join();
    for (int64_t e : errors) r.errors += e;
    return r;
  }
};

TEST_F(EventCrowdTest, EveryShardReadsInAClosedLoopWithoutErrors) {
  Load(50);
  for (int shards : {1, 2, 3}) {
    SCOPED_TRACE(shards);
    auto crowd = EventCrowd::Connect(Options(7, shards, 50));
    ASSERT_TRUE(crowd.ok()) << crowd.status().ToString();
    Result r = RunFor(crowd.value().get(), shards, 300);
    EXPECT_EQ(r.errors, 0);
    for (const auto& l : r.latencies) {
      // Each shard's connections completed requests, more than one each.
      EXPECT_GT(l.size(), 7u);
    }
  }
}

TEST_F(EventCrowdTest, AReadThatFindsNothingIsAnErrorAndDropsItsConnection) {
  Load(1);  // only _id 0 exists; reads pick from 0..999
  auto crowd = EventCrowd::Connect(Options(4, 2, 1000));
  ASSERT_TRUE(crowd.ok()) << crowd.status().ToString();
  Result r = RunFor(crowd.value().get(), 2, 300);
  // Every connection soon asks for a missing _id: it fails once and stops.
  EXPECT_EQ(r.errors, 4);
}

TEST_F(EventCrowdTest, ScansMustFindNothing) {
  Load(20);
  {
    auto crowd = EventCrowd::Connect(Options(3, 1, 20, /*scans=*/true));
    ASSERT_TRUE(crowd.ok()) << crowd.status().ToString();
    Result r = RunFor(crowd.value().get(), 1, 200);
    EXPECT_EQ(r.errors, 0);
    EXPECT_GT(r.latencies[0].size(), 3u);
  }
  InsertJson("load", std::string(R"([{"_id": 1000, "v": ")") + kNoSuchValue + R"("}])");
  auto crowd = EventCrowd::Connect(Options(3, 1, 20, /*scans=*/true));
  ASSERT_TRUE(crowd.ok()) << crowd.status().ToString();
  Result r = RunFor(crowd.value().get(), 1, 200);
  EXPECT_EQ(r.errors, 3) << "a scan that found a document is a failed request";
  EXPECT_TRUE(r.latencies[0].empty());
}

}  // namespace
}  // namespace tigerdoc::bench
