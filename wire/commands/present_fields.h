#pragma once
// PresentFields: the top-level field names of a command, collected in one
// pass. A parser with many optional fields asks has() before each getter
// of command_args.h: every getter scans the whole command
// (bson_iter_find), and a find with two options paid twenty such scans,
// about a tenth of the server's CPU per find by _id (YCSB C, bench/README.md).
//
// Lifetime: holds views into `body`, which must outlive it.
// Thread-safety: immutable after construction.

#include <bson/bson.h>

#include <boost/container/small_vector.hpp>

#include <string_view>
#include <vector>

#include "engine/bson/raw_fields.h"

namespace tigerdoc::wire {

class PresentFields {
 public:
  explicit PresentFields(const bson_t* body) {
    bson::RawFields fields(body);
    while (fields.Next()) names_.push_back(fields.key());
    if (!fields.broken()) return;
    names_.clear();  // left to libbson's iteration
    bson_iter_t it;
    if (!bson_iter_init(&it, body)) return;
    while (bson_iter_next(&it)) names_.emplace_back(bson_iter_key(&it), bson_iter_key_len(&it));
  }
  // Commands hold a dozen fields at most: a linear look is the fastest.
  bool has(std::string_view field) const {
    for (std::string_view name : names_) {
      if (name == field) return true;
    }
    return false;
  }

 private:
  // Inline room for a command's usual dozen fields: no malloc per request.
  boost::container::small_vector<std::string_view, 16> names_;
};

}  // namespace tigerdoc::wire
