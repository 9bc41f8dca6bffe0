#pragma once
// Evaluation operators: $regex (PCRE2, MongoDB's options i m s x u) and $mod.
// Contracts as match_expression.h. A compiled regex is shared read-only;
// each match allocates its own match data, so matching is thread-safe.

#include <bson/bson.h>

#include <cstdint>
#include <memory>
#include <string>

#include "engine/base/status.h"
#include "engine/query/matcher/match_expression.h"

namespace tigerdoc::query {

class RegexExpression : public PathMatchExpression {
 public:
  // Compiles `pattern` with `flags`. Errors as MongoDB: 51108 for an unknown
  // flag, 51091 for a pattern PCRE2 rejects, BadValue for an embedded NUL.
  static StatusWith<std::unique_ptr<RegexExpression>> Make(std::string path, std::string pattern,
                                                           std::string flags);

  // Strings and symbols match by regex search; a stored BSON regex matches
  // only when pattern and flags are identical.
  bool MatchesValue(const bson_iter_t* value) const override;
  bool MatchesString(const char* data, size_t len) const;

  const std::string& pattern() const { return pattern_; }
  const std::string& flags() const { return flags_; }

 private:
  struct Code;
  RegexExpression(std::string path, std::string pattern, std::string flags,
                  std::shared_ptr<const Code> code);

  std::string pattern_;
  std::string flags_;
  std::shared_ptr<const Code> code_;
};

class ModExpression : public PathMatchExpression {
 public:
  // REQUIRES: divisor != 0 (the parser reports BadValue "divisor cannot be 0").
  ModExpression(std::string path, int64_t divisor, int64_t remainder)
      : PathMatchExpression(MatchKind::kMod, std::move(path), bson::LeafArrays::kTraverse),
        divisor_(divisor),
        remainder_(remainder) {}

  // Numbers only; doubles and decimals are truncated toward zero first, and
  // NaN, infinities and values outside int64 never match.
  bool MatchesValue(const bson_iter_t* value) const override;

 private:
  int64_t divisor_;
  int64_t remainder_;
};

}  // namespace tigerdoc::query
