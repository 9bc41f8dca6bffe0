// Logical sessions under --auth (with --replSet, for transactions and
// retryable writes): a session belongs to the user who uses it, as
// MongoDB's lsid carries the user's uid; ending a session keeps its
// retryable-write record; cursors stay their opener's, however they end.

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

class AuthSessionTest : public AuthTest {
 protected:
  static void SetUpTestSuite() { StartServerWithRoot({"--auth", "--replSet", "rs0"}); }

  // "lsid": {id: UUID 5e55 0000 ... <n>}: the same lsid for every user.
  static std::string Lsid(int n) {
    uint8_t bytes[16] = {0x5e, 0x55};
    bytes[15] = static_cast<uint8_t>(n);
    BsonDoc lsid;
    BSON_APPEND_BINARY(lsid.mutable_get(), "id", BSON_SUBTYPE_UUID, bytes, sizeof bytes);
    return R"("lsid": )" + testutil::CanonicalJson(lsid);
  }
  static std::string TxnFields(int n, int64_t txn, bool autocommit_false, bool start = false) {
    std::string out = Lsid(n) + R"(, "txnNumber": {"$numberLong": ")" + std::to_string(txn) + R"("})";
    if (autocommit_false) out += R"(, "autocommit": false)";
    if (start) out += R"(, "startTransaction": true)";
    return out;
  }
  static std::string LsidArray(int n) {
    const std::string lsid = Lsid(n);
    return "[" + lsid.substr(lsid.find('{')) + "]";
  }
};

// bob, who learned alice's lsid, cannot end, kill, commit or join her
// transaction; anonymous clients cannot end sessions at all.
TEST_F(AuthSessionTest, AnotherUsersSessionIsOutOfReach) {
  CreateUser("alice", "alice-pw", R"(["readWriteAnyDatabase"])");
  CreateUser("bob", "bob-pw", R"(["readWriteAnyDatabase"])");
  auto alice = ClientAs("alice", "alice-pw");
  auto bob = ClientAs("bob", "bob-pw");
  ASSERT_OK_REPLY(alice->RunCommand(
      db_, R"({"insert": "c", "documents": [{"_id": 1}], )" + TxnFields(1, 1, true, true) + "}"));
  EXPECT_OK_REPLY(bob->RunCommand("admin", R"({"killSessions": )" + LsidArray(1) + "}"));
  EXPECT_OK_REPLY(bob->RunCommand("admin", R"({"endSessions": )" + LsidArray(1) + "}"));
  MongoClient anonymous(server_->uri());
  BsonDoc refused = anonymous.RunCommand("admin", R"({"endSessions": )" + LsidArray(1) + "}");
  EXPECT_UNAUTHORIZED(refused);
  // bob's statements with alice's lsid run in a session of bob's own.
  EXPECT_ERROR_REPLY(
      bob->RunCommand("admin", R"({"commitTransaction": 1, )" + TxnFields(1, 1, true) + "}"), 251,
      "NoSuchTransaction");
  EXPECT_ERROR_REPLY(
      bob->RunCommand(db_, R"({"insert": "c", "documents": [{"_id": 2}], )" + TxnFields(1, 1, true) + "}"),
      251, "NoSuchTransaction");
  // alice's transaction is intact and commits.
  ASSERT_OK_REPLY(alice->RunCommand(
      db_, R"({"insert": "c", "documents": [{"_id": 3}], )" + TxnFields(1, 1, true) + "}"));
  ASSERT_OK_REPLY(alice->RunCommand("admin", R"({"commitTransaction": 1, )" + TxnFields(1, 1, true) + "}"));
  EXPECT_EQ(Integer(client_->RunCommand(db_, R"({"count": "c"})"), "n"), 2);
  // alice ends her own session.
  EXPECT_OK_REPLY(alice->RunCommand("admin", R"({"endSessions": )" + LsidArray(1) + "}"));
}

// A retryable write, then endSessions, then the driver's retry of the same
// statement (lost reply): answered from the record, applied once. Four
// users at once, each with the same lsid.
TEST_F(AuthSessionTest, RetryAfterEndSessionsIsAppliedOnce) {
  constexpr int kUsers = 4;
  for (int u = 0; u < kUsers; ++u) {
    CreateUser("writer" + std::to_string(u), "pw", R"(["readWriteAnyDatabase"])");
  }
  ASSERT_OK_REPLY(client_->RunCommand(
      db_, R"({"insert": "counters", "documents": [{"_id": 0, "n": 0}, {"_id": 1, "n": 0}, {"_id": 2, "n": 0}, {"_id": 3, "n": 0}]})"));
  std::vector<std::thread> threads;
  for (int u = 0; u < kUsers; ++u) {
    threads.emplace_back([&, u] {
      auto writer = ClientAs("writer" + std::to_string(u), "pw");
      const std::string update = R"({"update": "counters", "updates": [{"q": {"_id": )" +
                                 std::to_string(u) + R"(}, "u": {"$inc": {"n": 1}}}], )" +
                                 TxnFields(7, 1, false) + "}";
      BsonDoc first = writer->RunCommand(db_, update);
      EXPECT_OK_REPLY(first);
      EXPECT_EQ(Integer(first, "nModified"), 1);
      EXPECT_OK_REPLY(writer->RunCommand("admin", R"({"endSessions": )" + LsidArray(7) + "}"));
      BsonDoc retried = writer->RunCommand(db_, update);
      EXPECT_OK_REPLY(retried);
      EXPECT_EQ(Integer(retried, "nModified"), 1) << Json(retried);
    });
  }
  for (auto& t : threads) t.join();
  for (int u = 0; u < kUsers; ++u) {
    BsonDoc found = client_->RunCommand(db_, R"({"find": "counters", "filter": {"_id": )" +
                                                  std::to_string(u) + "}}");
    EXPECT_EQ(Integer(found, "cursor.firstBatch.0.n"), 1) << "user " << u << ": " << Json(found);
  }
}

// A cursor is its opener's while it lives and forgotten when it ends, by
// killCursors, by exhaustion, or with its transaction's abort: another
// user gets 13 while it lives and 43 CursorNotFound after.
TEST_F(AuthSessionTest, CursorsStayTheirOpenersUntilTheyEnd) {
  CreateUser("carol", "carol-pw", R"(["readWriteAnyDatabase"])");
  CreateUser("dave", "dave-pw", R"(["readWriteAnyDatabase"])");
  auto carol = ClientAs("carol", "carol-pw");
  auto dave = ClientAs("dave", "dave-pw");
  ASSERT_OK_REPLY(client_->RunCommand(
      db_, R"({"insert": "c", "documents": [{"_id": 1}, {"_id": 2}, {"_id": 3}]})"));
  auto get_more = [&](MongoClient& who, int64_t id) {
    return who.RunCommand(db_, R"({"getMore": {"$numberLong": ")" + std::to_string(id) +
                                   R"("}, "collection": "c", "batchSize": 1})");
  };
  auto open = [&](const std::string& extra) {
    BsonDoc first = carol->RunCommand(db_, R"({"find": "c", "batchSize": 1)" + extra + "}");
    EXPECT_OK_REPLY(first);
    return Integer(first, "cursor.id").value_or(0);
  };
  // Killed.
  int64_t id = open("");
  ASSERT_NE(id, 0);
  EXPECT_UNAUTHORIZED(get_more(*dave, id));
  ASSERT_OK_REPLY(carol->RunCommand(db_, R"({"killCursors": "c", "cursors": [{"$numberLong": ")" +
                                              std::to_string(id) + R"("}]})"));
  EXPECT_ERROR_REPLY(get_more(*dave, id), 43, "CursorNotFound");
  // Exhausted by its owner.
  id = open("");
  EXPECT_OK_REPLY(get_more(*carol, id));
  BsonDoc last = carol->RunCommand(db_, R"({"getMore": {"$numberLong": ")" + std::to_string(id) +
                                            R"("}, "collection": "c"})");
  EXPECT_EQ(Integer(last, "cursor.id"), 0) << Json(last);
  EXPECT_ERROR_REPLY(get_more(*dave, id), 43, "CursorNotFound");
  // Killed by its transaction's abort.
  id = open(", " + TxnFields(9, 1, true, true));
  EXPECT_UNAUTHORIZED(get_more(*dave, id));
  ASSERT_OK_REPLY(carol->RunCommand("admin", R"({"abortTransaction": 1, )" + TxnFields(9, 1, true) + "}"));
  EXPECT_ERROR_REPLY(get_more(*dave, id), 43, "CursorNotFound");
}

}  // namespace
}  // namespace tigerdoc::e2e
