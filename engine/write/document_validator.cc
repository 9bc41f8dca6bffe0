#include "engine/bson/aligned_iter.h"
#include "engine/write/document_validator.h"

#include <cstdio>
#include <cstring>
#include <string>
#include <utility>

#include "engine/bson/field_path.h"
#include "engine/bson/type_name.h"
#include "engine/command_expressions.h"
#include "engine/log/log.h"
#include "engine/query/matcher/json_schema.h"
#include "engine/query/matcher/matcher.h"
#include "engine/write/document_rules.h"

// The explain tree mirrors the validator document, not the matcher's tree:
// MongoDB reports clauses as the user wrote them (specifiedAs), one entry
// per operator of a path ({a: {$gt: 1, $lt: 5}} is two clauses of the
// top-level $and), and a top-level $and of one clause is that clause.
//
//   {a: {$gt: 1}, $or: [{b: 1}, {$jsonSchema: {...}}]}
//
//                 $and (implicit)
//            ┌────────┴────────┐
//        $gt a              $or
//                      ┌──────┴──────┐
//                    $eq b      $jsonSchema
//
// Each clause owns a Matcher of its own specifiedAs, so Explain() can ask
// which clauses fail.

namespace tigerdoc::engine {

struct Validator::Clause {
  enum class Kind { kLeaf, kAnd, kOr, kNor, kNot, kJsonSchema, kExpr, kAlwaysFalse, kAlwaysTrue };
  Kind kind = Kind::kLeaf;
  std::string op;    // operatorName: "$gt", "$and", ...
  std::string path;  // leaves
  bool exists_false = false;  // {$exists: false}
  bson::BsonDoc specified_as;
  std::unique_ptr<query::Matcher> matcher;
  std::vector<std::unique_ptr<Clause>> children;
};

namespace {

using Clause = Validator::Clause;

Status NotAllowed(std::string_view op) {
  if (op == "$where") return Status(ErrorCode::kBadValue, "$where is not allowed in this context");
  if (op == "$text") return Status(ErrorCode::kBadValue, "$text is not allowed in this context");
  return Status(ErrorCode::kBadValue,
                "$geoNear, $near, and $nearSphere are not allowed in this context");
}

bool IsForbidden(std::string_view key) {
  return key == "$where" || key == "$text" || key == "$near" || key == "$nearSphere" ||
         key == "$geoNear";
}

// Refuses the operators a validator may not hold, at any depth of the
// filter grammar ($and/$or/$nor, path operator documents, $not, $elemMatch).
Status CheckAllowed(const bson_t* filter) {
  bson_iter_t it;
  bson_iter_init(&it, filter);
  while (bson_iter_next(&it)) {
    std::string_view key = bson_iter_key(&it);
    if (IsForbidden(key)) return NotAllowed(key);
    if ((key == "$and" || key == "$or" || key == "$nor") && BSON_ITER_HOLDS_ARRAY(&it)) {
      bson_iter_t e;
      bson_iter_recurse(&it, &e);
      while (bson_iter_next(&e)) {
        if (!BSON_ITER_HOLDS_DOCUMENT(&e)) continue;
        bson_t sub;
        bson::OpenSubdocument(&e, &sub);
        RETURN_IF_ERROR(CheckAllowed(&sub));
      }
    } else if (!key.empty() && key[0] != '$' && BSON_ITER_HOLDS_DOCUMENT(&it)) {
      bson_t ops;
      bson::OpenSubdocument(&it, &ops);
      bson_iter_t o;
      bson_iter_init(&o, &ops);
      while (bson_iter_next(&o)) {
        std::string_view op = bson_iter_key(&o);
        if (IsForbidden(op)) return NotAllowed(op);
        if ((op == "$not" || op == "$elemMatch") && BSON_ITER_HOLDS_DOCUMENT(&o)) {
          bson_t sub;
          bson::OpenSubdocument(&o, &sub);
          RETURN_IF_ERROR(CheckAllowed(&sub));
        }
      }
    }
  }
  return Status::OK();
}

bool IsOperatorDocument(const bson_iter_t* it) {
  if (!BSON_ITER_HOLDS_DOCUMENT(it)) return false;
  bson_t sub;
  bson::OpenSubdocument(it, &sub);
  bson_iter_t first;
  if (!bson_iter_init(&first, &sub) || !bson_iter_next(&first)) return false;
  const char* k = bson_iter_key(&first);
  return k[0] == '$' && std::strcmp(k, "$ref") != 0 && std::strcmp(k, "$id") != 0 &&
         std::strcmp(k, "$db") != 0;
}

StatusWith<std::unique_ptr<Clause>> MakeClause(Clause::Kind kind, std::string op,
                                               bson::BsonDoc specified_as,
                                               const query::ExpressionParser* parser) {
  auto c = std::make_unique<Clause>();
  c->kind = kind;
  c->op = std::move(op);
  c->specified_as = std::move(specified_as);
  ASSIGN_OR_RETURN(c->matcher, query::Matcher::Parse(c->specified_as.get(), parser));
  return c;
}

StatusWith<std::unique_ptr<Clause>> BuildFilter(const bson_t* filter,
                                                const query::ExpressionParser* parser);

Status BuildClauses(const bson_t* filter, const query::ExpressionParser* parser,
                    std::vector<std::unique_ptr<Clause>>* out) {
  bson_iter_t it;
  bson_iter_init(&it, filter);
  while (bson_iter_next(&it)) {
    const std::string key = bson_iter_key(&it);
    bson::BsonDoc spec;
    bson_append_iter(spec.mutable_get(), key.c_str(), -1, &it);
    if (key == "$and" || key == "$or" || key == "$nor") {
      Clause::Kind kind = key == "$and" ? Clause::Kind::kAnd
                          : key == "$or" ? Clause::Kind::kOr
                                         : Clause::Kind::kNor;
      ASSIGN_OR_RETURN(auto c, MakeClause(kind, key, std::move(spec), parser));
      bson_iter_t e;
      bson_iter_recurse(&it, &e);
      while (bson_iter_next(&e)) {
        bson_t sub;
        bson::OpenSubdocument(&e, &sub);
        ASSIGN_OR_RETURN(auto child, BuildFilter(&sub, parser));
        c->children.push_back(std::move(child));
      }
      out->push_back(std::move(c));
    } else if (key == "$comment") {
      continue;
    } else if (key == "$jsonSchema") {
      ASSIGN_OR_RETURN(auto c, MakeClause(Clause::Kind::kJsonSchema, key, std::move(spec), parser));
      out->push_back(std::move(c));
    } else if (key == "$expr") {
      ASSIGN_OR_RETURN(auto c, MakeClause(Clause::Kind::kExpr, key, std::move(spec), parser));
      out->push_back(std::move(c));
    } else if (key == "$alwaysFalse" || key == "$alwaysTrue") {
      ASSIGN_OR_RETURN(auto c, MakeClause(key == "$alwaysFalse" ? Clause::Kind::kAlwaysFalse
                                                                : Clause::Kind::kAlwaysTrue,
                                          key, std::move(spec), parser));
      out->push_back(std::move(c));
    } else if (!key.empty() && key[0] == '$') {
      ASSIGN_OR_RETURN(auto c, MakeClause(Clause::Kind::kLeaf, key, std::move(spec), parser));
      out->push_back(std::move(c));
    } else if (IsOperatorDocument(&it)) {
      bson_t ops;
      bson::OpenSubdocument(&it, &ops);
      bson_iter_t o;
      bson_iter_init(&o, &ops);
      const bool has_regex = bson_iter_init_find(&o, &ops, "$regex");
      bson_iter_init(&o, &ops);
      while (bson_iter_next(&o)) {
        const std::string op = bson_iter_key(&o);
        if (op == "$options" && has_regex) continue;
        bson::BsonDoc one;
        bson_t inner;
        bson_append_document_begin(one.mutable_get(), key.c_str(), -1, &inner);
        bson_append_iter(&inner, op.c_str(), -1, &o);
        bson_iter_t options;
        if (op == "$regex" && bson_iter_init_find(&options, &ops, "$options")) {
          bson_append_iter(&inner, "$options", -1, &options);
        }
        bson_append_document_end(one.mutable_get(), &inner);
        ASSIGN_OR_RETURN(auto c, MakeClause(op == "$not" ? Clause::Kind::kNot : Clause::Kind::kLeaf,
                                            op, std::move(one), parser));
        c->path = key;
        c->exists_false = op == "$exists" && !bson_iter_as_bool(&o);
        out->push_back(std::move(c));
      }
    } else {
      const char* op = BSON_ITER_HOLDS_REGEX(&it) ? "$regex" : "$eq";
      ASSIGN_OR_RETURN(auto c, MakeClause(Clause::Kind::kLeaf, op, std::move(spec), parser));
      c->path = key;
      out->push_back(std::move(c));
    }
  }
  return Status::OK();
}

StatusWith<std::unique_ptr<Clause>> BuildFilter(const bson_t* filter,
                                                const query::ExpressionParser* parser) {
  std::vector<std::unique_ptr<Clause>> clauses;
  RETURN_IF_ERROR(BuildClauses(filter, parser, &clauses));
  if (clauses.size() == 1) return std::move(clauses[0]);
  ASSIGN_OR_RETURN(auto c, MakeClause(Clause::Kind::kAnd, "$and", bson::BsonDoc::CopyOf(filter), parser));
  c->children = std::move(clauses);
  return c;
}

// --- explain ----------------------------------------------------------------

const char* LeafReason(const std::string& op) {
  if (op == "$eq" || op == "$gt" || op == "$gte" || op == "$lt" || op == "$lte") {
    return "comparison failed";
  }
  if (op == "$ne") return "comparison succeeded";
  if (op == "$in") return "no matching value found in array";
  if (op == "$nin") return "matching value found in array";
  if (op == "$type") return "type did not match";
  if (op == "$regex") return "regular expression did not match";
  if (op == "$size") return "array length was not equal to given size";
  if (op == "$elemMatch") return "array did not satisfy the child predicate";
  if (op == "$all") return "array did not contain all specified values";
  if (op == "$mod") return "$mod did not evaluate to expected remainder";
  if (op.rfind("$bits", 0) == 0) return "bitwise operator failed to match";
  return "expression did not match";
}

// The values a leaf looks at: each value at the path, a leaf array
// replaced by its elements (MongoDB's kTraverseOmitArray). nullopt when the
// path is missing.
std::optional<std::vector<const bson_iter_t*>> ConsideredValues(
    const bson_t* doc, const std::string& path, std::vector<bson::AlignedIter>* storage) {
  storage->reserve(256);
  bool found = false;
  bson::FieldPath fp(path);
  bson::VisitPath(doc, fp, bson::LeafArrays::kNoTraversal, [&](const bson_iter_t* v) {
    if (v == nullptr) return true;
    found = true;
    if (BSON_ITER_HOLDS_ARRAY(v)) {
      bson_iter_t e;
      bson_iter_recurse(v, &e);
      while (bson_iter_next(&e) && storage->size() < 256) storage->push_back({e});
    } else if (storage->size() < 256) {
      storage->push_back({*v});
    }
    return storage->size() < 256;
  });
  if (!found) return std::nullopt;
  std::vector<const bson_iter_t*> out;
  for (const bson::AlignedIter& v : *storage) out.push_back(&v.it);
  return out;
}

void AppendConsidered(bson_t* out, const std::vector<const bson_iter_t*>& values, bool with_type) {
  if (values.size() == 1) {
    bson_append_value(out, "consideredValue", -1, bson_iter_value(const_cast<bson_iter_t*>(values[0])));
  } else {
    bson_t arr;
    bson_append_array_begin(out, "consideredValues", -1, &arr);
    for (size_t i = 0; i < values.size(); ++i) {
      std::string k = std::to_string(i);
      bson_append_value(&arr, k.c_str(), -1, bson_iter_value(const_cast<bson_iter_t*>(values[i])));
    }
    bson_append_array_end(out, &arr);
  }
  if (!with_type || values.empty()) return;
  std::vector<std::string> types;
  for (const bson_iter_t* v : values) {
    std::string t = bson::TypeName(bson_iter_type(v));
    if (std::find(types.begin(), types.end(), t) == types.end()) types.push_back(t);
  }
  std::sort(types.begin(), types.end());
  if (types.size() == 1) {
    BSON_APPEND_UTF8(out, "consideredType", types[0].c_str());
  } else {
    bson_t arr;
    bson_append_array_begin(out, "consideredTypes", -1, &arr);
    for (size_t i = 0; i < types.size(); ++i) {
      std::string k = std::to_string(i);
      bson_append_utf8(&arr, k.c_str(), -1, types[i].c_str(), -1);
    }
    bson_append_array_end(out, &arr);
  }
}

bson::BsonDoc ExplainClause(const Clause& c, const bson_t* doc, bool inverted);

// {index, details} for each child that fails (or, `want_match`, matches).
void AppendChildren(const Clause& c, const bson_t* doc, const char* field, bool want_match,
                    bool inverted, bson_t* out) {
  bson_t arr;
  bson_append_array_begin(out, field, -1, &arr);
  size_t n = 0;
  for (size_t i = 0; i < c.children.size(); ++i) {
    if (c.children[i]->matcher->Matches(doc) != want_match) continue;
    bson_t entry;
    std::string k = std::to_string(n++);
    bson_append_document_begin(&arr, k.c_str(), -1, &entry);
    BSON_APPEND_INT32(&entry, "index", static_cast<int32_t>(i));
    bson::BsonDoc details = ExplainClause(*c.children[i], doc, inverted);
    BSON_APPEND_DOCUMENT(&entry, "details", details.get());
    bson_append_document_end(&arr, &entry);
  }
  bson_append_array_end(out, &arr);
}

// Inverted (under $not / $nor): the clause matched, and the reason says so.
const char* InvertedReason(const std::string& op) {
  if (op == "$eq" || op == "$gt" || op == "$gte" || op == "$lt" || op == "$lte") {
    return "comparison succeeded";
  }
  if (op == "$ne") return "comparison failed";
  if (op == "$in") return "matching value found in array";
  if (op == "$nin") return "no matching value found in array";
  if (op == "$exists") return "path does exist";
  if (op == "$type") return "type did match";
  if (op == "$regex") return "regular expression did match";
  return "expression did match";
}

bson::BsonDoc ExplainClause(const Clause& c, const bson_t* doc, bool inverted) {
  bson::BsonDoc out;
  bson_t* o = out.mutable_get();
  switch (c.kind) {
    case Clause::Kind::kAnd:
      BSON_APPEND_UTF8(o, "operatorName", "$and");
      AppendChildren(c, doc, inverted ? "clausesSatisfied" : "clausesNotSatisfied", inverted,
                     inverted, o);
      return out;
    case Clause::Kind::kOr:
      BSON_APPEND_UTF8(o, "operatorName", "$or");
      AppendChildren(c, doc, inverted ? "clausesSatisfied" : "clausesNotSatisfied", inverted,
                     inverted, o);
      return out;
    case Clause::Kind::kNor:
      BSON_APPEND_UTF8(o, "operatorName", "$nor");
      AppendChildren(c, doc, inverted ? "clausesNotSatisfied" : "clausesSatisfied", !inverted,
                     !inverted, o);
      return out;
    case Clause::Kind::kJsonSchema: {
      if (inverted) {
        BSON_APPEND_UTF8(o, "operatorName", "$jsonSchema");
        BSON_APPEND_UTF8(o, "reason", "schema matched");
        return out;
      }
      const auto* schema = static_cast<const query::JsonSchemaExpression*>(c.matcher->root());
      return schema->Explain(doc);
    }
    case Clause::Kind::kExpr:
      BSON_APPEND_UTF8(o, "operatorName", "$expr");
      BSON_APPEND_DOCUMENT(o, "specifiedAs", c.specified_as.get());
      BSON_APPEND_UTF8(o, "reason", inverted ? "expression did match" : "expression did not match");
      BSON_APPEND_BOOL(o, "expressionResult", inverted);
      return out;
    case Clause::Kind::kAlwaysFalse:
    case Clause::Kind::kAlwaysTrue:
      BSON_APPEND_UTF8(o, "operatorName", c.op.c_str());
      BSON_APPEND_DOCUMENT(o, "specifiedAs", c.specified_as.get());
      BSON_APPEND_UTF8(o, "reason", inverted ? "expression always evaluates to true"
                                             : "expression always evaluates to false");
      return out;
    case Clause::Kind::kNot:
    case Clause::Kind::kLeaf:
      break;
  }
  BSON_APPEND_UTF8(o, "operatorName", c.op.c_str());
  if (c.kind != Clause::Kind::kNot) BSON_APPEND_DOCUMENT(o, "specifiedAs", c.specified_as.get());
  if (c.kind == Clause::Kind::kNot) {
    // {a: {$not: {...}}}: the operand's own clauses, inverted.
    bson_iter_t it, inner;
    bson_t operand;
    if (bson_iter_init_find(&it, c.specified_as.get(), c.path.c_str()) &&
        bson_iter_recurse(&it, &inner) && bson_iter_next(&inner) &&
        BSON_ITER_HOLDS_DOCUMENT(&inner) && bson::OpenSubdocument(&inner, &operand)) {
      bson::BsonDoc wrapped;
      BSON_APPEND_DOCUMENT(wrapped.mutable_get(), c.path.c_str(), &operand);
      StatusWith<std::unique_ptr<Clause>> child = BuildFilter(wrapped.get(), nullptr);
      if (child.ok()) {
        bson::BsonDoc details = ExplainClause(*child.value(), doc, !inverted);
        BSON_APPEND_DOCUMENT(o, "details", details.get());
      }
    }
    return out;
  }
  std::vector<bson::AlignedIter> storage;  // see engine/bson/aligned_iter.h
  auto values = ConsideredValues(doc, c.path, &storage);
  if (c.op == "$exists") {
    const bool reports_missing = c.exists_false == inverted;
    BSON_APPEND_UTF8(o, "reason", reports_missing ? "path does not exist" : "path does exist");
    if (values) AppendConsidered(o, *values, false);
    return out;
  }
  if (!values) {
    BSON_APPEND_UTF8(o, "reason", "field was missing");
    return out;
  }
  BSON_APPEND_UTF8(o, "reason", inverted ? InvertedReason(c.op) : LeafReason(c.op));
  AppendConsidered(o, *values, c.op == "$type");
  return out;
}

}  // namespace

// --- Validator --------------------------------------------------------------

Validator::Validator() = default;
Validator::~Validator() = default;
Validator::Validator(Validator&&) noexcept = default;
Validator& Validator::operator=(Validator&&) noexcept = default;

StatusWith<Validator> Validator::Parse(const bson_t* validator_expr, std::string_view db) {
  RETURN_IF_ERROR(CheckAllowed(validator_expr));
  ASSIGN_OR_RETURN(CommandExpressions expressions, CommandExpressions::Make(db, nullptr));
  Validator v;
  v.expression_ = bson::BsonDoc::CopyOf(validator_expr);
  // The whole expression first, so its errors are the query parser's.
  ASSIGN_OR_RETURN(auto whole, query::Matcher::Parse(v.expression_.get(), expressions.parser.get()));
  (void)whole;
  ASSIGN_OR_RETURN(v.root_, BuildFilter(v.expression_.get(), expressions.parser.get()));
  return v;
}

bool Validator::Matches(const bson_t* doc) const {
  if (!root_) return true;
  return root_->matcher->Matches(doc);
}

StatusWith<std::optional<bson::BsonDoc>> Validator::Explain(const bson_t* doc) const {
  if (Matches(doc)) return std::optional<bson::BsonDoc>();
  return std::optional<bson::BsonDoc>(ExplainClause(*root_, doc, false));
}

// --- DocumentValidator ------------------------------------------------------

Status DocumentValidationError(const bson_t* doc, const bson_t* details) {
  bson::BsonDoc extra;
  bson_t info;
  bson_append_document_begin(extra.mutable_get(), "errInfo", -1, &info);
  bson_iter_t id;
  if (bson_iter_init_find(&id, doc, "_id")) {
    bson_append_value(&info, "failingDocumentId", -1, bson_iter_value(&id));
  }
  BSON_APPEND_DOCUMENT(&info, "details", details);
  bson_append_document_end(extra.mutable_get(), &info);
  return Status(ErrorCode::kDocumentValidationFailure, "Document failed validation",
                std::string(reinterpret_cast<const char*>(bson_get_data(extra.get())),
                            extra.get()->len));
}

namespace {

StatusWith<std::optional<std::string>> EnumOption(const bson_t* options, const char* field,
                                                  std::string_view command,
                                                  std::initializer_list<const char*> allowed) {
  bson_iter_t it;
  if (!bson_iter_init_find(&it, options, field)) return std::optional<std::string>();
  if (!BSON_ITER_HOLDS_UTF8(&it)) {
    return Status(ErrorCode::kTypeMismatch,
                  "BSON field '" + std::string(command) + "." + field + "' is the wrong type '" +
                      bson::TypeName(bson_iter_type(&it)) + "', expected type 'string'");
  }
  std::string value = bson_iter_utf8(&it, nullptr);
  for (const char* a : allowed) {
    if (value == a) return std::optional<std::string>(value);
  }
  return Status(ErrorCode::kBadValue, "Enumeration value '" + value + "' for field '" +
                                          std::string(command) + "." + field +
                                          "' is not a valid value.");
}

}  // namespace

Status DocumentValidator::CheckOptions(const bson_t* options, std::string_view command,
                                       std::string_view db) {
  RETURN_IF_ERROR(EnumOption(options, kValidationLevelOption, command, {"off", "strict", "moderate"}).status());
  RETURN_IF_ERROR(EnumOption(options, kValidationActionOption, command, {"error", "warn"}).status());
  bson_iter_t it;
  if (bson_iter_init_find(&it, options, kValidatorOption)) {
    if (!BSON_ITER_HOLDS_DOCUMENT(&it)) {
      return Status(ErrorCode::kTypeMismatch,
                    "BSON field '" + std::string(command) + ".validator' is the wrong type '" +
                        bson::TypeName(bson_iter_type(&it)) + "', expected type 'object'");
    }
    bson_t expr;
    bson::OpenSubdocument(&it, &expr);
    RETURN_IF_ERROR(Validator::Parse(&expr, db).status());
  }
  return Status::OK();
}

StatusWith<std::shared_ptr<const DocumentValidator>> DocumentValidator::FromOptions(
    const bson_t* options, std::string_view db, std::string ns) {
  bson_iter_t it;
  if (!bson_iter_init_find(&it, options, kValidatorOption) || !BSON_ITER_HOLDS_DOCUMENT(&it)) {
    return std::shared_ptr<const DocumentValidator>();
  }
  bson_t expr;
  bson::OpenSubdocument(&it, &expr);
  if (bson_empty(&expr)) return std::shared_ptr<const DocumentValidator>();
  ASSIGN_OR_RETURN(Validator validator, Validator::Parse(&expr, db));
  ValidationLevel level = ValidationLevel::kStrict;
  ValidationAction action = ValidationAction::kError;
  if (bson_iter_init_find(&it, options, kValidationLevelOption) && BSON_ITER_HOLDS_UTF8(&it)) {
    std::string_view v = bson_iter_utf8(&it, nullptr);
    level = v == "off" ? ValidationLevel::kOff
            : v == "moderate" ? ValidationLevel::kModerate
                              : ValidationLevel::kStrict;
  }
  if (bson_iter_init_find(&it, options, kValidationActionOption) && BSON_ITER_HOLDS_UTF8(&it)) {
    action = std::string_view(bson_iter_utf8(&it, nullptr)) == "warn" ? ValidationAction::kWarn
                                                                      : ValidationAction::kError;
  }
  return std::shared_ptr<const DocumentValidator>(
      new DocumentValidator(std::move(validator), level, action, std::move(ns)));
}

Status DocumentValidator::Check(const bson_t* old_doc, const bson_t* new_doc) const {
  if (level_ == ValidationLevel::kOff) return Status::OK();
  if (validator_.Matches(new_doc)) return Status::OK();
  // moderate: updates of documents that did not already pass are let through.
  if (level_ == ValidationLevel::kModerate && old_doc != nullptr && !validator_.Matches(old_doc)) {
    return Status::OK();
  }
  ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> details, validator_.Explain(new_doc));
  if (!details) return Status::OK();
  Status error = DocumentValidationError(new_doc, details->get());
  if (action_ == ValidationAction::kError) return error;
  // warn: MongoDB's log line 20294 (engine/log), then the write goes on.
  bson::BsonDoc attr;
  BSON_APPEND_UTF8(attr.mutable_get(), "namespace", ns_.c_str());
  BSON_APPEND_DOCUMENT(attr.mutable_get(), "document", new_doc);
  bson_t extra;
  if (bson_init_static(&extra, reinterpret_cast<const uint8_t*>(error.extra_bson().data()),
                       error.extra_bson().size())) {
    bson_iter_t info;
    if (bson_iter_init_find(&info, &extra, "errInfo")) bson_append_iter(attr.mutable_get(), "errInfo", -1, &info);
  }
  log::Write(log::Severity::kWarning, "STORAGE", 20294, "Document would fail validation", attr.get());
  return Status::OK();
}

}  // namespace tigerdoc::engine
