// top: per-collection time and counts of the commands run since start
// (server_metrics.h keeps them), as mongod's admin command.

#include "wire/commands/command_registry.h"
#include "wire/commands/server_metrics.h"

namespace tigerdoc::wire {

StatusWith<bson::BsonDoc> RunTop(CommandContext&) {
  bson::BsonDoc out;
  AppendTopTotals(out.mutable_get());
  return out;
}

}  // namespace tigerdoc::wire
