// RandomUuid: version 4 / RFC 4122 variant bits, and no repeats across
// threads (each thread of the old session code seeded its own PRNG).

#include "wire/auth/random_uuid.h"

#include <gtest/gtest.h>

#include <array>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace tigerdoc::wire::auth {
namespace {

TEST(RandomUuidTest, IsAVersion4UuidAndNeverRepeatsAcrossThreads) {
  std::mutex mu;
  std::set<std::array<uint8_t, 16>> seen;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 1000; ++i) {
        const std::array<uint8_t, 16> uuid = RandomUuid();
        EXPECT_EQ(uuid[6] >> 4, 4);
        EXPECT_EQ(uuid[8] >> 6, 2);
        std::lock_guard<std::mutex> lock(mu);
        EXPECT_TRUE(seen.insert(uuid).second);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(seen.size(), 4000u);
}

}  // namespace
}  // namespace tigerdoc::wire::auth
