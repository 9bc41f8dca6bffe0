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

// A view's collation is simple (tigerdoc's views have no collation of
// their own yet: TODO(#19)); an operation on a view may not ask for
// another, as in MongoDB (167 OptionNotSupportedOnView).
inline Status RefuseViewCollation(const CollationOption& collation) {
  if (collation && *collation != nullptr) {
    return Status(ErrorCode::kOptionNotSupportedOnView, "Cannot override a view's default collation");
  }
  return Status::OK();
}

}  // namespace tigerdoc::engine
