#pragma once
// TextIndexSpec: one text index's options (MongoDB's FTSSpec, version 3)
// and the per-term scores of a document under them.
//
// createIndexes form -> stored form (FixTextIndexSpec):
//   {key: {title: "text", body: "text"}, name?, weights?: {title: 10},
//    default_language?, language_override?, textIndexVersion?}
//   -> {key: {_fts: "text", _ftsx: 1}, name: "title_text_body_text",
//       weights: {body: 1, title: 10}, default_language: "english",
//       language_override: "language", textIndexVersion: 3, ...other fields}
// Non-text key fields before/after the text fields stay in place (compound
// text indexes). weights: fields in name order; "$**" (key or weights:
// "$**") indexes every string. Errors as MongoDB's fts_spec.cpp.
//
// Scoring (MongoDB's _scoreStringV2): for each indexed string (weight w,
// n terms after stop words), each distinct term t occurring c times adds
//   w * freq(t) * (0.5 * c / n + 0.5) * (1.1 if the whole string is t else 1)
// where freq(t) = 1 + 1/2 + 1/4 + ... (c terms); a document's score for t
// is the sum over its strings.
//
// Thread-safety: immutable after construction.

#include <bson/bson.h>

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>

#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"
#include "engine/fts/fts_language.h"

namespace tigerdoc::fts {

inline constexpr int kTextIndexVersion = 3;

// Whether the index spec's key pattern is a text index's (a "text" value or
// the stored _fts field).
bool IsTextIndexSpec(const bson_t* spec);

// The stored form of a createIndexes spec whose key has "text" fields (also
// accepts the stored form itself, unchanged but validated).
StatusWith<bson::BsonDoc> FixTextIndexSpec(const bson_t* spec);

class TextIndexSpec {
 public:
  // From the stored form.
  static StatusWith<TextIndexSpec> FromStored(const bson_t* spec);

  using TermScores = std::unordered_map<std::string, double>;
  // Every indexed string of `doc` with its language and weight, in
  // document order. Strings in arrays count; a document (or subdocument)
  // with the language_override field takes that language (a non-string or
  // unknown value: the language of the enclosing document).
  void ForEachString(const bson_t* doc,
                     const std::function<void(std::string_view text, const Language& language,
                                              double weight)>& visit) const;
  // The language_override fields of `doc` (and of the subdocuments it
  // indexes) name languages: 17261 "found language override field in
  // document with non-string type", 17262 "language override unsupported:
  // <name>". Checked when a document is written to the collection.
  Status CheckLanguageOverrides(const bson_t* doc) const;
  // term -> score of `doc` (terms case- and diacritic-folded).
  TermScores ScoreDocument(const bson_t* doc) const;

  const Language& default_language() const { return *default_language_; }
  const std::string& language_override() const { return language_override_; }
  bool wildcard() const { return wildcard_; }
  const std::map<std::string, double>& weights() const { return weights_; }

 private:
  void Walk(const bson_t* doc, const std::string& prefix, const Language* language,
            const std::function<void(std::string_view, const Language&, double)>& visit) const;
  void WalkValue(const bson_iter_t* it, const std::string& path, const Language* language,
                 const std::function<void(std::string_view, const Language&, double)>& visit) const;
  bool MayHoldIndexed(const std::string& path) const;
  Status CheckValue(const bson_iter_t* it, const std::string& path) const;

  std::map<std::string, double> weights_;  // without "$**"
  bool wildcard_ = false;
  const Language* default_language_ = &DefaultLanguage();
  std::string language_override_ = "language";
};

// MongoDB's per-string scoring, exposed for tests: adds the terms of `text`
// to `scores`.
void ScoreString(std::string_view text, const Language& language, double weight,
                 TextIndexSpec::TermScores* scores);

}  // namespace tigerdoc::fts
