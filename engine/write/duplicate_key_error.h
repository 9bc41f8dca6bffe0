#pragma once
// DuplicateKeyError: the E11000 status of a unique index violation, as
// mongod 7 builds it (buildDupKeyErrorStatus in
// src/mongo/db/storage/index_entry_comparison.cpp, and
// DuplicateKeyErrorInfo::serialize in duplicate_key_error_info.cpp).
//
//   reason: "E11000 duplicate key error collection: <ns> index: <name>
//            [collation: { <spec> } ]dup key: { <field>: <value>, ... }"
//   extra (fields after errmsg, in this order):
//     keyPattern  the index's key pattern
//     keyValue    {<field>: <value>, ...} in key-pattern order
//     hexEncoded  [<bool> per keyValue field]: only when at least one
//                 component is hex encoded
//     collation   the index's full collation spec: only for a collated index
//
// What a collated index holds, and so what mongod reports, is the collation
// key of every string of the key, nested ones in subdocuments and arrays
// included (CollationIndexKey::translate). A component that is itself a
// string is then hex encoded: "0x" + lower-case hex in the reason,
// lower-case hex without "0x" in keyValue. Strings nested in a subdocument
// or array component stay raw collation-key bytes in both (mongod hex
// encodes only top-level components). Numbers and other types are
// unchanged. Without a collation the values are reported as stored, except
// that a top-level string which is not valid UTF-8 is hex encoded the same
// way (the wire layer refuses such strings, so it cannot reach an index
// today; kept so the rule has one place).
//
// Thread-safety: pure functions.

#include <bson/bson.h>

#include <string>

#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"
#include "engine/bson/collator.h"
#include "engine/index/index_spec.h"

namespace tigerdoc::engine {

// `key_value` is {<field>: <value>, ...} in key-pattern order with the
// document's values (KeyValueOf); `collation` the index's (nullptr: simple,
// neither shown nor applied).
Status DuplicateKeyError(const std::string& ns, const std::string& index_name,
                         const bson_t* key_pattern, const bson_t* key_value,
                         const bson::Collator* collation = nullptr);

// keyValue of an index key: each key-pattern field with its value (null
// when the document lacks it).
bson::BsonDoc KeyValueOf(const index::IndexSpec& spec, const bson_t* values);

}  // namespace tigerdoc::engine
