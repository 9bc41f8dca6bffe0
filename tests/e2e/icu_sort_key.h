#pragma once
// IcuSortKeyHex: the collation key mongod's collated indexes store for a
// string (ICU's sort key without its trailing 0x00), lower-case hex, computed
// here with ICU's C API: an oracle for the keys the server reports (the
// duplicate key error's keyValue) that shares no code with the server.
// Only the locale and strength are set; every other attribute keeps the
// locale's ICU default, as a collation spec naming just those two does.

#include <unicode/ucol.h>
#include <unicode/ustring.h>

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/bson/hex.h"

namespace tigerdoc::e2e {

// The raw key bytes of UTF-8 `text` under {locale, strength} (1..5).
inline std::string IcuSortKey(const char* locale, int strength, const std::string& text) {
  UErrorCode error = U_ZERO_ERROR;
  UCollator* collator = ucol_open(locale, &error);
  EXPECT_TRUE(U_SUCCESS(error)) << u_errorName(error);
  static const UColAttributeValue kStrengths[] = {UCOL_PRIMARY, UCOL_SECONDARY, UCOL_TERTIARY,
                                                  UCOL_QUATERNARY, UCOL_IDENTICAL};
  ucol_setStrength(collator, kStrengths[strength - 1]);
  std::vector<UChar> utf16(text.size() + 1);
  int32_t utf16_len = 0;
  u_strFromUTF8(utf16.data(), static_cast<int32_t>(utf16.size()), &utf16_len, text.data(),
                static_cast<int32_t>(text.size()), &error);
  EXPECT_TRUE(U_SUCCESS(error)) << u_errorName(error);
  const int32_t needed = ucol_getSortKey(collator, utf16.data(), utf16_len, nullptr, 0);
  std::string key(static_cast<size_t>(needed), '\0');
  ucol_getSortKey(collator, utf16.data(), utf16_len, reinterpret_cast<uint8_t*>(key.data()), needed);
  ucol_close(collator);
  key.pop_back();  // the terminating 0x00
  return key;
}

inline std::string IcuSortKeyHex(const char* locale, int strength, const std::string& text) {
  std::string hex;
  bson::AppendLowerHex(IcuSortKey(locale, strength, text), &hex);
  return hex;
}

}  // namespace tigerdoc::e2e
