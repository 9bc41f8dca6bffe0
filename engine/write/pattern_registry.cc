#include "engine/write/pattern_registry.h"

#include "engine/base/invariant.h"

namespace tigerdoc::engine {

void PatternRegistry::Add(std::unique_ptr<Pattern> pattern) {
  INVARIANT(ByName(pattern->name()) == nullptr);
  for (const std::string& option : pattern->option_names()) INVARIANT(!IsOption(option));
  patterns_.push_back(std::move(pattern));
}

const Pattern* PatternRegistry::ByName(std::string_view name) const {
  for (const auto& p : patterns_) {
    if (p->name() == name) return p.get();
  }
  return nullptr;
}

const Pattern* PatternRegistry::ForOption(std::string_view option) const {
  for (const auto& p : patterns_) {
    for (const std::string& o : p->option_names()) {
      if (o == option) return p.get();
    }
  }
  return nullptr;
}

const Pattern* PatternRegistry::ForCommand(std::string_view command) const {
  for (const auto& p : patterns_) {
    for (const std::string& c : p->command_names()) {
      if (c == command) return p.get();
    }
  }
  return nullptr;
}

std::vector<std::shared_ptr<PatternHook>> PatternRegistry::GuardsFor(
    const catalog::CollectionEntry& coll) const {
  std::vector<std::shared_ptr<PatternHook>> out;
  for (const auto& p : patterns_) {
    if (std::shared_ptr<PatternHook> guard = p->GuardFor(coll)) out.push_back(std::move(guard));
  }
  return out;
}

StatusWith<bson::BsonDoc> PatternRegistry::Configure(std::string_view command,
                                                     const bson_t* fields,
                                                     const bson_t* previous) const {
  bson::BsonDoc out;
  // Registry order keeps the document stable whatever order options came in.
  for (const auto& pattern : patterns_) {
    bson::BsonDoc given;
    bson_iter_t it;
    bson_iter_init(&it, fields);
    while (bson_iter_next(&it)) {
      if (ForOption(bson_iter_key(&it)) != pattern.get()) continue;
      bson_append_iter(given.mutable_get(), bson_iter_key(&it), -1, &it);
    }
    bson::BsonDoc old;
    bson_iter_t prev;
    const std::string name(pattern->name());
    if (previous && bson_iter_init_find(&prev, previous, name.c_str()) &&
        BSON_ITER_HOLDS_DOCUMENT(&prev)) {
      uint32_t len = 0;
      const uint8_t* data = nullptr;
      bson_iter_document(&prev, &len, &data);
      old = bson::BsonDoc::CopyOf(data, len);
    }
    bson::BsonDoc config;
    if (given.empty()) {
      config = std::move(old);
    } else {
      ASSIGN_OR_RETURN(config, pattern->Configure(command, given.get(), old.get()));
    }
    if (!config.empty()) BSON_APPEND_DOCUMENT(out.mutable_get(), name.c_str(), config.get());
  }
  return out;
}

}  // namespace tigerdoc::engine
