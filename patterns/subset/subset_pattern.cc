#include "patterns/subset/subset_pattern.h"

#include <atomic>
#include <map>
#include <mutex>
#include <shared_mutex>

#include "engine/engine.h"
#include "engine/write/hook_runner.h"
#include "patterns/common/one_option_pattern.h"
#include "patterns/subset/subset_config.h"
#include "patterns/subset/subset_hook.h"
#include "patterns/subset/subset_resync.h"
#include "patterns/subset/subset_sync.h"

namespace tigerdoc::patterns::subset {
namespace {

constexpr char kMarker[] = "m";
constexpr int64_t kDefaultBatchSize = 100;
constexpr int64_t kMaxBatchSize = 100000;

// Parent namespace -> the guard of what the live subset hooks protect in
// it, built when a hook is attached (not per writer: every writer of every
// collection asks). Entries are weak (ParentGuard).
class Protections {
 public:
  void Add(const std::string& parent_ns, const std::shared_ptr<const Protection>& protection) {
    std::unique_lock<std::shared_mutex> lock(mutex_);
    Entry& entry = by_parent_[parent_ns];
    std::erase_if(entry.protections, [](const auto& weak) { return weak.expired(); });
    entry.protections.push_back(protection);
    entry.guard = std::make_shared<ParentGuard>(entry.protections);
    any_.store(true);
  }
  std::shared_ptr<ParentGuard> For(const std::string& ns) const {
    if (!any_.load(std::memory_order_relaxed)) return nullptr;  // the common case: no subset at all
    std::shared_lock<std::shared_mutex> lock(mutex_);
    auto it = by_parent_.find(ns);
    if (it == by_parent_.end() || !it->second.guard->any_alive()) return nullptr;
    return it->second.guard;
  }

 private:
  struct Entry {
    std::vector<std::weak_ptr<const Protection>> protections;
    std::shared_ptr<ParentGuard> guard;
  };
  mutable std::shared_mutex mutex_;
  std::map<std::string, Entry, std::less<>> by_parent_;
  std::atomic<bool> any_{false};
};

Status ResyncError(const std::string& message, ErrorCode code = ErrorCode::kBadValue) {
  return Status(code, message);
}

class SubsetPattern : public OneOptionPattern {
 public:
  SubsetPattern() : OneOptionPattern(kPatternName, kOption) {}
  bool KeepsOtherCollectionsInStep() const override { return true; }

  StatusWith<bson::BsonDoc> ConfigureOption(std::string_view command, const bson_iter_t* value,
                                            const bson_t* /*previous*/) const override {
    // The collection's own name is checked again at Attach (a parent that
    // is the child itself); here any name that is not a collection's.
    ASSIGN_OR_RETURN(SubsetConfig config, SubsetConfig::Parse(command, value, ""));
    return config.ToCanonical();
  }

  StatusWith<std::shared_ptr<engine::PatternHook>> Attach(
      storage::Session& session, const catalog::CollectionEntry& coll, const bson_t* config,
      engine::AttachReason reason) const override {
    const char* command = reason == engine::AttachReason::kCreate   ? "create"
                          : reason == engine::AttachReason::kModify ? "collMod"
                                                                    : "catalog";
    ASSIGN_OR_RETURN(SubsetConfig parsed,
                     SubsetConfig::FromCanonical(config, coll.metadata.name, command));
    auto hook = std::make_shared<SubsetHook>(std::move(parsed), coll);
    const std::string table = StateTableName(coll.metadata.ident);
    RETURN_IF_ERROR(session.CreateTable(table));
    ASSIGN_OR_RETURN(std::optional<std::string> marker, session.Get(table, kMarker));
    // New counters (collMod) are counted from the children already stored;
    // the parents follow with resyncSubset.
    if (reason == engine::AttachReason::kModify || !marker) {
      RETURN_IF_ERROR(RebuildStates(session, coll, hook->config()));
    }
    protections_.Add(hook->parent_ns(), hook->protection());
    return std::shared_ptr<engine::PatternHook>(hook);
  }

  Status Detach(storage::Session& session, const catalog::CollectionEntry& coll) const override {
    Status removed = session.Remove(StateTableName(coll.metadata.ident), kMarker);
    return removed.code() == ErrorCode::kNoSuchKey ? Status::OK() : removed;
  }

  std::shared_ptr<engine::PatternHook> GuardFor(const catalog::CollectionEntry& coll) const override {
    return protections_.For(coll.metadata.ns);
  }

  std::vector<bson::BsonDoc> IndexesFor(const bson_t* config) const override {
    StatusWith<SubsetConfig> parsed = SubsetConfig::FromCanonical(config, "");
    if (!parsed.ok()) return {};
    bson::BsonDoc key = parsed.value().IndexKey();
    bson::BsonDoc spec;
    BSON_APPEND_DOCUMENT(spec.mutable_get(), "key", key.get());
    BSON_APPEND_UTF8(spec.mutable_get(), "name", index::DefaultIndexName(key.get()).c_str());
    std::vector<bson::BsonDoc> out;
    out.push_back(std::move(spec));
    return out;
  }

  std::vector<std::string> command_names() const override { return {kResyncCommand}; }

  StatusWith<bson::BsonDoc> RunCommand(engine::Engine& engine, std::string_view command,
                                       std::string_view db, const bson_t* body,
                                       engine::Operation* operation) const override {
    const std::string prefix = "BSON field '" + std::string(command) + ".";
    std::string child_name;
    bson::BsonDoc filter;
    int64_t batch_size = kDefaultBatchSize;
    bson_iter_t it;
    bson_iter_init(&it, body);
    bool first = true;
    while (bson_iter_next(&it)) {
      const std::string key = bson_iter_key(&it);
      if (first) {
        first = false;
        if (!BSON_ITER_HOLDS_UTF8(&it)) {
          return Status(ErrorCode::kInvalidNamespace,
                        "collection name has invalid type (expected the child collection's name)");
        }
        child_name = bson_iter_utf8(&it, nullptr);
        continue;
      }
      if (key == "filter") {
        if (!BSON_ITER_HOLDS_DOCUMENT(&it)) {
          return Status(ErrorCode::kTypeMismatch, prefix + "filter' is the wrong type, expected object");
        }
        uint32_t len = 0;
        const uint8_t* data = nullptr;
        bson_iter_document(&it, &len, &data);
        filter = bson::BsonDoc::CopyOf(data, len);
      } else if (key == "batchSize") {
        if (!BSON_ITER_HOLDS_INT32(&it) && !BSON_ITER_HOLDS_INT64(&it) && !BSON_ITER_HOLDS_DOUBLE(&it)) {
          return Status(ErrorCode::kTypeMismatch, prefix + "batchSize' is the wrong type, expected int");
        }
        const double d = bson_iter_as_double(&it);
        if (d < 1 || d > kMaxBatchSize || d != static_cast<double>(static_cast<int64_t>(d))) {
          return Status(ErrorCode::kBadValue, prefix + "batchSize' must be a whole number from 1 to " +
                                                  std::to_string(kMaxBatchSize));
        }
        batch_size = static_cast<int64_t>(d);
      } else if (key[0] == '$' || key == "lsid" || key == "txnNumber" || key == "comment" ||
                 key == "maxTimeMS" || key == "writeConcern" || key == "readConcern" ||
                 key == "apiVersion" || key == "apiStrict" || key == "apiDeprecationErrors") {
        continue;  // generic arguments every command accepts
      } else {
        return Status(ErrorCode::kLocation40415, prefix + key + "' is an unknown field.");
      }
    }
    const std::string ns = std::string(db) + "." + child_name;
    std::shared_ptr<catalog::CollectionEntry> child = engine.catalog().Lookup(ns);
    if (child == nullptr) return ResyncError("ns not found: " + ns, ErrorCode::kNamespaceNotFound);
    std::shared_ptr<const catalog::PatternState> state = child->patterns();
    std::shared_ptr<SubsetHook> hook;
    if (const engine::HookRunner* runner = engine::HookRunner::Of(*state)) {
      for (const auto& named : runner->hooks()) {
        if (named.pattern == kPatternName) hook = std::dynamic_pointer_cast<SubsetHook>(named.hook);
      }
    }
    if (hook == nullptr) {
      return ResyncError(ns + " has no subset option; add one with collMod first");
    }
    ResyncProgress progress;
    // currentOp shows {resyncSubset: {parent, parentsMatched, parentsUpdated,
    // batches}}; killOp and maxTimeMS stop it between batches.
    auto on_batch = [&](const ResyncProgress& so_far) -> Status {
      if (operation == nullptr) return Status::OK();
      bson::BsonDoc fields;
      bson_t inner;
      BSON_APPEND_DOCUMENT_BEGIN(fields.mutable_get(), "resyncSubset", &inner);
      BSON_APPEND_UTF8(&inner, "ns", ns.c_str());
      BSON_APPEND_UTF8(&inner, "parent", hook->parent_ns().c_str());
      BSON_APPEND_INT64(&inner, "parentsMatched", so_far.parents_matched);
      BSON_APPEND_INT64(&inner, "parentsUpdated", so_far.parents_updated);
      BSON_APPEND_INT64(&inner, "batches", so_far.batches);
      bson_append_document_end(fields.mutable_get(), &inner);
      operation->Report(std::move(fields));
      return operation->CheckInterrupt();
    };
    RETURN_IF_ERROR(ResyncParents(engine.catalog(), engine.storage(), child, *hook,
                                  filter.empty() ? nullptr : filter.get(), batch_size, on_batch,
                                  &progress));
    bson::BsonDoc reply;
    BSON_APPEND_UTF8(reply.mutable_get(), "parent", hook->parent_ns().c_str());
    // Counts as MongoDB's write replies give them: int32 while they fit.
    auto count = [&](const char* field, int64_t n) {
      if (n <= INT32_MAX) {
        BSON_APPEND_INT32(reply.mutable_get(), field, static_cast<int32_t>(n));
      } else {
        BSON_APPEND_INT64(reply.mutable_get(), field, n);
      }
    };
    count("parentsMatched", progress.parents_matched);
    count("parentsUpdated", progress.parents_updated);
    count("batches", progress.batches);
    return reply;
  }

 private:
  mutable Protections protections_;
};

}  // namespace

std::unique_ptr<engine::Pattern> MakeSubsetPattern() { return std::make_unique<SubsetPattern>(); }

}  // namespace tigerdoc::patterns::subset
