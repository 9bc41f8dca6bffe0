#pragma once
// UpdateDriver: a parsed update (the `u` of an update statement) and its
// application to documents, with MongoDB's semantics and errors.
//
// Two kinds of update, decided by the first field:
//  * operator updates {$set: {...}, $inc: {...}}: parsed through the
//    modifier table (modifier_table.h) into an update tree
//    (update_node.h); paths are dotted, missing intermediate documents are
//    created, numeric components index arrays (writing past the end pads
//    with nulls), and the affected fields are updated in field-name order;
//  * replacement documents {a: 1}: the new document, field order kept, the
//    original _id kept (put first when the replacement has none).
// Pipeline updates (arrays) are the caller's to reject or handle.
//
// Errors (MongoDB's codes and messages): FailedToParse 9 for unknown
// modifiers, non-document or empty modifier arguments;
// ConflictingUpdateOperators 40; TypeMismatch 14 ($inc/$mul on
// non-numbers); PathNotViable 28; ImmutableField 66 when _id would change;
// DollarPrefixedFieldName 52 for '$' fields in a replacement;
// EmptyFieldName 56; BadValue 2 for bad $rename/$currentDate arguments and
// int64 overflow.
//
// Ownership: the driver owns copies of everything it parsed.
// Thread-safety: immutable after Parse(); Apply() may run concurrently.

#include <bson/bson.h>

#include <memory>
#include <string>
#include <vector>

#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"
#include "engine/update/update_object_node.h"

namespace tigerdoc::update {

struct ApplyResult {
  bson::BsonDoc doc;
  bool modified = false;  // false when the update was a no-op
};

class UpdateDriver {
 public:
  static StatusWith<UpdateDriver> Parse(const bson_t* update);

  bool is_replacement() const { return replacement_ != nullptr; }

  // Applies the update to `doc`. With `is_upsert_insert`, `doc` is the seed
  // of an upsert (BuildUpsertSeed) and $setOnInsert takes effect; the
  // result then has _id first if it has one (adding a generated _id is the
  // caller's job).
  StatusWith<ApplyResult> Apply(const bson_t* doc, bool is_upsert_insert) const;

 private:
  UpdateDriver() = default;

  StatusWith<ApplyResult> ApplyReplacement(const bson_t* doc, bool is_upsert_insert) const;
  StatusWith<ApplyResult> ApplyModifiers(const bson_t* doc, bool is_upsert_insert) const;

  std::shared_ptr<const bson::BsonDoc> replacement_;  // set for replacement updates
  std::shared_ptr<const UpdateObjectNode> root_;      // set for operator updates
  std::vector<std::string> rename_sources_;
};

// The document an upsert starts from, MongoDB's rule: the filter's equality
// predicates ({a: v}, {a: {$eq: v}}, single-value $in, also under $and),
// dotted paths expanded into nested documents, _id first; every other
// predicate is ignored. Errors: the filter's own parse errors;
// NotSingleValueField 54 when two equalities target the same or nested
// paths ("cannot infer query fields to set, path 'a' is matched twice").
StatusWith<bson::BsonDoc> BuildUpsertSeed(const bson_t* filter);

}  // namespace tigerdoc::update
