#pragma once
// OpenInMemoryEngine: a fresh Engine over in-memory WiredTiger (64 MiB
// cache) for the engine unit tests, which each opened one with the same
// seven lines. The TTL monitor thread stays idle (tests that need a pass
// call DeleteExpiredDocuments themselves); a test that needs another option
// (a blocking-sort limit, patterns) changes InMemoryEngineOptions() and
// passes the result.

#include <gtest/gtest.h>

#include <chrono>
#include <memory>

#include "engine/engine.h"

namespace tigerdoc::engine {

inline EngineOptions InMemoryEngineOptions() {
  EngineOptions options;
  options.storage.in_memory = true;
  options.storage.cache_size_mb = 64;
  options.ttl_monitor_sleep = std::chrono::seconds(0);
  return options;
}

// Fails the calling test (and returns null) when the engine does not open.
inline std::unique_ptr<Engine> OpenInMemoryEngine(
    const EngineOptions& options = InMemoryEngineOptions()) {
  auto engine = Engine::Open(options);
  EXPECT_TRUE(engine.ok()) << engine.status().ToString();
  if (!engine.ok()) return nullptr;
  return std::move(engine).value();
}

}  // namespace tigerdoc::engine
