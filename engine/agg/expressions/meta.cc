// {$meta: "<name>"}: the current document's metadata
// (document_metadata.h). MongoDB 7's checks, in its order: 17307 for a
// non-string argument, 17308 "Unsupported argument to $meta: <name>" for
// a name it does not know, 40218 for textScore in a pipeline that does not
// start with a $text $match. textScore and sortKey evaluate to the
// document's score / sort key, or to missing where a stage dropped them
// ($group, $replaceRoot, ...); the other names MongoDB knows need
// metadata tigerdoc does not produce (search, geoNear, ...): NotImplemented.

#include <string>

#include "engine/agg/document_metadata.h"
#include "engine/agg/expressions/operator_table.h"
#include "engine/query/meta_names.h"

namespace tigerdoc::agg {
namespace {

class MetaExpression : public Expression {
 public:
  explicit MetaExpression(bool sort_key) : sort_key_(sort_key) {}
  StatusWith<Value> Evaluate(Variables* vars) const override {
    const Value& root = vars->Get(Variables::kRoot);
    if (!root.is_document()) return Value::Missing();
    bson_t doc = root.View();
    if (sort_key_) {
      bson_iter_t key;
      if (!SortKeyOf(&doc, &key)) return Value::Missing();
      return Value(&key);
    }
    std::optional<double> score = TextScoreOf(&doc);
    return score ? Value::Double(*score) : Value::Missing();
  }

 private:
  bool sort_key_;
};

}  // namespace

StatusWith<ExpressionPtr> ParseMetaOp(std::string_view, const bson_iter_t* operand, ParseContext* ctx) {
  if (!BSON_ITER_HOLDS_UTF8(operand)) return Error(17307, "$meta only supports string arguments");
  const std::string name = bson_iter_utf8(operand, nullptr);
  if (!query::IsKnownMeta(name)) return Error(17308, "Unsupported argument to $meta: " + name);
  if (name == "textScore") {
    if (!ctx->context().text_score_available) return query::TextScoreUnavailable();
    return ExpressionPtr(std::make_unique<MetaExpression>(/*sort_key=*/false));
  }
  if (name == "sortKey") return ExpressionPtr(std::make_unique<MetaExpression>(/*sort_key=*/true));
  return Error(static_cast<int>(ErrorCode::kNotImplemented),
               "$meta: \"" + name + "\" is not supported by tigerdoc yet");
}

}  // namespace tigerdoc::agg
