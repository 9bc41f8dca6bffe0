// Commands MongoDB has removed that tools still in Debian 12 send.
// getnonce: removed in MongoDB 6.0, but clients built on the mgo driver
// (Debian's prometheus-mongodb-exporter among them) send it on every new
// socket and drop the socket when it fails; mongod 4.x answered a random
// 64-bit nonce in hex, which is all they read (authentication, which would
// use it, tigerdoc does not have).

#include <cstdio>
#include <random>

#include "wire/commands/command_registry.h"

namespace tigerdoc::wire {

StatusWith<bson::BsonDoc> RunGetNonce(CommandContext&) {
  static thread_local std::mt19937_64 random{std::random_device{}()};
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(random()));
  bson::BsonDoc out;
  BSON_APPEND_UTF8(out.mutable_get(), "nonce", hex);
  return out;
}

}  // namespace tigerdoc::wire
