#pragma once
// KeyString: an order-preserving byte encoding of BSON values.
//
// memcmp() order of two encodings equals MongoDB's BSON comparison order of
// the values (engine/bson/compare.h), per component and ascending or
// descending per component. Values that compare equal (int32 1, int64 1,
// double 1.0) encode to identical bytes, so a unique index or the _id key
// treats them as one key, as MongoDB does. Encodings are self-delimiting,
// so a key made of several components (shard key ++ _id, or compound index
// fields ++ record key) can be concatenated and still compares component by
// component.
//
// The byte grammar is a compatibility promise (it is stored on disk) and is
// documented at the top of key_string.cc and in engine/README.md.
//
// Thread-safety: a KeyBuilder is a value; not shared between threads.

#include <bson/bson.h>

#include <string>
#include <string_view>

#include "engine/bson/collator.h"

namespace tigerdoc::keystring {

enum class Direction { kAscending, kDescending };

class KeyBuilder {
 public:
  // With a `collator`, strings are encoded as their collation keys (so
  // memcmp follows the collation; see the grammar); nullptr: binary.
  explicit KeyBuilder(const bson::Collator* collator = nullptr) : collator_(collator) {}

  // Appends one component: the value `it` points at.
  void Append(const bson_iter_t* it, Direction dir = Direction::kAscending);
  void Append(const bson_value_t* value, Direction dir = Direction::kAscending);
  // Appends the component for a missing field (sorts like null, encodes as null).
  void AppendNull(Direction dir = Direction::kAscending);
  // Appends the smallest / largest possible component (MinKey / MaxKey),
  // for building range bounds.
  void AppendMinKey(Direction dir = Direction::kAscending);
  void AppendMaxKey(Direction dir = Direction::kAscending);
  // Appends bytes that are already an encoding (e.g. a record key suffix).
  void AppendEncoded(std::string_view encoded) { bytes_.append(encoded); }

  const std::string& bytes() const { return bytes_; }
  std::string Release() { return std::move(bytes_); }

 private:
  const bson::Collator* collator_ = nullptr;
  std::string bytes_;
};

// Convenience: the encoding of one value, ascending.
std::string Encode(const bson_value_t* value, const bson::Collator* collator = nullptr);
std::string Encode(const bson_iter_t* it, const bson::Collator* collator = nullptr);

// Smallest string strictly greater than every string with prefix `prefix`
// (used as the exclusive upper bound of a prefix scan). Empty when none.
std::string PrefixSuccessor(std::string_view prefix);

}  // namespace tigerdoc::keystring
