// Arithmetic operators: $add $subtract $multiply $divide $mod $abs $ceil
// $floor $round $trunc $pow $sqrt $exp $ln $log $log10. Null or missing
// arguments give null; other non-numbers are errors with MongoDB's codes.

#include <cmath>
#include <limits>
#include <string>

#include "engine/agg/expressions/operator_table.h"
#include "engine/agg/numeric.h"
#include "engine/bson/decimal_math.h"

namespace tigerdoc::agg {
namespace {

StatusWith<Value> Add(std::vector<Value>& args) {
  Value total = Value::Int(0);
  bool have_date = false;
  for (const Value& v : args) {
    if (v.nullish()) return Value::Null();
    if (v.type() == BSON_TYPE_DATE_TIME) {
      if (have_date) return Error(16612, "only one date allowed in an $add expression");
      have_date = true;
      continue;
    }
    if (!v.numeric()) {
      return Error(16554, "$add only supports numeric or date types, not " + v.TypeName());
    }
    total = NumAdd(total, v);
  }
  if (!have_date) return total;
  int64_t date = 0;
  for (const Value& v : args) {
    if (v.type() == BSON_TYPE_DATE_TIME) date = v.date();
  }
  // MongoDB: the sum must stay within int64 milliseconds, else Overflow
  // (NaN and infinities included). Checked here because int64 overflow is
  // undefined behaviour, not a wrap.
  const Status overflow(ErrorCode::kOverflow, "date overflow in $add");
  int64_t delta = 0;
  if (total.type() == BSON_TYPE_DOUBLE || total.type() == BSON_TYPE_DECIMAL128) {
    const double d = total.AsDouble();
    // 2^63 is exact as a double; the upper bound is exclusive.
    if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0)) return overflow;
    delta = std::llround(d);
  } else if (!total.AsInt64Exact(&delta)) {
    return overflow;
  }
  int64_t sum = 0;
  if (__builtin_add_overflow(date, delta, &sum)) return overflow;
  return Value::Date(sum);
}

StatusWith<Value> Subtract(std::vector<Value>& args) {
  const Value& a = args[0];
  const Value& b = args[1];
  if (a.nullish() || b.nullish()) return Value::Null();
  if (a.numeric() && b.numeric()) return NumSubtract(a, b);
  if (a.type() == BSON_TYPE_DATE_TIME) {
    // Differences outside int64 are refused like $add's (Overflow), rather
    // than left to undefined signed overflow.
    const Status overflow(ErrorCode::kOverflow, "date overflow in $subtract");
    int64_t difference = 0;
    if (b.type() == BSON_TYPE_DATE_TIME) {
      if (__builtin_sub_overflow(a.date(), b.date(), &difference)) return overflow;
      return Value::Long(difference);
    }
    if (b.numeric()) {
      int64_t delta = 0;
      if (!b.AsInt64Exact(&delta)) {
        const double d = b.AsDouble();
        if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0)) return overflow;
        delta = std::llround(d);
      }
      if (__builtin_sub_overflow(a.date(), delta, &difference)) return overflow;
      return Value::Date(difference);
    }
  }
  return Error(16556, "cant $subtract a " + b.TypeName() + " from a " + a.TypeName());
}

StatusWith<Value> Multiply(std::vector<Value>& args) {
  Value total = Value::Int(1);
  for (const Value& v : args) {
    if (v.nullish()) return Value::Null();
    if (!v.numeric()) {
      return Error(16555, "$multiply only supports numeric types, not " + v.TypeName());
    }
    total = NumMultiply(total, v);
  }
  return total;
}

StatusWith<Value> Divide(std::vector<Value>& args) {
  const Value& a = args[0];
  const Value& b = args[1];
  if (a.nullish() || b.nullish()) return Value::Null();
  if (!a.numeric() || !b.numeric()) {
    return Error(16609, "$divide only supports numeric types, not " + a.TypeName() + " and " +
                            b.TypeName());
  }
  if (NumIsZero(b)) return Error(2, "can't $divide by zero");
  return NumDivide(a, b);
}

StatusWith<Value> Mod(std::vector<Value>& args) {
  const Value& a = args[0];
  const Value& b = args[1];
  if (a.nullish() || b.nullish()) return Value::Null();
  if (!a.numeric() || !b.numeric()) {
    return Error(16611, "$mod only supports numeric types, not " + a.TypeName() + " and " +
                            b.TypeName());
  }
  if (NumIsZero(b)) return Error(16610, "can't $mod by zero");
  return NumMod(a, b);
}

// Single numeric argument operators (MongoDB's ExpressionSingleNumericArg):
// nullish -> null, non-number -> 28765.
using UnaryNumFn = StatusWith<Value> (*)(const Value&);
StatusWith<ExpressionPtr> ParseUnary(std::string_view name, const bson_iter_t* operand,
                                     ParseContext* ctx, UnaryNumFn fn) {
  std::string op(name);
  return ParseNary(name, operand, ctx, 1, 1, [op, fn](std::vector<Value>& args) -> StatusWith<Value> {
    if (args[0].nullish()) return Value::Null();
    if (!args[0].numeric()) return Error(28765, NumericOnlyMessage(op, args[0]));
    return fn(args[0]);
  });
}

StatusWith<Value> Abs(const Value& v) {
  switch (v.type()) {
    case BSON_TYPE_INT32: {
      int64_t x = v.get()->value.v_int32;
      return Value::IntegralLong(x < 0 ? -x : x);
    }
    case BSON_TYPE_INT64: {
      int64_t x = v.get()->value.v_int64;
      if (x == std::numeric_limits<int64_t>::min()) {
        return Error(28680, "can't take $abs of long long min");
      }
      return Value::Long(x < 0 ? -x : x);
    }
    case BSON_TYPE_DOUBLE: return Value::Double(std::fabs(v.get()->value.v_double));
    default: {
      if (v.AsDouble() < 0) return NumSubtract(Value::Int(0), v);
      return v;
    }
  }
}

StatusWith<Value> Ceil(const Value& v) { return RoundNumber(v, 0, RoundMode::kCeil); }
StatusWith<Value> Floor(const Value& v) { return RoundNumber(v, 0, RoundMode::kFloor); }

// Functions of one argument: doubles (ints and longs too) through libm,
// decimals through Intel's decimal library, as MongoDB (so $log10 of
// NumberDecimal 10 is exactly 1).
Value Compute(const Value& v, double (*as_double)(double), bson::DecimalUnaryFn as_decimal) {
  if (v.type() == BSON_TYPE_DECIMAL128) {
    return Value::Decimal(
        bson::DecimalApply(as_decimal, bson::Decimal128::FromBson(v.AsDecimal())).ToBson());
  }
  return Value::Double(as_double(v.AsDouble()));
}

StatusWith<Value> Sqrt(const Value& v) {
  double d = v.AsDouble();
  if (d < 0) return Error(28714, "$sqrt's argument must be greater than or equal to 0");
  return Compute(v, std::sqrt, bson::DecimalUnaryFn::kSqrt);
}
StatusWith<Value> Exp(const Value& v) { return Compute(v, std::exp, bson::DecimalUnaryFn::kExp); }
StatusWith<Value> Ln(const Value& v) {
  double d = v.AsDouble();
  if (!(d > 0) && !std::isnan(d)) {
    return Error(28766, "$ln's argument must be a positive number, but " + v.ToString());
  }
  return Compute(v, std::log, bson::DecimalUnaryFn::kLn);
}
StatusWith<Value> Log10(const Value& v) {
  double d = v.AsDouble();
  if (!(d > 0) && !std::isnan(d)) {
    return Error(28761, "$log10's argument must be a positive number, but " + v.ToString());
  }
  return Compute(v, std::log10, bson::DecimalUnaryFn::kLog10);
}

StatusWith<Value> Log(std::vector<Value>& args) {
  const Value& n = args[0];
  const Value& base = args[1];
  if (n.nullish() || base.nullish()) return Value::Null();
  if (!n.numeric()) return Error(28756, "$log's argument must be numeric, not " + n.TypeName());
  if (!base.numeric()) return Error(28757, "$log's base must be numeric, not " + base.TypeName());
  double x = n.AsDouble(), b = base.AsDouble();
  if (!(x > 0)) return Error(28758, "$log's argument must be a positive number, but " + n.ToString());
  if (!(b > 0) || b == 1) {
    return Error(28759, "$log's base must be a positive number not equal to 1, but " + base.ToString());
  }
  if (n.type() == BSON_TYPE_DECIMAL128 || base.type() == BSON_TYPE_DECIMAL128) {
    return Value::Decimal(bson::DecimalLog(bson::Decimal128::FromBson(n.AsDecimal()),
                                           bson::Decimal128::FromBson(base.AsDecimal()))
                              .ToBson());
  }
  return Value::Double(std::log(x) / std::log(b));
}

StatusWith<Value> Pow(std::vector<Value>& args) {
  const Value& base = args[0];
  const Value& exp = args[1];
  if (base.nullish() || exp.nullish()) return Value::Null();
  if (!base.numeric()) return Error(28762, "$pow's base must be numeric, not " + base.TypeName());
  if (!exp.numeric()) return Error(28763, "$pow's exponent must be numeric, not " + exp.TypeName());
  if (NumIsZero(base) && exp.AsDouble() < 0) {
    return Error(28764, "$pow cannot take a base of 0 and a negative exponent");
  }
  NumType bt = NumTypeOf(base), et = NumTypeOf(exp);
  if (bt == NumType::kDecimal || et == NumType::kDecimal) {
    return Value::Decimal(bson::DecimalPow(bson::Decimal128::FromBson(base.AsDecimal()),
                                           bson::Decimal128::FromBson(exp.AsDecimal()))
                              .ToBson());
  }
  if (bt == NumType::kDouble || et == NumType::kDouble) {
    return Value::Double(std::pow(base.AsDouble(), exp.AsDouble()));
  }
  int64_t b, e;
  base.AsInt64Exact(&b);
  exp.AsInt64Exact(&e);
  if (e < 0) {
    // Integral results only for bases 1 and -1; otherwise a double.
    if (b == 1) return bt == NumType::kInt && et == NumType::kInt ? Value::Int(1) : Value::Long(1);
    if (b == -1) {
      int64_t r = (e % 2 == 0) ? 1 : -1;
      return bt == NumType::kInt && et == NumType::kInt ? Value::Int(static_cast<int32_t>(r))
                                                        : Value::Long(r);
    }
    return Value::Double(std::pow(static_cast<double>(b), static_cast<double>(e)));
  }
  int64_t result = 1;
  bool overflow = false;
  for (int64_t i = 0; i < e && !overflow; ++i) {
    overflow = __builtin_mul_overflow(result, b, &result);
    if (b == 0 || b == 1) break;
    if (b == -1) {
      result = (e % 2 == 0) ? 1 : -1;
      break;
    }
  }
  if (b == 0) result = e == 0 ? 1 : 0;
  if (overflow) return Value::Double(std::pow(static_cast<double>(b), static_cast<double>(e)));
  if (bt == NumType::kInt && et == NumType::kInt) return Value::IntegralLong(result);
  return Value::Long(result);
}

// $round / $trunc: [number, place?], place an integral in [-20, 100]. The
// checks run in MongoDB's order (evaluateRoundOrTrunc): number null -> null,
// number not numeric -> 51081, place null -> null, place not a number ->
// 16004, not integral -> 51082, out of range -> 51083; an int or long whose
// rounding leaves int64 -> 51080.
StatusWith<ExpressionPtr> ParseRounding(std::string_view name, const bson_iter_t* operand,
                                        ParseContext* ctx, RoundMode mode) {
  std::string op(name);
  return ParseNary(
      name, operand, ctx, 1, 2, [op, mode](std::vector<Value>& args) -> StatusWith<Value> {
        const Value& n = args[0];
        if (n.nullish()) return Value::Null();
        if (!n.numeric()) return Error(51081, NumericOnlyMessage(op, n));
        int64_t place = 0;
        if (args.size() == 2) {
          const Value& p = args[1];
          if (p.nullish()) return Value::Null();
          if (!p.numeric()) {
            return Error(16004, "can't convert from BSON type " + p.TypeName() + " to long");
          }
          if (!p.AsInt64Exact(&place)) {
            return Error(51082, "precision argument to  " + op + " must be a integral value");
          }
          if (place < -20 || place > 100) {
            return Error(51083, "cannot apply " + op + " with precision value " +
                                    std::to_string(place) + " value must be in [-20, 100]");
          }
        }
        Value rounded = RoundNumber(n, static_cast<int>(place), mode);
        const bool integral_input =
            n.type() == BSON_TYPE_INT32 || n.type() == BSON_TYPE_INT64;
        if (integral_input && rounded.type() == BSON_TYPE_DOUBLE) {
          int64_t input = 0;
          n.AsInt64Exact(&input);
          return Error(51080, "invalid conversion from Decimal128 result in " + op +
                                  " resulting from arguments: [" + std::to_string(input) + ", " +
                                  std::to_string(place) + "]");
        }
        return rounded;
      });
}

}  // namespace

StatusWith<ExpressionPtr> ParseArithmetic(std::string_view name, const bson_iter_t* operand,
                                          ParseContext* ctx) {
  if (name == "$add") return ParseNary(name, operand, ctx, 0, -1, Add);
  if (name == "$subtract") return ParseNary(name, operand, ctx, 2, 2, Subtract);
  if (name == "$multiply") return ParseNary(name, operand, ctx, 0, -1, Multiply);
  if (name == "$divide") return ParseNary(name, operand, ctx, 2, 2, Divide);
  if (name == "$mod") return ParseNary(name, operand, ctx, 2, 2, Mod);
  if (name == "$pow") return ParseNary(name, operand, ctx, 2, 2, Pow);
  if (name == "$log") return ParseNary(name, operand, ctx, 2, 2, Log);
  if (name == "$abs") return ParseUnary(name, operand, ctx, Abs);
  if (name == "$ceil") return ParseUnary(name, operand, ctx, Ceil);
  if (name == "$floor") return ParseUnary(name, operand, ctx, Floor);
  if (name == "$sqrt") return ParseUnary(name, operand, ctx, Sqrt);
  if (name == "$exp") return ParseUnary(name, operand, ctx, Exp);
  if (name == "$ln") return ParseUnary(name, operand, ctx, Ln);
  if (name == "$log10") return ParseUnary(name, operand, ctx, Log10);
  if (name == "$round") return ParseRounding(name, operand, ctx, RoundMode::kHalfEven);
  return ParseRounding(name, operand, ctx, RoundMode::kTrunc);  // $trunc
}

}  // namespace tigerdoc::agg
