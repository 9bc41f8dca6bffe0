#pragma once
// MongoDB's names of BSON types ("double", "string", "object", "int",
// "long", "decimal", ...), as $type, type errors and IDL messages spell them.
// Thread-safety: pure function over constant data.

#include <bson/bson.h>

namespace tigerdoc::bson {

// "missing" for BSON_TYPE_EOD and anything unknown.
const char* TypeName(bson_type_t type);

}  // namespace tigerdoc::bson
