// Engine::ExplainAggregate: explain of aggregate in the shape mongos prints
// for a sharded collection (each tigerdoc shard table plays a shard):
//
//   { mergeType: "mongos",
//     splitPipeline: { shardsPart: [<stages each shard runs>],
//                      mergerPart: [{$mergeCursors: {...}}, <the rest>] },
//     shards: { shard0: { stages: [ {$cursor: {queryPlanner: {..., winningPlan: <shard plan>}}},
//                                   <shardsPart stages the cursor did not absorb> ] }, ... } }
//
// The split (SplitOf, aggregate_explain_run.h): the leading run of
// per-document stages then an optional $sort (+ $limit, which the merger
// applies again) run on the shards; everything from the first other stage
// on runs in the merger after $mergeCursors (MongoDB would also split
// a $group into partial and final groups; tigerdoc groups whole in the
// merger, and the explain says so). The $cursor of each shard is the find
// explain's plan of the pushed-down leading $match / $sort / $limit
// (engine_explain.cc). Stages print as the command gave them (after a
// view's pipeline). A pipeline without a collection ({aggregate: 1}, a
// leading $documents or $collStats input) prints {stages: [...]} as a
// single mongod does.
//
// Verbosity executionStats / allPlansExecution runs the pipeline to its end
// in that split (aggregate_explain_run.h), results discarded, a final $out
// / $merge not run (nothing is written, as in MongoDB 7.0+). Each shard's
// $cursor then carries executionStats (nReturned, executionTimeMillis,
// totalKeysExamined, totalDocsExamined, executionStages with the scan's
// stats; allPlansExecution: [] as only the winning plan runs) and, like
// every shard stage after it, nReturned and executionTimeMillisEstimate.
// The merger part prints without stats, as mongos does (SERVER-82206),
// except what a stage examined in another collection ($lookup:
// totalDocsExamined, totalKeysExamined).
// The {stages: [...]} shape gives every stage that ran its stats.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/agg/pipeline.h"
#include "engine/agg/query_expressions.h"
#include "engine/aggregate_cursor.h"
#include "engine/aggregate_explain_run.h"
#include "engine/command_expressions.h"
#include "engine/engine.h"
#include "engine/explain_plan.h"
#include "engine/operation_collation.h"
#include "engine/query/plan_executor.h"

namespace tigerdoc::engine {
namespace {

void AppendArray(bson_t* parent, const char* field, const std::vector<bson::BsonDoc>& docs) {
  bson_t array;
  bson_append_array_begin(parent, field, -1, &array);
  for (size_t i = 0; i < docs.size(); ++i) {
    std::string key = std::to_string(i);
    BSON_APPEND_DOCUMENT(&array, key.c_str(), docs[i].get());
  }
  bson_append_array_end(parent, &array);
}

bson::BsonDoc StageDoc(const bson_iter_t& stage) {
  uint32_t len = 0;
  const uint8_t* data = nullptr;
  bson_iter_document(&stage, &len, &data);
  bson_t view;
  bson_init_static(&view, data, len);
  return bson::BsonDoc::CopyOf(&view);
}

// A stage's run: {..., nReturned, executionTimeMillisEstimate} as MongoDB
// appends them to each stage of an explained pipeline.
void AppendOwnStats(bson_t* stage, const StageRunStats& stats) {
  bson_t own;
  if (stats.own_stats.empty() ||
      !bson_init_static(&own, reinterpret_cast<const uint8_t*>(stats.own_stats.data()),
                        stats.own_stats.size())) {
    return;
  }
  bson_concat(stage, &own);
}

void AppendStageStats(bson_t* stage, const StageRunStats& stats) {
  BSON_APPEND_INT64(stage, "nReturned", stats.n_returned);
  BSON_APPEND_INT64(stage, "executionTimeMillisEstimate", stats.millis());
  AppendOwnStats(stage, stats);
}

bson::BsonDoc WithStats(const bson::BsonDoc& stage, const StageRunStats& stats) {
  bson::BsonDoc out = stage.Copy();
  AppendStageStats(out.mutable_get(), stats);
  return out;
}

// The executionStats of one shard's $cursor, as the find explain reports a
// shard's part: what its scan examined and what it handed on.
void AppendCursorExecutionStats(bson_t* cursor, const FindParams& find, const query::PlanExecutor& exec,
                                const ShardRunStats* run, bool all_plans) {
  const query::ShardExecStats* scan = nullptr;
  if (run) {
    for (const query::ShardExecStats& s : exec.shard_stats()) {
      if (s.shard == run->shard) scan = &s;
    }
  }
  bson_t stats;
  bson_append_document_begin(cursor, "executionStats", -1, &stats);
  BSON_APPEND_BOOL(&stats, "executionSuccess", true);
  AppendExplainNumber(&stats, "nReturned", run ? run->cursor.n_returned : 0);
  AppendExplainNumber(&stats, "executionTimeMillis", run ? run->cursor.millis() : 0);
  AppendExplainNumber(&stats, "totalKeysExamined", scan ? scan->keys_examined : 0);
  AppendExplainNumber(&stats, "totalDocsExamined", scan ? scan->docs_examined : 0);
  query::ShardExecStats none;
  if (run) none.shard = run->shard;
  bson::BsonDoc stages = ShardPlanDoc(find, exec, scan ? scan : &none, true);
  BSON_APPEND_DOCUMENT(&stats, "executionStages", stages.get());
  if (all_plans) {
    // One candidate plan ran; the others were costed, not run.
    bson_t none_run;
    bson_append_array_begin(&stats, "allPlansExecution", -1, &none_run);
    bson_append_array_end(&stats, &none_run);
  }
  bson_append_document_end(cursor, &stats);
}

}  // namespace

StatusWith<bson::BsonDoc> Engine::ExplainAggregate(AggregateParams params, ExplainVerbosity verbosity) {
  std::string ns;
  RETURN_IF_ERROR(ResolveAggregateView(&params, &ns));
  ASSIGN_OR_RETURN(CommandExpressions expressions, AggregateExpressions(params));
  // Parsed as aggregate would (the same errors); run only for execution stats.
  auto slot = std::make_shared<SessionSlot>();
  EngineResolver resolver(this, slot);
  expressions.ctx.resolver = &resolver;
  ASSIGN_OR_RETURN(agg::Pipeline pipeline, agg::Pipeline::Parse(params.pipeline.get(), expressions.ctx));
  const bool run = verbosity != ExplainVerbosity::kQueryPlanner;
  const bool all_plans = verbosity == ExplainVerbosity::kAllPlansExecution;

  std::vector<bson::BsonDoc> stages;
  bson_iter_t it;
  bson_iter_init(&it, params.pipeline.get());
  while (bson_iter_next(&it)) {
    stages.push_back(StageDoc(it));
  }

  bson::BsonDoc out;
  if (params.coll.empty() || params.input) {
    if (run) {
      storage::Session session = storage_->NewSession();
      slot->session = &session;
      StatusWith<PipelineRunStats> ran =
          RunSplitPipeline(pipeline, PipelineSplit{}, nullptr, {}, std::move(params.input), session);
      slot->session = nullptr;
      RETURN_IF_ERROR(ran.status());
      const std::vector<StageRunStats>& merger = ran.value().merger;
      for (size_t i = 0; i < merger.size() && i < stages.size(); ++i) {
        stages[i] = WithStats(stages[i], merger[i]);
      }
    }
    AppendArray(out.mutable_get(), "stages", stages);
    return out;
  }

  const PipelineSplit split = SplitOf(pipeline, params.pipeline.get());
  const size_t absorbed = split.absorbed;
  // What each shard's cursor runs: a find of the absorbed stages.
  FindParams find;
  find.db = params.db;
  find.coll = params.coll;
  find.hint = params.hint;  // the cursor's plan is the hinted one
  find.hint_index = params.hint_index.Copy();
  find.allow_disk_use = params.allow_disk_use;
  find.collation = params.collation;  // (a view's, once resolved) the plan is that collation's
  if (split.cursor_filter) find.filter = split.cursor_filter->Copy();
  if (split.cursor_sort) find.sort = split.cursor_sort->Copy();
  if (split.cursor_limit) find.limit = *split.cursor_limit;
  ASSIGN_OR_RETURN(bson::BsonDoc find_explain, ExplainFind(find, ExplainVerbosity::kQueryPlanner));
  // MongoDB's queryPlanner names a collation other than simple.
  const bson::Collator* collator =
      OperationCollator(params.collation, catalog_->Lookup(Namespace(params.db, params.coll)).get());

  // executionStats: the pipeline runs to its end in this split.
  std::unique_ptr<query::PlanExecutor> exec;
  PipelineRunStats ran;
  if (run) {
    std::shared_ptr<catalog::CollectionEntry> coll = catalog_->Lookup(Namespace(params.db, params.coll));
    ASSIGN_OR_RETURN(query::FindSpec spec, SpecFor(find, coll.get()));
    spec.expressions = agg::MakeQueryExpressionParser(pipeline.context());
    ASSIGN_OR_RETURN(exec, query::PlanExecutor::Make(coll, std::move(spec), Planner()));
    std::vector<int> shard_ids;
    for (const query::ScanRange& range : exec->ranges()) {
      if (shard_ids.empty() || shard_ids.back() != range.shard) shard_ids.push_back(range.shard);
    }
    storage::Session session = storage_->NewSession();
    slot->session = &session;
    StatusWith<PipelineRunStats> result =
        RunSplitPipeline(pipeline, split, exec.get(), shard_ids, std::nullopt, session);
    slot->session = nullptr;
    RETURN_IF_ERROR(result.status());
    ran = std::move(result.value());
  }

  BSON_APPEND_UTF8(out.mutable_get(), "mergeType", "mongos");
  bson_t split_doc;
  bson_append_document_begin(out.mutable_get(), "splitPipeline", -1, &split_doc);
  std::vector<bson::BsonDoc> shards_part;
  for (size_t i = 0; i < split.split; ++i) shards_part.push_back(stages[i].Copy());
  AppendArray(&split_doc, "shardsPart", shards_part);
  // The merger part prints without nReturned / time, as mongos's explain
  // does.
  std::vector<bson::BsonDoc> merger;
  {
    bson::BsonDoc merge_cursors;
    bson_t spec;
    bson_append_document_begin(merge_cursors.mutable_get(), "$mergeCursors", -1, &spec);
    if (split.merge_sort) BSON_APPEND_DOCUMENT(&spec, "sort", split.merge_sort->get());
    BSON_APPEND_BOOL(&spec, "compareWholeSortKey", false);
    BSON_APPEND_UTF8(&spec, "tailableMode", "normal");
    BSON_APPEND_UTF8(&spec, "nss", Namespace(params.db, params.coll).c_str());
    BSON_APPEND_BOOL(&spec, "allowPartialResults", false);
    bson_append_document_end(merge_cursors.mutable_get(), &spec);
    merger.push_back(std::move(merge_cursors));
  }
  if (split.limit_again) merger.push_back(stages[split.split - 1].Copy());
  for (size_t i = split.split; i < stages.size(); ++i) merger.push_back(stages[i].Copy());
  // Except what a stage examined in other collections ($lookup's
  // totalDocsExamined / totalKeysExamined), which only the merger knows.
  if (run) {
    for (size_t i = 0; i < ran.merger.size() && i + 1 < merger.size(); ++i) {
      if (ran.merger[i].own_stats.empty()) continue;
      bson::BsonDoc stage = merger[i + 1].Copy();
      AppendOwnStats(stage.mutable_get(), ran.merger[i]);
      merger[i + 1] = std::move(stage);
    }
  }
  AppendArray(&split_doc, "mergerPart", merger);
  bson_append_document_end(out.mutable_get(), &split_doc);

  // Per shard: its plan from the find explain, then its unabsorbed stages.
  bson_iter_t shard_it, rejected_it;
  bson::BsonDoc rejected;  // the find explain's, an array document
  if (bson_iter_init(&rejected_it, find_explain.get()) &&
      bson_iter_find_descendant(&rejected_it, "queryPlanner.rejectedPlans", &rejected_it) &&
      BSON_ITER_HOLDS_ARRAY(&rejected_it)) {
    uint32_t len = 0;
    const uint8_t* data = nullptr;
    bson_iter_array(&rejected_it, &len, &data);
    rejected = bson::BsonDoc::CopyOf(data, len);
  }
  auto run_stats_of = [&ran](std::string_view shard_name) -> const ShardRunStats* {
    for (const ShardRunStats& s : ran.shards) {
      if ("shard" + std::to_string(s.shard) == shard_name) return &s;
    }
    return nullptr;
  };
  bson_t shards;
  bson_append_document_begin(out.mutable_get(), "shards", -1, &shards);
  if (bson_iter_init(&shard_it, find_explain.get()) &&
      bson_iter_find_descendant(&shard_it, "queryPlanner.winningPlan.shards", &shard_it) &&
      BSON_ITER_HOLDS_ARRAY(&shard_it)) {
    bson_iter_t each;
    bson_iter_recurse(&shard_it, &each);
    while (bson_iter_next(&each)) {
      bson::BsonDoc shard = StageDoc(each);
      bson_iter_t name_it, plan_it;
      if (!bson_iter_init_find(&name_it, shard.get(), "shardName") ||
          !bson_iter_init_find(&plan_it, shard.get(), "winningPlan")) {
        continue;
      }
      const char* shard_name = bson_iter_utf8(&name_it, nullptr);
      const ShardRunStats* shard_run = run ? run_stats_of(shard_name) : nullptr;
      bson::BsonDoc plan = StageDoc(plan_it);
      bson::BsonDoc cursor;
      bson_t cursor_spec, query_planner;
      bson_append_document_begin(cursor.mutable_get(), "$cursor", -1, &cursor_spec);
      bson_append_document_begin(&cursor_spec, "queryPlanner", -1, &query_planner);
      BSON_APPEND_UTF8(&query_planner, "namespace", Namespace(params.db, params.coll).c_str());
      BSON_APPEND_BOOL(&query_planner, "indexFilterSet", false);
      BSON_APPEND_DOCUMENT(&query_planner, "parsedQuery", find.filter.get());
      if (collator != nullptr) BSON_APPEND_DOCUMENT(&query_planner, "collation", collator->spec());
      BSON_APPEND_DOCUMENT(&query_planner, "winningPlan", plan.get());
      BSON_APPEND_ARRAY(&query_planner, "rejectedPlans", rejected.get());
      bson_append_document_end(&cursor_spec, &query_planner);
      if (run) AppendCursorExecutionStats(&cursor_spec, find, *exec, shard_run, all_plans);
      bson_append_document_end(cursor.mutable_get(), &cursor_spec);
      if (run) AppendStageStats(cursor.mutable_get(), shard_run ? shard_run->cursor : StageRunStats{});
      std::vector<bson::BsonDoc> shard_stages;
      shard_stages.push_back(std::move(cursor));
      for (size_t i = absorbed; i < split.split; ++i) {
        if (!run) {
          shard_stages.push_back(stages[i].Copy());
        } else {
          const size_t k = i - absorbed;
          shard_stages.push_back(WithStats(stages[i], shard_run && k < shard_run->stages.size()
                                                          ? shard_run->stages[k]
                                                          : StageRunStats{}));
        }
      }

      bson_t entry;
      bson_append_document_begin(&shards, shard_name, -1, &entry);
      AppendArray(&entry, "stages", shard_stages);
      bson_append_document_end(&shards, &entry);
    }
  }
  bson_append_document_end(out.mutable_get(), &shards);
  return out;
}

}  // namespace tigerdoc::engine
