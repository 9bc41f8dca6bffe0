// KeyString byte grammar (on-disk format, version 1).
//
// A key is a concatenation of components. A component is the ascending
// encoding of one value, or, for a descending component, the same bytes each
// XORed with 0xFF. Every encoding is prefix-free (no encoding is a proper
// prefix of another), so the first differing byte of two keys always lies
// inside the first differing component, and inverting a component's bytes
// reverses its order without disturbing the components around it.
//
//   value        := type body
//   type (1 byte, ordered like MongoDB's canonical type ranks):
//     0x0A MinKey        body empty
//     0x14 undefined     body empty
//     0x18 null          body empty (a missing field encodes as null)
//     0x1E number        number          int32, int64, double, decimal128
//     0x28 string        escaped         string and symbol
//     0x32 object        fields
//     0x3C array         elements
//     0x46 binData       u32 length, u8 subtype, length bytes
//     0x50 objectId      12 bytes
//     0x5A bool          0x00 false | 0x01 true
//     0x64 date          i64 milliseconds, big-endian, sign bit flipped
//     0x6E timestamp     u32 seconds, u32 increment
//     0x78 regex         escaped pattern, escaped flags
//     0x82 dbPointer     u32 namespace length, namespace bytes, 12-byte oid
//     0x8C code          escaped
//     0x96 codeWScope    escaped code, fields (the scope)
//     0xF0 MaxKey        body empty
//   fields       := (type escaped-field-name body)* 0x04
//   elements     := (type body)* 0x04           (array indexes are not encoded)
//   escaped      := (0x00 0xFF | any byte but 0x00)* 0x00 0x00
//   Under a collation (KeyBuilder with a bson::Collator: indexes with a
//   `collation`, sorts and group keys of collated operations) the body of
//   a string or symbol, also inside objects and arrays (field names stay
//   as they are), is instead
//   collated     := collation-key 0x00 0x00
//   where collation-key is the collator's sort key (ICU's ucol sort key
//   without its trailing 0x00; it holds no 0x00 byte). Such keys compare
//   as the collation orders strings; the string itself cannot be read back.
//   integers (u32, i64) are big-endian.
//
//   number       := 0x08                        NaN (every NaN)
//                 | 0x10                        -Infinity
//                 | 0x18 ~(exponent digits)     negative (bytes inverted)
//                 | 0x20                        zero (0 and -0 of every type)
//                 | 0x28 exponent digits        positive
//                 | 0x30                        +Infinity
//   A finite non-zero number is encoded from its exact decimal value
//   (engine/bson/exact_number.h): |v| = 0.d1 d2 ... dn * 10^(E+1), d1 != 0,
//   dn != 0.
//   exponent     := u16 big-endian E + 0x8000
//   digits       := nibbles d1+1, d2+1, ..., dn+1, 0, then a 0 nibble to fill
//                   the last byte when needed
//   So 1, 1L, 1.0 and decimal 1.00 all encode as 1E 28 80 00 20.
//
// Why this works: type bytes order the canonical types and the 0x04 end of a
// document sorts before any element, so a prefix sorts first; an escaped
// string ends in 0x00 0x00, below any content byte or escaped 0x00 0xFF, so
// byte order is memcmp-then-length order; numbers are exact (every int64,
// double and decimal128 has a finite decimal expansion), so equal values of
// different types encode identically and unequal ones never collide; a
// larger exponent means a larger magnitude, and for equal exponents the
// digit nibbles compare like the fractions they spell, with the terminator
// nibble below every digit. Negatives invert magnitude bytes so that a larger
// magnitude sorts first. Doubles need up to 767 significant digits for an
// exact expansion, so their keys can be long (0.1 is ~33 bytes); ints and
// short decimal fractions are 5-8 bytes.

#include "engine/keystring/key_string.h"

#include <charconv>

#include <cstdint>
#include <cstring>

#include "engine/base/invariant.h"
#include "engine/bson/compare.h"
#include "engine/bson/exact_number.h"

namespace tigerdoc::keystring {
namespace {

using bson::ExactNumber;

constexpr char kEnd = 0x04;

constexpr uint8_t kNumberNaN = 0x08;
constexpr uint8_t kNumberNegInfinity = 0x10;
constexpr uint8_t kNumberNegative = 0x18;
constexpr uint8_t kNumberZero = 0x20;
constexpr uint8_t kNumberPositive = 0x28;
constexpr uint8_t kNumberPosInfinity = 0x30;

uint8_t TypeByte(bson_type_t type) {
  switch (bson::CanonicalTypeRank(type)) {
    case -1:
      return 0x0A;
    case 0:
      return 0x14;
    case 5:
      return 0x18;
    case 10:
      return 0x1E;
    case 15:
      return 0x28;
    case 20:
      return 0x32;
    case 25:
      return 0x3C;
    case 30:
      return 0x46;
    case 35:
      return 0x50;
    case 40:
      return 0x5A;
    case 45:
      return 0x64;
    case 47:
      return 0x6E;
    case 50:
      return 0x78;
    case 55:
      return 0x82;
    case 60:
      return 0x8C;
    case 65:
      return 0x96;
    case 127:
      return 0xF0;
  }
  INVARIANT(false && "no KeyString type byte for this canonical rank");
  return 0;
}

void PutByte(std::string* out, uint8_t b) { out->push_back(static_cast<char>(b)); }

void PutU32(std::string* out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) PutByte(out, static_cast<uint8_t>(v >> shift));
}

void PutU64(std::string* out, uint64_t v) {
  for (int shift = 56; shift >= 0; shift -= 8) PutByte(out, static_cast<uint8_t>(v >> shift));
}

void PutEscaped(std::string* out, const char* data, size_t len) {
  for (size_t i = 0; i < len; ++i) {
    out->push_back(data[i]);
    if (data[i] == '\0') PutByte(out, 0xFF);
  }
  out->push_back('\0');
  out->push_back('\0');
}

void PutEscaped(std::string* out, const char* cstr) { PutEscaped(out, cstr, std::strlen(cstr)); }

void InvertFrom(std::string* out, size_t start) {
  for (size_t i = start; i < out->size(); ++i) (*out)[i] = static_cast<char>(~(*out)[i]);
}

// PutNumber of an int32 or int64, byte for byte, without the ExactNumber
// (a std::string of the digits, normalised by a copy): every _id of the
// usual integer kind is encoded on each insert and find by _id, and this
// was half of that (issue #18). Same layout as below: sign byte, biased
// exponent (the power of ten of the first digit), digit nibbles + 1, a 0
// nibble, padding; the magnitude inverted when negative.
void PutInteger(std::string* out, int64_t v) {
  if (v == 0) {
    PutByte(out, kNumberZero);
    return;
  }
  const bool negative = v < 0;
  // Unsigned negation, so INT64_MIN is handled.
  const uint64_t magnitude = negative ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  char digits[20];
  const char* end = std::to_chars(digits, digits + sizeof digits, magnitude).ptr;
  const int32_t exponent = static_cast<int32_t>(end - digits) - 1;
  while (end[-1] == '0') --end;  // trailing zeros are not digits (magnitude != 0)
  uint8_t bytes[3 + sizeof digits / 2 + 1];
  size_t n = 0;
  bytes[n++] = negative ? kNumberNegative : kNumberPositive;
  const auto biased = static_cast<uint16_t>(exponent + 0x8000);
  bytes[n++] = static_cast<uint8_t>(biased >> 8);
  bytes[n++] = static_cast<uint8_t>(biased);
  const char* d = digits;
  for (; end - d >= 2; d += 2) {
    bytes[n++] = static_cast<uint8_t>((d[0] - '0' + 1) << 4 | (d[1] - '0' + 1));
  }
  bytes[n++] = d != end ? static_cast<uint8_t>((d[0] - '0' + 1) << 4) : 0;
  if (negative) {
    for (size_t i = 1; i < n; ++i) bytes[i] = static_cast<uint8_t>(~bytes[i]);
  }
  out->append(reinterpret_cast<const char*>(bytes), n);
}

void PutNumber(std::string* out, const bson_value_t* value) {
  if (value->value_type == BSON_TYPE_INT32) return PutInteger(out, value->value.v_int32);
  if (value->value_type == BSON_TYPE_INT64) return PutInteger(out, value->value.v_int64);
  const ExactNumber n = bson::ExactFromValue(value);
  switch (n.kind) {
    case ExactNumber::Kind::kNaN:
      PutByte(out, kNumberNaN);
      return;
    case ExactNumber::Kind::kNegInfinity:
      PutByte(out, kNumberNegInfinity);
      return;
    case ExactNumber::Kind::kZero:
      PutByte(out, kNumberZero);
      return;
    case ExactNumber::Kind::kPosInfinity:
      PutByte(out, kNumberPosInfinity);
      return;
    case ExactNumber::Kind::kNegative:
    case ExactNumber::Kind::kPositive:
      break;
  }
  const bool negative = n.kind == ExactNumber::Kind::kNegative;
  PutByte(out, negative ? kNumberNegative : kNumberPositive);
  const size_t magnitude_start = out->size();
  const auto biased = static_cast<uint16_t>(n.exponent + 0x8000);
  PutByte(out, static_cast<uint8_t>(biased >> 8));
  PutByte(out, static_cast<uint8_t>(biased));
  // Nibbles digit+1, a 0 terminator nibble, and 0 padding to a whole byte.
  uint8_t pending = 0;
  bool have_high = false;
  for (char c : n.digits) {
    auto nibble = static_cast<uint8_t>(c - '0' + 1);
    if (have_high) {
      PutByte(out, static_cast<uint8_t>(pending | nibble));
    } else {
      pending = static_cast<uint8_t>(nibble << 4);
    }
    have_high = !have_high;
  }
  PutByte(out, have_high ? pending : 0);
  if (negative) InvertFrom(out, magnitude_start);
}

void PutValue(std::string* out, const bson_value_t* value, const bson::Collator* collator);

// A string under a collation: its collation key, escaped like any string
// (the key holds no 0x00, so escaping never changes it).
void PutCollated(std::string* out, const char* data, size_t len, const bson::Collator* collator) {
  std::string key;
  collator->AppendSortKey(std::string_view(data, len), &key);
  PutEscaped(out, key.data(), key.size());
}

// The body of a document (with field names) or array (without).
void PutContainerBody(std::string* out, const uint8_t* data, uint32_t len, bool with_names,
                      const bson::Collator* collator) {
  bson_iter_t it;
  INVARIANT(bson_iter_init_from_data(&it, data, len));
  while (bson_iter_next(&it)) {
    const bson_value_t* child = bson_iter_value(&it);
    PutByte(out, TypeByte(child->value_type));
    if (with_names) PutEscaped(out, bson_iter_key(&it), bson_iter_key_len(&it));
    PutValue(out, child, collator);
  }
  out->push_back(kEnd);
}

// Writes the body of `value` (its type byte is already written).
void PutValue(std::string* out, const bson_value_t* value, const bson::Collator* collator) {
  const auto& u = value->value;
  switch (value->value_type) {
    case BSON_TYPE_EOD:
    case BSON_TYPE_UNDEFINED:
    case BSON_TYPE_NULL:
    case BSON_TYPE_MINKEY:
    case BSON_TYPE_MAXKEY:
      return;
    case BSON_TYPE_DOUBLE:
    case BSON_TYPE_INT32:
    case BSON_TYPE_INT64:
    case BSON_TYPE_DECIMAL128:
      PutNumber(out, value);
      return;
    case BSON_TYPE_UTF8:
      if (collator != nullptr) return PutCollated(out, u.v_utf8.str, u.v_utf8.len, collator);
      PutEscaped(out, u.v_utf8.str, u.v_utf8.len);
      return;
    case BSON_TYPE_SYMBOL:
      if (collator != nullptr) return PutCollated(out, u.v_symbol.symbol, u.v_symbol.len, collator);
      PutEscaped(out, u.v_symbol.symbol, u.v_symbol.len);
      return;
    case BSON_TYPE_DOCUMENT:
      PutContainerBody(out, u.v_doc.data, u.v_doc.data_len, /*with_names=*/true, collator);
      return;
    case BSON_TYPE_ARRAY:
      PutContainerBody(out, u.v_doc.data, u.v_doc.data_len, /*with_names=*/false, collator);
      return;
    case BSON_TYPE_BINARY:
      PutU32(out, u.v_binary.data_len);
      PutByte(out, static_cast<uint8_t>(u.v_binary.subtype));
      out->append(reinterpret_cast<const char*>(u.v_binary.data), u.v_binary.data_len);
      return;
    case BSON_TYPE_OID:
      out->append(reinterpret_cast<const char*>(u.v_oid.bytes), sizeof(u.v_oid.bytes));
      return;
    case BSON_TYPE_BOOL:
      PutByte(out, u.v_bool ? 1 : 0);
      return;
    case BSON_TYPE_DATE_TIME:
      PutU64(out, static_cast<uint64_t>(u.v_datetime) ^ (uint64_t{1} << 63));
      return;
    case BSON_TYPE_TIMESTAMP:
      PutU32(out, u.v_timestamp.timestamp);
      PutU32(out, u.v_timestamp.increment);
      return;
    case BSON_TYPE_REGEX:
      PutEscaped(out, u.v_regex.regex);
      PutEscaped(out, u.v_regex.options);
      return;
    case BSON_TYPE_DBPOINTER:
      PutU32(out, u.v_dbpointer.collection_len);
      out->append(u.v_dbpointer.collection, u.v_dbpointer.collection_len);
      out->append(reinterpret_cast<const char*>(u.v_dbpointer.oid.bytes),
                  sizeof(u.v_dbpointer.oid.bytes));
      return;
    case BSON_TYPE_CODE:
      PutEscaped(out, u.v_code.code, u.v_code.code_len);
      return;
    case BSON_TYPE_CODEWSCOPE:
      PutEscaped(out, u.v_codewscope.code, u.v_codewscope.code_len);
      PutContainerBody(out, u.v_codewscope.scope_data, u.v_codewscope.scope_len,
                       /*with_names=*/true, /*collator=*/nullptr);
      return;
  }
  INVARIANT(false && "unknown BSON type");
}

}  // namespace

void KeyBuilder::Append(const bson_iter_t* it, Direction dir) {
  // bson_iter_value() writes into the iterator; use a copy.
  bson_iter_t copy = *it;
  Append(bson_iter_value(&copy), dir);
}

void KeyBuilder::Append(const bson_value_t* value, Direction dir) {
  const size_t start = bytes_.size();
  // Missing (EOD) sorts and indexes as null.
  const bson_type_t type = value->value_type == BSON_TYPE_EOD ? BSON_TYPE_NULL : value->value_type;
  PutByte(&bytes_, TypeByte(type));
  PutValue(&bytes_, value, collator_);
  if (dir == Direction::kDescending) InvertFrom(&bytes_, start);
}

void KeyBuilder::AppendNull(Direction dir) {
  bson_value_t null_value{};
  null_value.value_type = BSON_TYPE_NULL;
  Append(&null_value, dir);
}

void KeyBuilder::AppendMinKey(Direction dir) {
  bson_value_t v{};
  v.value_type = BSON_TYPE_MINKEY;
  Append(&v, dir);
}

void KeyBuilder::AppendMaxKey(Direction dir) {
  bson_value_t v{};
  v.value_type = BSON_TYPE_MAXKEY;
  Append(&v, dir);
}

std::string Encode(const bson_value_t* value, const bson::Collator* collator) {
  KeyBuilder b(collator);
  b.Append(value);
  return b.Release();
}

std::string Encode(const bson_iter_t* it, const bson::Collator* collator) {
  KeyBuilder b(collator);
  b.Append(it);
  return b.Release();
}

std::string PrefixSuccessor(std::string_view prefix) {
  std::string out(prefix);
  // Drop trailing 0xFF bytes (they cannot be incremented), then bump the last.
  while (!out.empty() && static_cast<uint8_t>(out.back()) == 0xFF) out.pop_back();
  if (!out.empty()) out.back() = static_cast<char>(static_cast<uint8_t>(out.back()) + 1);
  return out;
}

}  // namespace tigerdoc::keystring
