#pragma once
// The languages of MongoDB's text indexes (textIndexVersion 3): each with
// its name as MongoDB spells it, its ISO 639-1 code, the Snowball stemmer
// libstemmer runs for it and its stop words. "none" (also "simple" is not
// accepted, as MongoDB) tokenizes without stemming or stop words.
//
// Thread-safety: the table is immutable; lookups may run concurrently.

#include <string>
#include <string_view>

#include "engine/base/status.h"

namespace tigerdoc::fts {

struct Language {
  const char* name;     // "english"
  const char* code;     // "en"
  const char* stemmer;  // libstemmer algorithm; nullptr: no stemming ("none")
};

// The language named `name` (MongoDB's names or codes, any case), or
// BadValue "unsupported language: \"<name>\" for text index version 3".
StatusWith<const Language*> FindLanguage(std::string_view name);

// English: MongoDB's index default.
const Language& DefaultLanguage();

// Whether `word` (case-folded) is one of the language's stop words, which
// neither documents nor queries index.
bool IsStopWord(const Language& language, std::string_view word);

}  // namespace tigerdoc::fts
