#pragma once
// ErrorCode: MongoDB's numeric error codes as a C++ enum, generated from
// error_codes.def so that the number, the enum name and the wire codeName
// ("DuplicateKey", "Location16755", ...) come from one list.
// Thread-safety: pure functions over constant data.

#include <string_view>

namespace tigerdoc {

enum class ErrorCode : int {
#define X(name, number) k##name = number,
#include "engine/base/error_codes.def"
#undef X
};

// The codeName MongoDB puts beside `code` in error replies. Unknown numbers
// get "Location<number>", as MongoDB names its unregistered assertion codes.
std::string_view ErrorCodeName(ErrorCode code);

}  // namespace tigerdoc
