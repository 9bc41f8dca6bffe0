// Security hardening of --auth (review of the auth/wire layer, issue #17):
// secrets never reach the log, getLog or currentOp; the admin database and
// its users cannot be dropped; top's map does not grow from refused or
// unknown commands.

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "tests/e2e/auth_test_base.h"

namespace tigerdoc::e2e {
namespace {

using testutil::Integer;
using testutil::IsOk;
using testutil::Json;

// A server of its own: one test here deletes every user.
class AuthHardeningTest : public AuthTest {};

// Every command is logged (--slowms 0), as a slow createUser would be.
class AuthLogTest : public AuthTest {
 protected:
  static void SetUpTestSuite() { StartServerWithRoot({"--auth", "--slowms", "0"}); }
  std::vector<std::string> GlobalLog() {
    BsonDoc reply = client_->RunCommand("admin", R"({"getLog": "global"})");
    EXPECT_TRUE(IsOk(reply)) << Json(reply);
    std::vector<std::string> lines;
    for (size_t i = 0; i < testutil::ArrayLength(reply, "log"); ++i) {
      lines.push_back(testutil::String(reply, "log." + std::to_string(i)).value_or(""));
    }
    return lines;
  }
  static size_t CountContaining(const std::vector<std::string>& lines, const std::string& text) {
    size_t n = 0;
    for (const std::string& line : lines) n += line.find(text) != std::string::npos;
    return n;
  }
};

// createUser/updateUser passwords (the suite's own root password too),
// and the SCRAM payloads of logins (speculative ones in hello too), are
// logged as "xxx"; the commands
// themselves are logged (the test would pass vacuously otherwise).
TEST_F(AuthLogTest, PasswordsAndSaslPayloadsAreRedactedInTheLog) {
  CreateUser("logged", "Created-S3cret!", R"(["read"])");
  ASSERT_OK_REPLY(client_->RunCommand(
      "admin", R"({"updateUser": "logged", "pwd": "Updated-S3cret!"})"));
  auto logged_in = ClientAs("logged", "Updated-S3cret!");
  ASSERT_OK_REPLY(logged_in->RunCommand("admin", R"({"ping": 1})"));
  const std::vector<std::string> log = GlobalLog();
  EXPECT_EQ(CountContaining(log, "S3cret!"), 0u);
  EXPECT_EQ(CountContaining(log, kRootPassword), 0u);
  EXPECT_GE(CountContaining(log, R"("createUser" : "logged")"), 1u);
  EXPECT_GE(CountContaining(log, R"("pwd" : "xxx")"), 2u);
  // libmongoc starts SCRAM inside hello (speculativeAuthenticate).
  EXPECT_GE(CountContaining(log, R"("speculativeAuthenticate" : "xxx")"), 1u);
  EXPECT_GE(CountContaining(log, R"("saslContinue" : 1)"), 1u);
  for (const std::string& line : log) {
    if (line.find("\"saslStart\"") != std::string::npos || line.find("\"saslContinue\"") != std::string::npos) {
      EXPECT_NE(line.find(R"("payload" : "xxx")"), std::string::npos) << line;
    }
  }
}

// currentOp shows the running command with the same redaction: a
// createUser run while another connection polls currentOp never shows its
// password (PBKDF2 of two mechanisms keeps it running for a while).
TEST_F(AuthLogTest, CurrentOpNeverShowsAPassword) {
  std::atomic<bool> done{false};
  std::thread creator([&] {
    MongoClient root(UriFor(kRootUser, kRootPassword));
    for (int i = 0; i < 20; ++i) {
      const std::string user = "op" + std::to_string(i);
      EXPECT_TRUE(IsOk(root.RunCommand("admin", "{\"createUser\": \"" + user +
                                                    "\", \"pwd\": \"Op-S3cret-pw\", \"roles\": []}")));
    }
    done = true;
  });
  int seen_create = 0;
  while (!done) {
    BsonDoc ops = client_->RunCommand(
        "admin", R"({"aggregate": 1, "pipeline": [{"$currentOp": {"allUsers": true}}], "cursor": {}})");
    ASSERT_TRUE(IsOk(ops)) << Json(ops);
    const std::string text = Json(ops);
    EXPECT_EQ(text.find("Op-S3cret-pw"), std::string::npos) << text;
    seen_create += text.find("\"createUser\"") != std::string::npos;
  }
  creator.join();
  std::cerr << "currentOp caught createUser running " << seen_create << " times\n";
}

// dropDatabase of admin is refused with MongoDB's error, whoever asks;
// the users survive, the localhost exception stays closed after a restart.
TEST_F(AuthHardeningTest, AdminDatabaseCannotBeDropped) {
  CreateUser("ops", "ops-pw", R"(["dbAdminAnyDatabase", "clusterAdmin"])");
  auto ops = ClientAs("ops", "ops-pw");
  for (MongoClient* who : {ops.get(), client_.get()}) {
    BsonDoc refused = who->RunCommand("admin", R"({"dropDatabase": 1})");
    EXPECT_ERROR_REPLY(refused, 20, "IllegalOperation");
    EXPECT_EQ(testutil::String(refused, "errmsg"), "Dropping the 'admin' database is prohibited.");
  }
  // Other databases still drop.
  ASSERT_OK_REPLY(client_->RunCommand(db_, R"({"insert": "c", "documents": [{}]})"));
  ASSERT_OK_REPLY(ops->RunCommand(db_, R"({"dropDatabase": 1})"));
  // The users are all there: ops still logs in.
  EXPECT_OK_REPLY(ClientAs("ops", "ops-pw")->RunCommand("admin", R"({"ping": 1})"));
  BsonDoc users = client_->RunCommand("admin", R"({"usersInfo": "ops"})");
  EXPECT_EQ(testutil::ArrayLength(users, "users"), 1u) << Json(users);
}

// Non-root roles cannot reach admin.system.users by any command; when root
// empties it by hand, the cached "users exist" flag is dropped at once:
// the localhost exception reopens (as in MongoDB: no users, no auth).
TEST_F(AuthHardeningTest, UserCollectionChangesOutsideUserCommandsAreNoticed) {
  CreateUser("dba", "dba-pw", R"(["dbAdminAnyDatabase", "readWriteAnyDatabase", "clusterAdmin"])");
  auto dba = ClientAs("dba", "dba-pw");
  EXPECT_UNAUTHORIZED(dba->RunCommand("admin", R"({"drop": "system.users"})"));
  EXPECT_UNAUTHORIZED(
      dba->RunCommand("admin", R"({"delete": "system.users", "deletes": [{"q": {}, "limit": 0}]})"));
  EXPECT_UNAUTHORIZED(dba->RunCommand(
      "admin", R"({"update": "system.users", "updates": [{"q": {}, "u": {"$set": {"roles": []}}}]})"));
  MongoClient anonymous(server_->uri());
  EXPECT_UNAUTHORIZED(anonymous.RunCommand(
      "admin", R"({"createUser": "intruder", "pwd": "x", "roles": ["root"]})"));
  // Root removes every user with a plain delete.
  ASSERT_OK_REPLY(client_->RunCommand(
      "admin", R"({"delete": "system.users", "deletes": [{"q": {}, "limit": 0}]})"));
  BsonDoc recreated = anonymous.RunCommand(
      "admin", std::string("{\"createUser\": \"") + kRootUser + "\", \"pwd\": \"" + kRootPassword +
                   "\", \"roles\": [\"root\"]}");
  EXPECT_OK_REPLY(recreated);
}

// Neither unknown commands nor commands refused before authentication, nor
// commands whose first string names no collection, add namespaces to top.
TEST_F(AuthHardeningTest, TopRecordsOnlyCollectionsOfCommandsThatRan) {
  MongoClient anonymous(server_->uri());
  const std::string big(100000, 'n');
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      MongoClient c(server_->uri());
      for (int i = 0; i < 25; ++i) {
        const std::string coll = "bogus" + std::to_string(t) + "_" + std::to_string(i);
        c.RunCommand(db_, "{\"nosuch\": \"" + coll + "\"}");           // CommandNotFound
        c.RunCommand(db_, "{\"find\": \"" + coll + "\"}");             // Unauthorized
        c.RunCommand(db_, "{\"ping\": \"" + coll + big + "\"}");       // ok, but no collection
      }
    });
  }
  for (auto& t : threads) t.join();
  ASSERT_OK_REPLY(client_->RunCommand(db_, R"({"insert": "real", "documents": [{}]})"));
  BsonDoc top = client_->RunCommand("admin", R"({"top": 1})");
  ASSERT_OK_REPLY(top);
  const std::string text = Json(top);
  EXPECT_EQ(text.find("bogus"), std::string::npos);
  EXPECT_EQ(text.find("nnnnnnnn"), std::string::npos);
  EXPECT_NE(text.find(db_ + ".real"), std::string::npos) << text;
  // A dropped collection leaves top.
  ASSERT_OK_REPLY(client_->RunCommand(db_, R"({"drop": "real"})"));
  EXPECT_EQ(Json(client_->RunCommand("admin", R"({"top": 1})")).find(db_ + ".real"), std::string::npos);
}

}  // namespace
}  // namespace tigerdoc::e2e
