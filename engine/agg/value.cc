#include "engine/agg/value.h"

#include "engine/bson/type_name.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "engine/bson/compare.h"
#include "engine/bson/shell_string.h"
#include "engine/keystring/key_string.h"

namespace tigerdoc::agg {

Value::Value(const bson_value_t* v) : missing_(false) { bson_value_copy(v, &v_); }

Value::Value(const bson_iter_t* it) : Value(bson_iter_value(const_cast<bson_iter_t*>(it))) {}

Value::~Value() {
  if (!missing_) bson_value_destroy(&v_);
}

Value::Value(const Value& other) : missing_(other.missing_) {
  if (!missing_) bson_value_copy(&other.v_, &v_);
}

Value& Value::operator=(const Value& other) {
  if (this == &other) return *this;
  if (!missing_) bson_value_destroy(&v_);
  missing_ = other.missing_;
  if (!missing_) bson_value_copy(&other.v_, &v_);
  return *this;
}

Value::Value(Value&& other) noexcept : missing_(other.missing_), v_(other.v_) {
  other.missing_ = true;
}

Value& Value::operator=(Value&& other) noexcept {
  if (this == &other) return *this;
  if (!missing_) bson_value_destroy(&v_);
  missing_ = other.missing_;
  v_ = other.v_;
  other.missing_ = true;
  return *this;
}

namespace {
// A value of `type` with `payload` (a bson_value_t's union, designated by
// member), deep-copied: pointers in the payload may point at temporaries.
Value Make(bson_type_t type, decltype(bson_value_t::value) payload = {}) {
  bson_value_t v{};
  v.value_type = type;
  v.value = payload;
  return Value(&v);
}
}  // namespace

Value Value::Null() { return Make(BSON_TYPE_NULL); }
Value Value::Undefined() { return Make(BSON_TYPE_UNDEFINED); }
Value Value::MinKey() { return Make(BSON_TYPE_MINKEY); }
Value Value::MaxKey() { return Make(BSON_TYPE_MAXKEY); }
Value Value::Int(int32_t i) { return Make(BSON_TYPE_INT32, {.v_int32 = i}); }
Value Value::Long(int64_t i) { return Make(BSON_TYPE_INT64, {.v_int64 = i}); }
Value Value::IntegralLong(int64_t i) {
  if (i >= std::numeric_limits<int32_t>::min() && i <= std::numeric_limits<int32_t>::max()) {
    return Int(static_cast<int32_t>(i));
  }
  return Long(i);
}
Value Value::Double(double d) { return Make(BSON_TYPE_DOUBLE, {.v_double = d}); }
Value Value::Decimal(const bson_decimal128_t& d) {
  return Make(BSON_TYPE_DECIMAL128, {.v_decimal128 = d});
}
Value Value::Bool(bool b) { return Make(BSON_TYPE_BOOL, {.v_bool = b}); }
Value Value::Date(int64_t millis) { return Make(BSON_TYPE_DATE_TIME, {.v_datetime = millis}); }
Value Value::Oid(const bson_oid_t& oid) { return Make(BSON_TYPE_OID, {.v_oid = oid}); }
Value Value::Timestamp(uint32_t t, uint32_t i) {
  return Make(BSON_TYPE_TIMESTAMP, {.v_timestamp = {t, i}});
}
Value Value::String(std::string_view s) {
  // bson_value_copy copies `len` bytes plus a terminator from the source, so
  // hand it a terminated buffer.
  std::string owned(s);
  return Make(BSON_TYPE_UTF8, {.v_utf8 = {owned.data(), static_cast<uint32_t>(owned.size())}});
}
Value Value::Regex(std::string_view pattern, std::string_view flags) {
  std::string p(pattern), f(flags);
  return Make(BSON_TYPE_REGEX, {.v_regex = {p.data(), f.data()}});
}
Value Value::Document(const bson_t* doc) {
  return Make(BSON_TYPE_DOCUMENT,
              {.v_doc = {const_cast<uint8_t*>(bson_get_data(doc)), doc->len}});
}
Value Value::Array(const std::vector<Value>& elements) {
  bson_t arr;
  bson_init(&arr);
  char buf[16];
  for (size_t i = 0; i < elements.size(); ++i) {
    const char* key;
    bson_uint32_to_string(static_cast<uint32_t>(i), &key, buf, sizeof(buf));
    if (elements[i].missing()) {
      // An array cannot hold "missing"; MongoDB stores such holes as null.
      bson_append_null(&arr, key, -1);
    } else {
      bson_append_value(&arr, key, -1, elements[i].get());
    }
  }
  Value out =
      Make(BSON_TYPE_ARRAY, {.v_doc = {const_cast<uint8_t*>(bson_get_data(&arr)), arr.len}});
  bson_destroy(&arr);
  return out;
}

bool Value::numeric() const {
  switch (type()) {
    case BSON_TYPE_INT32:
    case BSON_TYPE_INT64:
    case BSON_TYPE_DOUBLE:
    case BSON_TYPE_DECIMAL128: return true;
    default: return false;
  }
}

bool Value::Truthy() const {
  switch (type()) {
    case BSON_TYPE_EOD:
    case BSON_TYPE_NULL:
    case BSON_TYPE_UNDEFINED: return false;
    case BSON_TYPE_BOOL: return v_.value.v_bool;
    case BSON_TYPE_INT32: return v_.value.v_int32 != 0;
    case BSON_TYPE_INT64: return v_.value.v_int64 != 0;
    case BSON_TYPE_DOUBLE: return v_.value.v_double != 0;
    case BSON_TYPE_DECIMAL128: {
      char buf[BSON_DECIMAL128_STRING];
      bson_decimal128_to_string(&v_.value.v_decimal128, buf);
      // Zero in any exponent: only '0', '.', sign and exponent characters
      // before the exponent marker.
      for (const char* p = buf; *p && *p != 'E'; ++p) {
        if (*p >= '1' && *p <= '9') return true;
        if (*p == 'N' || *p == 'I') return true;  // NaN, Infinity
      }
      return false;
    }
    default: return true;
  }
}

bson_t Value::View() const {
  bson_t view;
  bson_init_static(&view, v_.value.v_doc.data, v_.value.v_doc.data_len);
  return view;
}

std::vector<Value> Value::Elements() const {
  std::vector<Value> out;
  bson_t view = View();
  bson_iter_t it;
  bson_iter_init(&it, &view);
  while (bson_iter_next(&it)) out.emplace_back(&it);
  return out;
}

std::vector<std::pair<std::string, Value>> Value::Fields() const {
  std::vector<std::pair<std::string, Value>> out;
  bson_t view = View();
  bson_iter_t it;
  bson_iter_init(&it, &view);
  while (bson_iter_next(&it)) {
    out.emplace_back(std::string(bson_iter_key(&it), bson_iter_key_len(&it)), Value(&it));
  }
  return out;
}

bson::BsonDoc Value::ToDoc() const {
  return bson::BsonDoc::CopyOf(v_.value.v_doc.data, v_.value.v_doc.data_len);
}

double Value::AsDouble() const {
  switch (v_.value_type) {
    case BSON_TYPE_INT32: return v_.value.v_int32;
    case BSON_TYPE_INT64: return static_cast<double>(v_.value.v_int64);
    case BSON_TYPE_DOUBLE: return v_.value.v_double;
    case BSON_TYPE_DECIMAL128: {
      char buf[BSON_DECIMAL128_STRING];
      bson_decimal128_to_string(&v_.value.v_decimal128, buf);
      if (std::strcmp(buf, "NaN") == 0) return std::nan("");
      if (std::strcmp(buf, "Infinity") == 0) return HUGE_VAL;
      if (std::strcmp(buf, "-Infinity") == 0) return -HUGE_VAL;
      return std::strtod(buf, nullptr);
    }
    default: return 0;
  }
}

bson_decimal128_t Value::AsDecimal() const {
  bson_decimal128_t out;
  char buf[64];
  switch (v_.value_type) {
    case BSON_TYPE_INT32: std::snprintf(buf, sizeof(buf), "%d", v_.value.v_int32); break;
    case BSON_TYPE_INT64:
      std::snprintf(buf, sizeof(buf), "%lld", static_cast<long long>(v_.value.v_int64));
      break;
    case BSON_TYPE_DOUBLE: {
      double d = v_.value.v_double;
      if (std::isnan(d)) {
        std::snprintf(buf, sizeof(buf), "NaN");
      } else if (std::isinf(d)) {
        std::snprintf(buf, sizeof(buf), d > 0 ? "Infinity" : "-Infinity");
      } else {
        std::snprintf(buf, sizeof(buf), "%.33e", d);
      }
      break;
    }
    case BSON_TYPE_DECIMAL128: return v_.value.v_decimal128;
    default: std::snprintf(buf, sizeof(buf), "0"); break;
  }
  bson_decimal128_from_string(buf, &out);
  return out;
}

bool Value::AsInt64Exact(int64_t* out) const {
  switch (type()) {
    case BSON_TYPE_INT32: *out = v_.value.v_int32; return true;
    case BSON_TYPE_INT64: *out = v_.value.v_int64; return true;
    case BSON_TYPE_DOUBLE:
    case BSON_TYPE_DECIMAL128: {
      double d = AsDouble();
      if (!std::isfinite(d) || d != std::trunc(d)) return false;
      if (d < -9223372036854775808.0 || d >= 9223372036854775808.0) return false;
      *out = static_cast<int64_t>(d);
      return true;
    }
    default: return false;
  }
}

void Value::AppendTo(bson_t* out, std::string_view key) const {
  if (missing_) return;
  bson_append_value(out, key.data(), static_cast<int>(key.size()), &v_);
}

std::string TypeNameOf(bson_type_t type) { return bson::TypeName(type); }

std::string Value::TypeName() const { return TypeNameOf(type()); }

std::string Value::ToString() const {
  if (missing_) return "missing";
  bson_t doc;
  bson_init(&doc);
  bson_append_value(&doc, "v", 1, &v_);
  bson_iter_t it;
  bson_iter_init_find(&it, &doc, "v");
  std::string s = bson::ToShellString(&it);
  bson_destroy(&doc);
  return s;
}

std::string Value::Key(const bson::Collator* collator) const {
  if (missing_) {
    bson_value_t u{};
    u.value_type = BSON_TYPE_UNDEFINED;
    return keystring::Encode(&u);
  }
  return keystring::Encode(&v_, collator);
}

int Compare(const Value& a, const Value& b, const bson::Collator* collator) {
  if (a.missing() || b.missing()) {
    // Missing ranks with undefined (MongoDB's canonical type 0), below null.
    bson_value_t u{};
    u.value_type = BSON_TYPE_UNDEFINED;
    const bson_value_t* av = a.missing() ? &u : a.get();
    const bson_value_t* bv = b.missing() ? &u : b.get();
    return bson::CompareValues(av, bv, collator);
  }
  return bson::CompareValues(a.get(), b.get(), collator);
}

Value GetPath(const Value& root, const std::vector<std::string>& parts, size_t start) {
  if (start == parts.size()) return root;
  if (root.is_document()) {
    bson_t view = root.View();
    bson_iter_t it;
    if (!bson_iter_init_find_w_len(&it, &view, parts[start].data(),
                                   static_cast<int>(parts[start].size()))) {
      return Value::Missing();
    }
    return GetPath(Value(&it), parts, start + 1);
  }
  if (root.is_array()) {
    std::vector<Value> out;
    for (const Value& e : root.Elements()) {
      // Nested arrays are skipped, as MongoDB's evaluatePathArray does.
      if (!e.is_document()) continue;
      Value sub = GetPath(e, parts, start);
      if (!sub.missing()) out.push_back(std::move(sub));
    }
    return Value::Array(out);
  }
  return Value::Missing();
}

Value MakeDocument(const std::vector<std::pair<std::string, Value>>& fields) {
  bson_t doc;
  bson_init(&doc);
  for (const auto& [name, v] : fields) v.AppendTo(&doc, name);
  Value out = Value::Document(&doc);
  bson_destroy(&doc);
  return out;
}

size_t ValueBytes(const Value& v) {
  if (v.missing()) return 0;
  switch (v.type()) {
    case BSON_TYPE_UTF8: return sizeof(Value) + v.str().size();
    case BSON_TYPE_DOCUMENT:
    case BSON_TYPE_ARRAY: return sizeof(Value) + v.get()->value.v_doc.data_len;
    default: return sizeof(Value);
  }
}

}  // namespace tigerdoc::agg
