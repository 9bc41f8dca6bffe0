// The window functions that are not accumulators: ranks, $shift, the
// calculus pair $derivative / $integral, $expMovingAvg, and the gap fillers
// $locf / $linearFill.

#include <cmath>

#include "engine/agg/numeric.h"
#include "engine/agg/stages/stage_util.h"
#include "engine/agg/window/window_functions_internal.h"

namespace tigerdoc::agg {
namespace {

enum class RankKind { kRank, kDenseRank, kDocumentNumber };

class RankFunction : public WindowFunction {
 public:
  explicit RankFunction(RankKind kind) : kind_(kind) {}
  StatusWith<std::vector<Value>> Compute(const Partition& p, Variables*) const override {
    std::vector<Value> out(p.size());
    int64_t rank = 0, dense = 0;
    for (size_t i = 0; i < p.size(); ++i) {
      bool tie = i > 0 && p.sort_keys[i] == p.sort_keys[i - 1];
      if (!tie) {
        rank = static_cast<int64_t>(i) + 1;
        ++dense;
      }
      int64_t v = kind_ == RankKind::kRank ? rank : kind_ == RankKind::kDenseRank ? dense : static_cast<int64_t>(i) + 1;
      out[i] = Value::IntegralLong(v);
    }
    return out;
  }

 private:
  RankKind kind_;
};

class ShiftFunction : public WindowFunction {
 public:
  ShiftFunction(ExpressionPtr output, int64_t by, Value def)
      : output_(std::move(output)), by_(by), default_(std::move(def)) {}
  StatusWith<std::vector<Value>> Compute(const Partition& p, Variables* vars) const override {
    const int64_t n = static_cast<int64_t>(p.size());
    std::vector<Value> out(p.size());
    for (int64_t i = 0; i < n; ++i) {
      int64_t j = i + by_;
      if (j < 0 || j >= n) {
        out[i] = default_;
        continue;
      }
      ASSIGN_OR_RETURN(Value doc, p.Doc(static_cast<size_t>(j)));
      vars->SetRoot(std::move(doc));
      ASSIGN_OR_RETURN(Value v, output_->Evaluate(vars));
      out[i] = v.missing() ? Value::Null() : std::move(v);
    }
    return out;
  }

 private:
  ExpressionPtr output_;
  int64_t by_;
  Value default_;
};

// x of a sortBy value for $derivative / $integral: numbers as they are;
// dates in `unit`s (REQUIRED for dates).
StatusWith<Value> XOf(const Value& sort_value, const std::optional<TimeUnit>& unit, const char* op) {
  if (sort_value.type() == BSON_TYPE_DATE_TIME) {
    if (!unit) {
      return Error(5624901, std::string(op) + " where the sortBy is a Date requires an 'unit'");
    }
    return Value::Double(static_cast<double>(sort_value.date()) / static_cast<double>(FixedUnitMillis(*unit)));
  }
  if (unit) {
    return Error(5624900, std::string(op) + " with 'unit' expects the sortBy field to be a Date, but it was " +
                              sort_value.TypeName());
  }
  if (!sort_value.numeric()) {
    return Error(5624903, std::string(op) + " expects the sortBy field to be numeric, but it was " +
                              sort_value.TypeName());
  }
  return sort_value;
}

class CalculusFunction : public WindowFunction {
 public:
  CalculusFunction(bool integral, ExpressionPtr input, std::optional<TimeUnit> unit, WindowBounds bounds)
      : integral_(integral), input_(std::move(input)), unit_(unit), bounds_(std::move(bounds)) {}

  StatusWith<std::vector<Value>> Compute(const Partition& p, Variables* vars) const override {
    const size_t n = p.size();
    const char* op = integral_ ? "$integral" : "$derivative";
    std::vector<Value> xs(n), ys(n);
    for (size_t i = 0; i < n; ++i) {
      ASSIGN_OR_RETURN(xs[i], XOf(p.sort_values[i], unit_, op));
      ASSIGN_OR_RETURN(Value doc, p.Doc(i));
      vars->SetRoot(std::move(doc));
      ASSIGN_OR_RETURN(ys[i], input_->Evaluate(vars));
    }
    std::vector<Value> out(n);
    for (size_t i = 0; i < n; ++i) {
      size_t begin, end;
      RETURN_IF_ERROR(bounds_.Resolve(i, n, p.sort_values, p.descending, &begin, &end));
      out[i] = integral_ ? Integral(xs, ys, begin, end) : Derivative(xs, ys, begin, end);
    }
    return out;
  }

  const WindowBounds* range_bounds() const override { return bounds_.range ? &bounds_ : nullptr; }

 private:
  static Value Derivative(const std::vector<Value>& xs, const std::vector<Value>& ys, size_t b, size_t e) {
    if (e - b < 2) return Value::Null();
    const Value &y1 = ys[b], &y2 = ys[e - 1];
    if (!y1.numeric() || !y2.numeric()) return Value::Null();
    Value dx = NumSubtract(xs[e - 1], xs[b]);
    if (NumIsZero(dx)) return Value::Null();
    return NumDivide(NumSubtract(y2, y1), dx);
  }

  // Trapezoidal rule over the numeric points of the window.
  static Value Integral(const std::vector<Value>& xs, const std::vector<Value>& ys, size_t b, size_t e) {
    Value sum = Value::Int(0);
    bool have_prev = false;
    size_t prev = 0;
    for (size_t k = b; k < e; ++k) {
      if (!ys[k].numeric()) continue;
      if (have_prev) {
        Value area = NumMultiply(NumAdd(ys[prev], ys[k]), NumSubtract(xs[k], xs[prev]));
        sum = NumAdd(sum, NumDivide(area, Value::Int(2)));
      }
      have_prev = true;
      prev = k;
    }
    if (sum.type() == BSON_TYPE_INT32 || sum.type() == BSON_TYPE_INT64) return Value::Double(sum.AsDouble());
    return sum;
  }

  bool integral_;
  ExpressionPtr input_;
  std::optional<TimeUnit> unit_;
  WindowBounds bounds_;
};

class ExpMovingAvgFunction : public WindowFunction {
 public:
  ExpMovingAvgFunction(ExpressionPtr input, Value alpha) : input_(std::move(input)), alpha_(std::move(alpha)) {}
  StatusWith<std::vector<Value>> Compute(const Partition& p, Variables* vars) const override {
    std::vector<Value> out(p.size());
    Value current = Value::Null();
    bool decimal = false;
    for (size_t i = 0; i < p.size(); ++i) {
      ASSIGN_OR_RETURN(Value doc, p.Doc(i));
      vars->SetRoot(std::move(doc));
      ASSIGN_OR_RETURN(Value x, input_->Evaluate(vars));
      if (x.numeric()) {
        decimal = decimal || x.type() == BSON_TYPE_DECIMAL128;
        if (decimal) {
          Value a = Value::Decimal(alpha_.AsDecimal());
          Value one_minus = NumSubtract(Value::Int(1), a);
          current = current.nullish() ? Value::Decimal(x.AsDecimal())
                                      : NumAdd(NumMultiply(x, a), NumMultiply(current, one_minus));
        } else {
          double a = alpha_.AsDouble();
          current = Value::Double(current.nullish() ? x.AsDouble()
                                                    : x.AsDouble() * a + current.AsDouble() * (1 - a));
        }
      }
      out[i] = current;
    }
    return out;
  }

 private:
  ExpressionPtr input_;
  Value alpha_;
};

class LocfFunction : public WindowFunction {
 public:
  explicit LocfFunction(ExpressionPtr input) : input_(std::move(input)) {}
  StatusWith<std::vector<Value>> Compute(const Partition& p, Variables* vars) const override {
    std::vector<Value> out(p.size());
    Value last = Value::Null();
    for (size_t i = 0; i < p.size(); ++i) {
      ASSIGN_OR_RETURN(Value doc, p.Doc(i));
      vars->SetRoot(std::move(doc));
      ASSIGN_OR_RETURN(Value v, input_->Evaluate(vars));
      if (!v.nullish()) last = std::move(v);
      out[i] = last;
    }
    return out;
  }

 private:
  ExpressionPtr input_;
};

class LinearFillFunction : public WindowFunction {
 public:
  explicit LinearFillFunction(ExpressionPtr input) : input_(std::move(input)) {}
  StatusWith<std::vector<Value>> Compute(const Partition& p, Variables* vars) const override {
    const size_t n = p.size();
    std::vector<Value> ys(n), xs(n);
    for (size_t i = 0; i < n; ++i) {
      ASSIGN_OR_RETURN(Value doc, p.Doc(i));
      vars->SetRoot(std::move(doc));
      ASSIGN_OR_RETURN(ys[i], input_->Evaluate(vars));
      if (!ys[i].nullish() && !ys[i].numeric()) {
        return Error(6050106, "$linearFill only supports numeric types, found " + ys[i].TypeName());
      }
      const Value& s = p.sort_values[i];
      if (s.type() == BSON_TYPE_DATE_TIME) {
        xs[i] = Value::Long(s.date());
      } else if (s.numeric()) {
        xs[i] = s;
      } else {
        return Error(6050105, "$linearFill requires the sortBy field to be a number or a date, found " +
                                  s.TypeName());
      }
      if (i > 0 && Compare(xs[i], xs[i - 1]) == 0) {
        return Error(6050107, "There can be no repeated values in the sort field");
      }
    }
    std::vector<Value> out(n);
    size_t prev = n;  // last non-null index, n when none yet
    for (size_t i = 0; i < n; ++i) {
      if (!ys[i].nullish()) {
        out[i] = ys[i];
        prev = i;
        continue;
      }
      size_t next = i + 1;
      while (next < n && ys[next].nullish()) ++next;
      if (prev == n || next == n) {
        out[i] = Value::Null();
        continue;
      }
      // y = y1 + (y2 - y1) * (x - x1) / (x2 - x1)
      Value slope = NumDivide(NumSubtract(ys[next], ys[prev]), NumSubtract(xs[next], xs[prev]));
      out[i] = NumAdd(ys[prev], NumMultiply(slope, NumSubtract(xs[i], xs[prev])));
    }
    return out;
  }

 private:
  ExpressionPtr input_;
};

// {input, unit} of $derivative / $integral.
Status ParseCalculusArgs(const std::string& op, const bson_iter_t* arg, ParseContext* ctx,
                         ExpressionPtr* input, std::optional<TimeUnit>* unit) {
  if (!BSON_ITER_HOLDS_DOCUMENT(arg)) return WindowParseError(op + " expects an object, but got a " + TypeNameOf(bson_iter_type(arg)));
  bson_t obj = bson::SubDocumentView(arg);
  bson_iter_t it;
  bson_iter_init(&it, &obj);
  while (bson_iter_next(&it)) {
    std::string key = bson_iter_key(&it);
    if (key == "input") {
      ASSIGN_OR_RETURN(*input, ParseOperand(&it, ctx));
    } else if (key == "unit") {
      Value u(&it);
      if (!u.is_string()) return WindowParseError("unit' must be a string, but got " + u.TypeName());  // sic
      std::optional<TimeUnit> parsed = ParseTimeUnit(u.str());
      if (!parsed) return WindowParseError("unknown time unit value: " + std::string(u.str()));
      if (FixedUnitMillis(*parsed) == 0) return Error(5490710, "unit must be 'week' or smaller");
      *unit = parsed;
    } else {
      return WindowParseError(op + " got unexpected argument: " + key);
    }
  }
  if (!*input) return WindowParseError(op + " requires an 'input' expression");
  return Status::OK();
}

Status NoWindow(const std::string& op, const std::optional<WindowBounds>& bounds) {
  if (bounds) return WindowParseError("'window' field is not allowed in " + op);
  return Status::OK();
}

}  // namespace

StatusWith<std::unique_ptr<WindowFunction>> ParseSequenceFunction(
    const std::string& op, const bson_iter_t* arg, const std::optional<WindowBounds>& bounds,
    const SortByShape& sort_by, ParseContext* ctx) {
  using Ptr = std::unique_ptr<WindowFunction>;
  if (op == "$rank" || op == "$denseRank" || op == "$documentNumber") {
    // MongoDB's rank-style functions: no other field, {} as the value, and a
    // single-field sortBy ($documentNumber included).
    if (bounds) return Error(5371601, "Rank style window functions take no other arguments");
    Value v(arg);
    if (!v.is_document() || !v.Fields().empty()) {
      return Error(5371603, op + " must be specified with '{}' as the value");
    }
    if (sort_by.fields != 1) {
      return Error(5371602, op + " must be specified with a top level sortBy expression with exactly one element");
    }
    RankKind kind = op == "$rank" ? RankKind::kRank : op == "$denseRank" ? RankKind::kDenseRank : RankKind::kDocumentNumber;
    return Ptr(std::make_unique<RankFunction>(kind));
  }
  if (op == "$shift") {
    if (!BSON_ITER_HOLDS_DOCUMENT(arg)) return WindowParseError("Argument to $shift must be an object");
    if (sort_by.fields == 0) return WindowParseError("'$shift' requires a sortBy");
    RETURN_IF_ERROR(NoWindow(op, bounds));
    bson_t obj = bson::SubDocumentView(arg);
    ExpressionPtr output;
    std::optional<int64_t> by;
    Value def = Value::Null();
    bson_iter_t it;
    bson_iter_init(&it, &obj);
    while (bson_iter_next(&it)) {
      std::string key = bson_iter_key(&it);
      if (key == "output") {
        ASSIGN_OR_RETURN(output, ParseOperand(&it, ctx));
      } else if (key == "by") {
        Value b(&it);
        int64_t n;
        if (!b.numeric() || !b.AsInt64Exact(&n) || n < INT32_MIN || n > INT32_MAX) {
          return WindowParseError("'$shift:by' field must be an integer, but found " + b.ToString());
        }
        by = n;
      } else if (key == "default") {
        ASSIGN_OR_RETURN(ExpressionPtr d, ParseOperand(&it, ctx));
        if (d->AsConstant() == nullptr) {
          return WindowParseError("'$shift:default' expression must yield a constant value.");
        }
        def = *d->AsConstant();
      } else {
        return WindowParseError("Unknown argument in $shift");
      }
    }
    if (!output) return WindowParseError("$shift requires an 'output' expression.");
    if (!by) return WindowParseError("$shift requires 'by' as an integer value.");
    return Ptr(std::make_unique<ShiftFunction>(std::move(output), *by, std::move(def)));
  }
  if (op == "$derivative" || op == "$integral") {
    if (sort_by.fields == 0) return WindowParseError(op + " requires a sortBy");
    if (sort_by.fields != 1) return WindowParseError(op + " requires a non-compound sortBy");
    ExpressionPtr input;
    std::optional<TimeUnit> unit;
    RETURN_IF_ERROR(ParseCalculusArgs(op, arg, ctx, &input, &unit));
    if (op == "$derivative" && !bounds) return WindowParseError("$derivative requires explicit window bounds");
    return Ptr(std::make_unique<CalculusFunction>(op == "$integral", std::move(input), unit,
                                                  bounds.value_or(WindowBounds())));
  }
  if (op == "$expMovingAvg") {
    if (!BSON_ITER_HOLDS_DOCUMENT(arg)) return WindowParseError("$expMovingAvg must have exactly one argument that is an object");
    bson_t obj = bson::SubDocumentView(arg);
    const std::string shape = "$expMovingAvg sub object must have exactly two fields: An 'input' field, and either an 'N' field or an 'alpha' field";
    bson_iter_t in;
    if (bson_count_keys(&obj) != 2 || !bson_iter_init_find(&in, &obj, "input")) return WindowParseError(shape);
    if (bounds) return WindowParseError("$expMovingAvg must have exactly one argument that is an object");
    if (sort_by.fields == 0) return WindowParseError("$expMovingAvg requires an explicit 'sortBy'");
    ASSIGN_OR_RETURN(ExpressionPtr input, ParseOperand(&in, ctx));
    bson_iter_t k;
    if (bson_iter_init_find(&k, &obj, "N")) {
      Value nv(&k);
      int64_t n;
      if (!nv.numeric()) return WindowParseError("'N' field must be an integer, but found type " + nv.TypeName());
      if (!nv.AsInt64Exact(&n)) {
        return WindowParseError("'N' field must be an integer, but found  " + nv.ToString() +
                                ". To use a non-integer, use the 'alpha' argument instead");
      }
      if (n <= 0) return WindowParseError("'N' must be greater than zero. Got " + std::to_string(n));
      return Ptr(std::make_unique<ExpMovingAvgFunction>(std::move(input), Value::Double(2.0 / (static_cast<double>(n) + 1.0))));
    }
    if (bson_iter_init_find(&k, &obj, "alpha")) {
      Value a(&k);
      if (!a.numeric()) return WindowParseError("'alpha' must be a number");
      if (!(a.AsDouble() > 0 && a.AsDouble() < 1)) {
        return WindowParseError("'alpha' must be between 0 and 1 (exclusive), found alpha: " + a.ToString());
      }
      return Ptr(std::make_unique<ExpMovingAvgFunction>(std::move(input), a));
    }
    return WindowParseError("Got unrecognized field in $expMovingAvg" + shape);
  }
  if (op == "$locf" || op == "$linearFill") {
    RETURN_IF_ERROR(NoWindow(op, bounds));
    ASSIGN_OR_RETURN(ExpressionPtr input, ParseOperand(arg, ctx));
    if (op == "$locf") return Ptr(std::make_unique<LocfFunction>(std::move(input)));
    if (sort_by.fields != 1) {
      return Error(605001, "$linearFill must be specified with a top level sortBy expression with exactly one element");
    }
    return Ptr(std::make_unique<LinearFillFunction>(std::move(input)));
  }
  return WindowParseError("Unrecognized window function, " + op);
}

}  // namespace tigerdoc::agg
