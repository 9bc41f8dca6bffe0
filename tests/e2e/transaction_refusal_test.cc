// Transactions on the standalone server are refused before anything is
// written, with a standalone mongod's answer (20 IllegalOperation).
//
// Regression: writes sent inside a transaction (autocommit: false) were
// applied at once, visible to others, and abortTransaction undid nothing.

#include <gtest/gtest.h>

#include <string>

#include "tests/e2e/e2e_test_base.h"

namespace tigerdoc::e2e {
namespace {

using testutil::Integer;
using testutil::Json;

constexpr char kLsid[] = R"("lsid": {"id": {"$binary": {"base64": "AAAAAAAAAAAAAAAAAAAAAA==", "subType": "04"}}})";
constexpr char kMessage[] = "Transaction numbers are only allowed on a replica set member or mongos";

class TransactionRefusalTest : public E2eTest {
 protected:
  void ExpectRefused(const BsonDoc& reply) {
    EXPECT_ERROR_REPLY(reply, 20, "IllegalOperation");
    EXPECT_EQ(testutil::String(reply, "errmsg"), std::string(kMessage)) << Json(reply);
  }
  int64_t CountAll(const std::string& coll) {
    BsonDoc reply = Run("{\"count\": \"" + coll + "\"}");
    EXPECT_OK_REPLY(reply);
    return Integer(reply, "n").value_or(-1);
  }
};

TEST_F(TransactionRefusalTest, FirstStatementOfATransactionWritesNothing) {
  ExpectRefused(Run(std::string(R"({"insert": "c", "documents": [{"_id": 1}], )") + kLsid +
                    R"(, "txnNumber": {"$numberLong": "1"}, "autocommit": false, "startTransaction": true})"));
  EXPECT_EQ(CountAll("c"), 0);
}

TEST_F(TransactionRefusalTest, EveryWriteAndReadOfATransactionIsRefused) {
  InsertJson("c", R"([{"_id": 1, "a": 1}])");
  const std::string txn = std::string(kLsid) + R"(, "txnNumber": {"$numberLong": "2"}, "autocommit": false)";
  ExpectRefused(Run(R"({"update": "c", "updates": [{"q": {"_id": 1}, "u": {"$set": {"a": 2}}}], )" + txn + "}"));
  ExpectRefused(Run(R"({"delete": "c", "deletes": [{"q": {}, "limit": 0}], )" + txn + "}"));
  ExpectRefused(Run(R"({"findAndModify": "c", "query": {"_id": 1}, "remove": true, )" + txn + "}"));
  ExpectRefused(Run(R"({"find": "c", )" + txn + "}"));
  ExpectRefused(Run(R"({"aggregate": "c", "pipeline": [{"$out": "d"}], "cursor": {}, )" + txn + "}"));
  BsonDoc doc = Run(R"({"find": "c", "filter": {"_id": 1}})");
  ASSERT_OK_REPLY(doc);
  EXPECT_EQ(Integer(doc, "cursor.firstBatch.0.a"), 1) << Json(doc);
  EXPECT_EQ(CountAll("d"), 0);
}

TEST_F(TransactionRefusalTest, EachTransactionFieldAloneIsRefused) {
  for (const char* field : {R"("txnNumber": {"$numberLong": "3"})", R"("autocommit": false)",
                            R"("startTransaction": true)"}) {
    ExpectRefused(Run(std::string(R"({"insert": "c", "documents": [{"x": 1}], )") + kLsid + ", " + field + "}"));
  }
  EXPECT_EQ(CountAll("c"), 0);
}

TEST_F(TransactionRefusalTest, CommitAndAbortTransactionAnswerAsAStandalone) {
  const std::string txn = std::string(kLsid) + R"(, "txnNumber": {"$numberLong": "4"}, "autocommit": false)";
  ExpectRefused(RunAdmin(R"({"commitTransaction": 1, )" + txn + "}"));
  ExpectRefused(RunAdmin(R"({"abortTransaction": 1, )" + txn + "}"));
  ExpectRefused(RunAdmin(R"({"commitTransaction": 1})"));
  ExpectRefused(RunAdmin(R"({"abortTransaction": 1})"));
  EXPECT_ERROR_REPLY(Run(R"({"commitTransaction": 1})"), 13, "Unauthorized");
}

TEST_F(TransactionRefusalTest, AnOrdinarySessionStillWorks) {
  // Drivers attach lsid to every command; that alone is fine.
  BsonDoc reply = Run(std::string(R"({"insert": "c", "documents": [{"_id": 1}], )") + kLsid + "}");
  ASSERT_OK_REPLY(reply);
  EXPECT_EQ(CountAll("c"), 1);
}

}  // namespace
}  // namespace tigerdoc::e2e
