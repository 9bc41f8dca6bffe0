#pragma once
// OwnedValue: a deep, owning copy of one BSON value (bson_value_t), so parsed
// query and update trees do not point into the caller's buffers.
//
// Thread-safety: a value; concurrent const access is safe.

#include <bson/bson.h>

#include <utility>

namespace tigerdoc::query {

class OwnedValue {
 public:
  OwnedValue() { value_.value_type = BSON_TYPE_NULL; }
  explicit OwnedValue(const bson_value_t* value) { bson_value_copy(value, &value_); }
  explicit OwnedValue(const bson_iter_t* it) : OwnedValue(bson_iter_value(const_cast<bson_iter_t*>(it))) {}
  ~OwnedValue() { bson_value_destroy(&value_); }
  OwnedValue(const OwnedValue& other) { bson_value_copy(&other.value_, &value_); }
  OwnedValue& operator=(const OwnedValue& other) {
    if (this != &other) {
      bson_value_destroy(&value_);
      bson_value_copy(&other.value_, &value_);
    }
    return *this;
  }
  OwnedValue(OwnedValue&& other) noexcept : value_(other.value_) {
    other.value_.value_type = BSON_TYPE_NULL;
  }
  OwnedValue& operator=(OwnedValue&& other) noexcept {
    if (this != &other) {
      bson_value_destroy(&value_);
      value_ = other.value_;
      other.value_.value_type = BSON_TYPE_NULL;
    }
    return *this;
  }

  const bson_value_t* get() const { return &value_; }
  bson_type_t type() const { return value_.value_type; }

 private:
  bson_value_t value_;
};

}  // namespace tigerdoc::query
