#include "engine/engine.h"

#include <algorithm>
#include <chrono>
#include <string>

#include "engine/query/matcher/matcher.h"
#include "engine/query/plan_executor.h"

namespace tigerdoc::engine {
namespace {

constexpr int64_t kDefaultFirstBatch = 101;

}  // namespace

StatusWith<std::unique_ptr<Engine>> Engine::Open(const EngineOptions& options) {
  std::unique_ptr<Engine> engine(new Engine());
  engine->options_ = options;
  ASSIGN_OR_RETURN(engine->storage_, storage::StorageEngine::Open(options.storage));
  ASSIGN_OR_RETURN(engine->catalog_, catalog::Catalog::Open(engine->storage_.get()));
  engine->cursors_ = std::make_unique<query::CursorManager>(options.cursor_timeout);
  engine->reaper_ = std::thread([e = engine.get()] { e->ReapCursorsUntilStopped(); });
  return engine;
}

void Engine::ReapCursorsUntilStopped() {
  std::unique_lock<std::mutex> lock(reaper_mutex_);
  while (!stopping_) {
    reaper_wakeup_.wait_for(lock, options_.cursor_reap_interval);
    if (!stopping_) cursors_->ReapIdle();
  }
}

Engine::~Engine() {
  {
    std::lock_guard<std::mutex> lock(reaper_mutex_);
    stopping_ = true;
  }
  reaper_wakeup_.notify_all();
  if (reaper_.joinable()) reaper_.join();
  // Cursors hold collection entries; release them before the catalog and
  // storage they point into.
  cursors_.reset();
  catalog_.reset();
  storage_.reset();
}

Status Engine::CreateCollection(const CreateParams& params) {
  catalog::CreateCollectionRequest request;
  request.db = params.db;
  request.name = params.name;
  request.shard_key_field = params.shard_key_field.value_or("_id");
  request.num_shards = params.num_shards.value_or(options_.default_shards);
  request.options = params.options.Copy();
  return catalog_->CreateCollection(request).status();
}

Status Engine::DropCollection(std::string_view db, std::string_view name) {
  return catalog_->DropCollection(Namespace(db, name));
}

Status Engine::DropDatabase(std::string_view db) { return catalog_->DropDatabase(db); }

StatusWith<CursorBatch> Engine::Find(const FindParams& params) {
  std::string ns = Namespace(params.db, params.coll);
  query::FindSpec spec;
  spec.filter = params.filter.Copy();
  spec.projection = params.projection.Copy();
  spec.sort = params.sort.Copy();
  spec.skip = params.skip;
  spec.limit = params.limit;
  spec.allow_disk_use = params.allow_disk_use;
  ASSIGN_OR_RETURN(auto exec, query::PlanExecutor::Make(catalog_->Lookup(ns), std::move(spec)));

  CursorBatch batch;
  batch.ns = ns;
  bool exhausted = false;
  int64_t first_batch = params.batch_size.value_or(kDefaultFirstBatch);
  if (first_batch > 0) {
    storage::Session session = storage_->NewSession();
    RETURN_IF_ERROR(exec->FillBatch(session, first_batch, kMaxBatchBytes, &batch.docs, &exhausted));
  }
  if (!exhausted && !params.single_batch) {
    batch.cursor_id = cursors_->Register(ns, std::move(exec), params.no_cursor_timeout);
  }
  return batch;
}

StatusWith<CursorBatch> Engine::GetMore(const GetMoreParams& params) {
  std::string ns = Namespace(params.db, params.coll);
  ASSIGN_OR_RETURN(std::unique_ptr<query::ClientCursor> cursor,
                   cursors_->CheckOut(params.cursor_id, ns));
  CursorBatch batch;
  batch.ns = ns;
  bool exhausted = false;
  int64_t max_docs = params.batch_size.value_or(INT64_MAX);
  {
    storage::Session session = storage_->NewSession();
    // An error kills the cursor, as in MongoDB.
    RETURN_IF_ERROR(cursor->executor->FillBatch(session, max_docs, kMaxBatchBytes, &batch.docs,
                                                &exhausted));
  }
  if (!exhausted) {
    batch.cursor_id = cursor->id;
    cursors_->CheckIn(std::move(cursor));
  }
  return batch;
}

StatusWith<int64_t> Engine::Count(const CountParams& params) {
  std::shared_ptr<catalog::CollectionEntry> coll =
      catalog_->Lookup(Namespace(params.db, params.coll));
  // Parse first: a bad filter is an error even on a missing collection.
  query::FindSpec spec;
  spec.filter = params.filter.Copy();
  spec.skip = params.skip;
  spec.limit = params.limit;
  ASSIGN_OR_RETURN(auto exec, query::PlanExecutor::Make(coll, std::move(spec)));
  if (!coll) return int64_t{0};
  if (params.filter.empty()) {
    // Collection metadata answers an unfiltered count, as in MongoDB.
    int64_t n = std::max<int64_t>(coll->store->TotalStats().count - params.skip, 0);
    if (params.limit > 0) n = std::min(n, params.limit);
    return n;
  }
  storage::Session session = storage_->NewSession();
  return exec->CountAll(session);
}

}  // namespace tigerdoc::engine

namespace tigerdoc::engine {
namespace {

std::string ShardName(int shard) { return "shard" + std::to_string(shard); }

// The shard-local plan: COLLSCAN (over the whole table or one partition's
// key range), under SORT when the query sorts, under PROJECTION_DEFAULT
// when it projects.
void AppendShardPlan(bson_t* parent, const char* field, const FindParams& params, bool partition_scan, const query::ShardExecStats* stats,
                     bool with_stats) {
  // Built inside-out: the scan is innermost.
  bson::BsonDoc scan;
  BSON_APPEND_UTF8(scan.mutable_get(), "stage", "COLLSCAN");
  if (!params.filter.empty()) BSON_APPEND_DOCUMENT(scan.mutable_get(), "filter", params.filter.get());
  BSON_APPEND_UTF8(scan.mutable_get(), "direction", "forward");
  BSON_APPEND_BOOL(scan.mutable_get(), "partitionScan", partition_scan);
  if (with_stats && stats) {
    BSON_APPEND_INT64(scan.mutable_get(), "nReturned", stats->n_returned);
    BSON_APPEND_INT64(scan.mutable_get(), "docsExamined", stats->docs_examined);
  }
  bson::BsonDoc top = std::move(scan);
  auto wrap = [&](const char* stage, const char* spec_field, const bson::BsonDoc& spec) {
    bson::BsonDoc outer;
    BSON_APPEND_UTF8(outer.mutable_get(), "stage", stage);
    BSON_APPEND_DOCUMENT(outer.mutable_get(), spec_field, spec.get());
    BSON_APPEND_DOCUMENT(outer.mutable_get(), "inputStage", top.get());
    top = std::move(outer);
  };
  if (!params.sort.empty()) wrap("SORT", "sortPattern", params.sort);
  if (!params.projection.empty()) wrap("PROJECTION_DEFAULT", "transformBy", params.projection);
  BSON_APPEND_DOCUMENT(parent, field, top.get());
}

}  // namespace

StatusWith<bson::BsonDoc> Engine::ExplainFind(const FindParams& params, ExplainVerbosity verbosity) {
  std::string ns = Namespace(params.db, params.coll);
  std::shared_ptr<catalog::CollectionEntry> coll = catalog_->Lookup(ns);
  query::FindSpec spec;
  spec.filter = params.filter.Copy();
  spec.projection = params.projection.Copy();
  spec.sort = params.sort.Copy();
  spec.skip = params.skip;
  spec.limit = params.limit;
  spec.allow_disk_use = params.allow_disk_use;
  ASSIGN_OR_RETURN(auto exec, query::PlanExecutor::Make(coll, std::move(spec)));

  bool with_stats = verbosity != ExplainVerbosity::kQueryPlanner;
  auto started = std::chrono::steady_clock::now();
  int64_t n_returned = 0;
  if (with_stats) {
    storage::Session session = storage_->NewSession();
    ASSIGN_OR_RETURN(n_returned, exec->CountAll(session));
  }
  int64_t millis = std::chrono::duration_cast<std::chrono::milliseconds>(
                       std::chrono::steady_clock::now() - started).count();

  std::vector<int> shards;
  for (const query::ScanRange& range : exec->ranges()) {
    if (shards.empty() || shards.back() != range.shard) shards.push_back(range.shard);
  }
  const char* merge_stage = shards.size() == 1 ? "SINGLE_SHARD"
                            : params.sort.empty() ? "SHARD_MERGE"
                                                  : "SHARD_MERGE_SORT";
  auto stats_of = [&](int shard) -> const query::ShardExecStats* {
    for (const auto& s : exec->shard_stats()) {
      if (s.shard == shard) return &s;
    }
    return nullptr;
  };

  bson::BsonDoc out;
  bson_t planner, winning, shard_list;
  bson_append_document_begin(out.mutable_get(), "queryPlanner", -1, &planner);
  BSON_APPEND_UTF8(&planner, "namespace", ns.c_str());
  BSON_APPEND_DOCUMENT(&planner, "parsedQuery", params.filter.get());
  bson_append_document_begin(&planner, "winningPlan", -1, &winning);
  BSON_APPEND_UTF8(&winning, "stage", merge_stage);
  bson_append_array_begin(&winning, "shards", -1, &shard_list);
  for (size_t i = 0; i < shards.size(); ++i) {
    bson_t entry;
    std::string key = std::to_string(i);
    bson_append_document_begin(&shard_list, key.c_str(), -1, &entry);
    BSON_APPEND_UTF8(&entry, "shardName", ShardName(shards[i]).c_str());
    AppendShardPlan(&entry, "winningPlan", params, exec->targeted(), nullptr, false);
    bson_append_document_end(&shard_list, &entry);
  }
  bson_append_array_end(&winning, &shard_list);
  bson_append_document_end(&planner, &winning);
  bson_t rejected;
  bson_append_array_begin(&planner, "rejectedPlans", -1, &rejected);
  bson_append_array_end(&planner, &rejected);
  bson_append_document_end(out.mutable_get(), &planner);

  if (with_stats) {
    bson_t stats, stages, shard_stats;
    bson_append_document_begin(out.mutable_get(), "executionStats", -1, &stats);
    BSON_APPEND_BOOL(&stats, "executionSuccess", true);
    BSON_APPEND_INT64(&stats, "nReturned", n_returned);
    BSON_APPEND_INT64(&stats, "executionTimeMillis", millis);
    BSON_APPEND_INT64(&stats, "totalKeysExamined", 0);
    BSON_APPEND_INT64(&stats, "totalDocsExamined", exec->total_docs_examined());
    bson_append_document_begin(&stats, "executionStages", -1, &stages);
    BSON_APPEND_UTF8(&stages, "stage", merge_stage);
    BSON_APPEND_INT64(&stages, "nReturned", n_returned);
    BSON_APPEND_INT64(&stages, "executionTimeMillis", millis);
    BSON_APPEND_INT64(&stages, "totalKeysExamined", 0);
    BSON_APPEND_INT64(&stages, "totalDocsExamined", exec->total_docs_examined());
    bson_append_array_begin(&stages, "shards", -1, &shard_stats);
    for (size_t i = 0; i < shards.size(); ++i) {
      const query::ShardExecStats* s = stats_of(shards[i]);
      bson_t entry;
      std::string key = std::to_string(i);
      bson_append_document_begin(&shard_stats, key.c_str(), -1, &entry);
      BSON_APPEND_UTF8(&entry, "shardName", ShardName(shards[i]).c_str());
      BSON_APPEND_BOOL(&entry, "executionSuccess", true);
      BSON_APPEND_INT64(&entry, "nReturned", s ? s->n_returned : 0);
      BSON_APPEND_INT64(&entry, "totalKeysExamined", 0);
      BSON_APPEND_INT64(&entry, "totalDocsExamined", s ? s->docs_examined : 0);
      AppendShardPlan(&entry, "executionStages", params, exec->targeted(), s, true);
      bson_append_document_end(&shard_stats, &entry);
    }
    bson_append_array_end(&stages, &shard_stats);
    bson_append_document_end(&stats, &stages);
    bson_append_document_end(out.mutable_get(), &stats);
  }

  // Which tables were read, in tigerdoc's own words.
  bson_t sharding, read;
  bson_append_document_begin(out.mutable_get(), "sharding", -1, &sharding);
  if (coll) {
    bson_t key_pattern;
    bson_append_document_begin(&sharding, "shardKey", -1, &key_pattern);
    BSON_APPEND_INT32(&key_pattern, coll->store->shard_key_field().c_str(), 1);
    bson_append_document_end(&sharding, &key_pattern);
    BSON_APPEND_INT32(&sharding, "numShards", coll->store->num_shards());
  }
  BSON_APPEND_BOOL(&sharding, "targeted", exec->targeted());
  bson_append_array_begin(&sharding, "shardsRead", -1, &read);
  for (size_t i = 0; i < shards.size(); ++i) {
    std::string key = std::to_string(i);
    BSON_APPEND_UTF8(&read, key.c_str(), ShardName(shards[i]).c_str());
  }
  bson_append_array_end(&sharding, &read);
  bson_append_document_end(out.mutable_get(), &sharding);
  return out;
}

}  // namespace tigerdoc::engine
