// String operators: $concat $substr $substrBytes $substrCP $toLower
// $toUpper $strLenBytes $strLenCP $split $trim $ltrim $rtrim $indexOfBytes
// $indexOfCP $replaceOne $replaceAll $strcasecmp.

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>

#include "engine/agg/expressions/date_util.h"
#include "engine/agg/expressions/operator_table.h"
#include "engine/agg/expressions/string_util.h"

namespace tigerdoc::agg {

StatusWith<std::string> CoerceToString(const Value& v) {
  switch (v.type()) {
    case BSON_TYPE_EOD:
    case BSON_TYPE_NULL:
    case BSON_TYPE_UNDEFINED: return std::string();
    case BSON_TYPE_UTF8: return std::string(v.str());
    case BSON_TYPE_SYMBOL: return std::string(v.get()->value.v_symbol.symbol, v.get()->value.v_symbol.len);
    case BSON_TYPE_CODE: return std::string(v.get()->value.v_code.code, v.get()->value.v_code.code_len);
    case BSON_TYPE_INT32: return std::to_string(v.get()->value.v_int32);
    case BSON_TYPE_INT64: return std::to_string(v.get()->value.v_int64);
    case BSON_TYPE_DOUBLE: {
      double d = v.get()->value.v_double;
      if (std::isnan(d)) return std::string("NaN");
      if (std::isinf(d)) return std::string(d > 0 ? "inf" : "-inf");
      char buf[64];
      auto r = std::to_chars(buf, buf + sizeof(buf), d);
      return std::string(buf, r.ptr);
    }
    case BSON_TYPE_DECIMAL128: {
      char buf[BSON_DECIMAL128_STRING];
      bson_decimal128_to_string(&v.get()->value.v_decimal128, buf);
      return std::string(buf);
    }
    case BSON_TYPE_DATE_TIME: return FormatIsoUtc(v.date());
    case BSON_TYPE_TIMESTAMP:
      return "Timestamp(" + std::to_string(v.get()->value.v_timestamp.timestamp) + ", " +
             std::to_string(v.get()->value.v_timestamp.increment) + ")";
    default:
      return Error(16007, "can't convert from BSON type " + v.TypeName() + " to String");
  }
}

bool IsUtf8Continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

std::vector<size_t> CodePointOffsets(std::string_view s) {
  std::vector<size_t> out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (!IsUtf8Continuation(static_cast<unsigned char>(s[i]))) out.push_back(i);
  }
  out.push_back(s.size());
  return out;
}

std::vector<uint32_t> DecodeUtf8(std::string_view s) {
  std::vector<uint32_t> out;
  for (size_t i = 0; i < s.size();) {
    unsigned char c = s[i];
    uint32_t cp;
    int n;
    if (c < 0x80) { cp = c; n = 1; }
    else if ((c >> 5) == 6) { cp = c & 0x1F; n = 2; }
    else if ((c >> 4) == 14) { cp = c & 0x0F; n = 3; }
    else { cp = c & 0x07; n = 4; }
    for (int k = 1; k < n && i + k < s.size(); ++k) cp = (cp << 6) | (s[i + k] & 0x3F);
    out.push_back(cp);
    i += n;
  }
  return out;
}

namespace {

// Integral argument check shared by the substring operators.
bool AsInt(const Value& v, int64_t* out) { return v.numeric() && v.AsInt64Exact(out); }

StatusWith<Value> SubstrBytes(std::string_view op, std::vector<Value>& a) {
  ASSIGN_OR_RETURN(std::string s, CoerceToString(a[0]));
  if (!a[1].numeric()) {
    return Error(16034, std::string(op) + ":  starting index must be a numeric type (is BSON type " +
                            a[1].TypeName() + ")");
  }
  if (!a[2].numeric()) {
    return Error(16035, std::string(op) + ":  length must be a numeric type (is BSON type " +
                            a[2].TypeName() + ")");
  }
  double start_d = std::trunc(a[1].AsDouble());
  double len_d = std::trunc(a[2].AsDouble());
  if (start_d < 0) {
    return Error(50752, std::string(op) + ":  starting index must be non-negative (got: " +
                            std::to_string(static_cast<int64_t>(start_d)) + ")");
  }
  size_t start = start_d >= static_cast<double>(s.size()) ? s.size() : static_cast<size_t>(start_d);
  if (start >= s.size()) return Value::String("");
  size_t len = (len_d < 0 || len_d > static_cast<double>(s.size())) ? s.size()
                                                                    : static_cast<size_t>(len_d);
  if (IsUtf8Continuation(static_cast<unsigned char>(s[start]))) {
    return Error(28656, std::string(op) +
                            ":  Invalid range, starting index is a UTF-8 continuation byte.");
  }
  size_t end = std::min(s.size(), start + len);
  if (end < s.size() && IsUtf8Continuation(static_cast<unsigned char>(s[end]))) {
    return Error(28657,
                 std::string(op) + ":  Invalid range, ending index is in the middle of a UTF-8 character.");
  }
  return Value::String(std::string_view(s).substr(start, end - start));
}

StatusWith<Value> SubstrCP(std::vector<Value>& a) {
  ASSIGN_OR_RETURN(std::string s, CoerceToString(a[0]));
  int64_t start, len;
  if (!a[1].numeric()) {
    return Error(34450, "$substrCP: starting index must be a numeric type (is BSON type " +
                            a[1].TypeName() + ")");
  }
  if (!AsInt(a[1], &start) || start > INT32_MAX || start < INT32_MIN) {
    return Error(34451, "$substrCP: starting index cannot be represented as a 32-bit integral value: " +
                            a[1].ToString());
  }
  if (!a[2].numeric()) {
    return Error(34452, "$substrCP: length must be a numeric type (is BSON type " +
                            a[2].TypeName() + ")");
  }
  if (!AsInt(a[2], &len) || len > INT32_MAX || len < INT32_MIN) {
    return Error(34453, "$substrCP: length cannot be represented as a 32-bit integral value: " +
                            a[2].ToString());
  }
  if (start < 0) return Error(34455, "$substrCP: the starting index must be nonnegative integer.");
  if (len < 0) return Error(34454, "$substrCP: length must be a nonnegative integer.");
  std::vector<size_t> offs = CodePointOffsets(s);
  size_t cps = offs.size() - 1;
  if (static_cast<size_t>(start) >= cps) return Value::String("");
  size_t end_cp = std::min(cps, static_cast<size_t>(start + len));
  return Value::String(std::string_view(s).substr(offs[start], offs[end_cp] - offs[start]));
}

bool IsDefaultTrimCodePoint(uint32_t c) {
  switch (c) {
    case 0x00: case 0x20: case 0x09: case 0x0A: case 0x0B: case 0x0C: case 0x0D:
    case 0xA0: case 0x1680: case 0x2028: case 0x2029: case 0x202F: case 0x205F: case 0x3000:
      return true;
    default: return c >= 0x2000 && c <= 0x200A;
  }
}

// $trim / $ltrim / $rtrim.
class TrimExpression : public Expression {
 public:
  TrimExpression(std::string op, bool left, bool right, ExpressionPtr input, ExpressionPtr chars)
      : op_(std::move(op)), left_(left), right_(right), input_(std::move(input)),
        chars_(std::move(chars)) {}
  StatusWith<Value> Evaluate(Variables* vars) const override {
    ASSIGN_OR_RETURN(Value in, input_->Evaluate(vars));
    if (in.nullish()) return Value::Null();
    if (!in.is_string()) {
      return Error(50699, op_ + " requires its input to be a string, got " + in.ToString() +
                              " (of type " + in.TypeName() + ") instead.");
    }
    std::vector<uint32_t> set;
    bool use_default = true;
    if (chars_) {
      ASSIGN_OR_RETURN(Value c, chars_->Evaluate(vars));
      if (c.nullish()) return Value::Null();
      if (!c.is_string()) {
        return Error(50700, op_ + " requires 'chars' to be a string, got " + c.ToString() +
                                " (of type " + c.TypeName() + ") instead.");
      }
      set = DecodeUtf8(c.str());
      use_default = false;
    }
    std::string_view s = in.str();
    std::vector<size_t> offs = CodePointOffsets(s);
    std::vector<uint32_t> cps = DecodeUtf8(s);
    auto trimmed = [&](uint32_t cp) {
      if (use_default) return IsDefaultTrimCodePoint(cp);
      return std::find(set.begin(), set.end(), cp) != set.end();
    };
    size_t b = 0, e = cps.size();
    if (left_) {
      while (b < e && trimmed(cps[b])) ++b;
    }
    if (right_) {
      while (e > b && trimmed(cps[e - 1])) --e;
    }
    return Value::String(s.substr(offs[b], offs[e] - offs[b]));
  }

 private:
  std::string op_;
  bool left_, right_;
  ExpressionPtr input_, chars_;
};

StatusWith<ExpressionPtr> ParseTrim(std::string_view name, const bson_iter_t* operand,
                                    ParseContext* ctx) {
  std::string op(name);
  if (!BSON_ITER_HOLDS_DOCUMENT(operand)) {
    return Error(50696, op + " only supports an object as an argument, found: " +
                            TypeNameOf(bson_iter_type(operand)));
  }
  bson_iter_t it;
  bson_iter_recurse(operand, &it);
  ExpressionPtr input, chars;
  while (bson_iter_next(&it)) {
    std::string key = bson_iter_key(&it);
    if (key == "input") {
      ASSIGN_OR_RETURN(input, ParseOperand(&it, ctx));
    } else if (key == "chars") {
      ASSIGN_OR_RETURN(chars, ParseOperand(&it, ctx));
    } else {
      return Error(50694, op + " found an unknown argument: " + key);
    }
  }
  if (!input) return Error(50695, op + " requires an 'input' field");
  return ExpressionPtr(std::make_unique<TrimExpression>(op, name != "$rtrim", name != "$ltrim",
                                                        std::move(input), std::move(chars)));
}

StatusWith<Value> IndexOf(std::string_view op, bool code_points, std::vector<Value>& a) {
  if (a[0].nullish()) return Value::Null();
  // $indexOfBytes: 40091/40092; $indexOfCP: 40093/40094 (MongoDB's codes).
  if (!a[0].is_string()) {
    return Error(code_points ? 40093 : 40091,
                 std::string(op) + " requires a string as the first argument, found: " +
                     a[0].TypeName());
  }
  if (!a[1].is_string()) {
    return Error(code_points ? 40094 : 40092,
                 std::string(op) + " requires a string as the second argument, found: " +
                     a[1].TypeName());
  }
  std::string_view s = a[0].str();
  std::vector<size_t> offs;
  size_t length = s.size();
  if (code_points) {
    offs = CodePointOffsets(s);
    length = offs.size() - 1;
  }
  int64_t bounds[2] = {0, static_cast<int64_t>(length)};
  for (size_t i = 2; i < a.size(); ++i) {
    const char* which = i == 2 ? "starting" : "ending";
    if (!a[i].numeric() || !AsInt(a[i], &bounds[i - 2])) {
      return Error(40096, std::string(op) + " requires an integral " + which +
                              " index, found a value of type: " + a[i].TypeName() +
                              ", with value: " + a[i].ToString());
    }
    if (bounds[i - 2] < 0) {
      return Error(40097, std::string(op) + " requires a nonnegative " + which +
                              " index, found: " + a[i].ToString());
    }
  }
  int64_t start = bounds[0], end = std::min<int64_t>(bounds[1], static_cast<int64_t>(length));
  if (start > static_cast<int64_t>(length) || start > end) return Value::Int(-1);
  std::string_view needle = a[1].str();
  size_t bstart = code_points ? offs[start] : static_cast<size_t>(start);
  size_t bend = code_points ? offs[end] : static_cast<size_t>(end);
  std::string_view hay = s.substr(bstart, bend - bstart);
  size_t pos = hay.find(needle);
  if (pos == std::string_view::npos) return Value::Int(-1);
  size_t abs = bstart + pos;
  if (!code_points) return Value::IntegralLong(static_cast<int64_t>(abs));
  auto it = std::lower_bound(offs.begin(), offs.end(), abs);
  return Value::IntegralLong(static_cast<int64_t>(it - offs.begin()));
}

StatusWith<ExpressionPtr> ParseReplace(std::string_view name, const bson_iter_t* operand,
                                       ParseContext* ctx) {
  std::string op(name);
  bool all = name == "$replaceAll";
  NamedArgsSpec spec{{"input", "find", "replacement"},
                     {"input", "find", "replacement"},
                     51751,
                     op + " requires an object as an argument, found: " +
                         TypeNameOf(bson_iter_type(operand)),
                     51750,
                     op + " found an unknown argument: %s",
                     51749,
                     op + " requires %s to be specified"};
  // MongoDB names the missing argument: "$replaceOne requires 'input' to be specified".
  spec.missing_message = op + " requires '%s' to be specified";
  return ParseNamed(operand, ctx, spec, [op, all](NamedValues& a) -> StatusWith<Value> {
    const Value& in = a["input"];
    const Value& find = a["find"];
    const Value& rep = a["replacement"];
    const std::pair<const Value*, std::pair<int, const char*>> checks[] = {
        {&in, {51746, "input"}}, {&find, {51745, "find"}}, {&rep, {51744, "replacement"}}};
    for (const auto& [v, info] : checks) {
      if (!v->nullish() && !v->is_string()) {
        return Error(info.first, op + " requires that '" + info.second +
                                     "' be a string, found: " + v->ToString());
      }
    }
    if (in.nullish() || find.nullish() || rep.nullish()) return Value::Null();
    std::string s(in.str());
    std::string_view f = find.str(), r = rep.str();
    std::string out;
    size_t pos = 0;
    while (true) {
      size_t hit = s.find(f, pos);
      if (hit == std::string::npos) break;
      out.append(s, pos, hit - pos);
      out.append(r);
      pos = hit + f.size();
      if (f.empty()) {
        // An empty 'find' matches before every code point and at the end.
        if (pos < s.size()) {
          size_t next = pos + 1;
          while (next < s.size() && IsUtf8Continuation(static_cast<unsigned char>(s[next]))) ++next;
          out.append(s, pos, next - pos);
          pos = next;
        } else {
          pos = s.size() + 1;
        }
      }
      if (!all || pos > s.size()) break;
    }
    if (pos <= s.size()) out.append(s, pos, std::string::npos);
    return Value::String(out);
  });
}

}  // namespace

StatusWith<ExpressionPtr> ParseStringOp(std::string_view name, const bson_iter_t* operand,
                                        ParseContext* ctx) {
  std::string op(name);
  if (name == "$concat") {
    return ParseNary(name, operand, ctx, 0, -1, [](std::vector<Value>& a) -> StatusWith<Value> {
      std::string out;
      for (const Value& v : a) {
        if (v.nullish()) return Value::Null();
        if (!v.is_string()) {
          return Error(16702, "$concat only supports strings, not " + v.TypeName());
        }
        out.append(v.str());
      }
      return Value::String(out);
    });
  }
  if (name == "$substr" || name == "$substrBytes") {
    return ParseNary(name, operand, ctx, 3, 3, [op](std::vector<Value>& a) {
      return SubstrBytes(op, a);
    });
  }
  if (name == "$substrCP") return ParseNary(name, operand, ctx, 3, 3, SubstrCP);
  if (name == "$toLower" || name == "$toUpper") {
    bool upper = name == "$toUpper";
    return ParseNary(name, operand, ctx, 1, 1, [upper](std::vector<Value>& a) -> StatusWith<Value> {
      ASSIGN_OR_RETURN(std::string s, CoerceToString(a[0]));
      for (char& c : s) {
        if (upper && c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
        if (!upper && c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
      }
      return Value::String(s);
    });
  }
  if (name == "$strLenBytes") {
    return ParseNary(name, operand, ctx, 1, 1, [](std::vector<Value>& a) -> StatusWith<Value> {
      if (!a[0].is_string()) {
        return Error(34473, "$strLenBytes requires a string argument, found: " + a[0].TypeName());
      }
      return Value::IntegralLong(static_cast<int64_t>(a[0].str().size()));
    });
  }
  if (name == "$strLenCP") {
    return ParseNary(name, operand, ctx, 1, 1, [](std::vector<Value>& a) -> StatusWith<Value> {
      if (!a[0].is_string()) {
        return Error(34471, "$strLenCP requires a string argument, found: " + a[0].TypeName());
      }
      return Value::IntegralLong(static_cast<int64_t>(CodePointOffsets(a[0].str()).size() - 1));
    });
  }
  if (name == "$split") {
    return ParseNary(name, operand, ctx, 2, 2, [](std::vector<Value>& a) -> StatusWith<Value> {
      if (a[0].nullish() || a[1].nullish()) return Value::Null();
      if (!a[0].is_string()) {
        return Error(40085, "$split requires an expression that evaluates to a string as a first "
                            "argument, found: " + a[0].TypeName());
      }
      if (!a[1].is_string()) {
        return Error(40086, "$split requires an expression that evaluates to a string as a second "
                            "argument, found: " + a[1].TypeName());
      }
      std::string_view s = a[0].str(), d = a[1].str();
      if (d.empty()) return Error(40087, "$split requires a non-empty separator");
      std::vector<Value> parts;
      size_t pos = 0;
      while (true) {
        size_t hit = s.find(d, pos);
        if (hit == std::string_view::npos) {
          parts.push_back(Value::String(s.substr(pos)));
          break;
        }
        parts.push_back(Value::String(s.substr(pos, hit - pos)));
        pos = hit + d.size();
      }
      return Value::Array(parts);
    });
  }
  if (name == "$trim" || name == "$ltrim" || name == "$rtrim") return ParseTrim(name, operand, ctx);
  if (name == "$indexOfBytes" || name == "$indexOfCP") {
    bool cp = name == "$indexOfCP";
    return ParseNary(name, operand, ctx, 2, 4, [op, cp](std::vector<Value>& a) {
      return IndexOf(op, cp, a);
    });
  }
  if (name == "$replaceOne" || name == "$replaceAll") return ParseReplace(name, operand, ctx);
  // $strcasecmp
  return ParseNary(name, operand, ctx, 2, 2, [](std::vector<Value>& a) -> StatusWith<Value> {
    ASSIGN_OR_RETURN(std::string x, CoerceToString(a[0]));
    ASSIGN_OR_RETURN(std::string y, CoerceToString(a[1]));
    for (auto* s : {&x, &y}) {
      for (char& c : *s) {
        if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
      }
    }
    int c = x.compare(y);
    return Value::Int(c < 0 ? -1 : (c > 0 ? 1 : 0));
  });
}

}  // namespace tigerdoc::agg
