// Trigonometric operators: $sin $cos $tan $asin $acos $atan $atan2 $sinh
// $cosh $tanh $asinh $acosh $atanh $degreesToRadians $radiansToDegrees.
// As MongoDB (expression_trigonometric.h): null or missing gives null, a
// non-number 28765 (51044/51045 for $atan2); int, long and double compute in
// double, decimal in decimal128 (Intel's library, as MongoDB); a NaN input is
// returned as it is; an input outside the function's domain is 50989
// "cannot apply $acos to -2, value must be in [-1,1]".

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "engine/agg/expressions/operator_table.h"
#include "engine/agg/numeric.h"
#include "engine/bson/decimal_math.h"

namespace tigerdoc::agg {
namespace {

using bson::Decimal128;
using bson::DecimalUnaryFn;

constexpr double kInf = std::numeric_limits<double>::infinity();

// The domain of a function: bounds inclusive ([ ]) or exclusive (( )).
struct Domain {
  double lower;
  double upper;
  bool inclusive;
};
constexpr Domain kUnbounded{-kInf, kInf, true};  // never refuses
constexpr Domain kFinite{-kInf, kInf, false};    // refuses the infinities
constexpr Domain kUnit{-1, 1, true};
constexpr Domain kAtLeastOne{1, kInf, true};

struct TrigFn {
  std::string_view name;
  double (*as_double)(double);
  DecimalUnaryFn as_decimal;
  Domain domain;
};

constexpr TrigFn kTrigFns[] = {
    {"$acos", std::acos, DecimalUnaryFn::kAcos, kUnit},
    {"$acosh", std::acosh, DecimalUnaryFn::kAcosh, kAtLeastOne},
    {"$asin", std::asin, DecimalUnaryFn::kAsin, kUnit},
    {"$asinh", std::asinh, DecimalUnaryFn::kAsinh, kUnbounded},
    {"$atan", std::atan, DecimalUnaryFn::kAtan, kUnbounded},
    {"$atanh", std::atanh, DecimalUnaryFn::kAtanh, kUnit},
    {"$cos", std::cos, DecimalUnaryFn::kCos, kFinite},
    {"$cosh", std::cosh, DecimalUnaryFn::kCosh, kUnbounded},
    {"$sin", std::sin, DecimalUnaryFn::kSin, kFinite},
    {"$sinh", std::sinh, DecimalUnaryFn::kSinh, kUnbounded},
    {"$tan", std::tan, DecimalUnaryFn::kTan, kFinite},
    {"$tanh", std::tanh, DecimalUnaryFn::kTanh, kUnbounded},
};

// MongoDB writes doubles in these messages with printf's %g ("-2", "inf").
std::string DoubleText(double d) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%g", d);
  return buf;
}

bool InDomain(double x, const Domain& d) {
  return d.inclusive ? (x >= d.lower && x <= d.upper) : (x > d.lower && x < d.upper);
}
bool InDomain(const Decimal128& x, const Domain& d) {
  // The bounds are integers or infinities, exact in decimal too.
  const Decimal128 lower = Decimal128::FromBson(DecimalFromDouble(d.lower, 34));
  const Decimal128 upper = Decimal128::FromBson(DecimalFromDouble(d.upper, 34));
  return d.inclusive ? (x >= lower && x <= upper) : (x > lower && x < upper);
}

Status OutOfDomain(std::string_view name, const std::string& input, const Domain& d) {
  return Error(50989, "cannot apply " + std::string(name) + " to " + input +
                          ", value must be in " + (d.inclusive ? "[" : "(") +
                          DoubleText(d.lower) + "," + DoubleText(d.upper) +
                          (d.inclusive ? "]" : ")"));
}

StatusWith<Value> ApplyTrig(const TrigFn& fn, const Value& v) {
  if (v.type() == BSON_TYPE_DECIMAL128) {
    const Decimal128 x = Decimal128::FromBson(v.AsDecimal());
    if (x.IsNaN()) return v;
    if (!InDomain(x, fn.domain)) return OutOfDomain(fn.name, DecimalToString(v.AsDecimal()), fn.domain);
    return Value::Decimal(bson::DecimalApply(fn.as_decimal, x).ToBson());
  }
  const double x = v.AsDouble();
  if (std::isnan(x)) return v;
  if (!InDomain(x, fn.domain)) return OutOfDomain(fn.name, DoubleText(x), fn.domain);
  return Value::Double(fn.as_double(x));
}

StatusWith<Value> Atan2(std::vector<Value>& args) {
  const Value& y = args[0];
  const Value& x = args[1];
  // MongoDB checks the arguments in order: a non-number first argument
  // fails even when the second is null.
  if (y.nullish()) return Value::Null();
  if (!y.numeric()) return Error(51044, NumericOnlyMessage("$atan2", y));
  if (x.nullish()) return Value::Null();
  if (!x.numeric()) return Error(51045, NumericOnlyMessage("$atan2", x));
  if (y.type() == BSON_TYPE_DECIMAL128 || x.type() == BSON_TYPE_DECIMAL128) {
    return Value::Decimal(bson::DecimalAtan2(Decimal128::FromBson(y.AsDecimal()),
                                             Decimal128::FromBson(x.AsDecimal()))
                              .ToBson());
  }
  return Value::Double(std::atan2(y.AsDouble(), x.AsDouble()));
}

// $degreesToRadians / $radiansToDegrees: a product by a constant, in the
// input's arithmetic (MongoDB's double constants are pi = 3.141592653589793
// over 180 and its inverse).
StatusWith<Value> ScaleAngle(const Value& v, bool to_radians) {
  if (v.type() == BSON_TYPE_DECIMAL128) {
    const Decimal128 factor = to_radians ? bson::DecimalPiOver180() : bson::Decimal180OverPi();
    return Value::Decimal((Decimal128::FromBson(v.AsDecimal()) * factor).ToBson());
  }
  constexpr double kPi = 3.141592653589793;
  return Value::Double(v.AsDouble() * (to_radians ? kPi / 180 : 180 / kPi));
}

StatusWith<ExpressionPtr> ParseSingleNumeric(std::string_view name, const bson_iter_t* operand,
                                             ParseContext* ctx,
                                             std::function<StatusWith<Value>(const Value&)> fn) {
  std::string op(name);
  return ParseNary(name, operand, ctx, 1, 1,
                   [op, fn = std::move(fn)](std::vector<Value>& args) -> StatusWith<Value> {
                     if (args[0].nullish()) return Value::Null();
                     if (!args[0].numeric()) return Error(28765, NumericOnlyMessage(op, args[0]));
                     return fn(args[0]);
                   });
}

}  // namespace

StatusWith<ExpressionPtr> ParseTrigonometric(std::string_view name, const bson_iter_t* operand,
                                             ParseContext* ctx) {
  if (name == "$atan2") return ParseNary(name, operand, ctx, 2, 2, Atan2);
  if (name == "$degreesToRadians" || name == "$radiansToDegrees") {
    const bool to_radians = name == "$degreesToRadians";
    return ParseSingleNumeric(name, operand, ctx,
                              [to_radians](const Value& v) { return ScaleAngle(v, to_radians); });
  }
  for (const TrigFn& fn : kTrigFns) {
    if (fn.name == name) {
      return ParseSingleNumeric(name, operand, ctx,
                                [&fn](const Value& v) { return ApplyTrig(fn, v); });
    }
  }
  return Status(ErrorCode::kInternalError, "not a trigonometric operator: " + std::string(name));
}

}  // namespace tigerdoc::agg
