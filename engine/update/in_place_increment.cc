#include "engine/update/in_place_increment.h"

#include <cstring>

#include "engine/update/arithmetic.h"
#include "engine/update/top_level_fields.h"

namespace tigerdoc::update {
namespace {

// Few fields per update: a fixed array keeps Apply off the heap.
constexpr size_t kMaxFields = kMaxInPlaceFields;

bool FixedWidthNumber(bson_type_t type) {
  return type == BSON_TYPE_INT32 || type == BSON_TYPE_INT64 || type == BSON_TYPE_DOUBLE;
}

// The number stored at `value` (little-endian, as BSON stores it).
bson_value_t ReadNumber(bson_type_t type, const uint8_t* value) {
  bson_value_t v;
  v.value_type = type;
  if (type == BSON_TYPE_INT32) {
    int32_t n;
    std::memcpy(&n, value, sizeof n);
    v.value.v_int32 = BSON_UINT32_FROM_LE(n);
  } else if (type == BSON_TYPE_INT64) {
    int64_t n;
    std::memcpy(&n, value, sizeof n);
    v.value.v_int64 = BSON_UINT64_FROM_LE(n);
  } else {
    double d;
    std::memcpy(&d, value, sizeof d);
    v.value.v_double = BSON_DOUBLE_FROM_LE(d);
  }
  return v;
}

void WriteNumber(const bson_value_t& v, uint8_t* value) {
  if (v.value_type == BSON_TYPE_INT32) {
    const int32_t n = BSON_UINT32_TO_LE(v.value.v_int32);
    std::memcpy(value, &n, sizeof n);
  } else if (v.value_type == BSON_TYPE_INT64) {
    const int64_t n = BSON_UINT64_TO_LE(v.value.v_int64);
    std::memcpy(value, &n, sizeof n);
  } else {
    const double d = BSON_DOUBLE_TO_LE(v.value.v_double);
    std::memcpy(value, &d, sizeof d);
  }
}

}  // namespace

std::optional<InPlaceIncrement> InPlaceIncrement::Plan(const bson_t* update) {
  bson_iter_t it, field;
  if (!bson_iter_init(&it, update) || !bson_iter_next(&it) || std::strcmp(bson_iter_key(&it), "$inc") != 0 ||
      !BSON_ITER_HOLDS_DOCUMENT(&it) || !bson_iter_recurse(&it, &field)) {
    return std::nullopt;
  }
  if (bson_iter_next(&it)) return std::nullopt;  // another modifier too
  InPlaceIncrement plan;
  while (bson_iter_next(&field)) {
    const char* name = bson_iter_key(&field);
    if (name[0] == '\0' || name[0] == '$' || std::strchr(name, '.') != nullptr ||
        std::strcmp(name, "_id") == 0 || !FixedWidthNumber(bson_iter_type(&field)) ||
        plan.fields_.size() == kMaxFields) {
      return std::nullopt;
    }
    // A repeated name is a parse error (a conflict) the general path reports.
    for (const Field& earlier : plan.fields_) {
      if (earlier.name == name) return std::nullopt;
    }
    plan.fields_.push_back(Field{name, query::OwnedValue(&field)});
  }
  if (plan.fields_.empty()) return std::nullopt;
  return plan;
}

bool InPlaceIncrement::Apply(const bson_t* doc, bson::BsonDoc* out, bool* modified) const {
  std::string_view names[kMaxFields];
  for (size_t i = 0; i < fields_.size(); ++i) names[i] = fields_[i].name;
  FieldSpan spans[kMaxFields];
  if (!LocateTopLevelFields(doc, names, fields_.size(), spans)) return false;
  bson_value_t sums[kMaxFields];
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (!spans[i].found() || !FixedWidthNumber(spans[i].type)) return false;
    const bson_value_t old = ReadNumber(spans[i].type, bson_get_data(doc) + spans[i].value);
    std::optional<query::OwnedValue> sum = ApplyArithmetic(ArithmeticOp::kAdd, &old, fields_[i].increment.get());
    if (!sum || sum->get()->value_type != spans[i].type) return false;  // overflow or promotion
    sums[i] = *sum->get();
  }
  uint8_t* data = ResetToBytes(out, doc->len);
  std::memcpy(data, bson_get_data(doc), doc->len);
  for (size_t i = 0; i < fields_.size(); ++i) WriteNumber(sums[i], data + spans[i].value);
  *modified = std::memcmp(bson_get_data(doc), out->data(), doc->len) != 0;
  return true;
}

}  // namespace tigerdoc::update
