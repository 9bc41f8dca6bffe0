// Framing and parsing robustness over a raw socket: bad lengths close the
// connection, bad BSON never gets an ok:1, truncated messages do not block
// anyone else, and after each the server still answers a libmongoc ping.
#include "tests/e2e/e2e_test_base.h"
#include "tests/testutil/raw_connection.h"

namespace tigerdoc::e2e {
namespace {

using testutil::EncodeHeader;
using testutil::EncodeOpMsg;
using testutil::Integer;
using testutil::Json;
using testutil::kOpMsg;
using testutil::RawConnection;
using ReadResult = RawConnection::ReadResult;

constexpr auto kReadTimeout = std::chrono::milliseconds(5000);

class MalformedMessageTest : public E2eTest {
 protected:
  // A fresh libmongoc client can still ping: the server survived.
  void ExpectServerAlive() {
    ASSERT_TRUE(server_->running());
    MongoClient fresh(server_->uri());
    BsonDoc r = fresh.RunCommand("admin", R"({"ping": 1})");
    EXPECT_OK_REPLY(r);
    EXPECT_OK_REPLY(Run(R"({"ping": 1})"));
  }

  static BsonDoc PingWithDb() { return BsonDoc::FromJson(R"({"ping": 1, "$db": "admin"})"); }
};

TEST_F(MalformedMessageTest, RawOpMsgPingGetsReplyToItsRequestId) {
  RawConnection c = ConnectRaw();
  ASSERT_TRUE(c.Send(EncodeOpMsg(4242, PingWithDb())).ok());
  std::string reply;
  ASSERT_EQ(c.ReadMessage(&reply, kReadTimeout), ReadResult::kMessage);
  EXPECT_EQ(testutil::ResponseTo(reply), 4242);
  auto body = testutil::DecodeOpMsgBody(reply);
  ASSERT_TRUE(body.ok()) << body.status().ToString();
  EXPECT_OK_REPLY(body.value());
}

TEST_F(MalformedMessageTest, PipelinedMessagesInOneWriteGetOneReplyEach) {
  RawConnection c = ConnectRaw();
  ASSERT_TRUE(c.Send(EncodeOpMsg(1, PingWithDb()) + EncodeOpMsg(2, PingWithDb())).ok());
  std::string reply;
  ASSERT_EQ(c.ReadMessage(&reply, kReadTimeout), ReadResult::kMessage);
  EXPECT_EQ(testutil::ResponseTo(reply), 1);
  ASSERT_EQ(c.ReadMessage(&reply, kReadTimeout), ReadResult::kMessage);
  EXPECT_EQ(testutil::ResponseTo(reply), 2);
}

TEST_F(MalformedMessageTest, OpMsgWithoutDbIsRejectedButConnectionLives) {
  RawConnection c = ConnectRaw();
  ASSERT_TRUE(c.Send(EncodeOpMsg(7, BsonDoc::FromJson(R"({"ping": 1})"))).ok());
  std::string reply;
  ASSERT_EQ(c.ReadMessage(&reply, kReadTimeout), ReadResult::kMessage);
  auto body = testutil::DecodeOpMsgBody(reply);
  ASSERT_TRUE(body.ok()) << body.status().ToString();
  EXPECT_EQ(testutil::Number(body.value(), "ok"), 0.0) << Json(body.value());
  EXPECT_EQ(Integer(body.value(), "code"), 40571) << Json(body.value());
  // A command error keeps the connection.
  ASSERT_TRUE(c.Send(EncodeOpMsg(8, PingWithDb())).ok());
  ASSERT_EQ(c.ReadMessage(&reply, kReadTimeout), ReadResult::kMessage);
  EXPECT_EQ(testutil::ResponseTo(reply), 8);
}

TEST_F(MalformedMessageTest, LengthBelowHeaderSizeClosesConnection) {
  for (int32_t len : {0, 10, 15, -1}) {
    RawConnection c = ConnectRaw();
    (void)c.Send(EncodeHeader(len, 1, 0, kOpMsg) + std::string(16, '\0'));
    std::string reply;
    EXPECT_EQ(c.ReadMessage(&reply, kReadTimeout), ReadResult::kClosed) << "length " << len;
  }
  ExpectServerAlive();
}

TEST_F(MalformedMessageTest, LengthAboveMaxMessageSizeClosesConnection) {
  for (int32_t len : {48000001, 0x7fffffff}) {
    RawConnection c = ConnectRaw();
    (void)c.Send(EncodeHeader(len, 1, 0, kOpMsg) + std::string(64, 'x'));
    std::string reply;
    EXPECT_EQ(c.ReadMessage(&reply, kReadTimeout), ReadResult::kClosed) << "length " << len;
  }
  ExpectServerAlive();
}

TEST_F(MalformedMessageTest, GarbageBsonNeverSucceeds) {
  // Well-framed OP_MSG whose body claims 13 bytes but holds element type
  // 0x77, which does not exist; then one whose inner length overruns the
  // message; then random bytes.
  const std::string bad_type("\x0d\x00\x00\x00\x77\x61\x00\x01\x02\x03\x04\x05\x00", 13);
  const std::string overrun("\xff\x00\x00\x00\x10\x61\x00\x01\x00\x00\x00\x00", 12);
  const std::string noise("\x13\x37\xde\xad\xbe\xef\x00\x42\x42\x42", 10);
  int32_t request_id = 100;
  for (const std::string& doc : {bad_type, overrun, noise}) {
    std::string payload(4, '\0');  // flagBits
    payload.push_back('\0');       // kind 0
    payload += doc;
    RawConnection c = ConnectRaw();
    ASSERT_TRUE(c.Send(EncodeHeader(static_cast<int32_t>(16 + payload.size()), ++request_id, 0,
                                    kOpMsg) +
                       payload)
                    .ok());
    std::string reply;
    ReadResult rr = c.ReadMessage(&reply, kReadTimeout);
    // MongoDB answers {ok: 0} for parse errors it can report and closes
    // the connection for framing errors; either is fine, success is not,
    // and silence (a hung connection) is not.
    ASSERT_NE(rr, ReadResult::kTimeout) << "no reply and no close for request " << request_id;
    if (rr == ReadResult::kMessage) {
      EXPECT_EQ(testutil::ResponseTo(reply), request_id);
      auto body = testutil::DecodeOpMsgBody(reply);
      ASSERT_TRUE(body.ok()) << body.status().ToString();
      EXPECT_EQ(testutil::Number(body.value(), "ok"), 0.0) << Json(body.value());
      EXPECT_TRUE(Integer(body.value(), "code").has_value()) << Json(body.value());
    }
  }
  ExpectServerAlive();
}

TEST_F(MalformedMessageTest, TruncatedMessageDoesNotBlockOthers) {
  RawConnection c = ConnectRaw();
  std::string full = EncodeOpMsg(9, PingWithDb());
  ASSERT_TRUE(c.Send(full.substr(0, full.size() / 2)).ok());
  // While that connection waits for the rest, others are served.
  ExpectServerAlive();
  // The client gives up mid-message: the server closes its side.
  c.ShutdownWrite();
  std::string reply;
  EXPECT_EQ(c.ReadMessage(&reply, kReadTimeout), ReadResult::kClosed);
  ExpectServerAlive();
}

TEST_F(MalformedMessageTest, HeaderOnlyThenCloseIsHarmless) {
  {
    RawConnection c = ConnectRaw();
    ASSERT_TRUE(c.Send(EncodeHeader(1000, 1, 0, kOpMsg)).ok());
  }  // closed without the body
  {
    RawConnection c = ConnectRaw();
    ASSERT_TRUE(c.Send(std::string("\x20\x00", 2)).ok());
  }  // closed inside the header
  ExpectServerAlive();
}

}  // namespace
}  // namespace tigerdoc::e2e
