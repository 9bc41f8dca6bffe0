#include "engine/query/matcher/operator_table.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

#include "engine/bson/shell_string.h"
#include "engine/query/matcher/array.h"
#include "engine/query/matcher/bitwise.h"
#include "engine/query/matcher/comparison.h"
#include "engine/query/matcher/element.h"
#include "engine/query/matcher/evaluation.h"
#include "engine/query/matcher/expr.h"
#include "engine/query/matcher/integer_argument.h"
#include "engine/query/matcher/json_schema.h"
#include "engine/query/matcher/logical.h"
#include "engine/query/matcher/text.h"

// Messages below are MongoDB's own (expression_parser.cpp); clients and
// drivers match on some of them.

namespace tigerdoc::query {
namespace {

using Result = StatusWith<MatchExpressionPtr>;

Status BadValue(std::string message) { return Status(ErrorCode::kBadValue, std::move(message)); }

Result NotImplemented(std::string_view name) {
  return Status(ErrorCode::kNotImplemented,
                std::string(name) + " is not supported by tigerdoc yet");
}

bool TrueValue(const bson_iter_t* it) {
  switch (bson_iter_type(it)) {
    case BSON_TYPE_BOOL: return bson_iter_bool(it);
    case BSON_TYPE_INT32: return bson_iter_int32(it) != 0;
    case BSON_TYPE_INT64: return bson_iter_int64(it) != 0;
    case BSON_TYPE_DOUBLE: return bson_iter_double(it) != 0;
    case BSON_TYPE_DECIMAL128: {
      bson_decimal128_t d;
      bson_iter_decimal128(it, &d);
      // Zero has an all-zero coefficient whatever its exponent: the low
      // word and the low 49 bits of the high word (canonical BID form).
      return !(d.low == 0 && (d.high & 0x0001FFFFFFFFFFFFull) == 0 &&
               (d.high & 0x6000000000000000ull) != 0x6000000000000000ull);
    }
    case BSON_TYPE_NULL:
    case BSON_TYPE_UNDEFINED:
    case BSON_TYPE_EOD:
      return false;
    default:
      return true;
  }
}

// --- comparison -----------------------------------------------------------

Result MakeComparison(MatchKind kind, const std::string& path, const bson_iter_t* operand) {
  if (kind != MatchKind::kEq && BSON_ITER_HOLDS_REGEX(operand)) {
    return BadValue("Can't have RegEx as arg to predicate over field '" + path + "'.");
  }
  if (BSON_ITER_HOLDS_UNDEFINED(operand)) return BadValue("cannot compare to undefined");
  return MatchExpressionPtr(std::make_unique<ComparisonExpression>(kind, path, OwnedValue(operand)));
}

Result ParseEq(const std::string& path, const bson_iter_t* operand, const bson_t*, ParseLevel) {
  return MakeComparison(MatchKind::kEq, path, operand);
}
Result ParseLt(const std::string& path, const bson_iter_t* operand, const bson_t*, ParseLevel) {
  return MakeComparison(MatchKind::kLt, path, operand);
}
Result ParseLte(const std::string& path, const bson_iter_t* operand, const bson_t*, ParseLevel) {
  return MakeComparison(MatchKind::kLte, path, operand);
}
Result ParseGt(const std::string& path, const bson_iter_t* operand, const bson_t*, ParseLevel) {
  return MakeComparison(MatchKind::kGt, path, operand);
}
Result ParseGte(const std::string& path, const bson_iter_t* operand, const bson_t*, ParseLevel) {
  return MakeComparison(MatchKind::kGte, path, operand);
}

Result ParseNe(const std::string& path, const bson_iter_t* operand, const bson_t*, ParseLevel) {
  if (BSON_ITER_HOLDS_REGEX(operand)) return BadValue("Can't have regex as arg to $ne.");
  ASSIGN_OR_RETURN(MatchExpressionPtr eq, MakeComparison(MatchKind::kEq, path, operand));
  return MatchExpressionPtr(std::make_unique<NotExpression>(std::move(eq)));
}

StatusWith<std::unique_ptr<InExpression>> MakeIn(const std::string& path,
                                                 const bson_iter_t* operand) {
  std::vector<OwnedValue> equalities;
  std::vector<std::unique_ptr<RegexExpression>> regexes;
  bson_iter_t elements;
  bson_iter_recurse(operand, &elements);
  while (bson_iter_next(&elements)) {
    if (IsExpressionDocument(&elements, false)) return BadValue("cannot nest $ under $in");
    if (BSON_ITER_HOLDS_REGEX(&elements)) {
      const char* flags = nullptr;
      const char* pattern = bson_iter_regex(&elements, &flags);
      ASSIGN_OR_RETURN(auto regex, RegexExpression::Make("", pattern, flags ? flags : ""));
      regexes.push_back(std::move(regex));
    } else if (BSON_ITER_HOLDS_UNDEFINED(&elements)) {
      return BadValue("InMatchExpression equality cannot be undefined");
    } else {
      equalities.emplace_back(&elements);
    }
  }
  return std::make_unique<InExpression>(path, std::move(equalities), std::move(regexes));
}

Result ParseIn(const std::string& path, const bson_iter_t* operand, const bson_t*, ParseLevel) {
  if (!BSON_ITER_HOLDS_ARRAY(operand)) return BadValue("$in needs an array");
  ASSIGN_OR_RETURN(auto in, MakeIn(path, operand));
  return MatchExpressionPtr(std::move(in));
}

Result ParseNin(const std::string& path, const bson_iter_t* operand, const bson_t*, ParseLevel) {
  if (!BSON_ITER_HOLDS_ARRAY(operand)) return BadValue("$nin needs an array");
  ASSIGN_OR_RETURN(auto in, MakeIn(path, operand));
  return MatchExpressionPtr(std::make_unique<NotExpression>(std::move(in)));
}

// --- element --------------------------------------------------------------

Result ParseExists(const std::string& path, const bson_iter_t* operand, const bson_t*,
                   ParseLevel) {
  auto exists = std::make_unique<ExistsExpression>(path);
  if (TrueValue(operand)) return MatchExpressionPtr(std::move(exists));
  return MatchExpressionPtr(std::make_unique<NotExpression>(std::move(exists)));
}

Result ParseType(const std::string& path, const bson_iter_t* operand, const bson_t*, ParseLevel) {
  ASSIGN_OR_RETURN(auto type, TypeExpression::Parse(path, operand));
  return MatchExpressionPtr(std::move(type));
}

// --- array ----------------------------------------------------------------

Result ParseSize(const std::string& path, const bson_iter_t* operand, const bson_t*, ParseLevel) {
  StatusWith<int32_t> size = ParseIntegerElementToNonNegativeInt(operand);
  if (!size.ok()) return BadValue("Failed to parse $size. " + size.status().reason());
  return MatchExpressionPtr(std::make_unique<SizeExpression>(path, size.value()));
}

Result ParseElemMatch(const std::string& path, const bson_iter_t* operand, const bson_t*,
                      ParseLevel) {
  if (!BSON_ITER_HOLDS_DOCUMENT(operand)) return BadValue("$elemMatch needs an Object");
  bson_t sub;
  bson::OpenSubdocument(operand, &sub);

  // Value form ({$elemMatch: {$gt: 1}}) when the document is an operator
  // document whose first operator is not a top-level one ($and, $or, ...).
  bool value_form = false;
  if (IsExpressionDocument(operand, true)) {
    bson_iter_t first;
    bson_iter_init(&first, &sub);
    bson_iter_next(&first);
    value_form = FindTopLevelOperator(bson_iter_key(&first)) == nullptr;
  }
  if (value_form) {
    ListExpression children(MatchKind::kAnd);
    RETURN_IF_ERROR(ParseOperatorDocument("", &sub, ParseLevel::kSubDocument, &children));
    auto elem_match = std::make_unique<ElemMatchValueExpression>(path);
    for (auto& child : children.ReleaseChildren()) elem_match->Add(std::move(child));
    return MatchExpressionPtr(std::move(elem_match));
  }
  ASSIGN_OR_RETURN(MatchExpressionPtr filter, ParseFilter(&sub, ParseLevel::kSubDocument));
  return MatchExpressionPtr(std::make_unique<ElemMatchObjectExpression>(path, std::move(filter)));
}

// MongoDB's parsePathAcceptingKeyword: the operators of the table except
// $not (parsed apart) and $maxDistance/$minDistance (only $near's options).
bool IsPathAcceptingKeyword(std::string_view name) {
  if (name == "$not" || name == "$maxDistance" || name == "$minDistance") return false;
  return FindPathOperator(name) != nullptr;
}

bool FirstKeyIs(const bson_iter_t* value, const char* key) {
  if (!BSON_ITER_HOLDS_DOCUMENT(value)) return false;
  bson_t sub;
  bson::OpenSubdocument(value, &sub);
  bson_iter_t first;
  return bson_iter_init(&first, &sub) && bson_iter_next(&first) &&
         std::strcmp(bson_iter_key(&first), key) == 0;
}

Result ParseAll(const std::string& path, const bson_iter_t* operand, const bson_t*, ParseLevel) {
  if (!BSON_ITER_HOLDS_ARRAY(operand)) return BadValue("$all needs an array");
  auto all = std::make_unique<ListExpression>(MatchKind::kAnd);
  bson_iter_t elements;
  bson_iter_recurse(operand, &elements);
  bson_iter_t probe = elements;
  const bool elem_match_form = bson_iter_next(&probe) && FirstKeyIs(&probe, "$elemMatch");
  while (bson_iter_next(&elements)) {
    if (elem_match_form) {
      // $all: [{$elemMatch: ...}, ...]: every element must be one.
      if (!FirstKeyIs(&elements, "$elemMatch")) {
        return BadValue("$all/$elemMatch has to be consistent");
      }
      bson_t wrapper;
      bson::OpenSubdocument(&elements, &wrapper);
      bson_iter_t inner;
      bson_iter_init(&inner, &wrapper);
      bson_iter_next(&inner);
      ASSIGN_OR_RETURN(MatchExpressionPtr elem_match,
                       ParseElemMatch(path, &inner, &wrapper, ParseLevel::kSubDocument));
      all->Add(std::move(elem_match));
    } else if (BSON_ITER_HOLDS_REGEX(&elements)) {
      const char* flags = nullptr;
      const char* pattern = bson_iter_regex(&elements, &flags);
      ASSIGN_OR_RETURN(auto regex, RegexExpression::Make(path, pattern, flags ? flags : ""));
      all->Add(std::move(regex));
    } else if (BSON_ITER_HOLDS_DOCUMENT(&elements) && [&] {
                 bson_t sub;
                 bson::OpenSubdocument(&elements, &sub);
                 bson_iter_t first;
                 return bson_iter_init(&first, &sub) && bson_iter_next(&first) &&
                        IsPathAcceptingKeyword(bson_iter_key(&first));
               }()) {
      return BadValue("no $ expressions in $all");
    } else {
      ASSIGN_OR_RETURN(MatchExpressionPtr eq, MakeComparison(MatchKind::kEq, path, &elements));
      all->Add(std::move(eq));
    }
  }
  if (all->num_children() == 0) return MatchExpressionPtr(std::make_unique<ConstantExpression>(false));
  return MatchExpressionPtr(std::move(all));
}

// --- evaluation -----------------------------------------------------------

Result ParseRegex(const std::string& path, const bson_iter_t*, const bson_t* operators,
                  ParseLevel) {
  // Reads $regex and $options from the whole operator document, whichever
  // comes first.
  std::string pattern;
  std::string options;
  bson_iter_t it;
  bson_iter_init(&it, operators);
  while (bson_iter_next(&it)) {
    const char* key = bson_iter_key(&it);
    if (std::strcmp(key, "$regex") == 0) {
      if (BSON_ITER_HOLDS_UTF8(&it)) {
        uint32_t len = 0;
        const char* s = bson_iter_utf8(&it, &len);
        pattern.assign(s, len);
      } else if (BSON_ITER_HOLDS_REGEX(&it)) {
        const char* flags = nullptr;
        pattern = bson_iter_regex(&it, &flags);
        if (flags != nullptr && *flags != '\0') {
          if (!options.empty()) {
            return Status(static_cast<ErrorCode>(51074), "options set in both $regex and $options");
          }
          options = flags;
        }
      } else {
        return BadValue("$regex has to be a string");
      }
    } else if (std::strcmp(key, "$options") == 0) {
      if (!BSON_ITER_HOLDS_UTF8(&it)) return BadValue("$options has to be a string");
      if (!options.empty()) {
        return Status(static_cast<ErrorCode>(51075), "options set in both $regex and $options");
      }
      uint32_t len = 0;
      const char* s = bson_iter_utf8(&it, &len);
      options.assign(s, len);  // with any NUL byte, for Make to refuse
    }
  }
  ASSIGN_OR_RETURN(auto regex, RegexExpression::Make(path, std::move(pattern), std::move(options)));
  return MatchExpressionPtr(std::move(regex));
}

Result ParseOptions(const std::string&, const bson_iter_t*, const bson_t* operators, ParseLevel) {
  bson_iter_t it;
  if (bson_iter_init_find(&it, operators, "$regex")) return MatchExpressionPtr();  // $regex reads it
  return BadValue("$options needs a $regex");
}

StatusWith<int64_t> ModArgument(const bson_iter_t* it, const char* which) {
  StatusWith<int64_t> v = CoerceToLong(it);
  if (!v.ok()) {
    return BadValue(std::string("malformed mod, ") + which +
                    " value is invalid :: caused by :: " + v.status().reason());
  }
  return v.value();
}

Result ParseMod(const std::string& path, const bson_iter_t* operand, const bson_t*, ParseLevel) {
  if (!BSON_ITER_HOLDS_ARRAY(operand)) return BadValue("malformed mod, needs to be an array");
  bson_iter_t it;
  bson_iter_recurse(operand, &it);
  if (!bson_iter_next(&it)) return BadValue("malformed mod, not enough elements");
  if (!IsNumber(&it)) return BadValue("malformed mod, divisor not a number");
  ASSIGN_OR_RETURN(int64_t divisor, ModArgument(&it, "divisor"));
  if (!bson_iter_next(&it)) return BadValue("malformed mod, not enough elements");
  if (!IsNumber(&it)) return BadValue("malformed mod, remainder not a number");
  ASSIGN_OR_RETURN(int64_t remainder, ModArgument(&it, "remainder"));
  if (bson_iter_next(&it)) return BadValue("malformed mod, too many elements");
  if (divisor == 0) return BadValue("divisor cannot be 0");
  return MatchExpressionPtr(std::make_unique<ModExpression>(path, divisor, remainder));
}

// --- bitwise --------------------------------------------------------------

Result ParseBitTest(const std::string& path, const bson_iter_t* operand, const bson_t*,
                    ParseLevel) {
  ASSIGN_OR_RETURN(auto bits, BitTestExpression::Parse(path, operand));
  return MatchExpressionPtr(std::move(bits));
}

// --- logical (path form) --------------------------------------------------

Result ParseNot(const std::string& path, const bson_iter_t* operand, const bson_t*,
                ParseLevel level) {
  if (BSON_ITER_HOLDS_REGEX(operand)) {
    const char* flags = nullptr;
    const char* pattern = bson_iter_regex(operand, &flags);
    ASSIGN_OR_RETURN(auto regex, RegexExpression::Make(path, pattern, flags ? flags : ""));
    return MatchExpressionPtr(std::make_unique<NotExpression>(std::move(regex)));
  }
  if (!BSON_ITER_HOLDS_DOCUMENT(operand)) return BadValue("$not needs a regex or a document");
  bson_t sub;
  bson::OpenSubdocument(operand, &sub);
  if (bson_empty(&sub)) return BadValue("$not cannot be empty");
  auto children = std::make_unique<ListExpression>(MatchKind::kAnd);
  RETURN_IF_ERROR(ParseOperatorDocument(path, &sub, level, children.get()));
  return MatchExpressionPtr(std::make_unique<NotExpression>(std::move(children)));
}

Result ParseNotImplementedPath(const std::string&, const bson_iter_t* operand, const bson_t*,
                               ParseLevel) {
  return NotImplemented(bson_iter_key(operand));
}

// --- top-level ------------------------------------------------------------

Result ParseTree(std::string_view name, const bson_iter_t* operand, ParseLevel level) {
  if (!BSON_ITER_HOLDS_ARRAY(operand)) return BadValue(std::string(name) + " must be an array");
  MatchKind kind = name == "$and" ? MatchKind::kAnd : name == "$or" ? MatchKind::kOr : MatchKind::kNor;
  auto tree = std::make_unique<ListExpression>(kind);
  bson_iter_t it;
  bson_iter_recurse(operand, &it);
  while (bson_iter_next(&it)) {
    if (!BSON_ITER_HOLDS_DOCUMENT(&it)) {
      return BadValue("$or/$and/$nor entries need to be full objects");
    }
    bson_t sub;
    bson::OpenSubdocument(&it, &sub);
    ASSIGN_OR_RETURN(MatchExpressionPtr child, ParseFilter(&sub, level));
    tree->Add(std::move(child));
  }
  if (tree->num_children() == 0) return BadValue("$and/$or/$nor must be a nonempty array");
  return MatchExpressionPtr(std::move(tree));
}

Result ParseAlwaysBoolean(std::string_view name, const bson_iter_t* operand, ParseLevel) {
  ASSIGN_OR_RETURN(int64_t value, ParseIntegerElementToLong(operand));
  if (value != 1) {
    return Status(ErrorCode::kFailedToParse, std::string(name) + " must be an integer value of 1");
  }
  return MatchExpressionPtr(std::make_unique<ConstantExpression>(name == "$alwaysTrue"));
}

Result ParseComment(std::string_view, const bson_iter_t*, ParseLevel) {
  return MatchExpressionPtr();  // no node
}

// {$id: ..., $ref: ...} fields at the top level are plain equalities on
// the DBRef parts.
Result ParseDBRefField(std::string_view name, const bson_iter_t* operand, ParseLevel) {
  return MakeComparison(MatchKind::kEq, std::string(name), operand);
}

Result ParseWhere(std::string_view, const bson_iter_t*, ParseLevel level) {
  if (level == ParseLevel::kSubDocument) {
    return BadValue("$where can only be applied to the top-level document");
  }
  // What mongod answers when started without a JavaScript engine
  // (--noscripting); tigerdoc has none.
  return BadValue("no globalScriptEngine in $where parsing");
}

// The expression language lives in engine/agg; the parser comes through
// the bridge (expression_hook.h, expr.h).
Result ParseExpr(std::string_view name, const bson_iter_t* operand, ParseLevel level) {
  if (level == ParseLevel::kSubDocument) {
    return BadValue("$expr can only be applied to the top-level document");
  }
  const ExpressionParser* parser = ScopedExpressionParser::Current();
  if (parser == nullptr) return NotImplemented(name);
  ASSIGN_OR_RETURN(std::unique_ptr<const CompiledExpression> compiled, parser->Parse(operand));
  return MatchExpressionPtr(std::make_unique<ExprMatchExpression>(std::move(compiled)));
}

// {$sampleRate: x}, x in [0, 1]: 0 and 1 are constants; anything between
// needs $rand, which tigerdoc lacks.
Result ParseSampleRate(std::string_view name, const bson_iter_t* operand, ParseLevel level) {
  if (level == ParseLevel::kSubDocument) {
    return BadValue("$sampleRate can only be applied to the top-level document");
  }
  if (!IsNumber(operand)) return BadValue("argument to $sampleRate must be a numeric type");
  double x = 0;
  switch (bson_iter_type(operand)) {
    case BSON_TYPE_INT32: x = bson_iter_int32(operand); break;
    case BSON_TYPE_INT64: x = static_cast<double>(bson_iter_int64(operand)); break;
    case BSON_TYPE_DOUBLE: x = bson_iter_double(operand); break;
    default: {
      bson_decimal128_t d;
      bson_iter_decimal128(operand, &d);
      char buf[BSON_DECIMAL128_STRING];
      bson_decimal128_to_string(&d, buf);
      x = std::strstr(buf, "NaN") != nullptr ? std::nan("") : std::strtod(buf, nullptr);
    }
  }
  // Written so that NaN fails too.
  if (!(x >= 0.0 && x <= 1.0)) return BadValue("numeric argument to $sampleRate must be in [0, 1]");
  if (x == 0.0) return MatchExpressionPtr(std::make_unique<ConstantExpression>(false));
  if (x == 1.0) return MatchExpressionPtr(std::make_unique<ConstantExpression>(true));
  return NotImplemented(name);
}

Result ParseJsonSchema(std::string_view, const bson_iter_t* operand, ParseLevel) {
  ASSIGN_OR_RETURN(auto schema, JsonSchemaExpression::Parse(operand));
  return MatchExpressionPtr(std::move(schema));
}

Result ParseText(std::string_view, const bson_iter_t* operand, ParseLevel level) {
  if (level == ParseLevel::kSubDocument) {
    return BadValue("$text can only be applied to the top-level document");
  }
  // Bound to the collection's text index by the plan executor (text.h).
  ASSIGN_OR_RETURN(fts::TextQueryOptions options, fts::TextQueryOptions::Parse(operand));
  return MatchExpressionPtr(std::make_unique<TextMatchExpression>(std::move(options)));
}

// Alphabetical. Binary-searched.
constexpr PathOperator kPathOperators[] = {
    {"$all", ParseAll},
    {"$bitsAllClear", ParseBitTest},
    {"$bitsAllSet", ParseBitTest},
    {"$bitsAnyClear", ParseBitTest},
    {"$bitsAnySet", ParseBitTest},
    {"$elemMatch", ParseElemMatch},
    {"$eq", ParseEq},
    {"$exists", ParseExists},
    {"$geoIntersects", ParseNotImplementedPath},
    {"$geoWithin", ParseNotImplementedPath},
    {"$gt", ParseGt},
    {"$gte", ParseGte},
    {"$in", ParseIn},
    {"$lt", ParseLt},
    {"$lte", ParseLte},
    {"$maxDistance", ParseNotImplementedPath},
    {"$minDistance", ParseNotImplementedPath},
    {"$mod", ParseMod},
    {"$ne", ParseNe},
    {"$near", ParseNotImplementedPath},
    {"$nearSphere", ParseNotImplementedPath},
    {"$nin", ParseNin},
    {"$not", ParseNot},
    {"$options", ParseOptions},
    {"$regex", ParseRegex},
    {"$size", ParseSize},
    {"$type", ParseType},
    {"$within", ParseNotImplementedPath},
};

constexpr TopLevelOperator kTopLevelOperators[] = {
    {"$alwaysFalse", ParseAlwaysBoolean},
    {"$alwaysTrue", ParseAlwaysBoolean},
    {"$and", ParseTree},
    {"$comment", ParseComment},
    {"$db", ParseDBRefField},
    {"$expr", ParseExpr},
    {"$id", ParseDBRefField},
    {"$jsonSchema", ParseJsonSchema},
    {"$nor", ParseTree},
    {"$or", ParseTree},
    {"$ref", ParseDBRefField},
    {"$sampleRate", ParseSampleRate},
    {"$text", ParseText},
    {"$where", ParseWhere},
};

template <typename Entry, size_t N>
const Entry* FindIn(const Entry (&table)[N], std::string_view name) {
  const Entry* end = table + N;
  const Entry* it = std::lower_bound(table, end, name, [](const Entry& e, std::string_view n) {
    return e.name < n;
  });
  return (it != end && it->name == name) ? it : nullptr;
}

template <typename Entry, size_t N>
constexpr bool IsSorted(const Entry (&table)[N]) {
  for (size_t i = 1; i < N; ++i) {
    if (!(table[i - 1].name < table[i].name)) return false;
  }
  return true;
}
static_assert(IsSorted(kPathOperators), "keep kPathOperators alphabetical");
static_assert(IsSorted(kTopLevelOperators), "keep kTopLevelOperators alphabetical");

}  // namespace

const PathOperator* FindPathOperator(std::string_view name) { return FindIn(kPathOperators, name); }

const TopLevelOperator* FindTopLevelOperator(std::string_view name) {
  return FindIn(kTopLevelOperators, name);
}

}  // namespace tigerdoc::query
