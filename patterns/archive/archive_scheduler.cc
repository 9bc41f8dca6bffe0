#include "patterns/archive/archive_scheduler.h"

#include <cstdio>

#include "engine/archive/archive_spec.h"
#include "engine/operation_registry.h"
#include "patterns/archive/archive_pattern.h"

namespace tigerdoc::patterns::archive {

void ArchiveScheduler::Start() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (thread_.joinable()) return;
  stopping_ = false;
  thread_ = std::thread([this] { Loop(); });
}

void ArchiveScheduler::Stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wakeup_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void ArchiveScheduler::Loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    if (wakeup_.wait_for(lock, tick_, [&] { return stopping_; })) break;
    lock.unlock();
    RunDueMoves();
    lock.lock();
  }
}

void ArchiveScheduler::RunDueMoves() {
  const auto now = std::chrono::steady_clock::now();
  for (const std::shared_ptr<catalog::CollectionEntry>& coll : engine_->catalog().List("")) {
    std::shared_ptr<const catalog::PatternState> state = coll->patterns();
    if (state == nullptr) continue;
    bson_iter_t it;
    if (!bson_iter_init_find(&it, state->configs.get(), kOption) || !BSON_ITER_HOLDS_DOCUMENT(&it)) {
      continue;
    }
    bson_t config = bson::SubDocumentView(&it);
    StatusWith<engine::ArchiveSpec> spec = engine::ParseArchiveSpec(
        &config, engine::ArchiveForm::kOption, kOption, coll->metadata.db, coll->metadata.name);
    if (!spec.ok()) continue;  // Attach refused it: never stored
    // A changed option starts its own schedule.
    char* json = bson_as_relaxed_extended_json(&config, nullptr);
    const std::string key = coll->metadata.ns + " " + json;
    bson_free(json);
    // A schedule seen for the first time (server start, a new option) runs
    // now: a server restarted more often than `every` must still archive.
    auto [last, first_seen] = last_run_.emplace(key, now);
    if (!first_seen && now - last->second < std::chrono::seconds(spec.value().every_seconds)) continue;
    last->second = now;

    // What currentOp shows: {archive: <coll>, <the option's fields>}.
    bson::BsonDoc command;
    BSON_APPEND_UTF8(command.mutable_get(), "archive", coll->metadata.name.c_str());
    bson_concat(command.mutable_get(), &config);
    engine::OperationInfo info;
    info.ns = coll->metadata.ns;
    info.command = command.get();
    info.desc = "ArchiveMonitor";
    engine::ScopedOperation op(engine_->operations(), std::move(info));
    StatusWith<engine::ArchiveResult> moved = engine_->Archive(spec.value(), &op.operation());
    if (!moved.ok()) {
      std::fprintf(stderr, "archive monitor: %s: %s\n", coll->metadata.ns.c_str(),
                   moved.status().ToString().c_str());
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (stopping_) return;
    }
  }
}

}  // namespace tigerdoc::patterns::archive
