#include "engine/aggregate_cursor.h"

#include "engine/agg/document_metadata.h"

#include "engine/catalog/pipeline_references.h"
#include "engine/plan_summary.h"

#include "engine/agg/match_pushdown.h"
#include "engine/agg/timeseries/bucket_pushdown.h"

#include "engine/agg/query_expressions.h"
#include "engine/command_expressions.h"
#include <random>

#include "engine/aggregate_explain_run.h"
#include "engine/engine.h"
#include "engine/operation_collation.h"
#include "engine/index/index_table.h"
#include "engine/ops.h"
#include "engine/query/deadline.h"
#include "engine/query/plan_executor.h"
#include "engine/write/pattern_registry.h"

namespace tigerdoc::engine {
namespace {

// How many documents pass between two interrupt checks (one clock read).
constexpr int kInterruptCheckInterval = 64;

// Reads a collection through a PlanExecutor, a batch at a time, with the
// session its cursor lent it for the current request. Checks the request's
// interrupt every kInterruptCheckInterval documents it hands up: the stages
// above may spend any time on each (a $group accumulating, a $lookup).
class ScanSource : public agg::DocumentSource {
 public:
  ScanSource(std::unique_ptr<query::PlanExecutor> exec, std::shared_ptr<SessionSlot> slot)
      : exec_(std::move(exec)), slot_(std::move(slot)) {}

  StatusWith<std::optional<bson::BsonDoc>> Next() override {
    if (++since_check_ >= kInterruptCheckInterval) {
      since_check_ = 0;
      RETURN_IF_ERROR(slot_->interrupt.Check());
    }
    if (buffer_.empty() && !exhausted_) {
      INVARIANT(slot_->session != nullptr);
      exec_->SetInterrupt(slot_->interrupt);
      std::vector<bson::BsonDoc> batch;
      const int64_t keys_before = exec_->total_keys_examined();
      const int64_t docs_before = exec_->total_docs_examined();
      RETURN_IF_ERROR(exec_->FillBatch(*slot_->session, kReadAhead, kMaxBatchBytes, &batch, &exhausted_));
      RecordReadStats(*exec_, keys_before, docs_before, /*returned=*/-1);
      for (bson::BsonDoc& doc : batch) buffer_.push_back(std::move(doc));
    }
    if (buffer_.empty()) return std::optional<bson::BsonDoc>();
    bson::BsonDoc doc = std::move(buffer_.front());
    buffer_.pop_front();
    return std::optional<bson::BsonDoc>(std::move(doc));
  }
  int64_t docs_examined() const override { return exec_->total_docs_examined(); }
  int64_t keys_examined() const override { return exec_->total_keys_examined(); }

 private:
  static constexpr int64_t kReadAhead = 256;
  std::unique_ptr<query::PlanExecutor> exec_;
  std::shared_ptr<SessionSlot> slot_;
  std::deque<bson::BsonDoc> buffer_;
  bool exhausted_ = false;
  int since_check_ = 0;
};

// The scan plans as a find with the same query (and hint) would: shard
// targeting and the query planner's index choice (and its plan cache). Each
// scan counts as one use of the indexes its plan reads ($indexStats).
StatusWith<std::unique_ptr<agg::DocumentSource>> OpenScan(Engine* engine, std::string_view db,
                                                          std::string_view coll, query::FindSpec spec,
                                                          std::shared_ptr<SessionSlot> slot,
                                                          const ScanOptions& options = {}) {
  spec.hint = options.hint;
  spec.hint_index = options.hint_index.Copy();
  ASSIGN_OR_RETURN(auto exec, query::PlanExecutor::Make(engine->catalog().Lookup(Namespace(db, coll)),
                                                        std::move(spec), engine->Planner()));
  exec->RecordIndexUse();
  return std::unique_ptr<agg::DocumentSource>(new ScanSource(std::move(exec), std::move(slot)));
}

// A view that $lookup, $graphLookup or $unionWith reads: the aggregation
// the view resolves to (its pipeline over the collection under it, then the
// reader's filter as a $match), run with the reader's collation (which
// CheckPipelineViewCollations made the view's), pulled in batches through
// the reader's session slot and interrupt.
class ViewSource : public agg::DocumentSource {
 public:
  ViewSource(std::unique_ptr<AggregateCursor> cursor, std::shared_ptr<SessionSlot> slot)
      : cursor_(std::move(cursor)), slot_(std::move(slot)) {}

  StatusWith<std::optional<bson::BsonDoc>> Next() override {
    if (buffer_.empty() && !exhausted_) {
      if (slot_->session == nullptr) return Status(ErrorCode::kInternalError, "view read outside a request");
      cursor_->SetInterrupt(slot_->interrupt);
      std::vector<bson::BsonDoc> batch;
      RETURN_IF_ERROR(cursor_->FillBatch(*slot_->session, kBatch, kBatchBytes, &batch, &exhausted_));
      for (bson::BsonDoc& doc : batch) buffer_.push_back(std::move(doc));
    }
    if (buffer_.empty()) return std::optional<bson::BsonDoc>();
    bson::BsonDoc doc = std::move(buffer_.front());
    buffer_.pop_front();
    return std::optional<bson::BsonDoc>(std::move(doc));
  }

 private:
  static constexpr int64_t kBatch = 256;
  static constexpr int64_t kBatchBytes = 16 * 1024 * 1024;
  std::unique_ptr<AggregateCursor> cursor_;
  std::shared_ptr<SessionSlot> slot_;
  std::deque<bson::BsonDoc> buffer_;
  bool exhausted_ = false;
};

}  // namespace

StatusWith<std::unique_ptr<agg::DocumentSource>> EngineResolver::Open(std::string_view db,
                                                                      std::string_view coll,
                                                                      const bson_t* filter) {
  if (engine_->catalog().LookupView(Namespace(db, coll)) != nullptr) return OpenView(db, coll, filter);
  query::FindSpec spec;
  if (filter) spec.filter = bson::BsonDoc::CopyOf(filter);
  spec.collator = collator_;
  return OpenScan(engine_, db, coll, std::move(spec), slot_);
}

StatusWith<std::unique_ptr<agg::DocumentSource>> EngineResolver::OpenView(std::string_view db,
                                                                          std::string_view view,
                                                                          const bson_t* filter) {
  AggregateParams params;
  params.db = std::string(db);
  params.coll = std::string(view);
  params.collation = collator_;
  // The filter narrows what the reader gets ($lookup's foreignField
  // equality is its whole match). One that names the reader's variables
  // ($expr of a sub-pipeline's leading $match) cannot run out here; the
  // reader's own stages apply it then.
  if (filter != nullptr && !bson_empty(filter) &&
      query::Matcher::Parse(filter, nullptr, collator_).ok()) {
    bson_t stage;
    bson_append_document_begin(params.pipeline.mutable_get(), "0", 1, &stage);
    BSON_APPEND_DOCUMENT(&stage, "$match", filter);
    bson_append_document_end(params.pipeline.mutable_get(), &stage);
  }
  std::string ns;
  ASSIGN_OR_RETURN(std::unique_ptr<AggregateCursor> cursor, engine_->OpenAggregate(std::move(params), &ns));
  return std::unique_ptr<agg::DocumentSource>(new ViewSource(std::move(cursor), slot_));
}

// Gives the (empty) temporary collection of a $out the secondary indexes of
// its target, as MongoDB does before writing: documents inserted afterwards
// go through the write path and fill them.
Status EngineResolver::CopyIndexes(const catalog::CollectionEntry& from, catalog::CollectionEntry& to) {
  std::shared_ptr<const index::IndexSet> indexes = from.indexes();
  if (indexes->specs.empty()) return Status::OK();
  catalog::Catalog& catalog = engine_->catalog();
  std::unique_lock<std::shared_mutex> writes(to.write_mutex());
  ASSIGN_OR_RETURN(int64_t first_id, catalog.ReserveIndexIds(to, static_cast<int>(indexes->specs.size())));
  std::vector<index::IndexSpec> specs;
  storage::Session session = engine_->storage().NewSession();
  for (const auto& spec : indexes->specs) {
    index::IndexSpec copy = spec->Clone();
    copy.id = first_id++;
    copy.usage = std::make_shared<index::IndexUsage>();  // a new index: its own accesses
    copy.multikey = false;
    copy.multikey_paths.assign(copy.fields.size(), {});
    copy.wildcard_multikey_paths.clear();
    RETURN_IF_ERROR(index::CreateIndexTables(session, to.metadata.ident, copy, to.metadata.num_shards));
    specs.push_back(std::move(copy));
  }
  return catalog.AddIndexes(to, std::move(specs));
}

StatusWith<agg::WriteTarget> EngineResolver::DescribeTarget(std::string_view db, std::string_view coll) {
  agg::WriteTarget target;
  // Views are catalog rows of their own, never collection entries.
  if (engine_->catalog().LookupView(Namespace(db, coll)) != nullptr) {
    target.exists = true;
    target.is_view = true;
    return target;
  }
  std::shared_ptr<catalog::CollectionEntry> entry = engine_->catalog().Lookup(Namespace(db, coll));
  if (entry == nullptr) return target;
  target.exists = true;
  target.unique_keys.push_back({"_id"});
  // MongoDB accepts a unique index that is not partial as proof that the
  // `on` fields identify one document.
  for (const auto& spec : entry->indexes()->specs) {
    if (!spec->unique || spec->partial_filter) continue;
    std::vector<std::string> fields;
    for (const index::IndexField& f : spec->fields) fields.push_back(f.path.dotted());
    target.unique_keys.push_back(std::move(fields));
  }
  return target;
}

Status EngineResolver::Insert(std::string_view db, std::string_view coll,
                              std::vector<bson::BsonDoc> docs) {
  ASSIGN_OR_RETURN(std::vector<Status> results,
                   engine_->InsertMany(db, coll, std::move(docs), /*ordered=*/true,
                                       bypass_validation_));
  for (const Status& st : results) RETURN_IF_ERROR(st);
  return Status::OK();
}

Status EngineResolver::Replace(std::string_view db, std::string_view coll, const bson_t* id,
                               const bson_t* replacement, bool* matched) {
  UpdateStatement statement;
  bson_iter_t it;
  bson_iter_init(&it, id);
  bson_iter_next(&it);
  // {_id: {$eq: v}}: a regex or an object _id is compared, not interpreted.
  bson_t cond;
  bson_append_document_begin(statement.query.mutable_get(), "_id", 3, &cond);
  bson_append_iter(&cond, "$eq", 3, &it);
  bson_append_document_end(statement.query.mutable_get(), &cond);
  statement.update = bson::BsonDoc::CopyOf(replacement);
  statement.bypass_document_validation = bypass_validation_;
  ASSIGN_OR_RETURN(UpdateResult result, engine_->Update(db, coll, statement));
  *matched = result.matched > 0;
  return Status::OK();
}

StatusWith<std::string> EngineResolver::CreateTemp(std::string_view db, std::string_view like) {
  static thread_local std::mt19937_64 rng(std::random_device{}());
  char suffix[17];
  std::snprintf(suffix, sizeof(suffix), "%016llx", static_cast<unsigned long long>(rng()));
  catalog::CreateCollectionRequest request;
  request.db = std::string(db);
  request.name = std::string("tmp.agg_out.") + suffix;
  request.num_shards = engine_->options().default_shards;
  bson_t* options = request.options.mutable_get();
  if (auto target = engine_->catalog().Lookup(Namespace(db, like))) {
    const Status replaceable = engine_->patterns().ForEachConfigured(
        target->patterns()->configs.get(), [&](const Pattern& pattern, const bson_t*) {
          if (!pattern.KeepsOtherCollectionsInStep()) return Status::OK();
          return Status(ErrorCode::kIllegalOperation,
                        "$out cannot replace " + target->metadata.ns + ": its " +
                            std::string(pattern.name()) +
                            " option keeps other collections in step with each document written, "
                            "which replacing the whole collection at once would not; write into it "
                            "with $merge instead");
        });
    RETURN_IF_ERROR(replaceable);
    request.shard_key_field = target->metadata.shard_key_field;
    request.num_shards = target->metadata.num_shards;
    // The target's current options and patterns (collMod replaces them
    // under the exclusive write lock): the documents $out writes obey the
    // target's rules.
    std::shared_lock<std::shared_mutex> options_lock(target->write_mutex());
    bson_copy_to_excluding_noinit(target->metadata.options.get(), options, catalog::kTempOption,
                                  nullptr);
    request.patterns = target->patterns()->configs.Copy();
  }
  BSON_APPEND_BOOL(options, catalog::kTempOption, true);
  const std::string temp_name = request.name;
  ASSIGN_OR_RETURN(auto entry, engine_->CreateCollectionEntry(std::move(request)));
  if (auto target = engine_->catalog().Lookup(Namespace(db, like))) {
    Status copied = CopyIndexes(*target, *entry);
    if (!copied.ok()) {
      static_cast<void>(engine_->catalog().DropCollection(entry->metadata.ns));
      return copied.WithContext("Copying indexes for $out failed :: caused by :: ");
    }
  }
  return temp_name;
}

Status EngineResolver::ReplaceWithTemp(std::string_view db, std::string_view temp,
                                       std::string_view target_db, std::string_view target) {
  // A $out into the collection it read leaves this request's session with
  // cached cursors on the tables the rename drops; WiredTiger cannot drop a
  // table with open cursors (each drop would wait out its busy timeout).
  if (slot_->session != nullptr) slot_->session->CloseCachedCursors();
  return engine_->catalog().RenameCollection(Namespace(db, temp), target_db, target,
                                             /*drop_target=*/true);
}

Status EngineResolver::DropTemp(std::string_view db, std::string_view temp) {
  return engine_->catalog().DropCollection(Namespace(db, temp));
}

StatusWith<std::unique_ptr<AggregateCursor>> AggregateCursor::Make(
    Engine* engine, std::string db, std::string coll, const bson_t* pipeline_array,
    agg::ExpressionContext ctx, std::optional<std::vector<bson::BsonDoc>> input,
    const ScanOptions& scan) {
  std::unique_ptr<AggregateCursor> cursor(new AggregateCursor());
  cursor->slot_ = std::make_shared<SessionSlot>();
  cursor->resolver_ = std::make_unique<EngineResolver>(engine, cursor->slot_,
                                                       scan.bypass_document_validation);
  cursor->resolver_->set_collator(ctx.collator);
  ctx.resolver = cursor->resolver_.get();
  if (!input && !coll.empty()) {
    ctx.source_db = db;
    ctx.source_coll = coll;
  }
  ASSIGN_OR_RETURN(agg::Pipeline pipeline, agg::Pipeline::Parse(pipeline_array, ctx));
  cursor->pipeline_.emplace(std::move(pipeline));

  std::unique_ptr<agg::DocumentSource> source;
  agg::Pipeline::RunOptions run;
  if (input) {
    source = std::make_unique<agg::VectorDocumentSource>(std::move(*input));
  } else if (!coll.empty()) {
    // The scan runs the query the explain's $cursor prints (SplitOf): the
    // leading $match (shard targeting, index bounds; the $match stage
    // still runs, so this only narrows what is read) and a $sort directly
    // after it with its top-k, which an index can provide (SORT_MERGE
    // across shards) or the scan's Sorter performs under the blocking
    // stages' memory limit; that $sort stage is then left out.
    // The pushed-down filter may hold an $expr reading the pipeline's
    // variables.
    const agg::Pipeline& pipeline = *cursor->pipeline_;
    const PipelineSplit split = SplitOf(pipeline, pipeline_array);
    query::FindSpec spec;
    if (split.cursor_filter) spec.filter = split.cursor_filter->Copy();
    // A pipeline reading {$meta: "sortKey"} keeps its $sort stage, which
    // sets the sort key (agg/document_metadata.h).
    const bool push_sort = split.cursor_sort && !pipeline.context().carries_sort_key;
    if (push_sort) {
      spec.sort = split.cursor_sort->Copy();
      run.source_sorted = true;
      if (split.cursor_limit) spec.limit = *split.cursor_limit;
    }
    if (pipeline.leads_with_text() && pipeline.context().carries_text_score) {
      // The scan scores each document as a find projection would, into the
      // reserved field the pipeline's {$meta: "textScore"} reads.
      bson_t meta;
      BSON_APPEND_DOCUMENT_BEGIN(spec.projection.mutable_get(), agg::kTextScoreField.data(), &meta);
      BSON_APPEND_UTF8(&meta, "$meta", "textScore");
      bson_append_document_end(spec.projection.mutable_get(), &meta);
    }
    spec.allow_disk_use = pipeline.context().allow_disk_use;
    spec.max_sort_bytes = static_cast<int64_t>(pipeline.context().max_memory_bytes);
    spec.temp_dir = pipeline.context().temp_dir;
    spec.expressions = agg::MakeQueryExpressionParser(pipeline.context());
    spec.collator = pipeline.context().collator;
    ASSIGN_OR_RETURN(source, OpenScan(engine, db, coll, std::move(spec), cursor->slot_, scan));
  }
  ASSIGN_OR_RETURN(cursor->stage_, cursor->pipeline_->Run(std::move(source), run));
  return cursor;
}

Status AggregateCursor::FillBatch(storage::Session& session, int64_t max_docs, int64_t max_bytes,
                                  std::vector<bson::BsonDoc>* out, bool* exhausted) {
  slot_->session = &session;
  struct ClearSlot {
    SessionSlot* slot;
    ~ClearSlot() { slot->session = nullptr; }
  } clear{slot_.get()};
  int64_t bytes = 0;
  int since_check = 0;
  while (!done_ && static_cast<int64_t>(out->size()) < max_docs && bytes < max_bytes) {
    // Stages that produce many results from little input ($unwind,
    // $densify) are stopped here rather than in a scan.
    if (since_check++ % kInterruptCheckInterval == 0) RETURN_IF_ERROR(slot_->interrupt.Check());
    ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> doc, stage_->Next());
    if (!doc) {
      done_ = true;
      break;
    }
    bytes += static_cast<int64_t>(doc->size());
    out->push_back(std::move(*doc));
  }
  *exhausted = done_;
  return Status::OK();
}

}  // namespace tigerdoc::engine

namespace tigerdoc::engine {

namespace {

Status CheckPipelineViewCollations(const catalog::Catalog& catalog, std::string_view db,
                                   const bson_t* pipeline, const bson::Collator* collator) {
  // MongoDB's checkCollationCompatibility: a view the pipeline reads
  // ($lookup, $graphLookup, $unionWith, at any depth) runs with its own
  // collation, which must be the operation's. The message is MongoDB's,
  // the namespace appended without a space.
  for (const std::string& name : catalog::PipelineReferences(pipeline)) {
    std::string ns = Namespace(db, name);
    std::shared_ptr<const catalog::ViewDefinition> view = catalog.LookupView(ns);
    if (view != nullptr && !bson::SameCollation(view->collator, collator)) {
      return Status(ErrorCode::kOptionNotSupportedOnView, "Cannot override a view's default collation" + ns);
    }
  }
  return Status::OK();
}

}  // namespace

Status Engine::ResolveAggregateView(AggregateParams* params, std::string* ns) const {
  *ns = params->coll.empty() ? params->db + ".$cmd.aggregate" : Namespace(params->db, params->coll);
  std::shared_ptr<const catalog::ViewDefinition> view =
      params->coll.empty() ? nullptr : catalog_->LookupView(*ns);
  if (view == nullptr) {
    const bson::Collator* collator = OperationCollator(
        params->collation, params->coll.empty() ? nullptr : catalog_->Lookup(*ns).get());
    return CheckPipelineViewCollations(*catalog_, params->db, params->pipeline.get(), collator);
  }
  // The view's collation is the operation's: the collection under it may
  // have another default, which must not apply.
  ASSIGN_OR_RETURN(const bson::Collator* collator, ViewOperationCollator(params->collation, *view));
  params->collation = collator;
  RETURN_IF_ERROR(CheckPipelineViewCollations(*catalog_, params->db, params->pipeline.get(), collator));
  // The view's pipeline runs first, over the collection under it; the
  // cursor keeps the view's namespace.
  // The read's leading $match stages go before the view's stages that
  // cannot change what they test (match_pushdown.h).
  ASSIGN_OR_RETURN(ResolvedView resolved, ResolveView(params->db, params->coll));
  params->coll = resolved.coll;
  bson::BsonDoc joined = agg::JoinViewPipeline(resolved.pipeline.get(), params->pipeline.get());
  // Reads of a time-series collection or its bucket view skip whole
  // buckets by their bounds.
  params->pipeline = agg::PushDownBucketFilters(joined.get());
  return Status::OK();
}

StatusWith<CommandExpressions> Engine::AggregateExpressions(const AggregateParams& params) const {
  // `let` values are expressions, evaluated once ($$NOW included).
  ASSIGN_OR_RETURN(CommandExpressions expressions,
                   CommandExpressions::Make(params.db, params.let.get()));
  expressions.ctx.allow_disk_use = params.allow_disk_use;
  expressions.ctx.max_memory_bytes = static_cast<size_t>(options_.max_blocking_sort_bytes);
  expressions.ctx.temp_dir = SortSpillDirectory();
  expressions.ctx.collator = OperationCollator(
      params.collation,
      params.coll.empty() ? nullptr : catalog_->Lookup(Namespace(params.db, params.coll)).get());
  return expressions;
}

StatusWith<std::unique_ptr<AggregateCursor>> Engine::OpenAggregate(AggregateParams params,
                                                                   std::string* ns) {
  // The time limit starts with the command: view resolution and planning
  // count, as in MongoDB.
  const std::optional<std::chrono::steady_clock::time_point> deadline =
      query::DeadlineAfter(std::chrono::steady_clock::now(), params.max_time_ms);
  RETURN_IF_ERROR(ResolveAggregateView(&params, ns));
  ASSIGN_OR_RETURN(CommandExpressions expressions, AggregateExpressions(params));
  // The hint applies to the collection the pipeline reads (under a view).
  ScanOptions scan;
  scan.hint = ToIndexHint(params.hint);
  scan.hint_index = std::move(params.hint_index);
  scan.bypass_document_validation = params.bypass_document_validation;
  ASSIGN_OR_RETURN(std::unique_ptr<AggregateCursor> cursor,
                   AggregateCursor::Make(this, params.db, params.coll, params.pipeline.get(),
                                         std::move(expressions.ctx), std::move(params.input), scan));
  query::Interrupt interrupt;
  interrupt.set_deadline(deadline);
  cursor->SetInterrupt(interrupt);
  return cursor;
}

StatusWith<CursorBatch> Engine::Aggregate(AggregateParams params) {
  CursorBatch batch;
  const std::optional<int64_t> batch_size = params.batch_size;
  ASSIGN_OR_RETURN(std::unique_ptr<AggregateCursor> cursor,
                   OpenAggregate(std::move(params), &batch.ns));
  bool exhausted = false;
  int64_t first_batch = batch_size.value_or(101);
  // $out / $merge: all the work happens now, whatever the batch size.
  if (cursor->writes()) first_batch = std::max<int64_t>(first_batch, 1);
  if (first_batch > 0) {
    storage::Session session = storage_->NewSession();
    RETURN_IF_ERROR(cursor->FillBatch(session, first_batch, kMaxBatchBytes, &batch.docs, &exhausted));
  }
  RecordReturned(static_cast<int64_t>(batch.docs.size()));
  // What is left of maxTimeMS carries over to the getMores (GetMore).
  if (!exhausted) {
    std::optional<std::chrono::steady_clock::duration> left = query::TimeLeft(cursor->deadline());
    batch.cursor_id = cursors_->Register(batch.ns, std::move(cursor), left);
  }
  return batch;
}

StatusWith<std::vector<bson::BsonDoc>> Engine::AggregateAll(AggregateParams params) {
  std::string ns;
  // OpenAggregate sets the deadline of params.max_time_ms; every FillBatch
  // below runs within it.
  ASSIGN_OR_RETURN(std::unique_ptr<AggregateCursor> cursor, OpenAggregate(std::move(params), &ns));
  std::vector<bson::BsonDoc> docs;
  storage::Session session = storage_->NewSession();
  bool exhausted = false;
  while (!exhausted) {
    RETURN_IF_ERROR(cursor->FillBatch(session, INT64_MAX, kMaxBatchBytes, &docs, &exhausted));
  }
  return docs;
}

}  // namespace tigerdoc::engine
