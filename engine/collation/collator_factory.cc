#include "engine/collation/collator_factory.h"

#include <unicode/coll.h>
#include <unicode/locid.h>

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "engine/bson/bson_doc.h"
#include "engine/bson/shell_string.h"
#include "engine/bson/type_name.h"
#include "engine/collation/icu_collator.h"

namespace tigerdoc::collation {
namespace {

constexpr const char* kSimple = "simple";

// The fields of a collation document as given, before ICU fills defaults.
struct GivenSpec {
  std::optional<std::string> locale;
  std::optional<bool> case_level;
  std::optional<std::string> case_first;
  std::optional<int64_t> strength;
  std::optional<bool> numeric_ordering;
  std::optional<std::string> alternate;
  std::optional<std::string> max_variable;
  std::optional<bool> normalization;
  std::optional<bool> backwards;
  std::optional<std::string> version;
};

Status WrongType(const std::string& field, const bson_iter_t* it, const char* expected) {
  return Status(ErrorCode::kTypeMismatch, "BSON field 'collation." + field + "' is the wrong type '" +
                                              bson::TypeName(bson_iter_type(it)) + "', expected " +
                                              expected);
}

StatusWith<bool> BoolField(const std::string& field, const bson_iter_t* it) {
  if (!BSON_ITER_HOLDS_BOOL(it)) return WrongType(field, it, "type 'bool'");
  return bson_iter_bool(it);
}

StatusWith<std::string> StringField(const std::string& field, const bson_iter_t* it) {
  if (!BSON_ITER_HOLDS_UTF8(it)) return WrongType(field, it, "type 'string'");
  uint32_t len = 0;
  const char* s = bson_iter_utf8(it, &len);
  return std::string(s, len);
}

// An IDL enum: the value must be one of `allowed`.
StatusWith<std::string> EnumField(const std::string& field, const bson_iter_t* it,
                                  std::initializer_list<const char*> allowed) {
  ASSIGN_OR_RETURN(std::string value, StringField(field, it));
  for (const char* a : allowed) {
    if (value == a) return value;
  }
  return Status(ErrorCode::kBadValue, "Enumeration value '" + value + "' for field 'collation." +
                                          field + "' is not a valid value.");
}

StatusWith<GivenSpec> ParseGiven(const bson_t* spec) {
  GivenSpec given;
  bson_iter_t it;
  bson_iter_init(&it, spec);
  while (bson_iter_next(&it)) {
    const std::string field = bson_iter_key(&it);
    if (field == "locale") {
      ASSIGN_OR_RETURN(given.locale, StringField(field, &it));
    } else if (field == "caseLevel") {
      ASSIGN_OR_RETURN(given.case_level, BoolField(field, &it));
    } else if (field == "caseFirst") {
      ASSIGN_OR_RETURN(given.case_first, EnumField(field, &it, {"upper", "lower", "off"}));
    } else if (field == "strength") {
      if (!BSON_ITER_HOLDS_NUMBER(&it) && !BSON_ITER_HOLDS_DECIMAL128(&it)) {
        return WrongType(field, &it, "types '[long, int, decimal, double]'");
      }
      const int64_t strength = bson_iter_as_int64(&it);
      if (strength > 5) {
        return Status(ErrorCode::kLocation51024, "BSON field 'strength' value must be <= 5, actual value '" +
                                                     std::to_string(strength) + "'");
      }
      if (strength < 1) {
        return Status(ErrorCode::kLocation51024, "BSON field 'strength' value must be >= 1, actual value '" +
                                                     std::to_string(strength) + "'");
      }
      given.strength = strength;
    } else if (field == "numericOrdering") {
      ASSIGN_OR_RETURN(given.numeric_ordering, BoolField(field, &it));
    } else if (field == "alternate") {
      ASSIGN_OR_RETURN(given.alternate, EnumField(field, &it, {"non-ignorable", "shifted"}));
    } else if (field == "maxVariable") {
      ASSIGN_OR_RETURN(given.max_variable, EnumField(field, &it, {"punct", "space"}));
    } else if (field == "normalization") {
      ASSIGN_OR_RETURN(given.normalization, BoolField(field, &it));
    } else if (field == "backwards") {
      ASSIGN_OR_RETURN(given.backwards, BoolField(field, &it));
    } else if (field == "version") {
      ASSIGN_OR_RETURN(given.version, StringField(field, &it));
    } else {
      return Status(ErrorCode::kLocation40415,
                    "BSON field 'collation." + field + "' is an unknown field.");
    }
  }
  if (!given.locale) {
    return Status(ErrorCode::kLocation40414,
                  "BSON field 'collation.locale' is missing but a required field");
  }
  return given;
}

UColAttributeValue OnOff(bool on) { return on ? UCOL_ON : UCOL_OFF; }

bool Attribute(const icu::Collator& c, UColAttribute attribute) {
  UErrorCode status = U_ZERO_ERROR;
  return c.getAttribute(attribute, status) == UCOL_ON;
}

// The locale must be one ICU knows as given: ICU falls back silently (to
// "root" for "xx"), so compare what it validly loaded with what was asked
// for, as MongoDB does, and suggest ICU's choice when it has one.
Status ValidateLocale(const bson_t* spec, const std::string& id, const icu::Collator& c) {
  UErrorCode status = U_ZERO_ERROR;
  const std::string valid = c.getLocale(ULOC_VALID_LOCALE, status).getName();
  if (valid == id) return Status::OK();
  // Keywords (de@collation=phonebook, zh@collation=pinyin) select data
  // inside the base locale's.
  const size_t at = id.find('@');
  if (at != std::string::npos && !valid.empty() && valid == id.substr(0, at)) return Status::OK();
  std::string message = "Field 'locale' is invalid in: " + bson::ToShellString(spec);
  if (!valid.empty() && valid != "root") message += ". Did you mean '" + valid + "'?";
  return Status(ErrorCode::kBadValue, message);
}

StatusWith<std::unique_ptr<IcuCollator>> MakeIcuCollator(const bson_t* spec, const GivenSpec& given) {
  const std::string& id = *given.locale;
  if (id.find('\0') != std::string::npos) {
    return Status(ErrorCode::kBadValue, "Field 'locale' cannot contain null byte. Collation spec: " +
                                            bson::ToShellString(spec));
  }
  if (id.empty()) {
    return Status(ErrorCode::kBadValue,
                  "Field 'locale' cannot be the empty string in: " + bson::ToShellString(spec));
  }
  const icu::Locale locale = icu::Locale::createFromName(id.c_str());
  if (locale.isBogus()) {
    return Status(ErrorCode::kBadValue, "Field 'locale' is not valid in: " + bson::ToShellString(spec));
  }
  UErrorCode status = U_ZERO_ERROR;
  std::unique_ptr<icu::Collator> icu(icu::Collator::createInstance(locale, status));
  if (U_FAILURE(status) || icu == nullptr) {
    return Status(ErrorCode::kBadValue, "Field 'locale' is invalid in: " + bson::ToShellString(spec));
  }
  RETURN_IF_ERROR(ValidateLocale(spec, id, *icu));

  status = U_ZERO_ERROR;
  if (given.case_level) icu->setAttribute(UCOL_CASE_LEVEL, OnOff(*given.case_level), status);
  if (given.case_first) {
    const std::string& v = *given.case_first;
    icu->setAttribute(UCOL_CASE_FIRST,
                      v == "upper" ? UCOL_UPPER_FIRST : (v == "lower" ? UCOL_LOWER_FIRST : UCOL_OFF),
                      status);
  }
  if (given.strength) {
    static constexpr UColAttributeValue kStrengths[] = {UCOL_PRIMARY, UCOL_SECONDARY, UCOL_TERTIARY,
                                                        UCOL_QUATERNARY, UCOL_IDENTICAL};
    icu->setAttribute(UCOL_STRENGTH, kStrengths[*given.strength - 1], status);
  }
  if (given.numeric_ordering) {
    icu->setAttribute(UCOL_NUMERIC_COLLATION, OnOff(*given.numeric_ordering), status);
  }
  if (given.alternate) {
    icu->setAttribute(UCOL_ALTERNATE_HANDLING,
                      *given.alternate == "shifted" ? UCOL_SHIFTED : UCOL_NON_IGNORABLE, status);
  }
  if (given.max_variable) {
    icu->setMaxVariable(*given.max_variable == "space" ? UCOL_REORDER_CODE_SPACE
                                                       : UCOL_REORDER_CODE_PUNCTUATION,
                        status);
  }
  if (given.normalization) {
    icu->setAttribute(UCOL_NORMALIZATION_MODE, OnOff(*given.normalization), status);
  }
  if (given.backwards) icu->setAttribute(UCOL_FRENCH_COLLATION, OnOff(*given.backwards), status);
  if (U_FAILURE(status)) {
    return Status(ErrorCode::kOperationFailed, std::string("Failed to set collation attributes: ") +
                                                   u_errorName(status) +
                                                   ". Collation spec: " + bson::ToShellString(spec));
  }

  // The normalized spec: every field, from what ICU now holds.
  UErrorCode get_status = U_ZERO_ERROR;
  const UColAttributeValue case_first = icu->getAttribute(UCOL_CASE_FIRST, get_status);
  const UColAttributeValue strength = icu->getAttribute(UCOL_STRENGTH, get_status);
  const int strength_number = strength == UCOL_IDENTICAL ? 5 : static_cast<int>(strength) + 1;
  const bool case_level = Attribute(*icu, UCOL_CASE_LEVEL);
  const bool backwards = Attribute(*icu, UCOL_FRENCH_COLLATION);
  bson::BsonDoc normalized;
  bson_t* out = normalized.mutable_get();
  BSON_APPEND_UTF8(out, "locale", locale.getName());
  BSON_APPEND_BOOL(out, "caseLevel", case_level);
  BSON_APPEND_UTF8(out, "caseFirst",
                   case_first == UCOL_UPPER_FIRST ? "upper"
                                                  : (case_first == UCOL_LOWER_FIRST ? "lower" : "off"));
  BSON_APPEND_INT32(out, "strength", strength_number);
  BSON_APPEND_BOOL(out, "numericOrdering", Attribute(*icu, UCOL_NUMERIC_COLLATION));
  BSON_APPEND_UTF8(out, "alternate",
                   icu->getAttribute(UCOL_ALTERNATE_HANDLING, get_status) == UCOL_SHIFTED
                       ? "shifted"
                       : "non-ignorable");
  BSON_APPEND_UTF8(out, "maxVariable",
                   icu->getMaxVariable() == UCOL_REORDER_CODE_SPACE ? "space" : "punct");
  BSON_APPEND_BOOL(out, "normalization", Attribute(*icu, UCOL_NORMALIZATION_MODE));
  BSON_APPEND_BOOL(out, "backwards", backwards);
  BSON_APPEND_UTF8(out, "version", kCollationVersion);

  // Combinations MongoDB refuses (checked on the filled-in spec).
  if (backwards && strength_number == 1) {
    return Status(ErrorCode::kBadValue,
                  "'backwards' is invalid with 'strength' of 1 in: " + bson::ToShellString(out));
  }
  if (case_first != UCOL_OFF && !case_level && strength_number <= 2) {
    return Status(ErrorCode::kBadValue,
                  "'caseFirst' is invalid unless 'caseLevel' is on or 'strength' is greater than 2 "
                  "in: " +
                      bson::ToShellString(out));
  }
  return std::make_unique<IcuCollator>(std::move(icu), std::move(normalized));
}

// Every collator ever made, by normalized spec, and the specs seen as
// given, so a repeated spec costs one lookup.
struct Cache {
  std::mutex mutex;
  std::map<std::string, std::unique_ptr<IcuCollator>, std::less<>> by_normalized;
  std::map<std::string, const bson::Collator*, std::less<>> by_given;
};

Cache& TheCache() {
  static Cache* cache = new Cache();  // never destroyed: collators outlive every user
  return *cache;
}

std::string_view BytesOf(const bson_t* doc) {
  return std::string_view(reinterpret_cast<const char*>(bson_get_data(doc)), doc->len);
}

}  // namespace

StatusWith<const bson::Collator*> CollatorFor(const bson_t* spec) {
  Cache& cache = TheCache();
  const std::string_view given_bytes = BytesOf(spec);
  {
    std::lock_guard<std::mutex> lock(cache.mutex);
    auto found = cache.by_given.find(given_bytes);
    if (found != cache.by_given.end()) return found->second;
  }
  ASSIGN_OR_RETURN(GivenSpec given, ParseGiven(spec));
  if (*given.locale == kSimple) {
    if (bson_count_keys(spec) > 1) {
      return Status(ErrorCode::kFailedToParse,
                    "If locale=simple, no other fields should be present in: " +
                        bson::ToShellString(spec));
    }
    return static_cast<const bson::Collator*>(nullptr);
  }
  if (given.version && *given.version != kCollationVersion) {
    return Status(ErrorCode::kIncompatibleCollationVersion,
                  "Requested collation version " + *given.version +
                      " but the only available collator version was " + kCollationVersion +
                      ". Requested collation spec: " + bson::ToShellString(spec));
  }
  ASSIGN_OR_RETURN(std::unique_ptr<IcuCollator> made, MakeIcuCollator(spec, given));
  std::lock_guard<std::mutex> lock(cache.mutex);
  const std::string normalized(BytesOf(made->spec()));
  auto& slot = cache.by_normalized[normalized];
  if (!slot) slot = std::move(made);
  cache.by_given.emplace(std::string(given_bytes), slot.get());
  return static_cast<const bson::Collator*>(slot.get());
}

StatusWith<const bson::Collator*> CollatorForField(const bson_iter_t* value,
                                                   std::string_view context) {
  if (!BSON_ITER_HOLDS_DOCUMENT(value)) {
    return Status(ErrorCode::kTypeMismatch, "BSON field '" + std::string(context) +
                                                ".collation' is the wrong type '" +
                                                bson::TypeName(bson_iter_type(value)) +
                                                "', expected type 'object'");
  }
  uint32_t len = 0;
  const uint8_t* data = nullptr;
  bson_iter_document(value, &len, &data);
  bson_t spec;
  bson_init_static(&spec, data, len);
  return CollatorFor(&spec);
}

void AppendCollationSpec(const bson::Collator* collator, const char* key, bson_t* out) {
  if (collator != nullptr) {
    BSON_APPEND_DOCUMENT(out, key, collator->spec());
    return;
  }
  bson_t simple;
  BSON_APPEND_DOCUMENT_BEGIN(out, key, &simple);
  BSON_APPEND_UTF8(&simple, "locale", kSimple);
  bson_append_document_end(out, &simple);
}

}  // namespace tigerdoc::collation
