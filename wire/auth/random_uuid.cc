#include "wire/auth/random_uuid.h"

#include <openssl/rand.h>

#include "engine/base/invariant.h"

namespace tigerdoc::wire::auth {

std::array<uint8_t, 16> RandomUuid() {
  std::array<uint8_t, 16> uuid;
  INVARIANT(RAND_bytes(uuid.data(), static_cast<int>(uuid.size())) == 1);
  uuid[6] = static_cast<uint8_t>((uuid[6] & 0x0f) | 0x40);  // version 4
  uuid[8] = static_cast<uint8_t>((uuid[8] & 0x3f) | 0x80);  // RFC 4122 variant
  return uuid;
}

}  // namespace tigerdoc::wire::auth
