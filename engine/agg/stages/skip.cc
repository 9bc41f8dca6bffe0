// $skip: a non-negative integral number.

#include "engine/agg/stage_registry.h"
#include "engine/agg/stages/stage_util.h"

namespace tigerdoc::agg {
namespace {

class SkipStage : public Stage {
 public:
  SkipStage(StagePtr input, int64_t skip) : input_(std::move(input)), skip_(skip) {}
  StatusWith<std::optional<bson::BsonDoc>> Next() override {
    while (skip_ > 0) {
      ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> doc, input_->Next());
      if (!doc) return std::optional<bson::BsonDoc>();
      --skip_;
    }
    return input_->Next();
  }

 private:
  StagePtr input_;
  int64_t skip_;
};

}  // namespace

StatusWith<StageSpecPtr> ParseSkipStage(const bson_iter_t* spec, const ExpressionContext&) {
  Value v(spec);
  if (!v.numeric()) return Error(15972, "Argument to $skip must be a number not " + v.TypeName());
  int64_t n;
  if (!v.AsInt64Exact(&n)) {
    return Error(15972, "invalid argument to $skip stage: Cannot represent as a 64-bit integer: $skip: " + v.ToString());
  }
  if (n < 0) {
    return Error(15956, "invalid argument to $skip stage: Expected a non-negative number in: $skip: " +
                            std::to_string(n));
  }
  return MakeSpec("$skip", [n](StagePtr input, const ExpressionContext*) -> StatusWith<StagePtr> {
    return StagePtr(std::make_unique<SkipStage>(std::move(input), n));
  });
}

}  // namespace tigerdoc::agg
