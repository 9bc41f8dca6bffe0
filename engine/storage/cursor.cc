// Cursor: forward iteration over [lower, upper) of one table.

#include <wiredtiger.h>

#include <cstring>

#include "engine/storage/storage_engine.h"
#include "engine/storage/wt_error.h"
#include "engine/storage/wt_session_state.h"

namespace tigerdoc::storage {

namespace {

// memcmp order with a shorter key before its extensions: WiredTiger's
// default collation for key_format=u.
bool KeyBelow(std::string_view key, std::string_view bound) { return key < bound; }

}  // namespace

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
  *status = Status::OK();
  if (exhausted_) return false;
  int ret = 0;
  if (!positioned_) {
    positioned_ = true;
    if (lower_.empty()) {
      ret = cursor_->next(cursor_);
    } else {
      WT_ITEM k;
      std::memset(&k, 0, sizeof(k));
      k.data = lower_.data();
      k.size = lower_.size();
      cursor_->set_key(cursor_, &k);
      int exact = 0;
      ret = cursor_->search_near(cursor_, &exact);
      // search_near lands on the nearest key on either side; step forward
      // when it is below the lower bound.
      if (ret == 0 && exact < 0) ret = cursor_->next(cursor_);
    }
  } else {
    ret = cursor_->next(cursor_);
  }
  if (ret == WT_NOTFOUND) {
    exhausted_ = true;
    key_ = value_ = {};
    return false;
  }
  WT_ITEM k, v;
  if (ret == 0) ret = cursor_->get_key(cursor_, &k);
  if (ret == 0) ret = cursor_->get_value(cursor_, &v);
  if (ret != 0) {
    *status = WtToStatus(ret, std::string("scan of ") + cursor_->uri);
    exhausted_ = true;
    key_ = value_ = {};
    return false;
  }
  key_ = std::string_view(static_cast<const char*>(k.data), k.size);
  value_ = std::string_view(static_cast<const char*>(v.data), v.size);
  if (!upper_.empty() && !KeyBelow(key_, upper_)) {
    exhausted_ = true;
    key_ = value_ = {};
    return false;
  }
  return true;
}

}  // namespace tigerdoc::storage
