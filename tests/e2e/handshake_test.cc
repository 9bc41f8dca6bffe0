// Handshake and server-information commands as MongoDB answers them:
// hello / isMaster, ping, buildInfo, and an unknown command.
#include <chrono>

#include "tests/e2e/e2e_test_base.h"

namespace tigerdoc::e2e {
namespace {

using testutil::Integer;
using testutil::Json;
using testutil::Lookup;
using testutil::Number;
using testutil::String;
using testutil::TypeAt;

class HandshakeTest : public E2eTest {
 protected:
  // Fields every hello/isMaster reply of a standalone mongod carries.
  void ExpectCommonHelloFields(const BsonDoc& r) {
    EXPECT_OK_REPLY(r);
    EXPECT_EQ(TypeAt(r, "maxBsonObjectSize"), BSON_TYPE_INT32) << Json(r);
    EXPECT_EQ(Integer(r, "maxBsonObjectSize"), 16777216) << Json(r);
    EXPECT_EQ(Integer(r, "maxMessageSizeBytes"), 48000000) << Json(r);
    EXPECT_EQ(Integer(r, "maxWriteBatchSize"), 100000) << Json(r);
    EXPECT_EQ(Integer(r, "minWireVersion"), 0) << Json(r);
    // Wire 7 (MongoDB 4.0) is the oldest the current Node driver (mongosh)
    // accepts; libmongoc 1.23 needs 6.
    ASSERT_TRUE(Integer(r, "maxWireVersion").has_value()) << Json(r);
    EXPECT_GE(*Integer(r, "maxWireVersion"), 7) << Json(r);
    EXPECT_EQ(Integer(r, "logicalSessionTimeoutMinutes"), 30) << Json(r);
    EXPECT_TRUE(Integer(r, "connectionId").has_value()) << Json(r);
    EXPECT_EQ(TypeAt(r, "readOnly"), BSON_TYPE_BOOL) << Json(r);
    // localTime is a BSON date close to now.
    auto lt = Lookup(r, "localTime");
    ASSERT_TRUE(lt.has_value()) << Json(r);
    ASSERT_EQ(bson_iter_type(&*lt), BSON_TYPE_DATE_TIME) << Json(r);
    int64_t server_ms = bson_iter_date_time(&*lt);
    int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
    EXPECT_LT(std::llabs(server_ms - now_ms), 60000) << Json(r);
  }
};

TEST_F(HandshakeTest, HelloReportsWritablePrimaryAndLimits) {
  BsonDoc r = RunAdmin(R"({"hello": 1})");
  ExpectCommonHelloFields(r);
  EXPECT_EQ(TypeAt(r, "isWritablePrimary"), BSON_TYPE_BOOL) << Json(r);
  EXPECT_EQ(Number(r, "isWritablePrimary"), 1.0) << Json(r);
  // A standalone is not a replica set member and not mongos.
  EXPECT_FALSE(testutil::Has(r, "setName")) << Json(r);
  EXPECT_FALSE(testutil::Has(r, "msg")) << Json(r);
}

TEST_F(HandshakeTest, IsMasterAndLowercaseAliasReportIsmaster) {
  for (const char* cmd : {R"({"isMaster": 1})", R"({"ismaster": 1})"}) {
    BsonDoc r = Run(cmd);
    ExpectCommonHelloFields(r);
    EXPECT_EQ(TypeAt(r, "ismaster"), BSON_TYPE_BOOL) << cmd << " " << Json(r);
    EXPECT_EQ(Number(r, "ismaster"), 1.0) << cmd << " " << Json(r);
  }
}

TEST_F(HandshakeTest, ConnectionIdDiffersPerConnection) {
  MongoClient other(server_->uri());
  BsonDoc a = RunAdmin(R"({"hello": 1})");
  BsonDoc b = other.RunCommand("admin", R"({"hello": 1})");
  ASSERT_TRUE(Integer(a, "connectionId").has_value()) << Json(a);
  ASSERT_TRUE(Integer(b, "connectionId").has_value()) << Json(b);
  EXPECT_NE(*Integer(a, "connectionId"), *Integer(b, "connectionId"));
  // The same connection keeps its id.
  BsonDoc a2 = RunAdmin(R"({"hello": 1})");
  EXPECT_EQ(Integer(a, "connectionId"), Integer(a2, "connectionId"));
}

TEST_F(HandshakeTest, PingRepliesOkAsDouble) {
  for (const char* db : {"admin", "test", "anything"}) {
    BsonDoc r = client_->RunCommand(db, R"({"ping": 1})");
    EXPECT_EQ(TypeAt(r, "ok"), BSON_TYPE_DOUBLE) << Json(r);
    EXPECT_OK_REPLY(r);
  }
}

TEST_F(HandshakeTest, BuildInfoReportsVersion) {
  for (const char* cmd : {R"({"buildInfo": 1})", R"({"buildinfo": 1})"}) {
    BsonDoc r = RunAdmin(cmd);
    EXPECT_OK_REPLY(r);
    auto version = String(r, "version");
    ASSERT_TRUE(version.has_value()) << Json(r);
    EXPECT_FALSE(version->empty());
    EXPECT_EQ(TypeAt(r, "versionArray"), BSON_TYPE_ARRAY) << Json(r);
    EXPECT_EQ(testutil::ArrayLength(r, "versionArray"), 4u) << Json(r);
    // versionArray agrees with the version string's major.minor.
    auto major = Integer(r, "versionArray.0");
    auto minor = Integer(r, "versionArray.1");
    ASSERT_TRUE(major && minor) << Json(r);
    EXPECT_EQ(version->rfind(std::to_string(*major) + "." + std::to_string(*minor) + ".", 0), 0u)
        << Json(r);
    EXPECT_EQ(Integer(r, "maxBsonObjectSize"), 16777216) << Json(r);
    EXPECT_EQ(Integer(r, "bits"), 64) << Json(r);
  }
}

TEST_F(HandshakeTest, UnknownCommandIsCommandNotFound) {
  BsonDoc r = Run(R"({"fooBarBaz": 1})");
  EXPECT_ERROR_REPLY(r, 59, "CommandNotFound");
  EXPECT_EQ(String(r, "errmsg"), "no such command: 'fooBarBaz'") << Json(r);
  EXPECT_EQ(TypeAt(r, "ok"), BSON_TYPE_DOUBLE) << Json(r);
}

TEST_F(HandshakeTest, CommandNamesAreCaseSensitive) {
  BsonDoc r = Run(R"({"PING": 1})");
  EXPECT_ERROR_REPLY(r, 59, "CommandNotFound");
}

TEST_F(HandshakeTest, ConnectionSurvivesCommandErrors) {
  EXPECT_ERROR_REPLY(Run(R"({"fooBarBaz": 1})"), 59, "CommandNotFound");
  BsonDoc r = Run(R"({"ping": 1})");
  EXPECT_OK_REPLY(r);
}

}  // namespace
}  // namespace tigerdoc::e2e
