#pragma once
// SubsetHook: the subset pattern on the child collection. After every
// stored or removed child (AfterStore / AfterRemove, in the write's
// transaction) it moves the child's counts between the counter rows of its
// old and new parent keys and rewrites those parents (subset_sync.h). An
// update that changes none of the fields the parent shows or counts
// (localField, sort, projected and counted fields) writes nothing.
//
// ParentGuard: runs on the parent's writes (Pattern::GuardFor) and refuses
// (ImmutableField, 66) a write that is not a subset's own (origin
// "subset <child ns>") and changes a path a subset owns (`as`, counter
// paths): those follow the children.
// A parent inserted with such a path is refused too.
//
// Thread-safety: immutable; state lives in WiredTiger.

#include <memory>
#include <string>
#include <vector>

#include "engine/write/hooks.h"
#include "patterns/subset/subset_config.h"

namespace tigerdoc::patterns::subset {

// What a parent's guard protects for one child collection.
struct Protection {
  std::string origin;      // WriteEvent::origin of the subset's writes: "subset <child ns>"
  std::string child_ns;
  std::vector<std::string> paths;  // `as`, then counter paths
};

class SubsetHook : public engine::PatternHook {
 public:
  SubsetHook(SubsetConfig config, const catalog::CollectionEntry& child);

  Status AfterStore(engine::HookContext& ctx, const engine::WriteEvent& event) override;
  Status AfterRemove(engine::HookContext& ctx, const engine::WriteEvent& event) override;
  Status AppendStats(storage::Session& session, const catalog::CollectionEntry& coll,
                     bson_t* out) override;
  void AppendExplain(const catalog::CollectionEntry& coll, bson_t* out) const override;
  Status ValidateWith(storage::Session& session, catalog::Catalog& catalog,
                      const catalog::CollectionEntry& coll,
                      std::vector<std::string>* problems) override;

  const SubsetConfig& config() const { return config_; }
  const std::string& table() const { return table_; }
  const std::string& origin() const { return protection_->origin; }
  const std::string& parent_ns() const { return parent_ns_; }
  std::shared_ptr<const Protection> protection() const { return protection_; }

 private:
  // `before` / `after`: the child as it was / is (nullptr: absent).
  Status Change(engine::HookContext& ctx, const bson_t* before, const bson_t* after);

  const SubsetConfig config_;
  const std::string table_;
  const std::string child_db_;
  const std::string parent_ns_;
  std::shared_ptr<const Protection> protection_;
};

class ParentGuard : public engine::PatternHook {
 public:
  // Weak: a hook replaced by collMod or dropped with its collection stops
  // protecting once the last write using it ends.
  explicit ParentGuard(std::vector<std::weak_ptr<const Protection>> protections)
      : protections_(std::move(protections)) {}
  Status BeforeStore(engine::HookContext& ctx, const engine::WriteEvent& event,
                     bson::BsonDoc* reshaped) override;
  bool any_alive() const;

 private:
  const std::vector<std::weak_ptr<const Protection>> protections_;
};

}  // namespace tigerdoc::patterns::subset
