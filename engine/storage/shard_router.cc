#include "engine/storage/shard_router.h"

#include "engine/base/invariant.h"

namespace tigerdoc::storage {

uint64_t ShardHashV1(std::string_view encoded_shard_key) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char byte : encoded_shard_key) {
    h ^= byte;
    h *= 0x100000001b3ULL;
  }
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ULL;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebULL;
  h ^= h >> 31;
  return h;
}

int ShardForEncodedKey(std::string_view encoded_shard_key, int num_shards) {
  INVARIANT(num_shards >= 1);
  return static_cast<int>(ShardHashV1(encoded_shard_key) % static_cast<uint64_t>(num_shards));
}

}  // namespace tigerdoc::storage
