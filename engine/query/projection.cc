#include "engine/query/projection.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <string_view>

#include "engine/bson/type_name.h"
#include "engine/bson/aligned_iter.h"
#include "engine/bson/field_path.h"
#include "engine/bson/shell_string.h"
#include "engine/query/matcher/element.h"
#include "engine/query/matcher/integer_argument.h"
#include "engine/query/matcher/matcher.h"

// Parsing follows MongoDB's projection_parser.cpp check for check, so that
// the first error MongoDB would report is the one reported here; applying
// follows projection_executor_builder.cpp: the inclusion or exclusion pass,
// then $elemMatch fields (computed from the input document), then $slice
// and positional (each rewriting the result of the previous step).

namespace tigerdoc::query {

// Tree of projected paths: {"a.b": 1, "a.c": {$slice: 2}, d: 1}
//
//   root ─┬─ a ─┬─ b (kInclude)
//         │     └─ c (kSlice)
//         └─ d (kInclude)
//
// Leaves say what the projection does with the value found there; inner
// nodes (kNone) only lead to leaves.
struct Projection::Node {
  enum class Leaf { kNone, kInclude, kExclude, kPositional, kSlice, kElemMatch, kComputed };
  Leaf leaf = Leaf::kNone;
  std::vector<std::pair<std::string, std::unique_ptr<Node>>> children;
  std::unique_ptr<const CompiledExpression> expr;  // kComputed
  bool has_computed = false;  // some kComputed leaf at or below this node

  Node* Find(std::string_view name) const {
    for (const auto& [child_name, child] : children) {
      if (child_name == name) return child.get();
    }
    return nullptr;
  }
};

// The operators applied after the inclusion/exclusion pass.
struct Projection::Operators {
  struct ElemMatch {
    std::string field;                // top-level field
    std::unique_ptr<Matcher> matcher;  // {field: {$elemMatch: ...}}
  };
  struct PostOp {
    enum class Kind { kSlice, kPositional } kind;
    bson::FieldPath path;             // full path (for positional: without ".$")
    std::optional<int32_t> skip;      // $slice [skip, limit]
    int32_t limit = 0;                // $slice n, or [skip, limit]
  };

  std::unique_ptr<Matcher> query;  // positional's query, when none is passed to Apply
  std::vector<ElemMatch> elem_matches;
  std::vector<PostOp> post_ops;  // in spec order
};

Projection::Projection(bool inclusion, std::unique_ptr<Node> root,
                       std::unique_ptr<Operators> operators, bool has_positional)
    : inclusion_(inclusion),
      has_positional_(has_positional),
      root_(std::move(root)),
      operators_(std::move(operators)) {}
Projection::Projection(Projection&&) noexcept = default;
Projection& Projection::operator=(Projection&&) noexcept = default;
Projection::~Projection() = default;

namespace {

using Node = Projection::Node;
using Leaf = Node::Leaf;

Status Error(int code, std::string message) {
  return Status(static_cast<ErrorCode>(code), std::move(message));
}

// --- parsing --------------------------------------------------------------

struct ParseContext {
  const Matcher* query = nullptr;  // the find filter, if any
  std::optional<bool> inclusion;   // decided by the first non-_id field
  bool has_positional = false;
  bool has_elem_match = false;
  bool has_find_slice = false;
  bool id_included_entirely = false;  // top-level {_id: 1}
  bool id_excluded_entirely = false;  // top-level {_id: 0}
  Node* root = nullptr;
  Projection::Operators* operators = nullptr;
  const ExpressionParser* expressions = nullptr;  // as given to Parse (may be null)
};

bool IsTruthyNumberOrBool(const bson_iter_t* it) {
  switch (bson_iter_type(it)) {
    case BSON_TYPE_BOOL: return bson_iter_bool(it);
    case BSON_TYPE_INT32: return bson_iter_int32(it) != 0;
    case BSON_TYPE_INT64: return bson_iter_int64(it) != 0;
    case BSON_TYPE_DOUBLE: return bson_iter_double(it) != 0;
    default: {  // decimal128: zero coefficient means false
      bson_decimal128_t d;
      bson_iter_decimal128(it, &d);
      return !(d.low == 0 && (d.high & 0x0001FFFFFFFFFFFFull) == 0);
    }
  }
}

bool IsInclusionOrExclusionType(const bson_iter_t* it) {
  return BSON_ITER_HOLDS_BOOL(it) || IsNumber(it);
}

// MongoDB's FieldPath constructor checks, in its order.
Status CheckFieldPath(std::string_view path) {
  if (path.empty()) return Error(40352, "FieldPath cannot be constructed with empty string");
  if (path.back() == '.') return Error(40353, "FieldPath must not end with a '.'.");
  bson::FieldPath fp(path);
  for (const std::string& part : fp.parts()) {
    if (part.empty()) return Error(15998, "FieldPath field names may not be empty strings.");
    // DBRef fields are the only names allowed to start with '$'.
    if (part[0] == '$' && part != "$id" && part != "$ref" && part != "$db") {
      return Error(16410,
                   "FieldPath field names may not start with '$'. Consider using $getField or "
                   "$setField.");
    }
  }
  return Status::OK();
}

// addNodeAtPath: 31250 when the path itself is taken, 31249 when a leaf
// sits on the way. Messages quote the path as given (relative to `parent`)
// and, for 31249, that path without its first component.
StatusWith<Node*> AddNode(Node* parent, const bson::FieldPath& path, Leaf leaf) {
  Node* node = parent;
  for (size_t i = 0; i < path.size(); ++i) {
    Node* next = node->Find(path.part(i));
    const bool last = i + 1 == path.size();
    if (last) {
      if (next != nullptr) return Error(31250, "Path collision at " + path.dotted());
      node->children.emplace_back(path.part(i), std::make_unique<Node>());
      node->children.back().second->leaf = leaf;
      return node->children.back().second.get();
    }
    if (next == nullptr) {
      node->children.emplace_back(path.part(i), std::make_unique<Node>());
      next = node->children.back().second.get();
    } else if (next->leaf != Leaf::kNone) {
      return Error(31249,
                   "Path collision at " + path.dotted() + " remaining portion " + path.Suffix(1));
    }
    node = next;
  }
  return node;  // unreachable: paths have at least one component
}

std::string Join(const std::string& prefix, std::string_view name) {
  return prefix.empty() ? std::string(name) : prefix + "." + std::string(name);
}

std::string FirstComponent(std::string_view path) {
  return std::string(path.substr(0, path.find('.')));
}

// Where the first positional operator sits in a projection key: ".$." in
// the middle, ".$" at the end, or the whole key "$".
std::optional<std::pair<size_t, size_t>> FindFirstPositional(std::string_view key) {
  size_t middle = key.find(".$.");
  if (middle != std::string_view::npos) return std::make_pair(middle, middle + 3);
  if (key.size() >= 2 && key.substr(key.size() - 2) == ".$") {
    return std::make_pair(key.size() - 2, key.size());
  }
  if (key == "$") return std::make_pair(size_t{0}, key.size());
  return std::nullopt;
}

// hasPositionalOperatorMatch: some path predicate of the query is on the
// top-level field `field`.
bool QueryConstrainsField(const MatchExpression* node, const std::string& field) {
  if (const auto* path_node = dynamic_cast<const PathMatchExpression*>(node)) {
    return FirstComponent(path_node->path().dotted()) == field;
  }
  for (size_t i = 0; i < node->num_children(); ++i) {
    if (QueryConstrainsField(node->child(i), field)) return true;
  }
  return false;
}

// MongoDB's aggregation expression names: a one-field sub-projection named
// after one of these is a computed field (not supported yet); any other
// '$' name is an "Unknown expression" (31325).
bool IsAggregationExpressionName(std::string_view name) {
  static constexpr std::string_view kNames[] = {
      "$abs", "$acos", "$acosh", "$add", "$allElementsTrue", "$and", "$anyElementTrue",
      "$arrayElemAt", "$arrayToObject", "$asin", "$asinh", "$atan", "$atan2", "$atanh", "$avg",
      "$binarySize", "$bitAnd", "$bitNot", "$bitOr", "$bitXor", "$bsonSize", "$ceil", "$cmp",
      "$concat", "$concatArrays", "$cond", "$convert", "$cos", "$cosh", "$dateAdd", "$dateDiff",
      "$dateFromParts", "$dateFromString", "$dateSubtract", "$dateToParts", "$dateToString",
      "$dateTrunc", "$dayOfMonth", "$dayOfWeek", "$dayOfYear", "$degreesToRadians", "$divide",
      "$eq", "$exp", "$filter", "$first", "$firstN", "$floor", "$function", "$getField", "$gt",
      "$gte", "$hour", "$ifNull", "$in", "$indexOfArray", "$indexOfBytes", "$indexOfCP",
      "$isArray", "$isNumber", "$isoDayOfWeek", "$isoWeek", "$isoWeekYear", "$last", "$lastN",
      "$let", "$literal", "$ln", "$log", "$log10", "$lt", "$lte", "$ltrim", "$map", "$max",
      "$maxN", "$median", "$mergeObjects", "$meta", "$millisecond", "$min", "$minN", "$minute",
      "$mod", "$month", "$multiply", "$ne", "$not", "$objectToArray", "$or", "$percentile",
      "$pow", "$radiansToDegrees", "$rand", "$range", "$reduce", "$regexFind", "$regexFindAll",
      "$regexMatch", "$replaceAll", "$replaceOne", "$reverseArray", "$round", "$rtrim",
      "$sampleRate", "$second", "$setDifference", "$setEquals", "$setField", "$setIntersection",
      "$setIsSubset", "$setUnion", "$sin", "$sinh", "$size", "$slice", "$sortArray", "$split",
      "$sqrt", "$stdDevPop", "$stdDevSamp", "$strLenBytes", "$strLenCP", "$strcasecmp",
      "$substr", "$substrBytes", "$substrCP", "$subtract", "$sum", "$switch", "$tan", "$tanh",
      "$toBool", "$toDate", "$toDecimal", "$toDouble", "$toHashedIndexKey", "$toInt", "$toLong",
      "$toLower", "$toObjectId", "$toString", "$toUpper", "$trim", "$trunc", "$tsIncrement",
      "$tsSecond", "$type", "$unsetField", "$week", "$year", "$zip"};
  return std::find(std::begin(kNames), std::end(kNames), name) != std::end(kNames);
}

Status NotImplementedComputed(const std::string& path) {
  return Status(ErrorCode::kNotImplemented,
                "computed projection fields (\"" + path + "\") are not supported by tigerdoc yet");
}

Status ParseElement(ParseContext* ctx, const bson_iter_t* it, const std::string& parent_path,
                    Node* parent);

// A computed field: `value` (the field's whole value) compiled as an
// aggregation expression. It makes the projection an inclusion.
Status AddComputed(ParseContext* ctx, const bson_iter_t* value, const std::string& name,
                   const std::string& full_path, Node* parent) {
  const ExpressionParser* parser = ResolveExpressionParser(ctx->expressions);
  if (parser == nullptr) return NotImplementedComputed(full_path);
  ASSIGN_OR_RETURN(std::unique_ptr<const CompiledExpression> expr, parser->Parse(value));
  ASSIGN_OR_RETURN(Node * node, AddNode(parent, bson::FieldPath(name), Leaf::kComputed));
  node->expr = std::move(expr);
  ctx->inclusion = true;
  return Status::OK();
}

// attemptToParseFindSlice: the find() forms {$slice: n} and
// {$slice: [skip, limit]}.
Status ParseFindSlice(ParseContext* ctx, const bson_iter_t* operand, const std::string& name,
                      const std::string& full_path, Node* parent) {
  Projection::Operators::PostOp op{Projection::Operators::PostOp::Kind::kSlice,
                                   bson::FieldPath(full_path), std::nullopt, 0};
  if (IsNumber(operand)) {
    op.limit = NumberInt(operand);
  } else if (BSON_ITER_HOLDS_ARRAY(operand)) {
    bson_iter_t elements;
    bson_iter_recurse(operand, &elements);
    bson_iter_t skip, limit;
    int count = 0;
    while (bson_iter_next(&elements)) {
      if (count == 0) skip = elements;
      if (count == 1) limit = elements;
      ++count;
    }
    if (count != 2) return Error(31272, "$slice array argument should be of form [skip, limit]");
    if (!IsNumber(&skip)) {
      return Error(31257, std::string("$slice expects the skip argument to be a number, got ") +
                              bson::TypeName(bson_iter_type(&skip)));
    }
    if (!IsNumber(&limit)) {
      return Error(31258, std::string("$slice expects the limit argument to be a number, got ") +
                              bson::TypeName(bson_iter_type(&limit)));
    }
    if (NumberInt(&limit) <= 0) {
      return Error(31259, "$slice limit must be positive, got " + std::to_string(NumberInt(&limit)));
    }
    op.skip = NumberInt(&skip);
    op.limit = NumberInt(&limit);
  } else {
    return Error(31273, "$slice only supports numbers and [skip, limit] arrays");
  }
  RETURN_IF_ERROR(AddNode(parent, bson::FieldPath(name), Leaf::kSlice).status());
  ctx->operators->post_ops.push_back(std::move(op));
  ctx->has_find_slice = true;
  return Status::OK();
}

// {a: {$slice: ...}}: the find() form, else the aggregation expression
// $slice (2 or 3 arguments), which tigerdoc does not evaluate; when neither
// parses, MongoDB's combined error.
Status ParseSlice(ParseContext* ctx, const bson_iter_t* field, const bson_iter_t* operand,
                  const bson_t* sub_object, const std::string& name, const std::string& full_path,
                  Node* parent) {
  Status find_status = ParseFindSlice(ctx, operand, name, full_path, parent);
  if (find_status.ok()) return find_status;
  if (find_status.code_number() == 31249 || find_status.code_number() == 31250) {
    return find_status;  // the find() form parsed; only its path collides
  }
  int arguments = 1;
  if (BSON_ITER_HOLDS_ARRAY(operand)) {
    arguments = 0;
    bson_iter_t elements;
    bson_iter_recurse(operand, &elements);
    while (bson_iter_next(&elements)) ++arguments;
  }
  const std::string context = "Invalid $slice syntax. The given syntax " +
                              bson::ToShellString(sub_object) +
                              " did not match the find() syntax because :: Location" +
                              std::to_string(find_status.code_number()) + ": " +
                              find_status.reason() +
                              " :: The given syntax did not match the expression $slice syntax.";
  if (arguments < 2 || arguments > 3) {
    return Error(28667, context + " :: caused by :: Expression $slice takes at least 2 "
                                  "arguments, and at most 3, but " +
                            std::to_string(arguments) + " were passed in.");
  }
  if (ctx->inclusion == false) {
    return Error(31252, context + " :: caused by :: Cannot use expression other than $meta in "
                                  "exclusion projection");
  }
  return AddComputed(ctx, field, name, full_path, parent);
}

Status ParseElemMatch(ParseContext* ctx, const bson_iter_t* operand, const std::string& name,
                      const std::string& full_path, Node* parent) {
  if (!BSON_ITER_HOLDS_DOCUMENT(operand)) {
    return Error(31274, std::string("elemMatch: Invalid argument, object required, but got ") +
                            bson::TypeName(bson_iter_type(operand)));
  }
  if (ctx->has_positional) return Error(31255, "Cannot specify positional operator and $elemMatch.");
  if (parent != ctx->root || bson::FieldPath(name).size() != 1) {
    return Error(31275, "Cannot use $elemMatch projection on a nested field.");
  }
  bson::BsonDoc filter;
  bson_t field;
  bson_append_document_begin(filter.mutable_get(), name.data(), static_cast<int>(name.size()),
                             &field);
  bson_append_iter(&field, "$elemMatch", -1, operand);
  bson_append_document_end(filter.mutable_get(), &field);
  ASSIGN_OR_RETURN(std::unique_ptr<Matcher> matcher, Matcher::Parse(filter.get()));
  RETURN_IF_ERROR(AddNode(parent, bson::FieldPath(name), Leaf::kElemMatch).status());
  ctx->operators->elem_matches.push_back({full_path, std::move(matcher)});
  ctx->has_elem_match = true;
  return Status::OK();
}

Status ParseSubObject(ParseContext* ctx, const std::string& name, const bson_iter_t* it,
                      const std::string& parent_path, Node* parent) {
  RETURN_IF_ERROR(CheckFieldPath(name));
  const std::string full_path = Join(parent_path, name);
  bson_t sub;
  bson::OpenSubdocument(it, &sub);
  bson_iter_t first;
  if (!bson_iter_init(&first, &sub) || !bson_iter_next(&first)) {
    return Error(51270, "An empty sub-projection is not a valid value. Found empty object at path");
  }
  const char* first_key = bson_iter_key(&first);
  if (bson_count_keys(&sub) == 1 && first_key[0] == '$') {
    if (std::strcmp(first_key, "$slice") == 0) {
      return ParseSlice(ctx, it, &first, &sub, name, full_path, parent);
    }
    if (std::strcmp(first_key, "$elemMatch") == 0) {
      return ParseElemMatch(ctx, &first, name, full_path, parent);
    }
    if (!IsAggregationExpressionName(first_key)) {
      return Error(31325, std::string("Unknown expression ") + first_key);
    }
    if (std::strcmp(first_key, "$meta") != 0 && ctx->inclusion == false) {
      return Error(31252, "Cannot use expression other than $meta in exclusion projection");
    }
    if (std::strcmp(first_key, "$meta") == 0) {
      return Status(ErrorCode::kNotImplemented,
                    std::string("projection operator ") + first_key +
                        " is not supported by tigerdoc yet");
    }
    return AddComputed(ctx, it, name, full_path, parent);
  }
  // A sub-projection: {a: {b: 1}} is {"a.b": 1}.
  bson::FieldPath path(name);
  Node* node = parent;
  for (const std::string& part : path.parts()) {
    Node* next = node->Find(part);
    if (next == nullptr) {
      node->children.emplace_back(part, std::make_unique<Node>());
      next = node->children.back().second.get();
    } else if (next->leaf != Leaf::kNone) {
      return Error(31249, "Path collision at " + full_path + " remaining portion " +
                              bson::FieldPath(full_path).Suffix(1));
    }
    node = next;
  }
  bson_iter_t child;
  bson_iter_init(&child, &sub);
  while (bson_iter_next(&child)) RETURN_IF_ERROR(ParseElement(ctx, &child, full_path, node));
  return Status::OK();
}

Status ParseInclusion(ParseContext* ctx, const std::string& name, const std::string& parent_path,
                      Node* parent, std::optional<std::pair<size_t, size_t>> positional) {
  const bool top_level_id = name == "_id" && parent == ctx->root;
  if (!positional) {
    RETURN_IF_ERROR(CheckFieldPath(name));
    RETURN_IF_ERROR(AddNode(parent, bson::FieldPath(name), Leaf::kInclude).status());
    if (top_level_id) ctx->id_included_entirely = true;
  } else {
    if (ctx->has_positional) {
      return Error(31276, "Cannot specify more than one positional projection per query.");
    }
    if (ctx->has_elem_match) return Error(31256, "Cannot specify positional operator and $elemMatch.");
    const std::string match_field = parent_path.empty() ? FirstComponent(name)
                                                        : FirstComponent(parent_path);
    if (ctx->query == nullptr) return Error(51050, "Projections with a positional operator require a matcher");
    if (!QueryConstrainsField(ctx->query->root(), match_field)) {
      return Error(31277, "Positional projection '" + name + "' does not match the query document.");
    }
    if (name.size() >= 3 && name.compare(name.size() - 3, 3, ".$.") == 0) {
      return Error(31270, "Path cannot end with '.$.'");
    }
    const std::string_view rest = std::string_view(name).substr(positional->second);
    if (FindFirstPositional(rest) || rest == "$") {
      return Error(31287, "Cannot use positional operator twice: " + name);
    }
    const std::string path = name.substr(0, positional->first);
    RETURN_IF_ERROR(CheckFieldPath(path));
    RETURN_IF_ERROR(AddNode(parent, bson::FieldPath(path), Leaf::kPositional).status());
    ctx->operators->post_ops.push_back({Projection::Operators::PostOp::Kind::kPositional,
                                        bson::FieldPath(Join(parent_path, path)), std::nullopt, 0});
    ctx->has_positional = true;
  }
  if (!top_level_id) {
    if (ctx->inclusion == false) {
      return Error(31253, "Cannot do inclusion on field " + name + " in exclusion projection");
    }
    ctx->inclusion = true;
  }
  return Status::OK();
}

Status ParseExclusion(ParseContext* ctx, const std::string& name, Node* parent) {
  RETURN_IF_ERROR(CheckFieldPath(name));
  RETURN_IF_ERROR(AddNode(parent, bson::FieldPath(name), Leaf::kExclude).status());
  if (name == "_id" && parent == ctx->root) {
    ctx->id_excluded_entirely = true;
    return Status::OK();
  }
  if (ctx->inclusion == true) {
    return Error(31254, "Cannot do exclusion on field " + name + " in inclusion projection");
  }
  ctx->inclusion = false;
  return Status::OK();
}

Status ParseElement(ParseContext* ctx, const bson_iter_t* it, const std::string& parent_path,
                    Node* parent) {
  const std::string name = bson_iter_key(it);
  const auto positional = FindFirstPositional(name);
  if (BSON_ITER_HOLDS_DOCUMENT(it)) {
    if (positional) {
      return Error(31271, "positional projection cannot be used with an expression or sub object");
    }
    return ParseSubObject(ctx, name, it, parent_path, parent);
  }
  if (IsInclusionOrExclusionType(it)) {
    if (IsTruthyNumberOrBool(it)) return ParseInclusion(ctx, name, parent_path, parent, positional);
    return ParseExclusion(ctx, name, parent);
  }
  if (positional) return Error(31308, "positional projection cannot be used with a literal");
  RETURN_IF_ERROR(CheckFieldPath(name));
  if (ctx->inclusion == false) {
    return Error(31310, "Cannot use an expression " + ElementString(it) +
                            " in an exclusion projection");
  }
  return AddComputed(ctx, it, name, Join(parent_path, name), parent);
}

// computeProjectionType, for projections whose fields did not decide.
bool DefaultIsInclusion(const ParseContext& ctx) {
  if (ctx.has_find_slice) return ctx.id_included_entirely;
  if (ctx.has_elem_match) return true;
  return ctx.id_included_entirely;
}

// --- applying -------------------------------------------------------------

// Whether the value under a leaf survives the inclusion/exclusion pass:
// $slice and positional paths are inclusions (kept in an exclusion too, to
// be cut later); $elemMatch fields are computed afterwards.
bool KeepsLeaf(Leaf leaf, bool inclusion) {
  if (inclusion) return leaf == Leaf::kInclude || leaf == Leaf::kPositional || leaf == Leaf::kSlice;
  return leaf != Leaf::kExclude;
}

// What one application evaluates computed fields against, and their first
// error.
struct ApplyState {
  const bson_t* root = nullptr;
  Status error;
};

void ApplyToDocument(const bson_t* in, const Node& node, bool inclusion, bson_t* out,
                     ApplyState* state);
void ApplyToArray(const bson_t* in, const Node& node, bool inclusion, bson_t* out,
                  ApplyState* state);

// The computed fields under `node` alone, as a new document at `key`: what
// a computed path makes of a missing field or a scalar on its way.
void AppendComputedOnly(const Node& node, const char* key, bson_t* out, ApplyState* state) {
  bson_t empty = BSON_INITIALIZER;
  bson_t sub;
  bson_append_document_begin(out, key, -1, &sub);
  ApplyToDocument(&empty, node, /*inclusion=*/true, &sub, state);
  bson_append_document_end(out, &sub);
}

// Appends the document or array at `it` under `key`, projected by `node`.
void ApplyToNested(const bson_iter_t* it, const char* key, const Node& node, bool inclusion,
                   bson_t* out, ApplyState* state) {
  bson_t sub_in, sub_out;
  bson::OpenSubdocument(it, &sub_in);
  if (BSON_ITER_HOLDS_ARRAY(it)) {
    bson_append_array_begin(out, key, -1, &sub_out);
    ApplyToArray(&sub_in, node, inclusion, &sub_out, state);
    bson_append_array_end(out, &sub_out);
  } else {
    bson_append_document_begin(out, key, -1, &sub_out);
    ApplyToDocument(&sub_in, node, inclusion, &sub_out, state);
    bson_append_document_end(out, &sub_out);
  }
}

// Arrays met on a projected path: apply to each element. Inclusion keeps
// documents (projected) and arrays (recursively) and drops scalars (or,
// when fields are computed below, replaces them by those fields);
// exclusion keeps every element, projecting documents and arrays.
void ApplyToArray(const bson_t* in, const Node& node, bool inclusion, bson_t* out,
                  ApplyState* state) {
  bson_iter_t it;
  bson_iter_init(&it, in);
  uint32_t index = 0;
  while (bson_iter_next(&it)) {
    char key_buf[16];
    const char* key = nullptr;
    bson_uint32_to_string(index, &key, key_buf, sizeof(key_buf));
    if (BSON_ITER_HOLDS_DOCUMENT(&it) || BSON_ITER_HOLDS_ARRAY(&it)) {
      ApplyToNested(&it, key, node, inclusion, out, state);
      ++index;
    } else if (!inclusion) {
      bson_append_iter(out, key, -1, &it);
      ++index;
    } else if (node.has_computed) {
      AppendComputedOnly(node, key, out, state);
      ++index;
    }
  }
}

void ApplyToDocument(const bson_t* in, const Node& node, bool inclusion, bson_t* out,
                     ApplyState* state) {
  // Sub-trees with computed fields that this document already had (and so
  // were written in place).
  std::vector<const Node*> written;
  bson_iter_t it;
  bson_iter_init(&it, in);
  while (bson_iter_next(&it)) {
    const char* key = bson_iter_key(&it);
    const Node* child = node.Find(key);
    if (child == nullptr) {
      if (!inclusion) bson_append_iter(out, key, -1, &it);
      continue;
    }
    if (child->leaf != Leaf::kNone) {
      if (KeepsLeaf(child->leaf, inclusion)) bson_append_iter(out, key, -1, &it);
      continue;
    }
    if (child->has_computed) written.push_back(child);
    if (BSON_ITER_HOLDS_DOCUMENT(&it) || BSON_ITER_HOLDS_ARRAY(&it)) {
      ApplyToNested(&it, key, *child, inclusion, out, state);
    } else if (!inclusion) {
      // A scalar where the spec expects a document: nothing to exclude.
      bson_append_iter(out, key, -1, &it);
    } else if (child->has_computed) {
      AppendComputedOnly(*child, key, out, state);
    }
  }
  if (!inclusion || !node.has_computed) return;
  // Computed fields follow the included ones, in specification order.
  for (const auto& [name, child] : node.children) {
    if (child->leaf == Leaf::kComputed) {
      Status status = child->expr->AppendTo(state->root, name, out);
      if (!status.ok() && state->error.ok()) state->error = status;
    } else if (child->leaf == Leaf::kNone && child->has_computed &&
               std::find(written.begin(), written.end(), child.get()) == written.end()) {
      AppendComputedOnly(*child, name.c_str(), out, state);
    }
  }
}

// Sets has_computed bottom-up; returns the root's.
bool MarkComputed(Node* node) {
  bool any = node->leaf == Leaf::kComputed;
  for (auto& [name, child] : node->children) any = MarkComputed(child.get()) || any;
  node->has_computed = any;
  return any;
}

void AppendIndexKey(uint32_t index, bson_t* out, const bson_iter_t* value) {
  char key_buf[16];
  const char* key = nullptr;
  bson_uint32_to_string(index, &key, key_buf, sizeof(key_buf));
  bson_append_iter(out, key, -1, value);
}

// sliceArray: `skip` absent: limit >= 0 the first `limit`, < 0 the last
// -limit; `skip` present (limit > 0): skip < 0 starts that far from the
// end (clamped to 0), else at min(skip, len).
void AppendSliced(const bson_iter_t* array, std::optional<int32_t> skip, int32_t limit,
                  const char* key, bson_t* out) {
  bson_iter_t elements;
  bson_iter_recurse(array, &elements);
  int64_t len = 0;
  for (bson_iter_t count = elements; bson_iter_next(&count);) ++len;
  int64_t start = 0, forward = 0;
  if (!skip) {
    if (limit < 0) {
      start = std::max<int64_t>(0, len + limit);
      forward = len - start;
    } else {
      forward = std::min<int64_t>(len, limit);
    }
  } else if (*skip < 0) {
    start = std::max<int64_t>(0, len + *skip);
    forward = std::min<int64_t>(len - start, limit);
  } else {
    start = std::min<int64_t>(len, *skip);
    forward = std::min<int64_t>(len - start, limit);
  }
  bson_t sliced;
  bson_append_array_begin(out, key, -1, &sliced);
  uint32_t out_index = 0;
  for (int64_t i = 0; bson_iter_next(&elements); ++i) {
    if (i >= start && i < start + forward) AppendIndexKey(out_index++, &sliced, &elements);
  }
  bson_append_array_end(out, &sliced);
}

// applyFindSliceProjectionHelper: rewrites the first field named
// path[i]; arrays before the last component are mapped element by element
// (documents continue, anything else is kept).
void SliceDocument(const bson_t* in, const Projection::Operators::PostOp& op, size_t i,
                   bson_t* out);

void SliceArrayElements(const bson_iter_t* array, const Projection::Operators::PostOp& op,
                        size_t i, const char* key, bson_t* out) {
  bson_t mapped;
  bson_append_array_begin(out, key, -1, &mapped);
  bson_iter_t elements;
  bson_iter_recurse(array, &elements);
  for (uint32_t index = 0; bson_iter_next(&elements); ++index) {
    if (BSON_ITER_HOLDS_DOCUMENT(&elements)) {
      char key_buf[16];
      const char* element_key = nullptr;
      bson_uint32_to_string(index, &element_key, key_buf, sizeof(key_buf));
      bson_t sub_in, sub_out;
      bson::OpenSubdocument(&elements, &sub_in);
      bson_append_document_begin(&mapped, element_key, -1, &sub_out);
      SliceDocument(&sub_in, op, i, &sub_out);
      bson_append_document_end(&mapped, &sub_out);
    } else {
      AppendIndexKey(index, &mapped, &elements);
    }
  }
  bson_append_array_end(out, &mapped);
}

// Copies `in` to `out` but for its first field named `name`, which
// `replace(it, key)` appends (to `out`) in its stead.
template <typename Replace>
void CopyReplacingFirst(const bson_t* in, std::string_view name, bson_t* out, Replace replace) {
  bool done = false;
  bson_iter_t it;
  bson_iter_init(&it, in);
  while (bson_iter_next(&it)) {
    const char* key = bson_iter_key(&it);
    if (done || name != key) {
      bson_append_iter(out, key, -1, &it);
      continue;
    }
    done = true;
    replace(&it, key);
  }
}

void SliceDocument(const bson_t* in, const Projection::Operators::PostOp& op, size_t i,
                   bson_t* out) {
  const bool last = i + 1 == op.path.size();
  CopyReplacingFirst(in, op.path.part(i), out, [&](const bson_iter_t* it, const char* key) {
    if (BSON_ITER_HOLDS_ARRAY(it)) {
      if (last) {
        AppendSliced(it, op.skip, op.limit, key, out);
      } else {
        SliceArrayElements(it, op, i + 1, key, out);
      }
    } else if (BSON_ITER_HOLDS_DOCUMENT(it) && !last) {
      bson_t sub_in, sub_out;
      bson::OpenSubdocument(it, &sub_in);
      bson_append_document_begin(out, key, -1, &sub_out);
      SliceDocument(&sub_in, op, i + 1, &sub_out);
      bson_append_document_end(out, &sub_out);
    } else {
      bson_append_iter(out, key, -1, it);
    }
  });
}

// Copies `in`, replacing the value at path[0..depth] (reached through
// documents only) by the one-element array [*element].
void ReplaceWithElement(const bson_t* in, const bson::FieldPath& path, size_t i, size_t depth,
                        const bson_iter_t* element, bson_t* out) {
  CopyReplacingFirst(in, path.part(i), out, [&](const bson_iter_t* it, const char* key) {
    if (i == depth) {
      bson_t one;
      bson_append_array_begin(out, key, -1, &one);
      bson_append_iter(&one, "0", 1, element);
      bson_append_array_end(out, &one);
    } else {
      bson_t sub_in, sub_out;
      bson::OpenSubdocument(it, &sub_in);
      bson_append_document_begin(out, key, -1, &sub_out);
      ReplaceWithElement(&sub_in, path, i + 1, depth, element, &sub_out);
      bson_append_document_end(out, &sub_out);
    }
  });
}

// applyFindPositionalProjection on the projected document `post`: the
// first array on `path` becomes [its element at the recorded index].
// Returns the new document, or nullopt when `path` meets no array.
StatusWith<std::optional<bson::BsonDoc>> ApplyPositional(const bson_t* post,
                                                         const bson::FieldPath& path,
                                                         const MatchDetails& details) {
  bson_t view;
  const bson_t* current = post;
  for (size_t i = 0; i < path.size(); ++i) {
    bson_iter_t it;
    const std::string& name = path.part(i);
    if (!bson_iter_init(&it, current) ||
        !bson_iter_find_w_len(&it, name.data(), static_cast<int>(name.size()))) {
      return std::optional<bson::BsonDoc>();
    }
    if (BSON_ITER_HOLDS_ARRAY(&it)) {
      if (!details.has_elem_match_index()) {
        return Error(51246, "positional operator '.$' couldn't find a matching element in the array");
      }
      bson_iter_t elements;
      bson_iter_recurse(&it, &elements);
      size_t position = 0;
      bool found = false;
      while (bson_iter_next(&elements)) {
        if (position++ == *details.elem_match_index()) {
          found = true;
          break;
        }
      }
      if (!found) return Error(51247, "positional operator '.$' element mismatch");
      bson::BsonDoc out;
      ReplaceWithElement(post, path, 0, i, &elements, out.mutable_get());
      return std::optional<bson::BsonDoc>(std::move(out));
    }
    if (!BSON_ITER_HOLDS_DOCUMENT(&it) || !bson::OpenSubdocument(&it, &view)) {
      return std::optional<bson::BsonDoc>();
    }
    current = &view;
  }
  return std::optional<bson::BsonDoc>();
}

// The array element of `field` that `matcher` ({field: {$elemMatch: ...}})
// matched in `doc`, or nullopt.
std::optional<bson::AlignedIter> ElemMatchElement(const bson_t* doc, const std::string& field,
                                                  const Matcher& matcher) {
  MatchDetails details;
  if (!matcher.Matches(doc, &details) || !details.has_elem_match_index()) return std::nullopt;
  bson_iter_t it;
  if (!bson_iter_init_find_w_len(&it, doc, field.data(), static_cast<int>(field.size())) ||
      !BSON_ITER_HOLDS_ARRAY(&it)) {
    return std::nullopt;
  }
  bson_iter_t elements;
  bson_iter_recurse(&it, &elements);
  for (size_t position = 0; bson_iter_next(&elements); ++position) {
    if (position == *details.elem_match_index()) return bson::AlignedIter{elements};
  }
  return std::nullopt;
}

}  // namespace

StatusWith<Projection> Projection::Parse(const bson_t* spec) { return Parse(spec, nullptr); }

StatusWith<Projection> Projection::Parse(const bson_t* spec, const bson_t* query,
                                        const ExpressionParser* expressions) {
  auto root = std::make_unique<Node>();
  auto operators = std::make_unique<Operators>();
  ParseContext ctx;
  ctx.expressions = expressions;
  if (query != nullptr) {
    ASSIGN_OR_RETURN(operators->query, Matcher::Parse(query, expressions));
    ctx.query = operators->query.get();
  }
  ctx.root = root.get();
  ctx.operators = operators.get();

  bool id_specified = false;
  bson_iter_t it;
  bson_iter_init(&it, spec);
  while (bson_iter_next(&it)) {
    const std::string_view key = bson_iter_key(&it);
    id_specified = id_specified || key == "_id" || key.substr(0, 4) == "_id.";
    RETURN_IF_ERROR(ParseElement(&ctx, &it, "", root.get()));
  }
  const bool inclusion = ctx.inclusion.value_or(DefaultIsInclusion(ctx));
  if (inclusion && !id_specified) {
    RETURN_IF_ERROR(AddNode(root.get(), bson::FieldPath("_id"), Leaf::kInclude).status());
  }
  if (!ctx.has_positional) operators->query.reset();  // only positional reads it
  MarkComputed(root.get());
  return Projection(inclusion, std::move(root), std::move(operators), ctx.has_positional);
}

namespace {

// The whole projection; `strict` reports positional errors, otherwise the
// failing positional step is skipped.
StatusWith<bson::BsonDoc> ApplyAll(const bson_t* doc, const Node& root, bool inclusion,
                                   const Projection::Operators& ops, const MatchDetails* details,
                                   bool strict) {
  bson::BsonDoc result;
  ApplyState state;
  state.root = doc;
  ApplyToDocument(doc, root, inclusion, result.mutable_get(), &state);
  if (strict) RETURN_IF_ERROR(state.error);

  // $elemMatch fields, computed from the input document.
  if (!ops.elem_matches.empty()) {
    std::vector<std::optional<bson::AlignedIter>> found;
    for (const auto& em : ops.elem_matches) found.push_back(ElemMatchElement(doc, em.field, *em.matcher));
    bson::BsonDoc next;
    bson_t* out = next.mutable_get();
    auto append_found = [&](size_t i) {
      bson_t one;
      const std::string& field = ops.elem_matches[i].field;
      bson_append_array_begin(out, field.data(), static_cast<int>(field.size()), &one);
      bson_append_iter(&one, "0", 1, &found[i]->it);
      bson_append_array_end(out, &one);
    };
    std::vector<bool> placed(found.size(), false);
    bson_iter_t it;
    bson_iter_init(&it, result.get());
    while (bson_iter_next(&it)) {
      const char* key = bson_iter_key(&it);
      size_t i = 0;
      while (i < ops.elem_matches.size() && ops.elem_matches[i].field != key) ++i;
      if (i == ops.elem_matches.size() || placed[i]) {
        bson_append_iter(out, key, -1, &it);
        continue;
      }
      // Exclusion: in place (or gone when nothing matched).
      placed[i] = true;
      if (found[i]) append_found(i);
    }
    // Inclusion: after the included fields, in spec order.
    for (size_t i = 0; i < found.size(); ++i) {
      if (!placed[i] && found[i]) append_found(i);
    }
    result = std::move(next);
  }

  std::optional<MatchDetails> own_details;
  for (const auto& op : ops.post_ops) {
    if (op.kind == Projection::Operators::PostOp::Kind::kSlice) {
      bson::BsonDoc next;
      SliceDocument(result.get(), op, 0, next.mutable_get());
      result = std::move(next);
      continue;
    }
    if (details == nullptr) {
      own_details.emplace();
      ops.query->Matches(doc, &*own_details);
      details = &*own_details;
    }
    StatusWith<std::optional<bson::BsonDoc>> replaced = ApplyPositional(result.get(), op.path, *details);
    if (!replaced.ok()) {
      if (strict) return replaced.status();
      continue;
    }
    if (replaced.value()) result = std::move(*replaced.value());
  }
  return result;
}

}  // namespace

StatusWith<bson::BsonDoc> Projection::Apply(const bson_t* doc, const MatchDetails* details) const {
  return ApplyAll(doc, *root_, inclusion_, *operators_, details, /*strict=*/true);
}

bson::BsonDoc Projection::Apply(const bson_t* doc) const {
  StatusWith<bson::BsonDoc> out = ApplyAll(doc, *root_, inclusion_, *operators_, nullptr, false);
  return std::move(out.value());
}

}  // namespace tigerdoc::query
