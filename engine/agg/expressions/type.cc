// Type operators: $type $isNumber $convert and its shorthands $toBool
// $toDate $toDecimal $toDouble $toInt $toLong $toObjectId $toString.
// Conversion failures are ConversionFailure (241) unless `onError` is given;
// null or missing input gives `onNull` (default null).

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "engine/agg/expressions/date_util.h"
#include "engine/agg/expressions/operator_table.h"
#include "engine/agg/numeric.h"

namespace tigerdoc::agg {
namespace {

constexpr std::string_view kNoOnError = " in $convert with no onError value";

Status Unsupported(const Value& in, bson_type_t to) {
  return Error(241, "Unsupported conversion from " + in.TypeName() + " to " + TypeNameOf(to) +
                        std::string(kNoOnError));
}

Status ParseFailure(std::string_view s, std::string_view why) {
  return Error(241, "Failed to parse number '" + std::string(s) + "'" + std::string(kNoOnError) +
                        ": " + std::string(why));
}

std::string DoubleToString(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof(buf), d);
  return std::string(buf, r.ptr);
}

// Parses a whole string as a base-10 number of the target type.
StatusWith<Value> StringToNumber(std::string_view s, bson_type_t to) {
  if (s.empty()) return ParseFailure(s, "No digits");
  if (to == BSON_TYPE_INT32 || to == BSON_TYPE_INT64) {
    int64_t v = 0;
    auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    if (r.ec == std::errc::result_out_of_range) return ParseFailure(s, "Overflow");
    if (r.ec != std::errc() || r.ptr != s.data() + s.size()) {
      return ParseFailure(s, "Did not consume whole string.");
    }
    if (to == BSON_TYPE_INT32) {
      if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) {
        return ParseFailure(s, "Overflow");
      }
      return Value::Int(static_cast<int32_t>(v));
    }
    return Value::Long(v);
  }
  if (to == BSON_TYPE_DOUBLE) {
    std::string t(s);
    if (t == "Infinity" || t == "inf") return Value::Double(HUGE_VAL);
    if (t == "-Infinity" || t == "-inf") return Value::Double(-HUGE_VAL);
    if (t == "NaN" || t == "nan") return Value::Double(std::nan(""));
    double d = 0;
    auto r = std::from_chars(t.data(), t.data() + t.size(), d);
    if (r.ec == std::errc::result_out_of_range) return ParseFailure(s, "Out of range");
    if (r.ec != std::errc() || r.ptr != t.data() + t.size()) {
      return ParseFailure(s, "Did not consume whole string.");
    }
    return Value::Double(d);
  }
  bool ok;
  bson_decimal128_t d = DecimalFromString(std::string(s), &ok);
  if (!ok) return ParseFailure(s, "Failed to parse string to decimal");
  return Value::Decimal(d);
}

StatusWith<Value> ToIntegral(const Value& in, bson_type_t to) {
  const double lo = to == BSON_TYPE_INT32 ? -2147483648.0 : -9223372036854775808.0;
  const double hi = to == BSON_TYPE_INT32 ? 2147483648.0 : 9223372036854775808.0;
  auto make = [&](int64_t v) {
    return to == BSON_TYPE_INT32 ? Value::Int(static_cast<int32_t>(v)) : Value::Long(v);
  };
  switch (in.type()) {
    case BSON_TYPE_BOOL: return make(in.boolean() ? 1 : 0);
    case BSON_TYPE_INT32: return make(in.get()->value.v_int32);
    case BSON_TYPE_INT64: {
      int64_t v = in.get()->value.v_int64;
      if (to == BSON_TYPE_INT32 && (v < INT32_MIN || v > INT32_MAX)) {
        return Error(241, "Conversion would overflow target type" + std::string(kNoOnError));
      }
      return make(v);
    }
    case BSON_TYPE_DOUBLE:
    case BSON_TYPE_DECIMAL128: {
      double d = in.AsDouble();
      if (std::isnan(d) || std::isinf(d)) {
        return Error(241, "Attempt to convert " + std::string(std::isnan(d) ? "NaN" : "infinity") +
                              " value to integer type" + std::string(kNoOnError));
      }
      double t = std::trunc(d);
      if (t < lo || t >= hi) {
        return Error(241, "Conversion would overflow target type" + std::string(kNoOnError));
      }
      return make(static_cast<int64_t>(t));
    }
    case BSON_TYPE_DATE_TIME:
      if (to == BSON_TYPE_INT64) return Value::Long(in.date());
      return Unsupported(in, to);
    case BSON_TYPE_UTF8: return StringToNumber(in.str(), to);
    default: return Unsupported(in, to);
  }
}

StatusWith<Value> ConvertTo(const Value& in, bson_type_t to) {
  switch (to) {
    case BSON_TYPE_INT32:
    case BSON_TYPE_INT64: return ToIntegral(in, to);
    case BSON_TYPE_DOUBLE:
      switch (in.type()) {
        case BSON_TYPE_BOOL: return Value::Double(in.boolean() ? 1 : 0);
        case BSON_TYPE_INT32:
        case BSON_TYPE_INT64:
        case BSON_TYPE_DOUBLE: return Value::Double(in.AsDouble());
        case BSON_TYPE_DECIMAL128: {
          double d = in.AsDouble();
          if (std::isinf(d) && !DecimalIsInf(in.get()->value.v_decimal128)) {
            return Error(241, "Conversion would overflow target type" + std::string(kNoOnError));
          }
          return Value::Double(d);
        }
        case BSON_TYPE_DATE_TIME: return Value::Double(static_cast<double>(in.date()));
        case BSON_TYPE_UTF8: return StringToNumber(in.str(), to);
        default: return Unsupported(in, to);
      }
    case BSON_TYPE_DECIMAL128:
      switch (in.type()) {
        case BSON_TYPE_BOOL: return Value::Decimal(Value::Int(in.boolean() ? 1 : 0).AsDecimal());
        case BSON_TYPE_INT32:
        case BSON_TYPE_INT64:
        case BSON_TYPE_DECIMAL128: return Value::Decimal(in.AsDecimal());
        case BSON_TYPE_DOUBLE:
          // MongoDB converts doubles to decimal with 15 significant digits.
          return Value::Decimal(DecimalFromDouble(in.get()->value.v_double, 15));
        case BSON_TYPE_DATE_TIME: return Value::Decimal(Value::Long(in.date()).AsDecimal());
        case BSON_TYPE_UTF8: return StringToNumber(in.str(), to);
        default: return Unsupported(in, to);
      }
    case BSON_TYPE_BOOL:
      switch (in.type()) {
        case BSON_TYPE_BOOL:
        case BSON_TYPE_INT32:
        case BSON_TYPE_INT64:
        case BSON_TYPE_DOUBLE:
        case BSON_TYPE_DECIMAL128: return Value::Bool(in.Truthy());
        case BSON_TYPE_MINKEY:
        case BSON_TYPE_MAXKEY: return Unsupported(in, to);  // not in MongoDB's table
        default: return Value::Bool(true);
      }
    case BSON_TYPE_UTF8:
      switch (in.type()) {
        case BSON_TYPE_UTF8: return in;
        case BSON_TYPE_BOOL: return Value::String(in.boolean() ? "true" : "false");
        case BSON_TYPE_INT32: return Value::String(std::to_string(in.get()->value.v_int32));
        case BSON_TYPE_INT64: return Value::String(std::to_string(in.get()->value.v_int64));
        case BSON_TYPE_DOUBLE: return Value::String(DoubleToString(in.get()->value.v_double));
        case BSON_TYPE_DECIMAL128:
          return Value::String(DecimalToString(in.get()->value.v_decimal128));
        case BSON_TYPE_OID: {
          char hex[25];
          bson_oid_to_string(&in.get()->value.v_oid, hex);
          return Value::String(hex);
        }
        case BSON_TYPE_DATE_TIME: return Value::String(FormatIsoUtc(in.date()));
        default: return Unsupported(in, to);
      }
    case BSON_TYPE_OID:
      switch (in.type()) {
        case BSON_TYPE_OID: return in;
        case BSON_TYPE_UTF8: {
          std::string s(in.str());
          if (s.size() != 24 || !bson_oid_is_valid(s.c_str(), s.size())) {
            return Error(241, "Failed to parse objectId '" + s + "'" + std::string(kNoOnError) +
                                  ": Invalid string length for parsing to OID, expected 24 but "
                                  "found " +
                                  std::to_string(s.size()));
          }
          bson_oid_t oid;
          bson_oid_init_from_string(&oid, s.c_str());
          return Value::Oid(oid);
        }
        default: return Unsupported(in, to);
      }
    case BSON_TYPE_DATE_TIME:
      switch (in.type()) {
        case BSON_TYPE_DATE_TIME: return in;
        case BSON_TYPE_INT64: return Value::Date(in.get()->value.v_int64);
        case BSON_TYPE_DOUBLE:
        case BSON_TYPE_DECIMAL128: {
          double d = in.AsDouble();
          if (!std::isfinite(d) || d < -9.2e18 || d > 9.2e18) {
            return Error(241, "Conversion would overflow target type" + std::string(kNoOnError));
          }
          return Value::Date(static_cast<int64_t>(std::trunc(d)));
        }
        case BSON_TYPE_OID:
          return Value::Date(static_cast<int64_t>(bson_oid_get_time_t(&in.get()->value.v_oid)) * 1000);
        case BSON_TYPE_TIMESTAMP:
          return Value::Date(static_cast<int64_t>(in.get()->value.v_timestamp.timestamp) * 1000);
        case BSON_TYPE_UTF8: {
          auto parsed = ParseDateString(in.str(), TimeZone());
          if (!parsed.ok()) return Error(241, parsed.status().reason() + std::string(kNoOnError));
          return Value::Date(parsed.value());
        }
        default: return Unsupported(in, to);
      }
    default: return Unsupported(in, to);
  }
}

// MongoDB's computeTargetType: any BSON type's name (and "missing", a $type
// result) or code is a target; a pair ConvertTo cannot convert is then a
// ConversionFailure (241), which onError catches. A bad `to` is not.
StatusWith<bson_type_t> TargetType(const Value& to) {
  static const bson_type_t kTypes[] = {
      BSON_TYPE_DOUBLE,    BSON_TYPE_UTF8,      BSON_TYPE_DOCUMENT,   BSON_TYPE_ARRAY,
      BSON_TYPE_BINARY,    BSON_TYPE_UNDEFINED, BSON_TYPE_OID,        BSON_TYPE_BOOL,
      BSON_TYPE_DATE_TIME, BSON_TYPE_NULL,      BSON_TYPE_REGEX,      BSON_TYPE_DBPOINTER,
      BSON_TYPE_CODE,      BSON_TYPE_SYMBOL,    BSON_TYPE_CODEWSCOPE, BSON_TYPE_INT32,
      BSON_TYPE_TIMESTAMP, BSON_TYPE_INT64,     BSON_TYPE_DECIMAL128, BSON_TYPE_MINKEY,
      BSON_TYPE_MAXKEY};
  if (to.is_string()) {
    if (to.str() == "missing") return BSON_TYPE_EOD;
    for (bson_type_t t : kTypes) {
      if (to.str() == TypeNameOf(t)) return t;
    }
    return Error(2, "Unknown type name: " + std::string(to.str()));
  }
  if (to.numeric()) {
    int64_t code;
    if (!to.AsInt64Exact(&code) || code < INT32_MIN || code > INT32_MAX) {
      return Error(9, "In $convert, numeric 'to' argument is not an integer");
    }
    if (code == 0) return BSON_TYPE_EOD;
    for (bson_type_t t : kTypes) {
      if (static_cast<int8_t>(t) == code) {  // minKey is -1
        return t;
      }
    }
    return Error(9, "In $convert, numeric value for 'to' does not correspond to a BSON type: " +
                        std::to_string(code));
  }
  return Error(9, "$convert's 'to' argument must be a string or number, but is " + to.TypeName());
}

class ConvertExpression : public Expression {
 public:
  ConvertExpression(ExpressionPtr input, ExpressionPtr to, ExpressionPtr on_error,
                    ExpressionPtr on_null)
      : input_(std::move(input)), to_(std::move(to)), on_error_(std::move(on_error)),
        on_null_(std::move(on_null)) {}
  StatusWith<Value> Evaluate(Variables* vars) const override {
    ASSIGN_OR_RETURN(Value to, to_->Evaluate(vars));
    ASSIGN_OR_RETURN(Value in, input_->Evaluate(vars));
    // As MongoDB: a bad `to` fails even for a null input.
    bson_type_t target = BSON_TYPE_EOD;
    if (!to.nullish()) {
      ASSIGN_OR_RETURN(target, TargetType(to));
    }
    if (in.nullish()) return on_null_ ? on_null_->Evaluate(vars) : StatusWith<Value>(Value::Null());
    if (to.nullish()) return Value::Null();
    auto out = ConvertTo(in, target);
    if (!out.ok() && on_error_ && out.status().code_number() == 241) return on_error_->Evaluate(vars);
    return out;
  }

 private:
  ExpressionPtr input_, to_, on_error_, on_null_;
};

StatusWith<ExpressionPtr> ParseConvert(const bson_iter_t* operand, ParseContext* ctx) {
  if (!BSON_ITER_HOLDS_DOCUMENT(operand)) {
    return Error(9, "$convert expects an object of named arguments but found: " +
                        TypeNameOf(bson_iter_type(operand)));
  }
  bson_iter_t it;
  bson_iter_recurse(operand, &it);
  ExpressionPtr input, to, on_error, on_null;
  while (bson_iter_next(&it)) {
    std::string key = bson_iter_key(&it);
    ExpressionPtr* slot = key == "input"     ? &input
                          : key == "to"      ? &to
                          : key == "onError" ? &on_error
                          : key == "onNull"  ? &on_null
                                             : nullptr;
    if (slot == nullptr) return Error(9, "$convert found an unknown argument: " + key);
    ASSIGN_OR_RETURN(*slot, ParseOperand(&it, ctx));
  }
  if (!input) return Error(9, "Missing 'input' parameter to $convert");
  if (!to) return Error(9, "Missing 'to' parameter to $convert");
  return ExpressionPtr(std::make_unique<ConvertExpression>(std::move(input), std::move(to),
                                                           std::move(on_error), std::move(on_null)));
}

}  // namespace

StatusWith<ExpressionPtr> ParseTypeOp(std::string_view name, const bson_iter_t* operand,
                                      ParseContext* ctx) {
  if (name == "$convert") return ParseConvert(operand, ctx);
  if (name == "$type") {
    return ParseNary(name, operand, ctx, 1, 1, [](std::vector<Value>& a) -> StatusWith<Value> {
      return Value::String(a[0].TypeName());
    });
  }
  if (name == "$isNumber") {
    return ParseNary(name, operand, ctx, 1, 1, [](std::vector<Value>& a) -> StatusWith<Value> {
      return Value::Bool(a[0].numeric());
    });
  }
  bson_type_t to = name == "$toBool"       ? BSON_TYPE_BOOL
                   : name == "$toDate"     ? BSON_TYPE_DATE_TIME
                   : name == "$toDecimal"  ? BSON_TYPE_DECIMAL128
                   : name == "$toDouble"   ? BSON_TYPE_DOUBLE
                   : name == "$toInt"      ? BSON_TYPE_INT32
                   : name == "$toLong"     ? BSON_TYPE_INT64
                   : name == "$toObjectId" ? BSON_TYPE_OID
                                           : BSON_TYPE_UTF8;
  return ParseNary(name, operand, ctx, 1, 1, [to](std::vector<Value>& a) -> StatusWith<Value> {
    if (a[0].nullish()) return Value::Null();
    return ConvertTo(a[0], to);
  });
}

}  // namespace tigerdoc::agg
