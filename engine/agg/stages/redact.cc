// $redact: <expression> evaluating to $$DESCEND, $$PRUNE or $$KEEP at each
// document level ($$CURRENT is the sub-document; $$ROOT stays the whole
// document). Sub-documents inside arrays are redacted one by one.

#include "engine/agg/stage_registry.h"
#include "engine/agg/stages/stage_util.h"

namespace tigerdoc::agg {
namespace {

StatusWith<Value> Redact(const Expression& expr, const Value& doc, Variables* vars);

StatusWith<Value> RedactValue(const Expression& expr, const Value& v, Variables* vars) {
  if (v.is_document()) return Redact(expr, v, vars);
  if (v.is_array()) {
    std::vector<Value> out;
    for (const Value& e : v.Elements()) {
      ASSIGN_OR_RETURN(Value r, RedactValue(expr, e, vars));
      if (!r.missing()) out.push_back(std::move(r));
    }
    return Value::Array(out);
  }
  return v;
}

StatusWith<Value> Redact(const Expression& expr, const Value& doc, Variables* vars) {
  vars->Set(Variables::kCurrent, doc);
  ASSIGN_OR_RETURN(Value r, expr.Evaluate(vars));
  if (r.is_string() && r.str() == "keep") return doc;
  if (r.is_string() && r.str() == "prune") return Value::Missing();
  if (!(r.is_string() && r.str() == "descend")) {
    return Error(17053, "$redact's expression should not return anything aside from the variables "
                        "$$KEEP, $$DESCEND, and $$PRUNE, but returned " + r.ToString());
  }
  std::vector<std::pair<std::string, Value>> out;
  for (auto& [name, v] : doc.Fields()) {
    ASSIGN_OR_RETURN(Value rv, RedactValue(expr, v, vars));
    if (!rv.missing()) out.emplace_back(name, std::move(rv));
  }
  return MakeDocument(out);
}

}  // namespace

StatusWith<StageSpecPtr> ParseRedactStage(const bson_iter_t* spec, const ExpressionContext& ctx) {
  ParseContext pctx(&ctx);
  ASSIGN_OR_RETURN(ExpressionPtr e, ParseOperand(spec, &pctx));
  std::shared_ptr<Expression> expr = std::move(e);
  return MakeSpec("$redact", [expr](StagePtr input, const ExpressionContext* c) -> StatusWith<StagePtr> {
    return MakeMapStage(std::move(input), c,
                        [expr](bson::BsonDoc doc, Variables* vars) -> StatusWith<std::optional<bson::BsonDoc>> {
                          Value root = Value::Document(doc);
                          vars->SetRoot(root);
                          ASSIGN_OR_RETURN(Value out, Redact(*expr, root, vars));
                          if (out.missing()) return std::optional<bson::BsonDoc>();
                          return std::optional<bson::BsonDoc>(out.ToDoc());
                        });
  });
}

}  // namespace tigerdoc::agg
