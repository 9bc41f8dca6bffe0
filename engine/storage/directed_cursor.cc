// DirectedCursor: the forward half is storage::Cursor; the backward half
// steps a scan cursor of the session's cache with StepWithinRange, the
// range logic Cursor uses.

#include "engine/storage/directed_cursor.h"

#include <wiredtiger.h>

#include "engine/storage/range_step.h"
#include "engine/storage/wt_error.h"
#include "engine/storage/wt_session_state.h"

namespace tigerdoc::storage {

StatusWith<DirectedCursor> DirectedCursor::Open(Session& session, std::string_view table,
                                                std::string_view lower, std::string_view upper,
                                                ScanDirection direction) {
  DirectedCursor out;
  if (direction == ScanDirection::kForward) {
    ASSIGN_OR_RETURN(Cursor cursor, session.Scan(table, lower, upper));
    out.forward_.emplace(std::move(cursor));
    return out;
  }
  const std::string uri = "table:" + std::string(table);
  int ret = 0;
  out.backward_ = WtSessionState::Of(session.raw())->TakeScanCursor(session.raw(), uri, &ret);
  if (out.backward_ == nullptr) return WtToStatus(ret, "open cursor on " + uri);
  out.lower_ = std::string(lower);
  out.upper_ = std::string(upper);
  return out;
}

DirectedCursor::~DirectedCursor() {
  if (backward_ == nullptr) return;
  backward_->reset(backward_);
  WtSessionState::Of(backward_->session)->ReturnScanCursor(backward_);
}

DirectedCursor::DirectedCursor(DirectedCursor&& other) noexcept
    : forward_(std::move(other.forward_)),
      backward_(other.backward_),
      lower_(std::move(other.lower_)),
      upper_(std::move(other.upper_)),
      positioned_(other.positioned_),
      exhausted_(other.exhausted_),
      key_(other.key_),
      value_(other.value_) {
  other.backward_ = nullptr;
  other.forward_.reset();
}

bool DirectedCursor::Next(Status* status) {
  if (forward_) return forward_->Next(status);
  return NextBackward(status);
}

std::string_view DirectedCursor::key() const { return forward_ ? forward_->key() : key_; }
std::string_view DirectedCursor::value() const { return forward_ ? forward_->value() : value_; }

bool DirectedCursor::NextBackward(Status* status) {
  return StepWithinRange(backward_, ScanDirection::kBackward, lower_, upper_, &positioned_,
                         &exhausted_, &key_, &value_, status);
}

}  // namespace tigerdoc::storage
