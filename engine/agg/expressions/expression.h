#pragma once
// Aggregation expressions: a tree parsed from MongoDB's expression syntax
// and evaluated against one document at a time.
//
//   {$add: ["$price", {$multiply: ["$qty", 2]}]}
//
//        $add ──► FieldPath(price)
//           └──► $multiply ──► FieldPath(qty)
//                         └──► Constant(2)
//
// Syntax (ParseOperand):
//   "$a.b"               field path of $$CURRENT
//   "$$name" / "$$n.a"   variable (ROOT, CURRENT, NOW, REMOVE, user)
//   {$op: args}          operator (one field whose name starts with '$';
//                        the operator table is operator_table.cc)
//   {$literal: v}        v unevaluated
//   {a: expr, ...}       object of expressions (missing values omitted)
//   [expr, ...]          array of expressions (missing becomes null)
//   anything else        constant
//
// Errors are MongoDB's: 168 "Unrecognized expression '$foo'", 15983 for an
// operator object with several fields, 16410 for a '$' field name mixed into
// an object, 17276 "Use of undefined variable: x", 16872 for "$" alone,
// arity errors 16020 (exact) / 28667 (ranged) (see nary.h).
//
// Ownership: trees own copies of everything they need.
// Thread-safety: immutable after parsing; Evaluate() takes the per-thread
// Variables, so one tree may be evaluated concurrently with distinct
// Variables.

#include <bson/bson.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/agg/expression_context.h"
#include "engine/agg/value.h"
#include "engine/base/status.h"

namespace tigerdoc::agg {

// Runtime variable values by id. Ids 0..kFirstUserId-1 are the builtins.
class Variables {
 public:
  static constexpr int kRoot = 0;
  static constexpr int kCurrent = 1;
  static constexpr int kFirstUserId = 2;

  explicit Variables(const ExpressionContext* ctx) : ctx_(ctx) {}

  // Binds ROOT and CURRENT to `doc` (a document value).
  void SetRoot(Value doc) {
    Set(kCurrent, doc);
    Set(kRoot, std::move(doc));
  }
  void Set(int id, Value v) {
    if (static_cast<size_t>(id) >= values_.size()) values_.resize(id + 1);
    values_[id] = std::move(v);
  }
  const Value& Get(int id) const {
    static const Value kMissing;
    return static_cast<size_t>(id) < values_.size() ? values_[id] : kMissing;
  }
  const ExpressionContext& context() const { return *ctx_; }

 private:
  const ExpressionContext* ctx_;
  std::vector<Value> values_;
};

// Parse-time scope: which variable names are visible and their ids.
class ParseContext {
 public:
  explicit ParseContext(const ExpressionContext* ctx) : ctx_(ctx) {}
  const ExpressionContext& context() const { return *ctx_; }

  // Declares a new variable visible in this scope; returns its id.
  int Define(const std::string& name) {
    int id = (*next_id_)++;
    scope_[name] = id;
    return id;
  }
  // A child scope sharing the id counter.
  ParseContext Child() const { return *this; }
  const std::map<std::string, int>& scope() const { return scope_; }

 private:
  const ExpressionContext* ctx_;
  std::map<std::string, int> scope_;
  std::shared_ptr<int> next_id_ = std::make_shared<int>(Variables::kFirstUserId);
};

class Expression {
 public:
  virtual ~Expression() = default;
  virtual StatusWith<Value> Evaluate(Variables* vars) const = 0;
  // True for constants (lets $group and stages skip per-document work).
  virtual const Value* AsConstant() const { return nullptr; }
};
using ExpressionPtr = std::unique_ptr<Expression>;

// Parses any operand (see the syntax above).
StatusWith<ExpressionPtr> ParseOperand(const bson_iter_t* it, ParseContext* ctx);
StatusWith<ExpressionPtr> ParseOperand(const Value& v, ParseContext* ctx);
// Parses an object as an expression: an operator object or an object of
// expressions.
StatusWith<ExpressionPtr> ParseObject(const bson_t* obj, ParseContext* ctx);
// Validates a variable name a user defines ($let, $map's `as`, ...):
// 16866 empty, 16867 bad first character, 16868 bad character.
Status ValidateUserVariableName(std::string_view name);

ExpressionPtr MakeConstant(Value v);

// Evaluates `expr` against `doc` with fresh variables. For tests and
// single-shot callers.
StatusWith<Value> EvaluateOn(const Expression& expr, const bson_t* doc,
                             const ExpressionContext& ctx);

}  // namespace tigerdoc::agg
