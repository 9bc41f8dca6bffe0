#pragma once
// ShardRouter: which shard table a logical partition lives in.
//
// Hash version 1 (a compatibility promise: it decides where data lives on
// disk, so it must never change; a new function would be version 2,
// recorded per collection as hashVersion in the catalog):
//
//   h = FNV-1a 64 over the bytes of keystring(shard key value)
//       (offset basis 0xcbf29ce484222325, prime 0x100000001b3)
//   h = splitmix64 finaliser of h:
//         h ^= h >> 30; h *= 0xbf58476d1ce4e5b9;
//         h ^= h >> 27; h *= 0x94d049bb133111eb;
//         h ^= h >> 31
//   shard = h mod num_shards
//
// FNV-1a alone mixes its last bytes poorly into the low bits that "mod N"
// keeps; the finaliser spreads every input bit over the whole word.
//
// Thread-safety: pure functions.

#include <cstdint>
#include <string_view>

namespace tigerdoc::storage {

inline constexpr int kShardHashVersion = 1;

// The version-1 hash of an encoded shard key value (its keystring bytes).
uint64_t ShardHashV1(std::string_view encoded_shard_key);

// The shard of an encoded shard key value. REQUIRES: num_shards >= 1.
int ShardForEncodedKey(std::string_view encoded_shard_key, int num_shards);

}  // namespace tigerdoc::storage
