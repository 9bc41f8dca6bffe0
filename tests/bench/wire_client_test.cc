// bench/wire_client.h against the real server (round trips, replies of
// every size around its read buffer, server errors) and against a scripted
// peer that breaks the wire protocol in each way the client must notice
// (wrong responseTo or opCode, moreToCome, unknown required flags, bad
// checksums, closed connections, an old server). The peer also checks the
// requests the client sends, parsed with the server's own OP_MSG parser.
#include "bench/wire_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "tests/bench/scripted_peer.h"
#include "tests/e2e/e2e_test_base.h"
#include "wire/protocol/msg_header.h"
#include "wire/protocol/op_msg.h"

namespace tigerdoc::bench {
namespace {

using testutil::BsonDoc;

// A copy of a reply the client owns, for the testutil readers.
BsonDoc Copy(const bson_t& reply) {
  auto doc = BsonDoc::FromBytes(bson_get_data(&reply), reply.len);
  EXPECT_TRUE(doc.ok());
  return doc.ok() ? std::move(doc).value() : BsonDoc();
}

// Runs `json` (relaxed extended JSON) on `db` through `client`.
Status RunJson(WireClient& client, const std::string& db, const std::string& json, BsonDoc* out) {
  BsonDoc cmd = BsonDoc::FromJson(json);
  bson_t reply;
  bson_init(&reply);
  Status status = client.Run(cmd.mutable_get(), db, &reply);
  if (out != nullptr && reply.len > 5) *out = Copy(reply);
  return status;
}

// ---- Against the real server ----------------------------------------------

class WireClientTest : public e2e::E2eTest {
 protected:
  std::unique_ptr<WireClient> ConnectWire() {
    auto client = WireClient::Connect("127.0.0.1", server_->port());
    EXPECT_TRUE(client.ok()) << client.status().ToString();
    return client.ok() ? std::move(client).value() : nullptr;
  }
};

TEST_F(WireClientTest, HandshakeLearnsTheServersLimits) {
  auto wire = ConnectWire();
  ASSERT_NE(wire, nullptr);
  EXPECT_EQ(wire->max_message_bytes(), 48000000);
  EXPECT_EQ(wire->max_bson_object_bytes(), 16 * 1024 * 1024);
  EXPECT_EQ(wire->max_write_batch_size(), 100000);
  BsonDoc reply;
  ASSERT_TRUE(RunJson(*wire, "admin", R"({"ping": 1})", &reply).ok());
  EXPECT_OK_REPLY(reply);
}

TEST_F(WireClientTest, WritesWhatTheDriverReadsAndReadsWhatItWrote) {
  auto wire = ConnectWire();
  ASSERT_NE(wire, nullptr);
  BsonDoc reply;
  ASSERT_TRUE(RunJson(*wire, db_, R"({"insert": "c", "documents": [{"_id": 1, "s": "abc"}]})", &reply).ok());
  EXPECT_EQ(testutil::Integer(reply, "n"), 1) << testutil::Json(reply);
  // The driver sees the document the wire client inserted...
  BsonDoc found = Run(R"({"find": "c", "filter": {"_id": 1}})");
  EXPECT_EQ(testutil::String(found, "cursor.firstBatch.0.s"), "abc") << testutil::Json(found);
  // ...and the wire client reads what the driver wrote.
  InsertJson("c", R"([{"_id": 2, "s": "def"}])");
  ASSERT_TRUE(RunJson(*wire, db_, R"({"find": "c", "filter": {"_id": 2}, "limit": 1, "singleBatch": true})",
                      &reply).ok());
  EXPECT_EQ(testutil::String(reply, "cursor.firstBatch.0.s"), "def") << testutil::Json(reply);
  EXPECT_EQ(testutil::Integer(reply, "cursor.id"), 0);
}

// The client reads 16 KiB at first and grows its buffer to the reply: sizes
// just below and above that, well above 64 KiB (one loopback read rarely
// holds more) and of megabytes must arrive whole, and the stream must stay
// in step for the next command.
TEST_F(WireClientTest, RepliesOfEverySizeArriveWhole) {
  auto wire = ConnectWire();
  ASSERT_NE(wire, nullptr);
  const std::vector<size_t> sizes = {100, 16 * 1024 - 200, 16 * 1024 + 200, 70 * 1024, 4 * 1024 * 1024};
  for (size_t i = 0; i < sizes.size(); ++i) {
    const std::string value(sizes[i], static_cast<char>('a' + i));
    BsonDoc doc;
    BSON_APPEND_INT32(doc.mutable_get(), "_id", static_cast<int>(i));
    bson_append_utf8(doc.mutable_get(), "s", 1, value.data(), static_cast<int>(value.size()));
    std::vector<BsonDoc> docs;
    docs.push_back(std::move(doc));
    BsonDoc reply = client_->InsertMany(db_, "big", docs);
    ASSERT_EQ(testutil::Integer(reply, "insertedCount"), 1) << testutil::Json(reply);
  }
  for (size_t i = 0; i < sizes.size(); ++i) {
    BsonDoc reply;
    ASSERT_TRUE(RunJson(*wire, db_, R"({"find": "big", "filter": {"_id": )" + std::to_string(i) + "}}",
                        &reply).ok());
    EXPECT_EQ(testutil::String(reply, "cursor.firstBatch.0.s"),
              std::string(sizes[i], static_cast<char>('a' + i)))
        << "reply for a " << sizes[i] << "-byte value";
  }
  EXPECT_GE(wire->multi_read_replies(), 2) << "the 70 KiB and 4 MiB replies cannot fit one 16 KiB read";
  // All five at once: one reply of ~4.2 MB with every value intact.
  BsonDoc all;
  ASSERT_TRUE(RunJson(*wire, db_, R"({"find": "big", "sort": {"_id": 1}})", &all).ok());
  ASSERT_EQ(testutil::ArrayLength(all, "cursor.firstBatch"), sizes.size());
  for (size_t i = 0; i < sizes.size(); ++i) {
    EXPECT_EQ(testutil::String(all, "cursor.firstBatch." + std::to_string(i) + ".s")->size(), sizes[i]);
  }
  BsonDoc ping;
  EXPECT_TRUE(RunJson(*wire, "admin", R"({"ping": 1})", &ping).ok());
}

TEST_F(WireClientTest, ServerErrorsAreReturnedWithTheirCodeAndTheConnectionStaysUsable) {
  auto wire = ConnectWire();
  ASSERT_NE(wire, nullptr);
  BsonDoc reply;
  Status status = RunJson(*wire, db_, R"({"noSuchCommand": 1})", &reply);
  EXPECT_EQ(status.code_number(), 59) << status.ToString();  // CommandNotFound
  EXPECT_NE(status.reason().find("CommandNotFound"), std::string::npos) << status.ToString();
  EXPECT_EQ(testutil::Number(reply, "ok"), 0.0) << testutil::Json(reply);
  status = RunJson(*wire, db_, R"({"find": "c", "filter": 5})", &reply);
  EXPECT_EQ(status.code_number(), 14) << status.ToString();  // TypeMismatch
  EXPECT_TRUE(RunJson(*wire, "admin", R"({"ping": 1})", &reply).ok());
}

TEST_F(WireClientTest, ARequestAboveTheServersLimitIsRefusedBeforeSending) {
  auto wire = ConnectWire();
  ASSERT_NE(wire, nullptr);
  // 48,000,000 bytes of message at most: three 16 MB strings exceed it.
  BsonDoc cmd;
  BSON_APPEND_UTF8(cmd.mutable_get(), "insert", "c");
  bson_t docs, doc;
  BSON_APPEND_ARRAY_BEGIN(cmd.mutable_get(), "documents", &docs);
  const std::string value(16 * 1000 * 1000, 'x');
  for (int i = 0; i < 3; ++i) {
    bson_append_document_begin(&docs, std::to_string(i).c_str(), -1, &doc);
    bson_append_utf8(&doc, "s", 1, value.data(), static_cast<int>(value.size()));
    bson_append_document_end(&docs, &doc);
  }
  bson_append_array_end(cmd.mutable_get(), &docs);
  bson_t reply;
  bson_init(&reply);
  Status status = wire->Run(cmd.mutable_get(), db_, &reply);
  EXPECT_EQ(status.code(), ErrorCode::kBSONObjectTooLarge) << status.ToString();
  BsonDoc ping;
  EXPECT_TRUE(RunJson(*wire, "admin", R"({"ping": 1})", &ping).ok());
  EXPECT_EQ(testutil::Integer(Run(R"({"count": "c"})"), "n"), 0);
}

// A write's documents in a kind-1 section after the command, as drivers
// send them (tigerdoc_load's wire client does): the server inserts them all;
// a sequence that would take the message over maxMessageSizeBytes is
// refused before anything is sent.
TEST_F(WireClientTest, ADocumentSequenceFollowsTheCommand) {
  auto wire = ConnectWire();
  ASSERT_NE(wire, nullptr);
  const std::string docs = std::string(BsonDoc::FromJson(R"({"_id": 1, "s": "a"})").bytes()) +
                           std::string(BsonDoc::FromJson(R"({"_id": 2, "s": "b"})").bytes());
  const WireSequence two{"documents", reinterpret_cast<const uint8_t*>(docs.data()), docs.size()};
  BsonDoc cmd = BsonDoc::FromJson(R"({"insert": "c"})");
  bson_t reply;
  ASSERT_TRUE(wire->Run(cmd.mutable_get(), db_, &reply, &two).ok());
  EXPECT_EQ(testutil::Integer(Copy(reply), "n"), 2) << testutil::Json(Copy(reply));
  EXPECT_EQ(testutil::String(Run(R"({"find": "c", "filter": {"_id": 2}})"), "cursor.firstBatch.0.s"), "b");

  BsonDoc big;
  const std::string value(16 * 1000 * 1000, 'x');
  bson_append_utf8(big.mutable_get(), "s", 1, value.data(), static_cast<int>(value.size()));
  const std::string one(big.bytes());
  const std::string three = one + one + one;
  const WireSequence too_big{"documents", reinterpret_cast<const uint8_t*>(three.data()), three.size()};
  BsonDoc again = BsonDoc::FromJson(R"({"insert": "c"})");
  Status status = wire->Run(again.mutable_get(), db_, &reply, &too_big);
  EXPECT_EQ(status.code(), ErrorCode::kBSONObjectTooLarge) << status.ToString();
  BsonDoc ping;
  EXPECT_TRUE(RunJson(*wire, "admin", R"({"ping": 1})", &ping).ok());
  EXPECT_EQ(testutil::Integer(Run(R"({"count": "c"})"), "n"), 2);
}

// ---- Against a scripted peer ----------------------------------------------

const BsonDoc kOk = BsonDoc::FromJson(R"({"ok": 1.0})");

// One kind-1 section "docs" of `count` copies of kOk.
std::vector<wire::DocumentSequence> Sequence(int count) {
  std::vector<wire::DocumentSequence> out(1);
  out[0].identifier = "docs";
  // A sequence holds views; kOk lives as long as the test program.
  const std::string_view ok(reinterpret_cast<const char*>(bson_get_data(kOk.get())), kOk.get()->len);
  for (int i = 0; i < count; ++i) out[0].documents.push_back(ok);
  return out;
}

std::unique_ptr<WireClient> ConnectTo(const ScriptedPeer& peer) {
  auto client = WireClient::Connect("127.0.0.1", peer.port());
  EXPECT_TRUE(client.ok()) << client.status().ToString();
  return client.ok() ? std::move(client).value() : nullptr;
}

Status Ping(WireClient& client, BsonDoc* reply = nullptr) {
  return RunJson(client, "test", R"({"ping": 1})", reply);
}

TEST(WireClientProtocolTest, RequestsAreOpMsgBodiesWithDbAndFreshRequestIds) {
  ScriptedPeer peer(AfterHello([](const ScriptedPeer::Request& r) -> std::vector<std::string> {
    return {Reply(r, BsonDoc::FromJson(R"({"ok": 1.0})"))};
  }));
  auto client = ConnectTo(peer);
  ASSERT_NE(client, nullptr);
  ASSERT_TRUE(Ping(*client).ok());
  ASSERT_TRUE(Ping(*client).ok());
  client.reset();
  std::vector<ScriptedPeer::Request> requests = peer.Finish();
  ASSERT_EQ(requests.size(), 3u);
  for (size_t i = 0; i < requests.size(); ++i) {
    const auto& r = requests[i];
    EXPECT_EQ(r.header.op_code, wire::kOpMsg);
    EXPECT_EQ(r.header.response_to, 0);
    EXPECT_EQ(r.msg.flag_bits, 0u);
    EXPECT_TRUE(r.msg.sequences.empty());
    if (i > 0) {
      EXPECT_GT(r.header.request_id, requests[i - 1].header.request_id);
    }
  }
  EXPECT_TRUE(testutil::Has(requests[0].msg.body, "hello")) << testutil::Json(requests[0].msg.body);
  EXPECT_EQ(testutil::String(requests[0].msg.body, "$db"), "admin");
  EXPECT_EQ(testutil::String(requests[0].msg.body, "client.driver.name"), "tigerdoc-bench-wire");
  EXPECT_EQ(testutil::String(requests[1].msg.body, "$db"), "test");
}

TEST(WireClientProtocolTest, AReplyInPiecesIsAssembled) {
  ScriptedPeer peer(AfterHello([](const ScriptedPeer::Request& r) -> std::vector<std::string> {
    std::string bytes = Reply(r, BsonDoc::FromJson(R"({"v": "the whole reply", "ok": 1.0})"));
    // The length prefix split, then the header, then the rest.
    return {bytes.substr(0, 2), bytes.substr(2, 20), bytes.substr(22)};
  }));
  auto client = ConnectTo(peer);
  ASSERT_NE(client, nullptr);
  BsonDoc reply;
  ASSERT_TRUE(Ping(*client, &reply).ok());
  EXPECT_EQ(testutil::String(reply, "v"), "the whole reply");
  EXPECT_EQ(client->multi_read_replies(), 1);
  EXPECT_TRUE(Ping(*client).ok());
}

// Each reply the client must refuse; after it the connection is unusable
// and later commands fail without reaching the peer.
struct BadReply {
  const char* name;
  std::function<std::string(const ScriptedPeer::Request&)> make;
  const char* message;  // part of the error
};

class WireClientBadReplyTest : public ::testing::TestWithParam<BadReply> {};

TEST_P(WireClientBadReplyTest, IsAProtocolErrorAndBreaksTheConnection) {
  const BadReply& bad = GetParam();
  ScriptedPeer peer(AfterHello([&bad](const ScriptedPeer::Request& r) -> std::vector<std::string> {
    return {bad.make(r)};
  }));
  auto client = ConnectTo(peer);
  ASSERT_NE(client, nullptr);
  Status status = Ping(*client);
  EXPECT_EQ(status.code(), ErrorCode::kProtocolError) << status.ToString();
  EXPECT_NE(status.reason().find(bad.message), std::string::npos) << status.ToString();
  Status again = Ping(*client);
  EXPECT_EQ(again.code(), ErrorCode::kProtocolError) << again.ToString();
  client.reset();
  EXPECT_EQ(peer.Finish().size(), 2u) << "the broken connection sent another request";
}

std::string WithOpCode(std::string bytes, int32_t op_code) {
  wire::StoreInt32(reinterpret_cast<uint8_t*>(bytes.data()) + 12, op_code);
  return bytes;
}

INSTANTIATE_TEST_SUITE_P(
    Replies, WireClientBadReplyTest,
    ::testing::Values(
        BadReply{"AnswersAnotherRequest",
                 [](const ScriptedPeer::Request& r) {
                   return wire::SerializeOpMsgReply(1, r.header.request_id + 1, kOk);
                 },
                 "responseTo"},
        BadReply{"OpReplyInsteadOfOpMsg",
                 [](const ScriptedPeer::Request& r) { return WithOpCode(Reply(r, kOk), wire::kOpReply); },
                 "opCode 1"},
        BadReply{"MoreToCome",
                 [](const ScriptedPeer::Request& r) { return Reply(r, kOk, wire::kMoreToCome); },
                 "moreToCome"},
        BadReply{"UnknownRequiredFlag",
                 [](const ScriptedPeer::Request& r) { return Reply(r, kOk, 1u << 5); },
                 "unknown required flag bits 0x20"},
        BadReply{"ChecksumMismatch",
                 [](const ScriptedPeer::Request& r) {
                   std::string bytes = Reply(r, kOk, wire::kChecksumPresent);
                   bytes.back() = static_cast<char>(bytes.back() ^ 1);
                   return bytes;
                 },
                 "checksum mismatch"},
        BadReply{"LengthBelowAnyReply",
                 [](const ScriptedPeer::Request& r) {
                   std::string bytes = Reply(r, kOk);
                   wire::StoreInt32(reinterpret_cast<uint8_t*>(bytes.data()), 20);
                   return bytes.substr(0, 20);
                 },
                 "messageLength 20"},
        BadReply{"NoBody",
                 [](const ScriptedPeer::Request& r) {
                   // A kind-1 section alone.
                   std::string bytes = Reply(r, kOk, 0, Sequence(1));
                   const size_t body_len = kOk.size();
                   bytes.erase(21, body_len);  // drop the body after the kind byte...
                   bytes.erase(20, 1);         // ...and the kind byte itself
                   wire::StoreInt32(reinterpret_cast<uint8_t*>(bytes.data()),
                                    static_cast<int32_t>(bytes.size()));
                   return bytes;
                 },
                 "without a kind-0 section"},
        BadReply{"TwoBodies",
                 [](const ScriptedPeer::Request& r) {
                   std::string bytes = Reply(r, kOk);
                   bytes.push_back('\0');
                   bytes.append(kOk.bytes());
                   wire::StoreInt32(reinterpret_cast<uint8_t*>(bytes.data()),
                                    static_cast<int32_t>(bytes.size()));
                   return bytes;
                 },
                 "two kind-0 sections"},
        BadReply{"UnknownSectionKind",
                 [](const ScriptedPeer::Request& r) {
                   std::string bytes = Reply(r, kOk);
                   bytes[20] = 2;
                   return bytes;
                 },
                 "unknown kind 2"},
        BadReply{"BodyLongerThanTheMessage",
                 [](const ScriptedPeer::Request& r) {
                   std::string bytes = Reply(r, kOk);
                   wire::StoreInt32(reinterpret_cast<uint8_t*>(bytes.data()) + 21, 1000);
                   return bytes;
                 },
                 "does not fit"}),
    [](const ::testing::TestParamInfo<BadReply>& info) { return std::string(info.param.name); });

TEST(WireClientProtocolTest, AChecksumIsVerifiedAndADocumentSequenceSkipped) {
  ScriptedPeer peer(AfterHello([](const ScriptedPeer::Request& r) -> std::vector<std::string> {
    return {Reply(r, BsonDoc::FromJson(R"({"v": 1, "ok": 1.0})"), wire::kChecksumPresent,
                  Sequence(2))};
  }));
  auto client = ConnectTo(peer);
  ASSERT_NE(client, nullptr);
  BsonDoc reply;
  ASSERT_TRUE(Ping(*client, &reply).ok());
  EXPECT_EQ(testutil::Integer(reply, "v"), 1);
  EXPECT_TRUE(Ping(*client).ok());
}

TEST(WireClientProtocolTest, AnUnknownOptionalFlagIsIgnored) {
  ScriptedPeer peer(AfterHello([](const ScriptedPeer::Request& r) -> std::vector<std::string> {
    return {Reply(r, kOk, 1u << 20)};
  }));
  auto client = ConnectTo(peer);
  ASSERT_NE(client, nullptr);
  EXPECT_TRUE(Ping(*client).ok());
}

TEST(WireClientProtocolTest, AReplyWithoutOkIsAnError) {
  ScriptedPeer peer(AfterHello([](const ScriptedPeer::Request& r) -> std::vector<std::string> {
    return {Reply(r, BsonDoc::FromJson(R"({"cursor": {}})"))};
  }));
  auto client = ConnectTo(peer);
  ASSERT_NE(client, nullptr);
  Status status = Ping(*client);
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.reason().find("without ok: 1"), std::string::npos) << status.ToString();
  EXPECT_TRUE(Ping(*client).ok()) << "a well-formed error reply leaves the connection usable";
}

TEST(WireClientProtocolTest, APeerThatClosesFailsTheCommand) {
  ScriptedPeer peer(AfterHello([](const ScriptedPeer::Request&) -> std::vector<std::string> { return {}; }));
  auto client = ConnectTo(peer);
  ASSERT_NE(client, nullptr);
  Status status = Ping(*client);
  EXPECT_EQ(status.code(), ErrorCode::kHostUnreachable) << status.ToString();
  EXPECT_EQ(Ping(*client).code(), ErrorCode::kHostUnreachable);
}

TEST(WireClientProtocolTest, AServerWithoutOpMsgIsRefusedAtConnect) {
  ScriptedPeer peer([](size_t, const ScriptedPeer::Request& r) -> std::vector<std::string> {
    return {Reply(r, HelloBody(5))};
  });
  auto client = WireClient::Connect("127.0.0.1", peer.port());
  ASSERT_FALSE(client.ok());
  EXPECT_NE(client.status().reason().find("maxWireVersion 5"), std::string::npos)
      << client.status().ToString();
}

TEST(WireClientProtocolTest, AHelloWithUnusableLimitsIsRefusedAtConnect) {
  ScriptedPeer peer([](size_t, const ScriptedPeer::Request& r) -> std::vector<std::string> {
    return {Reply(r, BsonDoc::FromJson(R"({"maxWireVersion": 21, "maxMessageSizeBytes": 0, "ok": 1.0})"))};
  });
  auto client = WireClient::Connect("127.0.0.1", peer.port());
  ASSERT_FALSE(client.ok());
  EXPECT_NE(client.status().reason().find("maxMessageSizeBytes 0"), std::string::npos)
      << client.status().ToString();
}

TEST(WireClientProtocolTest, NobodyListeningFailsAtConnect) {
  int port = 0;
  {
    ScriptedPeer peer([](size_t, const ScriptedPeer::Request&) { return std::vector<std::string>{}; });
    port = peer.port();
    // Unblock its accept, then it closes its listening socket.
    auto gone = WireClient::Connect("127.0.0.1", port);
    EXPECT_FALSE(gone.ok());
  }
  auto client = WireClient::Connect("127.0.0.1", port);
  ASSERT_FALSE(client.ok());
  EXPECT_EQ(client.status().code(), ErrorCode::kHostUnreachable) << client.status().ToString();
}

}  // namespace
}  // namespace tigerdoc::bench
