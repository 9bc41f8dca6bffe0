#pragma once
// SASLprep (RFC 4013): the stringprep profile SCRAM-SHA-256 applies to a
// password before hashing it, so that the same text typed with different
// Unicode forms authenticates alike. libidn's stringprep does the work.
//
// Thread-safety: pure.

#include <string>
#include <string_view>

#include "engine/base/status.h"

namespace tigerdoc::wire::auth {

// The prepared UTF-8 string. BadValue for invalid UTF-8, prohibited or
// unassigned code points, bidi violations, or a result that is empty.
StatusWith<std::string> SaslPrep(std::string_view text);

}  // namespace tigerdoc::wire::auth
