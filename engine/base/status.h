#pragma once
// Status and StatusWith<T>: the one error currency of tigerdoc.
//
// A Status is either OK (no allocation, a null pointer) or an error carrying
// a MongoDB ErrorCode, a message, and optionally a BSON document of extra
// fields that MongoDB puts beside the error (e.g. keyPattern/keyValue for
// DuplicateKey). Statuses are converted to wire replies in exactly one place
// (wire/reply/error_reply).
//
// Thread-safety: a Status is a value; copies share immutable state.

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>

#include "engine/base/error_codes.h"
#include "engine/base/invariant.h"

namespace tigerdoc {

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK
  Status(ErrorCode code, std::string reason);
  // `extra_bson` is a serialized BSON document whose fields are appended to
  // the error reply (after errmsg/code/codeName).
  Status(ErrorCode code, std::string reason, std::string extra_bson);

  static Status OK() { return Status(); }

  bool ok() const { return state_ == nullptr; }
  ErrorCode code() const { return state_ ? state_->code : ErrorCode::kOK; }
  int code_number() const { return static_cast<int>(code()); }
  const std::string& reason() const;
  // Serialized BSON document of extra reply fields; empty when none.
  const std::string& extra_bson() const;
  std::string ToString() const;

  // Returns a copy whose reason is `prefix + reason()`.
  Status WithContext(const std::string& prefix) const;

 private:
  struct State {
    ErrorCode code;
    std::string reason;
    std::string extra_bson;
  };
  std::shared_ptr<const State> state_;
};

template <typename T>
class [[nodiscard]] StatusWith {
 public:
  StatusWith(Status status) : status_(std::move(status)) {  // NOLINT: implicit by design
    INVARIANT(!status_.ok());
  }
  StatusWith(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  // REQUIRES: ok()
  T& value() & { INVARIANT(ok()); return *value_; }
  const T& value() const& { INVARIANT(ok()); return *value_; }
  T&& value() && { INVARIANT(ok()); return std::move(*value_); }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace tigerdoc

#define TIGERDOC_CONCAT_INNER(a, b) a##b
#define TIGERDOC_CONCAT(a, b) TIGERDOC_CONCAT_INNER(a, b)

// Returns the Status from the enclosing function when `expr` is not OK.
#define RETURN_IF_ERROR(expr)                  \
  do {                                         \
    ::tigerdoc::Status _st = (expr);           \
    if (!_st.ok()) return _st;                 \
  } while (0)

// ASSIGN_OR_RETURN(auto x, FunctionReturningStatusWith());
#define ASSIGN_OR_RETURN(lhs, expr) \
  ASSIGN_OR_RETURN_IMPL(TIGERDOC_CONCAT(_statusor_, __LINE__), lhs, expr)
#define ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                          \
  if (!tmp.ok()) return tmp.status();         \
  lhs = std::move(tmp).value()
