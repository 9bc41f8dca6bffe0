#pragma once
// OpenInMemoryStorage: a fresh in-memory WiredTiger (64 MiB cache) for the
// storage unit tests, which each opened one with the same six lines;
// OpenStorageAt the same over files in a directory, for tests of what
// survives a restart.

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "engine/storage/storage_engine.h"

namespace tigerdoc::storage {

// In memory when `dbpath` is empty. Fails the calling test (and returns
// null) when WiredTiger does not open.
inline std::unique_ptr<StorageEngine> OpenStorageAt(const std::string& dbpath) {
  StorageOptions options;
  options.in_memory = dbpath.empty();
  options.dbpath = dbpath;
  options.cache_size_mb = 64;
  auto engine = StorageEngine::Open(options);
  EXPECT_TRUE(engine.ok()) << engine.status().ToString();
  if (!engine.ok()) return nullptr;
  return std::move(engine).value();
}

inline std::unique_ptr<StorageEngine> OpenInMemoryStorage() { return OpenStorageAt(""); }

}  // namespace tigerdoc::storage
