// Commands patterns answer (Pattern::command_names, e.g. resyncSubset):
// listed by name in the command table, run by the pattern that owns them
// through Engine::RunPatternCommand, so the wire layer names no pattern.

#include "wire/commands/command_args.h"
#include "wire/commands/command_registry.h"

namespace tigerdoc::wire {

StatusWith<bson::BsonDoc> RunPatternCommand(CommandContext& ctx) {
  // Every pattern command names a collection first (MongoDB's 73 otherwise).
  RETURN_IF_ERROR(CollectionArgument(ctx.body(), ctx.name).status());
  return ctx.engine->RunPatternCommand(ctx.name, ctx.db(), ctx.body(), ctx.operation);
}

}  // namespace tigerdoc::wire
