#pragma once
// The _id index as listIndexes, listCollections (idIndex), $indexStats and
// validate show it: {v: 2, key: {_id: 1}, name: "_id_"}, with the
// collection's default collation when the _id index compares under it (a
// collection with the "<ident>-idc" table, CollectionMetadata::
// collated_id_table), as MongoDB's _id index takes the collection's.
// Thread-safety: pure function.

#include "engine/bson/bson_doc.h"
#include "engine/catalog/catalog.h"
#include "engine/index/index_spec.h"

namespace tigerdoc::catalog {

inline bson::BsonDoc IdIndexDocumentOf(const CollectionMetadata& md) {
  bson::BsonDoc out = index::IdIndexDocument();
  if (md.collated_id_table && md.default_collator != nullptr) {
    BSON_APPEND_DOCUMENT(out.mutable_get(), "collation", md.default_collator->spec());
  }
  return out;
}

}  // namespace tigerdoc::catalog
