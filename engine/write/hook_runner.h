#pragma once
// HookRunner: a collection's hooks in config order, run by CollectionWriter
// (hooks.h has the contract). It is the catalog's PatternAttachment of the
// collection: built by AttachHooks from the canonical configs, replaced
// whole by collMod.
//
// A config naming a pattern this server does not have (a data directory
// written by a build with more patterns) makes every write to the
// collection fail with NotImplemented rather than skip the pattern's rules.
//
// Thread-safety: immutable after construction; hooks are thread-safe.

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/write/hooks.h"
#include "engine/write/pattern_registry.h"

namespace tigerdoc::engine {

class HookRunner : public catalog::PatternAttachment {
 public:
  struct Named {
    std::string pattern;
    std::shared_ptr<PatternHook> hook;
  };
  // `missing`: why writes must be refused (a pattern this server lacks, or
  // hooks that could not be attached at start-up); empty normally.
  HookRunner(std::vector<Named> hooks, std::vector<std::string> missing)
      : hooks_(std::move(hooks)), missing_(std::move(missing)) {}

  // The runner attached to `coll`, nullptr when it has no pattern.
  static const HookRunner* Of(const catalog::PatternState& state);

  // *doc is replaced when a hook reshapes it. REQUIRES: in a transaction.
  Status BeforeStore(HookContext& ctx, const WriteEvent& event, bson::BsonDoc* reshaped) const;
  Status AfterStore(HookContext& ctx, const WriteEvent& event) const;
  Status AfterRemove(HookContext& ctx, const WriteEvent& event) const;
  // Whether the update changes anything, `modified` being the engine's
  // verdict (PatternHook::EffectOfUpdate; the first hook with an opinion
  // decides).
  StatusWith<bool> UpdateModifies(HookContext& ctx, const WriteEvent& event, bool modified) const;

  // {<pattern>: {...}, ...} for collStats; empty when no hook reports.
  StatusWith<bson::BsonDoc> Stats(storage::Session& session,
                                  const catalog::CollectionEntry& coll) const;
  // {<pattern>: {...}, ...} for explain.
  // The same for one shard ($collStats' per-shard documents).
  StatusWith<bson::BsonDoc> ShardStats(storage::Session& session,
                                       const catalog::CollectionEntry& coll, int shard) const;
  bson::BsonDoc Explain(const catalog::CollectionEntry& coll) const;
  // Differences between what hooks keep and a recomputation.
  Status Validate(storage::Session& session, catalog::Catalog& catalog,
                  const catalog::CollectionEntry& coll, std::vector<std::string>* problems) const;

  const std::vector<Named>& hooks() const { return hooks_; }

 private:
  Status RefuseMissing(const catalog::CollectionEntry& coll) const;

  std::vector<Named> hooks_;
  std::vector<std::string> missing_;
};

// The guards of every collection (Pattern::GuardFor), kept by the catalog
// (Catalog::SetGuardSource) so that every CollectionWriter finds them.
class GuardSource : public catalog::PatternAttachment {
 public:
  explicit GuardSource(std::shared_ptr<const PatternRegistry> registry)
      : registry_(std::move(registry)) {}
  // nullptr when the engine set none (tests of the write path alone).
  static const GuardSource* Of(const catalog::Catalog& catalog) {
    return static_cast<const GuardSource*>(catalog.guard_source());
  }
  std::vector<std::shared_ptr<PatternHook>> For(const catalog::CollectionEntry& coll) const {
    return registry_->GuardsFor(coll);
  }

 private:
  std::shared_ptr<const PatternRegistry> registry_;
};

// Builds the runner for `configs` ({<pattern>: <config>}). Patterns present
// in `previous` but not in `configs` are detached. REQUIRES: as
// Pattern::Attach.
StatusWith<std::shared_ptr<const HookRunner>> AttachHooks(const PatternRegistry& registry,
                                                          storage::Session& session,
                                                          const catalog::CollectionEntry& coll,
                                                          const bson_t* configs,
                                                          const bson_t* previous,
                                                          AttachReason reason);

}  // namespace tigerdoc::engine
