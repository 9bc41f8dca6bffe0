// Engine's side of the pattern framework: attaching hooks at start-up and
// create, collMod of pattern options, and what patterns report
// (collStats, explain, validate). The engine never names a pattern; it
// only walks the registry and the configs in the catalog.

#include <cstdio>
#include <mutex>
#include <shared_mutex>
#include <string>

#include "engine/engine.h"
#include "engine/write/hook_runner.h"
#include "engine/write/pattern_registry.h"

namespace tigerdoc::engine {
namespace {

// `options` with the fields of `fields` set (a null value removes one), for
// listCollections after a collMod.
bson::BsonDoc MergedOptions(const bson_t* options, const bson_t* fields) {
  bson::BsonDoc out;
  bson_iter_t it;
  bson_iter_init(&it, options);
  while (bson_iter_next(&it)) {
    bson_iter_t given;
    if (bson_iter_init_find(&given, fields, bson_iter_key(&it))) continue;
    bson_append_iter(out.mutable_get(), bson_iter_key(&it), -1, &it);
  }
  bson_iter_init(&it, fields);
  while (bson_iter_next(&it)) {
    if (BSON_ITER_HOLDS_NULL(&it)) continue;
    bson_append_iter(out.mutable_get(), bson_iter_key(&it), -1, &it);
  }
  return out;
}

}  // namespace

Status Engine::AttachAllPatterns() {
  storage::Session session = storage_->NewSession();
  for (const auto& entry : catalog_->List("")) {
    std::shared_ptr<const catalog::PatternState> state = entry->patterns();
    if (state->configs.empty()) continue;
    StatusWith<std::shared_ptr<const HookRunner>> attached = AttachHooks(
        *patterns_, session, *entry, state->configs.get(), nullptr, AttachReason::kOpen);
    // The server still starts: the other collections are fine, and this
    // one refuses writes (reads work) until the cause is fixed.
    std::shared_ptr<const HookRunner> hooks;
    if (attached.ok()) {
      hooks = std::move(attached).value();
    } else {
      std::fprintf(stderr, "tigerdoc: patterns of %s could not be attached: %s\n",
                   entry->metadata.ns.c_str(), attached.status().ToString().c_str());
      hooks = std::make_shared<HookRunner>(
          std::vector<HookRunner::Named>{},
          std::vector<std::string>{"its patterns could not be attached at start-up (" +
                                   attached.status().ToString() + ")"});
    }
    RETURN_IF_ERROR(catalog_->SetPatterns(
        *entry,
        std::make_shared<catalog::PatternState>(
            catalog::PatternState{state->configs.Copy(), hooks}),
        /*options=*/nullptr));
  }
  return Status::OK();
}

StatusWith<std::shared_ptr<catalog::CollectionEntry>> Engine::CreateCollectionEntry(
    catalog::CreateCollectionRequest request) {
  if (!request.patterns.empty()) {
    const PatternRegistry* registry = patterns_.get();
    storage::StorageEngine* storage = storage_.get();
    // Shared: std::function needs a copyable target.
    auto configs = std::make_shared<bson::BsonDoc>(request.patterns.Copy());
    request.attach = [registry, storage, configs](
                         const catalog::CollectionEntry& entry)
        -> StatusWith<std::shared_ptr<const catalog::PatternAttachment>> {
      storage::Session session = storage->NewSession();
      ASSIGN_OR_RETURN(std::shared_ptr<const HookRunner> hooks,
                       AttachHooks(*registry, session, entry, configs->get(), nullptr,
                                   AttachReason::kCreate));
      return std::shared_ptr<const catalog::PatternAttachment>(std::move(hooks));
    };
  }
  return catalog_->CreateCollection(request);
}

Status Engine::ModifyPatterns(std::string_view db, std::string_view coll, const bson_t* fields) {
  std::shared_ptr<catalog::CollectionEntry> entry = catalog_->Lookup(Namespace(db, coll));
  if (!entry) return Status(ErrorCode::kNamespaceNotFound, "ns does not exist");
  // Held exclusively: no write runs with the old hooks once the new config
  // is on disk, and counters built from the data see all of it.
  std::unique_lock<std::shared_mutex> writes(entry->write_mutex());
  std::shared_ptr<const catalog::PatternState> state = entry->patterns();
  ASSIGN_OR_RETURN(bson::BsonDoc configs,
                   patterns_->Configure("collMod", fields, state->configs.get()));
  // metadata.options is stable under the exclusive lock.
  bson::BsonDoc options = MergedOptions(entry->metadata.options.get(), fields);
  if (configs.bytes() == state->configs.bytes() &&
      options.bytes() == entry->metadata.options.bytes()) {
    return Status::OK();
  }
  storage::Session session = storage_->NewSession();
  ASSIGN_OR_RETURN(std::shared_ptr<const HookRunner> hooks,
                   AttachHooks(*patterns_, session, *entry, configs.get(), state->configs.get(),
                               AttachReason::kModify));
  return catalog_->SetPatterns(
      *entry,
      std::make_shared<catalog::PatternState>(
          catalog::PatternState{std::move(configs), std::move(hooks)}),
      options.get());
}

StatusWith<bson::BsonDoc> Engine::PatternStats(const catalog::CollectionEntry& coll) {
  std::shared_ptr<const catalog::PatternState> state = coll.patterns();
  const HookRunner* hooks = HookRunner::Of(*state);
  if (hooks == nullptr) return bson::BsonDoc();
  storage::Session session = storage_->NewSession();
  return hooks->Stats(session, coll);
}

StatusWith<bson::BsonDoc> Engine::PatternShardStats(const catalog::CollectionEntry& coll,
                                                   int shard) {
  std::shared_ptr<const catalog::PatternState> state = coll.patterns();
  const HookRunner* hooks = HookRunner::Of(*state);
  if (hooks == nullptr) return bson::BsonDoc();
  storage::Session session = storage_->NewSession();
  return hooks->ShardStats(session, coll, shard);
}

bson::BsonDoc Engine::PatternExplain(const catalog::CollectionEntry& coll) const {
  std::shared_ptr<const catalog::PatternState> state = coll.patterns();
  const HookRunner* hooks = HookRunner::Of(*state);
  if (hooks == nullptr) return bson::BsonDoc();
  return hooks->Explain(coll);
}

Status Engine::ValidatePatterns(const catalog::CollectionEntry& coll,
                                std::vector<std::string>* problems) {
  std::shared_ptr<const catalog::PatternState> state = coll.patterns();
  const HookRunner* hooks = HookRunner::Of(*state);
  if (hooks == nullptr) return Status::OK();
  storage::Session session = storage_->NewSession();
  return hooks->Validate(session, coll, problems);
}

}  // namespace tigerdoc::engine
