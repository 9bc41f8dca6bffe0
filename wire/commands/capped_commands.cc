// convertToCapped: {convertToCapped: <collection>, size: <bytes>}. The
// size follows create's rules for capped collections (a number, truncated,
// in [1, 1 PB]); the work is Engine::ConvertToCapped.

#include <string>

#include "engine/catalog/capped_options.h"
#include "engine/engine.h"
#include "wire/commands/command_args.h"
#include "wire/commands/command_registry.h"

namespace tigerdoc::wire {

StatusWith<bson::BsonDoc> RunConvertToCapped(CommandContext& ctx) {
  ASSIGN_OR_RETURN(std::string name, CollectionArgument(ctx.body(), ctx.name));
  RETURN_IF_ERROR(CheckCollectionNamespace(ctx.db(), name));
  RETURN_IF_ERROR(CheckFields(ctx.body(), ctx.name, {"size"}));
  bson_iter_t it;
  if (!bson_iter_init_find(&it, ctx.body(), "size")) {
    return Status(ErrorCode::kLocation40414,
                  "BSON field 'convertToCapped.size' is missing but a required field");
  }
  ASSIGN_OR_RETURN(int64_t size, catalog::ParseCappedSize("convertToCapped", &it));
  RETURN_IF_ERROR(ctx.engine->ConvertToCapped(ctx.db(), name, size));
  return bson::BsonDoc();
}

}  // namespace tigerdoc::wire
