// 1,000 concurrent connections against a server started with --maxConns
// 1000: every one answers a ping, connections beyond the limit are closed at
// once (mongod's behaviour), the others keep working, and a slot freed by a
// client that leaves is usable again. Prints the server's memory per idle
// connection (VmRSS before and after).

#include <sys/resource.h>

#include <fstream>
#include <iostream>
#include <thread>

#include "tests/e2e/e2e_test_base.h"
#include "tests/testutil/raw_connection.h"
#include "tests/testutil/wait_until.h"

namespace tigerdoc::e2e {
namespace {

using testutil::RawConnection;
using ReadResult = RawConnection::ReadResult;

constexpr int kMaxConns = 1000;
constexpr auto kReadTimeout = std::chrono::milliseconds(10000);

// VmRSS of a process in KiB (0 when unreadable).
int64_t RssKib(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stoll(line.substr(6));
  }
  return 0;
}

BsonDoc Ping() { return BsonDoc::FromJson(R"({"ping": 1, "$db": "admin"})"); }

// Sends a ping and reads its reply; true when it came back ok.
bool PingOver(RawConnection& c, int32_t request_id) {
  if (!c.Send(testutil::EncodeOpMsg(request_id, Ping())).ok()) return false;
  std::string reply;
  if (c.ReadMessage(&reply, kReadTimeout) != ReadResult::kMessage) return false;
  auto body = testutil::DecodeOpMsgBody(reply);
  return body.ok() && testutil::IsOk(body.value()) && testutil::ResponseTo(reply) == request_id;
}

class ConnectionLimitTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // The test holds 1,000+ sockets itself.
    struct rlimit limit;
    ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &limit), 0);
    if (limit.rlim_cur < limit.rlim_max) {
      limit.rlim_cur = limit.rlim_max;
      setrlimit(RLIMIT_NOFILE, &limit);
    }
    ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &limit), 0);
    if (limit.rlim_cur < kMaxConns + 200) {
      GTEST_SKIP() << "open file limit " << limit.rlim_cur << " is too low for this test";
    }
  }
};

TEST_F(ConnectionLimitTest, ThousandConnectionsThenRefusalBeyondMaxConns) {
  ServerProcess::Options options;
  options.extra_args = {"--maxConns", std::to_string(kMaxConns)};
  ServerProcess server(options);
  ASSERT_TRUE(server.Start().ok());
  // Let start-up allocations settle before the baseline.
  {
    auto warm = RawConnection::Connect(server.port());
    ASSERT_TRUE(warm.ok());
    ASSERT_TRUE(PingOver(warm.value(), 1));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const int64_t rss_before = RssKib(server.pid());

  std::vector<RawConnection> conns;
  conns.reserve(kMaxConns);
  for (int i = 0; i < kMaxConns; ++i) {
    auto c = RawConnection::Connect(server.port());
    ASSERT_TRUE(c.ok()) << "connection " << i << ": " << c.status().ToString();
    conns.push_back(std::move(c).value());
  }
  // All open at once; each asks a ping.
  for (int i = 0; i < kMaxConns; ++i) {
    ASSERT_TRUE(PingOver(conns[i], 10 + i)) << "connection " << i;
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const int64_t rss_after = RssKib(server.pid());
  const double per_conn_kib = static_cast<double>(rss_after - rss_before) / kMaxConns;
  std::cout << "[connections] " << kMaxConns << " idle connections: server RSS " << rss_before
            << " KiB -> " << rss_after << " KiB, " << per_conn_kib << " KiB per connection"
            << std::endl;
  // Generous: a connection is a socket, a strand and a small buffer.
  EXPECT_LT(per_conn_kib, 256.0);

  // Beyond the limit: accepted by the kernel, then closed by the server
  // before any reply.
  for (int i = 0; i < 5; ++i) {
    auto extra = RawConnection::Connect(server.port());
    if (!extra.ok()) continue;  // refused outright is fine too
    static_cast<void>(extra.value().Send(testutil::EncodeOpMsg(5000 + i, Ping())));
    std::string reply;
    EXPECT_EQ(extra.value().ReadMessage(&reply, kReadTimeout), ReadResult::kClosed)
        << "connection " << i << " beyond --maxConns was served";
  }
  EXPECT_NE(server.LogTail().find("connection refused because too many open connections"),
            std::string::npos);

  // Everyone already in is still served.
  for (int i = 0; i < kMaxConns; i += 7) {
    ASSERT_TRUE(PingOver(conns[i], 20000 + i)) << "connection " << i << " after the refusals";
  }
  // A client that leaves frees its slot.
  for (int i = 0; i < 10; ++i) conns.pop_back();
  // (The server sees them leave when its threads run: waited for.)
  int attempt = 0;
  const bool served = testutil::WaitUntil(
      [&] {
        auto c = RawConnection::Connect(server.port());
        return c.ok() && PingOver(c.value(), 30000 + attempt++);
      },
      testutil::kGenerousWait, std::chrono::milliseconds(100));
  EXPECT_TRUE(served) << "no slot came free after 10 clients left";
  conns.clear();
  // Once every client left, the server holds only this client's sockets
  // (libmongoc's monitor and its command connection).
  MongoClient client(server.uri());
  int64_t current = -1;
  testutil::WaitUntil(
      [&] {
        BsonDoc status = client.RunCommand("admin", R"({"serverStatus": 1})");
        EXPECT_TRUE(testutil::IsOk(status)) << testutil::Json(status);
        current = testutil::Integer(status, "connections.current").value_or(-1);
        return current <= 2;
      },
      testutil::kGenerousWait, std::chrono::milliseconds(100));
  EXPECT_LE(current, 2);
  EXPECT_TRUE(server.Stop().ok()) << server.LogTail();
}

}  // namespace
}  // namespace tigerdoc::e2e
