// $text queries: parsing the search string as MongoDB's FTSQueryImpl does,
// matching documents as FTSMatcher does, scoring as the TEXT_OR stage sums
// the index keys of a document.

#include "engine/fts/fts_query.h"

#include <cstring>

#include "engine/fts/fts_tokenizer.h"

namespace tigerdoc::fts {
namespace {

std::string Utf8(const bson_iter_t* it) {
  uint32_t len = 0;
  const char* s = bson_iter_utf8(it, &len);
  return std::string(s, len);
}

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

}  // namespace

StatusWith<TextQueryOptions> TextQueryOptions::Parse(const bson_iter_t* operand) {
  if (!BSON_ITER_HOLDS_DOCUMENT(operand)) {
    return Status(ErrorCode::kBadValue, "$text expects an object");
  }
  bson_iter_t it;
  bson_iter_recurse(operand, &it);
  TextQueryOptions out;
  int expected = 1;
  int fields = 0;
  bool has_search = false;
  bson_iter_t f = it;
  while (bson_iter_next(&f)) ++fields;
  if (bson_iter_find(&it, "$search") && BSON_ITER_HOLDS_UTF8(&it)) {
    out.search = Utf8(&it);
    has_search = true;
  }
  if (!has_search) return Status(ErrorCode::kTypeMismatch, "$search requires a string value");
  bson_iter_recurse(operand, &it);
  if (bson_iter_find(&it, "$language")) {
    ++expected;
    if (!BSON_ITER_HOLDS_UTF8(&it)) {
      return Status(ErrorCode::kTypeMismatch, "$language requires a string value");
    }
    out.language = Utf8(&it);
  }
  bson_iter_recurse(operand, &it);
  if (bson_iter_find(&it, "$caseSensitive")) {
    ++expected;
    if (!BSON_ITER_HOLDS_BOOL(&it)) {
      return Status(ErrorCode::kTypeMismatch, "$caseSensitive requires a boolean value");
    }
    out.case_sensitive = bson_iter_bool(&it);
  }
  bson_iter_recurse(operand, &it);
  if (bson_iter_find(&it, "$diacriticSensitive")) {
    ++expected;
    if (!BSON_ITER_HOLDS_BOOL(&it)) {
      return Status(ErrorCode::kTypeMismatch, "$diacriticSensitive requires a boolean value");
    }
    out.diacritic_sensitive = bson_iter_bool(&it);
  }
  if (fields != expected) return Status(ErrorCode::kBadValue, "extra fields in $text");
  return out;
}

StatusWith<std::shared_ptr<const TextQuery>> TextQuery::Make(
    const TextQueryOptions& options, std::shared_ptr<const TextIndexSpec> index) {
  auto query = std::shared_ptr<TextQuery>(new TextQuery());
  query->options_ = options;
  query->index_ = std::move(index);
  if (options.language) {
    ASSIGN_OR_RETURN(query->language_, FindLanguage(*options.language));
  } else {
    query->language_ = &query->index_->default_language();
  }
  // Walk the search string: '"' opens and closes phrases; '-' at the start
  // or after white space negates the next term or phrase.
  const std::string& s = options.search;
  bool in_phrase = false;
  bool negate_next = false;
  bool phrase_negated = false;
  size_t phrase_start = 0;
  size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (c == '"') {
      if (in_phrase) {
        std::string phrase = s.substr(phrase_start, i - phrase_start);
        (phrase_negated ? query->negated_phrases_ : query->phrases_).push_back(phrase);
        if (!phrase_negated) query->AddTerms(phrase, false);
        in_phrase = false;
      } else {
        in_phrase = true;
        phrase_negated = negate_next;
        phrase_start = i + 1;
      }
      negate_next = false;
      ++i;
      continue;
    }
    if (in_phrase) {
      ++i;
      continue;
    }
    if (c == '-' && (i == 0 || IsSpace(s[i - 1]))) {
      negate_next = true;
      ++i;
      continue;
    }
    if (IsSpace(c)) {
      negate_next = false;
      ++i;
      continue;
    }
    // A run up to white space or a quote: one or more terms.
    size_t end = i;
    while (end < s.size() && !IsSpace(s[end]) && s[end] != '"') ++end;
    query->AddTerms(s.substr(i, end - i), negate_next);
    negate_next = false;
    i = end;
  }
  if (in_phrase) {
    // An unclosed quote: MongoDB takes the rest of the string as a phrase.
    std::string phrase = s.substr(phrase_start);
    (phrase_negated ? query->negated_phrases_ : query->phrases_).push_back(phrase);
    if (!phrase_negated) query->AddTerms(phrase, false);
  }
  return std::shared_ptr<const TextQuery>(std::move(query));
}

void TextQuery::AddTerms(const std::string& text, bool negated) {
  TokenizerOptions folded;
  TokenizerOptions as_given;
  as_given.case_sensitive = options_.case_sensitive;
  as_given.diacritic_sensitive = options_.diacritic_sensitive;
  if (!negated) {
    for (std::string& term : Tokenize(text, *language_, folded)) terms_.insert(std::move(term));
  }
  for (std::string& term : Tokenize(text, *language_, as_given)) {
    (negated ? negated_terms_ : matching_terms_).insert(std::move(term));
  }
}

bool TextQuery::HasTerm(const bson_t* doc, const std::set<std::string>& terms) const {
  if (terms.empty()) return false;
  TokenizerOptions as_given;
  as_given.case_sensitive = options_.case_sensitive;
  as_given.diacritic_sensitive = options_.diacritic_sensitive;
  bool found = false;
  index_->ForEachString(doc, [&](std::string_view text, const Language& language, double) {
    if (found) return;
    for (const std::string& term : Tokenize(text, language, as_given)) {
      if (terms.count(term) != 0) {
        found = true;
        return;
      }
    }
  });
  return found;
}

bool TextQuery::HasPhrase(const bson_t* doc, const std::string& phrase) const {
  bool found = false;
  index_->ForEachString(doc, [&](std::string_view text, const Language& language, double) {
    if (found) return;
    const std::string haystack = NormalizeText(text, language, options_.case_sensitive,
                                               options_.diacritic_sensitive);
    const std::string needle = NormalizeText(phrase, language, options_.case_sensitive,
                                             options_.diacritic_sensitive);
    found = haystack.find(needle) != std::string::npos;
  });
  return found;
}

bool TextQuery::Matches(const bson_t* doc) const {
  // The index finds documents by their folded terms; the options then
  // require the terms as given (case, diacritics).
  const TextIndexSpec::TermScores scores = index_->ScoreDocument(doc);
  bool indexed = false;
  for (const std::string& term : terms_) indexed = indexed || scores.count(term) != 0;
  if (!indexed) return false;
  if ((options_.case_sensitive || options_.diacritic_sensitive) && !HasTerm(doc, matching_terms_)) {
    return false;
  }
  if (HasTerm(doc, negated_terms_)) return false;
  for (const std::string& phrase : phrases_) {
    if (!HasPhrase(doc, phrase)) return false;
  }
  for (const std::string& phrase : negated_phrases_) {
    if (HasPhrase(doc, phrase)) return false;
  }
  return true;
}

double TextQuery::Score(const bson_t* doc) const {
  const TextIndexSpec::TermScores scores = index_->ScoreDocument(doc);
  double total = 0;
  for (const std::string& term : terms_) {
    auto it = scores.find(term);
    if (it != scores.end()) total += it->second;
  }
  return total;
}

}  // namespace tigerdoc::fts
