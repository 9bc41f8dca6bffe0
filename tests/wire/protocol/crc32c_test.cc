#include "wire/protocol/crc32c.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace tigerdoc::wire {
namespace {

uint32_t Of(const std::vector<uint8_t>& bytes) { return Crc32c(bytes.data(), bytes.size()); }

TEST(Crc32cTest, CheckValueOfDigitString) {
  const char* digits = "123456789";
  EXPECT_EQ(Crc32c(reinterpret_cast<const uint8_t*>(digits), std::strlen(digits)), 0xE3069283u);
}

TEST(Crc32cTest, EmptyInputIsZero) { EXPECT_EQ(Crc32c(nullptr, 0), 0u); }

// RFC 3720 appendix B.4 test vectors.
TEST(Crc32cTest, Rfc3720Vectors) {
  EXPECT_EQ(Of(std::vector<uint8_t>(32, 0x00)), 0x8A9136AAu);
  EXPECT_EQ(Of(std::vector<uint8_t>(32, 0xFF)), 0x62A8AB43u);
  std::vector<uint8_t> ascending(32);
  std::vector<uint8_t> descending(32);
  for (int i = 0; i < 32; ++i) {
    ascending[i] = static_cast<uint8_t>(i);
    descending[i] = static_cast<uint8_t>(31 - i);
  }
  EXPECT_EQ(Of(ascending), 0x46DD794Eu);
  EXPECT_EQ(Of(descending), 0x113FDB5Cu);
}

}  // namespace
}  // namespace tigerdoc::wire
