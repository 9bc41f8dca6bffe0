// The language table of text indexes (MongoDB's fts_language.cpp lists the
// same names and codes for textIndexVersion 3).

#include "engine/fts/fts_language.h"

#include <cctype>

namespace tigerdoc::fts {
namespace {

constexpr Language kLanguages[] = {
    {"none", "none", nullptr},
    {"danish", "da", "danish"},
    {"dutch", "nl", "dutch"},
    {"english", "en", "english"},
    {"finnish", "fi", "finnish"},
    {"french", "fr", "french"},
    {"german", "de", "german"},
    {"hungarian", "hu", "hungarian"},
    {"italian", "it", "italian"},
    {"norwegian", "nb", "norwegian"},
    {"portuguese", "pt", "portuguese"},
    {"romanian", "ro", "romanian"},
    {"russian", "ru", "russian"},
    {"spanish", "es", "spanish"},
    {"swedish", "sv", "swedish"},
    {"turkish", "tr", "turkish"},
};

}  // namespace

StatusWith<const Language*> FindLanguage(std::string_view name) {
  std::string lower(name);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const Language& language : kLanguages) {
    if (lower == language.name || lower == language.code) return &language;
  }
  return Status(ErrorCode::kBadValue,
                "unsupported language: \"" + std::string(name) + "\" for text index version 3");
}

const Language& DefaultLanguage() { return kLanguages[3]; }

}  // namespace tigerdoc::fts
