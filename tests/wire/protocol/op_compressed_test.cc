#include "wire/protocol/op_compressed.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include "tests/wire/protocol/golden_messages.h"
#include "wire/protocol/message.h"
#include "wire/protocol/op_msg.h"
#include "wire/protocol/op_query.h"

// The largest single allocation this test binary made since the last
// reset: the server must not allocate what a message merely claims.
namespace {
std::atomic<size_t> g_largest_allocation{0};
}  // namespace
void* operator new(size_t n) {
  size_t seen = g_largest_allocation.load(std::memory_order_relaxed);
  while (n > seen && !g_largest_allocation.compare_exchange_weak(seen, n)) {
  }
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }

namespace tigerdoc::wire {
namespace {

constexpr Compressor kAll[] = {Compressor::kNoop, Compressor::kSnappy, Compressor::kZlib,
                               Compressor::kZstd};

std::string Ping() {
  return std::string(golden::kOpMsgPing.begin(), golden::kOpMsgPing.end());
}

StatusWith<ParsedRequest> Parse(const std::string& m) {
  return ParseRequest(reinterpret_cast<const uint8_t*>(m.data()), m.size());
}

void ExpectFatal(const std::string& message, const char* what) {
  auto r = Parse(message);
  ASSERT_FALSE(r.ok()) << what;
  EXPECT_EQ(r.status().code(), ErrorCode::kProtocolError) << what;
  EXPECT_TRUE(IsConnectionFatal(r.status())) << what;
}

TEST(OpCompressedTest, EveryCompressorRoundTripsAnOpMsg) {
  for (Compressor c : kAll) {
    const std::string compressed = CompressMessage(Ping(), c);
    EXPECT_EQ(LoadInt32(reinterpret_cast<const uint8_t*>(compressed.data()) + 12), kOpCompressed);
    EXPECT_EQ(static_cast<size_t>(LoadInt32(reinterpret_cast<const uint8_t*>(compressed.data()))),
              compressed.size());
    auto r = Parse(compressed);
    ASSERT_TRUE(r.ok()) << static_cast<int>(c) << " " << r.status().ToString();
    ASSERT_TRUE(r.value().compressor.has_value());
    EXPECT_EQ(*r.value().compressor, c);
    EXPECT_EQ(r.value().header.op_code, kOpMsg);  // the wrapped message's header
    auto plain = Parse(Ping());
    EXPECT_EQ(r.value().header.request_id, plain.value().header.request_id);
    EXPECT_EQ(r.value().request.body.ToJson(), plain.value().request.body.ToJson());
    EXPECT_FALSE(plain.value().compressor.has_value());
  }
}

TEST(OpCompressedTest, CompressedOpQueryIsAnsweredWithOpReply) {
  OpQuery q;
  q.full_collection_name = "admin.$cmd";
  q.number_to_return = -1;
  q.query = bson::BsonDoc::FromJson(R"({"isMaster": 1})");
  auto r = Parse(CompressMessage(SerializeOpQuery(5, q), Compressor::kZlib));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r.value().request.legacy_op_query);
  EXPECT_EQ(r.value().header.op_code, kOpQuery);
}

TEST(OpCompressedTest, LargeMessagesShrinkAndSurvive) {
  bson::BsonDoc body = bson::BsonDoc::FromJson(R"({"insert": "c", "$db": "test"})");
  std::string padding(1 << 20, 'x');  // 1 MiB of one byte: compresses well
  BSON_APPEND_UTF8(body.mutable_get(), "pad", padding.c_str());
  const std::string message = SerializeOpMsg(3, 0, 0, body);
  for (Compressor c : {Compressor::kSnappy, Compressor::kZlib, Compressor::kZstd}) {
    const std::string compressed = CompressMessage(message, c);
    EXPECT_LT(compressed.size(), message.size() / 10) << static_cast<int>(c);
    auto r = Parse(compressed);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r.value().request.body.size(), body.size());
  }
}

TEST(OpCompressedTest, MalformedMessagesCloseTheConnection) {
  for (Compressor c : kAll) {
    std::string m = CompressMessage(Ping(), c);
    auto* bytes = reinterpret_cast<uint8_t*>(m.data());
    {
      std::string wrong_size = m;
      StoreInt32(reinterpret_cast<uint8_t*>(wrong_size.data()) + 20, LoadInt32(bytes + 20) + 1);
      ExpectFatal(wrong_size, "uncompressedSize one too large");
      StoreInt32(reinterpret_cast<uint8_t*>(wrong_size.data()) + 20, LoadInt32(bytes + 20) - 1);
      ExpectFatal(wrong_size, "uncompressedSize one too small");
      StoreInt32(reinterpret_cast<uint8_t*>(wrong_size.data()) + 20, kMaxMessageBytes);
      ExpectFatal(wrong_size, "uncompressedSize above the message limit");
      StoreInt32(reinterpret_cast<uint8_t*>(wrong_size.data()) + 20, -1);
      ExpectFatal(wrong_size, "negative uncompressedSize");
    }
    {
      std::string nested = m;
      StoreInt32(reinterpret_cast<uint8_t*>(nested.data()) + 16, kOpCompressed);
      ExpectFatal(nested, "OP_COMPRESSED inside OP_COMPRESSED");
    }
    if (c != Compressor::kNoop) {
      std::string garbage = m;
      for (size_t i = 25; i < garbage.size(); ++i) garbage[i] = static_cast<char>(0xA5 ^ i);
      ExpectFatal(garbage, "undecodable data");
    }
  }
  std::string unknown = CompressMessage(Ping(), Compressor::kNoop);
  unknown[24] = 4;
  ExpectFatal(unknown, "compressor id 4");
  ExpectFatal(CompressMessage(Ping(), Compressor::kNoop).substr(0, 24), "shorter than its prefix");
}

// A tiny OP_COMPRESSED whose uncompressedSize claims just under the 48 MB
// limit is refused before the claimed size is allocated, with every
// compressor; claims just at and below what the payload can hold still
// decode (the round trips above and LargeMessagesShrinkAndSurvive).
TEST(OpCompressedTest, ClaimedSizeIsCheckedBeforeItIsAllocated) {
  for (Compressor c : kAll) {
    for (int32_t claim : {kMaxMessageBytes - 16 - 1000, 1 << 20, 100000}) {
      std::string m = CompressMessage(Ping(), c);
      StoreInt32(reinterpret_cast<uint8_t*>(m.data()) + 20, claim);
      g_largest_allocation = 0;
      ExpectFatal(m, "inflated uncompressedSize");
      EXPECT_LT(g_largest_allocation.load(), 64u * 1024) << static_cast<int>(c) << " claim " << claim;
    }
  }
}

TEST(OpCompressedTest, NamesMapToWireIds) {
  EXPECT_EQ(CompressorByName("snappy"), Compressor::kSnappy);
  EXPECT_EQ(CompressorByName("zlib"), Compressor::kZlib);
  EXPECT_EQ(CompressorByName("zstd"), Compressor::kZstd);
  EXPECT_EQ(CompressorByName("noop"), Compressor::kNoop);
  EXPECT_FALSE(CompressorByName("lz4").has_value());
  EXPECT_EQ(static_cast<int>(Compressor::kSnappy), 1);
  EXPECT_EQ(static_cast<int>(Compressor::kZlib), 2);
  EXPECT_EQ(static_cast<int>(Compressor::kZstd), 3);
}

}  // namespace
}  // namespace tigerdoc::wire
