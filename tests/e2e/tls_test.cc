// TLS end to end through libmongoc, with certificates made for the test by
// the openssl CLI (tests/testutil/make_test_certificates.sh): requireTLS
// with client certificates, optional client certificates, allowTLS taking
// both kinds of client, and compression and authentication inside TLS.

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "tests/e2e/e2e_test_base.h"
#include "tests/testutil/raw_connection.h"

namespace tigerdoc::e2e {
namespace {

using testutil::IsOk;
using testutil::Json;

// One CA, certificates and server per suite; `Args` names the TLS flags.
class TlsTestBase : public E2eTest {
 protected:
  static void StartWith(std::vector<std::string> tls_args) {
    char dir_template[] = "/tmp/tigerdoc-tls-XXXXXX";
    ASSERT_NE(mkdtemp(dir_template), nullptr);
    cert_dir_ = dir_template;
    const std::string make = std::string("bash ") + TIGERDOC_CERT_SCRIPT + " " + cert_dir_;
    ASSERT_EQ(std::system(make.c_str()), 0) << make;
    for (std::string& arg : tls_args) {
      const size_t at = arg.find("DIR/");
      if (at != std::string::npos) arg.replace(at, 3, cert_dir_);
    }
    StartServer(std::move(tls_args));
  }
  static void TearDownTestSuite() {
    E2eTest::TearDownTestSuite();
    std::filesystem::remove_all(cert_dir_);
  }
  void SetUp() override {
    E2eTest::SetUp();
    client_ = TlsClient("client.pem");  // replaces the plain client
  }
  // A TLS client trusting the test CA, presenting `certificate` (a file in
  // the certificate directory; none when empty).
  static std::unique_ptr<MongoClient> TlsClient(const std::string& certificate,
                                                const std::string& extra = "") {
    std::string uri = server_->uri() + "&tls=true&tlsCAFile=" + cert_dir_ + "/ca.pem";
    if (!certificate.empty()) uri += "&tlsCertificateKeyFile=" + cert_dir_ + "/" + certificate;
    return std::make_unique<MongoClient>(uri + extra);
  }
  static bool Pings(MongoClient& client) {
    return IsOk(client.RunCommand("admin", "{\"ping\": 1}"));
  }
  static inline std::string cert_dir_;
};

class TlsRequiredTest : public TlsTestBase {
 protected:
  static void SetUpTestSuite() {
    StartWith({"--tlsMode", "requireTLS", "--tlsCertificateKeyFile", "DIR/server.pem",
               "--tlsCAFile", "DIR/ca.pem"});
  }
};

TEST_F(TlsRequiredTest, ClientsWithCertificatesWorkOverTls) {
  ASSERT_OK_REPLY(Run("{\"insert\": \"c\", \"documents\": [{\"_id\": 1, \"s\": \"over tls\"}]}"));
  BsonDoc found = Run("{\"find\": \"c\"}");
  ASSERT_OK_REPLY(found);
  EXPECT_EQ(testutil::String(found, "cursor.firstBatch.0.s"), "over tls");
  // A reply larger than one TLS record (16 KiB) arrives whole.
  std::string big(100000, 'q');
  ASSERT_OK_REPLY(Run("{\"insert\": \"c\", \"documents\": [{\"_id\": 2, \"s\": \"" + big + "\"}]}"));
  EXPECT_EQ(testutil::String(Run("{\"find\": \"c\", \"filter\": {\"_id\": 2}}"),
                             "cursor.firstBatch.0.s"),
            big);
}

TEST_F(TlsRequiredTest, PlainAndUncertifiedClientsAreRefused) {
  MongoClient plain(server_->uri());
  EXPECT_FALSE(Pings(plain));
  EXPECT_FALSE(Pings(*TlsClient("")));              // no client certificate
  EXPECT_FALSE(Pings(*TlsClient("stranger.pem")));  // signed by another CA
  // A client that does not trust the server's CA refuses the server.
  MongoClient untrusting(server_->uri() + "&tls=true&tlsCertificateKeyFile=" + cert_dir_ +
                         "/client.pem");
  EXPECT_FALSE(Pings(untrusting));
  // The server keeps serving good clients.
  EXPECT_TRUE(Pings(*TlsClient("client.pem")));
}

TEST_F(TlsRequiredTest, ManyTlsClientsAtOnceWithCompression) {
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  const char* kCompressors[] = {"", "&compressors=snappy", "&compressors=zlib", "&compressors=zstd"};
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      auto client = TlsClient("client.pem", kCompressors[t % 4]);
      for (int i = 0; i < 20; ++i) {
        BsonDoc reply = client->RunCommand(
            db_, "{\"insert\": \"many\", \"documents\": [{\"t\": " + std::to_string(t) + "}]}");
        if (!IsOk(reply)) failures++;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(testutil::Integer(Run("{\"count\": \"many\"}"), "n"), 160);
  BsonDoc status = RunAdmin("{\"serverStatus\": 1}");
  EXPECT_GT(testutil::Integer(status, "network.compression.zstd.decompressor.bytesIn").value_or(0), 0);
}

class TlsOptionalCertificateTest : public TlsTestBase {
 protected:
  static void SetUpTestSuite() {
    StartWith({"--tlsMode", "requireTLS", "--tlsCertificateKeyFile", "DIR/server.pem",
               "--tlsCAFile", "DIR/ca.pem", "--tlsAllowConnectionsWithoutCertificates"});
  }
};

TEST_F(TlsOptionalCertificateTest, CertificateIsOptionalButMustBeValidWhenGiven) {
  EXPECT_TRUE(Pings(*TlsClient("")));
  EXPECT_TRUE(Pings(*TlsClient("client.pem")));
  EXPECT_FALSE(Pings(*TlsClient("stranger.pem")));
  MongoClient plain(server_->uri());
  EXPECT_FALSE(Pings(plain));
}

class TlsAllowedTest : public TlsTestBase {
 protected:
  static void SetUpTestSuite() {
    StartWith({"--tlsMode", "allowTLS", "--tlsCertificateKeyFile", "DIR/server.pem", "--auth"});
    MongoClient anonymous(server_->uri());
    ASSERT_TRUE(IsOk(anonymous.RunCommand(
        "admin", "{\"createUser\": \"tlsuser\", \"pwd\": \"pw\", \"roles\": [\"root\"]}")));
  }
};

TEST_F(TlsAllowedTest, PlainAndTlsClientsBothAuthenticate) {
  std::string plain_uri = server_->uri();
  plain_uri.insert(std::string("mongodb://").size(), "tlsuser:pw@");
  MongoClient plain(plain_uri + "&authSource=admin");
  EXPECT_OK_REPLY(plain.RunCommand(db_, "{\"insert\": \"c\", \"documents\": [{}]}"));
  std::string tls_uri = plain_uri + "&authSource=admin&tls=true&tlsCAFile=" + cert_dir_ + "/ca.pem";
  MongoClient secure(tls_uri);
  EXPECT_OK_REPLY(secure.RunCommand(db_, "{\"insert\": \"c\", \"documents\": [{}]}"));
  EXPECT_EQ(testutil::Integer(secure.RunCommand(db_, "{\"count\": \"c\"}"), "n"), 2);
  // Without credentials, TLS or not, nothing but the handshake.
  BsonDoc refused = TlsClient("")->RunCommand(db_, "{\"find\": \"c\"}");
  EXPECT_EQ(testutil::Integer(refused, "code"), 13) << Json(refused);
}

// A plain client's first message whose length's low byte is 0x16 (the TLS
// handshake record type) is still served as plain: 278 and 534 bytes, and
// 790 bytes with requestId 0x0100, whose first six bytes (16 03 00 00 00
// 01) even read as a TLS record header carrying a ClientHello; the lengths
// around them as controls. Several connections at once.
TEST_F(TlsAllowedTest, PlainFirstMessageOf22Mod256BytesIsNotMistakenForTls) {
  auto ping_of_length = [](size_t length, int32_t request_id) {
    bson::BsonDoc body = bson::BsonDoc::FromJson(R"({"ping": 1, "$db": "admin"})");
    const size_t bare = testutil::EncodeOpMsg(request_id, body).size();
    // "pad": "<n x's>" costs 1 + 4 + 4 + n + 1 bytes.
    EXPECT_GE(length, bare + 10);
    BSON_APPEND_UTF8(body.mutable_get(), "pad", std::string(length - bare - 10, 'x').c_str());
    std::string message = testutil::EncodeOpMsg(request_id, body);
    EXPECT_EQ(message.size(), length);
    return message;
  };
  std::vector<std::thread> clients;
  std::atomic<int> served{0};
  const std::vector<size_t> lengths = {277, 278, 279, 534, 790, 1046};
  for (int copy = 0; copy < 3; ++copy) {
    for (size_t length : lengths) {
      clients.emplace_back([&, length] {
        auto connection = testutil::RawConnection::Connect(server_->port());
        ASSERT_TRUE(connection.ok());
        const std::string message = ping_of_length(length, 0x0100);
        ASSERT_EQ(static_cast<uint8_t>(message[0]), length % 256);
        ASSERT_TRUE(connection.value().Send(message).ok()) << length;
        std::string reply;
        ASSERT_EQ(connection.value().ReadMessage(&reply, std::chrono::seconds(10)),
                  testutil::RawConnection::ReadResult::kMessage)
            << "a plain first message of " << length << " bytes was not answered";
        auto body = testutil::DecodeOpMsgBody(reply);
        ASSERT_TRUE(body.ok());
        EXPECT_TRUE(IsOk(body.value())) << Json(body.value());
        ++served;
      });
    }
  }
  for (auto& t : clients) t.join();
  EXPECT_EQ(served.load(), static_cast<int>(3 * lengths.size()));
  // TLS clients are still recognised.
  EXPECT_TRUE(Pings(*TlsClient("")));
}

}  // namespace
}  // namespace tigerdoc::e2e
