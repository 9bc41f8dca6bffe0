#pragma once
// Array keys in BSON must be "0", "1", ... in order. libbson does not check
// it, and JSON printing hides it (arrays print their values only), so a
// writer that numbers keys wrongly passes every JSON comparison. This finds
// such an array.

#include <bson/bson.h>

#include <string>

namespace tigerdoc::testutil {

// The dotted path of the first array (at any depth of `doc`) whose keys are
// not "0", "1", ... in order, with the offending key; empty when there is none.
inline std::string FirstMisnumberedArray(const bson_t* doc, const std::string& path = "") {
  bson_iter_t it;
  if (!bson_iter_init(&it, doc)) return path + " (not BSON)";
  while (bson_iter_next(&it)) {
    if (!BSON_ITER_HOLDS_DOCUMENT(&it) && !BSON_ITER_HOLDS_ARRAY(&it)) continue;
    const std::string here = path.empty() ? bson_iter_key(&it) : path + "." + bson_iter_key(&it);
    uint32_t len = 0;
    const uint8_t* data = nullptr;
    if (BSON_ITER_HOLDS_ARRAY(&it)) {
      bson_iter_array(&it, &len, &data);
    } else {
      bson_iter_document(&it, &len, &data);
    }
    bson_t child;
    if (!bson_init_static(&child, data, len)) return here + " (not BSON)";
    if (BSON_ITER_HOLDS_ARRAY(&it)) {
      bson_iter_t element;
      bson_iter_init(&element, &child);
      for (int i = 0; bson_iter_next(&element); ++i) {
        if (std::to_string(i) != bson_iter_key(&element)) {
          return here + " has key \"" + bson_iter_key(&element) + "\" at position " +
                 std::to_string(i);
        }
      }
    }
    std::string inner = FirstMisnumberedArray(&child, here);
    if (!inner.empty()) return inner;
  }
  return "";
}

}  // namespace tigerdoc::testutil
