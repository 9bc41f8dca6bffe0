#pragma once
// Collator: how strings compare under a collation (MongoDB's
// CollatorInterface). Everything that compares or keys strings takes a
// `const Collator*`; nullptr is MongoDB's "simple" collation, binary
// comparison of the UTF-8 bytes, and keeps the fast path with no ICU call.
//
// Implementations live in engine/collation/ (ICU); this interface sits in
// bson/ because the BSON comparison (compare.h) and the keystring encoder
// need it and may not depend on ICU.
//
// Ownership: collators come from engine/collation/collator_factory.h, which
// caches one per distinct spec for the life of the process, so a
// `const Collator*` never dangles and two collators are the same collation
// exactly when the pointers are equal (SameCollation).
// Thread-safety: every method is const and safe to call concurrently.

#include <bson/bson.h>

#include <string>
#include <string_view>

namespace tigerdoc::bson {

class Collator {
 public:
  virtual ~Collator() = default;

  // <0, 0, >0 as `a` sorts before, equal to, or after `b` (UTF-8 input).
  virtual int Compare(std::string_view a, std::string_view b) const = 0;

  // Appends the collation key of `s`: memcmp order of two keys is Compare
  // order, equal keys mean Compare == 0. The key contains no 0x00 byte.
  virtual void AppendSortKey(std::string_view s, std::string* out) const = 0;

  // The full spec as MongoDB reports it ({locale, caseLevel, caseFirst,
  // strength, numericOrdering, alternate, maxVariable, normalization,
  // backwards, version}).
  virtual const bson_t* spec() const = 0;
};

inline bool SameCollation(const Collator* a, const Collator* b) { return a == b; }

}  // namespace tigerdoc::bson
