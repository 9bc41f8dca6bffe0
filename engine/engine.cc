#include "engine/write/document_validator.h"
#include "engine/engine.h"
#include "engine/id_point_read.h"
#include "engine/plan_summary.h"
#include "engine/operation_collation.h"
#include "engine/tailable_get_more.h"

#include "engine/changes/change_log.h"
#include "engine/changes/change_stream_cursor.h"
#include "engine/repl/logical_clock.h"
#include "engine/write/hook_runner.h"
#include "engine/write/pattern_registry.h"

#include <algorithm>
#include <chrono>
#include <string>

#include "engine/agg/query_expressions.h"
#include "engine/command_expressions.h"
#include "engine/query/deadline.h"
#include "engine/query/matcher/matcher.h"
#include "engine/query/plan_executor.h"

namespace tigerdoc::engine {
namespace {

constexpr int64_t kDefaultFirstBatch = 101;

}  // namespace

StatusWith<std::unique_ptr<Engine>> Engine::Open(const EngineOptions& options) {
  std::unique_ptr<Engine> engine(new Engine());
  engine->options_ = options;
  // $expr and computed projection fields of filters parsed without a
  // command's context (listCollections, upsert seeds, ...).
  agg::InstallDefaultQueryExpressionParser();
  ASSIGN_OR_RETURN(engine->storage_, storage::StorageEngine::Open(options.storage));
  ASSIGN_OR_RETURN(engine->catalog_, catalog::Catalog::Open(engine->storage_.get()));
  engine->patterns_ = options.patterns ? options.patterns : std::make_shared<PatternRegistry>();
  for (const auto& pattern : engine->patterns_->patterns()) pattern->BindCatalog(engine->catalog_.get());
  // Before the TTL monitor or any client can write.
  engine->catalog_->SetGuardSource(std::make_shared<GuardSource>(engine->patterns_));
  RETURN_IF_ERROR(engine->AttachAllPatterns());
  // The change log before any write: every change from here on is recorded.
  engine->clock_ = std::make_unique<repl::LogicalClock>();
  ChangeLogOptions log_options;
  log_options.retention_bytes = options.change_log_retention_mb * 1024 * 1024;
  log_options.retention_seconds = options.change_log_retention_hours * 3600;
  ASSIGN_OR_RETURN(engine->change_log_,
                   ChangeLog::Open(engine->storage_.get(), engine->clock_.get(), log_options));
  engine->catalog_->SetChangeRecorder(engine->change_log_.get());
  engine->cursors_ = std::make_unique<query::CursorManager>(options.cursor_timeout);
  // killCursors of a getMore that waits for a long work slot ends the wait
  // at once, as killOp does.
  engine->cursors_->SetOnPinnedKill([ops = &engine->operations_] { ops->long_work().WakeWaiters(); });
  ASSIGN_OR_RETURN(engine->sessions_,
                   LogicalSessionCatalog::Open(engine->storage_.get(), engine->cursors_.get()));
  engine->sessions_->SetCommitTagger(
      [log = engine->change_log_.get()](storage::Session& txn, const bson_t* lsid, int64_t txn_number) {
        log->SetTransactionInfo(txn, lsid, txn_number);
      });
  engine->reaper_ = std::thread([e = engine.get()] { e->ReapCursorsUntilStopped(); });
  engine->ttl_monitor_sleep_secs_.store(options.ttl_monitor_sleep.count());
  engine->ttl_monitor_ = std::thread([e = engine.get()] { e->RunTtlMonitorUntilStopped(); });
  return engine;
}

void Engine::ReapCursorsUntilStopped() {
  std::unique_lock<std::mutex> lock(reaper_mutex_);
  while (!stopping_) {
    // A timeout lowered at run time is checked at least every quarter of it.
    const auto interval = std::min<std::chrono::milliseconds>(
        options_.cursor_reap_interval,
        std::max<std::chrono::milliseconds>(cursors_->idle_timeout() / 4, std::chrono::milliseconds(10)));
    reaper_wakeup_.wait_for(lock, interval);
    if (!stopping_) cursors_->ReapIdle();
  }
}

void Engine::SetCursorTimeout(std::chrono::milliseconds timeout) {
  cursors_->set_idle_timeout(timeout);
  reaper_wakeup_.notify_all();  // the reaper's next wait uses the new interval
}

Engine::~Engine() {
  {
    std::lock_guard<std::mutex> lock(reaper_mutex_);
    stopping_ = true;
  }
  reaper_wakeup_.notify_all();
  if (reaper_.joinable()) reaper_.join();
  if (ttl_monitor_.joinable()) ttl_monitor_.join();
  sessions_.reset();  // aborts open transactions while storage is open
  // Cursors hold collection entries; release them before the catalog and
  // storage they point into.
  cursors_.reset();
  if (catalog_) catalog_->SetChangeRecorder(nullptr);
  change_log_.reset();
  catalog_.reset();
  storage_.reset();
}

Status Engine::CreateCollection(const CreateParams& params) {
  bson_iter_t timeseries;
  if (bson_iter_init_find(&timeseries, params.options.get(), "timeseries")) {
    return CreateTimeseries(params);
  }
  RETURN_IF_ERROR(DocumentValidator::CheckOptions(params.options.get(), "create", params.db));
  catalog::CreateCollectionRequest request;
  request.db = params.db;
  request.name = params.name;
  request.shard_key_field = params.shard_key_field.value_or("_id");
  request.num_shards = params.num_shards.value_or(options_.default_shards);
  request.options = params.options.Copy();
  ASSIGN_OR_RETURN(request.patterns,
                   patterns_->Configure("create", params.options.get(), nullptr));
  RETURN_IF_ERROR(SyncPatternViews(params.db, params.name, request.patterns.get(), false));
  const bson::BsonDoc configs = request.patterns.Copy();
  const bool has_patterns = !request.patterns.empty();
  RETURN_IF_ERROR(CreateCollectionEntry(std::move(request)).status());
  RETURN_IF_ERROR(SyncPatternViews(params.db, params.name, configs.get(), true));
  if (!has_patterns) return Status::OK();
  return CreatePatternIndexes(params.db, params.name);
}

Status Engine::DropCollection(std::string_view db, std::string_view name) {
  if (auto view = TimeseriesView(db, name)) return DropTimeseries(*view);
  return catalog_->DropCollection(Namespace(db, name));
}

Status Engine::DropDatabase(std::string_view db) { return catalog_->DropDatabase(db); }

std::string Engine::SortSpillDirectory() const {
  if (options_.storage.in_memory) return "";  // the Sorter picks the system temp directory
  return options_.storage.dbpath + "/_tmp";
}

namespace {

using Clock = std::chrono::steady_clock;
using query::DeadlineAfter;

}  // namespace

query::IndexHint Engine::ToIndexHint(FindHint hint) {
  switch (hint) {
    case FindHint::kNone: return query::IndexHint::kNone;
    case FindHint::kIdIndex: return query::IndexHint::kIdIndex;
    case FindHint::kNaturalForward: return query::IndexHint::kNaturalForward;
    case FindHint::kIndex: return query::IndexHint::kIndex;
    case FindHint::kNaturalBackward: return query::IndexHint::kNaturalBackward;
  }
  return query::IndexHint::kNone;
}

StatusWith<query::FindSpec> Engine::SpecFor(const FindParams& params,
                                            const catalog::CollectionEntry* coll) const {
  const bson::Collator* collator = OperationCollator(params.collation, coll);
  ASSIGN_OR_RETURN(CommandExpressions expressions,
                   CommandExpressions::Make(params.db, params.let.get(), collator));
  query::FindSpec spec;
  spec.collator = collator;
  spec.expressions = std::move(expressions.parser);
  spec.filter = params.filter.Copy();
  spec.projection = params.projection.Copy();
  spec.sort = params.sort.Copy();
  spec.skip = params.skip;
  spec.limit = params.limit;
  spec.allow_disk_use = params.allow_disk_use;
  spec.max_sort_bytes = options_.max_blocking_sort_bytes;
  spec.temp_dir = SortSpillDirectory();
  spec.hint = ToIndexHint(params.hint);
  spec.hint_index = params.hint_index.Copy();
  spec.min = params.min.Copy();
  spec.max = params.max.Copy();
  spec.return_key = params.return_key;
  spec.show_record_id = params.show_record_id;
  if (params.explained == ExplainedCommand::kDistinct) spec.distinct_key = params.distinct_key;
  spec.let = params.let.Copy();
  return spec;
}

StatusWith<CursorBatch> Engine::Find(const FindParams& params) {
  const Clock::time_point started = Clock::now();
  std::string ns = Namespace(params.db, params.coll);
  if (catalog_->LookupView(ns) != nullptr) return FindOnView(params);
  std::shared_ptr<catalog::CollectionEntry> coll = catalog_->Lookup(ns);
  if (coll != nullptr) {
    ASSIGN_OR_RETURN(std::optional<std::vector<bson::BsonDoc>> by_id,
                     FindByIdWithoutPlan(*storage_, *coll, params,
                                         OperationCollator(params.collation, coll.get())));
    if (by_id) {
      RecordIdPointReadStats(static_cast<int64_t>(by_id->size()));
      CursorBatch batch;
      batch.ns = std::move(ns);  // not read again on this path
      batch.docs = std::move(*by_id);
      return batch;  // at most one document: no cursor
    }
  }
  ASSIGN_OR_RETURN(query::FindSpec spec, SpecFor(params, coll.get()));
  spec.deadline = DeadlineAfter(started, params.max_time_ms);
  const bool tailable = params.tailable && coll != nullptr && coll->store->capped();
  if (tailable) {
    // MongoDB's rule: a tailable cursor follows natural order only.
    // ({$natural: -1} arrives here as a backward natural hint; an index
    // hint cannot tail either.)
    auto natural_forward = [](const bson::BsonDoc& sort) {
      bson_iter_t it;
      return sort.empty() ||
             (bson_count_keys(sort.get()) == 1 && bson_iter_init_find(&it, sort.get(), "$natural") &&
              BSON_ITER_HOLDS_NUMBER(&it) && bson_iter_as_double(&it) > 0);
    };
    if (!natural_forward(spec.sort) ||
        (spec.hint != query::IndexHint::kNone && spec.hint != query::IndexHint::kNaturalForward)) {
      return Status(ErrorCode::kBadValue,
                    "error processing query: " + query::QueryDescriptionForError(ns, spec) +
                        " cannot use tailable option with a sort other than {$natural: 1}");
    }
    spec.tailable = true;
    spec.await_data = params.await_data;
    if (spec.hint == query::IndexHint::kNone) spec.hint = query::IndexHint::kNaturalForward;
  }
  ASSIGN_OR_RETURN(auto exec, query::PlanExecutor::Make(coll, std::move(spec), Planner()));
  if (params.tailable && coll && !tailable) {
    // Only capped collections take tailable cursors.
    return Status(ErrorCode::kBadValue,
                  "error processing query: " + query::QueryDescriptionForError(ns, exec->spec()) +
                      " tailable cursor requested on non capped collection");
  }

  exec->RecordIndexUse();

  CursorBatch batch;
  batch.ns = ns;
  // A missing collection is an empty result with no cursor, even for
  // batchSize 0 (MongoDB's EOF plan).
  bool exhausted = coll == nullptr;
  int64_t first_batch = params.batch_size.value_or(kDefaultFirstBatch);
  if (first_batch > 0 && !exhausted) {
    storage::Session session = storage_->NewSession();
    RETURN_IF_ERROR(exec->FillBatch(session, first_batch, kMaxBatchBytes, &batch.docs, &exhausted));
  }
  RecordReadStats(*exec, 0, 0, static_cast<int64_t>(batch.docs.size()));
  // A tailable cursor stays open at the end of the collection.
  if ((!exhausted || tailable) && !params.single_batch) {
    std::optional<Clock::duration> leftover = query::TimeLeft(exec->spec().deadline);
    batch.cursor_id = cursors_->Register(ns, std::move(exec), params.no_cursor_timeout, leftover);
  }
  return batch;
}

StatusWith<CursorBatch> Engine::GetMore(const GetMoreParams& params) {
  const Clock::time_point started = Clock::now();
  std::string ns = Namespace(params.db, params.coll);
  ASSIGN_OR_RETURN(query::CursorManager::Pin cursor, cursors_->CheckOut(params.cursor_id, ns));
  // Change stream cursors are awaitData: a getMore's maxTimeMS is how long
  // it waits for events (MongoDB's maxAwaitTimeMS; 1 s when not given).
  auto* stream = dynamic_cast<ChangeStreamCursor*>(cursor->other_source.get());
  if (stream != nullptr) {
    stream->SetAwait(std::chrono::milliseconds(params.max_time_ms.value_or(1000)));
    stream->SetKillFlag(&cursor->kill_pending);
  }
  const bool tailable = cursor->executor && cursor->executor->spec().tailable;
  if (tailable) return TailableGetMore(params, cursor, *storage_);
  if (params.max_time_ms && stream == nullptr) {
    // The cursor stays usable, as in MongoDB.
    cursor.Return();
    return Status(ErrorCode::kBadValue,
                  "cannot set maxTimeMS on getMore command for a non-awaitData cursor");
  }
  // The find's time limit carries over: what is left of it, from now.
  std::optional<Clock::time_point> deadline;
  if (cursor->leftover_time) deadline = started + *cursor->leftover_time;
  query::Interrupt interrupt;
  interrupt.set_deadline(deadline);
  interrupt.set_kill_flag(&cursor->kill_pending);
  if (cursor->executor) {
    cursor->executor->SetInterrupt(interrupt);
  } else {
    cursor->other_source->SetInterrupt(interrupt);
  }

  CursorBatch batch;
  batch.ns = ns;
  bool exhausted = false;
  int64_t max_docs = params.batch_size.value_or(INT64_MAX);
  {
    storage::Session session = storage_->NewSession();
    // An error destroys the cursor (the Pin is dropped unreturned), as in
    // MongoDB.
    if (cursor->executor) {
      const int64_t keys_before = cursor->executor->total_keys_examined();
      const int64_t docs_before = cursor->executor->total_docs_examined();
      RETURN_IF_ERROR(cursor->executor->FillBatch(session, max_docs, kMaxBatchBytes, &batch.docs,
                                                  &exhausted));
      RecordReadStats(*cursor->executor, keys_before, docs_before,
                      static_cast<int64_t>(batch.docs.size()));
    } else {
      RETURN_IF_ERROR(cursor->other_source->FillBatch(session, max_docs, kMaxBatchBytes,
                                                      &batch.docs, &exhausted));
      RecordReturned(static_cast<int64_t>(batch.docs.size()));
    }
  }
  if (stream != nullptr) batch.post_batch_resume_token = stream->post_batch_resume_token();
  if (!exhausted) {
    cursor->leftover_time = query::TimeLeft(deadline);
    batch.cursor_id = cursor->id;
    cursor.Return();
  }
  return batch;
}

StatusWith<int64_t> Engine::Count(const CountParams& params) {
  const Clock::time_point started = Clock::now();
  if (catalog_->LookupView(Namespace(params.db, params.coll)) != nullptr) {
    return CountOnView(params);
  }
  std::shared_ptr<catalog::CollectionEntry> coll =
      catalog_->Lookup(Namespace(params.db, params.coll));
  // Parse first: a bad filter is an error even on a missing collection.
  query::FindSpec spec;
  spec.filter = params.filter.Copy();
  spec.collator = OperationCollator(params.collation, coll.get());
  if (spec.collator != nullptr) {
    // $expr in the filter compares under the collation too.
    ASSIGN_OR_RETURN(CommandExpressions expressions,
                     CommandExpressions::Make(params.db, nullptr, spec.collator));
    spec.expressions = std::move(expressions.parser);
  }
  spec.skip = params.skip;
  spec.limit = params.limit;
  spec.hint = ToIndexHint(params.hint);
  spec.hint_index = params.hint_index.Copy();
  spec.deadline = DeadlineAfter(started, params.max_time_ms);
  ASSIGN_OR_RETURN(auto exec, query::PlanExecutor::Make(coll, std::move(spec), Planner()));
  if (!coll) return int64_t{0};
  if (params.filter.empty() && params.hint == FindHint::kNone) {
    // Collection metadata answers an unfiltered, unhinted count, as in
    // MongoDB (a hinted one counts what the hinted index holds).
    int64_t n = std::max<int64_t>(coll->store->TotalStats().count - params.skip, 0);
    if (params.limit > 0) n = std::min(n, params.limit);
    return n;
  }
  exec->RecordIndexUse();
  storage::Session session = storage_->NewSession();
  StatusWith<int64_t> counted = exec->CountAll(session, /*count_scan=*/true);
  RecordReadStats(*exec, 0, 0, /*returned=*/-1, /*count_scan=*/true);
  return counted;
}

}  // namespace tigerdoc::engine
