#pragma once
// RedactSecrets: what may be shown of a command outside its own execution
// (the slow-query log and so getLog, currentOp/$currentOp). Passwords and
// authentication payloads are replaced by "xxx", as MongoDB's
// redactForLogging does. Which field is secret is the `secret` column of the
// command table (command_registry.cc): createUser/updateUser `pwd`,
// saslStart/saslContinue `payload`, hello's `speculativeAuthenticate`. A
// command the table does not have is shown as sent (it never ran).
//
// Thread-safety: a pure function.

#include <optional>
#include <string_view>

#include "engine/bson/bson_doc.h"
#include "wire/commands/command.h"

namespace tigerdoc::wire {

// The body with every secret field replaced, or nullopt when command
// `name` carries none (the body may be shown as it is).
std::optional<bson::BsonDoc> RedactSecrets(std::string_view name, const bson_t* body);
// The same for a command already looked up in the table.
std::optional<bson::BsonDoc> RedactSecrets(const CommandSpec& spec, const bson_t* body);

}  // namespace tigerdoc::wire
