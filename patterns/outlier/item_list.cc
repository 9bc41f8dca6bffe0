#include "patterns/outlier/item_list.h"

#include <string>

#include "engine/bson/compare.h"

namespace tigerdoc::patterns::outlier {

ItemList::~ItemList() {
  for (bson_value_t& value : items_) bson_value_destroy(&value);
}

ItemList& ItemList::operator=(ItemList&& other) noexcept {
  if (this != &other) {
    for (bson_value_t& value : items_) bson_value_destroy(&value);
    items_ = std::move(other.items_);
    other.items_.clear();
  }
  return *this;
}

ItemList ItemList::OfArray(const bson_iter_t* array_it) {
  ItemList out;
  bson_iter_t child;
  if (!bson_iter_recurse(array_it, &child)) return out;
  while (bson_iter_next(&child)) out.Append(bson_iter_value(&child));
  return out;
}

void ItemList::Append(const bson_value_t* value) {
  bson_value_t copy;
  bson_value_copy(value, &copy);
  items_.push_back(copy);
}

void ItemList::AppendRange(const ItemList& other, size_t begin, size_t end) {
  for (size_t i = begin; i < end && i < other.size(); ++i) Append(other.at(i));
}

bool ItemList::Contains(const bson_value_t* value) const {
  for (const bson_value_t& item : items_) {
    if (bson::ValuesEqual(&item, value)) return true;
  }
  return false;
}

void ItemList::AppendArray(bson_t* parent, std::string_view key, size_t begin, size_t end) const {
  bson_t array;
  bson_append_array_begin(parent, key.data(), static_cast<int>(key.size()), &array);
  char buf[16];
  for (size_t i = begin, n = 0; i < end && i < items_.size(); ++i, ++n) {
    const char* index = nullptr;
    const size_t len = bson_uint32_to_string(static_cast<uint32_t>(n), &index, buf, sizeof(buf));
    bson_append_value(&array, index, static_cast<int>(len), &items_[i]);
  }
  bson_append_array_end(parent, &array);
}

}  // namespace tigerdoc::patterns::outlier
