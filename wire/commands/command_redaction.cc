#include "wire/commands/command_redaction.h"

#include <cstring>

namespace tigerdoc::wire {
namespace {

// The secret field of each command that carries one.
const char* SecretFieldOf(std::string_view name) {
  if (name == "createUser" || name == "updateUser") return "pwd";
  if (name == "saslStart" || name == "saslContinue") return "payload";
  if (name == "authenticate") return "key";
  if (name == "hello" || name == "isMaster" || name == "ismaster") return "speculativeAuthenticate";
  return nullptr;
}

}  // namespace

std::optional<bson::BsonDoc> RedactSecrets(std::string_view name, const bson_t* body) {
  const char* secret = SecretFieldOf(name);
  bson_iter_t it;
  if (secret == nullptr || !bson_iter_init_find(&it, body, secret)) return std::nullopt;
  bson::BsonDoc redacted;
  bson_iter_init(&it, body);
  while (bson_iter_next(&it)) {
    if (std::strcmp(bson_iter_key(&it), secret) == 0) {
      BSON_APPEND_UTF8(redacted.mutable_get(), secret, "xxx");
    } else {
      bson_append_iter(redacted.mutable_get(), nullptr, 0, &it);
    }
  }
  return redacted;
}

}  // namespace tigerdoc::wire
