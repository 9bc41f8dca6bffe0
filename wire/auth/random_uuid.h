#pragma once
// RandomUuid: a random (version 4, RFC 4122) UUID from OpenSSL's CSPRNG,
// the one generator of every UUID the server makes: a user's userId
// (createUser) and a session's lsid (startSession). An lsid works as a
// capability (whoever knows it may use the session), so it must not be
// guessable from earlier ones, as a seeded PRNG's output is.
//
// Thread-safety: callable from any thread. Aborts the process when the
// system's random source is unavailable (nothing safe can be done then).

#include <array>
#include <cstdint>

namespace tigerdoc::wire::auth {

std::array<uint8_t, 16> RandomUuid();

}  // namespace tigerdoc::wire::auth
