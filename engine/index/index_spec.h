#pragma once
// IndexSpec: one secondary index of a collection, as createIndexes describes
// it and as the catalog stores it; IndexSet: the indexes of one collection.
//
// Parsing (ParseIndexSpec) validates a createIndexes spec with MongoDB's
// codes and messages (index_key_validate.cpp), each wrapped as the server
// does: "Error in specification <spec> :: caused by :: <reason>".
// Key patterns: fields with 1/-1 (any non-zero number; its sign is the
// direction), "hashed" (at most one hashed field), one wildcard field
// ("$**" or "a.b.$**", alone; see wildcard.h) or "text" (text indexes,
// stored in MongoDB's form {_fts: "text", _ftsx: 1} with weights,
// default_language, language_override, textIndexVersion: engine/fts/
// fts_spec.h; one per collection, else 67). 2d, 2dsphere, geoHaystack and
// columnstore key patterns are refused with
// CannotCreateIndex (67) until tigerdoc has them.
// A text index's table holds one entry per distinct term of each document
// (text_keys.h), which $text reads (engine/query/planner/text_plan.h).
// Text indexes created before that format hold one null entry per document
// (fts_term_keys false); $text over them scans the collection.
//
// The implicit _id index is not an IndexSpec: it is the record keys (or the
// "<ident>-id" table); listIndexes shows it first as kIdIndexDocument.
//
// Conflicts (CheckNewIndex) follow IndexCatalogImpl: an index's signature is
// its key pattern, partialFilterExpression, unique and sparse. Same name and
// a different signature -> IndexKeySpecsConflict (86); same name and
// signature but other options (expireAfterSeconds, hidden) ->
// IndexOptionsConflict (85); another name with the same signature ->
// IndexOptionsConflict (85); everything identical -> "already exists" (no-op).
//
// Catalog form (inside the collection's catalog document, "indexes: [...]"):
//   { v: 2, key: {...}, name: "a_1", [unique: true], [sparse: true],
//     [partialFilterExpression: {...}], [expireAfterSeconds: n], [hidden: true],
//     [collation: {<normalized spec, collator_factory.h>}],
//     [wildcardProjection: {...}],
//     id: <int64>, multikey: <bool>, multikeyPaths: [ [<component>...], ... ],
//     [wildcardMultikeyPaths: [<dotted path>, ...]],
//     [ftsTermKeys: true] (text indexes keyed by term, text_keys.h) }
// The listIndexes form is the same without id/multikey/multikeyPaths.
//
// Ownership/thread-safety: an IndexSpec is a value (Clone() to copy); a
// published IndexSet is immutable and shared through shared_ptr<const>.

#include <bson/bson.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"
#include "engine/bson/field_path.h"
#include "engine/fts/fts_spec.h"
#include "engine/index/index_usage.h"
#include "engine/keystring/key_string.h"
#include "engine/query/matcher/matcher.h"

namespace tigerdoc::index {

inline constexpr char kIdIndexName[] = "_id_";
inline constexpr int kIndexVersion = 2;
// MongoDB's limit on expireAfterSeconds (a 32-bit signed integer).
inline constexpr int64_t kMaxExpireAfterSeconds = 2147483647;

struct IndexField {
  bson::FieldPath path;
  keystring::Direction dir = keystring::Direction::kAscending;
  bool hashed = false;
};

// For each key field, the path components (0-based) that have held an array
// in some document: MongoDB's MultikeyPaths. {a.b: [1]} means "a.b" was
// reached through an array at "a.b" itself (e.g. {a: {b: [1, 2]}}).
using MultikeyPaths = std::vector<std::set<size_t>>;

// A wildcard index's root path and projection (wildcard.h); opaque here.
struct WildcardInfo;

struct IndexSpec {
  int64_t id = 0;                 // table number, never reused within a collection
  std::string name;
  int version = kIndexVersion;    // "v"
  bson::BsonDoc key_pattern;      // as given, e.g. {a: 1, "b.c": -1}
  std::vector<IndexField> fields; // one per key pattern field, same order
  bool unique = false;
  bool sparse = false;
  std::optional<bson::BsonDoc> partial_filter;          // partialFilterExpression
  std::shared_ptr<const query::Matcher> partial_matcher;  // parsed partial_filter
  std::optional<int64_t> expire_after_seconds;
  bool hidden = false;
  // The index's collation: string keys are its collation keys (keystring
  // grammar); nullptr = simple. Part of the signature, as in MongoDB.
  const bson::Collator* collator = nullptr;
  bool collation_given = false;  // the spec named one (else the collection's default)
  // Text indexes: {weights, default_language, language_override,
  // textIndexVersion} as stored (part of the signature), and parsed.
  std::optional<bson::BsonDoc> text_options;
  std::shared_ptr<const fts::TextIndexSpec> text;
  // A text index whose entries are its terms (text_keys.h); catalog field
  // "ftsTermKeys". False: an index of the earlier null-entry format.
  bool fts_term_keys = false;
  bool multikey = false;
  MultikeyPaths multikey_paths;   // size() == fields.size()
  // Wildcard indexes only (fields then holds the one "$**" field): what
  // they index, and the dotted paths where some document held an array.
  std::shared_ptr<const WildcardInfo> wildcard;
  std::set<std::string> wildcard_multikey_paths;
  // $indexStats accesses; shared by Clone(), so snapshot copies of the spec
  // count into one counter. Give a copy a fresh one when it is a new index
  // (copied for $out) or a modified one (collMod resets it, as MongoDB).
  std::shared_ptr<IndexUsage> usage = std::make_shared<IndexUsage>();

  // A copy sharing `usage` (the same index, e.g. with new multikey paths).
  IndexSpec Clone() const;
  bool hashed() const;
  // A TTL index the monitor acts on: expireAfterSeconds on one non-hashed field.
  bool IsTtl() const { return expire_after_seconds.has_value() && fields.size() == 1 && !hashed(); }
  // Index signature equality (key pattern, partial filter, unique, sparse).
  bool SameSignature(const IndexSpec& other) const;
  // Signature and every other user-visible option equal.
  bool Identical(const IndexSpec& other) const;

  // {v, key, name, options...} as listIndexes shows it.
  bson::BsonDoc ToListIndexesBson() const;
  // The listIndexes form plus id, multikey and multikeyPaths.
  bson::BsonDoc ToCatalogBson() const;
  static StatusWith<IndexSpec> FromCatalogBson(const bson_t* doc);
};

// listIndexes' entry for the implicit _id index.
bson::BsonDoc IdIndexDocument();

// Parses and validates one createIndexes spec. The name defaults to
// DefaultIndexName(key). Errors carry MongoDB's codes; messages are wrapped
// as "Error in specification <spec> :: caused by :: ...". id is left 0.
// Without a `collation` field the index takes `collection_default` (the
// collection's default collation; nullptr = simple).
StatusWith<IndexSpec> ParseIndexSpec(const bson_t* spec,
                                     const bson::Collator* collection_default = nullptr);

// Whether `field` is one MongoDB accepts at the top level of an index spec
// (createIndexes' ignoreUnknownIndexOptions drops the others).
bool IsIndexSpecField(std::string_view field);

// MongoDB's generated index name: "<field>_<value>" joined by '_', e.g.
// {a: 1, b: -1} -> "a_1_b_-1", {a: "hashed"} -> "a_hashed".
std::string DefaultIndexName(const bson_t* key_pattern);

// The secondary indexes of one collection, in creation order.
struct IndexSet {
  std::vector<std::shared_ptr<const IndexSpec>> specs;
  int64_t next_index_id = 1;

  const IndexSpec* FindByName(std::string_view name) const;
  // Indexes whose key pattern equals `key_pattern` field by field (names,
  // and values compared as BSON values, so {a: 1} matches {a: 1.0}).
  std::vector<const IndexSpec*> FindByKeyPattern(const bson_t* key_pattern) const;
  const IndexSpec* FindById(int64_t id) const;
  // A copy sharing the unchanged specs.
  std::shared_ptr<IndexSet> CopyShallow() const { return std::make_shared<IndexSet>(*this); }
};

// Whether `candidate` can be added to `existing` (checked against the
// implicit _id index too). Returns true when an identical index exists (a
// no-op for createIndexes), false when it can be built, or the conflict.
StatusWith<bool> CheckNewIndex(const IndexSpec& candidate, const IndexSet& existing);

// True when two key patterns are equal field by field (see FindByKeyPattern).
bool KeyPatternsEqual(const bson_t* a, const bson_t* b);

}  // namespace tigerdoc::index
