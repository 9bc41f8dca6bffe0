#pragma once
// InPlaceSet: the fast path of an update that is nothing but $set of
// existing top-level fields ({$set: {field3: "..."}}, YCSB workload A's
// update). The general path (UpdateDriver::ApplyModifiers) parses the whole
// document into a MutableValue tree, applies the update tree and renders
// the document again: about 27,000 instructions for a YCSB record (_id and
// ten 100-byte strings). When each set field is in the document once, the
// new document is the old one's bytes with those elements replaced:
//
//   old:  [len] [_id ...] [field2 old] [field3 ...] ... [0]
//   new:  [len'] [_id ...] [field2 new] [field3 ...] ... [0]
//          prefix bytes, the new element, suffix bytes
//
// Each new element is the update's own bytes, planned only when the general
// path would render it as the same bytes (top_level_fields.h: arrays keyed
// 0, 1, ..., no regex; otherwise the general path runs).
//
// Contract: whenever Apply answers, its document and `modified` are byte
// for byte what the general path returns for the same document (an
// element equal to the old one by bytes, type included, is a no-op, as
// MongoDB's binaryEqualValues: nModified 0). Whenever the general path could
// differ or fail (a field missing, so appended at the end; repeated; an
// array _id; a document whose re-rendering would change other bytes, see
// top_level_fields.h), Apply declines and the caller runs the general path.
// Dotted paths, '$'-prefixed names, _id and upsert inserts never come here.
// Validators, size limits, indexes, hooks and change events are the
// caller's and see the same document either way.
//
// Thread-safety: immutable after Plan(); Apply() may run concurrently.

#include <bson/bson.h>

#include <optional>
#include <string>
#include <vector>

#include "engine/bson/bson_doc.h"

namespace tigerdoc::update {

class InPlaceSet {
 public:
  // The plan for `update` (an operator update the general parser accepted),
  // or nullopt when it is anything but {$set: {f: value, ...}} with at most
  // kMaxInPlaceFields plain top-level names (not empty, no '.', no '$'
  // prefix, not _id, none twice) whose values render unchanged.
  static std::optional<InPlaceSet> Plan(const bson_t* update);

  // True with the updated document in *out and whether it changed in
  // *modified; false: the general path must run. Not for upsert inserts.
  bool Apply(const bson_t* doc, bson::BsonDoc* out, bool* modified) const;

 private:
  struct Field {
    std::string name;
    std::string element;  // type byte, name, NUL, value: as the general path renders it
  };
  std::vector<Field> fields_;
};

}  // namespace tigerdoc::update
