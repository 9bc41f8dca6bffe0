#pragma once
// StepWithinRange: one step of a scan over the key range [lower, upper) of a
// raw WiredTiger scan cursor, in either direction. The one place that
// positions on the near bound and stops at the far one, for Cursor (always
// forward) and DirectedCursor (either way).
//
// Forward: ascending from the first key >= `lower` (the table's first key
// when `lower` is empty) up to, not including, `upper` (the end of the table
// when empty). Backward: descending from the last key < `upper` (the table's
// last key when empty) down to, and including, `lower`. Keys compare as
// bytes (memcmp, a shorter key before its extensions), WiredTiger's order for
// key_format=u. lower >= upper (both set) is an empty range either way.
//
// Internal to engine/storage.

#include <string_view>

#include "engine/base/status.h"
#include "engine/storage/directed_cursor.h"

struct __wt_cursor;

namespace tigerdoc::storage {

// Advances `cursor` to the next key of the range in `direction` and sets
// *key/*value (views into the cursor's memory, valid until the next step).
// *positioned and *exhausted are the scan's state, kept by its owner and
// false before the first step: WiredTiger cursors wrap around after the end,
// a scan does not. False at the end of the range and on every later call
// (key/value then empty); an error is returned through *status (OK at a
// clean end) and also ends the scan.
bool StepWithinRange(__wt_cursor* cursor, ScanDirection direction, std::string_view lower,
                     std::string_view upper, bool* positioned, bool* exhausted,
                     std::string_view* key, std::string_view* value, Status* status);

}  // namespace tigerdoc::storage
