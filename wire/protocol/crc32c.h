#pragma once
// CRC-32C (Castagnoli): the checksum OP_MSG carries when its checksumPresent
// flag is set (RFC 3720 appendix B.4 parameters: reflected polynomial
// 0x82F63B78, initial value and final xor 0xFFFFFFFF).
//
// Thread-safety: pure function over a constant table.

#include <cstddef>
#include <cstdint>

namespace tigerdoc::wire {

// Checksum of `len` bytes at `data`. Crc32c("123456789") == 0xE3069283.
uint32_t Crc32c(const uint8_t* data, size_t len);

}  // namespace tigerdoc::wire
