#include "wire/protocol/op_msg.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "tests/wire/protocol/golden_messages.h"
#include "wire/protocol/crc32c.h"
#include "wire/protocol/msg_header.h"

namespace tigerdoc::wire {
namespace {

std::vector<uint8_t> Bytes(const std::string& s) { return {s.begin(), s.end()}; }

StatusWith<OpMsg> Parse(const std::vector<uint8_t>& m) { return ParseOpMsg(m.data(), m.size()); }

// A sequence's document (a view) as JSON.
std::string Json(std::string_view doc) {
  return bson::BsonDoc::CopyOf(reinterpret_cast<const uint8_t*>(doc.data()), doc.size()).ToJson();
}

// Rewrites messageLength after a test edits the message size.
void FixLength(std::vector<uint8_t>* m) { StoreInt32(m->data(), static_cast<int32_t>(m->size())); }

// Recomputes the trailing checksum after a test edits a checksummed message.
void FixChecksum(std::vector<uint8_t>* m) {
  StoreInt32(m->data() + m->size() - 4, static_cast<int32_t>(Crc32c(m->data(), m->size() - 4)));
}

TEST(OpMsgTest, ParsesGoldenKindZeroMessage) {
  auto msg = Parse(golden::kOpMsgPing);
  ASSERT_TRUE(msg.ok()) << msg.status().ToString();
  EXPECT_EQ(msg.value().flag_bits, 0u);
  EXPECT_EQ(msg.value().body.ToJson(), R"({ "ping" : 1, "$db" : "admin" })");
  EXPECT_TRUE(msg.value().sequences.empty());
}

TEST(OpMsgTest, ParsesGoldenKindOneSection) {
  auto msg = Parse(golden::kOpMsgInsert);
  ASSERT_TRUE(msg.ok()) << msg.status().ToString();
  EXPECT_EQ(msg.value().body.ToJson(), R"({ "insert" : "c", "$db" : "test" })");
  ASSERT_EQ(msg.value().sequences.size(), 1u);
  const DocumentSequence& seq = msg.value().sequences[0];
  EXPECT_EQ(seq.identifier, "documents");
  ASSERT_EQ(seq.documents.size(), 2u);
  EXPECT_EQ(Json(seq.documents[0]), R"({ "_id" : 1 })");
  EXPECT_EQ(Json(seq.documents[1]), R"({ "_id" : 2 })");
}

// The documents of a sequence are not copied: they view the parsed message.
TEST(OpMsgTest, SequenceDocumentsViewTheMessage) {
  const std::vector<uint8_t>& m = golden::kOpMsgInsert;
  auto msg = Parse(m);
  ASSERT_TRUE(msg.ok()) << msg.status().ToString();
  const char* begin = reinterpret_cast<const char*>(m.data());
  for (std::string_view doc : msg.value().sequences[0].documents) {
    EXPECT_GE(doc.data(), begin);
    EXPECT_LE(doc.data() + doc.size(), begin + m.size());
  }
}

TEST(OpMsgTest, ParsesGoldenMessageWithValidChecksum) {
  auto msg = Parse(golden::kOpMsgPingChecksum);
  ASSERT_TRUE(msg.ok()) << msg.status().ToString();
  EXPECT_EQ(msg.value().flag_bits, kChecksumPresent);
  EXPECT_EQ(msg.value().body.ToJson(), R"({ "ping" : 1, "$db" : "admin" })");
}

TEST(OpMsgTest, SerializesGoldenBytes) {
  bson::BsonDoc ping = bson::BsonDoc::FromJson(R"({"ping": 1, "$db": "admin"})");
  EXPECT_EQ(Bytes(SerializeOpMsg(7, 0, 0, ping)), golden::kOpMsgPing);
  EXPECT_EQ(Bytes(SerializeOpMsg(9, 0, kChecksumPresent, ping)), golden::kOpMsgPingChecksum);

  std::vector<DocumentSequence> seqs(1);
  seqs[0].identifier = "documents";
  const bson::BsonDoc one = bson::BsonDoc::FromJson(R"({"_id": 1})");
  const bson::BsonDoc two = bson::BsonDoc::FromJson(R"({"_id": 2})");
  seqs[0].documents = {one.bytes(), two.bytes()};
  bson::BsonDoc insert = bson::BsonDoc::FromJson(R"({"insert": "c", "$db": "test"})");
  EXPECT_EQ(Bytes(SerializeOpMsg(8, 0, 0, insert, seqs)), golden::kOpMsgInsert);
}

TEST(OpMsgTest, SerializesGoldenReply) {
  bson::BsonDoc ok = bson::BsonDoc::FromJson(R"({"ok": 1.0})");
  EXPECT_EQ(Bytes(SerializeOpMsgReply(100, 7, ok)), golden::kOpMsgReplyOk);
}

TEST(OpMsgTest, ChecksumMismatchIsRejected) {
  auto m = golden::kOpMsgPingChecksum;
  m.back() ^= 0x01;
  EXPECT_EQ(Parse(m).status().code(), ErrorCode::kChecksumMismatch);
  m = golden::kOpMsgPingChecksum;
  m[30] ^= 0x01;  // a body byte: contents no longer match
  EXPECT_EQ(Parse(m).status().code(), ErrorCode::kChecksumMismatch);
}

TEST(OpMsgTest, UnknownRequiredFlagBitsAreIllegal) {
  for (int bit : {2, 3, 8, 15}) {
    auto m = golden::kOpMsgPing;
    StoreInt32(m.data() + 16, 1 << bit);
    auto msg = Parse(m);
    ASSERT_FALSE(msg.ok()) << bit;
    EXPECT_EQ(msg.status().code(), ErrorCode::kIllegalOpMsgFlag);
    EXPECT_NE(msg.status().reason().find("Message contains illegal flags value: Ob"),
              std::string::npos);
  }
}

TEST(OpMsgTest, KnownAndOptionalFlagBitsAreAccepted) {
  for (uint32_t flags : {kMoreToCome, kExhaustAllowed, 1u << 17, 1u << 31}) {
    auto m = golden::kOpMsgPing;
    StoreInt32(m.data() + 16, static_cast<int32_t>(flags));
    auto msg = Parse(m);
    ASSERT_TRUE(msg.ok()) << flags << " " << msg.status().ToString();
    EXPECT_EQ(msg.value().flag_bits, flags);
  }
}

TEST(OpMsgTest, MissingBodyIsRejected) {
  std::vector<uint8_t> m(golden::kOpMsgPing.begin(), golden::kOpMsgPing.begin() + 20);
  FixLength(&m);
  EXPECT_EQ(Parse(m).status().code_number(), 40587);
}

TEST(OpMsgTest, TwoBodiesAreRejected) {
  auto m = golden::kOpMsgPing;
  m.insert(m.end(), golden::kOpMsgPing.begin() + 20, golden::kOpMsgPing.end());
  FixLength(&m);
  auto msg = Parse(m);
  EXPECT_EQ(msg.status().code_number(), 40430);
  EXPECT_EQ(msg.status().reason(), "Multiple body sections in message");
}

TEST(OpMsgTest, UnknownSectionKindIsRejected) {
  auto m = golden::kOpMsgPing;
  m[20] = 0x02;
  auto msg = Parse(m);
  EXPECT_EQ(msg.status().code_number(), 40432);
  EXPECT_EQ(msg.status().reason(), "Unknown section kind 2");
}

TEST(OpMsgTest, DuplicateSequenceIdentifierIsRejected) {
  bson::BsonDoc body = bson::BsonDoc::FromJson(R"({"insert": "c", "$db": "test"})");
  std::vector<DocumentSequence> seqs(2);
  seqs[0].identifier = seqs[1].identifier = "documents";
  auto m = Bytes(SerializeOpMsg(1, 0, 0, body, seqs));
  EXPECT_EQ(Parse(m).status().code_number(), 40431);
}

TEST(OpMsgTest, SequenceNamingABodyFieldIsRejected) {
  bson::BsonDoc body = bson::BsonDoc::FromJson(R"({"insert": "c", "documents": [], "$db": "t"})");
  std::vector<DocumentSequence> seqs(1);
  seqs[0].identifier = "documents";
  auto m = Bytes(SerializeOpMsg(1, 0, 0, body, seqs));
  EXPECT_EQ(Parse(m).status().code_number(), 40433);
}

TEST(OpMsgTest, EmptySequenceIsAllowed) {
  bson::BsonDoc body = bson::BsonDoc::FromJson(R"({"insert": "c", "$db": "t"})");
  std::vector<DocumentSequence> seqs(1);
  seqs[0].identifier = "documents";
  auto m = Bytes(SerializeOpMsg(1, 0, 0, body, seqs));
  auto msg = Parse(m);
  ASSERT_TRUE(msg.ok()) << msg.status().ToString();
  EXPECT_TRUE(msg.value().sequences[0].documents.empty());
}

TEST(OpMsgTest, EveryTruncationIsAnErrorNotAnOverRead) {
  // Cutting the message anywhere (and fixing messageLength so only the
  // sections disagree) must fail cleanly; ASan builds check the over-read.
  for (const auto* golden : {&golden::kOpMsgPing, &golden::kOpMsgInsert}) {
    for (size_t cut = 16; cut < golden->size(); ++cut) {
      std::vector<uint8_t> m(golden->begin(), golden->begin() + cut);
      FixLength(&m);
      // kOpMsgInsert cut right after its body is a complete, valid message.
      const bool whole_body_only = golden == &golden::kOpMsgInsert && cut == 54;
      EXPECT_EQ(Parse(m).ok(), whole_body_only) << "cut at " << cut;
    }
  }
}

TEST(OpMsgTest, SequenceSizeInconsistentWithItsContentsIsRejected) {
  // kOpMsgInsert's kind-1 size field is at byte 55.
  for (int32_t size : {-5, 0, 3, 4, 13, 41, 43, 1000}) {
    auto m = golden::kOpMsgInsert;
    StoreInt32(m.data() + 55, size);
    auto msg = Parse(m);
    EXPECT_FALSE(msg.ok()) << size;
    const ErrorCode code = msg.status().code();
    EXPECT_TRUE(code == ErrorCode::kOverflow || code == ErrorCode::kInvalidBSON) << size;
  }
}

TEST(OpMsgTest, InvalidBsonBodyIsRejected) {
  auto m = golden::kOpMsgPing;
  m[25] = 0x77;  // element type of "ping": not a BSON type
  EXPECT_EQ(Parse(m).status().code(), ErrorCode::kInvalidBSON);
  m = golden::kOpMsgPing;
  m[21] = 0x1F;  // body size one more than the bytes that follow
  EXPECT_FALSE(Parse(m).ok());
}

TEST(OpMsgTest, ChecksumFlagWithoutRoomForChecksumIsRejected) {
  std::vector<uint8_t> m(golden::kOpMsgPingChecksum.begin(),
                         golden::kOpMsgPingChecksum.begin() + 22);
  FixLength(&m);
  EXPECT_FALSE(Parse(m).ok());
}

TEST(OpMsgTest, ChecksumIsVerifiedBeforeSectionsAreRead) {
  auto m = golden::kOpMsgPingChecksum;
  m[20] = 0x09;  // bad section kind, but the checksum catches the corruption first
  EXPECT_EQ(Parse(m).status().code(), ErrorCode::kChecksumMismatch);
  FixChecksum(&m);
  EXPECT_EQ(Parse(m).status().code_number(), 40432);
}

TEST(OpMsgTest, PeekOpMsgFlagsReadsFlagBitsOrZero) {
  auto m = golden::kOpMsgPing;
  StoreInt32(m.data() + 16, static_cast<int32_t>(kMoreToCome | kExhaustAllowed));
  EXPECT_EQ(PeekOpMsgFlags(m.data(), m.size()), kMoreToCome | kExhaustAllowed);
  EXPECT_EQ(PeekOpMsgFlags(m.data(), 19), 0u);
}

}  // namespace
}  // namespace tigerdoc::wire
