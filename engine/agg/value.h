#pragma once
// Value: one owned aggregation value -- any BSON value, or "missing" (the
// value of a field path that names nothing, which MongoDB keeps distinct
// from null: {$eq: ["$nope", null]} is false, and a computed field whose
// value is missing is not written at all).
//
// Documents and arrays are held as their BSON bytes; Value::Document /
// Value::Array build them, Elements()/Fields() read them back. Comparison is
// MongoDB's BSON order (engine/bson/compare.h) with missing sorting with
// undefined, below null.
//
// Thread-safety: a value; concurrent const access is safe.

#include <bson/bson.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/bson/bson_doc.h"
#include "engine/bson/collator.h"

namespace tigerdoc::agg {

class Value {
 public:
  Value() = default;  // missing
  explicit Value(const bson_value_t* v);
  explicit Value(const bson_iter_t* it);
  ~Value();
  Value(const Value& other);
  Value& operator=(const Value& other);
  Value(Value&& other) noexcept;
  Value& operator=(Value&& other) noexcept;

  static Value Missing() { return Value(); }
  static Value Null();
  static Value Undefined();
  static Value Int(int32_t v);
  static Value Long(int64_t v);
  static Value Double(double v);
  static Value Decimal(const bson_decimal128_t& v);
  static Value Bool(bool v);
  static Value String(std::string_view s);
  static Value Date(int64_t millis);
  static Value Oid(const bson_oid_t& oid);
  static Value Timestamp(uint32_t t, uint32_t i);
  static Value Regex(std::string_view pattern, std::string_view flags);
  static Value MinKey();
  static Value MaxKey();
  static Value Document(const bson_t* doc);
  static Value Document(const bson::BsonDoc& doc) { return Document(doc.get()); }
  static Value Array(const std::vector<Value>& elements);
  // Smallest integral type holding `v` (int when it fits, else long).
  static Value IntegralLong(int64_t v);

  bool missing() const { return missing_; }
  // Null, undefined or missing: what most operators treat as "no value".
  bool nullish() const {
    return missing_ || v_.value_type == BSON_TYPE_NULL || v_.value_type == BSON_TYPE_UNDEFINED;
  }
  // REQUIRES for get(): !missing().
  const bson_value_t* get() const { return &v_; }
  bson_type_t type() const { return missing_ ? BSON_TYPE_EOD : v_.value_type; }
  bool numeric() const;
  bool is_string() const { return type() == BSON_TYPE_UTF8; }
  bool is_document() const { return type() == BSON_TYPE_DOCUMENT; }
  bool is_array() const { return type() == BSON_TYPE_ARRAY; }

  // MongoDB's coerceToBool: false for null/undefined/missing/false/0/NaN-free
  // zero of any numeric type; true for everything else (strings, arrays, ...).
  bool Truthy() const;

  // Accessors. REQUIRES: the matching type.
  std::string_view str() const { return {v_.value.v_utf8.str, v_.value.v_utf8.len}; }
  bool boolean() const { return v_.value.v_bool; }
  int64_t date() const { return v_.value.v_datetime; }
  // A read-only view of a document or array value; valid while *this lives.
  bson_t View() const;
  std::vector<Value> Elements() const;                             // array elements
  std::vector<std::pair<std::string, Value>> Fields() const;       // document fields
  // Copies a document value out. REQUIRES: is_document().
  bson::BsonDoc ToDoc() const;

  // Numbers. REQUIRES: numeric().
  double AsDouble() const;
  bson_decimal128_t AsDecimal() const;  // doubles rounded to 34 digits
  // True when the number is integral and fits in int64 (then sets *out).
  bool AsInt64Exact(int64_t* out) const;

  // Appends as `key` to `out`; a missing value appends nothing.
  void AppendTo(bson_t* out, std::string_view key) const;

  // MongoDB's type names ("double", "string", "object", "array", ...,
  // "missing").
  std::string TypeName() const;
  // Shell form for error messages (1, "x", { a: 1 }); "missing" for missing.
  std::string ToString() const;
  // Order-preserving bytes: equal values (1 and 1.0) give equal keys.
  // Missing encodes like undefined.
  std::string Key(const bson::Collator* collator = nullptr) const;

 private:
  bool missing_ = true;
  bson_value_t v_{};
};

// Approximate bytes a value holds (memory accounting of blocking stages).
size_t ValueBytes(const Value& v);

// BSON order, missing == undefined < null. <0, 0, >0.
int Compare(const Value& a, const Value& b, const bson::Collator* collator = nullptr);
inline bool Equal(const Value& a, const Value& b, const bson::Collator* collator = nullptr) {
  return Compare(a, b, collator) == 0;
}

std::string TypeNameOf(bson_type_t type);

// The value at a dotted path of `doc` with aggregation semantics ($a.b):
// an array on the path maps the rest of the path over its elements (giving
// an array of the values found, missing ones skipped); a scalar on the path
// gives missing. `start` is the first component to use.
Value GetPath(const Value& root, const std::vector<std::string>& parts, size_t start = 0);

// Builds a document from fields in order (missing values are skipped).
Value MakeDocument(const std::vector<std::pair<std::string, Value>>& fields);

}  // namespace tigerdoc::agg
