#pragma once
// OpenCatalog: the catalog over a storage engine the test opened (see
// tests/engine/storage/in_memory_storage.h), for the catalog unit tests,
// which each opened one with the same lines.

#include <gtest/gtest.h>

#include <memory>

#include "engine/catalog/catalog.h"

namespace tigerdoc::catalog {

// Fails the calling test (and returns null) when the catalog does not open.
inline std::unique_ptr<Catalog> OpenCatalog(storage::StorageEngine* engine) {
  auto catalog = Catalog::Open(engine);
  EXPECT_TRUE(catalog.ok()) << catalog.status().ToString();
  if (!catalog.ok()) return nullptr;
  return std::move(catalog).value();
}

}  // namespace tigerdoc::catalog
