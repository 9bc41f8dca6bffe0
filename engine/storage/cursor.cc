// Cursor: forward iteration over [lower, upper) of one table (the steps are
// StepWithinRange's).

#include <wiredtiger.h>

#include "engine/storage/range_step.h"
#include "engine/storage/storage_engine.h"
#include "engine/storage/wt_session_state.h"

namespace tigerdoc::storage {

Cursor::~Cursor() {
  if (cursor_ == nullptr) return;
  cursor_->reset(cursor_);
  WtSessionState::Of(cursor_->session)->ReturnScanCursor(cursor_);
}

Cursor::Cursor(Cursor&& other) noexcept
    : cursor_(other.cursor_),
      upper_(std::move(other.upper_)),
      lower_(std::move(other.lower_)),
      positioned_(other.positioned_),
      exhausted_(other.exhausted_),
      key_(other.key_),
      value_(other.value_) {
  other.cursor_ = nullptr;
}

bool Cursor::Next(Status* status) {
  return StepWithinRange(cursor_, ScanDirection::kForward, lower_, upper_, &positioned_,
                         &exhausted_, &key_, &value_, status);
}

}  // namespace tigerdoc::storage
