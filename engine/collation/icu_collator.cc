#include "engine/collation/icu_collator.h"

#include <unicode/stringpiece.h>
#include <unicode/unistr.h>

#include <cstdint>

namespace tigerdoc::collation {

int IcuCollator::Compare(std::string_view a, std::string_view b) const {
  UErrorCode status = U_ZERO_ERROR;
  const UCollationResult r =
      icu_->compareUTF8(icu::StringPiece(a.data(), static_cast<int32_t>(a.size())),
                        icu::StringPiece(b.data(), static_cast<int32_t>(b.size())), status);
  // Invalid UTF-8 cannot reach here (bson_validate checks strings); if ICU
  // still fails, fall back to bytes so the order stays total.
  if (U_FAILURE(status)) return a.compare(b) < 0 ? -1 : (a == b ? 0 : 1);
  return r == UCOL_LESS ? -1 : (r == UCOL_EQUAL ? 0 : 1);
}

void IcuCollator::AppendSortKey(std::string_view s, std::string* out) const {
  const icu::UnicodeString text =
      icu::UnicodeString::fromUTF8(icu::StringPiece(s.data(), static_cast<int32_t>(s.size())));
  // Sort keys are usually a small multiple of the string's length: try a
  // stack buffer first, then the size ICU asks for.
  uint8_t stack[256];
  int32_t needed = icu_->getSortKey(text, stack, sizeof(stack));
  if (needed <= static_cast<int32_t>(sizeof(stack))) {
    out->append(reinterpret_cast<const char*>(stack), needed > 0 ? needed - 1 : 0);
    return;
  }
  std::string key(static_cast<size_t>(needed), '\0');
  icu_->getSortKey(text, reinterpret_cast<uint8_t*>(key.data()), needed);
  out->append(key.data(), static_cast<size_t>(needed - 1));
}

}  // namespace tigerdoc::collation
