// DirectedCursor: the backward half positions with search_near on the upper
// bound and steps with prev(); the forward half is storage::Cursor.

#include "engine/storage/directed_cursor.h"

#include <wiredtiger.h>

#include <cstring>

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
  *status = Status::OK();
  if (exhausted_) return false;
  int ret = 0;
  if (!positioned_) {
    positioned_ = true;
    if (upper_.empty()) {
      ret = backward_->prev(backward_);
    } else {
      WT_ITEM k;
      std::memset(&k, 0, sizeof(k));
      k.data = upper_.data();
      k.size = upper_.size();
      backward_->set_key(backward_, &k);
      int exact = 0;
      ret = backward_->search_near(backward_, &exact);
      // The upper bound is exclusive: step back from it or from a key above.
      if (ret == 0 && exact >= 0) ret = backward_->prev(backward_);
    }
  } else {
    ret = backward_->prev(backward_);
  }
  if (ret == WT_NOTFOUND) {
    exhausted_ = true;
    key_ = value_ = {};
    return false;
  }
  WT_ITEM k, v;
  if (ret == 0) ret = backward_->get_key(backward_, &k);
  if (ret == 0) ret = backward_->get_value(backward_, &v);
  if (ret != 0) {
    *status = WtToStatus(ret, std::string("scan of ") + backward_->uri);
    exhausted_ = true;
    key_ = value_ = {};
    return false;
  }
  key_ = std::string_view(static_cast<const char*>(k.data), k.size);
  value_ = std::string_view(static_cast<const char*>(v.data), v.size);
  if (!lower_.empty() && key_ < std::string_view(lower_)) {
    exhausted_ = true;
    key_ = value_ = {};
    return false;
  }
  return true;
}

}  // namespace tigerdoc::storage
