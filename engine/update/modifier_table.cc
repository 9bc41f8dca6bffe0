#include "engine/bson/type_name.h"
#include "engine/update/modifier_table.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>

#include "engine/bson/aligned_iter.h"
#include "engine/bson/shell_string.h"
#include "engine/query/matcher/element.h"
#include "engine/query/matcher/operator_table.h"
#include "engine/update/array_modifier_nodes.h"
#include "engine/update/modifier_nodes.h"

namespace tigerdoc::update {
namespace {

// "a: 1" -- how MongoDB prints an element inside argument errors
// (BSONElement::toString()).
std::string ElementText(std::string_view name, const bson_iter_t* value) {
  return std::string(name) + ": " + bson::ToShellString(value);
}

std::string ElementText(const bson::FieldPath& path, const bson_iter_t* argument) {
  return ElementText(path.dotted(), argument);
}

const char* TypeName(const bson_iter_t* it) { return bson::TypeName(bson_iter_type(it)); }

bool IsNumber(const bson_iter_t* it) {
  return BSON_ITER_HOLDS_INT32(it) || BSON_ITER_HOLDS_INT64(it) || BSON_ITER_HOLDS_DOUBLE(it) ||
         BSON_ITER_HOLDS_DECIMAL128(it);
}

double NumberAsDouble(const bson_iter_t* it) {
  if (BSON_ITER_HOLDS_DECIMAL128(it)) {
    bson_decimal128_t d;
    bson_iter_decimal128(it, &d);
    char buf[BSON_DECIMAL128_STRING];
    bson_decimal128_to_string(&d, buf);
    return std::strtod(buf, nullptr);
  }
  return bson_iter_as_double(it);
}

// MongoDB's BSONElement::parseIntegerElementToLong: whole numbers of any
// numeric type; FailedToParse otherwise, naming the element as `label`.
StatusWith<int64_t> ParseIntegerToLong(std::string_view label, const bson_iter_t* it) {
  if (!IsNumber(it)) {
    return Status(ErrorCode::kFailedToParse, "Expected a number in: " + ElementText(label, it));
  }
  if (BSON_ITER_HOLDS_INT32(it)) return static_cast<int64_t>(bson_iter_int32(it));
  if (BSON_ITER_HOLDS_INT64(it)) return bson_iter_int64(it);
  constexpr double kInt64MaxPlusOne = 9223372036854775808.0;
  if (BSON_ITER_HOLDS_DOUBLE(it)) {
    const double d = bson_iter_double(it);
    if (std::isnan(d)) {
      return Status(ErrorCode::kFailedToParse,
                    "Expected an integer, but found NaN in: " + ElementText(label, it));
    }
    if (d >= kInt64MaxPlusOne || d < -kInt64MaxPlusOne) {
      return Status(ErrorCode::kFailedToParse,
                    "Cannot represent as a 64-bit integer: " + ElementText(label, it));
    }
    if (d != static_cast<double>(static_cast<int64_t>(d))) {
      return Status(ErrorCode::kFailedToParse, "Expected an integer: " + ElementText(label, it));
    }
    return static_cast<int64_t>(d);
  }
  // Decimal128: exact whole values only (Decimal128::toLongExact).
  bson_decimal128_t raw;
  bson_iter_decimal128(it, &raw);
  char buf[BSON_DECIMAL128_STRING];
  bson_decimal128_to_string(&raw, buf);
  const long double d = std::strtold(buf, nullptr);
  if (!std::isfinite(d) || d != std::trunc(d) || d >= 9223372036854775808.0L ||
      d < -9223372036854775808.0L) {
    return Status(ErrorCode::kFailedToParse,
                  "Cannot represent as a 64-bit integer: " + ElementText(label, it));
  }
  return static_cast<int64_t>(d);
}

std::vector<MutableValue> ArrayElements(const bson_iter_t* array) {
  std::vector<MutableValue> out;
  bson_iter_t elements;
  if (bson_iter_recurse(array, &elements)) {
    while (bson_iter_next(&elements)) out.push_back(MutableValue::FromIter(&elements));
  }
  return out;
}

Status ParseSet(std::string_view op, const bson::FieldPath& path, const bson_iter_t* argument,
                const ModifierParseContext& ctx) {
  return ctx.Add(path, std::make_unique<SetNode>(MutableValue::FromIter(argument),
                                                 op == "$setOnInsert"));
}

Status ParseUnset(std::string_view, const bson::FieldPath& path, const bson_iter_t*,
                  const ModifierParseContext& ctx) {
  return ctx.Add(path, std::make_unique<UnsetNode>());
}

Status ParseArithmetic(std::string_view op, const bson::FieldPath& path,
                       const bson_iter_t* argument, const ModifierParseContext& ctx) {
  const bool add = op == "$inc";
  if (!IsNumeric(bson_iter_type(argument))) {
    return Status(ErrorCode::kTypeMismatch,
                  std::string(add ? "Cannot increment with non-numeric argument: {"
                                  : "Cannot multiply with non-numeric argument: {") +
                      ElementText(path, argument) + "}");
  }
  return ctx.Add(path, std::make_unique<ArithmeticNode>(
                           add ? ArithmeticOp::kAdd : ArithmeticOp::kMultiply,
                           query::OwnedValue(argument)));
}

Status ParseCompare(std::string_view op, const bson::FieldPath& path, const bson_iter_t* argument,
                    const ModifierParseContext& ctx) {
  return ctx.Add(path, std::make_unique<CompareNode>(
                           op == "$min" ? CompareNode::Mode::kMin : CompareNode::Mode::kMax,
                           MutableValue::FromIter(argument)));
}

Status ParseCurrentDate(std::string_view, const bson::FieldPath& path,
                        const bson_iter_t* argument, const ModifierParseContext& ctx) {
  bool as_timestamp = false;
  if (BSON_ITER_HOLDS_BOOL(argument)) {
    as_timestamp = false;
  } else if (BSON_ITER_HOLDS_DOCUMENT(argument)) {
    bson_t spec;
    bson::OpenSubdocument(argument, &spec);
    bson_iter_t it;
    bson_iter_init(&it, &spec);
    bool found_valid_type = false;
    while (bson_iter_next(&it)) {
      if (std::strcmp(bson_iter_key(&it), "$type") != 0) {
        return Status(ErrorCode::kBadValue,
                      std::string("Unrecognized $currentDate option: ") + bson_iter_key(&it));
      }
      if (BSON_ITER_HOLDS_UTF8(&it)) {
        const char* type = bson_iter_utf8(&it, nullptr);
        if (std::strcmp(type, "date") == 0) {
          as_timestamp = false;
          found_valid_type = true;
        } else if (std::strcmp(type, "timestamp") == 0) {
          as_timestamp = true;
          found_valid_type = true;
        }
      }
    }
    if (!found_valid_type) {
      return Status(ErrorCode::kBadValue,
                    "The '$type' string field is required to be 'date' or 'timestamp': "
                    "{$currentDate: {field : {$type: 'date'}}}");
    }
  } else {
    return Status(ErrorCode::kBadValue,
                  std::string(TypeName(argument)) +
                      " is not valid type for $currentDate. Please use a boolean ('true') or a "
                      "$type expression ({$type: 'timestamp/date'}).");
  }
  return ctx.Add(path, std::make_unique<CurrentDateNode>(as_timestamp));
}

bool IsDynamic(const bson::FieldPath& path) {
  for (const std::string& part : path.parts()) {
    if (part == "$" || IsArrayFilterComponent(part)) return true;
  }
  return false;
}

// MongoDB's order: the source is placed in the tree first (its conflicts
// and identifiers are checked there), then the target's checks.
Status ParseRename(std::string_view, const bson::FieldPath& path, const bson_iter_t* argument,
                   const ModifierParseContext& ctx) {
  RETURN_IF_ERROR(ctx.Add(path, std::make_unique<UnsetNode>()));
  if (!BSON_ITER_HOLDS_UTF8(argument)) {
    return Status(ErrorCode::kBadValue, "The 'to' field for $rename must be a string: " +
                                            ElementText(path, argument));
  }
  const std::string to = bson_iter_utf8(argument, nullptr);
  RETURN_IF_ERROR(ValidateUpdatePath(to));
  bson::FieldPath to_path(to);
  if (to == path.dotted()) {
    return Status(ErrorCode::kBadValue, "The source and target field for $rename must differ: " +
                                            ElementText(path, argument));
  }
  if (path.IsPrefixOf(to_path) || to_path.IsPrefixOf(path)) {
    return Status(ErrorCode::kBadValue,
                  "The source and target field for $rename must not be on the same path: " +
                      ElementText(path, argument));
  }
  if (IsDynamic(path)) {
    return Status(ErrorCode::kBadValue,
                  "The source field for $rename may not be dynamic: " + path.dotted());
  }
  if (IsDynamic(to_path)) {
    return Status(ErrorCode::kBadValue,
                  "The destination field for $rename may not be dynamic: " + to_path.dotted());
  }
  RETURN_IF_ERROR(ctx.Add(to_path, std::make_unique<RenameDestinationNode>(path.dotted())));
  ctx.rename_sources->push_back(path.dotted());
  return Status::OK();
}

Status ParseBit(std::string_view, const bson::FieldPath& path, const bson_iter_t* argument,
                const ModifierParseContext& ctx) {
  if (!BSON_ITER_HOLDS_DOCUMENT(argument)) {
    return Status(ErrorCode::kBadValue,
                  std::string("The $bit modifier is not compatible with a ") + TypeName(argument) +
                      ". You must pass in an embedded document: {$bit: {field: {and/or/xor: #}}");
  }
  bson_t spec;
  bson::OpenSubdocument(argument, &spec);
  bson_iter_t it;
  bson_iter_init(&it, &spec);
  std::vector<BitNode::Operation> operations;
  while (bson_iter_next(&it)) {
    const std::string name = bson_iter_key(&it);
    BitNode::Op op;
    if (name == "and") {
      op = BitNode::Op::kAnd;
    } else if (name == "or") {
      op = BitNode::Op::kOr;
    } else if (name == "xor") {
      op = BitNode::Op::kXor;
    } else {
      return Status(ErrorCode::kBadValue,
                    "The $bit modifier only supports 'and', 'or', and 'xor', not '" + name +
                        "' which is an unknown operator: {" + ElementText(name, &it) + "}");
    }
    if (!BSON_ITER_HOLDS_INT32(&it) && !BSON_ITER_HOLDS_INT64(&it)) {
      return Status(ErrorCode::kBadValue,
                    std::string("The $bit modifier field must be an Integer(32/64 bit); a '") +
                        TypeName(&it) + "' is not supported here: {" + ElementText(name, &it) +
                        "}");
    }
    operations.push_back(BitNode::Operation{op, query::OwnedValue(&it)});
  }
  if (operations.empty()) {
    return Status(ErrorCode::kBadValue,
                  "You must pass in at least one bitwise operation. The format is: {$bit: "
                  "{field: {and/or/xor: #}}");
  }
  return ctx.Add(path, std::make_unique<BitNode>(std::move(operations)));
}

// The $sort of $push given as a document: MongoDB's pattern_cmp
// checkSortClause.
StatusWith<PushSort> ParseSortPattern(const bson_iter_t* clause) {
  bson_t pattern;
  bson::OpenSubdocument(clause, &pattern);
  if (bson_empty(&pattern)) {
    return Status(ErrorCode::kBadValue,
                  "The sort pattern is empty when it should be a set of fields.");
  }
  PushSort sort;
  sort.whole_value = false;
  bson_iter_t it;
  bson_iter_init(&it, &pattern);
  while (bson_iter_next(&it)) {
    const double order = IsNumber(&it) ? NumberAsDouble(&it) : 0;
    if (order != -1 && order != 1) {
      return Status(ErrorCode::kBadValue, "The sort element value must be either 1 or -1");
    }
    const std::string field = bson_iter_key(&it);
    if (field.empty()) return Status(ErrorCode::kBadValue, "The sort field cannot be empty");
    bson::FieldPath field_path(field);
    for (const std::string& part : field_path.parts()) {
      if (part.empty()) {
        return Status(ErrorCode::kBadValue,
                      "The sort field is a dotted field but has an empty part: " + field);
      }
    }
    sort.fields.emplace_back(std::move(field_path), order < 0 ? -1 : 1);
  }
  return sort;
}

Status ParsePush(std::string_view, const bson::FieldPath& path, const bson_iter_t* argument,
                 const ModifierParseContext& ctx) {
  bson_iter_t each_probe;
  bson_t spec;
  const bool has_each = BSON_ITER_HOLDS_DOCUMENT(argument) &&
                        bson::OpenSubdocument(argument, &spec) &&
                        bson_iter_init_find(&each_probe, &spec, "$each");
  if (!has_each) {
    // No $each: the argument itself is the one value pushed.
    return ctx.Add(path, std::make_unique<PushNode>(
                             std::vector<MutableValue>{MutableValue::FromIter(argument)},
                             std::nullopt, std::nullopt, std::nullopt));
  }
  std::map<std::string, bson::AlignedIter> clauses;
  bson_iter_t it;
  bson_iter_init(&it, &spec);
  while (bson_iter_next(&it)) {
    const std::string name = bson_iter_key(&it);
    if (name != "$each" && name != "$slice" && name != "$sort" && name != "$position") {
      return Status(ErrorCode::kBadValue, "Unrecognized clause in $push: " + name);
    }
    if (!clauses.emplace(name, bson::AlignedIter{it}).second) {
      return Status(ErrorCode::kBadValue, "Only one " + name + " is supported.");
    }
  }
  const bson_iter_t& each = clauses.at("$each").it;
  if (!BSON_ITER_HOLDS_ARRAY(&each)) {
    return Status(ErrorCode::kBadValue,
                  std::string("The argument to $each in $push must be an array but it was of "
                              "type: ") +
                      TypeName(&each));
  }
  std::vector<MutableValue> values = ArrayElements(&each);

  std::optional<int64_t> slice;
  if (auto found = clauses.find("$slice"); found != clauses.end()) {
    auto parsed = ParseIntegerToLong("$slice", &found->second.it);
    if (!parsed.ok()) {
      return Status(ErrorCode::kBadValue,
                    std::string("The value for $slice must be an integer value but was given "
                                "type: ") +
                        TypeName(&found->second.it));
    }
    slice = parsed.value();
  }

  std::optional<PushSort> sort;
  if (auto found = clauses.find("$sort"); found != clauses.end()) {
    const bson_iter_t* clause = &found->second.it;
    if (BSON_ITER_HOLDS_DOCUMENT(clause)) {
      ASSIGN_OR_RETURN(PushSort pattern, ParseSortPattern(clause));
      sort = std::move(pattern);
    } else if (IsNumber(clause)) {
      const double order = NumberAsDouble(clause);
      if (order != -1 && order != 1) {
        return Status(ErrorCode::kBadValue, "The $sort element value must be either 1 or -1");
      }
      PushSort whole;
      whole.direction = order < 0 ? -1 : 1;
      sort = std::move(whole);
    } else {
      return Status(ErrorCode::kBadValue,
                    "The $sort is invalid: use 1/-1 to sort the whole element, or {field:1/-1} "
                    "to sort embedded fields");
    }
  }

  std::optional<int64_t> position;
  if (auto found = clauses.find("$position"); found != clauses.end()) {
    auto parsed = ParseIntegerToLong("$position", &found->second.it);
    if (!parsed.ok()) {
      return Status(ErrorCode::kBadValue,
                    std::string("The value for $position must be an integer value, not of type: ") +
                        TypeName(&found->second.it));
    }
    position = parsed.value();
  }
  return ctx.Add(path, std::make_unique<PushNode>(std::move(values), position, std::move(sort),
                                                  slice));
}

Status ParseAddToSet(std::string_view, const bson::FieldPath& path, const bson_iter_t* argument,
                     const ModifierParseContext& ctx) {
  std::vector<MutableValue> values;
  bson_t spec;
  bson_iter_t first;
  if (BSON_ITER_HOLDS_DOCUMENT(argument) && bson::OpenSubdocument(argument, &spec) &&
      bson_iter_init(&first, &spec) && bson_iter_next(&first) &&
      std::strcmp(bson_iter_key(&first), "$each") == 0) {
    if (!BSON_ITER_HOLDS_ARRAY(&first)) {
      return Status(ErrorCode::kTypeMismatch,
                    std::string("The argument to $each in $addToSet must be an array but it was "
                                "of type ") +
                        TypeName(&first));
    }
    bson_iter_t rest = first;
    if (bson_iter_next(&rest)) {
      return Status(ErrorCode::kBadValue,
                    "Found unexpected fields after $each in $addToSet: " +
                        bson::ToShellString(&spec));
    }
    values = ArrayElements(&first);
  } else {
    values.push_back(MutableValue::FromIter(argument));
  }
  return ctx.Add(path, std::make_unique<AddToSetNode>(std::move(values)));
}

Status ParsePop(std::string_view, const bson::FieldPath& path, const bson_iter_t* argument,
                const ModifierParseContext& ctx) {
  ASSIGN_OR_RETURN(int64_t direction, ParseIntegerToLong(path.dotted(), argument));
  if (direction != 1 && direction != -1) {
    return Status(ErrorCode::kFailedToParse,
                  "$pop expects 1 or -1, found: " + std::to_string(direction));
  }
  return ctx.Add(path, std::make_unique<PopNode>(direction == -1));
}

// MongoDB's PullNode::init: a document whose first field is not a query
// operator is a query on document elements; a document of operators, or a
// regex, is a condition on each element; anything else is an equality.
Status ParsePull(std::string_view, const bson::FieldPath& path, const bson_iter_t* argument,
                 const ModifierParseContext& ctx) {
  if (BSON_ITER_HOLDS_DOCUMENT(argument)) {
    bson_t condition;
    bson::OpenSubdocument(argument, &condition);
    bson_iter_t first;
    const bool operator_first = bson_iter_init(&first, &condition) && bson_iter_next(&first) &&
                                query::FindPathOperator(bson_iter_key(&first)) != nullptr;
    if (!operator_first) {
      ASSIGN_OR_RETURN(auto matcher, query::Matcher::Parse(&condition));
      return ctx.Add(path, PullNode::DocumentQuery(std::move(matcher)));
    }
  }
  if (BSON_ITER_HOLDS_DOCUMENT(argument) || BSON_ITER_HOLDS_REGEX(argument)) {
    bson::BsonDoc wrapped;
    bson_append_iter(wrapped.mutable_get(), "", 0, argument);
    ASSIGN_OR_RETURN(auto matcher, query::Matcher::Parse(wrapped.get()));
    return ctx.Add(path, PullNode::ElementQuery(std::move(matcher)));
  }
  return ctx.Add(path, PullNode::AnyOf({MutableValue::FromIter(argument)}));
}

Status ParsePullAll(std::string_view, const bson::FieldPath& path, const bson_iter_t* argument,
                    const ModifierParseContext& ctx) {
  if (!BSON_ITER_HOLDS_ARRAY(argument)) {
    return Status(ErrorCode::kBadValue,
                  std::string("$pullAll requires an array argument but was given a ") +
                      TypeName(argument));
  }
  return ctx.Add(path, PullNode::AnyOf(ArrayElements(argument)));
}

// Alphabetical. Binary-searched.
constexpr Modifier kModifiers[] = {
    {"$addToSet", ParseAddToSet},
    {"$bit", ParseBit},
    {"$currentDate", ParseCurrentDate},
    {"$inc", ParseArithmetic},
    {"$max", ParseCompare},
    {"$min", ParseCompare},
    {"$mul", ParseArithmetic},
    {"$pop", ParsePop},
    {"$pull", ParsePull},
    {"$pullAll", ParsePullAll},
    {"$push", ParsePush},
    {"$rename", ParseRename},
    {"$set", ParseSet},
    {"$setOnInsert", ParseSet},
    {"$unset", ParseUnset},
};

constexpr bool IsSorted() {
  for (size_t i = 1; i < std::size(kModifiers); ++i) {
    if (!(kModifiers[i - 1].name < kModifiers[i].name)) return false;
  }
  return true;
}
static_assert(IsSorted(), "keep kModifiers alphabetical");

}  // namespace

const Modifier* FindModifier(std::string_view name) {
  const Modifier* end = std::end(kModifiers);
  const Modifier* it = std::lower_bound(std::begin(kModifiers), end, name,
                                        [](const Modifier& m, std::string_view n) { return m.name < n; });
  return (it != end && it->name == name) ? it : nullptr;
}

bool IsPositionalPath(const bson::FieldPath& path) {
  return std::find(path.parts().begin(), path.parts().end(), "$") != path.parts().end();
}

Status ValidateUpdatePath(const std::string& path) {
  if (path.empty()) return Status(ErrorCode::kEmptyFieldName, "An empty update path is not valid.");
  bson::FieldPath fp(path);
  for (const std::string& part : fp.parts()) {
    if (part.empty()) {
      return Status(ErrorCode::kEmptyFieldName,
                    "The update path '" + path +
                        "' contains an empty field name, which is not allowed.");
    }
  }
  const auto positional = std::count(fp.parts().begin(), fp.parts().end(), "$");
  if (positional > 1) {
    return Status(ErrorCode::kBadValue,
                  "Too many positional (i.e. '$') elements found in path '" + path + "'");
  }
  if (positional == 1 && fp.part(0) == "$") {
    return Status(ErrorCode::kBadValue,
                  "Cannot have positional (i.e. '$') element in the first position in path '" +
                      path + "'");
  }
  return Status::OK();
}

}  // namespace tigerdoc::update
