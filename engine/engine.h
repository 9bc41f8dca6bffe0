#pragma once
// Engine: the database behind the wire. wire/ calls only this facade (and
// the Params/Result structs of engine/ops.h); it knows nothing of sockets.
//
//   Engine ── owns ──▶ storage::StorageEngine (WiredTiger connection)
//          ── owns ──▶ catalog::Catalog (collections, their sharded stores)
//          ── owns ──▶ query::CursorManager (open query cursors)
//
// Thread-safety: all methods are thread-safe; each call borrows its own
// storage session.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <span>
#include <thread>
#include <vector>
#include <string_view>

#include "engine/archive/archive_spec.h"
#include "engine/base/status.h"
#include "engine/catalog/catalog.h"
#include "engine/operation_registry.h"
#include "engine/query/cursor_manager.h"
#include "engine/query/plan_executor.h"
#include "engine/query/planner/plan_cache.h"
#include "engine/repl/logical_clock.h"
#include "engine/session/logical_session_catalog.h"
#include "engine/ops.h"
#include "engine/storage/storage_engine.h"

namespace tigerdoc::update {
class UpdateDriver;
}
namespace tigerdoc::query {
class Matcher;
}

namespace tigerdoc::engine::repl {
class LogicalClock;
}

namespace tigerdoc::engine {

class AggregateCursor;
class ChangeLog;
struct ChangeStreamParams;
struct CommandExpressions;

class PatternRegistry;

struct EngineOptions {
  storage::StorageOptions storage;
  // The patterns this server has (wire/main.cc fills it); none when null.
  // Configured collections get their hooks attached before Open returns.
  std::shared_ptr<const PatternRegistry> patterns;
  int default_shards = 4;  // shard tables per collection unless `create` says otherwise
  // Cursors idle longer than this are killed (MongoDB's cursorTimeoutMillis),
  // checked every cursor_reap_interval.
  std::chrono::milliseconds cursor_timeout = std::chrono::minutes(10);
  std::chrono::milliseconds cursor_reap_interval = std::chrono::seconds(60);
  // Memory a blocking sort may use before it spills (allowDiskUse) or fails
  // with 292 (MongoDB's internalQueryMaxBlockingSortMemoryUsageBytes).
  int64_t max_blocking_sort_bytes = 100 * 1024 * 1024;
  // How often the TTL monitor looks for expired documents (MongoDB's
  // ttlMonitorSleepSecs); zero disables the monitor.
  std::chrono::seconds ttl_monitor_sleep = std::chrono::seconds(60);
  // Retention of the change log (change streams): the oldest events are
  // trimmed beyond this size or age (changeLogRetentionMB / Hours).
  int64_t change_log_retention_mb = 1024;
  double change_log_retention_hours = 24;
};

class Engine {
 public:
  static StatusWith<std::unique_ptr<Engine>> Open(const EngineOptions& options);
  ~Engine();

  const EngineOptions& options() const { return options_; }
  catalog::Catalog& catalog() { return *catalog_; }
  storage::StorageEngine& storage() { return *storage_; }
  query::CursorManager& cursors() { return *cursors_; }
  // The cluster time of the one-node replica set (one tick per committed
  // change; engine/repl/) and the change log change streams read
  // (engine/changes/).
  repl::LogicalClock& clock() { return *clock_; }
  ChangeLog& change_log() { return *change_log_; }
  // Client sessions, retryable writes and transactions (engine/session/).
  LogicalSessionCatalog& sessions() { return *sessions_; }

  // aggregate with a leading $changeStream (changes/engine_change_streams.cc):
  // a tailable, awaitData cursor over the change log; its batches carry
  // postBatchResumeToken. Errors: the stage's option errors, 286 when the
  // resume point was trimmed from the log.
  StatusWith<CursorBatch> OpenChangeStream(const ChangeStreamParams& params);

  // DDL. CreateCollection parses the options patterns own (the registry's
  // errors) and attaches their hooks before the collection is visible.
  Status CreateCollection(const CreateParams& params);
  // convertToCapped (engine_capped.cc): replaces the collection by a capped
  // one of `size` bytes holding its documents in natural order (the oldest
  // removed when they do not fit) and only the _id index, as MongoDB 7.
  // NamespaceNotFound (26) when there is no such collection;
  // CommandNotSupportedOnView (166) for a view.
  Status ConvertToCapped(std::string_view db, std::string_view name, int64_t size);
  // collMod {cappedSize, cappedMax} (MongoDB 6.0+): `size` / `max` checked
  // as collMod's parser does, then 72 "Collection must be capped." for any
  // other collection; the new limits apply from the next insert, which
  // evicts the oldest documents past them (engine_capped.cc).
  Status ModifyCappedLimits(std::string_view db, std::string_view name,
                            const std::optional<int64_t>& size, const std::optional<int64_t>& max);
  // Creates a collection from a catalog request, attaching the hooks of
  // request.patterns first ($out's temporary collection).
  StatusWith<std::shared_ptr<catalog::CollectionEntry>> CreateCollectionEntry(
      catalog::CreateCollectionRequest request);

  // Patterns (engine_patterns.cc).
  const PatternRegistry& patterns() const { return *patterns_; }
  // collMod of pattern options: `fields` holds the command's pattern
  // options ({<option>: value}; null removes one). Validates, attaches the
  // new hooks (building what they keep from existing data) and persists,
  // with the collection's writes held off. NamespaceNotFound (26).
  Status ModifyPatterns(std::string_view db, std::string_view coll, const bson_t* fields);
  // {<pattern>: {...}} for collStats; empty without patterns.
  StatusWith<bson::BsonDoc> PatternStats(const catalog::CollectionEntry& coll);
  // The same for one shard ($collStats' per-shard documents).
  StatusWith<bson::BsonDoc> PatternShardStats(const catalog::CollectionEntry& coll, int shard);
  // {<pattern>: {...}} for explain; empty without patterns.
  bson::BsonDoc PatternExplain(const catalog::CollectionEntry& coll) const;
  // For validate: what the patterns keep beside the documents, recomputed;
  // one line per difference.
  Status ValidatePatterns(const catalog::CollectionEntry& coll, std::vector<std::string>* problems);
  // Builds the indexes the patterns of db.coll need (Pattern::IndexesFor)
  // that it lacks (no index with the same key pattern).
  Status CreatePatternIndexes(std::string_view db, std::string_view coll);
  // A command a pattern answers (Pattern::command_names); CommandNotFound
  // when none does. `operation` (may be null): the registered operation
  // running it, for progress in currentOp and killOp.
  StatusWith<bson::BsonDoc> RunPatternCommand(std::string_view command, std::string_view db,
                                              const bson_t* body, Operation* operation = nullptr);

  // collMod of validator / validationLevel / validationAction (`changes`
  // holds those given): checked as create checks them, merged into the
  // collection's options and persisted (write/engine_validation.cc).
  // NamespaceNotFound (26) when there is no such collection.
  Status ModifyValidation(std::string_view db, std::string_view coll, const bson_t* changes);
  Status DropCollection(std::string_view db, std::string_view name);
  Status DropDatabase(std::string_view db);
  // Views (engine_views.cc). CreateView validates the pipeline as
  // aggregate would parse it, then the catalog's checks (name taken,
  // cycles, depth). Reads of a view (Find, Count, Distinct, Aggregate) run
  // the view's pipeline, views on views resolved innermost first.
  Status CreateView(const CreateViewParams& params);
  // collMod {viewOn, pipeline} of an existing view.
  Status ModifyView(const CreateViewParams& params);
  // CommandNotSupportedOnView (166) "Namespace db.v is a view, not a
  // collection" when db.coll is a view: what writes and index commands
  // answer.
  Status RefuseView(std::string_view db, std::string_view coll) const;
  // The time-series collection db.coll (a view over its buckets,
  // engine_timeseries.cc), nullptr when db.coll is not one.
  std::shared_ptr<const catalog::ViewDefinition> TimeseriesView(std::string_view db,
                                                                std::string_view coll) const;
  // collMod of a time-series collection (`fields`: the command's options):
  // expireAfterSeconds (a number, "off") changes the buckets' expiry index,
  // the buckets' pattern config and the collection's row; other options
  // are refused.
  Status ModifyTimeseries(const catalog::ViewDefinition& view, const bson_t* fields);

  // Indexes (engine_indexes.cc). CreateIndexes builds every new index over
  // the existing documents under the collection's exclusive write lock, all
  // or nothing (a failed build leaves no index and no tables); it creates
  // the collection when missing. ListIndexes: the _id index first, then
  // creation order; NamespaceNotFound (26) for a missing collection.
  // DropIndexes returns nIndexesWas.
  StatusWith<CreateIndexesResult> CreateIndexes(const CreateIndexesParams& params);
  StatusWith<std::vector<bson::BsonDoc>> ListIndexes(std::string_view db, std::string_view coll);
  // $indexStats (engine_indexes.cc): one document per index, _id_ first,
  // {name, key, host, accesses: {ops, since}, spec}; none for a missing
  // collection. `host` is the server's "<hostname>:<port>". On a view, as
  // MongoDB resolves it: the collection's under a view with an empty
  // pipeline, else 40602 ($indexStats is no longer the first stage).
  StatusWith<std::vector<bson::BsonDoc>> IndexStats(std::string_view db, std::string_view coll,
                                                    const std::string& host);
  StatusWith<int> DropIndexes(const DropIndexesParams& params);
  StatusWith<IndexModificationResult> ModifyIndex(std::string_view db, std::string_view coll,
                                                  const IndexModification& modification);
  // Approximate bytes of each index (by a scan of its tables), _id_ first;
  // with `shard`, of that shard's tables only (a unique index is one table
  // over all shards: it counts as shard 0's, so per-shard sizes add up).
  std::vector<std::pair<std::string, int64_t>> IndexSizes(const catalog::CollectionEntry& coll,
                                                          std::optional<int> shard = std::nullopt);

  // validate (engine_validate.cc): walks every shard table of db.coll under
  // one snapshot and checks each record is valid BSON stored under the key
  // its shard key and _id give, the _id table (shard key other than _id)
  // maps each _id to its record, and every index holds exactly the entries
  // its documents generate. Problems are reported in the result, not as a
  // Status. NamespaceNotFound (26) for a missing collection.
  StatusWith<ValidateResult> Validate(std::string_view db, std::string_view coll);

  // TTL: deletes the documents of every TTL index whose date is older than
  // expireAfterSeconds (ttl_monitor.cc); returns how many. The TTL monitor
  // thread calls it every ttl_monitor_sleep.
  StatusWith<int64_t> DeleteExpiredDocuments();
  // ttlMonitorSleepSecs, settable at run time (setParameter); 0 pauses.
  void SetTtlMonitorSleep(int64_t seconds);
  int64_t ttl_monitor_sleep_secs() const { return ttl_monitor_sleep_secs_.load(); }
  // cursorTimeoutMillis, settable at run time (setParameter): idle cursors
  // are reaped against the new timeout within a quarter of it.
  void SetCursorTimeout(std::chrono::milliseconds timeout);

  // Archive moves (archive/engine_archive.cc): moves the documents `spec`
  // selects from spec.db.spec.coll into its archive, one WiredTiger
  // transaction per batch (the documents written with the $merge stage's
  // semantics and removed from the source together). Creates the archive
  // with the source's indexes when missing, and the unionView. `op` (may be
  // null) gets the progress (currentOp) and is checked between batches
  // (killOp: 11601, maxTimeMS: 50). A failure after some batches keeps them
  // moved and says so (errmsg, and `moved` / `batches` beside it).
  // Errors: 26 no source, 166 a view as source or archive, the $merge
  // stage's (11000 with whenMatched "fail"), the writers' (validation).
  StatusWith<ArchiveResult> Archive(const ArchiveSpec& spec, Operation* op);

  // The operations running now (currentOp, killOp).
  OperationRegistry& operations() { return operations_; }

  // Writes. The command layer turns per-statement errors into writeErrors.
  // InsertMany inserts a batch: groups of documents share one transaction (one journal
  // write), as MongoDB groups batch inserts; a group that fails is retried
  // one document at a time so each failure is reported alone. Returns one
  // Status per document attempted; with `ordered`, stops after the first
  // failure (later documents are not attempted and get no Status). A bad
  // namespace fails the whole call.
  // `bypass_validation`: the command's bypassDocumentValidation.
  StatusWith<std::vector<Status>> InsertMany(std::string_view db, std::string_view coll,
                                             std::vector<bson::BsonDoc> docs, bool ordered,
                                             bool bypass_validation = false);
  // The same over the bytes of documents the caller keeps for the call
  // (each one valid BSON document; the insert command's views into its
  // request): only what is stored is copied, and nothing keeps them after.
  StatusWith<std::vector<Status>> InsertMany(std::string_view db, std::string_view coll,
                                             std::span<const std::string_view> docs, bool ordered,
                                             bool bypass_validation = false);
  // One update / delete statement each.
  StatusWith<UpdateResult> Update(std::string_view db, std::string_view coll,
                                  const UpdateStatement& statement);
  StatusWith<DeleteResult> Delete(std::string_view db, std::string_view coll,
                                  const DeleteStatement& statement);
  // Updates or removes the first document matching `query` in `sort` order
  // and returns it (before or after the change).
  StatusWith<FindAndModifyResult> FindAndModify(const FindAndModifyParams& params);

  // Reads.
  StatusWith<CursorBatch> Find(const FindParams& params);
  StatusWith<CursorBatch> GetMore(const GetMoreParams& params);
  StatusWith<int64_t> Count(const CountParams& params);
  // Runs an aggregation pipeline; results stream through a cursor.
  StatusWith<CursorBatch> Aggregate(AggregateParams params);
  // The distinct values of `key` among matching documents, array values
  // unwound one level, each as {"": value}, in BSON order.
  StatusWith<std::vector<bson::BsonDoc>> Distinct(const DistinctParams& params);
  // explain of find, count, distinct (params.explained); on a view, the
  // aggregate explain of the pipeline the read becomes (ExplainOnView).
  StatusWith<bson::BsonDoc> ExplainFind(const FindParams& params, ExplainVerbosity verbosity);
  // explain of aggregate (engine_aggregate_explain.cc): the shards part of
  // the pipeline with each shard's plan of the pushed-down $match / $sort /
  // $limit, and the merger part, as mongos prints it; with executionStats /
  // allPlansExecution the pipeline runs (nothing written) and each shard's
  // stages report what they returned.
  StatusWith<bson::BsonDoc> ExplainAggregate(AggregateParams params, ExplainVerbosity verbosity);

  // What the planner may use: storage for key counts, the plan cache.
  // Every executor the engine opens plans with it (aggregation scans too).
  query::PlannerContext Planner() { return query::PlannerContext{storage_.get(), &plan_cache_}; }

  // j:true — blocks until all committed writes are on disk.
  Status FlushJournal() { return storage_->FlushJournal(); }

 private:
  // Reads views for $lookup / $graphLookup / $unionWith through
  // OpenAggregate (aggregate_cursor.cc).
  friend class EngineResolver;
  Engine() = default;
  void ReapCursorsUntilStopped();
  void RunTtlMonitorUntilStopped();
  // Removes the document with _id `id` if it still matches, in one write
  // unit through the collection writer (engine_writes.cc).
  StatusWith<bool> RemoveIfMatches(storage::Session& session,
                                   const std::shared_ptr<catalog::CollectionEntry>& coll,
                                   const bson::BsonDoc& id, const query::Matcher& matcher);
  // Where spilling sorts write: <dbpath>/_tmp as in MongoDB (the system
  // temporary directory for an in-memory engine).
  std::string SortSpillDirectory() const;
  // Archive: creates a missing archive with the source's indexes; creates
  // or restores the union view.
  Status PrepareArchiveTarget(const ArchiveSpec& spec, ArchiveResult* result);
  Status EnsureArchiveUnionView(const ArchiveSpec& spec);
  // Attaches the hooks of every configured collection (Open).
  Status AttachAllPatterns();
  // The patterns' companion views of `coll` under `configs`
  // (Pattern::ViewsOf); with `create_missing` false only checks that their
  // names are free or already such views.
  Status SyncPatternViews(std::string_view db, std::string_view coll, const bson_t* configs,
                          bool create_missing);
  // The executor spec of a find (engine.cc); explain uses it too. Errors:
  // its `let` variables'.
  // The find spec of `params` on `coll` (null: no such collection), with
  // the operation's collation (OperationCollator) set for the matcher, the
  // sort and $expr alike.
  StatusWith<query::FindSpec> SpecFor(const FindParams& params,
                                      const catalog::CollectionEntry* coll) const;
  // The executor's form of a command's hint.
  static query::IndexHint ToIndexHint(FindHint hint);
  StatusWith<bson::BsonDoc> UpsertInsert(storage::Session& session, std::string_view db,
                                         std::string_view coll_name, const query::Matcher& query,
                                         const update::UpdateDriver& driver,
                                         bool bypass_validation = false);

  // Time-series collections (engine_timeseries.cc). A time-series
  // collection "c" is a view (catalog::ViewDefinition::timeseries set) over
  // its buckets collection "system.buckets.c", whose bucket pattern stores
  // the measurements inserted into "c" (PatternHook::InsertRouted).
  // create with `timeseries`: the buckets collection (with the pattern's
  // config, its meta/time index and, with expireAfterSeconds, a TTL index
  // on the buckets' greatest time), the view, and bucket.view if asked.
  Status CreateTimeseries(const CreateParams& params);
  // InsertMany into a time-series collection, with InsertMany's grouping.
  StatusWith<std::vector<Status>> InsertMeasurements(const catalog::ViewDefinition& view,
                                                     std::span<const std::string_view> docs,
                                                     bool ordered);
  // delete / update of measurements (engine_timeseries_writes.cc).
  StatusWith<DeleteResult> DeleteMeasurements(const catalog::ViewDefinition& view,
                                              const DeleteStatement& statement);
  // *first_after (when given): the first matched measurement as updated,
  // or the upserted one.
  StatusWith<UpdateResult> UpdateMeasurements(const catalog::ViewDefinition& view,
                                              const UpdateStatement& statement,
                                              std::optional<bson::BsonDoc>* first_after = nullptr);
  StatusWith<FindAndModifyResult> FindAndModifyMeasurements(const catalog::ViewDefinition& view,
                                                            const FindAndModifyParams& params);
  // Indexes of a time-series collection, translated to and from its
  // buckets' fields (engine/agg/timeseries/index_translation.h).
  StatusWith<CreateIndexesResult> CreateTimeseriesIndexes(const catalog::ViewDefinition& view,
                                                          const CreateIndexesParams& params);
  StatusWith<std::vector<bson::BsonDoc>> ListTimeseriesIndexes(const catalog::ViewDefinition& view);
  StatusWith<int> DropTimeseriesIndexes(const catalog::ViewDefinition& view,
                                        const DropIndexesParams& params);
  // drop of a time-series collection: its views, then its buckets.
  Status DropTimeseries(const catalog::ViewDefinition& view);

  // A view resolved to the collection under it and the pipeline of every
  // view on the way (innermost first), as an array document.
  struct ResolvedView {
    std::string coll;
    bson::BsonDoc pipeline;
  };
  StatusWith<ResolvedView> ResolveView(std::string_view db, std::string_view view) const;
  // find / count / distinct on a view, run as the aggregation MongoDB
  // turns them into.
  StatusWith<CursorBatch> FindOnView(const FindParams& params);
  StatusWith<int64_t> CountOnView(const CountParams& params);
  // The aggregations those reads become (on the view's namespace; the
  // view's own pipeline is prepended when they run). FindAsAggregate fails
  // for the find options aggregation has no place for (MongoDB's errors).
  static StatusWith<AggregateParams> FindAsAggregate(const FindParams& params);
  static AggregateParams CountAsAggregate(std::string_view db, std::string_view coll,
                                          const bson_t* filter, int64_t skip, int64_t limit);
  static AggregateParams MatchAsAggregate(std::string_view db, std::string_view coll,
                                          const bson_t* filter);
  // Explain of find / count / distinct (params.explained) on a view: the
  // aggregate explain of what they run.
  StatusWith<bson::BsonDoc> ExplainOnView(const FindParams& params, ExplainVerbosity verbosity);
  // The documents of a view matching a distinct's filter, read with its
  // hint and within its maxTimeMS.
  StatusWith<std::vector<bson::BsonDoc>> DocumentsOfView(const DistinctParams& params);
  // Runs an aggregation to its end.
  StatusWith<std::vector<bson::BsonDoc>> AggregateAll(AggregateParams params);
  // The cursor of an aggregation (a view's pipeline prepended); *ns is the
  // namespace its batches report.
  StatusWith<std::unique_ptr<AggregateCursor>> OpenAggregate(AggregateParams params,
                                                             std::string* ns);
  // An aggregation on a view becomes one on the collection under it with
  // the views' pipelines first; *ns is the namespace its batches report.
  Status ResolveAggregateView(AggregateParams* params, std::string* ns) const;
  // The expression context of an aggregation: `let`, $$NOW, memory limits.
  StatusWith<CommandExpressions> AggregateExpressions(const AggregateParams& params) const;

  EngineOptions options_;
  std::unique_ptr<storage::StorageEngine> storage_;
  std::unique_ptr<repl::LogicalClock> clock_;
  std::unique_ptr<ChangeLog> change_log_;
  std::unique_ptr<catalog::Catalog> catalog_;
  std::shared_ptr<const PatternRegistry> patterns_;
  std::unique_ptr<query::CursorManager> cursors_;
  query::planner::PlanCache plan_cache_;
  OperationRegistry operations_;
  std::unique_ptr<LogicalSessionCatalog> sessions_;

  std::mutex reaper_mutex_;
  std::condition_variable reaper_wakeup_;
  bool stopping_ = false;
  std::thread reaper_;
  std::thread ttl_monitor_;
  std::atomic<int64_t> ttl_monitor_sleep_secs_{60};
  bool ttl_sleep_changed_ = false;  // guarded by reaper_mutex_
};

}  // namespace tigerdoc::engine
