#include "engine/bson/compare.h"

#include <cmath>
#include <cstring>

#include "engine/base/invariant.h"
#include "engine/bson/exact_number.h"

namespace tigerdoc::bson {
namespace {

int Sign(int64_t v) { return v < 0 ? -1 : (v > 0 ? 1 : 0); }

template <typename T>
int Cmp(T a, T b) {
  return a < b ? -1 : (a > b ? 1 : 0);
}

// Exact int64 vs double (never through a lossy conversion: 2^63 - 1 and
// 9223372036854775807.0 differ). REQUIRES: `d` is not NaN.
int CompareInt64ToDouble(int64_t l, double d) {
  constexpr double kTwoTo63 = 9223372036854775808.0;
  if (d >= kTwoTo63) return -1;
  if (d < -kTwoTo63) return 1;
  // floor(d) is in [-2^63, 2^63) and so converts to int64 exactly.
  double floor_d = std::floor(d);
  auto t = static_cast<int64_t>(floor_d);
  if (l != t) return Cmp(l, t);
  return d > floor_d ? -1 : 0;
}

int CompareDoubles(double a, double b) {
  // NaN == NaN and below every number; -0 == 0 falls out of operator<.
  bool a_nan = std::isnan(a);
  bool b_nan = std::isnan(b);
  if (a_nan || b_nan) return a_nan == b_nan ? 0 : (a_nan ? -1 : 1);
  return Cmp(a, b);
}

int CompareNumbers(const bson_value_t* a, const bson_value_t* b) {
  const bson_type_t ta = a->value_type;
  const bson_type_t tb = b->value_type;
  if (ta == BSON_TYPE_DECIMAL128 || tb == BSON_TYPE_DECIMAL128) {
    return CompareExact(ExactFromValue(a), ExactFromValue(b));
  }
  auto as_int = [](const bson_value_t* v) -> int64_t {
    return v->value_type == BSON_TYPE_INT32 ? v->value.v_int32 : v->value.v_int64;
  };
  if (ta != BSON_TYPE_DOUBLE && tb != BSON_TYPE_DOUBLE) return Cmp(as_int(a), as_int(b));
  if (ta == BSON_TYPE_DOUBLE && tb == BSON_TYPE_DOUBLE) {
    return CompareDoubles(a->value.v_double, b->value.v_double);
  }
  if (ta == BSON_TYPE_DOUBLE) {
    if (std::isnan(a->value.v_double)) return -1;
    return -CompareInt64ToDouble(as_int(b), a->value.v_double);
  }
  if (std::isnan(b->value.v_double)) return 1;
  return CompareInt64ToDouble(as_int(a), b->value.v_double);
}

// Byte-wise, the shorter of two equal prefixes first (MongoDB compares
// strings with memcmp over the common length, then by length).
int CompareBytes(const void* a, size_t a_len, const void* b, size_t b_len) {
  size_t common = a_len < b_len ? a_len : b_len;
  int c = common == 0 ? 0 : std::memcmp(a, b, common);
  if (c != 0) return c < 0 ? -1 : 1;
  return Cmp(a_len, b_len);
}

int CompareCStrings(const char* a, const char* b) { return Sign(std::strcmp(a, b)); }

// Walks two documents (or arrays) in step: canonical type, then (for
// documents) field name, then value; the shorter document first when one is
// a prefix of the other.
int CompareElements(const uint8_t* a_data, uint32_t a_len, const uint8_t* b_data, uint32_t b_len,
                    bool consider_field_names, const Collator* collator) {
  bson_iter_t a;
  bson_iter_t b;
  INVARIANT(bson_iter_init_from_data(&a, a_data, a_len));
  INVARIANT(bson_iter_init_from_data(&b, b_data, b_len));
  while (true) {
    bool a_more = bson_iter_next(&a);
    bool b_more = bson_iter_next(&b);
    if (!a_more || !b_more) return a_more == b_more ? 0 : (a_more ? 1 : -1);
    int c = Cmp(CanonicalTypeRank(bson_iter_type(&a)), CanonicalTypeRank(bson_iter_type(&b)));
    if (c != 0) return c;
    if (consider_field_names) {
      c = CompareCStrings(bson_iter_key(&a), bson_iter_key(&b));
      if (c != 0) return c;
    }
    c = CompareValues(&a, &b, collator);
    if (c != 0) return c;
  }
}

}  // namespace

int CanonicalTypeRank(bson_type_t type) {
  switch (type) {
    case BSON_TYPE_MINKEY:
      return -1;
    case BSON_TYPE_EOD:
    case BSON_TYPE_UNDEFINED:
      return 0;
    case BSON_TYPE_NULL:
      return 5;
    case BSON_TYPE_DOUBLE:
    case BSON_TYPE_INT32:
    case BSON_TYPE_INT64:
    case BSON_TYPE_DECIMAL128:
      return 10;
    case BSON_TYPE_UTF8:
    case BSON_TYPE_SYMBOL:
      return 15;
    case BSON_TYPE_DOCUMENT:
      return 20;
    case BSON_TYPE_ARRAY:
      return 25;
    case BSON_TYPE_BINARY:
      return 30;
    case BSON_TYPE_OID:
      return 35;
    case BSON_TYPE_BOOL:
      return 40;
    case BSON_TYPE_DATE_TIME:
      return 45;
    case BSON_TYPE_TIMESTAMP:
      return 47;
    case BSON_TYPE_REGEX:
      return 50;
    case BSON_TYPE_DBPOINTER:
      return 55;
    case BSON_TYPE_CODE:
      return 60;
    case BSON_TYPE_CODEWSCOPE:
      return 65;
    case BSON_TYPE_MAXKEY:
      return 127;
  }
  // Unknown type bytes are rejected by bson_validate before we get here.
  INVARIANT(false && "unknown BSON type");
  return 0;
}

int CompareValues(const bson_iter_t* a, const bson_iter_t* b, const Collator* collator) {
  // bson_iter_value() fills the iterator's scratch value, so work on copies
  // (the value's pointers still point into the original documents).
  bson_iter_t a_copy = *a;
  bson_iter_t b_copy = *b;
  return CompareValues(bson_iter_value(&a_copy), bson_iter_value(&b_copy), collator);
}

int CompareValues(const bson_value_t* a, const bson_value_t* b, const Collator* collator) {
  const int rank_a = CanonicalTypeRank(a->value_type);
  const int rank_b = CanonicalTypeRank(b->value_type);
  if (rank_a != rank_b) return rank_a < rank_b ? -1 : 1;

  const auto& va = a->value;
  const auto& vb = b->value;
  switch (a->value_type) {
    case BSON_TYPE_EOD:
    case BSON_TYPE_UNDEFINED:
    case BSON_TYPE_NULL:
    case BSON_TYPE_MINKEY:
    case BSON_TYPE_MAXKEY:
      return 0;
    case BSON_TYPE_DOUBLE:
    case BSON_TYPE_INT32:
    case BSON_TYPE_INT64:
    case BSON_TYPE_DECIMAL128:
      return CompareNumbers(a, b);
    case BSON_TYPE_UTF8:
    case BSON_TYPE_SYMBOL: {
      // String and symbol share a rank and compare as strings.
      auto text = [](const bson_value_t* v, size_t* len) -> const char* {
        if (v->value_type == BSON_TYPE_SYMBOL) {
          *len = v->value.v_symbol.len;
          return v->value.v_symbol.symbol;
        }
        *len = v->value.v_utf8.len;
        return v->value.v_utf8.str;
      };
      size_t a_len = 0;
      size_t b_len = 0;
      const char* a_text = text(a, &a_len);
      const char* b_text = text(b, &b_len);
      if (collator != nullptr) {
        return collator->Compare(std::string_view(a_text, a_len), std::string_view(b_text, b_len));
      }
      return CompareBytes(a_text, a_len, b_text, b_len);
    }
    case BSON_TYPE_DOCUMENT:
      return CompareElements(va.v_doc.data, va.v_doc.data_len, vb.v_doc.data, vb.v_doc.data_len,
                             /*consider_field_names=*/true, collator);
    case BSON_TYPE_ARRAY:
      return CompareElements(va.v_doc.data, va.v_doc.data_len, vb.v_doc.data, vb.v_doc.data_len,
                             /*consider_field_names=*/false, collator);
    case BSON_TYPE_BINARY: {
      // Length first, then subtype, then bytes.
      int c = Cmp(va.v_binary.data_len, vb.v_binary.data_len);
      if (c != 0) return c;
      c = Cmp(static_cast<int>(va.v_binary.subtype), static_cast<int>(vb.v_binary.subtype));
      if (c != 0) return c;
      return CompareBytes(va.v_binary.data, va.v_binary.data_len, vb.v_binary.data,
                          vb.v_binary.data_len);
    }
    case BSON_TYPE_OID:
      return Sign(bson_oid_compare(&va.v_oid, &vb.v_oid));
    case BSON_TYPE_BOOL:
      return Cmp(static_cast<int>(va.v_bool), static_cast<int>(vb.v_bool));
    case BSON_TYPE_DATE_TIME:
      return Cmp(va.v_datetime, vb.v_datetime);
    case BSON_TYPE_TIMESTAMP: {
      // Unsigned: seconds, then increment.
      int c = Cmp(va.v_timestamp.timestamp, vb.v_timestamp.timestamp);
      return c != 0 ? c : Cmp(va.v_timestamp.increment, vb.v_timestamp.increment);
    }
    case BSON_TYPE_REGEX: {
      int c = CompareCStrings(va.v_regex.regex, vb.v_regex.regex);
      return c != 0 ? c : CompareCStrings(va.v_regex.options, vb.v_regex.options);
    }
    case BSON_TYPE_DBPOINTER: {
      // MongoDB orders DBPointers by namespace length, then namespace bytes,
      // then ObjectId.
      int c = Cmp(va.v_dbpointer.collection_len, vb.v_dbpointer.collection_len);
      if (c != 0) return c;
      c = CompareBytes(va.v_dbpointer.collection, va.v_dbpointer.collection_len,
                       vb.v_dbpointer.collection, vb.v_dbpointer.collection_len);
      return c != 0 ? c : Sign(bson_oid_compare(&va.v_dbpointer.oid, &vb.v_dbpointer.oid));
    }
    case BSON_TYPE_CODE:
      return CompareBytes(va.v_code.code, va.v_code.code_len, vb.v_code.code, vb.v_code.code_len);
    case BSON_TYPE_CODEWSCOPE: {
      int c = CompareBytes(va.v_codewscope.code, va.v_codewscope.code_len, vb.v_codewscope.code,
                           vb.v_codewscope.code_len);
      if (c != 0) return c;
      return CompareElements(va.v_codewscope.scope_data, va.v_codewscope.scope_len,
                             vb.v_codewscope.scope_data, vb.v_codewscope.scope_len,
                             /*consider_field_names=*/true, /*collator=*/nullptr);
    }
  }
  INVARIANT(false && "unknown BSON type");
  return 0;
}

int CompareDocuments(const bson_t* a, const bson_t* b, const Collator* collator) {
  return CompareElements(bson_get_data(a), a->len, bson_get_data(b), b->len,
                         /*consider_field_names=*/true, collator);
}

}  // namespace tigerdoc::bson
