#include "engine/progress_meter.h"

#include <algorithm>

#include "engine/bson/bson_doc.h"
#include "engine/log/log.h"
#include "engine/operation_registry.h"

namespace tigerdoc::engine {
ProgressMeter::ProgressMeter(std::string name, std::string ns, int64_t total,
                             std::chrono::milliseconds log_interval)
    : name_(std::move(name)), ns_(std::move(ns)), total_(std::max<int64_t>(total, 0)),
      operation_(CurrentOperation()), log_interval_(log_interval),
      last_logged_(std::chrono::steady_clock::now()) {
  if (operation_ != nullptr) operation_->ReportProgress(name_, done_, total_);
}

void ProgressMeter::Add(int64_t n) {
  done_ += n;
  total_ = std::max(total_, done_);
  Show();
}

void ProgressMeter::Finish() { Show(); }

void ProgressMeter::Show() {
  if (operation_ != nullptr) operation_->ReportProgress(name_, done_, total_);
  const auto now = std::chrono::steady_clock::now();
  if (now - last_logged_ < log_interval_) return;
  last_logged_ = now;
  bson::BsonDoc attr;
  BSON_APPEND_UTF8(attr.mutable_get(), "name", name_.c_str());
  BSON_APPEND_UTF8(attr.mutable_get(), "namespace", ns_.c_str());
  BSON_APPEND_INT64(attr.mutable_get(), "done", done_);
  BSON_APPEND_INT64(attr.mutable_get(), "total", total_);
  BSON_APPEND_INT64(attr.mutable_get(), "percent", total_ > 0 ? done_ * 100 / total_ : 100);
  log::Write(log::Severity::kInfo, "-", 51773, "progress meter", attr.get());
}

}  // namespace tigerdoc::engine
