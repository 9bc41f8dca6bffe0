#pragma once
// The engine the pattern unit tests run on: in memory, no TTL sleeps, with
// the given patterns registered as wire/main.cc registers them; and a
// `create` in database "db" with options given as JSON.

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "engine/write/pattern_registry.h"
#include "tests/engine/in_memory_engine.h"

namespace tigerdoc::patterns::pattern_testing {

inline std::unique_ptr<engine::Engine> OpenEngineWith(
    std::vector<std::unique_ptr<engine::Pattern>> patterns, int cache_size_mb = 64) {
  auto registry = std::make_shared<engine::PatternRegistry>();
  for (auto& pattern : patterns) registry->Add(std::move(pattern));
  engine::EngineOptions options = engine::InMemoryEngineOptions();
  options.storage.cache_size_mb = cache_size_mb;
  options.patterns = registry;
  return engine::OpenInMemoryEngine(options);
}

// One pattern, the common case.
inline std::unique_ptr<engine::Engine> OpenEngineWith(std::unique_ptr<engine::Pattern> pattern,
                                                      int cache_size_mb = 64) {
  std::vector<std::unique_ptr<engine::Pattern>> patterns;
  patterns.push_back(std::move(pattern));
  return OpenEngineWith(std::move(patterns), cache_size_mb);
}

inline engine::CreateParams CreateIn(const std::string& name, const std::string& options_json) {
  engine::CreateParams create;
  create.db = "db";
  create.name = name;
  create.options = bson::BsonDoc::FromJson(options_json);
  return create;
}

}  // namespace tigerdoc::patterns::pattern_testing
