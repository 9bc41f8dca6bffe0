#include "engine/base/status.h"

namespace tigerdoc {

Status::Status(ErrorCode code, std::string reason)
    : Status(code, std::move(reason), std::string()) {}

Status::Status(ErrorCode code, std::string reason, std::string extra_bson) {
  INVARIANT(code != ErrorCode::kOK);
  state_ = std::make_shared<const State>(State{code, std::move(reason), std::move(extra_bson)});
}

const std::string& Status::reason() const {
  static const std::string kEmpty;
  return state_ ? state_->reason : kEmpty;
}

const std::string& Status::extra_bson() const {
  static const std::string kEmpty;
  return state_ ? state_->extra_bson : kEmpty;
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  return std::string(ErrorCodeName(code())) + ": " + reason();
}

Status Status::WithContext(const std::string& prefix) const {
  if (ok()) return *this;
  return Status(code(), prefix + reason(), extra_bson());
}

}  // namespace tigerdoc
