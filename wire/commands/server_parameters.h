#pragma once
// The server parameters getParameter reads and setParameter writes, as one
// table (server_parameters.cc) so the two commands cannot disagree: every
// parameter getParameter lists (also under getParameter: "*") answers its
// current value, and setParameter either changes it at run time or refuses
// it as mongod refuses start-up-only parameters (IllegalOperation, 20).

#include "wire/commands/command.h"

namespace tigerdoc::wire {

// {getParameter: 1, <name>: 1, ...} or {getParameter: "*"}.
StatusWith<bson::BsonDoc> GetServerParameters(CommandContext& ctx);
// {setParameter: 1, <name>: <value>, ...}; replies {was: <previous value>}.
StatusWith<bson::BsonDoc> SetServerParameters(CommandContext& ctx);

}  // namespace tigerdoc::wire
