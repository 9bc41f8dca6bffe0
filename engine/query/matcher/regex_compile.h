// Compiles a PCRE2 pattern under MongoDB's limit (src/mongo/util/pcre.cpp):
// a pattern longer than 32,764 bytes is refused with PCRE2's own message,
// "pattern string is longer than the limit set by the application", however
// small it would compile. $regex (51091) and the aggregation regex operators
// (51111) both compile through here and add their code and prefix.
#pragma once

#ifndef PCRE2_CODE_UNIT_WIDTH
#define PCRE2_CODE_UNIT_WIDTH 8
#endif
#include <pcre2.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace tigerdoc::query {

inline constexpr size_t kMaxRegexPatternLength = 32764;

// The compiled pattern (the caller frees it with pcre2_code_free), or
// nullptr with *error set to PCRE2's message.
pcre2_code* CompileRegex(std::string_view pattern, uint32_t options, std::string* error);

}  // namespace tigerdoc::query
