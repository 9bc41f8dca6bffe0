#include "wire/server/server.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "tests/wire/server/raw_client.h"
#include "wire/protocol/msg_header.h"
#include "wire/protocol/op_msg.h"
#include "wire/protocol/op_query.h"

namespace tigerdoc::wire {
namespace {

using testing::RawClient;

// Replies {ok: 1, echo: <body>, db, connectionId, legacy, sequences: {<id>: <count>}}.
// {sleepMs: n} blocks the worker for n ms; {hold: 1} blocks it until
// ReleaseHeld() (held() counts such requests in the handler); {throw: 1}
// throws.
class EchoHandler : public RequestHandler {
 public:
  bson::BsonDoc Handle(const ConnectionInfo& conn, const CommandRequest& request) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      seen_.push_back(request.body.ToJson());
      connections_.push_back(conn);
    }
    bson_iter_t iter;
    if (bson_iter_init_find(&iter, request.body.get(), "sleepMs")) {
      std::this_thread::sleep_for(std::chrono::milliseconds(bson_iter_as_int64(&iter)));
    }
    if (bson_iter_init_find(&iter, request.body.get(), "hold")) {
      std::unique_lock<std::mutex> lock(hold_mu_);
      ++held_;
      hold_cv_.wait(lock, [&] { return released_; });
      --held_;
    }
    if (bson_iter_init_find(&iter, request.body.get(), "throw")) {
      throw std::runtime_error("boom");
    }
    bson::BsonDoc reply;
    bson_t* b = reply.mutable_get();
    BSON_APPEND_DOUBLE(b, "ok", 1.0);
    BSON_APPEND_DOCUMENT(b, "echo", request.body.get());
    BSON_APPEND_UTF8(b, "db", request.db.c_str());
    BSON_APPEND_INT64(b, "connectionId", conn.connection_id);
    BSON_APPEND_BOOL(b, "legacy", request.legacy_op_query);
    bson_t seqs;
    BSON_APPEND_DOCUMENT_BEGIN(b, "sequences", &seqs);
    for (const auto& seq : request.sequences) {
      BSON_APPEND_INT32(&seqs, seq.identifier.c_str(), static_cast<int32_t>(seq.documents.size()));
    }
    bson_append_document_end(b, &seqs);
    return reply;
  }

  // A request with {state: 1} gets a reply that "holds state", as a reply
  // handing over a cursor does: only then does the connection look whether
  // the client left before answering, and call OnReplyUndelivered.
  bool ReplyHoldsState(const bson::BsonDoc& reply) const override {
    bson_iter_t iter, found;
    return bson_iter_init(&iter, reply.get()) &&
           bson_iter_find_descendant(&iter, "echo.state", &found);
  }
  void OnReplyUndelivered(const ConnectionInfo&, const bson::BsonDoc&) override { ++undelivered_; }
  void OnConnectionClosed(const ConnectionInfo&) override { ++closed_; }
  int undelivered() const { return undelivered_.load(); }
  int closed() const { return closed_.load(); }
  // Makes the next {hold: 1} requests wait again after a ReleaseHeld().
  void RearmHold() {
    std::lock_guard<std::mutex> lock(hold_mu_);
    released_ = false;
  }

  std::vector<std::string> seen() {
    std::lock_guard<std::mutex> lock(mu_);
    return seen_;
  }
  std::vector<ConnectionInfo> connections() {
    std::lock_guard<std::mutex> lock(mu_);
    return connections_;
  }
  int held() {
    std::lock_guard<std::mutex> lock(hold_mu_);
    return held_;
  }
  void ReleaseHeld() {
    std::lock_guard<std::mutex> lock(hold_mu_);
    released_ = true;
    hold_cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::vector<std::string> seen_;
  std::vector<ConnectionInfo> connections_;
  std::mutex hold_mu_;
  std::condition_variable hold_cv_;
  int held_ = 0;
  bool released_ = false;
  std::atomic<int> undelivered_{0};
  std::atomic<int> closed_{0};
};

std::string OpMsg(int32_t request_id, const std::string& json, uint32_t flags = 0,
                  const std::vector<DocumentSequence>& seqs = {}) {
  return SerializeOpMsg(request_id, 0, flags, bson::BsonDoc::FromJson(json), seqs);
}

bson::BsonDoc ReplyDoc(const std::vector<uint8_t>& message) {
  auto parsed = ParseOpMsg(message.data(), message.size());
  EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
  return parsed.ok() ? std::move(parsed.value().body) : bson::BsonDoc();
}

int64_t Int(const bson::BsonDoc& doc, const char* dotted) {
  bson_iter_t iter, found;
  if (!bson_iter_init(&iter, doc.get()) || !bson_iter_find_descendant(&iter, dotted, &found)) {
    return INT64_MIN;
  }
  return bson_iter_as_int64(&found);
}

std::string Str(const bson::BsonDoc& doc, const char* key) {
  bson_iter_t iter;
  if (!bson_iter_init_find(&iter, doc.get(), key) || !BSON_ITER_HOLDS_UTF8(&iter)) return "";
  return bson_iter_utf8(&iter, nullptr);
}

class ServerTest : public ::testing::Test {
 protected:
  void StartServer(const std::string& bind_ip = "127.0.0.1") {
    ServerOptions options;
    options.bind_ip = bind_ip;
    options.port = 0;
    options.handle_signals = false;
    server_ = std::make_unique<Server>(options, &handler_);
    Status started = server_->Start();
    ASSERT_TRUE(started.ok()) << started.ToString();
    run_thread_ = std::thread([this] { server_->Run(); });
  }
  void SetUp() override { StartServer(); }
  void TearDown() override { StopServer(); }
  void StopServer() {
    if (!server_) return;
    server_->Stop();
    run_thread_.join();
    server_.reset();
  }

  std::unique_ptr<RawClient> Connect() {
    auto client = std::make_unique<RawClient>("127.0.0.1", server_->port());
    EXPECT_TRUE(client->connected());
    return client;
  }

  EchoHandler handler_;
  std::unique_ptr<Server> server_;
  std::thread run_thread_;
};

TEST_F(ServerTest, PicksAFreePortWhenAskedForZero) { EXPECT_GT(server_->port(), 0); }

TEST_F(ServerTest, OpMsgRoundTripRepliesWithResponseToAndEcho) {
  auto client = Connect();
  ASSERT_TRUE(client->Send(OpMsg(41, R"({"ping": 1, "$db": "admin"})")));
  auto reply = client->ReadMessage();
  ASSERT_TRUE(reply.has_value());
  EXPECT_EQ(LoadInt32(reply->data() + 8), 41);       // responseTo
  EXPECT_EQ(LoadInt32(reply->data() + 12), kOpMsg);  // opCode
  EXPECT_EQ(LoadInt32(reply->data() + 16), 0);       // flagBits
  bson::BsonDoc body = ReplyDoc(*reply);
  EXPECT_EQ(Int(body, "ok"), 1);
  EXPECT_EQ(Int(body, "echo.ping"), 1);
  EXPECT_EQ(Str(body, "db"), "admin");
  EXPECT_EQ(Int(body, "connectionId"), 1);
  auto conns = handler_.connections();
  ASSERT_EQ(conns.size(), 1u);
  EXPECT_EQ(conns[0].remote_address.rfind("127.0.0.1:", 0), 0u) << conns[0].remote_address;
  EXPECT_EQ(conns[0].local_address, "127.0.0.1:" + std::to_string(server_->port()));
}

TEST_F(ServerTest, DocumentSequencesReachTheHandler) {
  auto client = Connect();
  std::vector<DocumentSequence> seqs(1);
  seqs[0].identifier = "documents";
  const bson::BsonDoc doc = bson::BsonDoc::FromJson(R"({"a": 1})");
  seqs[0].documents.assign(3, doc.bytes());
  ASSERT_TRUE(client->Send(OpMsg(5, R"({"insert": "c", "$db": "test"})", kChecksumPresent, seqs)));
  auto reply = client->ReadMessage();
  ASSERT_TRUE(reply.has_value());
  EXPECT_EQ(Int(ReplyDoc(*reply), "sequences.documents"), 3);
}

TEST_F(ServerTest, OpQueryHandshakeIsAnsweredWithOpReply) {
  auto client = Connect();
  OpQuery query;
  query.full_collection_name = "admin.$cmd";
  query.number_to_return = -1;
  query.query = bson::BsonDoc::FromJson(R"({"isMaster": 1, "client": {"app": "t"}})");
  ASSERT_TRUE(client->Send(SerializeOpQuery(77, query)));
  auto reply = client->ReadMessage();
  ASSERT_TRUE(reply.has_value());
  EXPECT_EQ(LoadInt32(reply->data() + 8), 77);         // responseTo
  EXPECT_EQ(LoadInt32(reply->data() + 12), kOpReply);  // opCode
  EXPECT_EQ(LoadInt32(reply->data() + 16), 0);         // responseFlags
  EXPECT_EQ(LoadInt32(reply->data() + 20), 0);         // cursorID low
  EXPECT_EQ(LoadInt32(reply->data() + 24), 0);         // cursorID high
  EXPECT_EQ(LoadInt32(reply->data() + 28), 0);         // startingFrom
  EXPECT_EQ(LoadInt32(reply->data() + 32), 1);         // numberReturned
  auto doc = bson::BsonDoc::FromBytes(reply->data() + 36, reply->size() - 36);
  ASSERT_TRUE(doc.ok());
  EXPECT_EQ(Int(doc.value(), "echo.isMaster"), 1);
  EXPECT_EQ(Str(doc.value(), "db"), "admin");
  // The connection then speaks OP_MSG as drivers do after the handshake.
  ASSERT_TRUE(client->Send(OpMsg(78, R"({"ping": 1, "$db": "admin"})")));
  reply = client->ReadMessage();
  ASSERT_TRUE(reply.has_value());
  EXPECT_EQ(LoadInt32(reply->data() + 12), kOpMsg);
}

TEST_F(ServerTest, OpQueryOnANonCommandNamespaceGetsAnErrorReply) {
  auto client = Connect();
  OpQuery query;
  query.full_collection_name = "test.coll";
  query.query = bson::BsonDoc::FromJson(R"({"a": 1})");
  ASSERT_TRUE(client->Send(SerializeOpQuery(9, query)));
  auto reply = client->ReadMessage();
  ASSERT_TRUE(reply.has_value());
  EXPECT_EQ(LoadInt32(reply->data() + 12), kOpReply);
  auto doc = bson::BsonDoc::FromBytes(reply->data() + 36, reply->size() - 36);
  ASSERT_TRUE(doc.ok());
  EXPECT_EQ(Int(doc.value(), "ok"), 0);
  EXPECT_EQ(Int(doc.value(), "code"), 5739101);
  EXPECT_TRUE(handler_.seen().empty());
}

TEST_F(ServerTest, MoreToComeGetsNoReplyButIsHandledInOrder) {
  auto client = Connect();
  ASSERT_TRUE(client->Send(OpMsg(1, R"({"insert": "fire", "$db": "t"})", kMoreToCome)));
  ASSERT_TRUE(client->Send(OpMsg(2, R"({"ping": 1, "$db": "t"})")));
  auto reply = client->ReadMessage();
  ASSERT_TRUE(reply.has_value());
  // The first message on the wire answers the ping: nothing came for request 1.
  EXPECT_EQ(LoadInt32(reply->data() + 8), 2);
  auto seen = handler_.seen();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_NE(seen[0].find("fire"), std::string::npos);
  EXPECT_NE(seen[1].find("ping"), std::string::npos);
}

TEST_F(ServerTest, OutOfBoundsLengthClosesOnlyThatConnection) {
  for (int32_t length : {kMaxMessageBytes + 1, 15, 0, -1}) {
    auto bad = Connect();
    auto good = Connect();
    std::vector<uint8_t> header(16, 0);
    StoreInt32(header.data(), length);
    StoreInt32(header.data() + 4, 3);
    StoreInt32(header.data() + 12, kOpMsg);
    ASSERT_TRUE(bad->Send(header));
    EXPECT_TRUE(bad->ClosedByPeer()) << length;
    ASSERT_TRUE(good->Send(OpMsg(4, R"({"ping": 1, "$db": "a"})")));
    auto reply = good->ReadMessage();
    ASSERT_TRUE(reply.has_value()) << length;
    EXPECT_EQ(LoadInt32(reply->data() + 8), 4);
  }
}

TEST_F(ServerTest, MaximumLengthIsAcceptedAndParsed) {
  // A 48,000,000-byte message is within bounds: it is read and answered
  // (here with an error, since one document cannot be that large).
  auto client = Connect();
  std::vector<uint8_t> big(kMaxMessageBytes, 0);
  StoreInt32(big.data(), kMaxMessageBytes);
  StoreInt32(big.data() + 4, 12);
  StoreInt32(big.data() + 12, kOpMsg);
  StoreInt32(big.data() + 21, kMaxMessageBytes - 21);  // kind-0 body claiming the rest
  ASSERT_TRUE(client->Send(big));
  auto reply = client->ReadMessage();
  ASSERT_TRUE(reply.has_value());
  bson::BsonDoc body = ReplyDoc(*reply);
  EXPECT_EQ(Int(body, "ok"), 0);
  EXPECT_EQ(Int(body, "code"), 10334);
}

TEST_F(ServerTest, GarbageBsonGetsErrorReplyAndConnectionStaysUsable) {
  auto client = Connect();
  std::string bad = OpMsg(21, R"({"ping": 1, "$db": "admin"})");
  bad[25] = 0x77;  // not a BSON element type
  ASSERT_TRUE(client->Send(bad));
  auto reply = client->ReadMessage();
  ASSERT_TRUE(reply.has_value());
  EXPECT_EQ(LoadInt32(reply->data() + 8), 21);
  bson::BsonDoc body = ReplyDoc(*reply);
  EXPECT_EQ(Int(body, "ok"), 0);
  EXPECT_EQ(Int(body, "code"), 22);
  EXPECT_EQ(Str(body, "codeName"), "InvalidBSON");
  EXPECT_FALSE(Str(body, "errmsg").empty());

  ASSERT_TRUE(client->Send(OpMsg(22, R"({"ping": 1})")));  // no $db
  reply = client->ReadMessage();
  ASSERT_TRUE(reply.has_value());
  body = ReplyDoc(*reply);
  EXPECT_EQ(Int(body, "code"), 40571);
  EXPECT_EQ(Str(body, "codeName"), "Location40571");

  ASSERT_TRUE(client->Send(OpMsg(23, R"({"ping": 1, "$db": "admin"})")));
  reply = client->ReadMessage();
  ASSERT_TRUE(reply.has_value());
  EXPECT_EQ(LoadInt32(reply->data() + 8), 23);
  EXPECT_EQ(Int(ReplyDoc(*reply), "ok"), 1);
  EXPECT_EQ(handler_.seen().size(), 1u);
}

TEST_F(ServerTest, ParseErrorWithMoreToComeGetsNoReply) {
  auto client = Connect();
  ASSERT_TRUE(client->Send(OpMsg(1, R"({"ping": 1})", kMoreToCome)));  // no $db
  ASSERT_TRUE(client->Send(OpMsg(2, R"({"ping": 1, "$db": "a"})")));
  auto reply = client->ReadMessage();
  ASSERT_TRUE(reply.has_value());
  EXPECT_EQ(LoadInt32(reply->data() + 8), 2);
}

TEST_F(ServerTest, CompressedUnknownOpcodesIllegalFlagsAndBadChecksumsClose) {
  std::vector<std::string> fatal;
  std::string compressed = OpMsg(1, R"({"ping": 1, "$db": "a"})");
  StoreInt32(reinterpret_cast<uint8_t*>(compressed.data()) + 12, kOpCompressed);
  fatal.push_back(compressed);
  std::string legacy_insert = compressed;
  StoreInt32(reinterpret_cast<uint8_t*>(legacy_insert.data()) + 12, 2002);
  fatal.push_back(legacy_insert);
  fatal.push_back(OpMsg(1, R"({"ping": 1, "$db": "a"})", 1u << 5));
  std::string bad_sum = OpMsg(1, R"({"ping": 1, "$db": "a"})", kChecksumPresent);
  bad_sum.back() ^= 0x5A;
  fatal.push_back(bad_sum);
  for (size_t i = 0; i < fatal.size(); ++i) {
    auto client = Connect();
    ASSERT_TRUE(client->Send(fatal[i]));
    EXPECT_TRUE(client->ClosedByPeer()) << i;
  }
  auto good = Connect();
  ASSERT_TRUE(good->Send(OpMsg(2, R"({"ping": 1, "$db": "a"})")));
  EXPECT_TRUE(good->ReadMessage().has_value());
}

TEST_F(ServerTest, HandlerExceptionBecomesInternalErrorReply) {
  auto client = Connect();
  ASSERT_TRUE(client->Send(OpMsg(3, R"({"throw": 1, "$db": "a"})")));
  auto reply = client->ReadMessage();
  ASSERT_TRUE(reply.has_value());
  bson::BsonDoc body = ReplyDoc(*reply);
  EXPECT_EQ(Int(body, "code"), 1);
  EXPECT_EQ(Str(body, "codeName"), "InternalError");
}

TEST_F(ServerTest, ConnectionIdsCountUpFromOne) {
  std::vector<std::unique_ptr<RawClient>> clients;
  for (int i = 0; i < 3; ++i) {
    clients.push_back(Connect());
    ASSERT_TRUE(clients.back()->Send(OpMsg(1, R"({"ping": 1, "$db": "a"})")));
    auto reply = clients.back()->ReadMessage();
    ASSERT_TRUE(reply.has_value());
    EXPECT_EQ(Int(ReplyDoc(*reply), "connectionId"), i + 1);
  }
}

TEST_F(ServerTest, StalledAndSlowConnectionsDoNotBlockOthers) {
  // One client stalls mid-message, another runs a command that stays in its
  // handler until the test releases it (no timing: on a loaded machine a
  // fixed-length slow command could end before the fast pings were done).
  struct ReleaseOnExit {
    EchoHandler& handler;
    ~ReleaseOnExit() { handler.ReleaseHeld(); }
  } release_on_exit{handler_};
  auto stalled = Connect();
  std::string msg = OpMsg(1, R"({"ping": 1, "$db": "a"})");
  ASSERT_TRUE(stalled->Send(msg.data(), 20));
  auto slow = Connect();
  ASSERT_TRUE(slow->Send(OpMsg(2, R"({"hold": 1, "$db": "a"})")));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (handler_.held() == 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_EQ(handler_.held(), 1) << "the slow command never reached its handler";

  // Served while the slow command is still running (each read gives up
  // after RawClient's 5 s timeout, so a server that waited for it fails).
  auto fast = Connect();
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE(fast->Send(OpMsg(100 + i, R"({"ping": 1, "$db": "a"})")));
    ASSERT_TRUE(fast->ReadMessage().has_value()) << "ping " << i;
  }
  EXPECT_EQ(handler_.held(), 1);
  handler_.ReleaseHeld();
  EXPECT_TRUE(slow->ReadMessage().has_value());
  // The stalled message completes once the rest of it arrives.
  ASSERT_TRUE(stalled->Send(msg.data() + 20, msg.size() - 20));
  auto reply = stalled->ReadMessage();
  ASSERT_TRUE(reply.has_value());
  EXPECT_EQ(LoadInt32(reply->data() + 8), 1);
}

// The connection looks whether its client left (a poll(2)) only before a
// reply that holds state; other replies are sent into the closed socket
// and the connection ends at its next read (issue #18: the poll was a
// third of a find's syscalls).
TEST_F(ServerTest, AClientLeavingMidCommandIsNoticedWhenTheReplyHoldsState) {
  struct ReleaseOnExit {
    EchoHandler& handler;
    ~ReleaseOnExit() { handler.ReleaseHeld(); }
  } release_on_exit{handler_};
  auto wait_for = [](const std::function<bool()>& done) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!done() && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return done();
  };
  for (const bool state : {true, false, true}) {
    handler_.RearmHold();
    const int undelivered = handler_.undelivered(), closed = handler_.closed();
    auto client = Connect();
    ASSERT_TRUE(client->Send(OpMsg(1, state ? R"({"hold": 1, "state": 1, "$db": "a"})"
                                            : R"({"hold": 1, "$db": "a"})")));
    ASSERT_TRUE(wait_for([&] { return handler_.held() == 1; })) << state;
    client.reset();  // the client leaves while its command runs
    handler_.ReleaseHeld();
    ASSERT_TRUE(wait_for([&] { return handler_.closed() == closed + 1; })) << state;
    EXPECT_EQ(handler_.undelivered(), undelivered + (state ? 1 : 0)) << state;
  }
  // The server still serves.
  auto after = Connect();
  ASSERT_TRUE(after->Send(OpMsg(7, R"({"ping": 1, "$db": "a"})")));
  auto reply = after->ReadMessage();
  ASSERT_TRUE(reply.has_value());
  EXPECT_EQ(LoadInt32(reply->data() + 8), 7);
}

TEST_F(ServerTest, FiftyConnectionsPipeliningHundredRequestsGetInOrderReplies) {
  constexpr int kConnections = 50;
  constexpr int kRequests = 100;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int c = 0; c < kConnections; ++c) {
    threads.emplace_back([&, c] {
      RawClient client("127.0.0.1", server_->port());
      if (!client.connected()) return void(failures++);
      // All requests go out before any reply is read, so ordering is the
      // server's doing, not the client's.
      std::string batch;
      for (int i = 0; i < kRequests; ++i) {
        batch += OpMsg(c * 1000 + i, "{\"seq\": " + std::to_string(i) +
                                         ", \"conn\": " + std::to_string(c) + ", \"$db\": \"a\"}");
      }
      if (!client.Send(batch)) return void(failures++);
      for (int i = 0; i < kRequests; ++i) {
        auto reply = client.ReadMessage();
        if (!reply.has_value()) return void(failures++);
        bson::BsonDoc body = ReplyDoc(*reply);
        if (LoadInt32(reply->data() + 8) != c * 1000 + i || Int(body, "echo.seq") != i ||
            Int(body, "echo.conn") != c) {
          failures++;
          return;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(handler_.seen().size(), static_cast<size_t>(kConnections * kRequests));
}

TEST_F(ServerTest, StopClosesClientConnectionsAndRunReturns) {
  auto client = Connect();
  ASSERT_TRUE(client->Send(OpMsg(1, R"({"ping": 1, "$db": "a"})")));
  ASSERT_TRUE(client->ReadMessage().has_value());
  StopServer();
  EXPECT_TRUE(client->ClosedByPeer());
}

TEST(ServerStartTest, ListensOnEveryAddressOfACommaSeparatedListIncludingIpv6) {
  EchoHandler handler;
  ServerOptions options;
  options.bind_ip = "127.0.0.1, ::1";
  options.port = 0;
  options.handle_signals = false;
  Server server(options, &handler);
  Status started = server.Start();
  ASSERT_TRUE(started.ok()) << started.ToString();
  std::thread run([&] { server.Run(); });
  for (const char* ip : {"127.0.0.1", "::1"}) {
    RawClient client(ip, server.port());
    ASSERT_TRUE(client.connected()) << ip;
    ASSERT_TRUE(client.Send(OpMsg(1, R"({"ping": 1, "$db": "a"})")));
    auto reply = client.ReadMessage();
    ASSERT_TRUE(reply.has_value()) << ip;
  }
  auto conns = handler.connections();
  ASSERT_EQ(conns.size(), 2u);
  EXPECT_EQ(conns[1].remote_address.rfind("[::1]:", 0), 0u) << conns[1].remote_address;
  server.Stop();
  run.join();
}

TEST(ServerStartTest, InvalidAddressIsBadValue) {
  EchoHandler handler;
  ServerOptions options;
  options.bind_ip = "127.0.0.1,not-an-ip";
  options.port = 0;
  options.handle_signals = false;
  Server server(options, &handler);
  EXPECT_EQ(server.Start().code(), ErrorCode::kBadValue);
}

TEST(ServerStartTest, PortInUseIsSocketException) {
  EchoHandler handler;
  ServerOptions options;
  options.port = 0;
  options.handle_signals = false;
  Server first(options, &handler);
  ASSERT_TRUE(first.Start().ok());
  options.port = first.port();
  Server second(options, &handler);
  EXPECT_EQ(second.Start().code(), ErrorCode::kSocketException);
}

TEST(ServerStartTest, StopBeforeRunMakesRunReturnAtOnce) {
  EchoHandler handler;
  ServerOptions options;
  options.port = 0;
  options.handle_signals = false;
  Server server(options, &handler);
  ASSERT_TRUE(server.Start().ok());
  server.Stop();
  server.Run();  // returns immediately
}

TEST(ServerSignalTest, SigtermMakesRunReturn) {
  EchoHandler handler;
  ServerOptions options;
  options.port = 0;
  Server server(options, &handler);
  ASSERT_TRUE(server.Start().ok());
  std::thread run([&] { server.Run(); });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ::kill(::getpid(), SIGTERM);
  run.join();  // hangs (and the test times out) if the signal were ignored
}

}  // namespace
}  // namespace tigerdoc::wire
