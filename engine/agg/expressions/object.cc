// Object operators: $mergeObjects $objectToArray $getField $setField
// $unsetField.

#include <string>

#include "engine/agg/expressions/operator_table.h"

namespace tigerdoc::agg {
namespace {

// $getField / $setField / $unsetField share their argument parsing:
// {field: <const string>, input: <expr>, value: <expr>} (getField also
// takes a bare string as the field name, with input $$CURRENT).
class FieldOpExpression : public Expression {
 public:
  enum class Kind { kGet, kSet, kUnset };
  FieldOpExpression(Kind kind, std::string op, std::string field, ExpressionPtr input,
                    ExpressionPtr value)
      : kind_(kind), op_(std::move(op)), field_(std::move(field)), input_(std::move(input)),
        value_(std::move(value)) {}
  StatusWith<Value> Evaluate(Variables* vars) const override {
    Value in;
    ASSIGN_OR_RETURN(in, input_->Evaluate(vars));
    if (kind_ == Kind::kGet) {
      if (in.nullish()) return Value::Missing();
      if (!in.is_document()) {
        return Error(3041705, "$getField requires 'input' to evaluate to type Object, but got " + in.TypeName());
      }
      for (auto& [name, v] : in.Fields()) {
        if (name == field_) return v;
      }
      return Value::Missing();
    }
    if (in.nullish()) return Value::Null();
    if (!in.is_document()) {
      return Error(4161105, op_ + " requires 'input' to evaluate to type Object");
    }
    Value v;
    if (kind_ == Kind::kSet) {
      ASSIGN_OR_RETURN(v, value_->Evaluate(vars));
    }
    auto fields = in.Fields();
    bool replaced = false;
    std::vector<std::pair<std::string, Value>> out;
    for (auto& [name, old] : fields) {
      if (name == field_) {
        replaced = true;
        if (!v.missing()) out.emplace_back(name, v);
      } else {
        out.emplace_back(std::move(name), std::move(old));
      }
    }
    if (!replaced && !v.missing()) out.emplace_back(field_, v);
    return MakeDocument(out);
  }

 private:
  Kind kind_;
  std::string op_;
  std::string field_;
  ExpressionPtr input_, value_;
};

StatusWith<ExpressionPtr> ParseFieldOp(std::string_view name, const bson_iter_t* operand,
                                       ParseContext* ctx) {
  using Kind = FieldOpExpression::Kind;
  std::string op(name);
  Kind kind = name == "$getField" ? Kind::kGet : name == "$setField" ? Kind::kSet : Kind::kUnset;
  if (kind == Kind::kGet && BSON_ITER_HOLDS_UTF8(operand)) {
    std::string field = bson_iter_utf8(operand, nullptr);
    if (!field.empty() && field[0] == '$') {
      return Error(5654602, "$getField requires 'field' to evaluate to a constant, but got a non-constant argument");
    }
    ASSIGN_OR_RETURN(ExpressionPtr current, ParseOperand(Value::String("$$CURRENT"), ctx));
    return ExpressionPtr(
        std::make_unique<FieldOpExpression>(kind, op, field, std::move(current), nullptr));
  }
  if (!BSON_ITER_HOLDS_DOCUMENT(operand)) {
    return Error(kind == Kind::kGet ? 3041703 : 4161100,
                 op + " only supports an object as its argument");
  }
  bson_iter_t it;
  bson_iter_recurse(operand, &it);
  std::optional<std::string> field;
  ExpressionPtr input, value;
  bool have_value = false;
  while (bson_iter_next(&it)) {
    std::string key = bson_iter_key(&it);
    if (key == "field") {
      ASSIGN_OR_RETURN(ExpressionPtr f, ParseOperand(&it, ctx));
      const Value* c = f->AsConstant();
      if (c == nullptr) {
        return Error(kind == Kind::kGet ? 5654601 : 4161106,
                     op + " requires 'field' to evaluate to a constant, but got a non-constant argument");
      }
      if (!c->is_string()) {
        return Error(kind == Kind::kGet ? 5654602 : 4161107,
                     op + " requires 'field' to evaluate to type String, but got " + c->TypeName());
      }
      field = std::string(c->str());
    } else if (key == "input") {
      ASSIGN_OR_RETURN(input, ParseOperand(&it, ctx));
    } else if (key == "value" && kind == Kind::kSet) {
      ASSIGN_OR_RETURN(value, ParseOperand(&it, ctx));
      have_value = true;
    } else {
      return Error(kind == Kind::kGet ? 3041701 : 4161101,
                   op + " found an unknown argument: " + key);
    }
  }
  if (!field) return Error(kind == Kind::kGet ? 3041702 : 4161102, op + " requires 'field' to be specified");
  if (kind != Kind::kGet && !input) return Error(4161103, op + " requires 'input' to be specified");
  // $getField's input defaults to $$CURRENT, whichever binding is in scope.
  if (!input) {
    ASSIGN_OR_RETURN(input, ParseOperand(Value::String("$$CURRENT"), ctx));
  }
  if (kind == Kind::kSet && !have_value) return Error(4161104, op + " requires 'value' to be specified");
  return ExpressionPtr(std::make_unique<FieldOpExpression>(kind, op, *field, std::move(input),
                                                           std::move(value)));
}

}  // namespace

StatusWith<ExpressionPtr> ParseObjectOp(std::string_view name, const bson_iter_t* operand,
                                        ParseContext* ctx) {
  if (name == "$mergeObjects") {
    return ParseNary(name, operand, ctx, 0, -1, [](std::vector<Value>& a) -> StatusWith<Value> {
      std::vector<std::pair<std::string, Value>> out;
      for (const Value& v : a) {
        if (v.nullish()) continue;
        if (!v.is_document()) {
          return Error(40400, "$mergeObjects requires object inputs, but input " + v.ToString() +
                                  " is of type " + v.TypeName());
        }
        for (auto& [name, fv] : v.Fields()) {
          bool found = false;
          for (auto& f : out) {
            if (f.first == name) {
              f.second = fv;
              found = true;
            }
          }
          if (!found) out.emplace_back(name, std::move(fv));
        }
      }
      return MakeDocument(out);
    });
  }
  if (name == "$objectToArray") {
    return ParseNary(name, operand, ctx, 1, 1, [](std::vector<Value>& a) -> StatusWith<Value> {
      if (a[0].nullish()) return Value::Null();
      if (!a[0].is_document()) {
        return Error(40390, "$objectToArray requires a document input, found: " + a[0].TypeName());
      }
      std::vector<Value> out;
      for (auto& [name, v] : a[0].Fields()) {
        out.push_back(MakeDocument({{"k", Value::String(name)}, {"v", v}}));
      }
      return Value::Array(out);
    });
  }
  return ParseFieldOp(name, operand, ctx);
}

StatusWith<ExpressionPtr> ParseMiscOp(std::string_view name, const bson_iter_t* operand,
                                      ParseContext* ctx) {
  // $const is $literal's older name; MongoDB still accepts both.
  if (name == "$literal" || name == "$const") return MakeConstant(Value(operand));
  // $rand: {} only.
  if (!BSON_ITER_HOLDS_DOCUMENT(operand)) {
    return Error(10065, "$rand not allowed to have any arguments");
  }
  if (bson_iter_type(operand) == BSON_TYPE_DOCUMENT) {
    uint32_t len;
    const uint8_t* data;
    bson_iter_document(operand, &len, &data);
    if (len > 5) return Error(3040500, "$rand does not currently accept arguments");
  }
  (void)ctx;
  return MakeNary({}, [](std::vector<Value>&) -> StatusWith<Value> {
    thread_local uint64_t state = 0x9E3779B97F4A7C15ULL ^ reinterpret_cast<uintptr_t>(&state);
    // splitmix64
    uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    return Value::Double(static_cast<double>(z >> 11) / 9007199254740992.0);
  });
}

}  // namespace tigerdoc::agg
