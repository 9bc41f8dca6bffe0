#pragma once
// MutableValue: a small mutable BSON tree for applying updates. A document
// is parsed into nodes once, modified in place, and serialized back with
// field order preserved (new fields go where the update puts them).
//
//   {a: 1, b: {c: [2, 3]}}
//
//   Document ─┬─ "a" Scalar 1
//             └─ "b" Document ── "c" Array ─┬─ Scalar 2
//                                           └─ Scalar 3
//
// Array children keep placeholder names; serialization renumbers them.
// Ownership: every node owns its children and its scalar's bytes.
// Thread-safety: a value; no sharing.

#include <bson/bson.h>

#include <string>
#include <string_view>
#include <vector>

#include "engine/bson/bson_doc.h"
#include "engine/query/owned_value.h"

namespace tigerdoc::update {

struct MutableField;

class MutableValue {
 public:
  enum class Kind { kScalar, kDocument, kArray };

  MutableValue();  // null
  explicit MutableValue(query::OwnedValue scalar);
  static MutableValue FromIter(const bson_iter_t* it);
  static MutableValue FromValue(const bson_value_t* value);
  static MutableValue FromDocument(const bson_t* doc);
  static MutableValue EmptyDocument();
  static MutableValue EmptyArray();
  static MutableValue Null();

  MutableValue(MutableValue&&) noexcept;
  MutableValue& operator=(MutableValue&&) noexcept;
  MutableValue(const MutableValue&);
  MutableValue& operator=(const MutableValue&);
  ~MutableValue();

  Kind kind() const { return kind_; }
  bool is_container() const { return kind_ != Kind::kScalar; }
  bson_type_t type() const;
  // REQUIRES: kind() == kScalar.
  const bson_value_t* scalar() const { return scalar_.get(); }

  // Children of a document or array.
  std::vector<MutableField>& fields() { return fields_; }
  const std::vector<MutableField>& fields() const { return fields_; }

  // The child named `name` (documents), or at index `name` (arrays, where
  // `name` must be all digits); nullptr when absent.
  MutableValue* Find(std::string_view name);
  const MutableValue* Find(std::string_view name) const;
  // Removes a document field. Returns false when absent.
  bool Remove(std::string_view name);

  // Appends this value as field `key` of `out`.
  void AppendTo(bson_t* out, std::string_view key) const;
  // REQUIRES: kind() == kDocument.
  bson::BsonDoc ToDocument() const;

  // Same type and same bytes (field names included): MongoDB's
  // binaryEqualValues, used to detect no-op updates.
  bool BinaryEquals(const MutableValue& other) const;

  // MongoDB's shell rendering of this value, for error messages.
  std::string ToShellString() const;

 private:
  Kind kind_;
  query::OwnedValue scalar_;
  std::vector<MutableField> fields_;
};

struct MutableField {
  std::string name;
  MutableValue value;
};

// Compares two values in BSON order (bson::CompareValues: canonical type,
// then value; field names of embedded documents count, the values' own
// names do not). Returns <0, 0, >0.
int CompareValues(const MutableValue& a, const MutableValue& b);

// "{name: <value>}" the way MongoDB prints an element in update errors
// ("{a: 5}", "{_id: ObjectId('...')}").
std::string ElementToString(std::string_view name, const MutableValue& value);

}  // namespace tigerdoc::update
