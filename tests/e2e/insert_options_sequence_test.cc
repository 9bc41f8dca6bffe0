// RunInsert's fast path (issue #18): with its documents in a kind-1
// sequence and no option beyond `ordered`, an insert uses the sequence's
// views in place and reads no absent option; anything else (writeConcern,
// bypassDocumentValidation, a batch size out of range, a bad `ordered`, a
// collection name that is not a string) takes the general path, with the
// same replies and errors as before. Each case is sent as drivers send it,
// over a raw connection.

#include <string>
#include <vector>

#include "tests/e2e/e2e_test_base.h"
#include "tests/e2e/sequence_insert.h"

namespace tigerdoc::e2e {
namespace {

using testutil::DocArray;
using testutil::Integer;
using testutil::Json;

class InsertOptionsSequenceTest : public E2eTest {
 protected:
  // {insert: coll, documents: [{_id: first}, ...count] <extra fields>}.
  BsonDoc Command(const std::string& coll_json, int first, int count, const std::string& extra = "") {
    std::string docs;
    for (int i = 0; i < count; ++i) {
      docs += (i ? "," : "") + std::string(R"({"_id": )") + std::to_string(first + i) + "}";
    }
    return BsonDoc::FromJson(R"({"insert": )" + coll_json + R"(, "documents": [)" + docs + "]" + extra + "}");
  }
  BsonDoc SendAsSequence(const BsonDoc& command) {
    return sequence_.Insert(server_->port(), db_, command);
  }
  int64_t Count(const std::string& coll) {
    return Integer(Run(R"({"count": ")" + coll + R"("})"), "n").value_or(-1);
  }

  SequenceInserter sequence_;
};

TEST_F(InsertOptionsSequenceTest, BatchSizesBelowAtAndAboveTheLimits) {
  // An empty sequence: InsertAsSequence sends one with no documents.
  BsonDoc r = SendAsSequence(BsonDoc::FromJson(R"({"insert": "c", "documents": []})"));
  EXPECT_ERROR_REPLY(r, 16, "InvalidLength");
  EXPECT_EQ(testutil::String(r, "errmsg"), "Write batch sizes must be between 1 and 100000. Got 0 operations.");
  ASSERT_OK_REPLY(SendAsSequence(Command(R"("c")", 0, 1)));
  ASSERT_OK_REPLY(SendAsSequence(Command(R"("c")", 1, 2)));
  r = SendAsSequence(Command(R"("c")", 1000, 100000));
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "n"), 100000);
  r = SendAsSequence(Command(R"("d")", 0, 100001));
  EXPECT_ERROR_REPLY(r, 16, "InvalidLength");
  EXPECT_EQ(testutil::String(r, "errmsg"),
            "Write batch sizes must be between 1 and 100000. Got 100001 operations.");
  EXPECT_EQ(Count("c"), 100003);
  EXPECT_EQ(Count("d"), 0);
}

TEST_F(InsertOptionsSequenceTest, OrderedGivenOrNotAndOfTheWrongType) {
  ASSERT_OK_REPLY(SendAsSequence(Command(R"("c")", 5, 1)));
  // Unordered goes on past the duplicate; ordered (given or by default)
  // stops at it.
  BsonDoc r = SendAsSequence(Command(R"("c")", 3, 4, R"(, "ordered": false)"));
  EXPECT_EQ(Integer(r, "n"), 3) << Json(r);
  ASSERT_EQ(DocArray(r, "writeErrors").size(), 1u) << Json(r);
  EXPECT_EQ(Integer(r, "writeErrors.0.index"), 2);
  EXPECT_EQ(Integer(r, "writeErrors.0.code"), 11000);
  r = SendAsSequence(Command(R"("c")", 10, 3, R"(, "ordered": true)"));
  EXPECT_EQ(Integer(r, "n"), 3) << Json(r);
  r = SendAsSequence(Command(R"("c")", 12, 3));
  EXPECT_EQ(Integer(r, "n"), 0) << Json(r);
  EXPECT_EQ(Integer(r, "writeErrors.0.index"), 0) << Json(r);
  r = SendAsSequence(Command(R"("c")", 20, 1, R"(, "ordered": "yes")"));
  EXPECT_ERROR_REPLY(r, 14, "TypeMismatch");
  EXPECT_EQ(testutil::String(r, "errmsg"),
            "BSON field 'insert.ordered' is the wrong type 'string', expected type 'bool'") << Json(r);
  EXPECT_EQ(Count("c"), 7);  // 5; 3, 4, 6; 10, 11, 12
}

TEST_F(InsertOptionsSequenceTest, WriteConcernAndBypassTakeTheGeneralPath) {
  // w:0: the reply is exactly {ok: 1}, and the document is stored.
  BsonDoc r = SendAsSequence(Command(R"("c")", 1, 1, R"(, "writeConcern": {"w": 0})"));
  EXPECT_EQ(Json(r), Json(BsonDoc::FromJson(R"({"ok": 1.0})")));
  r = SendAsSequence(Command(R"("c")", 2, 1, R"(, "writeConcern": {"w": 1, "j": true})"));
  EXPECT_EQ(Integer(r, "n"), 1) << Json(r);
  EXPECT_EQ(Count("c"), 2);
  // A validator refuses what bypassDocumentValidation lets through.
  ASSERT_OK_REPLY(Run(R"({"create": "v", "validator": {"a": {"$exists": true}}})"));
  r = SendAsSequence(Command(R"("v")", 1, 1));
  ASSERT_EQ(DocArray(r, "writeErrors").size(), 1u) << Json(r);
  EXPECT_EQ(Integer(r, "writeErrors.0.code"), 121) << Json(r);
  r = SendAsSequence(Command(R"("v")", 1, 1, R"(, "bypassDocumentValidation": true)"));
  EXPECT_EQ(Integer(r, "n"), 1) << Json(r);
  // A number is a bool here (MongoDB's safeBool).
  r = SendAsSequence(Command(R"("v")", 2, 1, R"(, "bypassDocumentValidation": 1)"));
  EXPECT_EQ(Integer(r, "n"), 1) << Json(r);
  r = SendAsSequence(Command(R"("v")", 3, 1, R"(, "bypassDocumentValidation": false)"));
  EXPECT_EQ(Integer(r, "writeErrors.0.code"), 121) << Json(r);
  EXPECT_EQ(Count("v"), 2);
}

TEST_F(InsertOptionsSequenceTest, CollectionNamesAndUnknownFields) {
  BsonDoc r = SendAsSequence(Command("5", 1, 1));
  EXPECT_ERROR_REPLY(r, 73, "InvalidNamespace");
  EXPECT_EQ(testutil::String(r, "errmsg"), "collection name has invalid type int") << Json(r);
  r = SendAsSequence(Command(R"("")", 1, 1));
  EXPECT_ERROR_REPLY(r, 73, "InvalidNamespace");
  r = SendAsSequence(Command(R"("c")", 1, 1, R"(, "bogus": 1)"));
  EXPECT_ERROR_REPLY(r, 40415, "Location40415");
  EXPECT_EQ(testutil::String(r, "errmsg"), "BSON field 'insert.bogus' is an unknown field.") << Json(r);
  EXPECT_EQ(Count("c"), 0);
  ASSERT_OK_REPLY(SendAsSequence(Command(R"("c")", 1, 1, R"(, "comment": "generic")")));
  EXPECT_EQ(Count("c"), 1);
}

}  // namespace
}  // namespace tigerdoc::e2e
