#pragma once
// AlignedIter: a bson_iter_t to keep in a container or a std::optional.
//
// Why: libbson declares bson_iter_t 128-byte aligned through an attribute
// on its typedef, and compilers drop typedef attributes in template
// arguments, so std::optional<bson_iter_t> or std::map<K, bson_iter_t>
// store it with 8-byte alignment while code that reads it through a
// bson_iter_t* may assume 128 (undefined behaviour: UBSan's "misaligned
// address ... requires 128 byte alignment"; an optimiser may use aligned
// vector moves). As a struct member the attribute holds, so containers of
// AlignedIter allocate and place it aligned.
//
// Thread-safety: a value.

#include <bson/bson.h>

namespace tigerdoc::bson {

struct AlignedIter {
  bson_iter_t it;
};
static_assert(alignof(AlignedIter) == alignof(bson_iter_t));

}  // namespace tigerdoc::bson
