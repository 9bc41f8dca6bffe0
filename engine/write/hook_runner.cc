#include "engine/write/hook_runner.h"

namespace tigerdoc::engine {

const HookRunner* HookRunner::Of(const catalog::PatternState& state) {
  // The engine is the only one that attaches anything, always a HookRunner.
  return static_cast<const HookRunner*>(state.attachment.get());
}

Status HookRunner::RefuseMissing(const catalog::CollectionEntry& coll) const {
  if (missing_.empty()) return Status::OK();
  return Status(ErrorCode::kNotImplemented,
                "writes to " + coll.metadata.ns + " are refused: " + missing_[0]);
}

Status HookRunner::BeforeStore(HookContext& ctx, const WriteEvent& event,
                               bson::BsonDoc* reshaped) const {
  RETURN_IF_ERROR(RefuseMissing(ctx.collection()));
  WriteEvent current = event;
  for (const Named& named : hooks_) {
    bson::BsonDoc out;
    RETURN_IF_ERROR(named.hook->BeforeStore(ctx, current, &out));
    if (!out.empty()) {
      *reshaped = std::move(out);
      current.after = reshaped->get();
    }
  }
  return Status::OK();
}

Status HookRunner::AfterStore(HookContext& ctx, const WriteEvent& event) const {
  for (const Named& named : hooks_) RETURN_IF_ERROR(named.hook->AfterStore(ctx, event));
  return Status::OK();
}

Status HookRunner::AfterRemove(HookContext& ctx, const WriteEvent& event) const {
  RETURN_IF_ERROR(RefuseMissing(ctx.collection()));
  for (const Named& named : hooks_) RETURN_IF_ERROR(named.hook->AfterRemove(ctx, event));
  return Status::OK();
}

StatusWith<bool> HookRunner::UpdateModifies(HookContext& ctx, const WriteEvent& event,
                                            bool modified) const {
  for (const Named& named : hooks_) {
    ASSIGN_OR_RETURN(PatternHook::UpdateEffect effect,
                     named.hook->EffectOfUpdate(ctx, event, modified));
    if (effect == PatternHook::UpdateEffect::kChanges) return true;
    if (effect == PatternHook::UpdateEffect::kNoChange) return false;
  }
  return modified;
}

StatusWith<bson::BsonDoc> HookRunner::Stats(storage::Session& session,
                                            const catalog::CollectionEntry& coll) const {
  bson::BsonDoc out;
  for (const Named& named : hooks_) {
    bson::BsonDoc one;
    RETURN_IF_ERROR(named.hook->AppendStats(session, coll, one.mutable_get()));
    if (!one.empty()) BSON_APPEND_DOCUMENT(out.mutable_get(), named.pattern.c_str(), one.get());
  }
  return out;
}

StatusWith<bson::BsonDoc> HookRunner::ShardStats(storage::Session& session,
                                                 const catalog::CollectionEntry& coll,
                                                 int shard) const {
  bson::BsonDoc out;
  for (const Named& named : hooks_) {
    bson::BsonDoc one;
    RETURN_IF_ERROR(named.hook->AppendShardStats(session, coll, shard, one.mutable_get()));
    if (!one.empty()) BSON_APPEND_DOCUMENT(out.mutable_get(), named.pattern.c_str(), one.get());
  }
  return out;
}

bson::BsonDoc HookRunner::Explain(const catalog::CollectionEntry& coll) const {
  bson::BsonDoc out;
  for (const Named& named : hooks_) {
    bson::BsonDoc one;
    named.hook->AppendExplain(coll, one.mutable_get());
    if (!one.empty()) BSON_APPEND_DOCUMENT(out.mutable_get(), named.pattern.c_str(), one.get());
  }
  return out;
}

Status HookRunner::Validate(storage::Session& session, catalog::Catalog& catalog,
                            const catalog::CollectionEntry& coll,
                            std::vector<std::string>* problems) const {
  for (const Named& named : hooks_) {
    RETURN_IF_ERROR(named.hook->ValidateWith(session, catalog, coll, problems));
  }
  return Status::OK();
}

StatusWith<std::shared_ptr<const HookRunner>> AttachHooks(const PatternRegistry& registry,
                                                          storage::Session& session,
                                                          const catalog::CollectionEntry& coll,
                                                          const bson_t* configs,
                                                          const bson_t* previous,
                                                          AttachReason reason) {
  std::vector<HookRunner::Named> hooks;
  std::vector<std::string> missing;
  bson_iter_t it;
  bson_iter_init(&it, configs);
  while (bson_iter_next(&it)) {
    const std::string name = bson_iter_key(&it);
    const Pattern* pattern = registry.ByName(name);
    if (pattern == nullptr || !BSON_ITER_HOLDS_DOCUMENT(&it)) {
      missing.push_back("it is configured with pattern '" + name +
                        "', which this server does not have");
      continue;
    }
    uint32_t len = 0;
    const uint8_t* data = nullptr;
    bson_iter_document(&it, &len, &data);
    bson::BsonDoc config = bson::BsonDoc::CopyOf(data, len);
    ASSIGN_OR_RETURN(std::shared_ptr<PatternHook> hook,
                     pattern->Attach(session, coll, config.get(), reason));
    hooks.push_back(HookRunner::Named{name, std::move(hook)});
  }
  if (previous) {
    bson_iter_init(&it, previous);
    while (bson_iter_next(&it)) {
      bson_iter_t now;
      if (bson_iter_init_find(&now, configs, bson_iter_key(&it))) continue;
      if (const Pattern* pattern = registry.ByName(bson_iter_key(&it))) {
        RETURN_IF_ERROR(pattern->Detach(session, coll));
      }
    }
  }
  if (hooks.empty() && missing.empty()) return std::shared_ptr<const HookRunner>();
  return std::shared_ptr<const HookRunner>(
      std::make_shared<HookRunner>(std::move(hooks), std::move(missing)));
}

}  // namespace tigerdoc::engine
