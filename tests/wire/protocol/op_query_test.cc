#include "wire/protocol/op_query.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/wire/protocol/golden_messages.h"
#include "wire/protocol/msg_header.h"

namespace tigerdoc::wire {
namespace {

std::vector<uint8_t> Bytes(const std::string& s) { return {s.begin(), s.end()}; }

StatusWith<OpQuery> Parse(const std::vector<uint8_t>& m) {
  return ParseOpQuery(m.data(), m.size());
}

TEST(OpQueryTest, ParsesGoldenIsMaster) {
  auto q = Parse(golden::kOpQueryIsMaster);
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  EXPECT_EQ(q.value().flags, 0);
  EXPECT_EQ(q.value().full_collection_name, "admin.$cmd");
  EXPECT_EQ(q.value().number_to_skip, 0);
  EXPECT_EQ(q.value().number_to_return, -1);
  EXPECT_EQ(q.value().query.ToJson(), R"({ "isMaster" : 1 })");
  EXPECT_FALSE(q.value().return_fields_selector.has_value());
}

TEST(OpQueryTest, SerializesGoldenIsMaster) {
  OpQuery q;
  q.full_collection_name = "admin.$cmd";
  q.number_to_return = -1;
  q.query = bson::BsonDoc::FromJson(R"({"isMaster": 1})");
  EXPECT_EQ(Bytes(SerializeOpQuery(3, q)), golden::kOpQueryIsMaster);
}

TEST(OpQueryTest, ParsesOptionalReturnFieldsSelector) {
  OpQuery q;
  q.flags = 4;
  q.full_collection_name = "db.coll";
  q.number_to_skip = 2;
  q.number_to_return = 10;
  q.query = bson::BsonDoc::FromJson(R"({"a": 1})");
  q.return_fields_selector = bson::BsonDoc::FromJson(R"({"b": 1})");
  auto m = Bytes(SerializeOpQuery(5, q));
  auto parsed = Parse(m);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed.value().flags, 4);
  EXPECT_EQ(parsed.value().number_to_skip, 2);
  EXPECT_EQ(parsed.value().number_to_return, 10);
  ASSERT_TRUE(parsed.value().return_fields_selector.has_value());
  EXPECT_EQ(parsed.value().return_fields_selector->ToJson(), R"({ "b" : 1 })");
}

TEST(OpQueryTest, SerializesGoldenOpReply) {
  bson::BsonDoc ok = bson::BsonDoc::FromJson(R"({"ok": 1.0})");
  EXPECT_EQ(Bytes(SerializeOpReply(100, 3, ok)), golden::kOpReplyOk);
}

TEST(OpQueryTest, EveryTruncationIsAnError) {
  for (size_t cut = 16; cut < golden::kOpQueryIsMaster.size(); ++cut) {
    std::vector<uint8_t> m(golden::kOpQueryIsMaster.begin(),
                           golden::kOpQueryIsMaster.begin() + cut);
    StoreInt32(m.data(), static_cast<int32_t>(m.size()));
    EXPECT_FALSE(Parse(m).ok()) << "cut at " << cut;
  }
}

TEST(OpQueryTest, TrailingGarbageAfterSelectorIsRejected) {
  auto m = golden::kOpQueryIsMaster;
  const std::vector<uint8_t> selector = {5, 0, 0, 0, 0};
  m.insert(m.end(), selector.begin(), selector.end());
  m.push_back(0x42);
  StoreInt32(m.data(), static_cast<int32_t>(m.size()));
  EXPECT_EQ(Parse(m).status().code(), ErrorCode::kInvalidBSON);
}

TEST(OpQueryTest, UnterminatedNamespaceIsOverflow) {
  std::vector<uint8_t> m(golden::kOpQueryIsMaster.begin(), golden::kOpQueryIsMaster.begin() + 25);
  StoreInt32(m.data(), static_cast<int32_t>(m.size()));
  EXPECT_EQ(Parse(m).status().code(), ErrorCode::kOverflow);
}

}  // namespace
}  // namespace tigerdoc::wire
