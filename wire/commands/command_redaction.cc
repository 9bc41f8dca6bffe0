#include "wire/commands/command_redaction.h"

#include <cstring>

#include "wire/commands/command_registry.h"

namespace tigerdoc::wire {

std::optional<bson::BsonDoc> RedactSecrets(std::string_view name, const bson_t* body) {
  const CommandSpec* spec = FindCommand(name);
  if (spec == nullptr) return std::nullopt;
  return RedactSecrets(*spec, body);
}

std::optional<bson::BsonDoc> RedactSecrets(const CommandSpec& spec, const bson_t* body) {
  const char* secret = spec.traits.secret;
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
