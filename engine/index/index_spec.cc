// IndexSpec parsing and validation (MongoDB's index_key_validate rules and
// messages), catalog (de)serialisation, and the conflict rules of
// createIndexes.

#include "engine/index/index_spec.h"

#include <cmath>
#include <cstdio>
#include <cstring>

#include "engine/bson/compare.h"
#include "engine/bson/shell_string.h"
#include "engine/collation/collator_factory.h"
#include "engine/bson/type_name.h"
#include "engine/index/wildcard.h"

namespace tigerdoc::index {
namespace {

// MongoDB's unregistered assertion codes for hashed key patterns.
constexpr ErrorCode kHashedUniqueCode = static_cast<ErrorCode>(16764);
constexpr ErrorCode kTooManyHashedCode = static_cast<ErrorCode>(31303);

// Every top-level field MongoDB accepts in an index spec (allowedFieldNames);
// anything else is InvalidIndexSpecificationOption (197).
constexpr const char* kAllowedFields[] = {
    "key", "name", "v", "unique", "sparse", "partialFilterExpression", "expireAfterSeconds",
    "hidden", "background", "collation", "ns", "weights", "default_language",
    "language_override", "textIndexVersion", "2dsphereIndexVersion", "bits", "min", "max",
    "bucketSize", "wildcardProjection", "storageEngine", "dropDups", "prepareUnique",
    "clustered", "coarsestIndexedLevel", "finestIndexedLevel", "columnstoreProjection",
    "columnstoreCompressor", "originalSpec",
};

bool IsAllowedField(std::string_view name) {
  for (const char* allowed : kAllowedFields) {
    if (name == allowed) return true;
  }
  return false;
}

bool IsNumber(const bson_iter_t* it) {
  return BSON_ITER_HOLDS_INT32(it) || BSON_ITER_HOLDS_INT64(it) || BSON_ITER_HOLDS_DOUBLE(it) ||
         BSON_ITER_HOLDS_DECIMAL128(it);
}

// The numeric value as a double (decimal128 through its string form).
double NumberOf(const bson_iter_t* it) {
  if (BSON_ITER_HOLDS_DECIMAL128(it)) {
    bson_decimal128_t dec;
    bson_iter_decimal128(it, &dec);
    char buf[BSON_DECIMAL128_STRING];
    bson_decimal128_to_string(&dec, buf);
    if (std::strcmp(buf, "NaN") == 0 || std::strcmp(buf, "-NaN") == 0) return std::nan("");
    return std::strtod(buf, nullptr);
  }
  return bson_iter_as_double(it);
}

std::string Utf8Of(const bson_iter_t* it) {
  uint32_t len = 0;
  const char* s = bson_iter_utf8(it, &len);
  return std::string(s, len);
}

bson::BsonDoc SubDocument(const bson_iter_t* it) {
  bson_t view = bson::SubDocumentView(it);
  return bson::BsonDoc::CopyOf(&view);
}

// "unique: "x"" as BSONElement::toString() prints an element.
std::string ElementString(const bson_iter_t* it) {
  return std::string(bson_iter_key(it)) + ": " + bson::ToShellString(it);
}

Status CannotCreate(std::string reason) {
  return Status(ErrorCode::kCannotCreateIndex, std::move(reason));
}

// Index plugins MongoDB knows; none of them exists in tigerdoc yet except
// "hashed".
bool IsKnownPlugin(std::string_view name) {
  return name == "hashed" || name == "text" || name == "2d" || name == "2dsphere" ||
         name == "geoHaystack" || name == "columnstore" || name == "wildcard";
}

// The first string value of the key pattern (IndexNames::findPluginName),
// or "wildcard" for a "$**" / "x.$**" field with a number.
std::string PluginName(const bson_t* key) {
  bson_iter_t it;
  bson_iter_init(&it, key);
  while (bson_iter_next(&it)) {
    std::string_view field = bson_iter_key(&it);
    if (BSON_ITER_HOLDS_UTF8(&it)) return Utf8Of(&it);
    if (field == "$**" || (field.size() > 4 && field.substr(field.size() - 4) == ".$**")) {
      return "wildcard";
    }
  }
  return "";
}

// validateKeyPattern (v:2 rules).
Status ValidateKeyPattern(const bson_t* key) {
  if (bson_empty(key)) return CannotCreate("Index keys cannot be empty.");
  const std::string plugin = PluginName(key);
  // "wildcard" is no plugin name to give as a string: a wildcard index is a
  // "$**" field with a number.
  bson_iter_t named;
  bson_iter_init(&named, key);
  while (bson_iter_next(&named)) {
    if (BSON_ITER_HOLDS_UTF8(&named) && Utf8Of(&named) == "wildcard") {
      return CannotCreate("Unknown index plugin 'wildcard'");
    }
  }
  if (!plugin.empty() && !IsKnownPlugin(plugin)) {
    return CannotCreate("Unknown index plugin '" + plugin + "'");
  }
  bson_iter_t it;
  bson_iter_init(&it, key);
  while (bson_iter_next(&it)) {
    if (IsNumber(&it)) {
      double value = NumberOf(&it);
      if (std::isnan(value)) return CannotCreate("Values in the index key pattern cannot be NaN.");
      if (value == 0.0) return CannotCreate("Values in the index key pattern cannot be 0.");
    } else if (!BSON_ITER_HOLDS_UTF8(&it)) {
      return CannotCreate(std::string("Values in v:2 index key pattern cannot be of type ") +
                          bson::TypeName(bson_iter_type(&it)) +
                          ". Only numbers > 0, numbers < 0, and strings are allowed.");
    }
    if (BSON_ITER_HOLDS_UTF8(&it) && Utf8Of(&it) != plugin) {
      return CannotCreate("Can't use more than one index plugin for a single index.");
    }
    std::string_view field = bson_iter_key(&it);
    if (field.empty()) return CannotCreate("Index keys cannot be an empty field.");
    if (IsWildcardField(field) && BSON_ITER_HOLDS_UTF8(&it) && Utf8Of(&it) != "text") {
      return CannotCreate("The wildcard field '" + std::string(field) +
                          "' of an index key pattern must be 1 or -1, not \"" + Utf8Of(&it) +
                          "\"");
    }
    if (field == "$**") continue;  // wildcard or text
    bson::FieldPath path(field);
    for (size_t i = 0; i < path.size(); ++i) {
      const std::string& part = path.part(i);
      if (part.empty()) return CannotCreate("Index keys cannot contain an empty field.");
      if (part[0] != '$') continue;
      const bool might_be_dbref = i != 0 && (part == "$db" || part == "$id" || part == "$ref");
      const bool wildcard_suffix = i + 1 == path.size() && part == "$**";
      if (!might_be_dbref && !wildcard_suffix) {
        return CannotCreate(
            "Index key contains an illegal field name: field name starts with '$'.");
      }
    }
  }
  bson_iter_init(&it, key);
  while (bson_iter_next(&it)) {
    if (BSON_ITER_HOLDS_UTF8(&it) && Utf8Of(&it).empty()) {
      return CannotCreate("Values in the index key pattern cannot be empty strings");
    }
  }
  if (!plugin.empty() && plugin != "hashed" && plugin != "wildcard" && plugin != "text") {
    return CannotCreate("tigerdoc does not support " + plugin +
                        " indexes yet; only ascending, descending and hashed key fields can be "
                        "indexed");
  }
  return Status::OK();
}

// partialFilterExpression may use only what MongoDB allows there: equality,
// $eq, $gt/$gte/$lt/$lte, $type, $in, $exists: true, and $and/$or of those.
Status ValidatePartialFilter(const bson_t* filter) {
  bson_iter_t it;
  bson_iter_init(&it, filter);
  while (bson_iter_next(&it)) {
    std::string_view field = bson_iter_key(&it);
    if (field == "$and" || field == "$or") {
      if (!BSON_ITER_HOLDS_ARRAY(&it)) continue;  // the matcher already refused it
      bson_iter_t clause;
      bson_iter_recurse(&it, &clause);
      while (bson_iter_next(&clause)) {
        if (!BSON_ITER_HOLDS_DOCUMENT(&clause)) continue;
        bson::BsonDoc sub = SubDocument(&clause);
        RETURN_IF_ERROR(ValidatePartialFilter(sub.get()));
      }
      continue;
    }
    if (!field.empty() && field[0] == '$') {
      return CannotCreate("Expression not supported in partial index: " + ElementString(&it));
    }
    if (BSON_ITER_HOLDS_REGEX(&it)) {
      return CannotCreate("Expression not supported in partial index: " + ElementString(&it));
    }
    if (!BSON_ITER_HOLDS_DOCUMENT(&it)) continue;  // equality
    bson_iter_t op;
    bson_iter_recurse(&it, &op);
    if (!bson_iter_next(&op)) continue;
    std::string_view first = bson_iter_key(&op);
    if (first.empty() || first[0] != '$') continue;  // equality to a document
    do {
      std::string_view name = bson_iter_key(&op);
      bool ok = name == "$eq" || name == "$gt" || name == "$gte" || name == "$lt" ||
                name == "$lte" || name == "$type" || name == "$in";
      if (name == "$exists") ok = bson_iter_as_bool(&op);
      if (!ok) {
        return CannotCreate("Expression not supported in partial index: " + std::string(field) +
                            " " + ElementString(&op));
      }
    } while (bson_iter_next(&op));
  }
  return Status::OK();
}

// validateExpireAfterSeconds (secondary TTL index mode).
Status ValidateExpireAfterSeconds(const bson_iter_t* it, const std::string& spec_string,
                                  int64_t* out) {
  if (!IsNumber(it)) {
    return CannotCreate(std::string("TTL index 'expireAfterSeconds' option must be numeric, but "
                                    "received a type of '") +
                        bson::TypeName(bson_iter_type(it)) + "'. Index spec: " + spec_string);
  }
  double value = NumberOf(it);
  if (std::isnan(value)) {
    return CannotCreate("TTL index 'expireAfterSeconds' option must not be NaN. Index spec: " +
                        spec_string);
  }
  if (value < 0) {
    return CannotCreate("TTL index 'expireAfterSeconds' option cannot be less than 0. Index spec: " +
                        spec_string);
  }
  if (value > static_cast<double>(kMaxExpireAfterSeconds)) {
    return CannotCreate(
        "TTL index 'expireAfterSeconds' option must be within an acceptable range, try a lower "
        "number. Index spec: " +
        spec_string);
  }
  *out = static_cast<int64_t>(value);
  return Status::OK();
}

// Fills spec->fields from spec->key_pattern (already validated).
void FillFields(IndexSpec* spec) {
  spec->fields.clear();
  bson_iter_t it;
  bson_iter_init(&it, spec->key_pattern.get());
  while (bson_iter_next(&it)) {
    IndexField field;
    field.path = bson::FieldPath(bson_iter_key(&it));
    if (BSON_ITER_HOLDS_UTF8(&it)) {
      field.hashed = Utf8Of(&it) == "hashed";  // else _fts: "text", no key of its own
    } else if (NumberOf(&it) < 0) {
      field.dir = keystring::Direction::kDescending;
    }
    spec->fields.push_back(std::move(field));
  }
  spec->multikey_paths.assign(spec->fields.size(), {});
}

std::string NumberName(double value) {
  char buf[64];
  if (std::floor(value) == value && std::fabs(value) < 1e18) {
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(value));
  } else {
    std::snprintf(buf, sizeof buf, "%g", value);
  }
  return buf;
}

Status CheckAllowedFields(const bson_t* spec_doc, const std::string& spec_string) {
  bson_iter_t it;
  bson_iter_init(&it, spec_doc);
  while (bson_iter_next(&it)) {
    std::string_view field = bson_iter_key(&it);
    if (!IsAllowedField(field)) {
      return Status(ErrorCode::kInvalidIndexSpecificationOption,
                    "The field '" + std::string(field) +
                        "' is not valid for an index specification. Specification: " +
                        spec_string);
    }
  }
  return Status::OK();
}

Status ParseSpecFields(const bson_t* spec_doc, const std::string& spec_string, IndexSpec* spec) {
  bool has_key = false;
  bool has_name = false;
  std::optional<bson_iter_t> wildcard_projection;
  RETURN_IF_ERROR(CheckAllowedFields(spec_doc, spec_string));
  bson_iter_t it;
  bson_iter_init(&it, spec_doc);
  while (bson_iter_next(&it)) {
    std::string_view field = bson_iter_key(&it);
    const char* type = bson::TypeName(bson_iter_type(&it));
    if (field == "key") {
      if (!BSON_ITER_HOLDS_DOCUMENT(&it)) {
        return Status(ErrorCode::kTypeMismatch,
                      std::string("The field 'key' must be an object, but got ") + type);
      }
      spec->key_pattern = SubDocument(&it);
      std::set<std::string, std::less<>> seen;
      bson_iter_t key_it;
      bson_iter_init(&key_it, spec->key_pattern.get());
      while (bson_iter_next(&key_it)) {
        if (!seen.insert(bson_iter_key(&key_it)).second) {
          return Status(ErrorCode::kBadValue,
                        "The field '" + std::string(bson_iter_key(&key_it)) +
                            "' appears multiple times in the index key pattern " +
                            bson::ToShellString(spec->key_pattern.get()));
        }
      }
      RETURN_IF_ERROR(ValidateKeyPattern(spec->key_pattern.get()));
      has_key = true;
    } else if (field == "name") {
      if (!BSON_ITER_HOLDS_UTF8(&it)) {
        return Status(ErrorCode::kTypeMismatch,
                      std::string("The field 'name' must be a string, but got ") + type);
      }
      spec->name = Utf8Of(&it);
      // SERVER-16672: no NUL byte in an index name (CannotCreateIndex).
      if (spec->name.find('\0') != std::string::npos) {
        return Status(ErrorCode::kCannotCreateIndex,
                      "The index name cannot contain an embedded null byte");
      }
      has_name = true;
    } else if (field == "hidden") {
      if (!BSON_ITER_HOLDS_BOOL(&it)) {
        // MongoDB's message names 'name' here; kept for fidelity.
        return Status(ErrorCode::kTypeMismatch,
                      std::string("The field 'name' must be a bool, but got ") + type);
      }
      spec->hidden = bson_iter_bool(&it);
    } else if (field == "v") {
      if (!IsNumber(&it)) {
        return Status(ErrorCode::kTypeMismatch,
                      std::string("The field 'v' must be a number, but got ") + type);
      }
      double v = NumberOf(&it);
      if (v != 1 && v != 2) {
        return CannotCreate("Invalid index specification " + spec_string +
                            "; cannot create an index with v=" + NumberName(v));
      }
      spec->version = static_cast<int>(v);
    } else if (field == "unique" || field == "sparse" || field == "background" ||
               field == "dropDups" || field == "prepareUnique") {
      if (!IsNumber(&it) && !BSON_ITER_HOLDS_BOOL(&it)) {
        // MongoDB's message lacks the closing quote after the field name.
        return Status(ErrorCode::kTypeMismatch, "The field '" + std::string(field) +
                                                    " has value " + ElementString(&it) +
                                                    ", which is not convertible to bool");
      }
      if (field == "unique") spec->unique = bson_iter_as_bool(&it);
      if (field == "sparse") spec->sparse = bson_iter_as_bool(&it);
    } else if (field == "partialFilterExpression") {
      if (!BSON_ITER_HOLDS_DOCUMENT(&it)) {
        return Status(
            ErrorCode::kTypeMismatch,
            std::string("The field 'partialFilterExpression' must be an object, but got ") + type);
      }
      bson::BsonDoc filter = SubDocument(&it);
      ASSIGN_OR_RETURN(std::unique_ptr<query::Matcher> matcher, query::Matcher::Parse(filter.get()));
      RETURN_IF_ERROR(ValidatePartialFilter(filter.get()));
      spec->partial_matcher = std::move(matcher);
      spec->partial_filter = std::move(filter);
    } else if (field == "expireAfterSeconds") {
      int64_t seconds = 0;
      RETURN_IF_ERROR(ValidateExpireAfterSeconds(&it, spec_string, &seconds));
      spec->expire_after_seconds = seconds;
    } else if (field == "collation") {
      if (!BSON_ITER_HOLDS_DOCUMENT(&it)) {
        return Status(ErrorCode::kTypeMismatch,
                      std::string("The field 'collation' must be an object, but got ") + type);
      }
      bson::BsonDoc collation = SubDocument(&it);
      ASSIGN_OR_RETURN(spec->collator, collation::CollatorFor(collation.get()));
      spec->collation_given = true;
    } else if ((field == "weights" || field == "default_language" ||
                field == "language_override" || field == "textIndexVersion") &&
               fts::IsTextIndexSpec(spec_doc)) {
      // Already validated by fts::FixTextIndexSpec (ParseIndexSpec).
      if (!spec->text_options) spec->text_options.emplace();
      bson_append_iter(spec->text_options->mutable_get(), nullptr, 0, &it);
    } else if (field == "weights" || field == "default_language" ||
               field == "language_override" || field == "textIndexVersion" ||
               field == "2dsphereIndexVersion" || field == "bits" || field == "min" ||
               field == "max" || field == "bucketSize" ||
               field == "coarsestIndexedLevel" || field == "finestIndexedLevel" ||
               field == "columnstoreProjection" || field == "columnstoreCompressor" ||
               field == "clustered" || field == "originalSpec") {
      // Options of index types tigerdoc refuses anyway (text, geo, wildcard,
      // columnstore, clustered); their key patterns never get this far.
      return CannotCreate("Invalid index specification " + spec_string + "; the field '" +
                          std::string(field) + "' is not supported by tigerdoc");
    }
    if (field == "wildcardProjection") wildcard_projection = it;
    // "ns" and "storageEngine" are accepted and ignored, as MongoDB drops "ns".
  }
  if (!has_key) {
    return Status(ErrorCode::kFailedToParse,
                  "The 'key' field is a required property of an index specification");
  }
  if (!has_name) spec->name = DefaultIndexName(spec->key_pattern.get());
  if (spec->name.empty()) return CannotCreate("The index name cannot be empty");
  if (spec->name == "*") {
    return Status(ErrorCode::kBadValue, "The index name '*' is not valid.");
  }
  FillFields(spec);
  bool wildcard = false;
  for (const IndexField& f : spec->fields) wildcard = wildcard || IsWildcardField(f.path.dotted());
  if (wildcard) {
    RETURN_IF_ERROR(ParseWildcard(wildcard_projection ? &*wildcard_projection : nullptr, spec));
  } else if (wildcard_projection) {
    return WildcardProjectionNotAllowed();
  }
  int hashed = 0;
  for (const IndexField& f : spec->fields) hashed += f.hashed ? 1 : 0;
  if (hashed > 1) {
    return Status(kTooManyHashedCode,
                  "A maximum of one index field is allowed to be hashed but found " +
                      std::to_string(hashed) + " for 'key' " +
                      bson::ToShellString(spec->key_pattern.get()));
  }
  if (hashed == 1 && spec->unique) {
    return Status(kHashedUniqueCode,
                  "Currently hashed indexes cannot guarantee uniqueness. Use a regular index.");
  }
  const bool is_id_key = spec->fields.size() == 1 && spec->fields[0].path.dotted() == "_id" &&
                         !spec->fields[0].hashed &&
                         spec->fields[0].dir == keystring::Direction::kAscending;
  if (spec->name == kIdIndexName || is_id_key) {
    if (spec->expire_after_seconds) {
      return CannotCreate(
          "The field 'expireAfterSeconds' is not valid for an _id index specification. "
          "Specification: " +
          spec_string);
    }
    if (spec->hidden && is_id_key && spec->name == kIdIndexName) {
      return Status(ErrorCode::kBadValue, "can't hide _id index");
    }
  }
  if (spec->expire_after_seconds && spec->fields.size() != 1) {
    return CannotCreate(
        "TTL indexes are single-field indexes, compound indexes do not support TTL. Index spec: " +
        spec_string);
  }
  return Status::OK();
}

bool SameOptionalDoc(const std::optional<bson::BsonDoc>& a, const std::optional<bson::BsonDoc>& b) {
  if (a.has_value() != b.has_value()) return false;
  return !a || bson::CompareDocuments(a->get(), b->get()) == 0;
}

const std::optional<bson::BsonDoc>& WildcardProjectionOf(const IndexSpec& spec) {
  static const std::optional<bson::BsonDoc> kNone;
  return spec.wildcard ? spec.wildcard->projection_spec : kNone;
}

Status Malformed(const std::string& what) {
  return Status(ErrorCode::kFailedToParse, "malformed index in catalog entry: " + what);
}

}  // namespace

IndexSpec IndexSpec::Clone() const {
  IndexSpec out;
  out.id = id;
  out.name = name;
  out.version = version;
  out.key_pattern = key_pattern.Copy();
  out.fields = fields;
  out.unique = unique;
  out.sparse = sparse;
  if (partial_filter) out.partial_filter = partial_filter->Copy();
  out.partial_matcher = partial_matcher;
  out.expire_after_seconds = expire_after_seconds;
  out.hidden = hidden;
  if (text_options) out.text_options = text_options->Copy();
  out.text = text;
  out.fts_term_keys = fts_term_keys;
  out.multikey = multikey;
  out.multikey_paths = multikey_paths;
  out.wildcard = wildcard;
  out.wildcard_multikey_paths = wildcard_multikey_paths;
  out.usage = usage;
  out.collator = collator;
  return out;
}

bool IndexSpec::hashed() const {
  for (const IndexField& f : fields) {
    if (f.hashed) return true;
  }
  return false;
}

bool IndexSpec::SameSignature(const IndexSpec& other) const {
  return KeyPatternsEqual(key_pattern.get(), other.key_pattern.get()) &&
         SameOptionalDoc(partial_filter, other.partial_filter) && unique == other.unique &&
         sparse == other.sparse && bson::SameCollation(collator, other.collator) &&
         SameOptionalDoc(WildcardProjectionOf(*this), WildcardProjectionOf(other)) &&
         SameOptionalDoc(text_options, other.text_options);
}

bool IndexSpec::Identical(const IndexSpec& other) const {
  return SameSignature(other) && expire_after_seconds == other.expire_after_seconds &&
         hidden == other.hidden;
}

bson::BsonDoc IndexSpec::ToListIndexesBson() const {
  bson::BsonDoc out;
  bson_t* doc = out.mutable_get();
  BSON_APPEND_INT32(doc, "v", version);
  BSON_APPEND_DOCUMENT(doc, "key", key_pattern.get());
  BSON_APPEND_UTF8(doc, "name", name.c_str());
  if (unique) BSON_APPEND_BOOL(doc, "unique", true);
  if (sparse) BSON_APPEND_BOOL(doc, "sparse", true);
  if (partial_filter) BSON_APPEND_DOCUMENT(doc, "partialFilterExpression", partial_filter->get());
  if (expire_after_seconds) {
    if (*expire_after_seconds <= INT32_MAX) {
      BSON_APPEND_INT32(doc, "expireAfterSeconds", static_cast<int32_t>(*expire_after_seconds));
    } else {
      BSON_APPEND_INT64(doc, "expireAfterSeconds", *expire_after_seconds);
    }
  }
  if (hidden) BSON_APPEND_BOOL(doc, "hidden", true);
  if (collator != nullptr) BSON_APPEND_DOCUMENT(doc, "collation", collator->spec());
  if (wildcard && wildcard->projection_spec) {
    BSON_APPEND_DOCUMENT(doc, "wildcardProjection", wildcard->projection_spec->get());
  }
  if (text_options) bson_concat(doc, text_options->get());
  return out;
}

bson::BsonDoc IndexSpec::ToCatalogBson() const {
  bson::BsonDoc out = ToListIndexesBson();
  bson_t* doc = out.mutable_get();
  BSON_APPEND_INT64(doc, "id", id);
  BSON_APPEND_BOOL(doc, "multikey", multikey);
  bson_t paths;
  BSON_APPEND_ARRAY_BEGIN(doc, "multikeyPaths", &paths);
  for (size_t i = 0; i < multikey_paths.size(); ++i) {
    bson_t components;
    std::string key = std::to_string(i);
    bson_append_array_begin(&paths, key.c_str(), -1, &components);
    int j = 0;
    for (size_t component : multikey_paths[i]) {
      std::string ckey = std::to_string(j++);
      bson_append_int32(&components, ckey.c_str(), -1, static_cast<int32_t>(component));
    }
    bson_append_array_end(&paths, &components);
  }
  bson_append_array_end(doc, &paths);
  if (wildcard) {
    bson_t wildcard_paths;
    BSON_APPEND_ARRAY_BEGIN(doc, "wildcardMultikeyPaths", &wildcard_paths);
    int j = 0;
    for (const std::string& path : wildcard_multikey_paths) {
      std::string key = std::to_string(j++);
      bson_append_utf8(&wildcard_paths, key.c_str(), -1, path.data(), static_cast<int>(path.size()));
    }
    bson_append_array_end(doc, &wildcard_paths);
  }
  if (text && fts_term_keys) BSON_APPEND_BOOL(doc, "ftsTermKeys", true);
  return out;
}

StatusWith<IndexSpec> IndexSpec::FromCatalogBson(const bson_t* doc) {
  // Everything but the bookkeeping fields is a createIndexes spec that was
  // valid when it was created; parse it with the same code.
  bson::BsonDoc spec_doc;
  IndexSpec spec;
  bool has_id = false;
  std::optional<bson::BsonDoc> paths;
  std::set<std::string> wildcard_paths;
  bson_iter_t it;
  if (!bson_iter_init(&it, doc)) return Malformed("not a document");
  while (bson_iter_next(&it)) {
    std::string_view key = bson_iter_key(&it);
    if (key == "id") {
      if (!BSON_ITER_HOLDS_INT64(&it) && !BSON_ITER_HOLDS_INT32(&it)) return Malformed("bad id");
      spec.id = bson_iter_as_int64(&it);
      has_id = true;
    } else if (key == "multikey") {
      spec.multikey = bson_iter_as_bool(&it);
    } else if (key == "ftsTermKeys") {
      spec.fts_term_keys = bson_iter_as_bool(&it);
    } else if (key == "multikeyPaths") {
      if (!BSON_ITER_HOLDS_ARRAY(&it)) return Malformed("bad multikeyPaths");
      paths = SubDocument(&it);
    } else if (key == "wildcardMultikeyPaths") {
      if (!BSON_ITER_HOLDS_ARRAY(&it)) return Malformed("bad wildcardMultikeyPaths");
      bson_iter_t path_it;
      bson_iter_recurse(&it, &path_it);
      while (bson_iter_next(&path_it)) {
        if (BSON_ITER_HOLDS_UTF8(&path_it)) wildcard_paths.insert(Utf8Of(&path_it));
      }
    } else {
      bson_append_iter(spec_doc.mutable_get(), nullptr, 0, &it);
    }
  }
  if (!has_id) return Malformed("missing id");
  StatusWith<IndexSpec> parsed = ParseIndexSpec(spec_doc.get());
  if (!parsed.ok()) return Malformed(parsed.status().reason());
  IndexSpec out = std::move(parsed).value();
  out.id = spec.id;
  out.multikey = spec.multikey;
  // Absent: a text index built before term keys (its entries are nulls).
  out.fts_term_keys = out.text && spec.fts_term_keys;
  out.wildcard_multikey_paths = std::move(wildcard_paths);
  if (paths) {
    bson_iter_t field_it;
    bson_iter_init(&field_it, paths->get());
    size_t i = 0;
    while (bson_iter_next(&field_it) && i < out.multikey_paths.size()) {
      if (BSON_ITER_HOLDS_ARRAY(&field_it)) {
        bson_iter_t comp;
        bson_iter_recurse(&field_it, &comp);
        while (bson_iter_next(&comp)) {
          out.multikey_paths[i].insert(static_cast<size_t>(bson_iter_as_int64(&comp)));
        }
      }
      ++i;
    }
  }
  return out;
}

bson::BsonDoc IdIndexDocument() {
  bson::BsonDoc out;
  BSON_APPEND_INT32(out.mutable_get(), "v", kIndexVersion);
  bson_t key;
  BSON_APPEND_DOCUMENT_BEGIN(out.mutable_get(), "key", &key);
  BSON_APPEND_INT32(&key, "_id", 1);
  bson_append_document_end(out.mutable_get(), &key);
  BSON_APPEND_UTF8(out.mutable_get(), "name", kIdIndexName);
  return out;
}

bool IsIndexSpecField(std::string_view field) { return IsAllowedField(field); }

StatusWith<IndexSpec> ParseIndexSpec(const bson_t* spec_doc,
                                     const bson::Collator* collection_default) {
  const std::string spec_string = bson::ToShellString(spec_doc);
  IndexSpec spec;
  // A text index is validated and rewritten to its stored form first, as
  // MongoDB's FTSSpec::fixSpec runs before the generic checks.
  std::optional<bson::BsonDoc> text_spec;
  if (fts::IsTextIndexSpec(spec_doc)) {
    Status allowed = CheckAllowedFields(spec_doc, spec_string);
    if (!allowed.ok()) return allowed;
    StatusWith<bson::BsonDoc> fixed = fts::FixTextIndexSpec(spec_doc);
    if (!fixed.ok()) return fixed.status();
    text_spec = std::move(fixed).value();
    spec_doc = text_spec->get();
  }
  Status status = ParseSpecFields(spec_doc, spec_string, &spec);
  if (!status.ok()) {
    return status.WithContext("Error in specification " + spec_string + " :: caused by :: ");
  }
  if (text_spec) {
    StatusWith<fts::TextIndexSpec> text = fts::TextIndexSpec::FromStored(spec_doc);
    if (!text.ok()) return text.status();
    spec.text = std::make_shared<const fts::TextIndexSpec>(std::move(text).value());
    spec.fts_term_keys = true;  // every new text index is keyed by term
  }
  if (!spec.collation_given) spec.collator = collection_default;
  return spec;
}

std::string DefaultIndexName(const bson_t* key_pattern) {
  std::string name;
  bson_iter_t it;
  bson_iter_init(&it, key_pattern);
  while (bson_iter_next(&it)) {
    if (!name.empty()) name += '_';
    name += bson_iter_key(&it);
    name += '_';
    if (BSON_ITER_HOLDS_UTF8(&it)) {
      name += Utf8Of(&it);
    } else if (IsNumber(&it)) {
      name += NumberName(NumberOf(&it));
    } else {
      name += bson::ToShellString(&it);
    }
  }
  return name;
}

const IndexSpec* IndexSet::FindByName(std::string_view name) const {
  for (const auto& spec : specs) {
    if (spec->name == name) return spec.get();
  }
  return nullptr;
}

std::vector<const IndexSpec*> IndexSet::FindByKeyPattern(const bson_t* key_pattern) const {
  std::vector<const IndexSpec*> out;
  for (const auto& spec : specs) {
    if (KeyPatternsEqual(spec->key_pattern.get(), key_pattern)) out.push_back(spec.get());
  }
  return out;
}

const IndexSpec* IndexSet::FindById(int64_t id) const {
  for (const auto& spec : specs) {
    if (spec->id == id) return spec.get();
  }
  return nullptr;
}

bool KeyPatternsEqual(const bson_t* a, const bson_t* b) { return bson::CompareDocuments(a, b) == 0; }

StatusWith<bool> CheckNewIndex(const IndexSpec& candidate, const IndexSet& existing) {
  const std::string requested = bson::ToShellString(candidate.ToListIndexesBson().get());
  // The implicit _id index: {_id: 1}, named "_id_", no options.
  bson::BsonDoc id_doc = IdIndexDocument();
  bson_iter_t id_key_it;
  bson_iter_init_find(&id_key_it, id_doc.get(), "key");
  bson::BsonDoc id_key = SubDocument(&id_key_it);
  const bool candidate_is_id_key = KeyPatternsEqual(candidate.key_pattern.get(), id_key.get()) &&
                                   !candidate.partial_filter && !candidate.sparse;
  if (candidate.name == kIdIndexName) {
    if (!candidate_is_id_key) {
      return Status(ErrorCode::kIndexKeySpecsConflict,
                    "An existing index has the same name as the requested index. When index "
                    "names are not specified, they are auto generated and can cause conflicts. "
                    "Please refer to our documentation. Requested index: " +
                        requested + ", existing index: " + bson::ToShellString(id_doc.get()));
    }
    return true;
  }
  if (candidate_is_id_key && !candidate.unique) {
    return Status(ErrorCode::kIndexOptionsConflict,
                  std::string("Index already exists with a different name: ") + kIdIndexName);
  }

  if (const IndexSpec* same_name = existing.FindByName(candidate.name)) {
    const std::string current = bson::ToShellString(same_name->ToListIndexesBson().get());
    if (!candidate.SameSignature(*same_name)) {
      return Status(ErrorCode::kIndexKeySpecsConflict,
                    "An existing index has the same name as the requested index. When index "
                    "names are not specified, they are auto generated and can cause conflicts. "
                    "Please refer to our documentation. Requested index: " +
                        requested + ", existing index: " + current);
    }
    if (!candidate.Identical(*same_name)) {
      return Status(ErrorCode::kIndexOptionsConflict,
                    "An equivalent index already exists with the same name but different "
                    "options. Requested index: " +
                        requested + ", existing index: " + current);
    }
    return true;
  }
  for (const auto& spec : existing.specs) {
    if (candidate.text && spec->text && !candidate.SameSignature(*spec)) {
      return CannotCreate("only one text index per collection allowed, found existing text index \"" +
                          spec->name + "\"");
    }
    if (!candidate.SameSignature(*spec)) continue;
    if (!candidate.Identical(*spec)) {
      return Status(ErrorCode::kIndexOptionsConflict,
                    "An equivalent index already exists with a different name and options. "
                    "Requested index: " +
                        requested +
                        ", existing index: " + bson::ToShellString(spec->ToListIndexesBson().get()));
    }
    return Status(ErrorCode::kIndexOptionsConflict,
                  "Index already exists with a different name: " + spec->name);
  }
  return false;
}

}  // namespace tigerdoc::index
