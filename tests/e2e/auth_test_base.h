#pragma once
// AuthTest: E2eTest against a server started with --auth. The suite's
// set-up creates the first user (root@admin) through the localhost
// exception, as an administrator would; ClientAs() connects as any user
// with the URI a driver user writes (mongodb://user:pass@host/?authSource=admin).

#include <memory>
#include <string>
#include <vector>

#include "tests/e2e/e2e_test_base.h"

namespace tigerdoc::e2e {

inline constexpr const char* kRootUser = "root";
inline constexpr const char* kRootPassword = "root-secret";

class AuthTest : public E2eTest {
 protected:
  static void SetUpTestSuite() { StartServerWithRoot({"--auth"}); }

  // Starts the suite's server with `args` (which include --auth) and
  // creates the root user through the localhost exception.
  static void StartServerWithRoot(std::vector<std::string> args) {
    StartServer(std::move(args));
    if (server_ == nullptr) return;
    MongoClient anonymous(server_->uri());
    BsonDoc created = anonymous.RunCommand(
        "admin", std::string("{\"createUser\": \"") + kRootUser + "\", \"pwd\": \"" +
                     kRootPassword + "\", \"roles\": [\"root\"]}");
    ASSERT_TRUE(testutil::IsOk(created)) << testutil::Json(created);
  }

  // The default client (client_) is root; db_ is the test's database.
  void SetUp() override {
    E2eTest::SetUp();
    client_ = ClientAs(kRootUser, kRootPassword);
  }

  // "mongodb://user:pass@127.0.0.1:port/?authSource=<source>&...".
  static std::string UriFor(const std::string& user, const std::string& password,
                            const std::string& extra = "", const std::string& source = "admin") {
    std::string uri = server_->uri();
    uri.insert(std::string("mongodb://").size(), user + ":" + password + "@");
    return uri + "&authSource=" + source + extra;
  }
  static std::unique_ptr<MongoClient> ClientAs(const std::string& user, const std::string& password,
                                               const std::string& extra = "",
                                               const std::string& source = "admin") {
    return std::make_unique<MongoClient>(UriFor(user, password, extra, source));
  }

  // Creates user@db with `roles_json` (a JSON array) as root.
  void CreateUser(const std::string& user, const std::string& password,
                  const std::string& roles_json, const std::string& db = "admin") {
    BsonDoc reply = client_->RunCommand(db, "{\"createUser\": \"" + user + "\", \"pwd\": \"" +
                                                password + "\", \"roles\": " + roles_json + "}");
    ASSERT_OK_REPLY(reply);
  }
};

// Asserts 13 Unauthorized.
#define EXPECT_UNAUTHORIZED(reply) EXPECT_ERROR_REPLY(reply, 13, "Unauthorized")

}  // namespace tigerdoc::e2e
