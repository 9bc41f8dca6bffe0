#pragma once
// Index key generation: the keys one document contributes to one index,
// with MongoDB's rules (btree_key_generator.cpp):
//
//   * One keystring component per key-pattern field, each in its own
//     direction. A missing field (or a path ending at a scalar) is null; an
//     empty array is undefined, and a path continuing through an empty array
//     is null. A hashed field holds HashIndexValue(value) as an int64.
//   * Multikey: an array met along a field's path yields one key per element
//     (nested arrays are kept whole at the end of a path; a path continuing
//     into an element that is not a document finds nothing). Several fields
//     may go through the SAME array (they stay correlated: {"a.b": 1,
//     "a.c": 1} over a: [{b: 1, c: 2}] gives (1, 2) only), but two
//     different arrays in one document are CannotIndexParallelArrays (171)
//     "cannot index parallel arrays [b] [a]". A numeric path component
//     applied to an array selects that element ("a.0"), without expanding;
//     an element so selected that is itself an array is kept whole at the
//     end of the path ({"a.0"} over {a: [[1, 2]]} keys [1, 2]) and expanded
//     when the path goes on ({"a.0.b"} over {a: [[{b: 1}]]} keys 1), as the
//     matcher reads them. A numeric component past the array's end names a
//     field of its elements ({"a.5"} over {a: [{"5": 1}]} keys 1). A
//     document whose indexed array has an element holding a field named
//     like the position is refused (16746 "Ambiguous field name found in
//     array ...").
//   * Keys are deduplicated within a document.
//   * Sparse: no key when every key field is missing. Partial: no key when
//     the document does not match partialFilterExpression.
//   * Hashed fields refuse arrays (16766).
//
// Thread-safety: pure functions.

#include <bson/bson.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"
#include "engine/index/index_spec.h"

namespace tigerdoc::index {

struct IndexKey {
  // keystring of the key fields, each with its direction (no record key).
  std::string encoded;
  // {<dotted field>: value, ...} in key-pattern order: the value as found in
  // the document (an array element for a multikey field, undefined for an
  // empty array, the int64 hash for a hashed field); a missing field is
  // absent.
  bson::BsonDoc values;
};

struct DocumentKeys {
  std::vector<IndexKey> keys;   // sorted by `encoded`, no duplicates
  bool multikey = false;        // some key field went through an array
  MultikeyPaths multikey_paths; // per key field, components that were arrays
  // Wildcard indexes: the dotted paths that held an array (wildcard.h).
  std::set<std::string> wildcard_multikey_paths;
};

// The keys of `doc` for `spec` (a wildcard index's: wildcard.h). Errors: CannotIndexParallelArrays (171),
// Location16766 (array on a hashed field), Location16746 (ambiguous
// positional component).
StatusWith<DocumentKeys> GenerateKeys(const IndexSpec& spec, const bson_t* doc);

// The hash a hashed index stores for a value (compatibility promise, see
// engine/README.md): the version-1 shard hash (FNV-1a 64 + splitmix64) of
// the value's ascending keystring, as a signed 64-bit integer. Equal values
// of different numeric types hash alike. nullptr hashes as null.
// With an index collation, strings hash by their collation keys.
int64_t HashIndexValue(const bson_value_t* value, const bson::Collator* collator = nullptr);

}  // namespace tigerdoc::index
