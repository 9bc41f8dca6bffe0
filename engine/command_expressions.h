#pragma once
// The expression context of one command: what its aggregation expressions
// ($expr in filters, computed projection fields, pipeline updates) see.
//
//   find/update/delete/findAndModify {..., let: {x: ...}}
//        └─ CommandExpressions::Make(db, let)
//              ctx     $$NOW (fixed for the command), the db, `let` evaluated
//              parser  for Matcher::Parse / Projection::Parse / FindSpec
//
// Thread-safety: a value; `parser` is immutable and shareable.

#include <bson/bson.h>

#include <memory>
#include <optional>
#include <string_view>

#include "engine/agg/expression_context.h"
#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"
#include "engine/query/matcher/expression_hook.h"
#include "engine/update/update_driver.h"

namespace tigerdoc::engine {

struct CommandExpressions {
  agg::ExpressionContext ctx;
  std::shared_ptr<const query::ExpressionParser> parser;

  // `let` may be null or empty. `collator`: the operation's collation
  // (OperationCollator), which $expr's comparisons, $in, set operators and
  // the rest compare strings with; null is simple. Errors: the let
  // variables' own (agg::EvaluateLet).
  static StatusWith<CommandExpressions> Make(std::string_view db, const bson_t* let,
                                             const bson::Collator* collator = nullptr);
};

// The update of a statement: an operator or replacement document, or (when
// `is_pipeline`) the array of stages. `constants` is the statement's `c`
// (pipeline updates only: 51198 otherwise), evaluated like `let`.
StatusWith<update::UpdateDriver> ParseUpdateDriver(const bson::BsonDoc& update, bool is_pipeline,
                                                   const std::optional<bson::BsonDoc>& array_filters,
                                                   const std::optional<bson::BsonDoc>& constants,
                                                   const CommandExpressions& expressions);

}  // namespace tigerdoc::engine
