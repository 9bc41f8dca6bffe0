// $limit: a positive integral number.

#include "engine/agg/stage_registry.h"
#include "engine/agg/stages/stage_util.h"

namespace tigerdoc::agg {
namespace {

class LimitStage : public Stage {
 public:
  LimitStage(StagePtr input, int64_t limit) : input_(std::move(input)), left_(limit) {}
  StatusWith<std::optional<bson::BsonDoc>> Next() override {
    if (left_ <= 0) return std::optional<bson::BsonDoc>();
    --left_;
    return input_->Next();
  }

 private:
  StagePtr input_;
  int64_t left_;
};

}  // namespace

StatusWith<StageSpecPtr> ParseLimitStage(const bson_iter_t* spec, const ExpressionContext&) {
  Value v(spec);
  if (!v.numeric()) return Error(15957, "the limit must be specified as a number");
  int64_t n;
  if (!v.AsInt64Exact(&n)) {
    return Error(15957, "invalid argument to $limit stage: Cannot represent as a 64-bit integer: $limit: " + v.ToString());
  }
  if (n <= 0) return Error(15958, "the limit must be positive");
  return MakeSpec("$limit", [n](StagePtr input, const ExpressionContext*) -> StatusWith<StagePtr> {
    return StagePtr(std::make_unique<LimitStage>(std::move(input), n));
  });
}

}  // namespace tigerdoc::agg
