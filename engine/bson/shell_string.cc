#include "engine/bson/shell_string.h"

#include <cstdio>
#include <cstring>

#include "engine/base/invariant.h"

namespace tigerdoc::bson {
namespace {

// BSONObj::maxToStringRecursionDepth in MongoDB.
constexpr int kMaxDepth = 100;

void AppendValue(std::string* out, const bson_iter_t* it, int depth);

void AppendHex(std::string* out, const uint8_t* data, size_t len, bool upper) {
  const char* digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  for (size_t i = 0; i < len; ++i) {
    out->push_back(digits[data[i] >> 4]);
    out->push_back(digits[data[i] & 0xF]);
  }
}

void AppendOid(std::string* out, const bson_oid_t* oid) {
  char hex[25];
  bson_oid_to_string(oid, hex);
  out->append(hex);
}

// MongoDB's StringBuilder::appendDoubleNice: "%.16g", then ".0" when the
// text has no '.', 'E' or 'N'. Deliberately faithful, including its quirks
// ("1e+20.0", "inf.0", "nan.0"), since clients see these strings.
void AppendDouble(std::string* out, double d) {
  char buf[32];
  int n = std::snprintf(buf, sizeof(buf), "%.16g", d);
  INVARIANT(n > 0 && n < static_cast<int>(sizeof(buf)));
  out->append(buf, static_cast<size_t>(n));
  if (std::strchr(buf, '.') == nullptr && std::strchr(buf, 'E') == nullptr &&
      std::strchr(buf, 'N') == nullptr) {
    out->append(".0");
  }
}

// Renders a document or array whose elements sit at nesting level `depth`
// (the top-level document's elements are level 0).
void AppendContainer(std::string* out, const uint8_t* data, uint32_t len, bool is_array,
                     int depth) {
  bson_iter_t child;
  INVARIANT(bson_iter_init_from_data(&child, data, len));
  if (!bson_iter_next(&child)) {
    out->append(is_array ? "[]" : "{}");
    return;
  }
  out->append(is_array ? "[ " : "{ ");
  bool first = true;
  do {
    if (!first) out->append(", ");
    first = false;
    if (depth > kMaxDepth) {
      // MongoDB prints "..." in place of each too-deep element, name included.
      out->append("...");
      continue;
    }
    if (!is_array) {
      out->append(bson_iter_key(&child));
      out->append(": ");
    }
    AppendValue(out, &child, depth);
  } while (bson_iter_next(&child));
  out->append(is_array ? " ]" : " }");
}

void AppendValue(std::string* out, const bson_iter_t* it, int depth) {
  bson_iter_t copy = *it;
  const bson_value_t* v = bson_iter_value(&copy);
  const auto& u = v->value;
  switch (v->value_type) {
    case BSON_TYPE_DOCUMENT:
    case BSON_TYPE_ARRAY:
      AppendContainer(out, u.v_doc.data, u.v_doc.data_len, v->value_type == BSON_TYPE_ARRAY,
                      depth + 1);
      return;
    case BSON_TYPE_EOD:
      out->append("EOO");
      return;
    case BSON_TYPE_DATE_TIME:
      out->append("new Date(" + std::to_string(u.v_datetime) + ")");
      return;
    case BSON_TYPE_REGEX:
      out->append("/").append(u.v_regex.regex).append("/").append(u.v_regex.options);
      return;
    case BSON_TYPE_DOUBLE:
      AppendDouble(out, u.v_double);
      return;
    case BSON_TYPE_INT64:
      out->append(std::to_string(u.v_int64));
      return;
    case BSON_TYPE_INT32:
      out->append(std::to_string(u.v_int32));
      return;
    case BSON_TYPE_DECIMAL128: {
      char buf[BSON_DECIMAL128_STRING];
      bson_decimal128_to_string(&u.v_decimal128, buf);
      out->append(buf);
      return;
    }
    case BSON_TYPE_BOOL:
      out->append(u.v_bool ? "true" : "false");
      return;
    case BSON_TYPE_UNDEFINED:
      out->append("undefined");
      return;
    case BSON_TYPE_NULL:
      out->append("null");
      return;
    case BSON_TYPE_MAXKEY:
      out->append("MaxKey");
      return;
    case BSON_TYPE_MINKEY:
      out->append("MinKey");
      return;
    case BSON_TYPE_CODEWSCOPE: {
      bson_t scope;
      INVARIANT(bson_init_static(&scope, u.v_codewscope.scope_data, u.v_codewscope.scope_len));
      // The code is printed as a C string (stops at an embedded NUL), and the
      // scope with a fresh depth, as MongoDB does.
      out->append("CodeWScope( ").append(u.v_codewscope.code).append(", ");
      out->append(ToShellString(&scope)).append(")");
      return;
    }
    case BSON_TYPE_CODE: {
      // Sizes below count the terminating NUL, as MongoDB's valuestrsize().
      const size_t size_with_nul = u.v_code.code_len + 1;
      if (size_with_nul > 80) {
        out->append(u.v_code.code, 70).append("...");
      } else {
        out->append(u.v_code.code, u.v_code.code_len);
      }
      return;
    }
    case BSON_TYPE_UTF8:
    case BSON_TYPE_SYMBOL: {
      const char* str = v->value_type == BSON_TYPE_UTF8 ? u.v_utf8.str : u.v_symbol.symbol;
      const size_t len = v->value_type == BSON_TYPE_UTF8 ? u.v_utf8.len : u.v_symbol.len;
      out->push_back('"');
      if (len + 1 > 160) {
        out->append(str, 150).append("...\"");
      } else {
        out->append(str, len).push_back('"');
      }
      return;
    }
    case BSON_TYPE_DBPOINTER:
      out->append("DBRef('").append(u.v_dbpointer.collection).append("',");
      AppendOid(out, &u.v_dbpointer.oid);
      out->push_back(')');
      return;
    case BSON_TYPE_OID:
      out->append("ObjectId('");
      AppendOid(out, &u.v_oid);
      out->append("')");
      return;
    case BSON_TYPE_BINARY: {
      const uint8_t* data = u.v_binary.data;
      const size_t len = u.v_binary.data_len;
      if (u.v_binary.subtype == BSON_SUBTYPE_UUID && len == 16) {
        // 4-2-2-2-6 bytes, lower-case hex.
        out->append("UUID(\"");
        AppendHex(out, data, 4, false);
        out->push_back('-');
        AppendHex(out, data + 4, 2, false);
        out->push_back('-');
        AppendHex(out, data + 6, 2, false);
        out->push_back('-');
        AppendHex(out, data + 8, 2, false);
        out->push_back('-');
        AppendHex(out, data + 10, 6, false);
        out->append("\")");
        return;
      }
      out->append("BinData(" + std::to_string(static_cast<int>(u.v_binary.subtype)) + ", ");
      if (len > 80) {
        AppendHex(out, data, 70, true);
        out->append("...)");
      } else {
        AppendHex(out, data, len, true);
        out->push_back(')');
      }
      return;
    }
    case BSON_TYPE_TIMESTAMP:
      out->append("Timestamp(" + std::to_string(u.v_timestamp.timestamp) + ", " +
                  std::to_string(u.v_timestamp.increment) + ")");
      return;
  }
  out->append("?type=" + std::to_string(static_cast<int>(v->value_type)));
}

}  // namespace

std::string ToShellString(const bson_t* doc) {
  std::string out;
  AppendContainer(&out, bson_get_data(doc), doc->len, /*is_array=*/false, /*depth=*/0);
  return out;
}

std::string ToShellString(const bson_iter_t* value) {
  std::string out;
  AppendValue(&out, value, /*depth=*/0);
  return out;
}

}  // namespace tigerdoc::bson
