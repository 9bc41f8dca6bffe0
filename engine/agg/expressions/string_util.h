#pragma once
// Helpers shared by the string operators: MongoDB's coerceToString and
// UTF-8 code point handling.
// Thread-safety: pure functions.

#include <string>
#include <string_view>
#include <vector>

#include "engine/agg/value.h"
#include "engine/base/status.h"

namespace tigerdoc::agg {

// Value::coerceToString: strings as is, numbers in decimal, dates as
// "YYYY-MM-DDTHH:MM:SS.mmmZ", null/missing as "". Others: 16007
// "can't convert from BSON type <type> to String".
StatusWith<std::string> CoerceToString(const Value& v);

// Byte offsets of the start of every code point, plus s.size() at the end.
std::vector<size_t> CodePointOffsets(std::string_view s);
// Decodes the code points of a UTF-8 string.
std::vector<uint32_t> DecodeUtf8(std::string_view s);
bool IsUtf8Continuation(unsigned char c);

}  // namespace tigerdoc::agg
