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
  RETURN_IF_ERROR(SyncPatternViews(db, coll, configs.get(), false));
  storage::Session session = storage_->NewSession();
  ASSIGN_OR_RETURN(std::shared_ptr<const HookRunner> hooks,
                   AttachHooks(*patterns_, session, *entry, configs.get(), state->configs.get(),
                               AttachReason::kModify));
  bson::BsonDoc view_configs = configs.Copy();
  RETURN_IF_ERROR(catalog_->SetPatterns(
      *entry,
      std::make_shared<catalog::PatternState>(
          catalog::PatternState{std::move(configs), std::move(hooks)}),
      options.get()));
  // Index builds take the write mutex themselves.
  writes.unlock();
  RETURN_IF_ERROR(SyncPatternViews(db, coll, view_configs.get(), true));
  return CreatePatternIndexes(db, coll);
}

Status Engine::SyncPatternViews(std::string_view db, std::string_view coll, const bson_t* configs,
                                bool create_missing) {
  return patterns_->ForEachConfigured(configs, [&](const Pattern& pattern, const bson_t* config) {
    for (Pattern::CompanionView& view : pattern.ViewsOf(coll, config)) {
      const std::string ns = Namespace(db, view.name);
      std::shared_ptr<const catalog::ViewDefinition> existing = catalog_->LookupView(ns);
      if (catalog_->Lookup(ns) != nullptr || (existing && existing->view_on != coll)) {
        return Status(ErrorCode::kNamespaceExists,
                      "Collection " + ns + " already exists; the " + std::string(pattern.name()) +
                          " option of " + Namespace(db, coll) + " needs that name for its view");
      }
      if (!create_missing) continue;
      CreateViewParams params;
      params.db = std::string(db);
      params.name = view.name;
      params.view_on = std::string(coll);
      params.pipeline = std::move(view.pipeline);
      if (existing && existing->pipeline.bytes() == params.pipeline.bytes()) continue;
      RETURN_IF_ERROR(existing ? ModifyView(params) : CreateView(params));
    }
    return Status::OK();
  });
}

Status Engine::CreatePatternIndexes(std::string_view db, std::string_view coll) {
  std::shared_ptr<catalog::CollectionEntry> entry = catalog_->Lookup(Namespace(db, coll));
  if (!entry) return Status::OK();
  std::shared_ptr<const catalog::PatternState> state = entry->patterns();
  CreateIndexesParams params;
  params.db = std::string(db);
  params.coll = std::string(coll);
  RETURN_IF_ERROR(patterns_->ForEachConfigured(
      state->configs.get(), [&](const Pattern& pattern, const bson_t* config) {
        for (bson::BsonDoc& spec : pattern.IndexesFor(config)) {
          bson_iter_t key;
          if (!bson_iter_init_find(&key, spec.get(), "key") || !BSON_ITER_HOLDS_DOCUMENT(&key)) {
            continue;
          }
          uint32_t key_len = 0;
          const uint8_t* key_data = nullptr;
          bson_iter_document(&key, &key_len, &key_data);
          bson::BsonDoc key_pattern = bson::BsonDoc::CopyOf(key_data, key_len);
          // A pattern's index is there when any index has its key pattern.
          if (entry->indexes()->FindByKeyPattern(key_pattern.get()).empty()) {
            params.specs.push_back(std::move(spec));
          }
        }
        return Status::OK();
      }));
  if (params.specs.empty()) return Status::OK();
  return CreateIndexes(params).status();
}

StatusWith<bson::BsonDoc> Engine::RunPatternCommand(std::string_view command, std::string_view db,
                                                    const bson_t* body, Operation* operation) {
  const Pattern* pattern = patterns_->ForCommand(command);
  if (pattern == nullptr) {
    return Status(ErrorCode::kCommandNotFound, "no such command: '" + std::string(command) + "'");
  }
  return pattern->RunCommand(*this, command, db, body, operation);
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
  return hooks->Validate(session, *catalog_, coll, problems);
}

}  // namespace tigerdoc::engine
