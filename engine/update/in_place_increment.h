#pragma once
// InPlaceIncrement: the fast path of an update that is nothing but $inc of
// top-level fields ({$inc: {n: 1}}), the commonest counter update. The
// general path (UpdateDriver::ApplyModifiers) rebuilds the whole document
// through MutableValue and renders the _id for error messages, about 10,000
// instructions for a small document; when each incremented field is there,
// once, as an int32, int64 or double, and its sum keeps that type, the new
// document is the old one with those 4 or 8 bytes rewritten, so this path
// copies the document and patches it.
//
// Contract: whenever Apply answers, its document and `modified` are
// byte for byte what the general path returns for the same document (the
// same ApplyArithmetic, so the same promotion rules); whenever the general
// path could differ or fail (a field missing, repeated or of another type,
// a sum that changes type or overflows int64, an array _id, a document the
// walk does not vouch for, top_level_fields.h), Apply declines and the caller runs the
// general path. Indexes, validators, size limits and change events are the
// caller's and see the same document either way.
//
// Thread-safety: immutable after Plan(); Apply() may run concurrently.

#include <bson/bson.h>

#include <optional>
#include <string>
#include <vector>

#include "engine/bson/bson_doc.h"
#include "engine/query/owned_value.h"

namespace tigerdoc::update {

class InPlaceIncrement {
 public:
  // The plan for `update` (an operator update the general parser accepted),
  // or nullopt when it is anything but {$inc: {f: number, ...}} with plain
  // top-level names (no '.', no '$' prefix, not _id) and int32, int64 or
  // double increments.
  static std::optional<InPlaceIncrement> Plan(const bson_t* update);

  // True with the updated document in *out and whether it changed in
  // *modified; false: the general path must run. Not for upsert inserts.
  bool Apply(const bson_t* doc, bson::BsonDoc* out, bool* modified) const;

 private:
  struct Field {
    std::string name;
    query::OwnedValue increment;
  };
  std::vector<Field> fields_;
};

}  // namespace tigerdoc::update
