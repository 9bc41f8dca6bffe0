// $count: "<field>" -> one document {<field>: <number of inputs>}, or no
// document at all when the input is empty (as MongoDB).

#include "engine/agg/stage_registry.h"
#include "engine/agg/stages/stage_util.h"

namespace tigerdoc::agg {

StatusWith<StageSpecPtr> ParseCountStage(const bson_iter_t* spec, const ExpressionContext&) {
  if (!BSON_ITER_HOLDS_UTF8(spec)) return Error(40156, "the count field must be a non-empty string");
  std::string field = IterString(spec);
  if (field.empty()) return Error(40156, "the count field must be a non-empty string");
  if (field[0] == '$') return Error(40158, "the count field cannot be a $-prefixed path");
  if (field.find('.') != std::string::npos) return Error(40160, "the count field cannot contain '.'");
  if (field.find('\0') != std::string::npos) return Error(40159, "the count field cannot contain a null byte");
  return MakeSpec("$count", [field](StagePtr in, const ExpressionContext*) -> StatusWith<StagePtr> {
    std::shared_ptr<Stage> input = std::move(in);
    return MakeBlockingStage([input, field]() -> StatusWith<std::vector<bson::BsonDoc>> {
    int64_t n = 0;
    while (true) {
      ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> doc, input->Next());
      if (!doc) break;
      ++n;
    }
    std::vector<bson::BsonDoc> out;
    if (n > 0) out.push_back(MakeDocument({{field, Value::IntegralLong(n)}}).ToDoc());
    return out;
    });
  });
}

}  // namespace tigerdoc::agg
