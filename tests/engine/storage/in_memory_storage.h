#pragma once
// OpenInMemoryStorage: a fresh in-memory WiredTiger (64 MiB cache) for the
// storage unit tests, which each opened one with the same six lines.

#include <gtest/gtest.h>

#include <memory>

#include "engine/storage/storage_engine.h"

namespace tigerdoc::storage {

// Fails the calling test (and returns null) when WiredTiger does not open.
inline std::unique_ptr<StorageEngine> OpenInMemoryStorage() {
  StorageOptions options;
  options.in_memory = true;
  options.cache_size_mb = 64;
  auto engine = StorageEngine::Open(options);
  EXPECT_TRUE(engine.ok()) << engine.status().ToString();
  if (!engine.ok()) return nullptr;
  return std::move(engine).value();
}

}  // namespace tigerdoc::storage
