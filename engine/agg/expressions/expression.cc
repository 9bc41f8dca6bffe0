#include "engine/agg/expressions/expression.h"

#include <string>

#include "engine/agg/expressions/operator_table.h"
#include "engine/bson/shell_string.h"

namespace tigerdoc::agg {
namespace {

class ConstantExpression : public Expression {
 public:
  explicit ConstantExpression(Value v) : v_(std::move(v)) {}
  StatusWith<Value> Evaluate(Variables*) const override { return v_; }
  const Value* AsConstant() const override { return &v_; }

 private:
  Value v_;
};

// "$a.b" or "$$var.a.b": variable `id` (CURRENT for plain paths), then path.
class PathExpression : public Expression {
 public:
  PathExpression(int id, std::vector<std::string> parts) : id_(id), parts_(std::move(parts)) {}
  StatusWith<Value> Evaluate(Variables* vars) const override {
    return GetPath(vars->Get(id_), parts_);
  }

 private:
  int id_;
  std::vector<std::string> parts_;
};

class NowExpression : public Expression {
 public:
  StatusWith<Value> Evaluate(Variables* vars) const override {
    return Value::Date(vars->context().now_millis);
  }
};

class ObjectExpression : public Expression {
 public:
  explicit ObjectExpression(std::vector<std::pair<std::string, ExpressionPtr>> fields)
      : fields_(std::move(fields)) {}
  StatusWith<Value> Evaluate(Variables* vars) const override {
    bson_t doc;
    bson_init(&doc);
    for (const auto& [name, expr] : fields_) {
      auto v = expr->Evaluate(vars);
      if (!v.ok()) {
        bson_destroy(&doc);
        return v.status();
      }
      v.value().AppendTo(&doc, name);
    }
    Value out = Value::Document(&doc);
    bson_destroy(&doc);
    return out;
  }

 private:
  std::vector<std::pair<std::string, ExpressionPtr>> fields_;
};

class ArrayExpression : public Expression {
 public:
  explicit ArrayExpression(std::vector<ExpressionPtr> elems) : elems_(std::move(elems)) {}
  StatusWith<Value> Evaluate(Variables* vars) const override {
    std::vector<Value> out;
    out.reserve(elems_.size());
    for (const auto& e : elems_) {
      ASSIGN_OR_RETURN(Value v, e->Evaluate(vars));
      // A missing element becomes null (MongoDB's ExpressionArray).
      out.push_back(v.missing() ? Value::Null() : std::move(v));
    }
    return Value::Array(out);
  }

 private:
  std::vector<ExpressionPtr> elems_;
};

Status ValidatePathComponents(const std::vector<std::string>& parts, std::string_view raw) {
  if (!raw.empty() && raw.back() == '.') {
    return Error(40353, "FieldPath must not end with a '.'.");
  }
  for (const std::string& p : parts) {
    if (p.empty()) return Error(15998, "FieldPath field names may not be empty strings.");
    if (p[0] == '$') {
      return Error(16410,
                   "FieldPath field names may not start with '$'. Consider using $getField or "
                   "$setField.");
    }
    if (p.find('\0') != std::string::npos) {
      return Error(16411, "FieldPath field names may not contain '\\0'.");
    }
  }
  return Status::OK();
}

std::vector<std::string> Split(std::string_view s) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t dot = s.find('.', start);
    if (dot == std::string_view::npos) {
      parts.emplace_back(s.substr(start));
      break;
    }
    parts.emplace_back(s.substr(start, dot - start));
    start = dot + 1;
  }
  return parts;
}

StatusWith<ExpressionPtr> ParseFieldPathString(std::string_view s, ParseContext* ctx) {
  // s starts with '$'.
  if (s.size() >= 2 && s[1] == '$') {
    std::string_view rest = s.substr(2);
    size_t dot = rest.find('.');
    std::string name(rest.substr(0, dot));
    if (name.empty()) return Error(16869, "empty variable names are not allowed");
    std::vector<std::string> parts;
    if (dot != std::string_view::npos) {
      std::string_view path = rest.substr(dot + 1);
      parts = Split(path);
      RETURN_IF_ERROR(ValidatePathComponents(parts, path));
      if (path.empty()) return Error(40353, "FieldPath must not end with a '.'.");
    }
    auto scoped = ctx->scope().find(name);
    if (scoped != ctx->scope().end()) {
      return ExpressionPtr(std::make_unique<PathExpression>(scoped->second, std::move(parts)));
    }
    if (name == "ROOT") {
      return ExpressionPtr(std::make_unique<PathExpression>(Variables::kRoot, std::move(parts)));
    }
    if (name == "CURRENT") {
      return ExpressionPtr(
          std::make_unique<PathExpression>(Variables::kCurrent, std::move(parts)));
    }
    if (name == "REMOVE") return MakeConstant(Value::Missing());
    // $redact's results.
    if (name == "DESCEND") return MakeConstant(Value::String("descend"));
    if (name == "PRUNE") return MakeConstant(Value::String("prune"));
    if (name == "KEEP") return MakeConstant(Value::String("keep"));
    for (const auto& [vname, value] : ctx->context().variables) {
      if (vname == name) return MakeConstant(GetPath(value, parts));
    }
    if (name == "NOW") {
      if (parts.empty()) return ExpressionPtr(std::make_unique<NowExpression>());
      return MakeConstant(Value::Missing());
    }
    if (name == "CLUSTER_TIME" || name == "SEARCH_META" || name == "USER_ROLES") {
      return Error(static_cast<int>(ErrorCode::kNotImplemented),
                   "$$" + name + " is not supported by tigerdoc");
    }
    return Error(17276, "Use of undefined variable: " + name);
  }
  std::string_view path = s.substr(1);
  if (path.empty()) return Error(16872, "'$' by itself is not a valid FieldPath");
  std::vector<std::string> parts = Split(path);
  RETURN_IF_ERROR(ValidatePathComponents(parts, path));
  // "$a" is "$$CURRENT.a": inside a $let/$map/$filter that rebinds CURRENT
  // it reads that binding, as MongoDB resolves it when parsing.
  auto current = ctx->scope().find("CURRENT");
  const int id = current != ctx->scope().end() ? current->second : Variables::kCurrent;
  return ExpressionPtr(std::make_unique<PathExpression>(id, std::move(parts)));
}

}  // namespace

ExpressionPtr MakeConstant(Value v) { return std::make_unique<ConstantExpression>(std::move(v)); }

StatusWith<ExpressionPtr> ParseObject(const bson_t* obj, ParseContext* ctx) {
  bson_iter_t it;
  bson_iter_init(&it, obj);
  if (bson_iter_next(&it) && bson_iter_key(&it)[0] == '$') {
    std::string_view name(bson_iter_key(&it), bson_iter_key_len(&it));
    if (bson_count_keys(obj) != 1) {
      return Error(15983, "An object representing an expression must have exactly one field: " +
                              bson::ToShellString(obj));
    }
    OperatorParseFn fn = FindOperator(name);
    if (fn == nullptr) {
      return Error(static_cast<int>(ErrorCode::kInvalidPipelineOperator),
                   "Unrecognized expression '" + std::string(name) + "'");
    }
    return fn(name, &it, ctx);
  }
  std::vector<std::pair<std::string, ExpressionPtr>> fields;
  bson_iter_init(&it, obj);
  while (bson_iter_next(&it)) {
    std::string name(bson_iter_key(&it), bson_iter_key_len(&it));
    if (name.empty()) return Error(16412, "FieldPath field names may not be empty strings.");
    if (name[0] == '$') {
      return Error(16410,
                   "FieldPath field names may not start with '$'. Consider using $getField or "
                   "$setField.");
    }
    if (name.find('.') != std::string::npos) {
      return Error(16412, "FieldPath field names may not contain '.'.");
    }
    for (const auto& f : fields) {
      if (f.first == name) return Error(16406, "duplicate field name specified in object literal: " + bson::ToShellString(obj));
    }
    ASSIGN_OR_RETURN(ExpressionPtr e, ParseOperand(&it, ctx));
    fields.emplace_back(std::move(name), std::move(e));
  }
  return ExpressionPtr(std::make_unique<ObjectExpression>(std::move(fields)));
}

StatusWith<ExpressionPtr> ParseOperand(const bson_iter_t* it, ParseContext* ctx) {
  switch (bson_iter_type(it)) {
    case BSON_TYPE_UTF8: {
      uint32_t len;
      const char* s = bson_iter_utf8(it, &len);
      if (len > 0 && s[0] == '$') return ParseFieldPathString(std::string_view(s, len), ctx);
      return MakeConstant(Value(it));
    }
    case BSON_TYPE_DOCUMENT: {
      bson_t sub;
      uint32_t len;
      const uint8_t* data;
      bson_iter_document(it, &len, &data);
      bson_init_static(&sub, data, len);
      return ParseObject(&sub, ctx);
    }
    case BSON_TYPE_ARRAY: {
      bson_iter_t e;
      bson_iter_recurse(it, &e);
      std::vector<ExpressionPtr> elems;
      while (bson_iter_next(&e)) {
        ASSIGN_OR_RETURN(ExpressionPtr x, ParseOperand(&e, ctx));
        elems.push_back(std::move(x));
      }
      return ExpressionPtr(std::make_unique<ArrayExpression>(std::move(elems)));
    }
    default: return MakeConstant(Value(it));
  }
}

StatusWith<ExpressionPtr> ParseOperand(const Value& v, ParseContext* ctx) {
  if (v.missing()) return MakeConstant(Value::Missing());
  bson_t doc;
  bson_init(&doc);
  v.AppendTo(&doc, "v");
  bson_iter_t it;
  bson_iter_init_find(&it, &doc, "v");
  auto out = ParseOperand(&it, ctx);
  bson_destroy(&doc);
  return out;
}

Status ValidateUserVariableName(std::string_view name) {
  if (name.empty()) return Error(16866, "empty variable names are not allowed");
  unsigned char first = static_cast<unsigned char>(name[0]);
  if (!((first >= 'a' && first <= 'z') || first >= 0x80)) {
    return Error(16867, "'" + std::string(name) +
                            "' starts with an invalid character for a user variable name");
  }
  for (unsigned char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
          c == '_' || c >= 0x80)) {
      return Error(16868,
                   "'" + std::string(name) + "' contains an invalid character for a variable name: '" +
                       std::string(1, static_cast<char>(c)) + "'");
    }
  }
  return Status::OK();
}

StatusWith<Value> EvaluateOn(const Expression& expr, const bson_t* doc,
                             const ExpressionContext& ctx) {
  Variables vars(&ctx);
  vars.SetRoot(Value::Document(doc));
  return expr.Evaluate(&vars);
}

}  // namespace tigerdoc::agg
