#include "engine/query/matcher/element.h"

#include <cmath>
#include <cstdio>
#include <cstring>

namespace tigerdoc::query {
namespace {

struct TypeAlias {
  const char* name;
  int code;
};

// MongoDB's $type aliases (kTypeAliasMap); "number" is handled apart.
constexpr TypeAlias kTypeAliases[] = {
    {"double", 1},     {"string", 2},     {"object", 3},      {"array", 4},
    {"binData", 5},    {"undefined", 6},  {"objectId", 7},    {"bool", 8},
    {"date", 9},       {"null", 10},      {"regex", 11},      {"dbPointer", 12},
    {"javascript", 13}, {"symbol", 14},   {"javascriptWithScope", 15},
    {"int", 16},       {"timestamp", 17}, {"long", 18},       {"decimal", 19},
    {"minKey", -1},    {"maxKey", 127},
};

bool IsValidTypeCode(int64_t code) { return code == -1 || code == 127 || (code >= 1 && code <= 19); }

std::string FormatNumber(double d) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%g", d);
  return buf;
}

Status ParseOneType(const bson_iter_t* it, std::vector<int>* types, bool* all_numbers) {
  if (BSON_ITER_HOLDS_UTF8(it)) {
    const char* alias = bson_iter_utf8(it, nullptr);
    if (std::strcmp(alias, "number") == 0) {
      *all_numbers = true;
      return Status::OK();
    }
    for (const TypeAlias& a : kTypeAliases) {
      if (std::strcmp(alias, a.name) == 0) {
        types->push_back(a.code);
        return Status::OK();
      }
    }
    if (std::strcmp(alias, "missing") == 0) {
      // "missing" is what the $type aggregation expression returns, never a
      // type to match.
      return Status(ErrorCode::kBadValue,
                    "'missing' is not a legal type name. To query for non-existence of a field, "
                    "use {$exists:false}.");
    }
    return Status(ErrorCode::kBadValue, std::string("Unknown type name alias: ") + alias);
  }
  if (!BSON_ITER_HOLDS_NUMBER(it) && !BSON_ITER_HOLDS_DECIMAL128(it)) {
    return Status(ErrorCode::kTypeMismatch, "type must be represented as a number or a string");
  }
  double number = 0;
  bool integral = true;
  int64_t code = 0;
  switch (bson_iter_type(it)) {
    case BSON_TYPE_INT32: code = bson_iter_int32(it); number = static_cast<double>(code); break;
    case BSON_TYPE_INT64: code = bson_iter_int64(it); number = static_cast<double>(code); break;
    case BSON_TYPE_DOUBLE:
      number = bson_iter_double(it);
      integral = std::isfinite(number) && std::trunc(number) == number &&
                 std::fabs(number) < 2147483648.0;
      code = integral ? static_cast<int64_t>(number) : 0;
      break;
    default: {  // decimal128: accept only small integers written plainly
      bson_decimal128_t d;
      bson_iter_decimal128(it, &d);
      char buf[BSON_DECIMAL128_STRING];
      bson_decimal128_to_string(&d, buf);
      char* end = nullptr;
      number = std::strtod(buf, &end);
      integral = std::isfinite(number) && std::trunc(number) == number;
      code = integral ? static_cast<int64_t>(number) : 0;
    }
  }
  if (integral && code == 0) {
    return Status(ErrorCode::kBadValue, "Invalid numerical type code: " + FormatNumber(number) +
                                            ". Instead use {$exists:false}.");
  }
  if (!integral || !IsValidTypeCode(code)) {
    return Status(ErrorCode::kBadValue, "Invalid numerical type code: " + FormatNumber(number));
  }
  types->push_back(static_cast<int>(code));
  return Status::OK();
}

}  // namespace

StatusWith<std::unique_ptr<TypeExpression>> TypeExpression::Parse(std::string path,
                                                                  const bson_iter_t* operand) {
  std::vector<int> types;
  bool all_numbers = false;
  if (BSON_ITER_HOLDS_ARRAY(operand)) {
    bson_iter_t elements;
    bson_iter_recurse(operand, &elements);
    while (bson_iter_next(&elements)) {
      RETURN_IF_ERROR(ParseOneType(&elements, &types, &all_numbers));
    }
    if (types.empty() && !all_numbers) {
      return Status(ErrorCode::kFailedToParse, path + " must match at least one type");
    }
  } else {
    RETURN_IF_ERROR(ParseOneType(operand, &types, &all_numbers));
  }
  return std::make_unique<TypeExpression>(std::move(path), std::move(types), all_numbers);
}

bool TypeExpression::MatchesValue(const bson_iter_t* value) const {
  if (value == nullptr) return false;
  const bson_type_t t = bson_iter_type(value);
  if (all_numbers_ && (t == BSON_TYPE_INT32 || t == BSON_TYPE_INT64 || t == BSON_TYPE_DOUBLE ||
                       t == BSON_TYPE_DECIMAL128)) {
    return true;
  }
  // libbson's MinKey/MaxKey are 0xFF/0x7F; MongoDB's codes are -1/127.
  const int code = t == BSON_TYPE_MINKEY ? -1 : static_cast<int>(t);
  for (int wanted : types_) {
    if (wanted == code) return true;
  }
  return false;
}

}  // namespace tigerdoc::query
