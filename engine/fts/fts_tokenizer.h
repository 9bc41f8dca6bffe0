#pragma once
// The text tokenizer of textIndexVersion 3, as MongoDB's unicode tokenizer
// behaves: words are the runs between delimiters (Unicode White_Space,
// Dash, Hyphen, Pattern_Syntax, Quotation_Mark and Terminal_Punctuation
// code points; in English the apostrophe is part of a word), case-folded
// (Turkish dotted/dotless i folded the Turkish way) unless case-sensitive,
// with diacritics removed unless diacritic-sensitive; stop words (checked
// on the folded word) are dropped and the rest stemmed by libstemmer's
// Snowball stemmer for the language.
//
// Thread-safety: functions may run concurrently (stemmers are per thread).

#include <string>
#include <string_view>
#include <vector>

#include "engine/fts/fts_language.h"

namespace tigerdoc::fts {

struct TokenizerOptions {
  bool case_sensitive = false;       // keep the case of each word
  bool diacritic_sensitive = false;  // keep diacritics
  bool filter_stop_words = true;
};

// The terms of `text` in order (a term appears once per occurrence).
// Invalid UTF-8 is read as ICU reads it (replacement characters).
std::vector<std::string> Tokenize(std::string_view text, const Language& language,
                                  const TokenizerOptions& options = {});

// `text` folded as a phrase is compared: case-folded unless
// `case_sensitive`, diacritics removed unless `diacritic_sensitive`.
std::string NormalizeText(std::string_view text, const Language& language, bool case_sensitive,
                          bool diacritic_sensitive);

}  // namespace tigerdoc::fts
