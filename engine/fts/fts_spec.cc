// Text index specs: validation and normalisation as MongoDB's
// FTSSpec::fixSpec (messages and codes), and document scoring as
// FTSSpec::_scoreStringV2 (read from MongoDB's source, written anew).

#include "engine/fts/fts_spec.h"

#include <cmath>
#include <cstring>
#include <vector>

#include "engine/bson/field_path.h"
#include "engine/fts/fts_tokenizer.h"

namespace tigerdoc::fts {
namespace {

constexpr char kWildcard[] = "$**";
constexpr double kMaxWordWeight = 1000000000.0 / 10000;

Status Error(int code, std::string reason) {
  return Status(static_cast<ErrorCode>(code), std::move(reason));
}

bool IsNumber(const bson_iter_t* it) {
  return BSON_ITER_HOLDS_INT32(it) || BSON_ITER_HOLDS_INT64(it) || BSON_ITER_HOLDS_DOUBLE(it) ||
         BSON_ITER_HOLDS_DECIMAL128(it);
}

std::string Utf8(const bson_iter_t* it) {
  uint32_t len = 0;
  const char* s = bson_iter_utf8(it, &len);
  return std::string(s, len);
}

bool IsText(const bson_iter_t* it) { return BSON_ITER_HOLDS_UTF8(it) && Utf8(it) == "text"; }

Status CheckNotReserved(std::string_view field) {
  if (field == "_fts" || field == "_ftsx") {
    return Error(17289, "text index with reserved fields _fts/_ftsx not allowed");
  }
  return Status::OK();
}

bool ValidOverride(const std::string& field) {
  return !field.empty() && field[0] != '$' && field.find('.') == std::string::npos;
}

// The name MongoDB's shell and drivers generate from the original key.
std::string NameOf(const bson_t* key) {
  std::string name;
  bson_iter_t it;
  bson_iter_init(&it, key);
  while (bson_iter_next(&it)) {
    if (!name.empty()) name += '_';
    name += bson_iter_key(&it);
    name += '_';
    if (BSON_ITER_HOLDS_UTF8(&it)) {
      name += Utf8(&it);
    } else {
      name += std::to_string(static_cast<int64_t>(bson_iter_as_double(&it)));
    }
  }
  return name;
}

}  // namespace

bool IsTextIndexSpec(const bson_t* spec) {
  bson_iter_t it, key;
  if (!bson_iter_init_find(&it, spec, "key") || !BSON_ITER_HOLDS_DOCUMENT(&it)) return false;
  bson_iter_recurse(&it, &key);
  while (bson_iter_next(&key)) {
    if (IsText(&key) || std::strcmp(bson_iter_key(&key), "_fts") == 0) return true;
  }
  return false;
}

StatusWith<bson::BsonDoc> FixTextIndexSpec(const bson_t* spec) {
  bson_iter_t it;
  bson_iter_init_find(&it, spec, "key");
  bson_t key_doc;
  {
    uint32_t len = 0;
    const uint8_t* data = nullptr;
    bson_iter_document(&it, &len, &data);
    bson_init_static(&key_doc, data, len);
  }
  // Key: extra fields before, the text fields (or _fts/_ftsx), extra after.
  std::map<std::string, double> weights;
  bson::BsonDoc key;
  bool added_fts = false;
  bool text_done = false;
  bson_iter_t k;
  bson_iter_init(&k, &key_doc);
  while (bson_iter_next(&k)) {
    const std::string field = bson_iter_key(&k);
    if (field == "_fts") {
      if (!IsText(&k)) return Error(17271, "expecting _fts:\"text\"");
      BSON_APPEND_UTF8(key.mutable_get(), "_fts", "text");
      added_fts = true;
      bson_iter_t next = k;
      if (!bson_iter_next(&next) || std::strcmp(bson_iter_key(&next), "_ftsx") != 0) {
        return Error(17274, "expected _ftsx after _fts");
      }
    } else if (field == "_ftsx") {
      if (!added_fts) return Error(17289, "text index with reserved fields _fts/_ftsx not allowed");
      if (!IsNumber(&k) || bson_iter_as_int64(&k) != 1) return Error(17272, "expecting _ftsx:1");
      BSON_APPEND_INT32(key.mutable_get(), "_ftsx", 1);
      text_done = true;
    } else if (IsText(&k)) {
      RETURN_IF_ERROR(CheckNotReserved(field));
      if (text_done) return Error(17389, "'text' fields in index must all be adjacent");
      if (!added_fts) {
        BSON_APPEND_UTF8(key.mutable_get(), "_fts", "text");
        BSON_APPEND_INT32(key.mutable_get(), "_ftsx", 1);
        added_fts = true;
      }
      weights[field] = 1;
    } else {
      RETURN_IF_ERROR(CheckNotReserved(field));
      if (BSON_ITER_HOLDS_UTF8(&k) || !IsNumber(&k) ||
          (bson_iter_as_int64(&k) != 1 && bson_iter_as_int64(&k) != -1)) {
        return Error(17273, "expected value 1 or -1 for non-text key in compound index");
      }
      if (added_fts) text_done = true;
      bson_append_iter(key.mutable_get(), field.c_str(), -1, &k);
    }
  }
  // weights: an object of numbers, or "$**".
  if (bson_iter_init_find(&it, spec, "weights")) {
    if (BSON_ITER_HOLDS_DOCUMENT(&it)) {
      bson_iter_t w;
      bson_iter_recurse(&it, &w);
      while (bson_iter_next(&w)) {
        if (!IsNumber(&w)) return Error(17283, "weight for text index needs numeric type");
        weights[bson_iter_key(&w)] = static_cast<double>(static_cast<int32_t>(bson_iter_as_double(&w)));
      }
    } else if (BSON_ITER_HOLDS_UTF8(&it) && Utf8(&it) == kWildcard) {
      weights[kWildcard] = 1;
    } else {
      return Error(17284, "text index option 'weights' must be an object");
    }
  }
  for (const auto& [field, weight] : weights) {
    if (!(weight > 0 && weight < kMaxWordWeight)) return Error(16674, "score for word too high");
    if (field == kWildcard) continue;
    bson::FieldPath path(field);
    if (path.size() == 0 || field.empty()) return Error(17294, "weight cannot be on an empty field");
    for (size_t i = 0; i < path.size(); ++i) {
      if (path.part(i).empty()) return Error(17291, "weight cannot have empty path component");
      if (path.part(i)[0] == '$') {
        return Error(17292, "weight cannot have path component with $ prefix");
      }
    }
  }
  std::string default_language = DefaultLanguage().name;
  if (bson_iter_init_find(&it, spec, "default_language")) {
    if (!BSON_ITER_HOLDS_UTF8(&it)) return Error(17263, "default_language needs a string type");
    default_language = Utf8(&it);
    if (!FindLanguage(default_language).ok()) {
      return Error(17264, "default_language is not valid");
    }
  }
  std::string language_override = "language";
  if (bson_iter_init_find(&it, spec, "language_override")) {
    if (!BSON_ITER_HOLDS_UTF8(&it) || !ValidOverride(Utf8(&it))) {
      return Error(17136, "language_override is not valid");
    }
    language_override = Utf8(&it);
  }
  if (bson_iter_init_find(&it, spec, "textIndexVersion")) {
    if (!IsNumber(&it)) return Error(17293, "text index option 'textIndexVersion' must be a number");
    const int64_t version = bson_iter_as_int64(&it);
    if (version != kTextIndexVersion) {
      return Error(17364, "attempt to use unsupported textIndexVersion " + std::to_string(version) +
                              "; versions supported: 3");
    }
  }
  // The stored form: MongoDB's field order (the spec's own fields in place,
  // then the text options it lacked).
  bson::BsonDoc out;
  bool has_name = false;
  bson_iter_init(&it, spec);
  while (bson_iter_next(&it)) {
    const std::string_view field = bson_iter_key(&it);
    if (field == "key") {
      BSON_APPEND_DOCUMENT(out.mutable_get(), "key", key.get());
    } else if (field == "weights" || field == "default_language" ||
               field == "language_override" || field == "textIndexVersion") {
      continue;
    } else {
      if (field == "name") has_name = true;
      bson_append_iter(out.mutable_get(), nullptr, 0, &it);
    }
  }
  if (!has_name) BSON_APPEND_UTF8(out.mutable_get(), "name", NameOf(&key_doc).c_str());
  bson_t w;
  BSON_APPEND_DOCUMENT_BEGIN(out.mutable_get(), "weights", &w);
  for (const auto& [field, weight] : weights) {
    bson_append_int32(&w, field.data(), static_cast<int>(field.size()), static_cast<int32_t>(weight));
  }
  bson_append_document_end(out.mutable_get(), &w);
  BSON_APPEND_UTF8(out.mutable_get(), "default_language", default_language.c_str());
  BSON_APPEND_UTF8(out.mutable_get(), "language_override", language_override.c_str());
  BSON_APPEND_INT32(out.mutable_get(), "textIndexVersion", kTextIndexVersion);
  return out;
}

StatusWith<TextIndexSpec> TextIndexSpec::FromStored(const bson_t* spec) {
  ASSIGN_OR_RETURN(bson::BsonDoc fixed, FixTextIndexSpec(spec));
  TextIndexSpec out;
  bson_iter_t it;
  if (bson_iter_init_find(&it, fixed.get(), "weights") && BSON_ITER_HOLDS_DOCUMENT(&it)) {
    bson_iter_t w;
    bson_iter_recurse(&it, &w);
    while (bson_iter_next(&w)) {
      if (std::strcmp(bson_iter_key(&w), kWildcard) == 0) {
        out.wildcard_ = true;
      } else {
        out.weights_[bson_iter_key(&w)] = bson_iter_as_double(&w);
      }
    }
  }
  if (bson_iter_init_find(&it, fixed.get(), "default_language")) {
    ASSIGN_OR_RETURN(out.default_language_, FindLanguage(Utf8(&it)));
  }
  if (bson_iter_init_find(&it, fixed.get(), "language_override")) {
    out.language_override_ = Utf8(&it);
  }
  return out;
}

bool TextIndexSpec::MayHoldIndexed(const std::string& path) const {
  if (wildcard_ || path.empty()) return true;
  const std::string prefix = path + ".";
  for (const auto& [field, weight] : weights_) {
    if (field.compare(0, prefix.size(), prefix) == 0) return true;
  }
  return false;
}

void TextIndexSpec::WalkValue(
    const bson_iter_t* it, const std::string& path, const Language* language,
    const std::function<void(std::string_view, const Language&, double)>& visit) const {
  if (BSON_ITER_HOLDS_UTF8(it)) {
    auto weight = weights_.find(path);
    if (weight == weights_.end() && !wildcard_) return;
    uint32_t len = 0;
    const char* s = bson_iter_utf8(it, &len);
    visit(std::string_view(s, len), *language, weight == weights_.end() ? 1.0 : weight->second);
  } else if (BSON_ITER_HOLDS_DOCUMENT(it)) {
    if (!MayHoldIndexed(path)) return;
    bson_t sub;
    uint32_t len = 0;
    const uint8_t* data = nullptr;
    bson_iter_document(it, &len, &data);
    bson_init_static(&sub, data, len);
    Walk(&sub, path, language, visit);
  } else if (BSON_ITER_HOLDS_ARRAY(it)) {
    // Array elements are at the array's path (MongoDB adds no index).
    bson_iter_t elements;
    bson_iter_recurse(it, &elements);
    while (bson_iter_next(&elements)) WalkValue(&elements, path, language, visit);
  }
}

void TextIndexSpec::Walk(
    const bson_t* doc, const std::string& prefix, const Language* language,
    const std::function<void(std::string_view, const Language&, double)>& visit) const {
  bson_iter_t it;
  if (bson_iter_init_find(&it, doc, language_override_.c_str()) && BSON_ITER_HOLDS_UTF8(&it)) {
    StatusWith<const Language*> found = FindLanguage(Utf8(&it));
    if (found.ok()) language = found.value();
  }
  bson_iter_init(&it, doc);
  while (bson_iter_next(&it)) {
    const std::string path = prefix.empty() ? bson_iter_key(&it) : prefix + "." + bson_iter_key(&it);
    WalkValue(&it, path, language, visit);
  }
}

Status TextIndexSpec::CheckValue(const bson_iter_t* it, const std::string& path) const {
  if (BSON_ITER_HOLDS_DOCUMENT(it)) {
    if (!MayHoldIndexed(path)) return Status::OK();
    bson_t sub;
    uint32_t len = 0;
    const uint8_t* data = nullptr;
    bson_iter_document(it, &len, &data);
    bson_init_static(&sub, data, len);
    bson_iter_t field;
    bson_iter_init(&field, &sub);
    if (bson_iter_find(&field, language_override_.c_str())) {
      if (!BSON_ITER_HOLDS_UTF8(&field)) {
        return Error(17261, "found language override field in document with non-string type");
      }
      if (!FindLanguage(Utf8(&field)).ok()) {
        return Error(17262, "language override unsupported: " + Utf8(&field));
      }
    }
    bson_iter_init(&field, &sub);
    while (bson_iter_next(&field)) {
      const std::string child = path.empty() ? bson_iter_key(&field) : path + "." + bson_iter_key(&field);
      RETURN_IF_ERROR(CheckValue(&field, child));
    }
  } else if (BSON_ITER_HOLDS_ARRAY(it)) {
    bson_iter_t elements;
    bson_iter_recurse(it, &elements);
    while (bson_iter_next(&elements)) RETURN_IF_ERROR(CheckValue(&elements, path));
  }
  return Status::OK();
}

Status TextIndexSpec::CheckLanguageOverrides(const bson_t* doc) const {
  // The document itself is the value at the empty path, which every
  // indexed path lies below.
  bson::BsonDoc wrapper;
  BSON_APPEND_DOCUMENT(wrapper.mutable_get(), "", doc);
  bson_iter_t it;
  bson_iter_init(&it, wrapper.get());
  bson_iter_next(&it);
  return CheckValue(&it, "");
}

void TextIndexSpec::ForEachString(
    const bson_t* doc,
    const std::function<void(std::string_view, const Language&, double)>& visit) const {
  Walk(doc, "", default_language_, visit);
}

TextIndexSpec::TermScores TextIndexSpec::ScoreDocument(const bson_t* doc) const {
  TermScores scores;
  ForEachString(doc, [&](std::string_view text, const Language& language, double weight) {
    ScoreString(text, language, weight, &scores);
  });
  return scores;
}

void ScoreString(std::string_view text, const Language& language, double weight,
                 TextIndexSpec::TermScores* scores) {
  struct TermData {
    double freq = 0;
    double exp = 0;
    int count = 0;
  };
  std::map<std::string, TermData> terms;
  const std::vector<std::string> tokens = Tokenize(text, language);
  for (const std::string& token : tokens) {
    TermData& data = terms[token];
    data.exp = data.exp == 0 ? 1 : data.exp * 2;
    data.count += 1;
    data.freq += 1 / data.exp;
  }
  const std::string folded_text = NormalizeText(text, language, false, false);
  for (const auto& [term, data] : terms) {
    const double coeff = (0.5 * data.count / static_cast<double>(tokens.size())) + 0.5;
    // A string that is exactly the term gets a small boost.
    const double adjustment = folded_text == term ? 1.1 : 1.0;
    (*scores)[term] += weight * data.freq * coeff * adjustment;
  }
}

}  // namespace tigerdoc::fts
