#include "engine/bson/type_name.h"

namespace tigerdoc::bson {

const char* TypeName(bson_type_t type) {
  switch (type) {
    case BSON_TYPE_DOUBLE: return "double";
    case BSON_TYPE_UTF8: return "string";
    case BSON_TYPE_DOCUMENT: return "object";
    case BSON_TYPE_ARRAY: return "array";
    case BSON_TYPE_BINARY: return "binData";
    case BSON_TYPE_UNDEFINED: return "undefined";
    case BSON_TYPE_OID: return "objectId";
    case BSON_TYPE_BOOL: return "bool";
    case BSON_TYPE_DATE_TIME: return "date";
    case BSON_TYPE_NULL: return "null";
    case BSON_TYPE_REGEX: return "regex";
    case BSON_TYPE_DBPOINTER: return "dbPointer";
    case BSON_TYPE_CODE: return "javascript";
    case BSON_TYPE_SYMBOL: return "symbol";
    case BSON_TYPE_CODEWSCOPE: return "javascriptWithScope";
    case BSON_TYPE_INT32: return "int";
    case BSON_TYPE_TIMESTAMP: return "timestamp";
    case BSON_TYPE_INT64: return "long";
    case BSON_TYPE_DECIMAL128: return "decimal";
    case BSON_TYPE_MINKEY: return "minKey";
    case BSON_TYPE_MAXKEY: return "maxKey";
    default: return "missing";
  }
}

}  // namespace tigerdoc::bson
