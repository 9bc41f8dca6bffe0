#include "wire/protocol/byte_reader.h"

#include <gtest/gtest.h>

#include <string>
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


// What ReadDocument answered before CheckBsonNesting could vouch for the
// content: the framing walk, then libbson's bson_validate. The fast path
// must give the same verdict, code and message for every input.
Status ReferenceVerdict(const std::vector<uint8_t>& bytes) {
  Status framing = CheckBsonNesting(bytes.data(), bytes.size(), kMaxBsonNestingDepth);
  if (!framing.ok()) return framing;
  return bson::BsonDoc::FromBytes(bytes.data(), bytes.size()).status();
}

void ExpectSameVerdictAsBsonValidate(const std::vector<uint8_t>& bytes, const std::string& what) {
  bool content_valid = true;
  const Status framing =
      CheckBsonNesting(bytes.data(), bytes.size(), kMaxBsonNestingDepth, &content_valid);
  bson_t view;
  if (framing.ok() && content_valid) {
    // The walk vouched: libbson must agree.
    ASSERT_TRUE(bson_init_static(&view, bytes.data(), bytes.size())) << what;
    EXPECT_TRUE(bson_validate(&view, BSON_VALIDATE_NONE, nullptr)) << what;
  }
  if (!framing.ok()) {
    EXPECT_FALSE(content_valid) << what;
  }
  ByteReader reader(bytes.data(), bytes.size());
  const Status got = reader.ReadDocument().status();
  const Status want = ReferenceVerdict(bytes);
  EXPECT_EQ(got.code(), want.code()) << what;
  EXPECT_EQ(got.reason(), want.reason()) << what;
}

std::vector<uint8_t> BytesOf(const bson::BsonDoc& doc) {
  return std::vector<uint8_t>(doc.data(), doc.data() + doc.size());
}

// Every single-byte change of documents of every element type, of ASCII and
// multi-byte UTF-8 keys and strings (lengths around the 8-byte word the
// ASCII check reads) and of nested documents: whenever the walk says the
// content is valid, bson_validate says so too, and ReadDocument answers
// exactly as bson_validate did.
TEST(ByteReaderTest, ContentCheckAgreesWithBsonValidateOnEveryByteChange) {
  std::vector<std::vector<uint8_t>> corpus;
  corpus.push_back(BytesOf(bson::BsonDoc::FromJson(R"json({
    "d": 1.5, "s": "x", "o": {"a": [1, {"b": null}]},
    "bin": {"$binary": {"base64": "AQI=", "subType": "00"}},
    "old": {"$binary": {"base64": "AQI=", "subType": "02"}},
    "u": {"$undefined": true}, "oid": {"$oid": "0123456789abcdef01234567"}, "t": true,
    "f": false, "date": {"$date": {"$numberLong": "5"}},
    "re": {"$regularExpression": {"pattern": "a", "options": "i"}},
    "ptr": {"$dbPointer": {"$ref": "c", "$id": {"$oid": "0123456789abcdef01234567"}}},
    "code": {"$code": "f()"}, "sym": {"$symbol": "y"},
    "cws": {"$code": "g()", "$scope": {"z": {"w": 1}}}, "i": 3,
    "ts": {"$timestamp": {"t": 1, "i": 2}}, "l": {"$numberLong": "9"},
    "dec": {"$numberDecimal": "1.1"}, "min": {"$minKey": 1}, "max": {"$maxKey": 1}})json")));
  corpus.push_back(BytesOf(bson::BsonDoc::FromJson(
      R"json({"find": "load", "filter": {"_id": 7}, "limit": 1, "singleBatch": true,
              "$db": "tigerdoc_load", "lsid": {"id": {"$binary": {"base64": "AAECAwQFBgcICQoLDA0ODw==", "subType": "04"}}}})json")));
  corpus.push_back(BytesOf(bson::BsonDoc::FromJson(
      R"json({"caf\u00e9": "d\u00e9j\u00e0 vu", "\u65e5\u672c": "\u8a9e\ud83d\ude00", "n\u00fcl": "a\u0000b"})json")));
  for (size_t n = 0; n <= 17; ++n) {  // strings just below, at and above 8 and 16 bytes
    bson::BsonDoc doc;
    const std::string ascii(n, 'x');
    BSON_APPEND_UTF8(doc.mutable_get(), std::string(n, 'k').c_str(), ascii.c_str());
    corpus.push_back(BytesOf(doc));
  }
  const uint8_t replacements[] = {0x00, 0x01, 0x02, 0x41, 0x7F, 0x80, 0xBF, 0xC0, 0xC3, 0xE0, 0xED, 0xF0, 0xF4, 0xF5, 0xFF};
  size_t vouched = 0;
  for (size_t d = 0; d < corpus.size(); ++d) {
    ExpectSameVerdictAsBsonValidate(corpus[d], "corpus " + std::to_string(d));
    // From byte 4: ReadDocument checks the outer size against the bytes it
    // has before either walk (unchanged, tested above).
    for (size_t at = 4; at < corpus[d].size(); ++at) {
      for (uint8_t r : replacements) {
        if (corpus[d][at] == r) continue;
        std::vector<uint8_t> changed = corpus[d];
        changed[at] = r;
        ExpectSameVerdictAsBsonValidate(changed, "corpus " + std::to_string(d) + " byte " +
                                                     std::to_string(at) + " = " + std::to_string(r));
        bool content_valid = false;
        if (CheckBsonNesting(changed.data(), changed.size(), kMaxBsonNestingDepth, &content_valid).ok() &&
            content_valid) {
          ++vouched;
        }
      }
    }
  }
  EXPECT_GT(vouched, 1000u);  // the fast path was exercised, not only the fallback
}

TEST(ByteReaderTest, ContentCheckVouchesForPlainDocumentsAndLeavesRareTypesToLibbson) {
  auto vouches = [](const char* json) {
    bson::BsonDoc doc = bson::BsonDoc::FromJson(json);
    bool content_valid = false;
    EXPECT_TRUE(CheckBsonNesting(doc.data(), doc.size(), kMaxBsonNestingDepth, &content_valid).ok())
        << json;
    return content_valid;
  };
  EXPECT_TRUE(vouches(R"({"_id": {"$numberLong": "1"}, "n": 0, "v": "xxxxxxxxxxxxxxxxxxxx"})"));
  EXPECT_TRUE(vouches(R"({"caf\u00e9": "\u65e5\u672c\u8a9e", "a": [true, false, null, 1.5]})"));
  EXPECT_TRUE(vouches(R"({"b": {"$binary": {"base64": "AQI=", "subType": "04"}}})"));
  EXPECT_FALSE(vouches(R"({"re": {"$regularExpression": {"pattern": "a", "options": ""}}})"));
  EXPECT_FALSE(vouches(R"json({"c": {"$code": "f()", "$scope": {}}})json"));
  EXPECT_FALSE(vouches(R"({"b": {"$binary": {"base64": "AQAAAAI=", "subType": "02"}}})"));
  EXPECT_FALSE(vouches(R"({"p": {"$dbPointer": {"$ref": "c", "$id": {"$oid": "0123456789abcdef01234567"}}}})"));
}

// The walk keeps the open documents inline up to 16 levels and on the heap
// beyond: depths around that boundary and at the limit read the same.
TEST(ByteReaderTest, NestingAroundTheInlineStackReadsAlike) {
  for (int depth : {15, 16, 17, 18, 64, kMaxBsonNestingDepth}) {
    auto doc = NestedDocument(depth);
    bool content_valid = false;
    EXPECT_TRUE(CheckBsonNesting(doc.data(), doc.size(), kMaxBsonNestingDepth, &content_valid).ok())
        << depth;
    EXPECT_TRUE(content_valid) << depth;
    ByteReader reader(doc.data(), doc.size());
    auto read = reader.ReadDocument();
    ASSERT_TRUE(read.ok()) << depth;
    EXPECT_EQ(read.value().bytes(), std::string(doc.begin(), doc.end())) << depth;
  }
}

// Invalid UTF-8 is left to bson_validate, whose verdict stays the reference
// (libbson 1.23 with BSON_VALIDATE_NONE stops checking a document at a bad
// string value without failing it, but fails a bad key).
TEST(ByteReaderTest, InvalidUtf8OnTheWordBoundaryIsLeftToBsonValidate) {
  // "xxxxxxx" + one byte: the bad byte sits last in the first 8-byte word,
  // then first in the second; in a value, then in a key.
  for (bool in_key : {false, true}) {
    for (size_t prefix : {6u, 7u, 8u, 9u}) {
      bson::BsonDoc doc;
      const std::string text(prefix + 4, 'x');
      BSON_APPEND_UTF8(doc.mutable_get(), in_key ? text.c_str() : "s", in_key ? "v" : text.c_str());
      std::vector<uint8_t> bytes = BytesOf(doc);
      // size, type, then the key or, after "s\0" and the length, the string
      const size_t chars_at = in_key ? 4 + 1 : 4 + 1 + 2 + 4;
      bytes[chars_at + prefix] = 0xC3;  // a lead byte without its continuation
      bool content_valid = true;
      EXPECT_TRUE(CheckBsonNesting(bytes.data(), bytes.size(), kMaxBsonNestingDepth, &content_valid).ok());
      EXPECT_FALSE(content_valid) << prefix;
      ByteReader reader(bytes.data(), bytes.size());
      auto read = reader.ReadDocument();
      const Status want = ReferenceVerdict(bytes);
      EXPECT_EQ(read.status().code(), want.code()) << prefix;
      EXPECT_EQ(read.status().reason(), want.reason()) << prefix;
      EXPECT_EQ(want.ok(), !in_key) << prefix;
    }
  }
}

}  // namespace
}  // namespace tigerdoc::wire
