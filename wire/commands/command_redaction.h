#pragma once
// RedactSecrets: what may be shown of a command outside its own execution
// (the slow-query log and so getLog, currentOp/$currentOp). Passwords and
// authentication payloads are replaced by "xxx", as MongoDB's
// redactForLogging does: createUser/updateUser `pwd`, saslStart/saslContinue
// `payload`, authenticate `key`, and hello's `speculativeAuthenticate`.
//
// Thread-safety: a pure function.

#include <optional>
#include <string_view>

#include "engine/bson/bson_doc.h"

namespace tigerdoc::wire {

// The body with every secret field replaced, or nullopt when command
// `name` carries none (the body may be shown as it is).
std::optional<bson::BsonDoc> RedactSecrets(std::string_view name, const bson_t* body);

}  // namespace tigerdoc::wire
