#pragma once
// ItemList: owned copies of the values of a BSON array (the items an
// outlier keeps embedded or in overflow chunks), in order.
//
// Thread-safety: none (a value type).

#include <bson/bson.h>

#include <cstddef>
#include <string_view>
#include <vector>

namespace tigerdoc::patterns::outlier {

class ItemList {
 public:
  ItemList() = default;
  ~ItemList();
  ItemList(ItemList&& other) noexcept : items_(std::move(other.items_)) { other.items_.clear(); }
  ItemList& operator=(ItemList&& other) noexcept;
  ItemList(const ItemList&) = delete;
  ItemList& operator=(const ItemList&) = delete;

  // The elements of the array `array_it` points at.
  // REQUIRES: BSON_ITER_HOLDS_ARRAY(array_it).
  static ItemList OfArray(const bson_iter_t* array_it);

  size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  const bson_value_t* at(size_t i) const { return &items_[i]; }

  void Append(const bson_value_t* value);
  // Appends items [begin, end) of `other`.
  void AppendRange(const ItemList& other, size_t begin, size_t end);
  // True when an item equals `value` (BSON comparison, as $addToSet).
  bool Contains(const bson_value_t* value) const;

  // Appends items [begin, end) as an array field `key` of `parent`.
  void AppendArray(bson_t* parent, std::string_view key, size_t begin, size_t end) const;

 private:
  std::vector<bson_value_t> items_;
};

}  // namespace tigerdoc::patterns::outlier
