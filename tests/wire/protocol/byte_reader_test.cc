#include "wire/protocol/byte_reader.h"

#include <gtest/gtest.h>

#include <vector>

#include "wire/protocol/msg_header.h"

namespace tigerdoc::wire {
namespace {

// {a: {a: {... {} ...}}} nested `depth` levels below the top-level document.
std::vector<uint8_t> NestedDocument(int depth) {
  // Level k (counting the innermost {} as level 0) is 5 + 8k bytes:
  // size, 0x03 'a' 0x00, level k-1, terminator. Written outside-in in O(n).
  std::vector<uint8_t> doc;
  for (int k = depth; k >= 1; --k) {
    uint8_t size[4];
    StoreInt32(size, 5 + 8 * k);
    doc.insert(doc.end(), size, size + 4);
    doc.insert(doc.end(), {0x03, 'a', 0x00});
  }
  doc.insert(doc.end(), {5, 0, 0, 0, 0});
  doc.insert(doc.end(), static_cast<size_t>(depth), 0x00);
  return doc;
}

TEST(ByteReaderTest, ReadsIntegersAndCStringsInOrder) {
  const std::vector<uint8_t> bytes = {0x2A, 0, 0, 0, 'h', 'i', 0, 0x07};
  ByteReader reader(bytes.data(), bytes.size());
  auto n = reader.ReadInt32();
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(n.value(), 42);
  auto s = reader.ReadCString();
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s.value(), "hi");
  auto b = reader.ReadUint8();
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b.value(), 7);
  EXPECT_TRUE(reader.AtEnd());
}

TEST(ByteReaderTest, ShortReadsFailWithOverflowAndConsumeNothing) {
  const std::vector<uint8_t> bytes = {1, 2, 3};
  ByteReader reader(bytes.data(), bytes.size());
  auto n = reader.ReadInt32();
  ASSERT_FALSE(n.ok());
  EXPECT_EQ(n.status().code(), ErrorCode::kOverflow);
  EXPECT_EQ(reader.offset(), 0u);
  auto s = reader.ReadCString();  // no NUL anywhere
  EXPECT_EQ(s.status().code(), ErrorCode::kOverflow);
  EXPECT_FALSE(reader.ReadSubrange(4).ok());
  EXPECT_TRUE(reader.ReadSubrange(3).ok());
}

TEST(ByteReaderTest, DocumentLargerThanRemainingBytesIsInvalidBson) {
  std::vector<uint8_t> doc = {0x20, 0, 0, 0, 0};  // claims 32 bytes, has 5
  ByteReader reader(doc.data(), doc.size());
  auto d = reader.ReadDocument();
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), ErrorCode::kInvalidBSON);
}

// CountDocuments (the reservation before a document sequence is read)
// counts what the length prefixes frame, from the current offset, and one
// more for a malformed tail that ReadDocument will then refuse.
TEST(ByteReaderTest, CountDocumentsFollowsTheLengthPrefixes) {
  std::vector<uint8_t> three = {5, 0, 0, 0, 0, 5, 0, 0, 0, 0, 5, 0, 0, 0, 0};
  ByteReader reader(three.data(), three.size());
  EXPECT_EQ(reader.CountDocuments(), 3u);
  ASSERT_TRUE(reader.ReadDocument().ok());
  EXPECT_EQ(reader.CountDocuments(), 2u);
  ASSERT_TRUE(reader.ReadDocument().ok());
  ASSERT_TRUE(reader.ReadDocument().ok());
  EXPECT_EQ(reader.CountDocuments(), 0u);

  std::vector<uint8_t> bad_tail = {5, 0, 0, 0, 0, 0x40, 0, 0, 0, 0};  // 2nd claims 64 bytes
  EXPECT_EQ(ByteReader(bad_tail.data(), bad_tail.size()).CountDocuments(), 2u);
  std::vector<uint8_t> short_tail = {5, 0, 0, 0, 0, 5, 0};  // 3 stray bytes
  EXPECT_EQ(ByteReader(short_tail.data(), short_tail.size()).CountDocuments(), 1u);
  std::vector<uint8_t> zero_size = {0, 0, 0, 0, 5, 0, 0, 0, 0};
  EXPECT_EQ(ByteReader(zero_size.data(), zero_size.size()).CountDocuments(), 1u);
}

TEST(ByteReaderTest, DocumentSizeOutsideBsonLimitsIsBsonObjectTooLarge) {
  for (int32_t size : {-1, 0, 4, kMaxBsonObjectBytes + 1}) {
    std::vector<uint8_t> doc(8, 0);
    StoreInt32(doc.data(), size);
    ByteReader reader(doc.data(), doc.size());
    EXPECT_EQ(reader.ReadDocument().status().code(), ErrorCode::kBSONObjectTooLarge) << size;
  }
}

TEST(ByteReaderTest, NestingAtTheLimitIsAcceptedOneDeeperIsRejected) {
  auto ok = NestedDocument(kMaxBsonNestingDepth);
  ByteReader ok_reader(ok.data(), ok.size());
  EXPECT_TRUE(ok_reader.ReadDocument().ok());
  auto deep = NestedDocument(kMaxBsonNestingDepth + 1);
  ByteReader deep_reader(deep.data(), deep.size());
  EXPECT_EQ(deep_reader.ReadDocument().status().code(), ErrorCode::kOverflow);
}

TEST(ByteReaderTest, HostileNestingDoesNotExhaustTheStack) {
  // ~700 KB of nesting: recursive validation would blow a thread stack.
  auto hostile = NestedDocument(100000);
  ByteReader reader(hostile.data(), hostile.size());
  EXPECT_EQ(reader.ReadDocument().status().code(), ErrorCode::kOverflow);
}

TEST(ByteReaderTest, CheckBsonNestingAcceptsEveryElementType) {
  bson::BsonDoc doc = bson::BsonDoc::FromJson(R"json({
    "d": 1.5, "s": "x", "o": {"a": [1, {"b": null}]},
    "bin": {"$binary": {"base64": "AQI=", "subType": "00"}},
    "u": {"$undefined": true}, "oid": {"$oid": "0123456789abcdef01234567"}, "t": true,
    "date": {"$date": {"$numberLong": "5"}},
    "re": {"$regularExpression": {"pattern": "a", "options": "i"}},
    "ptr": {"$dbPointer": {"$ref": "c", "$id": {"$oid": "0123456789abcdef01234567"}}},
    "code": {"$code": "f()"}, "sym": {"$symbol": "y"},
    "cws": {"$code": "g()", "$scope": {"z": {"w": 1}}}, "i": 3,
    "ts": {"$timestamp": {"t": 1, "i": 2}}, "l": {"$numberLong": "9"},
    "dec": {"$numberDecimal": "1.1"}, "min": {"$minKey": 1}, "max": {"$maxKey": 1}})json");
  EXPECT_TRUE(CheckBsonNesting(doc.data(), doc.size(), kMaxBsonNestingDepth).ok());
  ByteReader reader(doc.data(), doc.size());
  EXPECT_TRUE(reader.ReadDocument().ok());
}

TEST(ByteReaderTest, CheckBsonNestingRejectsOverrunningElements) {
  // {s: "abc"} with the string length bumped past the document.
  bson::BsonDoc doc = bson::BsonDoc::FromJson(R"({"s": "abc"})");
  std::vector<uint8_t> bytes(doc.data(), doc.data() + doc.size());
  StoreInt32(bytes.data() + 7, 100);
  EXPECT_EQ(CheckBsonNesting(bytes.data(), bytes.size(), 10).code(), ErrorCode::kInvalidBSON);
  ByteReader reader(bytes.data(), bytes.size());
  EXPECT_EQ(reader.ReadDocument().status().code(), ErrorCode::kInvalidBSON);
}

TEST(ByteReaderTest, ValidFramingButInvalidValueIsCaughtByBsonValidate) {
  // {t: true} with the bool byte set to 2: framing is fine, the value is not.
  bson::BsonDoc doc = bson::BsonDoc::FromJson(R"({"t": true})");
  std::vector<uint8_t> bytes(doc.data(), doc.data() + doc.size());
  bytes[7] = 2;
  EXPECT_TRUE(CheckBsonNesting(bytes.data(), bytes.size(), 10).ok());
  ByteReader reader(bytes.data(), bytes.size());
  EXPECT_EQ(reader.ReadDocument().status().code(), ErrorCode::kInvalidBSON);
}

}  // namespace
}  // namespace tigerdoc::wire
