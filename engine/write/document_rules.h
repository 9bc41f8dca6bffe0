#pragma once
// Rules every stored document obeys, shared by insert, update and upsert:
// _id present, first and of a storable type; size within the collection's
// limit (16 MiB by default, MongoDB's maxBsonObjectSize).

#include <bson/bson.h>

#include <cstdint>
#include <optional>

#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"

namespace tigerdoc::engine {

// Returns `doc` with _id as its first field, generating an ObjectId when
// absent. InvalidIdField (53) for an _id that is an array, regex or
// undefined ("The '_id' value cannot be of type array").
StatusWith<bson::BsonDoc> WithIdFirst(const bson_t* doc);
// What an insert must store instead of `doc`: nullopt when `doc` can be
// stored as it is (its _id is first and of a storable type: the insert
// path's common case, stored without a copy), else WithIdFirst(doc).
// InvalidIdField as WithIdFirst.
StatusWith<std::optional<bson::BsonDoc>> RebuiltWithIdFirst(const bson_t* doc);

// The _id value of a stored document as {"": value}; REQUIRES: it has one.
bson::BsonDoc IdOf(const bson_t* doc);

// MongoDB's limit on the nesting of a stored document (maxBSONDepth 200
// less 20 kept for the server's own wrapping): the document is level 1, each
// non-empty embedded document or array one more; empty ones do not count.
inline constexpr int kMaxUserStorageDepth = 180;

// Overflow (15) when `doc` nests deeper than kMaxUserStorageDepth: "cannot
// insert document because it exceeds 180 levels of nesting" for an insert,
// "Document exceeds maximum nesting depth of 180" for an update (MongoDB's
// two messages). Iterative, so any depth is checked without recursion.
Status CheckStorageDepth(const bson_t* doc, bool is_update);

// {<field>: value} from {"": value}, for messages and keyValue fields.
bson::BsonDoc Rename(const bson_t* one_value_doc, const char* field);

}  // namespace tigerdoc::engine
