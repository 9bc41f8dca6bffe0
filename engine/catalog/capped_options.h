#pragma once
// Capped collections' options: MongoDB 7's rules for `capped`, `size` and
// `max` on create (and `size` on convertToCapped), and the limits a
// collection's stored options give.
//
// Stored options of a capped collection begin {capped: true, size: <bytes>,
// [max: <documents>]} (engine/README.md, "Capped collections"); `size` and
// `max` are kept as MongoDB 7 lists them: the integer given (no rounding:
// MongoDB dropped the 256-byte multiple in 6.2, SERVER-67246, and never
// applied its documented 4096-byte floor on create, SERVER-67036), `max`
// 0 or negative -> 2147483647 (no limit).
//
// Thread-safety: pure functions.

#include <bson/bson.h>

#include <cstdint>
#include <optional>
#include <string_view>

#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"

namespace tigerdoc::catalog {

inline constexpr int64_t kMaxCappedSize = int64_t{1} << 50;  // 1 PB
inline constexpr int64_t kNoCappedMax = 0x7fffffff;

struct CappedLimits {
  int64_t max_bytes = 0;  // sum of BSON sizes of the documents kept
  int64_t max_docs = 0;   // 0: no limit on the count
};

// The limits of a collection whose stored options say capped: true;
// nullopt for any other collection.
std::optional<CappedLimits> CappedLimitsOf(const bson_t* options);

// Whether a capped collection holding `count` documents of `bytes` BSON
// bytes in total is over its limits (and must lose its oldest document).
bool CappedOverLimits(const CappedLimits& limits, int64_t count, int64_t bytes);

// `size` of create (command "create") or convertToCapped, or `cappedSize`
// of collMod (messages name the field as given, the iterator's key):
// a number (else 14 "BSON field '<command>.size' is the wrong type ..."),
// truncated to an integer, in [1, 1 PB] (else 51024 "BSON field 'size'
// value must be >= 1, actual value '0'" / "... <= 1125899906842624 ...").
StatusWith<int64_t> ParseCappedSize(std::string_view command, const bson_iter_t* it);
// `max` of create or `cappedMax` of collMod: a number below 2^31 (else 51024 "BSON field 'max' value
// must be < 2147483648, actual value '...'"); 0 or negative -> kNoCappedMax.
StatusWith<int64_t> ParseCappedMax(std::string_view command, const bson_iter_t* it);

// The create command's capped options checked as MongoDB 7 does (types and
// ranges first, then: capped without size -> 72 "the 'size' field is
// required when 'capped' is true"; size or max without capped: true -> 72
// "the 'capped' field needs to be true when either the 'size' or 'max'
// fields are present"). Returns {capped: true, size, [max]} to lead the
// stored options, or an empty document for a collection that is not capped.
StatusWith<bson::BsonDoc> ParseCappedCreateOptions(const bson_t* command);

// Appends `value` as int32 when it fits, else int64 (MongoDB's appendNumber).
void AppendNumber(bson_t* doc, const char* field, int64_t value);

}  // namespace tigerdoc::catalog
