#pragma once
// The collation document of MongoDB's commands ({locale: "en", strength: 2,
// ...}) parsed, validated and turned into a cached collator.
//
//   spec      := { locale: string            required; "simple" = binary
//                  [, caseLevel: bool] [, caseFirst: "upper"|"lower"|"off"]
//                  [, strength: 1..5] [, numericOrdering: bool]
//                  [, alternate: "non-ignorable"|"shifted"]
//                  [, maxVariable: "punct"|"space"] [, normalization: bool]
//                  [, backwards: bool] [, version: "57.1"] }
//
// Errors, as MongoDB 7 (IDL parse of the `collation` struct, then
// CollatorFactoryICU):
//   40414 "BSON field 'collation.locale' is missing but a required field"
//   40415 "BSON field 'collation.<f>' is an unknown field."
//   14    "BSON field 'collation.<f>' is the wrong type '<t>', expected type '<t>'"
//   2     "Enumeration value '<v>' for field 'collation.<f>' is not a valid value."
//   51024 "BSON field 'strength' value must be <= 5, actual value '6'" (>= 1 below)
//   9     "If locale=simple, no other fields should be present in: <spec>"
//   2     "Field 'locale' cannot be the empty string in: <spec>"
//   2     "Field 'locale' is invalid in: <spec>[. Did you mean '<locale>'?]"
//   2     "'backwards' is invalid with 'strength' of 1 in: <full spec>"
//   2     "'caseFirst' is invalid unless 'caseLevel' is on or 'strength' is
//          greater than 2 in: <full spec>"
//   190   IncompatibleCollationVersion for a version other than "57.1"
// Unset fields take the locale's ICU defaults; the normalized spec (every
// field, version "57.1", the version MongoDB 7's ICU reports) is what
// listCollections/listIndexes/explain show (bson::Collator::spec()).
//
// Collators are cached per distinct normalized spec for the life of the
// process (so pointers are stable and comparable, see bson::SameCollation);
// specs already seen are found by their bytes without parsing.
// Thread-safety: every function may be called concurrently.

#include <bson/bson.h>

#include <string_view>

#include "engine/base/status.h"
#include "engine/bson/collator.h"

namespace tigerdoc::collation {

// The version string MongoDB 7 reports (its bundled ICU 57.1).
inline constexpr const char* kCollationVersion = "57.1";

// The collator for `spec`; nullptr for {locale: "simple"}.
StatusWith<const bson::Collator*> CollatorFor(const bson_t* spec);

// The collator for a command's `collation` field `value`, which must be a
// document (else 14 "BSON field '<context>.collation' is the wrong type
// '<t>', expected type 'object'").
StatusWith<const bson::Collator*> CollatorForField(const bson_iter_t* value,
                                                   std::string_view context);

// The spec a collator reports: its normalized spec, or {locale: "simple"}.
// Appends it as field `key` of `out`.
void AppendCollationSpec(const bson::Collator* collator, const char* key, bson_t* out);

}  // namespace tigerdoc::collation
