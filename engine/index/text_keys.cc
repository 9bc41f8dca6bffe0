// Text index keys: see text_keys.h for the format.

#include "engine/index/text_keys.h"

#include <algorithm>
#include <cstring>

#include "engine/bson/field_path.h"
#include "engine/bson/shell_string.h"
#include "engine/keystring/key_string.h"

namespace tigerdoc::index {
namespace {

constexpr ErrorCode kCannotBuildIndexKeys = static_cast<ErrorCode>(201);
constexpr char kTermField[] = "_fts";
constexpr char kScoreField[] = "_ftsx";

enum class Extracted { kMissing, kValue, kArray };

// The value at `path` in `doc` by the rules of a text index's non-text
// fields: documents are entered, a numeric component selects an array
// element, any other array met is refused by the caller.
Extracted ExtractNonTextValue(const bson_t* doc, const bson::FieldPath& path, bson_iter_t* out) {
  bson_iter_t cur;
  const std::string& first = path.part(0);
  if (!bson_iter_init(&cur, doc) ||
      !bson_iter_find_w_len(&cur, first.data(), static_cast<int>(first.size()))) {
    return Extracted::kMissing;
  }
  size_t i = 1;
  for (;;) {
    if (BSON_ITER_HOLDS_ARRAY(&cur)) {
      if (i == path.size() || !bson::ParseArrayIndex(path.part(i))) return Extracted::kArray;
    } else if (i == path.size()) {
      *out = cur;
      return Extracted::kValue;
    } else if (!BSON_ITER_HOLDS_DOCUMENT(&cur)) {
      return Extracted::kMissing;  // a scalar with path left
    }
    bson_iter_t child;
    const std::string& part = path.part(i);
    if (!bson_iter_recurse(&cur, &child) ||
        !bson_iter_find_w_len(&child, part.data(), static_cast<int>(part.size()))) {
      return Extracted::kMissing;
    }
    cur = child;
    ++i;
  }
}

struct FieldValue {
  const IndexField* field = nullptr;
  bool present = false;
  bson_iter_t value{};
};

void AppendField(keystring::KeyBuilder* key, bson_t* values, const FieldValue& fv) {
  const std::string& name = fv.field->path.dotted();
  if (fv.present) {
    key->Append(&fv.value, fv.field->dir);
    bson_append_iter(values, name.data(), static_cast<int>(name.size()), &fv.value);
  } else {
    key->AppendNull(fv.field->dir);
  }
}

// The term as a BSON string value: the write side (TextIndexKeys) and the
// read side (TextTermKeyPrefix) must encode it the same way.
bson_value_t TermValue(const std::string& term) {
  bson_value_t value;
  value.value_type = BSON_TYPE_UTF8;
  value.value.v_utf8.str = const_cast<char*>(term.data());
  value.value.v_utf8.len = static_cast<uint32_t>(term.size());
  return value;
}

}  // namespace

size_t TextPrefixFieldCount(const IndexSpec& spec) {
  for (size_t i = 0; i < spec.fields.size(); ++i) {
    if (spec.fields[i].path.dotted() == kTermField) return i;
  }
  return spec.fields.size();
}

Status GenerateTextKeys(const IndexSpec& spec, const bson_t* doc, DocumentKeys* out) {
  out->multikey_paths.assign(spec.fields.size(), {});
  const size_t prefix_count = TextPrefixFieldCount(spec);
  std::vector<FieldValue> prefix;
  std::vector<FieldValue> suffix;
  for (size_t i = 0; i < spec.fields.size(); ++i) {
    if (i == prefix_count || i == prefix_count + 1) continue;  // _fts, _ftsx
    FieldValue fv;
    fv.field = &spec.fields[i];
    switch (ExtractNonTextValue(doc, fv.field->path, &fv.value)) {
      case Extracted::kArray:
        return Status(kCannotBuildIndexKeys, "Field '" + fv.field->path.dotted() +
                                                 "' of text index contains an array in document: " +
                                                 bson::ToShellString(doc));
      case Extracted::kValue:
        fv.present = true;
        break;
      case Extracted::kMissing:
        break;
    }
    (i < prefix_count ? prefix : suffix).push_back(fv);
  }
  const fts::TextIndexSpec::TermScores scores = spec.text->ScoreDocument(doc);
  out->keys.reserve(scores.size());
  for (const auto& [term, score] : scores) {
    keystring::KeyBuilder key(spec.collator);
    bson::BsonDoc values;
    for (const FieldValue& fv : prefix) AppendField(&key, values.mutable_get(), fv);
    // The term is matched exactly, whatever the index collation.
    keystring::KeyBuilder term_and_score;
    const bson_value_t value = TermValue(term);
    term_and_score.Append(&value);
    bson_value_t score_value;
    score_value.value_type = BSON_TYPE_DOUBLE;
    score_value.value.v_double = score;
    term_and_score.Append(&score_value, keystring::Direction::kDescending);
    key.AppendEncoded(term_and_score.bytes());
    bson_append_utf8(values.mutable_get(), kTermField, -1, term.data(), static_cast<int>(term.size()));
    bson_append_double(values.mutable_get(), kScoreField, -1, score);
    for (const FieldValue& fv : suffix) AppendField(&key, values.mutable_get(), fv);
    out->keys.push_back(IndexKey{key.Release(), std::move(values)});
  }
  std::sort(out->keys.begin(), out->keys.end(),
            [](const IndexKey& a, const IndexKey& b) { return a.encoded < b.encoded; });
  return Status::OK();
}

std::string TextTermKeyPrefix(const IndexSpec& spec,
                              const std::vector<const bson_value_t*>& prefix_values,
                              const std::string& term) {
  keystring::KeyBuilder key(spec.collator);
  for (size_t i = 0; i < prefix_values.size(); ++i) {
    key.Append(prefix_values[i], spec.fields[i].dir);
  }
  keystring::KeyBuilder term_key;
  const bson_value_t value = TermValue(term);
  term_key.Append(&value);
  key.AppendEncoded(term_key.bytes());
  return key.Release();
}

}  // namespace tigerdoc::index
