// Parsing of the archive command's and option's fields (archive_spec.h).
// The filter and the `set` expressions are compiled here once, so that a
// bad one is refused before anything moves (and, for the option, before it
// is stored and run in the background).

#include "engine/archive/archive_spec.h"

#include <cmath>

#include "engine/agg/pipeline.h"
#include "engine/bson/type_name.h"
#include "engine/catalog/catalog.h"
#include "engine/query/matcher/matcher.h"

namespace tigerdoc::engine {
namespace {

class FieldErrors {
 public:
  explicit FieldErrors(std::string_view prefix) : prefix_(prefix) {}
  std::string Name(std::string_view field) const {
    return "BSON field '" + prefix_ + "." + std::string(field) + "'";
  }
  Status WrongType(std::string_view field, const bson_iter_t* it, std::string_view expected) const {
    return Status(ErrorCode::kTypeMismatch, Name(field) + " is the wrong type '" +
                                                std::string(bson::TypeName(bson_iter_type(it))) +
                                                "', expected type" + std::string(expected));
  }
  Status Unknown(std::string_view field) const {
    return Status(ErrorCode::kLocation40415, Name(field) + " is an unknown field.");
  }
  Status Missing(std::string_view field) const {
    return Status(ErrorCode::kLocation40414, Name(field) + " is missing but a required field");
  }
  Status Bad(std::string_view field, const std::string& why) const {
    return Status(ErrorCode::kBadValue, Name(field) + " " + why);
  }

 private:
  std::string prefix_;
};

bool IsInternalDb(std::string_view db) { return db == "admin" || db == "local" || db == "config"; }

// A whole number held by any numeric type, or nullopt.
std::optional<int64_t> WholeNumber(const bson_iter_t* it) {
  if (BSON_ITER_HOLDS_INT32(it) || BSON_ITER_HOLDS_INT64(it)) return bson_iter_as_int64(it);
  if (BSON_ITER_HOLDS_DOUBLE(it)) {
    double d = bson_iter_double(it);
    if (std::isfinite(d) && std::floor(d) == d && std::fabs(d) < 9e18) return static_cast<int64_t>(d);
  }
  return std::nullopt;
}

Status ParseTo(const bson_iter_t* it, const FieldErrors& errors, ArchiveSpec* spec) {
  if (BSON_ITER_HOLDS_UTF8(it)) {
    spec->to_db = spec->db;
    spec->to_coll = bson_iter_utf8(it, nullptr);
  } else if (BSON_ITER_HOLDS_DOCUMENT(it)) {
    bson_t to = bson::SubDocumentView(it);
    bson_iter_t f;
    bson_iter_init(&f, &to);
    spec->to_db = spec->db;
    bool have_coll = false;
    while (bson_iter_next(&f)) {
      std::string_view key = bson_iter_key(&f);
      if (key != "db" && key != "coll") return errors.Unknown("to." + std::string(key));
      if (!BSON_ITER_HOLDS_UTF8(&f)) return errors.WrongType("to." + std::string(key), &f, " 'string'");
      (key == "db" ? spec->to_db : spec->to_coll) = bson_iter_utf8(&f, nullptr);
      spec->to_db_given = spec->to_db_given || key == "db";
      have_coll = have_coll || key == "coll";
    }
    if (!have_coll) return errors.Missing("to.coll");
  } else {
    return errors.WrongType("to", it, "s ['string', 'object']");
  }
  if (spec->to_coll.empty()) return errors.Bad("to", "must name a collection, not be empty");
  RETURN_IF_ERROR(catalog::Catalog::ValidateDbName(spec->to_db));
  RETURN_IF_ERROR(catalog::Catalog::ValidateCollectionName(spec->to_coll));
  if (spec->to_coll.rfind("system.", 0) == 0) {
    return errors.Bad("to", "cannot be a system collection: " + spec->target_ns());
  }
  if (IsInternalDb(spec->to_db)) {
    return errors.Bad("to", "cannot be in the internal database '" + spec->to_db + "'");
  }
  return Status::OK();
}

Status ParseOlderThan(const bson_iter_t* it, const FieldErrors& errors, ArchiveSpec* spec) {
  if (!BSON_ITER_HOLDS_DOCUMENT(it)) return errors.WrongType("olderThan", it, " 'object'");
  bson_t obj = bson::SubDocumentView(it);
  bson_iter_t f;
  bson_iter_init(&f, &obj);
  bool have_seconds = false;
  while (bson_iter_next(&f)) {
    std::string_view key = bson_iter_key(&f);
    if (key == "field") {
      if (!BSON_ITER_HOLDS_UTF8(&f)) return errors.WrongType("olderThan.field", &f, " 'string'");
      spec->older_than_field = bson_iter_utf8(&f, nullptr);
      if (spec->older_than_field.empty() || spec->older_than_field[0] == '$' ||
          spec->older_than_field.front() == '.' || spec->older_than_field.back() == '.' ||
          spec->older_than_field.find("..") != std::string::npos) {
        return errors.Bad("olderThan.field", "must be a field path such as \"orderDate\", not '" +
                                                 spec->older_than_field + "'");
      }
    } else if (key == "seconds") {
      if (!BSON_ITER_HOLDS_NUMBER(&f)) return errors.WrongType("olderThan.seconds", &f, " 'number'");
      std::optional<int64_t> seconds = WholeNumber(&f);
      if (!seconds || *seconds < 0) {
        return errors.Bad("olderThan.seconds", "must be a whole number of seconds >= 0");
      }
      spec->older_than_seconds = *seconds;
      have_seconds = true;
    } else {
      return errors.Unknown("olderThan." + std::string(key));
    }
  }
  if (spec->older_than_field.empty()) return errors.Missing("olderThan.field");
  if (!have_seconds) return errors.Missing("olderThan.seconds");
  return Status::OK();
}

Status ParseSet(const bson_iter_t* it, const FieldErrors& errors, ArchiveSpec* spec) {
  if (!BSON_ITER_HOLDS_DOCUMENT(it)) return errors.WrongType("set", it, " 'object'");
  bson_t obj = bson::SubDocumentView(it);
  bson_iter_t f;
  bson_iter_init(&f, &obj);
  while (bson_iter_next(&f)) {
    std::string_view key = bson_iter_key(&f);
    if (key == "_id" || key.rfind("_id.", 0) == 0) {
      return errors.Bad("set." + std::string(key), "cannot change _id: the archived document keeps its _id");
    }
  }
  spec->set = bson::BsonDoc::CopyOf(&obj);
  // Compile the expressions as the move will ($set stage), so a bad one is
  // refused now with the expression's own error.
  bson::BsonDoc pipeline;
  bson_t stage;
  BSON_APPEND_DOCUMENT_BEGIN(pipeline.mutable_get(), "0", &stage);
  BSON_APPEND_DOCUMENT(&stage, "$set", &obj);
  bson_append_document_end(pipeline.mutable_get(), &stage);
  agg::ExpressionContext ctx;
  ctx.db = spec->db;
  StatusWith<agg::Pipeline> parsed = agg::Pipeline::Parse(pipeline.get(), ctx);
  if (!parsed.ok()) return parsed.status().WithContext(errors.Name("set") + ": ");
  return Status::OK();
}

Status ParseFilter(const bson_iter_t* it, const FieldErrors& errors, ArchiveSpec* spec) {
  if (!BSON_ITER_HOLDS_DOCUMENT(it)) return errors.WrongType("filter", it, " 'object'");
  bson_t obj = bson::SubDocumentView(it);
  spec->filter = bson::BsonDoc::CopyOf(&obj);
  StatusWith<std::unique_ptr<query::Matcher>> matcher = query::Matcher::Parse(spec->filter.get());
  if (!matcher.ok()) return matcher.status().WithContext(errors.Name("filter") + ": ");
  return Status::OK();
}

}  // namespace

StatusWith<ArchiveSpec> ParseArchiveSpec(const bson_t* doc, ArchiveForm form,
                                         std::string_view prefix, std::string db,
                                         std::string coll) {
  ArchiveSpec spec;
  spec.db = std::move(db);
  spec.coll = std::move(coll);
  FieldErrors errors(prefix);
  bool have_to = false;
  bool have_every = false;
  bson_iter_t it;
  bson_iter_init(&it, doc);
  if (form == ArchiveForm::kCommand) bson_iter_next(&it);  // the command name
  while (bson_iter_next(&it)) {
    std::string_view key = bson_iter_key(&it);
    if (key == "to") {
      RETURN_IF_ERROR(ParseTo(&it, errors, &spec));
      have_to = true;
    } else if (key == "filter") {
      RETURN_IF_ERROR(ParseFilter(&it, errors, &spec));
    } else if (key == "olderThan") {
      RETURN_IF_ERROR(ParseOlderThan(&it, errors, &spec));
    } else if (key == "set") {
      RETURN_IF_ERROR(ParseSet(&it, errors, &spec));
    } else if (key == "whenMatched") {
      if (!BSON_ITER_HOLDS_UTF8(&it)) return errors.WrongType(key, &it, " 'string'");
      std::string value = bson_iter_utf8(&it, nullptr);
      if (value != "fail" && value != "replace" && value != "keepExisting" && value != "merge") {
        return Status(ErrorCode::kBadValue, "Enumeration value '" + value + "' for field '" +
                                                std::string(prefix) +
                                                ".whenMatched' is not a valid value: use \"fail\", "
                                                "\"replace\", \"keepExisting\" or \"merge\".");
      }
      spec.when_matched = std::move(value);
    } else if (key == "batchSize") {
      if (!BSON_ITER_HOLDS_NUMBER(&it)) return errors.WrongType(key, &it, " 'number'");
      std::optional<int64_t> n = WholeNumber(&it);
      if (!n || *n < 1 || *n > kArchiveMaxBatchSize) {
        return errors.Bad(key, "must be a whole number between 1 and " +
                                   std::to_string(kArchiveMaxBatchSize) +
                                   " (the most documents one batch deletes), actual value '" +
                                   (n ? std::to_string(*n) : std::to_string(bson_iter_as_double(&it))) +
                                   "'");
      }
      spec.batch_size = *n;
    } else if (key == "unionView") {
      if (!BSON_ITER_HOLDS_UTF8(&it)) return errors.WrongType(key, &it, " 'string'");
      spec.union_view = bson_iter_utf8(&it, nullptr);
      if (spec.union_view.empty()) return errors.Bad(key, "must name a view, not be empty");
      RETURN_IF_ERROR(catalog::Catalog::ValidateCollectionName(spec.union_view));
      if (spec.union_view.rfind("system.", 0) == 0) {
        return errors.Bad(key, "cannot be a system collection: " + spec.union_view);
      }
    } else if (key == "every" && form == ArchiveForm::kOption) {
      if (!BSON_ITER_HOLDS_NUMBER(&it)) return errors.WrongType(key, &it, " 'number'");
      std::optional<int64_t> n = WholeNumber(&it);
      if (!n || *n < 1) return errors.Bad(key, "must be a whole number of seconds >= 1");
      spec.every_seconds = *n;
      have_every = true;
    } else if (form == ArchiveForm::kOption) {
      return errors.Unknown(key);
    }
  }
  if (!have_to) return errors.Missing("to");
  if (form == ArchiveForm::kOption && !have_every) return errors.Missing("every");
  if (spec.to_db == spec.db && spec.to_coll == spec.coll) {
    return errors.Bad("to", "must differ from the archived collection " + spec.source_ns() +
                                " (a collection cannot be archived into itself)");
  }
  if (!spec.union_view.empty()) {
    if (spec.union_view == spec.coll || (spec.to_db == spec.db && spec.union_view == spec.to_coll)) {
      return errors.Bad("unionView", "must differ from the archived and the archive collection");
    }
    if (spec.to_db != spec.db) {
      return errors.Bad("unionView", "needs the archive in the same database ($unionWith reads "
                                     "collections of the view's database), not " +
                                         spec.target_ns());
    }
  }
  return spec;
}

bson::BsonDoc ArchiveOptionDocument(const ArchiveSpec& spec) {
  bson::BsonDoc out;
  bson_t* b = out.mutable_get();
  if (spec.to_db_given) {
    bson_t to;
    BSON_APPEND_DOCUMENT_BEGIN(b, "to", &to);
    BSON_APPEND_UTF8(&to, "db", spec.to_db.c_str());
    BSON_APPEND_UTF8(&to, "coll", spec.to_coll.c_str());
    bson_append_document_end(b, &to);
  } else {
    BSON_APPEND_UTF8(b, "to", spec.to_coll.c_str());
  }
  BSON_APPEND_DOCUMENT(b, "filter", spec.filter.get());
  if (!spec.older_than_field.empty()) {
    bson_t older;
    BSON_APPEND_DOCUMENT_BEGIN(b, "olderThan", &older);
    BSON_APPEND_UTF8(&older, "field", spec.older_than_field.c_str());
    BSON_APPEND_INT64(&older, "seconds", spec.older_than_seconds);
    bson_append_document_end(b, &older);
  }
  BSON_APPEND_DOCUMENT(b, "set", spec.set.get());
  BSON_APPEND_UTF8(b, "whenMatched", spec.when_matched.c_str());
  BSON_APPEND_INT32(b, "batchSize", static_cast<int32_t>(spec.batch_size));
  if (!spec.union_view.empty()) BSON_APPEND_UTF8(b, "unionView", spec.union_view.c_str());
  BSON_APPEND_INT64(b, "every", spec.every_seconds);
  return out;
}

}  // namespace tigerdoc::engine
