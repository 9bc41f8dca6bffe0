#pragma once
// collMod's change of stored collection options: `options` in their order
// with each field `changes` names replaced in place, then the new fields
// appended (as MongoDB's listCollections shows them after collMod).
// Thread-safety: pure function.

#include <bson/bson.h>

#include "engine/bson/bson_doc.h"

namespace tigerdoc::catalog {

bson::BsonDoc MergeOptions(const bson_t* options, const bson_t* changes);

}  // namespace tigerdoc::catalog
