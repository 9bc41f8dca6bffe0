#include "engine/query/matcher/evaluation.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

#include "engine/bson/decimal.h"
#include "engine/query/matcher/regex_compile.h"

namespace tigerdoc::query {

struct RegexExpression::Code {
  pcre2_code* code = nullptr;
  ~Code() { pcre2_code_free(code); }
};

RegexExpression::RegexExpression(std::string path, std::string pattern, std::string flags,
                                 std::shared_ptr<const Code> code)
    : PathMatchExpression(MatchKind::kRegex, std::move(path), bson::LeafArrays::kTraverse),
      pattern_(std::move(pattern)),
      flags_(std::move(flags)),
      code_(std::move(code)) {}

StatusWith<std::unique_ptr<RegexExpression>> RegexExpression::Make(std::string path,
                                                                   std::string pattern,
                                                                   std::string flags) {
  if (pattern.find('\0') != std::string::npos) {
    return Status(ErrorCode::kBadValue, "Regular expression cannot contain an embedded null byte");
  }
  if (flags.find('\0') != std::string::npos) {
    return Status(ErrorCode::kBadValue,
                  "Regular expression options string cannot contain an embedded null byte");
  }
  // MongoDB always matches in UTF-8 mode; PCRE2_MATCH_INVALID_UTF keeps a
  // stored string with bad UTF-8 from turning a match into an error.
  uint32_t options = PCRE2_UTF | PCRE2_MATCH_INVALID_UTF;
  for (char flag : flags) {
    switch (flag) {
      case 'i': options |= PCRE2_CASELESS; break;
      case 'm': options |= PCRE2_MULTILINE; break;
      case 's': options |= PCRE2_DOTALL; break;
      case 'x': options |= PCRE2_EXTENDED; break;
      case 'u': break;  // UTF-8 is always on
      default:
        return Status(static_cast<ErrorCode>(51108),
                      std::string("invalid flag in regex options: ") + flag);
    }
  }
  std::string message;
  pcre2_code* compiled = CompileRegex(pattern, options, &message);
  if (compiled == nullptr) {
    return Status(static_cast<ErrorCode>(51091), "Regular expression is invalid: " + message);
  }
  auto code = std::make_shared<Code>();
  code->code = compiled;
  return std::unique_ptr<RegexExpression>(
      new RegexExpression(std::move(path), std::move(pattern), std::move(flags), std::move(code)));
}

bool RegexExpression::MatchesString(const char* data, size_t len) const {
  pcre2_match_data* match = pcre2_match_data_create_from_pattern(code_->code, nullptr);
  if (match == nullptr) return false;
  int rc = pcre2_match(code_->code, reinterpret_cast<PCRE2_SPTR>(data), len, 0, 0, match, nullptr);
  pcre2_match_data_free(match);
  return rc >= 0;
}

bool RegexExpression::MatchesValue(const bson_iter_t* value) const {
  if (value == nullptr) return false;
  if (BSON_ITER_HOLDS_UTF8(value)) {
    uint32_t len = 0;
    const char* s = bson_iter_utf8(value, &len);
    return MatchesString(s, len);
  }
  if (BSON_ITER_HOLDS_SYMBOL(value)) {
    uint32_t len = 0;
    const char* s = bson_iter_symbol(value, &len);
    return MatchesString(s, len);
  }
  if (BSON_ITER_HOLDS_REGEX(value)) {
    const char* options = nullptr;
    const char* regex = bson_iter_regex(value, &options);
    return pattern_ == regex && flags_ == (options ? options : "");
  }
  return false;
}

namespace {

constexpr double kTwoTo63 = 9223372036854775808.0;

std::optional<int64_t> TruncatedInt64(const bson_iter_t* value) {
  switch (bson_iter_type(value)) {
    case BSON_TYPE_INT32:
      return bson_iter_int32(value);
    case BSON_TYPE_INT64:
      return bson_iter_int64(value);
    case BSON_TYPE_DOUBLE: {
      double d = bson_iter_double(value);
      if (!std::isfinite(d)) return std::nullopt;
      d = std::trunc(d);
      if (d >= kTwoTo63 || d < -kTwoTo63) return std::nullopt;
      return static_cast<int64_t>(d);
    }
    case BSON_TYPE_DECIMAL128: {
      bson_decimal128_t raw;
      bson_iter_decimal128(value, &raw);
      const bson::Decimal128 d = bson::DecimalFromBson(raw);
      if (d.IsNaN()) return std::nullopt;
      // Values whose truncation leaves int64: d >= 2^63 or d <= -2^63 - 1
      // (decimal128 holds 34 digits, so these bounds are exact).
      const bson::Decimal128 two_to_63 =
          bson::Decimal128(std::numeric_limits<int64_t>::max()) + 1;
      if (d >= two_to_63 || d <= -two_to_63 - 1) return std::nullopt;
      return d.TruncateToInt64();  // truncates toward zero
    }
    default:
      return std::nullopt;
  }
}

}  // namespace

bool ModExpression::MatchesValue(const bson_iter_t* value) const {
  if (value == nullptr) return false;
  std::optional<int64_t> dividend = TruncatedInt64(value);
  if (!dividend) return false;
  // INT64_MIN % -1 overflows in C++; mathematically it is 0.
  int64_t mod = divisor_ == -1 ? 0 : *dividend % divisor_;
  return mod == remainder_;
}

}  // namespace tigerdoc::query
