// StepWithinRange: search_near on the near bound for the first step, then
// next() or prev(); the far bound is checked on every key.

#include "engine/storage/range_step.h"

#include <wiredtiger.h>

#include <cstring>
#include <string>

#include "engine/storage/wt_error.h"

namespace tigerdoc::storage {

bool StepWithinRange(__wt_cursor* cursor, ScanDirection direction, std::string_view lower,
                     std::string_view upper, bool* positioned, bool* exhausted,
                     std::string_view* key, std::string_view* value, Status* status) {
  *status = Status::OK();
  if (*exhausted) return false;
  const bool forward = direction == ScanDirection::kForward;
  auto step = [&] { return forward ? cursor->next(cursor) : cursor->prev(cursor); };
  auto end = [&] {
    *exhausted = true;
    *key = *value = {};
    return false;
  };
  int ret = 0;
  if (*positioned) {
    ret = step();
  } else {
    *positioned = true;
    const std::string_view start = forward ? lower : upper;
    if (start.empty()) {
      ret = step();
    } else {
      WT_ITEM k;
      std::memset(&k, 0, sizeof(k));
      k.data = start.data();
      k.size = start.size();
      cursor->set_key(cursor, &k);
      int exact = 0;
      ret = cursor->search_near(cursor, &exact);
      // search_near lands on the nearest key on either side. The lower bound
      // is inclusive: a forward scan steps on only from a key below it. The
      // upper bound is exclusive: a backward scan steps back from it or from
      // a key above it.
      if (ret == 0 && (forward ? exact < 0 : exact >= 0)) ret = step();
    }
  }
  if (ret == WT_NOTFOUND) return end();
  WT_ITEM k, v;
  if (ret == 0) ret = cursor->get_key(cursor, &k);
  if (ret == 0) ret = cursor->get_value(cursor, &v);
  if (ret != 0) {
    *status = WtToStatus(ret, std::string("scan of ") + cursor->uri);
    return end();
  }
  *key = std::string_view(static_cast<const char*>(k.data), k.size);
  *value = std::string_view(static_cast<const char*>(v.data), v.size);
  // Past the far bound: at or above `upper` going forward, below `lower`
  // going backward.
  const bool past = forward ? !upper.empty() && *key >= upper : !lower.empty() && *key < lower;
  if (past) return end();
  return true;
}

}  // namespace tigerdoc::storage
