#include "engine/command_expressions.h"

#include "engine/base/wall_clock.h"
#include "engine/agg/query_expressions.h"

namespace tigerdoc::engine {

StatusWith<CommandExpressions> CommandExpressions::Make(std::string_view db, const bson_t* let,
                                                        const bson::Collator* collator) {
  CommandExpressions out;
  out.ctx.now_millis = WallClockMillis();
  out.ctx.db = std::string(db);
  out.ctx.collator = collator;
  ASSIGN_OR_RETURN(out.ctx.variables, agg::EvaluateLet(let, out.ctx));
  out.parser = agg::MakeQueryExpressionParser(out.ctx);
  return out;
}

StatusWith<update::UpdateDriver> ParseUpdateDriver(const bson::BsonDoc& update, bool is_pipeline,
                                                   const std::optional<bson::BsonDoc>& array_filters,
                                                   const std::optional<bson::BsonDoc>& constants,
                                                   const CommandExpressions& expressions) {
  const bson_t* filters = array_filters ? array_filters->get() : nullptr;
  if (!is_pipeline) {
    if (constants) {
      return Status(static_cast<ErrorCode>(51198),
                    "Constant values may only be specified for pipeline updates");
    }
    return update::UpdateDriver::Parse(update.get(), filters);
  }
  agg::ExpressionContext ctx = expressions.ctx;
  if (constants) {
    ASSIGN_OR_RETURN(auto values, agg::EvaluateLet(constants->get(), ctx));
    for (auto& v : values) ctx.variables.push_back(std::move(v));
  }
  return update::UpdateDriver::ParsePipeline(update.get(), filters, ctx);
}

}  // namespace tigerdoc::engine
