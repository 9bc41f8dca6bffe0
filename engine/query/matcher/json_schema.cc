#include "engine/bson/aligned_iter.h"
#include "engine/query/matcher/json_schema.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/bson/compare.h"
#include "engine/bson/field_path.h"
#include "engine/bson/type_name.h"
#include "engine/query/matcher/element.h"
#include "engine/query/matcher/evaluation.h"
#include "engine/query/matcher/integer_argument.h"
#include "engine/query/owned_value.h"

// Parse errors follow MongoDB's json_schema_parser.cpp (codes and wording);
// error details follow doc_validation_error.cpp. Written from their
// observable behaviour.

namespace tigerdoc::query {
namespace {

Status TypeMismatch(std::string message) {
  return Status(ErrorCode::kTypeMismatch, std::move(message));
}
Status FailedToParse(std::string message) {
  return Status(ErrorCode::kFailedToParse, std::move(message));
}
std::string Keyword(std::string_view k) { return "$jsonSchema keyword '" + std::string(k) + "'"; }

bool IsNumberType(bson_type_t t) {
  return t == BSON_TYPE_INT32 || t == BSON_TYPE_INT64 || t == BSON_TYPE_DOUBLE ||
         t == BSON_TYPE_DECIMAL128;
}

double AsDouble(const bson_value_t* v) {
  switch (v->value_type) {
    case BSON_TYPE_INT32: return v->value.v_int32;
    case BSON_TYPE_INT64: return static_cast<double>(v->value.v_int64);
    case BSON_TYPE_DOUBLE: return v->value.v_double;
    case BSON_TYPE_DECIMAL128: {
      char buf[BSON_DECIMAL128_STRING];
      bson_decimal128_to_string(&v->value.v_decimal128, buf);
      if (std::strstr(buf, "NaN") != nullptr) return std::nan("");
      if (std::strstr(buf, "Inf") != nullptr) return buf[0] == '-' ? -INFINITY : INFINITY;
      return std::strtod(buf, nullptr);
    }
    default: return 0;
  }
}

size_t CodePoints(const char* s, uint32_t len) {
  size_t n = 0;
  for (uint32_t i = 0; i < len; ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) ++n;
  }
  return n;
}

// The value a schema node is checked against: the root document, or one
// element.
struct Value {
  const bson_t* root = nullptr;
  const bson_iter_t* it = nullptr;

  bson_type_t type() const { return root ? BSON_TYPE_DOCUMENT : bson_iter_type(it); }
  // REQUIRES: type() is a document or an array.
  void Open(bson_t* out) const {
    if (root) {
      bson_init_static(out, bson_get_data(root), root->len);
    } else {
      bson::OpenSubdocument(it, out);
    }
  }
  void AppendAs(bson_t* out, const char* key) const {
    if (root) {
      bson_append_document(out, key, -1, root);
    } else {
      bson_append_value(out, key, -1, bson_iter_value(const_cast<bson_iter_t*>(it)));
    }
  }
  bool Equals(const bson_iter_t* other) const {
    if (root) {
      if (!BSON_ITER_HOLDS_DOCUMENT(other)) return false;
      bson_t sub;
      bson::OpenSubdocument(other, &sub);
      return bson::CompareDocuments(root, &sub) == 0;
    }
    return bson::CompareValues(it, other) == 0;
  }
};

// Appends a BSON array of strings.
void AppendStringArray(bson_t* out, const char* key, const std::vector<std::string>& items) {
  bson_t arr;
  bson_append_array_begin(out, key, -1, &arr);
  for (size_t i = 0; i < items.size(); ++i) {
    std::string k = std::to_string(i);
    bson_append_utf8(&arr, k.c_str(), -1, items[i].c_str(), static_cast<int>(items[i].size()));
  }
  bson_append_array_end(out, &arr);
}

// {<keyword>: <as given>}
void AppendSpecifiedAs(bson_t* out, const char* keyword, const bson_value_t* given) {
  bson_t spec;
  bson_append_document_begin(out, "specifiedAs", -1, &spec);
  bson_append_value(&spec, keyword, -1, given);
  bson_append_document_end(out, &spec);
}

// Appends each document of `docs` to array `arr`, numbering from `*n`.
void AppendDoc(bson_t* arr, size_t* n, const bson_t* doc) {
  std::string k = std::to_string((*n)++);
  bson_append_document(arr, k.c_str(), -1, doc);
}

// The element of `arr` that first repeats an earlier one (BSON equality,
// so 1 and 1.0 are equal), in O(n log n): sorting positions by value puts
// equal values side by side. Sets `*dup` to it and returns its position.
std::optional<size_t> FindDuplicate(const bson_t* arr, bson_iter_t* dup) {
  std::vector<bson::AlignedIter> items;  // see engine/bson/aligned_iter.h
  bson_iter_t it;
  bson_iter_init(&it, arr);
  while (bson_iter_next(&it)) items.push_back({it});
  std::vector<size_t> order(items.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return bson::CompareValues(&items[a].it, &items[b].it) < 0;
  });
  std::optional<size_t> first;
  for (size_t k = 1; k < order.size(); ++k) {
    if (bson::CompareValues(&items[order[k - 1]].it, &items[order[k]].it) != 0) continue;
    // Stable: order[k] comes after order[k - 1] in the array.
    if (!first || order[k] < *first) first = order[k];
  }
  if (first) *dup = items[*first].it;
  return first;
}

}  // namespace

// One compiled (sub)schema. Members are the keywords it was given.
class JsonSchema {
 public:
  static StatusWith<std::unique_ptr<JsonSchema>> Parse(const bson_t* spec);

  bool Valid(const Value& v) const;
  // Appends to `rules` (an array being built, next index `*n`) one entry per
  // keyword `v` fails.
  void Explain(const Value& v, bson_t* rules, size_t* n) const;

  // A root schema whose type excludes "object" matches no document.
  bool MatchesNoDocument() const { return type_ && !type_accepts_object_; }

  const std::optional<std::string>& title() const { return title_; }
  const std::optional<std::string>& description() const { return description_; }
  // Appends title/description, when given.
  void AppendAnnotations(bson_t* out) const {
    if (title_) BSON_APPEND_UTF8(out, "title", title_->c_str());
    if (description_) BSON_APPEND_UTF8(out, "description", description_->c_str());
  }

 private:
  struct Property {
    std::string name;
    std::unique_ptr<JsonSchema> schema;
  };
  struct PatternProperty {
    std::string source;
    std::unique_ptr<RegexExpression> regex;
    std::unique_ptr<JsonSchema> schema;
  };
  struct Dependency {
    std::string name;
    std::unique_ptr<JsonSchema> schema;        // schema form
    std::vector<std::string> properties;      // property form
  };
  struct Bound {
    OwnedValue limit;
    bool exclusive = false;
  };

  bool TypeOk(const Value& v) const;
  bool ObjectValid(const bson_t* obj) const;
  bool ArrayValid(const bson_t* arr) const;
  bool LogicalValid(const Value& v) const;
  bool EnumValid(const Value& v) const;
  bool IsAdditional(const char* key, uint32_t len) const;
  std::optional<size_t> FirstDuplicate(const bson_t* arr, bson_iter_t* dup) const;
  // The value of `keyword` as given, for specifiedAs.
  OwnedValue Given(const char* keyword) const;
  void BoundError(const Value& v, const char* keyword, const char* exclusive_keyword,
                  bool exclusive, bson_t* rules, size_t* n) const;

  bson::BsonDoc spec_;
  std::optional<std::string> title_, description_;
  // type / bsonType
  const char* type_keyword_ = nullptr;
  std::unique_ptr<TypeExpression> type_;
  bool type_accepts_object_ = false;
  // numbers
  std::optional<Bound> minimum_, maximum_;
  std::optional<OwnedValue> multiple_of_;
  // strings
  std::optional<int64_t> min_length_, max_length_;
  std::unique_ptr<RegexExpression> pattern_;
  // arrays
  std::unique_ptr<JsonSchema> items_schema_;
  std::vector<std::unique_ptr<JsonSchema>> items_list_;
  bool items_is_list_ = false;
  std::optional<bool> additional_items_bool_;
  std::unique_ptr<JsonSchema> additional_items_schema_;
  std::optional<int64_t> min_items_, max_items_;
  bool unique_items_ = false;
  // objects
  std::vector<Property> properties_;
  std::vector<std::string> required_;
  std::optional<int64_t> min_properties_, max_properties_;
  std::optional<bool> additional_properties_bool_;
  std::unique_ptr<JsonSchema> additional_properties_schema_;
  std::vector<PatternProperty> pattern_properties_;
  std::vector<Dependency> dependencies_;
  // logical
  std::vector<std::unique_ptr<JsonSchema>> all_of_, any_of_, one_of_;
  std::unique_ptr<JsonSchema> not_;
  std::optional<bson::BsonDoc> enum_;  // an array document
};

namespace {

StatusWith<std::unique_ptr<JsonSchema>> ParseSubschema(const bson_iter_t* it) {
  bson_t sub;
  bson::OpenSubdocument(it, &sub);
  return JsonSchema::Parse(&sub);
}


// allOf / anyOf / oneOf
Status ParseSchemaArray(const bson_iter_t* it, const char* keyword,
                        std::vector<std::unique_ptr<JsonSchema>>* out) {
  if (!BSON_ITER_HOLDS_ARRAY(it)) return TypeMismatch(Keyword(keyword) + " must be an array");
  bson_iter_t e;
  bson_iter_recurse(it, &e);
  bson_iter_t probe = e;
  if (!bson_iter_next(&probe)) {
    return Status(ErrorCode::kBadValue, Keyword(keyword) + " must be a non-empty array");
  }
  while (bson_iter_next(&e)) {
    if (!BSON_ITER_HOLDS_DOCUMENT(&e)) {
      return TypeMismatch(Keyword(keyword) + " must be an array of objects, but found an element of type " +
                          bson::TypeName(bson_iter_type(&e)));
    }
    ASSIGN_OR_RETURN(auto s, ParseSubschema(&e));
    out->push_back(std::move(s));
  }
  if (out->empty()) {
    return Status(ErrorCode::kBadValue, Keyword(keyword) + " must be a non-empty array");
  }
  return Status::OK();
}

// required: a non-empty array of distinct strings.
Status ParseRequired(const bson_iter_t* it, std::vector<std::string>* out) {
  if (!BSON_ITER_HOLDS_ARRAY(it)) {
    return TypeMismatch(Keyword("required") + " must be an array, but found an element of type " +
                        bson::TypeName(bson_iter_type(it)));
  }
  bson_iter_t e;
  bson_iter_recurse(it, &e);
  std::set<std::string> seen;
  while (bson_iter_next(&e)) {
    if (!BSON_ITER_HOLDS_UTF8(&e)) {
      return TypeMismatch(Keyword("required") +
                          " must be an array of strings, but found an element of type: " +
                          bson::TypeName(bson_iter_type(&e)));
    }
    uint32_t len = 0;
    const char* str = bson_iter_utf8(&e, &len);
    std::string name(str, len);
    if (!seen.insert(name).second) {
      return FailedToParse(Keyword("required") + " array cannot contain duplicate values");
    }
    out->push_back(std::move(name));
  }
  if (out->empty()) return FailedToParse(Keyword("required") + " cannot be an empty array");
  return Status::OK();
}

// dependencies: {a: ["b", "c"]}, the property form.
Status ParseDependencyList(const bson_iter_t* it, const std::string& name,
                           std::vector<std::string>* out) {
  bson_iter_t e;
  bson_iter_recurse(it, &e);
  bson_iter_t probe = e;
  const std::string where = "' in $jsonSchema keyword 'dependencies'";
  if (!bson_iter_next(&probe)) {
    return FailedToParse("property '" + name + where + " cannot be an empty array");
  }
  std::set<std::string> seen;
  while (bson_iter_next(&e)) {
    if (!BSON_ITER_HOLDS_UTF8(&e)) {
      return TypeMismatch("array '" + name + where +
                          " can only contain strings, but found element of type: " +
                          bson::TypeName(bson_iter_type(&e)));
    }
    std::string dep = bson_iter_utf8(&e, nullptr);
    if (!seen.insert(dep).second) {
      return FailedToParse("array '" + name + where + " contains duplicate element: " + dep);
    }
    out->push_back(std::move(dep));
  }
  return Status::OK();
}

// A document {"": <types>} whose element TypeExpression::Parse reads.
StatusWith<std::unique_ptr<TypeExpression>> ParseTypes(const bson_iter_t* it, bool json_types) {
  const char* keyword = json_types ? "type" : "bsonType";
  bool is_array = BSON_ITER_HOLDS_ARRAY(it);
  if (!BSON_ITER_HOLDS_UTF8(it) && !is_array) {
    return TypeMismatch(Keyword(keyword) + " must be either a string or an array of strings");
  }
  bson::BsonDoc aliases;
  bson_t arr;
  bson_append_array_begin(aliases.mutable_get(), "", 0, &arr);
  std::set<std::string> seen;
  size_t n = 0;
  auto add = [&](const bson_iter_t* e) -> Status {
    if (!BSON_ITER_HOLDS_UTF8(e)) {
      return TypeMismatch(Keyword(keyword) + " array elements must be strings");
    }
    std::string name = bson_iter_utf8(e, nullptr);
    if (name == "integer") {
      return FailedToParse("$jsonSchema type 'integer' is not currently supported.");
    }
    if (!seen.insert(name).second) {
      return FailedToParse(Keyword(keyword) + " has duplicate value: " + name);
    }
    std::string alias = name;
    if (json_types) {
      if (name == "object") alias = "object";
      else if (name == "array") alias = "array";
      else if (name == "number") alias = "number";
      else if (name == "boolean") alias = "bool";
      else if (name == "string") alias = "string";
      else if (name == "null") alias = "null";
      else return Status(ErrorCode::kBadValue, "Unknown type name alias: " + name);
    } else if (name == "missing") {
      return Status(ErrorCode::kBadValue, "Unknown type name alias: " + name);
    }
    std::string k = std::to_string(n++);
    bson_append_utf8(&arr, k.c_str(), -1, alias.c_str(), -1);
    return Status::OK();
  };
  if (is_array) {
    bson_iter_t e;
    bson_iter_recurse(it, &e);
    while (bson_iter_next(&e)) {
      Status st = add(&e);
      if (!st.ok()) {
        bson_append_array_end(aliases.mutable_get(), &arr);
        return st;
      }
    }
  } else {
    Status st = add(it);
    if (!st.ok()) {
      bson_append_array_end(aliases.mutable_get(), &arr);
      return st;
    }
  }
  bson_append_array_end(aliases.mutable_get(), &arr);
  if (n == 0) return FailedToParse(Keyword(keyword) + " must name at least one type");
  bson_iter_t types;
  bson_iter_init(&types, aliases.get());
  bson_iter_next(&types);
  return TypeExpression::Parse("", &types);
}

bool KnownUnsupported(std::string_view k) {
  return k == "$ref" || k == "$schema" || k == "default" || k == "definitions" ||
         k == "format" || k == "id";
}

}  // namespace

StatusWith<std::unique_ptr<JsonSchema>> JsonSchema::Parse(const bson_t* spec) {
  auto s = std::make_unique<JsonSchema>();
  s->spec_ = bson::BsonDoc::CopyOf(spec);
  std::set<std::string> seen;
  bson_iter_t it;
  bson_iter_init(&it, s->spec_.get());
  const bson_iter_t* exclusive_min = nullptr;
  const bson_iter_t* exclusive_max = nullptr;
  bson_iter_t exclusive_min_it, exclusive_max_it;
  while (bson_iter_next(&it)) {
    const std::string key = bson_iter_key(&it);
    if (!seen.insert(key).second) return FailedToParse("Duplicate $jsonSchema keyword: " + key);
    if (key == "title" || key == "description") {
      if (!BSON_ITER_HOLDS_UTF8(&it)) return TypeMismatch(Keyword(key) + " must be of type string");
      (key == "title" ? s->title_ : s->description_) = bson_iter_utf8(&it, nullptr);
    } else if (key == "bsonType" || key == "type") {
      if (s->type_keyword_ != nullptr) {
        return FailedToParse("Cannot specify both $jsonSchema keywords 'type' and 'bsonType'");
      }
      ASSIGN_OR_RETURN(s->type_, ParseTypes(&it, key == "type"));
      s->type_keyword_ = key == "type" ? "type" : "bsonType";
      bson::BsonDoc probe;
      bson_t empty = BSON_INITIALIZER;
      bson_append_document(probe.mutable_get(), "", 0, &empty);
      bson_iter_t pi;
      bson_iter_init(&pi, probe.get());
      bson_iter_next(&pi);
      s->type_accepts_object_ = s->type_->MatchesValue(&pi);
    } else if (key == "minimum" || key == "maximum") {
      if (!BSON_ITER_HOLDS_NUMBER(&it) && !BSON_ITER_HOLDS_DECIMAL128(&it)) {
        return TypeMismatch(Keyword(key) + " must be a number");
      }
      (key == "minimum" ? s->minimum_ : s->maximum_) = Bound{OwnedValue(&it), false};
    } else if (key == "exclusiveMinimum" || key == "exclusiveMaximum") {
      if (!BSON_ITER_HOLDS_BOOL(&it)) return TypeMismatch(Keyword(key) + " must be a boolean");
      if (key == "exclusiveMinimum") {
        exclusive_min_it = it;
        exclusive_min = &exclusive_min_it;
      } else {
        exclusive_max_it = it;
        exclusive_max = &exclusive_max_it;
      }
    } else if (key == "multipleOf") {
      if (!BSON_ITER_HOLDS_NUMBER(&it) && !BSON_ITER_HOLDS_DECIMAL128(&it)) {
        return TypeMismatch(Keyword(key) + " must be a number");
      }
      OwnedValue v(&it);
      if (!(AsDouble(v.get()) > 0)) return FailedToParse(Keyword(key) + " must have a positive value");
      s->multiple_of_ = std::move(v);
    } else if (key == "minLength" || key == "maxLength") {
      // MongoDB reports parseIntegerElementToNonNegativeLong's own errors
      // for these counts (and minItems ... maxProperties below).
      ASSIGN_OR_RETURN(int64_t v, ParseIntegerElementToNonNegativeLong(&it));
      (key == "minLength" ? s->min_length_ : s->max_length_) = v;
    } else if (key == "pattern") {
      if (!BSON_ITER_HOLDS_UTF8(&it)) return TypeMismatch(Keyword(key) + " must be a string");
      ASSIGN_OR_RETURN(s->pattern_, RegexExpression::Make("", bson_iter_utf8(&it, nullptr), ""));
    } else if (key == "items") {
      if (BSON_ITER_HOLDS_DOCUMENT(&it)) {
        ASSIGN_OR_RETURN(s->items_schema_, ParseSubschema(&it));
      } else if (BSON_ITER_HOLDS_ARRAY(&it)) {
        s->items_is_list_ = true;
        bson_iter_t e;
        bson_iter_recurse(&it, &e);
        while (bson_iter_next(&e)) {
          if (!BSON_ITER_HOLDS_DOCUMENT(&e)) {
            return TypeMismatch(Keyword(key) +
                                " requires that each element of the array is an object, but found a " +
                                bson::TypeName(bson_iter_type(&e)));
          }
          ASSIGN_OR_RETURN(auto item, ParseSubschema(&e));
          s->items_list_.push_back(std::move(item));
        }
      } else {
        return TypeMismatch(Keyword(key) + " must be an array or an object, not " +
                            bson::TypeName(bson_iter_type(&it)));
      }
    } else if (key == "additionalItems") {
      if (BSON_ITER_HOLDS_BOOL(&it)) {
        s->additional_items_bool_ = bson_iter_bool(&it);
      } else if (BSON_ITER_HOLDS_DOCUMENT(&it)) {
        ASSIGN_OR_RETURN(s->additional_items_schema_, ParseSubschema(&it));
      } else {
        return TypeMismatch(Keyword(key) + " must be either an object or a boolean, but got a " +
                            bson::TypeName(bson_iter_type(&it)));
      }
    } else if (key == "minItems" || key == "maxItems") {
      ASSIGN_OR_RETURN(int64_t v, ParseIntegerElementToNonNegativeLong(&it));
      (key == "minItems" ? s->min_items_ : s->max_items_) = v;
    } else if (key == "uniqueItems") {
      if (!BSON_ITER_HOLDS_BOOL(&it)) return TypeMismatch(Keyword(key) + " must be a boolean");
      s->unique_items_ = bson_iter_bool(&it);
    } else if (key == "properties") {
      if (!BSON_ITER_HOLDS_DOCUMENT(&it)) return TypeMismatch(Keyword(key) + " must be an object");
      bson_iter_t p;
      bson_iter_recurse(&it, &p);
      while (bson_iter_next(&p)) {
        if (!BSON_ITER_HOLDS_DOCUMENT(&p)) {
          return TypeMismatch(std::string("Nested schema for $jsonSchema property '") +
                              bson_iter_key(&p) + "' must be an object");
        }
        ASSIGN_OR_RETURN(auto sub, ParseSubschema(&p));
        s->properties_.push_back(Property{bson_iter_key(&p), std::move(sub)});
      }
    } else if (key == "required") {
      RETURN_IF_ERROR(ParseRequired(&it, &s->required_));
    } else if (key == "minProperties" || key == "maxProperties") {
      ASSIGN_OR_RETURN(int64_t v, ParseIntegerElementToNonNegativeLong(&it));
      (key == "minProperties" ? s->min_properties_ : s->max_properties_) = v;
    } else if (key == "additionalProperties") {
      if (BSON_ITER_HOLDS_BOOL(&it)) {
        s->additional_properties_bool_ = bson_iter_bool(&it);
      } else if (BSON_ITER_HOLDS_DOCUMENT(&it)) {
        ASSIGN_OR_RETURN(s->additional_properties_schema_, ParseSubschema(&it));
      } else {
        return TypeMismatch(Keyword(key) + " must be an object or a boolean");
      }
    } else if (key == "patternProperties") {
      if (!BSON_ITER_HOLDS_DOCUMENT(&it)) return TypeMismatch(Keyword(key) + " must be an object");
      bson_iter_t p;
      bson_iter_recurse(&it, &p);
      while (bson_iter_next(&p)) {
        if (!BSON_ITER_HOLDS_DOCUMENT(&p)) {
          return TypeMismatch(Keyword(key) + " has property '" + bson_iter_key(&p) +
                              "' which is not an object");
        }
        ASSIGN_OR_RETURN(auto regex, RegexExpression::Make("", bson_iter_key(&p), ""));
        ASSIGN_OR_RETURN(auto sub, ParseSubschema(&p));
        s->pattern_properties_.push_back(
            PatternProperty{bson_iter_key(&p), std::move(regex), std::move(sub)});
      }
    } else if (key == "dependencies") {
      if (!BSON_ITER_HOLDS_DOCUMENT(&it)) return TypeMismatch(Keyword(key) + " must be an object");
      bson_iter_t d;
      bson_iter_recurse(&it, &d);
      while (bson_iter_next(&d)) {
        Dependency dep;
        dep.name = bson_iter_key(&d);
        if (BSON_ITER_HOLDS_DOCUMENT(&d)) {
          ASSIGN_OR_RETURN(dep.schema, ParseSubschema(&d));
        } else if (BSON_ITER_HOLDS_ARRAY(&d)) {
          RETURN_IF_ERROR(ParseDependencyList(&d, dep.name, &dep.properties));
        } else if (BSON_ITER_HOLDS_UTF8(&d) && (dep.name == "title" || dep.name == "description")) {
          continue;  // annotations are allowed there
        } else {
          return TypeMismatch("property '" + dep.name +
                              "' in $jsonSchema keyword 'dependencies' must be either an object "
                              "or an array");
        }
        s->dependencies_.push_back(std::move(dep));
      }
    } else if (key == "allOf") {
      RETURN_IF_ERROR(ParseSchemaArray(&it, "allOf", &s->all_of_));
    } else if (key == "anyOf") {
      RETURN_IF_ERROR(ParseSchemaArray(&it, "anyOf", &s->any_of_));
    } else if (key == "oneOf") {
      RETURN_IF_ERROR(ParseSchemaArray(&it, "oneOf", &s->one_of_));
    } else if (key == "not") {
      if (!BSON_ITER_HOLDS_DOCUMENT(&it)) {
        return TypeMismatch(Keyword(key) + " must be an object, but found an element of type " +
                            bson::TypeName(bson_iter_type(&it)));
      }
      ASSIGN_OR_RETURN(s->not_, ParseSubschema(&it));
    } else if (key == "enum") {
      if (!BSON_ITER_HOLDS_ARRAY(&it)) {
        return TypeMismatch(Keyword(key) + " must be an array, but found an element of type " +
                            bson::TypeName(bson_iter_type(&it)));
      }
      bson_t arr;
      bson::OpenSubdocument(&it, &arr);
      if (bson_empty(&arr)) return FailedToParse(Keyword(key) + " cannot be an empty array");
      bson_iter_t dup;
      if (FindDuplicate(&arr, &dup)) {
        return FailedToParse(Keyword(key) + " array cannot contain duplicate values.");
      }
      s->enum_ = bson::BsonDoc::CopyOf(&arr);
    } else if (key == "encrypt" || key == "encryptMetadata") {
      return Status(ErrorCode::kNotImplemented,
                    Keyword(key) + " is not supported by tigerdoc yet");
    } else if (KnownUnsupported(key)) {
      return FailedToParse(Keyword(key) + " is not currently supported");
    } else {
      return FailedToParse("Unknown $jsonSchema keyword: " + key);
    }
  }
  if (exclusive_min != nullptr) {
    if (!s->minimum_) {
      return FailedToParse(
          "$jsonSchema keyword 'minimum' must be a present if exclusiveMinimum is present");
    }
    s->minimum_->exclusive = bson_iter_bool(exclusive_min);
  }
  if (exclusive_max != nullptr) {
    if (!s->maximum_) {
      return FailedToParse(
          "$jsonSchema keyword 'maximum' must be a present if exclusiveMaximum is present");
    }
    s->maximum_->exclusive = bson_iter_bool(exclusive_max);
  }
  return s;
}

OwnedValue JsonSchema::Given(const char* keyword) const {
  bson_iter_t it;
  if (!bson_iter_init_find(&it, spec_.get(), keyword)) return OwnedValue();
  return OwnedValue(&it);
}

bool JsonSchema::TypeOk(const Value& v) const {
  if (!type_) return true;
  if (v.root) return type_accepts_object_;
  return type_->MatchesValue(v.it);
}

bool JsonSchema::IsAdditional(const char* key, uint32_t len) const {
  for (const Property& p : properties_) {
    if (p.name.size() == len && std::memcmp(p.name.data(), key, len) == 0) return false;
  }
  for (const PatternProperty& p : pattern_properties_) {
    if (p.regex->MatchesString(key, len)) return false;
  }
  return true;
}

bool JsonSchema::ObjectValid(const bson_t* obj) const {
  for (const Property& p : properties_) {
    bson_iter_t f;
    if (bson_iter_init_find(&f, obj, p.name.c_str()) && !p.schema->Valid(Value{nullptr, &f})) {
      return false;
    }
  }
  for (const std::string& r : required_) {
    bson_iter_t f;
    if (!bson_iter_init_find(&f, obj, r.c_str())) return false;
  }
  if (min_properties_ || max_properties_) {
    int64_t count = bson_count_keys(obj);
    if (min_properties_ && count < *min_properties_) return false;
    if (max_properties_ && count > *max_properties_) return false;
  }
  if (!pattern_properties_.empty() || additional_properties_bool_ || additional_properties_schema_) {
    bson_iter_t f;
    bson_iter_init(&f, obj);
    while (bson_iter_next(&f)) {
      const char* key = bson_iter_key(&f);
      uint32_t len = bson_iter_key_len(&f);
      for (const PatternProperty& p : pattern_properties_) {
        if (p.regex->MatchesString(key, len) && !p.schema->Valid(Value{nullptr, &f})) return false;
      }
      if ((additional_properties_bool_ == false || additional_properties_schema_) &&
          IsAdditional(key, len)) {
        if (additional_properties_bool_ == false) return false;
        if (!additional_properties_schema_->Valid(Value{nullptr, &f})) return false;
      }
    }
  }
  for (const Dependency& d : dependencies_) {
    bson_iter_t f;
    if (!bson_iter_init_find(&f, obj, d.name.c_str())) continue;
    if (d.schema) {
      if (!d.schema->Valid(Value{obj, nullptr})) return false;
    } else {
      for (const std::string& r : d.properties) {
        if (!bson_iter_init_find(&f, obj, r.c_str())) return false;
      }
    }
  }
  return true;
}

std::optional<size_t> JsonSchema::FirstDuplicate(const bson_t* arr, bson_iter_t* dup) const {
  return FindDuplicate(arr, dup);
}

bool JsonSchema::ArrayValid(const bson_t* arr) const {
  if (min_items_ || max_items_) {
    int64_t count = bson_count_keys(arr);
    if (min_items_ && count < *min_items_) return false;
    if (max_items_ && count > *max_items_) return false;
  }
  if (items_schema_ || items_is_list_) {
    bson_iter_t e;
    bson_iter_init(&e, arr);
    size_t i = 0;
    while (bson_iter_next(&e)) {
      if (items_schema_) {
        if (!items_schema_->Valid(Value{nullptr, &e})) return false;
      } else if (i < items_list_.size()) {
        if (!items_list_[i]->Valid(Value{nullptr, &e})) return false;
      } else if (additional_items_bool_ == false) {
        return false;
      } else if (additional_items_schema_ && !additional_items_schema_->Valid(Value{nullptr, &e})) {
        return false;
      }
      ++i;
    }
  }
  if (unique_items_) {
    bson_iter_t dup;
    if (FirstDuplicate(arr, &dup)) return false;
  }
  return true;
}

bool JsonSchema::EnumValid(const Value& v) const {
  if (!enum_) return true;
  bson_iter_t e;
  bson_iter_init(&e, enum_->get());
  while (bson_iter_next(&e)) {
    if (v.Equals(&e)) return true;
  }
  return false;
}

bool JsonSchema::LogicalValid(const Value& v) const {
  for (const auto& s : all_of_) {
    if (!s->Valid(v)) return false;
  }
  if (!any_of_.empty()) {
    bool any = false;
    for (const auto& s : any_of_) {
      if (s->Valid(v)) {
        any = true;
        break;
      }
    }
    if (!any) return false;
  }
  if (!one_of_.empty()) {
    int matched = 0;
    for (const auto& s : one_of_) matched += s->Valid(v) ? 1 : 0;
    if (matched != 1) return false;
  }
  if (not_ && not_->Valid(v)) return false;
  return EnumValid(v);
}

namespace {
bool BoundHolds(const bson_value_t* value, const bson_value_t* limit, bool exclusive, bool is_min) {
  int c = bson::CompareValues(value, limit);
  if (is_min) return exclusive ? c > 0 : c >= 0;
  return exclusive ? c < 0 : c <= 0;
}

bool IsMultiple(const bson_value_t* value, const bson_value_t* divisor) {
  double r = std::fmod(AsDouble(value), AsDouble(divisor));
  return r == 0;
}
}  // namespace

bool JsonSchema::Valid(const Value& v) const {
  if (!TypeOk(v)) return false;
  const bson_type_t t = v.type();
  if (IsNumberType(t)) {
    const bson_value_t* value = bson_iter_value(const_cast<bson_iter_t*>(v.it));
    if (minimum_ && !BoundHolds(value, minimum_->limit.get(), minimum_->exclusive, true)) return false;
    if (maximum_ && !BoundHolds(value, maximum_->limit.get(), maximum_->exclusive, false)) return false;
    if (multiple_of_ && !IsMultiple(value, multiple_of_->get())) return false;
  } else if (t == BSON_TYPE_UTF8) {
    uint32_t len = 0;
    const char* s = bson_iter_utf8(v.it, &len);
    if (min_length_ || max_length_) {
      int64_t n = static_cast<int64_t>(CodePoints(s, len));
      if (min_length_ && n < *min_length_) return false;
      if (max_length_ && n > *max_length_) return false;
    }
    if (pattern_ && !pattern_->MatchesString(s, len)) return false;
  } else if (t == BSON_TYPE_ARRAY) {
    bson_t arr;
    v.Open(&arr);
    if (!ArrayValid(&arr)) return false;
  } else if (t == BSON_TYPE_DOCUMENT) {
    bson_t obj;
    v.Open(&obj);
    if (!ObjectValid(&obj)) return false;
  }
  return LogicalValid(v);
}

// --- error details ----------------------------------------------------------

void JsonSchema::BoundError(const Value& v, const char* keyword, const char* exclusive_keyword,
                            bool exclusive, bson_t* rules, size_t* n) const {
  bson::BsonDoc e;
  bson_t* out = e.mutable_get();
  BSON_APPEND_UTF8(out, "operatorName", keyword);
  bson_t spec;
  bson_append_document_begin(out, "specifiedAs", -1, &spec);
  bson_append_value(&spec, keyword, -1, Given(keyword).get());
  if (exclusive) BSON_APPEND_BOOL(&spec, exclusive_keyword, true);
  bson_append_document_end(out, &spec);
  BSON_APPEND_UTF8(out, "reason", "comparison failed");
  v.AppendAs(out, "consideredValue");
  AppendDoc(rules, n, e.get());
}

namespace {
// {operatorName, specifiedAs: {keyword: given}, reason, consideredValue}
bson::BsonDoc LeafError(const char* keyword, const bson_value_t* given, const char* reason,
                        const Value* considered) {
  bson::BsonDoc e;
  bson_t* out = e.mutable_get();
  BSON_APPEND_UTF8(out, "operatorName", keyword);
  AppendSpecifiedAs(out, keyword, given);
  if (reason) BSON_APPEND_UTF8(out, "reason", reason);
  if (considered) considered->AppendAs(out, "consideredValue");
  return e;
}

// {index, details: [...]} entries for each failing subschema.
template <typename Schemas>
void AppendSchemasNotSatisfied(const Schemas& schemas, const Value& v, bson_t* out) {
  bson_t arr;
  bson_append_array_begin(out, "schemasNotSatisfied", -1, &arr);
  size_t n = 0;
  for (size_t i = 0; i < schemas.size(); ++i) {
    if (schemas[i]->Valid(v)) continue;
    bson::BsonDoc entry;
    BSON_APPEND_INT32(entry.mutable_get(), "index", static_cast<int32_t>(i));
    schemas[i]->AppendAnnotations(entry.mutable_get());
    bson_t details;
    bson_append_array_begin(entry.mutable_get(), "details", -1, &details);
    size_t dn = 0;
    schemas[i]->Explain(v, &details, &dn);
    bson_append_array_end(entry.mutable_get(), &details);
    AppendDoc(&arr, &n, entry.get());
  }
  bson_append_array_end(out, &arr);
}
}  // namespace

void JsonSchema::Explain(const Value& v, bson_t* rules, size_t* n) const {
  const bson_type_t t = v.type();
  // Scalar keywords.
  if (IsNumberType(t)) {
    const bson_value_t* value = bson_iter_value(const_cast<bson_iter_t*>(v.it));
    if (multiple_of_ && !IsMultiple(value, multiple_of_->get())) {
      AppendDoc(rules, n, LeafError("multipleOf", Given("multipleOf").get(),
                                    "considered value is not a multiple of the specified value", &v)
                              .get());
    }
    if (maximum_ && !BoundHolds(value, maximum_->limit.get(), maximum_->exclusive, false)) {
      BoundError(v, "maximum", "exclusiveMaximum", maximum_->exclusive, rules, n);
    }
    if (minimum_ && !BoundHolds(value, minimum_->limit.get(), minimum_->exclusive, true)) {
      BoundError(v, "minimum", "exclusiveMinimum", minimum_->exclusive, rules, n);
    }
  } else if (t == BSON_TYPE_UTF8) {
    uint32_t len = 0;
    const char* s = bson_iter_utf8(v.it, &len);
    int64_t cps = static_cast<int64_t>(CodePoints(s, len));
    if (pattern_ && !pattern_->MatchesString(s, len)) {
      AppendDoc(rules, n, LeafError("pattern", Given("pattern").get(),
                                    "regular expression did not match", &v).get());
    }
    if (max_length_ && cps > *max_length_) {
      AppendDoc(rules, n, LeafError("maxLength", Given("maxLength").get(),
                                    "specified string length was not satisfied", &v).get());
    }
    if (min_length_ && cps < *min_length_) {
      AppendDoc(rules, n, LeafError("minLength", Given("minLength").get(),
                                    "specified string length was not satisfied", &v).get());
    }
  } else if (t == BSON_TYPE_ARRAY) {
    bson_t arr;
    v.Open(&arr);
    int64_t count = bson_count_keys(&arr);
    for (const char* kw : {"minItems", "maxItems"}) {
      const std::optional<int64_t>& limit = kw[1] == 'a' ? max_items_ : min_items_;
      if (!limit || (kw[1] == 'a' ? count <= *limit : count >= *limit)) continue;
      bson::BsonDoc err = LeafError(kw, Given(kw).get(), "array did not match specified length", &v);
      BSON_APPEND_INT32(err.mutable_get(), "numberOfItems", static_cast<int32_t>(count));
      AppendDoc(rules, n, err.get());
    }
    bson_iter_t dup;
    if (unique_items_ && FirstDuplicate(&arr, &dup)) {
      bson::BsonDoc err = LeafError("uniqueItems", Given("uniqueItems").get(), "found a duplicate item", &v);
      bson_append_value(err.mutable_get(), "duplicatedValue", -1, bson_iter_value(&dup));
      AppendDoc(rules, n, err.get());
    }
    // items
    if (items_schema_ || items_is_list_) {
      bson_iter_t e;
      bson_iter_init(&e, &arr);
      size_t i = 0;
      bson::BsonDoc items_list_error;
      bson_t list_details;
      size_t list_n = 0;
      if (items_is_list_) {
        BSON_APPEND_UTF8(items_list_error.mutable_get(), "operatorName", "items");
        bson_append_array_begin(items_list_error.mutable_get(), "details", -1, &list_details);
      }
      bool additional_reported = false;
      std::vector<size_t> additional_false;
      while (bson_iter_next(&e)) {
        Value item{nullptr, &e};
        const JsonSchema* schema = items_schema_.get();
        bool additional = false;
        if (items_is_list_) {
          if (i < items_list_.size()) {
            schema = items_list_[i].get();
          } else {
            additional = true;
            schema = additional_items_schema_.get();
            if (additional_items_bool_ == false) additional_false.push_back(i);
          }
        }
        // The first failing item (or additional item) only, as MongoDB.
        if (schema && !schema->Valid(item) && !(additional && additional_reported)) {
          bson::BsonDoc err;
          bson_t* out = err.mutable_get();
          bson_t details;
          size_t dn = 0;
          if (items_schema_ || additional) {
            BSON_APPEND_UTF8(out, "operatorName", additional ? "additionalItems" : "items");
            schema->AppendAnnotations(out);
            BSON_APPEND_UTF8(out, "reason",
                             additional ? "At least one additional item did not match the sub-schema"
                                        : "At least one item did not match the sub-schema");
            BSON_APPEND_INT32(out, "itemIndex", static_cast<int32_t>(i));
            bson_append_array_begin(out, "details", -1, &details);
            schema->Explain(item, &details, &dn);
            bson_append_array_end(out, &details);
            AppendDoc(rules, n, err.get());
            if (additional) {
              additional_reported = true;
            } else {
              break;
            }
          } else {
            BSON_APPEND_INT64(out, "itemIndex", static_cast<int64_t>(i));
            bson_append_array_begin(out, "details", -1, &details);
            schema->Explain(item, &details, &dn);
            bson_append_array_end(out, &details);
            AppendDoc(&list_details, &list_n, err.get());
          }
        }
        ++i;
      }
      if (items_is_list_) {
        bson_append_array_end(items_list_error.mutable_get(), &list_details);
        if (list_n > 0) AppendDoc(rules, n, items_list_error.get());
        if (!additional_false.empty()) {
          bson::BsonDoc err = LeafError("additionalItems", Given("additionalItems").get(),
                                        "found additional items", nullptr);
          bson_t items;
          bson_append_array_begin(err.mutable_get(), "additionalItems", -1, &items);
          bson_iter_t a;
          bson_iter_init(&a, &arr);
          size_t k = 0, out_n = 0;
          while (bson_iter_next(&a)) {
            if (k++ < items_list_.size()) continue;
            std::string key = std::to_string(out_n++);
            bson_append_value(&items, key.c_str(), -1, bson_iter_value(&a));
          }
          bson_append_array_end(err.mutable_get(), &items);
          AppendDoc(rules, n, err.get());
        }
      }
    }
  } else if (t == BSON_TYPE_DOCUMENT) {
    bson_t obj;
    v.Open(&obj);
    // properties
    if (!properties_.empty()) {
      bson::BsonDoc err;
      BSON_APPEND_UTF8(err.mutable_get(), "operatorName", "properties");
      bson_t props;
      bson_append_array_begin(err.mutable_get(), "propertiesNotSatisfied", -1, &props);
      size_t pn = 0;
      for (const Property& p : properties_) {
        bson_iter_t f;
        if (!bson_iter_init_find(&f, &obj, p.name.c_str())) continue;
        Value field{nullptr, &f};
        if (p.schema->Valid(field)) continue;
        bson::BsonDoc entry;
        BSON_APPEND_UTF8(entry.mutable_get(), "propertyName", p.name.c_str());
        p.schema->AppendAnnotations(entry.mutable_get());
        bson_t details;
        bson_append_array_begin(entry.mutable_get(), "details", -1, &details);
        size_t dn = 0;
        p.schema->Explain(field, &details, &dn);
        bson_append_array_end(entry.mutable_get(), &details);
        AppendDoc(&props, &pn, entry.get());
      }
      bson_append_array_end(err.mutable_get(), &props);
      if (pn > 0) AppendDoc(rules, n, err.get());
    }
    // additionalProperties / patternProperties
    if (additional_properties_bool_ == false || additional_properties_schema_ ||
        !pattern_properties_.empty()) {
      std::vector<std::string> additional;
      std::optional<bson::BsonDoc> additional_schema_error;
      bson::BsonDoc pattern_error;
      bson_t pattern_details;
      size_t pattern_n = 0;
      bson_append_array_begin(pattern_error.mutable_get(), "details", -1, &pattern_details);
      bson_iter_t f;
      bson_iter_init(&f, &obj);
      while (bson_iter_next(&f)) {
        const char* key = bson_iter_key(&f);
        uint32_t len = bson_iter_key_len(&f);
        Value field{nullptr, &f};
        for (const PatternProperty& p : pattern_properties_) {
          if (!p.regex->MatchesString(key, len) || p.schema->Valid(field)) continue;
          bson::BsonDoc entry;
          BSON_APPEND_UTF8(entry.mutable_get(), "propertyName", key);
          BSON_APPEND_UTF8(entry.mutable_get(), "regexMatched", p.source.c_str());
          bson_t details;
          bson_append_array_begin(entry.mutable_get(), "details", -1, &details);
          size_t dn = 0;
          p.schema->Explain(field, &details, &dn);
          bson_append_array_end(entry.mutable_get(), &details);
          AppendDoc(&pattern_details, &pattern_n, entry.get());
        }
        if (!IsAdditional(key, len)) continue;
        if (additional_properties_bool_ == false) {
          additional.emplace_back(key, len);
        } else if (additional_properties_schema_ && !additional_schema_error &&
                   !additional_properties_schema_->Valid(field)) {
          bson::BsonDoc err;
          bson_t* out = err.mutable_get();
          BSON_APPEND_UTF8(out, "operatorName", "additionalProperties");
          additional_properties_schema_->AppendAnnotations(out);
          BSON_APPEND_UTF8(out, "reason",
                           "at least one additional property did not match the subschema");
          BSON_APPEND_UTF8(out, "failingProperty", key);
          bson_t details;
          bson_append_array_begin(out, "details", -1, &details);
          size_t dn = 0;
          additional_properties_schema_->Explain(field, &details, &dn);
          bson_append_array_end(out, &details);
          additional_schema_error = std::move(err);
        }
      }
      bson_append_array_end(pattern_error.mutable_get(), &pattern_details);
      if (!additional.empty()) {
        bson::BsonDoc err =
            LeafError("additionalProperties", Given("additionalProperties").get(), nullptr, nullptr);
        AppendStringArray(err.mutable_get(), "additionalProperties", additional);
        AppendDoc(rules, n, err.get());
      }
      if (additional_schema_error) AppendDoc(rules, n, additional_schema_error->get());
      if (pattern_n > 0) {
        bson::BsonDoc err;
        BSON_APPEND_UTF8(err.mutable_get(), "operatorName", "patternProperties");
        bson_concat(err.mutable_get(), pattern_error.get());
        AppendDoc(rules, n, err.get());
      }
    }
    // required
    std::vector<std::string> missing;
    for (const std::string& r : required_) {
      bson_iter_t f;
      if (!bson_iter_init_find(&f, &obj, r.c_str())) missing.push_back(r);
    }
    std::sort(missing.begin(), missing.end());  // MongoDB checks them in name order
    if (!missing.empty()) {
      bson::BsonDoc err = LeafError("required", Given("required").get(), nullptr, nullptr);
      AppendStringArray(err.mutable_get(), "missingProperties", missing);
      AppendDoc(rules, n, err.get());
    }
    int64_t count = bson_count_keys(&obj);
    for (const char* kw : {"minProperties", "maxProperties"}) {
      const std::optional<int64_t>& limit = kw[1] == 'a' ? max_properties_ : min_properties_;
      if (!limit || (kw[1] == 'a' ? count <= *limit : count >= *limit)) continue;
      bson::BsonDoc err =
          LeafError(kw, Given(kw).get(), "specified number of properties was not satisfied", nullptr);
      BSON_APPEND_INT32(err.mutable_get(), "numberOfProperties", static_cast<int32_t>(count));
      AppendDoc(rules, n, err.get());
    }
    // dependencies
    if (!dependencies_.empty()) {
      bson::BsonDoc err;
      BSON_APPEND_UTF8(err.mutable_get(), "operatorName", "dependencies");
      bson_t failing;
      bson_append_array_begin(err.mutable_get(), "failingDependencies", -1, &failing);
      size_t fn = 0;
      for (const Dependency& d : dependencies_) {
        bson_iter_t f;
        if (!bson_iter_init_find(&f, &obj, d.name.c_str())) continue;
        bson::BsonDoc entry;
        BSON_APPEND_UTF8(entry.mutable_get(), "conditionalProperty", d.name.c_str());
        if (d.schema) {
          if (d.schema->Valid(v)) continue;
          bson_t details;
          bson_append_array_begin(entry.mutable_get(), "details", -1, &details);
          size_t dn = 0;
          d.schema->Explain(v, &details, &dn);
          bson_append_array_end(entry.mutable_get(), &details);
        } else {
          std::vector<std::string> missing_deps;
          for (const std::string& r : d.properties) {
            if (!bson_iter_init_find(&f, &obj, r.c_str())) missing_deps.push_back(r);
          }
          if (missing_deps.empty()) continue;
          AppendStringArray(entry.mutable_get(), "missingProperties", missing_deps);
        }
        AppendDoc(&failing, &fn, entry.get());
      }
      bson_append_array_end(err.mutable_get(), &failing);
      if (fn > 0) AppendDoc(rules, n, err.get());
    }
  }
  // Logical keywords.
  bool all_ok = true;
  for (const auto& s : all_of_) all_ok = all_ok && s->Valid(v);
  if (!all_ok) {
    bson::BsonDoc err;
    BSON_APPEND_UTF8(err.mutable_get(), "operatorName", "allOf");
    AppendSchemasNotSatisfied(all_of_, v, err.mutable_get());
    AppendDoc(rules, n, err.get());
  }
  if (!any_of_.empty()) {
    bool any = false;
    for (const auto& s : any_of_) any = any || s->Valid(v);
    if (!any) {
      bson::BsonDoc err;
      BSON_APPEND_UTF8(err.mutable_get(), "operatorName", "anyOf");
      AppendSchemasNotSatisfied(any_of_, v, err.mutable_get());
      AppendDoc(rules, n, err.get());
    }
  }
  if (!one_of_.empty()) {
    std::vector<int32_t> matching;
    for (size_t i = 0; i < one_of_.size(); ++i) {
      if (one_of_[i]->Valid(v)) matching.push_back(static_cast<int32_t>(i));
    }
    if (matching.size() != 1) {
      bson::BsonDoc err;
      BSON_APPEND_UTF8(err.mutable_get(), "operatorName", "oneOf");
      if (matching.empty()) {
        AppendSchemasNotSatisfied(one_of_, v, err.mutable_get());
      } else {
        BSON_APPEND_UTF8(err.mutable_get(), "reason", "more than one subschema matched");
        bson_t arr;
        bson_append_array_begin(err.mutable_get(), "matchingSchemaIndexes", -1, &arr);
        for (size_t i = 0; i < matching.size(); ++i) {
          std::string k = std::to_string(i);
          bson_append_int32(&arr, k.c_str(), -1, matching[i]);
        }
        bson_append_array_end(err.mutable_get(), &arr);
      }
      AppendDoc(rules, n, err.get());
    }
  }
  if (not_ && not_->Valid(v)) {
    bson::BsonDoc err;
    BSON_APPEND_UTF8(err.mutable_get(), "operatorName", "not");
    BSON_APPEND_UTF8(err.mutable_get(), "reason", "child expression matched");
    AppendDoc(rules, n, err.get());
  }
  if (!EnumValid(v)) {
    AppendDoc(rules, n, LeafError("enum", Given("enum").get(), "value was not found in enum", &v).get());
  }
  // Type last.
  if (!TypeOk(v)) {
    bson::BsonDoc err = LeafError(type_keyword_, Given(type_keyword_).get(), "type did not match", &v);
    BSON_APPEND_UTF8(err.mutable_get(), "consideredType", bson::TypeName(t));
    AppendDoc(rules, n, err.get());
  }
}

// --- the operator -----------------------------------------------------------

JsonSchemaExpression::JsonSchemaExpression(bson::BsonDoc spec, std::unique_ptr<JsonSchema> root)
    : MatchExpression(MatchKind::kJsonSchema), spec_(std::move(spec)), root_(std::move(root)) {}

JsonSchemaExpression::~JsonSchemaExpression() = default;

StatusWith<std::unique_ptr<JsonSchemaExpression>> JsonSchemaExpression::Parse(
    const bson_iter_t* operand) {
  if (!BSON_ITER_HOLDS_DOCUMENT(operand)) return TypeMismatch("$jsonSchema must be an object");
  bson_t sub;
  bson::OpenSubdocument(operand, &sub);
  ASSIGN_OR_RETURN(std::unique_ptr<JsonSchema> root, JsonSchema::Parse(&sub));
  return std::unique_ptr<JsonSchemaExpression>(
      new JsonSchemaExpression(bson::BsonDoc::CopyOf(&sub), std::move(root)));
}

bool JsonSchemaExpression::Matches(const bson_t* doc) const { return root_->Valid(Value{doc, nullptr}); }

bool JsonSchemaExpression::MatchesValue(const bson_iter_t* value) const {
  if (value == nullptr || !BSON_ITER_HOLDS_DOCUMENT(value)) return false;
  bson_t sub;
  bson::OpenSubdocument(value, &sub);
  return Matches(&sub);
}

bson::BsonDoc JsonSchemaExpression::Explain(const bson_t* doc) const {
  bson::BsonDoc out;
  BSON_APPEND_UTF8(out.mutable_get(), "operatorName", "$jsonSchema");
  if (root_->MatchesNoDocument()) {
    // MongoDB turns such a schema into $alwaysFalse.
    bson_t spec;
    bson_append_document_begin(out.mutable_get(), "specifiedAs", -1, &spec);
    BSON_APPEND_DOCUMENT(&spec, "$jsonSchema", spec_.get());
    bson_append_document_end(out.mutable_get(), &spec);
    BSON_APPEND_UTF8(out.mutable_get(), "reason", "expression always evaluates to false");
    return out;
  }
  root_->AppendAnnotations(out.mutable_get());
  bson_t rules;
  bson_append_array_begin(out.mutable_get(), "schemaRulesNotSatisfied", -1, &rules);
  size_t n = 0;
  root_->Explain(Value{doc, nullptr}, &rules, &n);
  bson_append_array_end(out.mutable_get(), &rules);
  return out;
}

}  // namespace tigerdoc::query
