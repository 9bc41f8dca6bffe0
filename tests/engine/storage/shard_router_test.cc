// The shard hash is an on-disk compatibility promise: these golden values
// must never change (a different function would be hash version 2). They
// were computed by an independent implementation (Python) of the formula in
// shard_router.h.

#include "engine/storage/shard_router.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace tigerdoc::storage {
namespace {

TEST(ShardRouterTest, HashVersion1GoldenValues) {
  EXPECT_EQ(kShardHashVersion, 1);
  EXPECT_EQ(ShardHashV1(""), 0xf52a15e9a9b5e89bULL);
  EXPECT_EQ(ShardHashV1("a"), 0x02c0bdbf481420f8ULL);
  EXPECT_EQ(ShardHashV1(std::string("\x00\x01\xff", 3)), 0x952fab7736790e93ULL);
  EXPECT_EQ(ShardHashV1("tigerdoc shard key"), 0x0d70c1e29a9948a3ULL);
}

TEST(ShardRouterTest, ShardIsHashModShardCount) {
  for (const char* key : {"", "a", "b", "hello", "tigerdoc shard key"}) {
    for (int n : {1, 2, 3, 4, 7, 16, 1000}) {
      EXPECT_EQ(ShardForEncodedKey(key, n), static_cast<int>(ShardHashV1(key) % n));
    }
  }
  EXPECT_EQ(ShardForEncodedKey("anything", 1), 0);
}

TEST(ShardRouterTest, SameKeyAlwaysMapsToSameShard) {
  EXPECT_EQ(ShardForEncodedKey("k", 8), ShardForEncodedKey(std::string("k"), 8));
}

TEST(ShardRouterTest, SpreadsKeysOverAllShards) {
  constexpr int kShards = 8;
  int counts[kShards] = {};
  for (int i = 0; i < 8000; ++i) ++counts[ShardForEncodedKey("key" + std::to_string(i), kShards)];
  for (int c : counts) {
    EXPECT_GT(c, 800);
    EXPECT_LT(c, 1200);
  }
}

}  // namespace
}  // namespace tigerdoc::storage
