#include "engine/query/matcher/regex_compile.h"

#include <memory>

namespace tigerdoc::query {

pcre2_code* CompileRegex(std::string_view pattern, uint32_t options, std::string* error) {
  std::unique_ptr<pcre2_compile_context, decltype(&pcre2_compile_context_free)> context(
      pcre2_compile_context_create(nullptr), &pcre2_compile_context_free);
  if (context) pcre2_set_max_pattern_length(context.get(), kMaxRegexPatternLength);
  int error_code = 0;
  PCRE2_SIZE error_offset = 0;
  pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                                   options, &error_code, &error_offset, context.get());
  if (code == nullptr) {
    PCRE2_UCHAR message[256];
    pcre2_get_error_message(error_code, message, sizeof(message));
    *error = reinterpret_cast<const char*>(message);
  }
  return code;
}

}  // namespace tigerdoc::query
