// See the header.

#include "engine/catalog/options_merge.h"

namespace tigerdoc::catalog {

bson::BsonDoc MergeOptions(const bson_t* options, const bson_t* changes) {
  bson::BsonDoc merged;
  bson_iter_t it;
  bson_iter_init(&it, options);
  while (bson_iter_next(&it)) {
    bson_iter_t changed;
    if (bson_iter_init_find(&changed, changes, bson_iter_key(&it))) {
      bson_append_iter(merged.mutable_get(), bson_iter_key(&it), -1, &changed);
    } else {
      bson_append_iter(merged.mutable_get(), bson_iter_key(&it), -1, &it);
    }
  }
  bson_iter_init(&it, changes);
  while (bson_iter_next(&it)) {
    bson_iter_t present;
    if (!bson_iter_init_find(&present, options, bson_iter_key(&it))) {
      bson_append_iter(merged.mutable_get(), bson_iter_key(&it), -1, &it);
    }
  }
  return merged;
}

}  // namespace tigerdoc::catalog
