// Tokenizing with ICU (code point properties, case folding, NFD for
// diacritics) and stemming with libstemmer (Debian's libstemmer0d).

#include "engine/fts/fts_tokenizer.h"

#include <libstemmer.h>
#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>

#include <map>
#include <memory>

namespace tigerdoc::fts {
namespace {

bool IsDelimiter(UChar32 c, bool english) {
  if (c == '\'' && english) return false;
  return u_hasBinaryProperty(c, UCHAR_WHITE_SPACE) || u_hasBinaryProperty(c, UCHAR_DASH) ||
         u_hasBinaryProperty(c, UCHAR_HYPHEN) || u_hasBinaryProperty(c, UCHAR_PATTERN_SYNTAX) ||
         u_hasBinaryProperty(c, UCHAR_QUOTATION_MARK) ||
         u_hasBinaryProperty(c, UCHAR_TERMINAL_PUNCTUATION);
}

bool IsTurkish(const Language& language) { return std::string_view(language.name) == "turkish"; }

icu::UnicodeString Fold(const icu::UnicodeString& word, const Language& language,
                        bool case_sensitive, bool diacritic_sensitive) {
  icu::UnicodeString out = word;
  if (!diacritic_sensitive) {
    UErrorCode status = U_ZERO_ERROR;
    const icu::Normalizer2* nfd = icu::Normalizer2::getNFDInstance(status);
    if (U_SUCCESS(status)) {
      icu::UnicodeString decomposed = nfd->normalize(out, status);
      if (U_SUCCESS(status)) {
        icu::UnicodeString stripped;
        for (int32_t i = 0; i < decomposed.length();) {
          UChar32 c = decomposed.char32At(i);
          // Combining marks only: a lone '^' is a delimiter anyway.
          if (!(u_hasBinaryProperty(c, UCHAR_DIACRITIC) && u_getCombiningClass(c) != 0) &&
              u_charType(c) != U_NON_SPACING_MARK) {
            stripped.append(c);
          }
          i += U16_LENGTH(c);
        }
        const icu::Normalizer2* nfc = icu::Normalizer2::getNFCInstance(status);
        out = U_SUCCESS(status) ? nfc->normalize(stripped, status) : stripped;
      }
    }
  }
  if (!case_sensitive) {
    out.foldCase(IsTurkish(language) ? U_FOLD_CASE_EXCLUDE_SPECIAL_I : U_FOLD_CASE_DEFAULT);
  }
  return out;
}

std::string Utf8(const icu::UnicodeString& s) {
  std::string out;
  s.toUTF8String(out);
  return out;
}

// One libstemmer stemmer per algorithm per thread (they are not
// thread-safe and cheap to keep).
class Stemmers {
 public:
  ~Stemmers() {
    for (auto& [name, stemmer] : stemmers_) sb_stemmer_delete(stemmer);
  }
  std::string Stem(const Language& language, const std::string& word) {
    if (language.stemmer == nullptr) return word;
    sb_stemmer*& stemmer = stemmers_[language.stemmer];
    if (stemmer == nullptr) stemmer = sb_stemmer_new(language.stemmer, "UTF_8");
    if (stemmer == nullptr) return word;
    const sb_symbol* stemmed = sb_stemmer_stem(
        stemmer, reinterpret_cast<const sb_symbol*>(word.data()), static_cast<int>(word.size()));
    if (stemmed == nullptr) return word;
    return std::string(reinterpret_cast<const char*>(stemmed),
                       static_cast<size_t>(sb_stemmer_length(stemmer)));
  }

 private:
  std::map<std::string, sb_stemmer*> stemmers_;
};

std::string Stem(const Language& language, const std::string& word) {
  thread_local Stemmers stemmers;
  return stemmers.Stem(language, word);
}

}  // namespace

std::vector<std::string> Tokenize(std::string_view text, const Language& language,
                                  const TokenizerOptions& options) {
  const bool english = std::string_view(language.name) == "english";
  icu::UnicodeString input =
      icu::UnicodeString::fromUTF8(icu::StringPiece(text.data(), static_cast<int32_t>(text.size())));
  std::vector<std::string> terms;
  int32_t i = 0;
  const int32_t n = input.length();
  while (i < n) {
    while (i < n && IsDelimiter(input.char32At(i), english)) i += U16_LENGTH(input.char32At(i));
    const int32_t start = i;
    while (i < n && !IsDelimiter(input.char32At(i), english)) i += U16_LENGTH(input.char32At(i));
    if (i == start) continue;
    icu::UnicodeString word(input, start, i - start);
    std::string folded = Utf8(Fold(word, language, false, options.diacritic_sensitive));
    if (options.filter_stop_words && IsStopWord(language, folded)) continue;
    std::string term = options.case_sensitive
                           ? Utf8(Fold(word, language, true, options.diacritic_sensitive))
                           : std::move(folded);
    terms.push_back(Stem(language, term));
  }
  return terms;
}

std::string NormalizeText(std::string_view text, const Language& language, bool case_sensitive,
                          bool diacritic_sensitive) {
  icu::UnicodeString input =
      icu::UnicodeString::fromUTF8(icu::StringPiece(text.data(), static_cast<int32_t>(text.size())));
  return Utf8(Fold(input, language, case_sensitive, diacritic_sensitive));
}

}  // namespace tigerdoc::fts
