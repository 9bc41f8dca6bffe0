#pragma once
// Wildcard indexes ({"$**": 1}, {"a.b.$**": 1}, with wildcardProjection):
// what they index and the keys of a document, with MongoDB 7's rules
// (wildcard_key_generator.cpp, index_key_validate.cpp).
//
// What is indexed: the document projected first, by the wildcardProjection
// ("$**" only), or {"a.b": 1} for "a.b.$**", or nothing; _id is left out
// unless the projection says {_id: 1}. The projected document is then
// walked:
//
//   scalar at path p              key (p, value)
//   document at p                 its fields, at p.f;  {} -> key (p, {})
//   array at p                    p is a multikey path; each element is
//                                 walked at p (not p.0): a nested array is
//                                 a key (p, [...]) as a whole;
//                                 [] -> key (p, undefined), as btree indexes
//   field name holding a '.'      skipped (no query path can name it)
//
// A key is keystring("p") ++ keystring(value, the field's direction): one
// table holds every path, each path's keys together and in value order. Its
// key values are {"$_path": "p", "p": value}, so the bounds code, returnKey
// and explain see MongoDB's expanded key pattern {$_path: 1, p: 1}. The
// path component is always ascending and never collated.
//
// Thread-safety: WildcardInfo is immutable once parsed; pure functions.

#include <bson/bson.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"
#include "engine/index/index_spec.h"
#include "engine/index/key_generator.h"
#include "engine/query/projection.h"

namespace tigerdoc::index {

// The first key-value field of expanded wildcard keys.
inline constexpr char kWildcardPathField[] = "$_path";

struct WildcardInfo {
  std::string root;                            // "" for "$**", "a.b" for "a.b.$**"
  std::optional<bson::BsonDoc> projection_spec;  // wildcardProjection as given
  bool exclusion = false;                      // the projection lists excluded paths
  std::vector<std::string> paths;              // the projection's paths, _id aside
  bool id_included = false;                    // {_id: 1} in the projection
  // Applied before the walk; null when there are no paths to project (the
  // walk then leaves out the top-level _id unless id_included).
  std::shared_ptr<const query::Projection> projection;
};

// True for a key pattern field "$**" or "<path>.$**".
bool IsWildcardField(std::string_view field);

// Validates a wildcard index's key pattern and options and sets
// spec->wildcard. `projection` is the spec's wildcardProjection field, if
// any. Errors (MongoDB's codes): for a compound key pattern 7246201 (two
// wildcard fields), 7246204 (a regular field on or above/below the wildcard
// root), CannotCreateIndex (67) beside text/hashed/geo fields or for "$**"
// without a wildcardProjection; options and projection as below; then 67 for
// every shape MongoDB 7 accepts (TODO(#19): compound wildcard keys and plans); CannotCreateIndex (67) for
// v: 1, unique, sparse, expireAfterSeconds; TypeMismatch (14) for a
// projection that is not a document; FailedToParse (9) for an empty one or
// one beside "a.$**"; 51271 for values other than numbers and bools;
// 31253/31254 for mixed inclusion and exclusion.
Status ParseWildcard(const bson_iter_t* projection, IndexSpec* spec);

// The BadValue (2) of a wildcardProjection on an index that is not "$**".
Status WildcardProjectionNotAllowed();

// Whether the index holds every key a query on `path` (a dotted path with no
// positional component) can need: the path and all below it are indexed.
bool WildcardIndexesPath(const WildcardInfo& wildcard, std::string_view path);

// Whether `path` or a path above it held an array in some document.
bool WildcardPathMultikey(const IndexSpec& spec, std::string_view path);

// The keys of `doc` (see above); multikey paths in out->wildcard_multikey_paths.
Status GenerateWildcardKeys(const IndexSpec& spec, const bson_t* doc, DocumentKeys* out);

}  // namespace tigerdoc::index
