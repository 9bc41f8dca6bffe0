#pragma once
// A $text query: the operand's options (TextQueryOptions::Parse, MongoDB's
// errors) and, bound to the collection's text index, the matcher and the
// score (TextQuery).
//
// $search grammar (MongoDB's FTSQueryImpl::parse):
//   words                  terms, OR'ed: a document matches with any one
//   "several words"        a phrase: every phrase must occur (substring of
//                          an indexed string, after folding); its words are
//                          terms too
//   -word, -"a phrase"     negations ('-' at the start or after a space):
//                          documents with the term / phrase do not match
// Terms are tokenized in the query's language ($language, else the index's
// default), stop words dropped, stemmed. A query of negations only matches
// nothing. Score = sum over the query's (folded) terms of the document's
// score for that term (fts_spec.h).
//
// Thread-safety: immutable after construction.

#include <bson/bson.h>

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/base/status.h"
#include "engine/fts/fts_spec.h"

namespace tigerdoc::fts {

struct TextQueryOptions {
  std::string search;
  std::optional<std::string> language;
  bool case_sensitive = false;
  bool diacritic_sensitive = false;

  // `operand` is the value of $text: BadValue "$text expects an object",
  // TypeMismatch "$search requires a string value" (and $language,
  // $caseSensitive, $diacriticSensitive likewise), BadValue "extra fields in
  // $text".
  static StatusWith<TextQueryOptions> Parse(const bson_iter_t* operand);
};

class TextQuery {
 public:
  // BadValue for an unsupported $language.
  static StatusWith<std::shared_ptr<const TextQuery>> Make(const TextQueryOptions& options,
                                                           std::shared_ptr<const TextIndexSpec> index);

  bool Matches(const bson_t* doc) const;
  // The document's textScore (0 when it has none of the terms).
  double Score(const bson_t* doc) const;

  const std::set<std::string>& terms() const { return terms_; }  // folded: the index's form
  const std::set<std::string>& negated_terms() const { return negated_terms_; }
  const std::vector<std::string>& phrases() const { return phrases_; }
  const std::vector<std::string>& negated_phrases() const { return negated_phrases_; }

 private:
  void AddTerms(const std::string& text, bool negated);
  bool HasTerm(const bson_t* doc, const std::set<std::string>& terms) const;
  bool HasPhrase(const bson_t* doc, const std::string& phrase) const;

  TextQueryOptions options_;
  std::shared_ptr<const TextIndexSpec> index_;
  const Language* language_ = nullptr;
  std::set<std::string> terms_;           // case- and diacritic-folded, for scores
  std::set<std::string> matching_terms_;  // as the options fold them, for matching
  std::set<std::string> negated_terms_;   // as the options fold them
  std::vector<std::string> phrases_;
  std::vector<std::string> negated_phrases_;
};

}  // namespace tigerdoc::fts
