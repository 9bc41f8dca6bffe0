#pragma once
// SessionUidOf: the user digest that keys a command's logical sessions
// (engine LogicalSessionCatalog::SessionKeyOf), so that under --auth each
// user reaches only its own sessions, as MongoDB's lsid.uid does.
//
// Thread-safety: reads the command's own context.

#include <string>

#include "wire/auth/auth_manager.h"
#include "wire/commands/command.h"

namespace tigerdoc::wire {

// Empty without --auth or outside the dispatcher.
inline std::string SessionUidOf(const CommandContext& ctx) {
  if (ctx.auth == nullptr || ctx.session == nullptr) return std::string();
  return ctx.auth->SessionUid(*ctx.session);
}

}  // namespace tigerdoc::wire
