#pragma once
// The collation an operation runs with, as MongoDB chooses it: the
// command's `collation` when given (even {locale: "simple"} on a collection
// with a default), else the collection's default collation, else simple
// (nullptr).
// Thread-safety: pure function; the default is fixed at create.

#include "engine/base/status.h"
#include "engine/bson/collator.h"
#include "engine/catalog/catalog.h"
#include "engine/ops.h"

namespace tigerdoc::engine {

inline const bson::Collator* OperationCollator(const CollationOption& given,
                                               const catalog::CollectionEntry* coll) {
  if (given) return *given;
  return coll != nullptr ? coll->metadata.default_collator : nullptr;
}

// An operation on a view runs with the view's collation (not that of the
// collection under it); it may name that collation but no other, as in
// MongoDB (167 OptionNotSupportedOnView).
inline StatusWith<const bson::Collator*> ViewOperationCollator(const CollationOption& given,
                                                               const catalog::ViewDefinition& view) {
  if (given && !bson::SameCollation(*given, view.collator)) {
    return Status(ErrorCode::kOptionNotSupportedOnView, "Cannot override a view's default collation");
  }
  return view.collator;
}

}  // namespace tigerdoc::engine
