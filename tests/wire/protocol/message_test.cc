#include "wire/protocol/message.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/wire/protocol/golden_messages.h"
#include "wire/protocol/byte_reader.h"
#include "wire/protocol/op_query.h"

namespace tigerdoc::wire {
namespace {

std::vector<uint8_t> Bytes(const std::string& s) { return {s.begin(), s.end()}; }

StatusWith<ParsedRequest> Parse(const std::vector<uint8_t>& m) {
  return ParseRequest(m.data(), m.size());
}

std::vector<uint8_t> OpMsgWithBody(const char* json, uint32_t flags = 0) {
  return Bytes(SerializeOpMsg(11, 0, flags, bson::BsonDoc::FromJson(json)));
}

std::vector<uint8_t> OpQueryFor(const std::string& ns, const char* json) {
  OpQuery q;
  q.full_collection_name = ns;
  q.number_to_return = -1;
  q.query = bson::BsonDoc::FromJson(json);
  return Bytes(SerializeOpQuery(12, q));
}

TEST(ParseRequestTest, OpMsgBecomesCommandWithDbFromDollarDb) {
  auto r = Parse(golden::kOpMsgInsert);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r.value().header.request_id, 8);
  EXPECT_EQ(r.value().header.op_code, kOpMsg);
  const CommandRequest& req = r.value().request;
  EXPECT_EQ(req.db, "test");
  EXPECT_EQ(req.body.ToJson(), R"({ "insert" : "c", "$db" : "test" })");
  ASSERT_EQ(req.sequences.size(), 1u);
  EXPECT_EQ(req.sequences[0].documents.size(), 2u);
  EXPECT_FALSE(req.legacy_op_query);
  EXPECT_FALSE(req.more_to_come);
  EXPECT_FALSE(req.exhaust_allowed);
}

TEST(ParseRequestTest, OpMsgFlagsAreReported) {
  auto r = Parse(OpMsgWithBody(R"({"ping": 1, "$db": "a"})", kMoreToCome | kExhaustAllowed));
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r.value().request.more_to_come);
  EXPECT_TRUE(r.value().request.exhaust_allowed);
}

TEST(ParseRequestTest, OpMsgWithoutDollarDbIsRejectedAsMongoDbDoes) {
  auto r = Parse(OpMsgWithBody(R"({"ping": 1})"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code_number(), 40571);
  EXPECT_EQ(r.status().reason(), "OP_MSG requests require a $db argument");
  EXPECT_FALSE(IsConnectionFatal(r.status()));
}

TEST(ParseRequestTest, NonStringDollarDbIsTypeMismatch) {
  auto r = Parse(OpMsgWithBody(R"({"ping": 1, "$db": 5})"));
  EXPECT_EQ(r.status().code(), ErrorCode::kTypeMismatch);
  EXPECT_EQ(r.status().reason(),
            "BSON field '$db' is the wrong type 'int', expected type 'string'");
}

TEST(ParseRequestTest, EmptyDollarDbIsInvalidNamespace) {
  EXPECT_EQ(Parse(OpMsgWithBody(R"({"ping": 1, "$db": ""})")).status().code(),
            ErrorCode::kInvalidNamespace);
}

// $db is found on the walk that checks the body (TopLevelProbe): only at
// the top level, the first of two, wherever it sits, also in a body whose
// content is left to bson_validate (a regex). (op_compressed_test parses
// compressed ones.)
TEST(ParseRequestTest, DollarDbIsTheFirstTopLevelOneWhereverItSits) {
  auto db_of = [](const char* json) {
    auto r = Parse(OpMsgWithBody(json));
    return r.ok() ? r.value().request.db : "error " + std::to_string(r.status().code_number());
  };
  EXPECT_EQ(db_of(R"({"$db": "first", "ping": 1})"), "first");
  EXPECT_EQ(db_of(R"({"find": "c", "filter": {"$db": "nested"}, "$db": "top"})"), "top");
  EXPECT_EQ(db_of(R"({"find": "c", "filter": {"$db": "nested"}})"), "error 40571");
  EXPECT_EQ(db_of(R"({"find": "c", "x": {"y": {"$db": "deep"}}, "$dbx": "a", "$d": "b"})"), "error 40571");
  EXPECT_EQ(db_of(R"({"find": "c", "re": {"$regularExpression": {"pattern": "a", "options": ""}}, "$db": "r"})"),
            "r");
  EXPECT_EQ(db_of(R"({"find": "c", "$db": "é"})"), "é");
  // Two $db: the first, as bson_iter_find's.
  bson::BsonDoc twice;
  BSON_APPEND_INT32(twice.mutable_get(), "ping", 1);
  BSON_APPEND_UTF8(twice.mutable_get(), "$db", "one");
  BSON_APPEND_UTF8(twice.mutable_get(), "$db", "two");
  auto r = Parse(Bytes(SerializeOpMsg(11, 0, 0, twice)));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r.value().request.db, "one");
  // The probe alone: offsets of the type byte, 0 when absent.
  bson::BsonDoc doc = bson::BsonDoc::FromJson(R"({"a": {"$db": 1}, "$db": "x"})");
  TopLevelProbe probe{"$db"};
  ASSERT_TRUE(CheckBsonNesting(doc.data(), doc.size(), kMaxBsonNestingDepth, nullptr, &probe).ok());
  bson_iter_t it;
  ASSERT_TRUE(bson_iter_init_find(&it, doc.get(), "$db"));
  EXPECT_EQ(probe.at, bson_iter_offset(&it));
  TopLevelProbe absent{"b"};
  ASSERT_TRUE(CheckBsonNesting(doc.data(), doc.size(), kMaxBsonNestingDepth, nullptr, &absent).ok());
  EXPECT_EQ(absent.at, 0u);
}

TEST(ParseRequestTest, OpQueryOnCmdNamespaceIsACommand) {
  auto r = Parse(golden::kOpQueryIsMaster);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r.value().header.op_code, kOpQuery);
  EXPECT_EQ(r.value().request.db, "admin");
  EXPECT_EQ(r.value().request.body.ToJson(), R"({ "isMaster" : 1 })");
  EXPECT_TRUE(r.value().request.legacy_op_query);
}

TEST(ParseRequestTest, OpQueryDollarQueryWrapperIsUnwrappedKeepingReadPreference) {
  auto r = Parse(OpQueryFor("test.$cmd",
                            R"({"$query": {"hello": 1}, "$readPreference": {"mode": "primary"}})"));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r.value().request.db, "test");
  EXPECT_EQ(r.value().request.body.ToJson(),
            R"({ "hello" : 1, "$readPreference" : { "mode" : "primary" } })");
}

TEST(ParseRequestTest, OpQueryQueryWrapperIsUnwrapped) {
  auto r = Parse(OpQueryFor("admin.$cmd", R"({"query": {"ismaster": 1}})"));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r.value().request.body.ToJson(), R"({ "ismaster" : 1 })");
}

TEST(ParseRequestTest, OpQueryWrapperThatIsNotAnObjectIsRejected) {
  EXPECT_EQ(Parse(OpQueryFor("admin.$cmd", R"({"$query": 1})")).status().code(),
            ErrorCode::kTypeMismatch);
}

TEST(ParseRequestTest, OpQueryOnOrdinaryCollectionIsAnswerableError) {
  for (const char* ns : {"test.coll", "test", "test.coll.$cmd", "test.$cmdx"}) {
    auto r = Parse(OpQueryFor(ns, R"({"a": 1})"));
    ASSERT_FALSE(r.ok()) << ns;
    EXPECT_EQ(r.status().code_number(), 5739101) << ns;
    EXPECT_FALSE(IsConnectionFatal(r.status()));
  }
}

TEST(ParseRequestTest, OpQueryWithEmptyDbIsInvalidNamespace) {
  EXPECT_EQ(Parse(OpQueryFor(".$cmd", R"({"ping": 1})")).status().code(),
            ErrorCode::kInvalidNamespace);
}

TEST(ParseRequestTest, CompressedAndUnknownOpcodesAreConnectionFatal) {
  for (int32_t op : {kOpCompressed, kOpReply, 2001, 2002, 2005, 0, -1}) {
    auto m = golden::kOpMsgPing;
    StoreInt32(m.data() + 12, op);
    auto r = Parse(m);
    ASSERT_FALSE(r.ok()) << op;
    EXPECT_EQ(r.status().code(), ErrorCode::kProtocolError) << op;
    EXPECT_TRUE(IsConnectionFatal(r.status())) << op;
  }
}

TEST(ParseRequestTest, FramingErrorsAreConnectionFatal) {
  // Shorter than a header.
  auto r = ParseRequest(golden::kOpMsgPing.data(), 15);
  EXPECT_EQ(r.status().code(), ErrorCode::kProtocolError);
  EXPECT_TRUE(IsConnectionFatal(r.status()));
  // messageLength out of bounds or disagreeing with the bytes given.
  for (int32_t length : {-1, 0, 15, 50, 52, kMaxMessageBytes + 1}) {
    auto m = golden::kOpMsgPing;
    StoreInt32(m.data(), length);
    auto bad = Parse(m);
    EXPECT_EQ(bad.status().code(), ErrorCode::kProtocolError) << length;
    EXPECT_TRUE(IsConnectionFatal(bad.status()));
  }
}

TEST(ParseRequestTest, IllegalFlagsAndBadChecksumAreConnectionFatal) {
  auto flags = golden::kOpMsgPing;
  StoreInt32(flags.data() + 16, 1 << 4);
  EXPECT_TRUE(IsConnectionFatal(Parse(flags).status()));
  auto sum = golden::kOpMsgPingChecksum;
  sum.back() ^= 0xFF;
  EXPECT_EQ(Parse(sum).status().code(), ErrorCode::kChecksumMismatch);
  EXPECT_TRUE(IsConnectionFatal(Parse(sum).status()));
}

TEST(ParseRequestTest, BadBsonIsAnswerable) {
  auto m = golden::kOpMsgPing;
  m[25] = 0x77;
  auto r = Parse(m);
  EXPECT_EQ(r.status().code(), ErrorCode::kInvalidBSON);
  EXPECT_FALSE(IsConnectionFatal(r.status()));
}

TEST(ParseRequestTest, HeaderAtTheSizeBoundsIsAccepted) {
  // Exactly 16 bytes: a well-framed OP_MSG that is too short for flagBits
  // is an answerable parse error, not a framing error.
  std::vector<uint8_t> m(golden::kOpMsgPing.begin(), golden::kOpMsgPing.begin() + 16);
  StoreInt32(m.data(), 16);
  auto r = Parse(m);
  ASSERT_FALSE(r.ok());
  EXPECT_FALSE(IsConnectionFatal(r.status()));
}

TEST(SerializeReplyTest, MatchesTheRequestOpcode) {
  bson::BsonDoc ok = bson::BsonDoc::FromJson(R"({"ok": 1.0})");
  auto msg = Parse(golden::kOpMsgPing);
  ASSERT_TRUE(msg.ok());
  EXPECT_EQ(Bytes(SerializeReply(msg.value().header, 100, ok)), golden::kOpMsgReplyOk);
  auto query = Parse(golden::kOpQueryIsMaster);
  ASSERT_TRUE(query.ok());
  EXPECT_EQ(Bytes(SerializeReply(query.value().header, 100, ok)), golden::kOpReplyOk);
}

}  // namespace
}  // namespace tigerdoc::wire
