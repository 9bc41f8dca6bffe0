#include "wire/auth/saslprep.h"

#include <stringprep.h>

#include <cstdlib>

namespace tigerdoc::wire::auth {

StatusWith<std::string> SaslPrep(std::string_view text) {
  // Printable ASCII maps to itself; skip the library for the common case.
  bool plain = true;
  for (unsigned char c : text) plain = plain && c >= 0x20 && c < 0x7f;
  if (plain && !text.empty()) return std::string(text);

  char* out = nullptr;
  // Stored strings (RFC 4013 section 2.7 / RFC 3454 section 7): unassigned
  // code points are refused.
  const int rc = stringprep_profile(std::string(text).c_str(), &out, "SASLprep",
                                    STRINGPREP_NO_UNASSIGNED);
  if (rc != STRINGPREP_OK) {
    return Status(ErrorCode::kBadValue,
                  std::string("Error preflighting normalization: ") + stringprep_strerror(
                      static_cast<Stringprep_rc>(rc)));
  }
  std::string prepared(out);
  std::free(out);
  if (prepared.empty()) return Status(ErrorCode::kBadValue, "Password cannot be empty");
  return prepared;
}

}  // namespace tigerdoc::wire::auth
