// $regexMatch $regexFind $regexFindAll over PCRE2 (UTF mode). Options
// i, m, s, x, u as in MongoDB; `idx` in results counts code points.

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <memory>
#include <string>

#include "engine/agg/expressions/operator_table.h"
#include "engine/agg/expressions/string_util.h"
#include "engine/query/matcher/regex_compile.h"

namespace tigerdoc::agg {
namespace {

struct CodeDeleter {
  void operator()(pcre2_code* c) const { pcre2_code_free(c); }
};
struct MatchDataDeleter {
  void operator()(pcre2_match_data* m) const { pcre2_match_data_free(m); }
};

enum class Mode { kMatch, kFind, kFindAll };

StatusWith<Value> RunRegex(const std::string& op, Mode mode, NamedValues& a) {
  const Value& input = a["input"];
  const Value& regex = a["regex"];
  const Value& options = a["options"];
  Value none = mode == Mode::kMatch  ? Value::Bool(false)
               : mode == Mode::kFind ? Value::Null()
                                     : Value::Array({});
  if (!input.nullish() && !input.is_string()) {
    return Error(51104, op + " needs 'input' to be of type string");
  }
  std::string pattern, flags;
  if (regex.type() == BSON_TYPE_REGEX) {
    pattern = regex.get()->value.v_regex.regex;
    flags = regex.get()->value.v_regex.options;
  } else if (regex.is_string()) {
    pattern = std::string(regex.str());
  } else if (!regex.nullish()) {
    return Error(51105, op + " needs 'regex' to be of type string or regex");
  }
  if (!options.nullish()) {
    if (!options.is_string()) return Error(51106, op + " needs 'options' to be of type string");
    if (!flags.empty() && !options.str().empty()) {
      return Error(51107, op + ": regex option(s) specified in both 'regex' and 'option' fields");
    }
    flags += std::string(options.str());
  }
  if (regex.nullish() || input.nullish()) return none;
  if (pattern.find('\0') != std::string::npos) {
    return Error(51109, op + ": regular expression cannot contain an embedded null byte");
  }
  uint32_t pcre_opts = PCRE2_UTF;
  for (char f : flags) {
    switch (f) {
      case 'i': pcre_opts |= PCRE2_CASELESS; break;
      case 'm': pcre_opts |= PCRE2_MULTILINE; break;
      case 's': pcre_opts |= PCRE2_DOTALL; break;
      case 'x': pcre_opts |= PCRE2_EXTENDED; break;
      case 'u': break;
      default: return Error(51108, op + " invalid flag in regex options: " + std::string(1, f));
    }
  }
  std::string message;
  std::unique_ptr<pcre2_code, CodeDeleter> code(query::CompileRegex(pattern, pcre_opts, &message));
  if (!code) return Error(51111, "Invalid Regex in " + op + ": " + message);
  std::unique_ptr<pcre2_match_data, MatchDataDeleter> md(
      pcre2_match_data_create_from_pattern(code.get(), nullptr));
  std::string_view s = input.str();
  std::vector<size_t> offs = CodePointOffsets(s);
  uint32_t groups = 0;
  pcre2_pattern_info(code.get(), PCRE2_INFO_CAPTURECOUNT, &groups);

  std::vector<Value> results;
  // $regexFindAll's output is bounded as in MongoDB (51151 past 64 MiB of
  // its approximate in-memory size); counted here as a fixed cost per match
  // document and per capture plus the bytes of their strings.
  constexpr size_t kMaxFindAllOutput = 64 * 1024 * 1024;
  constexpr size_t kMatchDocumentCost = 160, kValueCost = 16;
  size_t output_size = 0;
  size_t start = 0;
  while (start <= s.size()) {
    int rc = pcre2_match(code.get(), reinterpret_cast<PCRE2_SPTR>(s.data()), s.size(), start, 0,
                         md.get(), nullptr);
    if (rc == PCRE2_ERROR_NOMATCH) break;
    if (rc < 0) return Error(51156, "Error occurred while executing the regular expression in " + op + ". Result code: " + std::to_string(rc));
    if (mode == Mode::kMatch) return Value::Bool(true);
    PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md.get());
    size_t mb = ov[0], me = ov[1];
    if (mode == Mode::kFindAll) {
      // Counted before the match document is built, so a refused output
      // never takes the memory.
      output_size += kMatchDocumentCost + (me - mb) + groups * kValueCost;
      for (uint32_t g = 1; g <= groups; ++g) {
        if (static_cast<int>(g) < rc && ov[2 * g] != PCRE2_UNSET) output_size += ov[2 * g + 1] - ov[2 * g];
      }
      if (output_size > kMaxFindAllOutput) {
        return Error(51151, op + ": the size of buffer to store output exceeded the 64MB limit");
      }
    }
    std::vector<Value> captures;
    for (uint32_t g = 1; g <= groups; ++g) {
      if (static_cast<int>(g) < rc && ov[2 * g] != PCRE2_UNSET) {
        captures.push_back(Value::String(s.substr(ov[2 * g], ov[2 * g + 1] - ov[2 * g])));
      } else {
        captures.push_back(Value::Null());
      }
    }
    auto idx = std::lower_bound(offs.begin(), offs.end(), mb) - offs.begin();
    Value doc = MakeDocument({{"match", Value::String(s.substr(mb, me - mb))},
                              {"idx", Value::IntegralLong(idx)},
                              {"captures", Value::Array(captures)}});
    if (mode == Mode::kFind) return doc;
    results.push_back(std::move(doc));
    if (me == mb) {
      // Empty match: step over one code point.
      if (me >= s.size()) break;
      start = me + 1;
      while (start < s.size() && IsUtf8Continuation(static_cast<unsigned char>(s[start]))) ++start;
    } else {
      start = me;
    }
  }
  if (mode == Mode::kFindAll) return Value::Array(results);
  return none;
}

}  // namespace

StatusWith<ExpressionPtr> ParseRegexOp(std::string_view name, const bson_iter_t* operand,
                                       ParseContext* ctx) {
  std::string op(name);
  Mode mode = name == "$regexMatch" ? Mode::kMatch
              : name == "$regexFind" ? Mode::kFind
                                     : Mode::kFindAll;
  NamedArgsSpec spec{{"input", "regex", "options"},
                     {"input", "regex"},
                     51103,
                     op + " expects an object of named arguments but found: " +
                         TypeNameOf(bson_iter_type(operand)),
                     31024,
                     op + " found an unknown argument: %s",
                     31022,
                     op + " requires '%s' parameter"};
  return ParseNamed(operand, ctx, spec,
                    [op, mode](NamedValues& a) { return RunRegex(op, mode, a); });
}

}  // namespace tigerdoc::agg
