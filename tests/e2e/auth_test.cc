// Authentication and authorization end to end through libmongoc against a
// server started with --auth: SCRAM-SHA-1 and SCRAM-SHA-256 logins, wrong
// passwords, the localhost exception, what an unauthenticated client may
// run, each built-in role against each command family, user management,
// and cursor ownership.

#include <atomic>
#include <thread>
#include <vector>

#include "tests/e2e/auth_test_base.h"

namespace tigerdoc::e2e {
namespace {

using testutil::Integer;
using testutil::IsOk;
using testutil::Json;
using testutil::String;

bool IsUnauthorized(const BsonDoc& reply) { return Integer(reply, "code") == 13; }

TEST_F(AuthTest, BothScramMechanismsLogIn) {
  for (const char* mechanism : {"SCRAM-SHA-1", "SCRAM-SHA-256"}) {
    SCOPED_TRACE(mechanism);
    auto client = ClientAs(kRootUser, kRootPassword, std::string("&authMechanism=") + mechanism);
    BsonDoc status = client->RunCommand("admin", "{\"connectionStatus\": 1}");
    ASSERT_OK_REPLY(status);
    EXPECT_EQ(String(status, "authInfo.authenticatedUsers.0.user"), "root");
    EXPECT_EQ(String(status, "authInfo.authenticatedUsers.0.db"), "admin");
    EXPECT_EQ(String(status, "authInfo.authenticatedUserRoles.0.role"), "root");
    EXPECT_OK_REPLY(client->RunCommand(db_, "{\"insert\": \"c\", \"documents\": [{\"a\": 1}]}"));
  }
}

TEST_F(AuthTest, WrongPasswordOrUserFailsToAuthenticate) {
  for (const auto& [user, password] : std::vector<std::pair<std::string, std::string>>{
           {kRootUser, "wrong"}, {"nobody", kRootPassword}, {kRootUser, ""}}) {
    for (const char* mechanism : {"SCRAM-SHA-1", "SCRAM-SHA-256"}) {
      SCOPED_TRACE(user + "/" + password + "/" + mechanism);
      auto client = ClientAs(user, password, std::string("&authMechanism=") + mechanism);
      BsonDoc reply = client->RunCommand("admin", "{\"ping\": 1}");
      EXPECT_FALSE(IsOk(reply)) << Json(reply);
      if (password.empty()) continue;  // libmongoc may refuse it before asking
      EXPECT_NE(String(reply, "clientError").value_or("").find("Authentication failed"),
                std::string::npos)
          << Json(reply);
    }
  }
  // A user of another database is not found through authSource=admin.
  CreateUser("elsewhere", "pw", "[]", db_);
  auto client = ClientAs("elsewhere", "pw");
  EXPECT_FALSE(IsOk(client->RunCommand("admin", "{\"ping\": 1}")));
  auto right_source = ClientAs("elsewhere", "pw", "", db_);
  EXPECT_OK_REPLY(right_source->RunCommand("admin", "{\"ping\": 1}"));
}

// The SASL conversation by hand, to see the server's own codes.
TEST_F(AuthTest, SaslConversationErrorsCarryMongoCodes) {
  MongoClient anonymous(server_->uri());
  EXPECT_ERROR_REPLY(anonymous.RunCommand("admin", "{\"saslContinue\": 1, \"conversationId\": 1, "
                                                   "\"payload\": \"\"}"),
                     17, "ProtocolError");
  BsonDoc start = anonymous.RunCommand(
      "admin", "{\"saslStart\": 1, \"mechanism\": \"SCRAM-SHA-256\", "
               "\"payload\": \"n,,n=root,r=clientnonceclientnonce\"}");
  ASSERT_OK_REPLY(start);
  EXPECT_EQ(Integer(start, "conversationId"), 1);
  EXPECT_EQ(testutil::TypeAt(start, "payload"), BSON_TYPE_BINARY);
  bson_iter_t payload_it = *testutil::Lookup(start, "payload");
  uint32_t len = 0;
  const uint8_t* data = nullptr;
  bson_iter_binary(&payload_it, nullptr, &len, &data);
  const std::string server_first(reinterpret_cast<const char*>(data), len);
  ASSERT_EQ(server_first.rfind("r=clientnonceclientnonce", 0), 0u) << server_first;
  EXPECT_NE(server_first.find(",i=15000"), std::string::npos) << server_first;
  const std::string nonce = server_first.substr(2, server_first.find(',') - 2);
  BsonDoc wrong_proof = anonymous.RunCommand(
      "admin", "{\"saslContinue\": 1, \"conversationId\": 1, \"payload\": \"c=biws,r=" + nonce +
                   ",p=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\"}");
  EXPECT_ERROR_REPLY(wrong_proof, 18, "AuthenticationFailed");
  EXPECT_EQ(String(wrong_proof, "errmsg"), "Authentication failed.");
  // Still not authenticated.
  EXPECT_UNAUTHORIZED(anonymous.RunCommand(db_, "{\"find\": \"c\"}"));

  EXPECT_ERROR_REPLY(anonymous.RunCommand("admin", "{\"saslStart\": 1, \"mechanism\": \"PLAIN\", "
                                                   "\"payload\": \"x\"}"),
                     334, "MechanismUnavailable");
  EXPECT_ERROR_REPLY(anonymous.RunCommand("admin", "{\"saslStart\": 1, \"mechanism\": \"SCRAM-SHA-1\", "
                                                   "\"payload\": \"n,,n=nobody,r=abc\"}"),
                     18, "AuthenticationFailed");
  EXPECT_ERROR_REPLY(anonymous.RunCommand("admin", "{\"saslStart\": 1, \"mechanism\": \"SCRAM-SHA-1\", "
                                                   "\"payload\": \"garbage\"}"),
                     2, "BadValue");
}

TEST_F(AuthTest, HelloAnswersSaslSupportedMechsAndSpeculativeAuthentication) {
  MongoClient anonymous(server_->uri());
  BsonDoc hello = anonymous.RunCommand(
      "admin", "{\"hello\": 1, \"saslSupportedMechs\": \"admin.root\", "
               "\"speculativeAuthenticate\": {\"saslStart\": 1, \"mechanism\": \"SCRAM-SHA-256\", "
               "\"payload\": \"n,,n=root,r=abcdefgh\", \"db\": \"admin\", "
               "\"options\": {\"skipEmptyExchange\": true}}}");
  ASSERT_OK_REPLY(hello);
  EXPECT_EQ(String(hello, "saslSupportedMechs.0"), "SCRAM-SHA-1");
  EXPECT_EQ(String(hello, "saslSupportedMechs.1"), "SCRAM-SHA-256");
  EXPECT_EQ(Integer(hello, "speculativeAuthenticate.conversationId"), 1);
  EXPECT_EQ(testutil::TypeAt(hello, "speculativeAuthenticate.payload"), BSON_TYPE_BINARY);
  // An unknown user: no mechanisms, no speculative step, hello still works.
  BsonDoc unknown = anonymous.RunCommand(
      "admin", "{\"hello\": 1, \"saslSupportedMechs\": \"admin.nobody\", "
               "\"speculativeAuthenticate\": {\"saslStart\": 1, \"mechanism\": \"SCRAM-SHA-256\", "
               "\"payload\": \"n,,n=nobody,r=abcdefgh\", \"db\": \"admin\"}}");
  ASSERT_OK_REPLY(unknown);
  EXPECT_FALSE(testutil::Has(unknown, "saslSupportedMechs"));
  EXPECT_FALSE(testutil::Has(unknown, "speculativeAuthenticate"));
}

TEST_F(AuthTest, UnauthenticatedClientsRunOnlyTheHandshake) {
  MongoClient anonymous(server_->uri());
  for (const char* allowed : {"{\"hello\": 1}", "{\"isMaster\": 1}", "{\"ping\": 1}",
                              "{\"buildInfo\": 1}", "{\"connectionStatus\": 1}", "{\"logout\": 1}"}) {
    EXPECT_OK_REPLY(anonymous.RunCommand("admin", allowed)) << allowed;
  }
  for (const char* refused :
       {"{\"find\": \"c\"}", "{\"insert\": \"c\", \"documents\": [{}]}", "{\"listCollections\": 1}",
        "{\"aggregate\": \"c\", \"pipeline\": [], \"cursor\": {}}", "{\"count\": \"c\"}",
        "{\"dbStats\": 1}", "{\"drop\": \"c\"}", "{\"usersInfo\": 1}", "{\"whatsmyuri\": 1}"}) {
    BsonDoc reply = anonymous.RunCommand(db_, refused);
    EXPECT_UNAUTHORIZED(reply);
    bson_iter_t it;
    BsonDoc cmd = BsonDoc::FromJson(refused);
    bson_iter_init(&it, cmd.get());
    bson_iter_next(&it);
    EXPECT_EQ(String(reply, "errmsg"),
              "command " + std::string(bson_iter_key(&it)) + " requires authentication");
  }
  for (const char* refused : {"{\"serverStatus\": 1}", "{\"listDatabases\": 1}",
                              "{\"getCmdLineOpts\": 1}", "{\"currentOp\": 1}"}) {
    SCOPED_TRACE(refused);
    EXPECT_UNAUTHORIZED(anonymous.RunCommand("admin", refused));
  }
}

TEST_F(AuthTest, LocalhostExceptionClosesOnceAUserExists) {
  // The suite's set-up created root through it; now it is closed.
  MongoClient anonymous(server_->uri());
  BsonDoc reply =
      anonymous.RunCommand("admin", "{\"createUser\": \"second\", \"pwd\": \"x\", \"roles\": []}");
  EXPECT_UNAUTHORIZED(reply);
  EXPECT_EQ(String(reply, "errmsg"), "command createUser requires authentication");
  // Dropping every user (of every database: other tests of the suite left
  // some on theirs) opens it again, as in MongoDB.
  BsonDoc all = client_->RunCommand("admin", R"({"usersInfo": {"forAllDBs": true}})");
  ASSERT_OK_REPLY(all);
  for (const BsonDoc& user : testutil::DocArray(all, "users")) {
    if (String(user, "db") == "admin") continue;
    ASSERT_OK_REPLY(client_->RunCommand(*String(user, "db"), "{\"dropAllUsersFromDatabase\": 1}"));
  }
  ASSERT_OK_REPLY(client_->RunCommand("admin", "{\"dropAllUsersFromDatabase\": 1}"));
  EXPECT_OK_REPLY(anonymous.RunCommand(
      "admin", "{\"createUser\": \"again\", \"pwd\": \"x\", \"roles\": [\"root\"]}"));
  // ...for createUser only.
  EXPECT_UNAUTHORIZED(anonymous.RunCommand(db_, "{\"find\": \"c\"}"));
  auto again = ClientAs("again", "x");
  EXPECT_OK_REPLY(again->RunCommand(db_, "{\"find\": \"c\"}"));
  // The suite's root again, for the tests after this one.
  ASSERT_OK_REPLY(again->RunCommand(
      "admin", std::string("{\"createUser\": \"") + kRootUser + "\", \"pwd\": \"" + kRootPassword +
                   "\", \"roles\": [\"root\"]}"));
}

// Each built-in role against each command family. Database roles are
// granted on "rolesdb"; "otherdb" is where only *AnyDatabase roles reach.
struct Family {
  const char* name;
  const char* db;
  const char* command;
};

const Family kFamilies[] = {
    {"find", "rolesdb", "{\"find\": \"c\"}"},
    {"aggregate", "rolesdb", "{\"aggregate\": \"c\", \"pipeline\": [], \"cursor\": {}}"},
    {"count", "rolesdb", "{\"count\": \"c\"}"},
    {"insert", "rolesdb", "{\"insert\": \"c\", \"documents\": [{\"x\": 1}]}"},
    {"update", "rolesdb", "{\"update\": \"c\", \"updates\": [{\"q\": {\"x\": 1}, \"u\": {\"$set\": {\"y\": 1}}}]}"},
    {"delete", "rolesdb", "{\"delete\": \"c\", \"deletes\": [{\"q\": {\"x\": 99}, \"limit\": 0}]}"},
    {"findAndModify", "rolesdb", "{\"findAndModify\": \"c\", \"query\": {\"x\": 99}, \"update\": {\"$set\": {\"y\": 2}}}"},
    {"out", "rolesdb", "{\"aggregate\": \"c\", \"pipeline\": [{\"$out\": \"copy\"}], \"cursor\": {}}"},
    {"createIndexes", "rolesdb", "{\"createIndexes\": \"c\", \"indexes\": [{\"key\": {\"z\": 1}, \"name\": \"z_1\"}]}"},
    {"drop", "rolesdb", "{\"drop\": \"scratch\"}"},
    {"collMod", "rolesdb", "{\"collMod\": \"c\"}"},
    {"listCollections", "rolesdb", "{\"listCollections\": 1}"},
    {"listIndexes", "rolesdb", "{\"listIndexes\": \"c\"}"},
    {"collStats", "rolesdb", "{\"collStats\": \"c\"}"},
    {"dbStats", "rolesdb", "{\"dbStats\": 1}"},
    {"validate", "rolesdb", "{\"validate\": \"c\"}"},
    {"createUser", "rolesdb", "{\"createUser\": \"made_by_USER\", \"pwd\": \"x\", \"roles\": []}"},
    {"findOther", "otherdb", "{\"find\": \"c\"}"},
    {"insertOther", "otherdb", "{\"insert\": \"c\", \"documents\": [{\"x\": 1}]}"},
    {"serverStatus", "admin", "{\"serverStatus\": 1}"},
    {"listDatabasesAll", "admin", "{\"listDatabases\": 1, \"authorizedDatabases\": false}"},
    {"currentOp", "admin", "{\"currentOp\": 1}"},
    {"currentOpStage", "admin", "{\"aggregate\": 1, \"pipeline\": [{\"$currentOp\": {}}], \"cursor\": {}}"},
    {"getCmdLineOpts", "admin", "{\"getCmdLineOpts\": 1}"},
    {"setParameter", "admin", "{\"setParameter\": 1, \"ttlMonitorSleepSecs\": 60}"},
    {"readUsers", "admin", "{\"find\": \"system.users\"}"},
};

struct RoleCase {
  const char* role;
  const char* role_db;
  // Families allowed, space-separated; every other one must be refused.
  const char* allowed;
};

const RoleCase kRoles[] = {
    {"read", "rolesdb", "find aggregate count listCollections listIndexes collStats dbStats"},
    {"readWrite", "rolesdb",
     "find aggregate count insert update delete findAndModify out createIndexes drop "
     "listCollections listIndexes collStats dbStats"},
    {"dbAdmin", "rolesdb",
     "createIndexes drop collMod listCollections listIndexes collStats dbStats validate"},
    {"userAdmin", "rolesdb", "createUser"},
    {"dbOwner", "rolesdb",
     "find aggregate count insert update delete findAndModify out createIndexes drop collMod "
     "listCollections listIndexes collStats dbStats validate createUser"},
    {"readAnyDatabase", "admin",
     "find aggregate count listCollections listIndexes collStats dbStats findOther listDatabasesAll"},
    {"readWriteAnyDatabase", "admin",
     "find aggregate count insert update delete findAndModify out createIndexes drop "
     "listCollections listIndexes collStats dbStats findOther insertOther listDatabasesAll"},
    {"userAdminAnyDatabase", "admin", "createUser listDatabasesAll"},
    {"dbAdminAnyDatabase", "admin",
     "createIndexes drop collMod listCollections listIndexes collStats dbStats validate "
     "listDatabasesAll"},
    {"clusterMonitor", "admin",
     "collStats dbStats serverStatus listDatabasesAll currentOp currentOpStage getCmdLineOpts"},
    {"clusterAdmin", "admin",
     "collStats dbStats serverStatus listDatabasesAll currentOp currentOpStage getCmdLineOpts setParameter"},
    {"root", "admin",
     "find aggregate count insert update delete findAndModify out createIndexes drop collMod "
     "listCollections listIndexes collStats dbStats validate createUser findOther insertOther "
     "serverStatus listDatabasesAll currentOp currentOpStage getCmdLineOpts setParameter readUsers"},
};

bool Listed(const std::string& list, const std::string& name) {
  return (" " + list + " ").find(" " + name + " ") != std::string::npos;
}

TEST_F(AuthTest, EachRoleRunsExactlyItsCommandFamilies) {
  for (const char* db : {"rolesdb", "otherdb"}) {
    ASSERT_OK_REPLY(client_->RunCommand(db, "{\"insert\": \"c\", \"documents\": [{\"x\": 0}]}"));
  }
  for (const RoleCase& role : kRoles) {
    const std::string user = std::string("u_") + role.role;
    CreateUser(user, "pw",
               std::string("[{\"role\": \"") + role.role + "\", \"db\": \"" + role.role_db + "\"}]");
    auto client = ClientAs(user, "pw");
    for (const Family& family : kFamilies) {
      SCOPED_TRACE(std::string(role.role) + " running " + family.name);
      std::string command = family.command;
      const size_t placeholder = command.find("USER");
      if (placeholder != std::string::npos) command.replace(placeholder, 4, role.role);
      BsonDoc reply = client->RunCommand(family.db, command);
      if (Listed(role.allowed, family.name)) {
        EXPECT_FALSE(IsUnauthorized(reply)) << Json(reply);
      } else {
        EXPECT_UNAUTHORIZED(reply);
        EXPECT_EQ(String(reply, "errmsg").value_or("").rfind(
                      "not authorized on " + std::string(family.db) + " to execute command { ", 0),
                  0u)
            << Json(reply);
      }
    }
  }
}

// A user without the listDatabases action sees the databases it has
// privileges on (mongosh's `show dbs`), as in MongoDB.
TEST_F(AuthTest, ListDatabasesShowsWhatTheUserMayUse) {
  for (const char* db : {"shown_db", "hidden_db"}) {
    ASSERT_OK_REPLY(client_->RunCommand(db, "{\"insert\": \"c\", \"documents\": [{}]}"));
  }
  CreateUser("lister", "pw", "[{\"role\": \"read\", \"db\": \"shown_db\"}]");
  auto client = ClientAs("lister", "pw");
  BsonDoc listed = client->RunCommand("admin", "{\"listDatabases\": 1, \"nameOnly\": true}");
  ASSERT_OK_REPLY(listed);
  EXPECT_EQ(testutil::ArrayLength(listed, "databases"), 1u) << Json(listed);
  EXPECT_EQ(String(listed, "databases.0.name"), "shown_db");
  EXPECT_UNAUTHORIZED(client->RunCommand("admin", "{\"listDatabases\": 1, \"authorizedDatabases\": false}"));
  BsonDoc all = client_->RunCommand("admin", "{\"listDatabases\": 1, \"nameOnly\": true}");
  EXPECT_GE(testutil::ArrayLength(all, "databases"), 3u) << Json(all);
}

TEST_F(AuthTest, GrantAndRevokeApplyToOpenConnections) {
  CreateUser("changing", "pw", "[]");
  auto client = ClientAs("changing", "pw");
  EXPECT_UNAUTHORIZED(client->RunCommand(db_, "{\"find\": \"c\"}"));
  ASSERT_OK_REPLY(client_->RunCommand(
      "admin", "{\"grantRolesToUser\": \"changing\", \"roles\": [{\"role\": \"read\", \"db\": \"" +
                   db_ + "\"}]}"));
  EXPECT_OK_REPLY(client->RunCommand(db_, "{\"find\": \"c\"}"));
  EXPECT_UNAUTHORIZED(client->RunCommand(db_, "{\"insert\": \"c\", \"documents\": [{}]}"));
  ASSERT_OK_REPLY(client_->RunCommand(
      "admin", "{\"revokeRolesFromUser\": \"changing\", \"roles\": [{\"role\": \"read\", \"db\": \"" +
                   db_ + "\"}]}"));
  EXPECT_UNAUTHORIZED(client->RunCommand(db_, "{\"find\": \"c\"}"));
  // updateUser replaces the roles.
  ASSERT_OK_REPLY(client_->RunCommand(
      "admin", "{\"updateUser\": \"changing\", \"roles\": [{\"role\": \"readWrite\", \"db\": \"" +
                   db_ + "\"}]}"));
  EXPECT_OK_REPLY(client->RunCommand(db_, "{\"insert\": \"c\", \"documents\": [{}]}"));
  // A dropped user's connection is no longer authenticated.
  ASSERT_OK_REPLY(client_->RunCommand("admin", "{\"dropUser\": \"changing\"}"));
  BsonDoc after_drop = client->RunCommand(db_, "{\"find\": \"c\"}");
  EXPECT_UNAUTHORIZED(after_drop);
  EXPECT_EQ(String(after_drop, "errmsg"), "command find requires authentication");
}

TEST_F(AuthTest, UpdateUserPasswordChangesTheLogin) {
  CreateUser("pwchange", "old", "[\"readAnyDatabase\"]");
  ASSERT_OK_REPLY(ClientAs("pwchange", "old")->RunCommand("admin", "{\"ping\": 1}"));
  ASSERT_OK_REPLY(client_->RunCommand("admin", "{\"updateUser\": \"pwchange\", \"pwd\": \"new\"}"));
  EXPECT_FALSE(IsOk(ClientAs("pwchange", "old")->RunCommand("admin", "{\"ping\": 1}")));
  EXPECT_OK_REPLY(ClientAs("pwchange", "new")->RunCommand("admin", "{\"ping\": 1}"));
  // Only SCRAM-SHA-1 now: SHA-256 logins fail, SHA-1 ones work.
  ASSERT_OK_REPLY(client_->RunCommand(
      "admin", "{\"updateUser\": \"pwchange\", \"pwd\": \"new\", \"mechanisms\": [\"SCRAM-SHA-1\"]}"));
  EXPECT_FALSE(IsOk(ClientAs("pwchange", "new", "&authMechanism=SCRAM-SHA-256")
                        ->RunCommand("admin", "{\"ping\": 1}")));
  EXPECT_OK_REPLY(ClientAs("pwchange", "new", "&authMechanism=SCRAM-SHA-1")
                      ->RunCommand("admin", "{\"ping\": 1}"));
}

TEST_F(AuthTest, UserCommandsAnswerMongoShapesAndErrors) {
  CreateUser("alice", "pw", "[\"read\", {\"role\": \"readWrite\", \"db\": \"other\"}]", db_);
  BsonDoc info = client_->RunCommand(db_, "{\"usersInfo\": \"alice\"}");
  ASSERT_OK_REPLY(info);
  EXPECT_EQ(String(info, "users.0._id"), db_ + ".alice");
  EXPECT_EQ(String(info, "users.0.user"), "alice");
  EXPECT_EQ(String(info, "users.0.db"), db_);
  EXPECT_EQ(testutil::TypeAt(info, "users.0.userId"), BSON_TYPE_BINARY);
  EXPECT_EQ(String(info, "users.0.roles.0.role"), "read");
  EXPECT_EQ(String(info, "users.0.roles.0.db"), db_);
  EXPECT_EQ(String(info, "users.0.roles.1.db"), "other");
  EXPECT_EQ(String(info, "users.0.mechanisms.1"), "SCRAM-SHA-256");
  EXPECT_FALSE(testutil::Has(info, "users.0.credentials"));
  BsonDoc with_credentials =
      client_->RunCommand(db_, "{\"usersInfo\": 1, \"showCredentials\": true}");
  EXPECT_EQ(Integer(with_credentials, "users.0.credentials.SCRAM-SHA-256.iterationCount"), 15000);
  EXPECT_TRUE(testutil::Has(with_credentials, "users.0.credentials.SCRAM-SHA-1.storedKey"));
  // The password itself is stored nowhere.
  BsonDoc stored = client_->RunCommand("admin", "{\"find\": \"system.users\", \"filter\": {\"user\": \"alice\"}}");
  ASSERT_OK_REPLY(stored);
  EXPECT_EQ(Json(stored).find("\"pw\""), std::string::npos) << Json(stored);
  EXPECT_EQ(String(stored, "cursor.firstBatch.0._id"), db_ + ".alice");

  EXPECT_ERROR_REPLY(client_->RunCommand(db_, "{\"createUser\": \"alice\", \"pwd\": \"x\", \"roles\": []}"),
                     51003, "Location51003");
  EXPECT_ERROR_REPLY(client_->RunCommand(db_, "{\"createUser\": \"bob\", \"pwd\": \"x\", \"roles\": [\"nosuch\"]}"),
                     31, "RoleNotFound");
  EXPECT_ERROR_REPLY(client_->RunCommand(db_, "{\"createUser\": \"bob\", \"pwd\": \"x\", \"roles\": [\"readAnyDatabase\"]}"),
                     31, "RoleNotFound");
  EXPECT_ERROR_REPLY(client_->RunCommand(db_, "{\"createUser\": \"bob\", \"pwd\": \"x\"}"), 40414,
                     "Location40414");
  EXPECT_ERROR_REPLY(client_->RunCommand(db_, "{\"createUser\": \"bob\", \"pwd\": \"\", \"roles\": []}"),
                     2, "BadValue");
  EXPECT_ERROR_REPLY(client_->RunCommand(db_, "{\"createUser\": \"bob\", \"pwd\": \"x\", \"roles\": [], "
                                              "\"mechanisms\": [\"SCRAM-SHA-512\"]}"),
                     2, "BadValue");
  EXPECT_ERROR_REPLY(client_->RunCommand(db_, "{\"dropUser\": \"nobody\"}"), 11, "UserNotFound");
  EXPECT_ERROR_REPLY(client_->RunCommand(db_, "{\"updateUser\": \"nobody\", \"pwd\": \"x\"}"), 11,
                     "UserNotFound");
  EXPECT_ERROR_REPLY(client_->RunCommand(db_, "{\"grantRolesToUser\": \"nobody\", \"roles\": [\"read\"]}"),
                     11, "UserNotFound");
  EXPECT_ERROR_REPLY(client_->RunCommand(db_, "{\"updateUser\": \"alice\"}"), 2, "BadValue");

  // A user may see itself without viewUser.
  auto alice = ClientAs("alice", "pw", "", db_);
  EXPECT_OK_REPLY(alice->RunCommand(db_, "{\"usersInfo\": \"alice\"}"));
  EXPECT_UNAUTHORIZED(alice->RunCommand(db_, "{\"usersInfo\": 1}"));

  BsonDoc dropped = client_->RunCommand(db_, "{\"dropAllUsersFromDatabase\": 1}");
  ASSERT_OK_REPLY(dropped);
  EXPECT_EQ(Integer(dropped, "n"), 1);
  EXPECT_EQ(testutil::ArrayLength(client_->RunCommand(db_, "{\"usersInfo\": 1}"), "users"), 0u);
}

TEST_F(AuthTest, UserAdminCannotGrantRolesOnOtherDatabases) {
  CreateUser("admin_of_db", "pw", "[{\"role\": \"userAdmin\", \"db\": \"" + db_ + "\"}]");
  auto client = ClientAs("admin_of_db", "pw");
  EXPECT_OK_REPLY(client->RunCommand(db_, "{\"createUser\": \"ok\", \"pwd\": \"x\", \"roles\": [\"read\"]}"));
  EXPECT_UNAUTHORIZED(client->RunCommand(
      db_, "{\"createUser\": \"escalate\", \"pwd\": \"x\", \"roles\": [{\"role\": \"root\", \"db\": \"admin\"}]}"));
}

TEST_F(AuthTest, UserCollectionIsReachableOnlyByRoot) {
  CreateUser("rwany", "pw", "[\"readWriteAnyDatabase\", \"dbAdminAnyDatabase\"]");
  auto client = ClientAs("rwany", "pw");
  EXPECT_OK_REPLY(client->RunCommand("admin", "{\"find\": \"ordinary\"}"));
  EXPECT_UNAUTHORIZED(client->RunCommand("admin", "{\"find\": \"system.users\"}"));
  EXPECT_UNAUTHORIZED(client->RunCommand(
      "admin", "{\"insert\": \"system.users\", \"documents\": [{\"_id\": \"admin.evil\"}]}"));
  EXPECT_UNAUTHORIZED(client->RunCommand("admin", "{\"drop\": \"system.users\"}"));
  EXPECT_UNAUTHORIZED(client->RunCommand(
      "admin", "{\"aggregate\": \"ordinary\", \"pipeline\": [{\"$lookup\": {\"from\": "
               "\"system.users\", \"pipeline\": [], \"as\": \"u\"}}], \"cursor\": {}}"));
}

TEST_F(AuthTest, CursorsBelongToTheUserWhoOpenedThem) {
  for (int i = 0; i < 5; ++i) {
    ASSERT_OK_REPLY(client_->RunCommand(db_, "{\"insert\": \"c\", \"documents\": [{\"i\": " +
                                                 std::to_string(i) + "}]}"));
  }
  CreateUser("reader1", "pw", "[\"readAnyDatabase\"]");
  CreateUser("reader2", "pw", "[\"readAnyDatabase\"]");
  auto first = ClientAs("reader1", "pw");
  auto second = ClientAs("reader2", "pw");
  BsonDoc opened = first->RunCommand(db_, "{\"find\": \"c\", \"batchSize\": 1}");
  ASSERT_OK_REPLY(opened);
  const int64_t id = Integer(opened, "cursor.id").value_or(0);
  ASSERT_NE(id, 0);
  BsonDoc get_more;
  BSON_APPEND_INT64(get_more.mutable_get(), "getMore", id);
  BSON_APPEND_UTF8(get_more.mutable_get(), "collection", "c");
  BSON_APPEND_INT32(get_more.mutable_get(), "batchSize", 1);
  BsonDoc stolen = second->RunCommand(db_, get_more);
  EXPECT_UNAUTHORIZED(stolen);
  EXPECT_EQ(String(stolen, "errmsg"),
            "cursor id " + std::to_string(id) + " was not created by the authenticated user");
  EXPECT_UNAUTHORIZED(second->RunCommand(db_, KillCursorsCommand("c", id)));
  // The owner goes on, from another connection too.
  auto first_again = ClientAs("reader1", "pw");
  EXPECT_OK_REPLY(first_again->RunCommand(db_, get_more));
  BsonDoc killed = first->RunCommand(db_, KillCursorsCommand("c", id));
  ASSERT_OK_REPLY(killed);
  EXPECT_EQ(Integer(killed, "cursorsKilled.0"), id);
}

TEST_F(AuthTest, LogoutEndsTheSession) {
  auto client = ClientAs(kRootUser, kRootPassword);
  ASSERT_OK_REPLY(client->RunCommand(db_, "{\"find\": \"c\"}"));
  // libmongoc keeps the connection; logout makes it anonymous.
  ASSERT_OK_REPLY(client->RunCommand("admin", "{\"logout\": 1}"));
  BsonDoc status = client->RunCommand("admin", "{\"connectionStatus\": 1}");
  EXPECT_EQ(testutil::ArrayLength(status, "authInfo.authenticatedUsers"), 0u) << Json(status);
  EXPECT_UNAUTHORIZED(client->RunCommand(db_, "{\"find\": \"c\"}"));
}

TEST_F(AuthTest, ManyClientsAuthenticateAndWriteAtOnce) {
  CreateUser("writer", "pw", "[{\"role\": \"readWrite\", \"db\": \"" + db_ + "\"}]");
  constexpr int kThreads = 8;
  constexpr int kWrites = 20;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      auto client = ClientAs("writer", "pw", t % 2 ? "&authMechanism=SCRAM-SHA-1" : "");
      for (int i = 0; i < kWrites; ++i) {
        BsonDoc reply = client->RunCommand(
            db_, "{\"insert\": \"c\", \"documents\": [{\"t\": " + std::to_string(t) + "}]}");
        if (!IsOk(reply)) failures++;
        if (!IsUnauthorized(client->RunCommand("admin", "{\"serverStatus\": 1}"))) failures++;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(Integer(client_->RunCommand(db_, "{\"count\": \"c\"}"), "n"), kThreads * kWrites);
}

// Without --auth nothing is refused, yet users can be managed and log in.
TEST_F(E2eTest, WithoutAuthUsersExistButNothingIsRefused) {
  ASSERT_OK_REPLY(RunAdmin("{\"createUser\": \"plain\", \"pwd\": \"pw\", \"roles\": []}"));
  EXPECT_OK_REPLY(Run("{\"insert\": \"c\", \"documents\": [{}]}"));
  std::string uri = server_->uri();
  uri.insert(std::string("mongodb://").size(), "plain:pw@");
  MongoClient logged_in(uri + "&authSource=admin");
  EXPECT_OK_REPLY(logged_in.RunCommand(db_, "{\"find\": \"c\"}"));  // no role needed
  EXPECT_EQ(String(logged_in.RunCommand("admin", "{\"connectionStatus\": 1}"),
                   "authInfo.authenticatedUsers.0.user"),
            "plain");
  ASSERT_OK_REPLY(RunAdmin("{\"dropUser\": \"plain\"}"));
}

}  // namespace
}  // namespace tigerdoc::e2e
