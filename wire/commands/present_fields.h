#pragma once
// PresentFields: the top-level fields of a command (names and where they
// sit), collected in one pass. A parser with many optional fields hands it
// to the getters of command_args.h instead of the body: each getter given
// the body scans the whole command (a find with two options paid twenty
// such scans, about a tenth of the server's CPU per find by _id, YCSB C in
// bench/README.md), given this it looks through a dozen names.
//
// The first occurrence of a name wins, as bson_iter_find's does.
// Lifetime: holds views into `body`, which must outlive it.
// Thread-safety: immutable after construction.

#include <bson/bson.h>

#include <boost/container/small_vector.hpp>

#include <cstdint>
#include <string_view>

#include "engine/bson/raw_fields.h"

namespace tigerdoc::wire {

class PresentFields {
 public:
  struct Field {
    std::string_view name;
    uint32_t offset;  // of the element's type byte
  };

  explicit PresentFields(const bson_t* body) : data_(bson_get_data(body)), len_(body->len) {
    bson::RawFields fields(body);
    while (fields.Next()) fields_.push_back({fields.key(), fields.offset()});
    if (!fields.broken()) return;
    fields_.clear();  // an element left to libbson: its iteration decides
    bson_iter_t it;
    if (!bson_iter_init(&it, body)) return;
    while (bson_iter_next(&it)) {
      fields_.push_back({{bson_iter_key(&it), bson_iter_key_len(&it)}, bson_iter_offset(&it)});
    }
  }
  // Commands hold a dozen fields at most: a linear look is the fastest.
  bool has(std::string_view field) const { return Lookup(field) != nullptr; }
  // Positions *it on `field` as bson_iter_init_find would; false if absent.
  bool Find(std::string_view field, bson_iter_t* it) const {
    const Field* found = Lookup(field);
    if (found == nullptr) return false;
    return bson_iter_init_from_data_at_offset(it, data_, len_, found->offset,
                                              static_cast<uint32_t>(found->name.size()));
  }
  // In the command's order, the command name first.
  const auto& fields() const { return fields_; }

 private:
  const Field* Lookup(std::string_view field) const {
    for (const Field& f : fields_) {
      if (f.name == field) return &f;
    }
    return nullptr;
  }

  const uint8_t* data_;
  size_t len_;
  // Inline room for a command's usual dozen fields: no malloc per request.
  boost::container::small_vector<Field, 16> fields_;
};

}  // namespace tigerdoc::wire
