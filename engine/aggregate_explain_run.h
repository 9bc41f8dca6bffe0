#pragma once
// The run behind an aggregate explain with verbosity executionStats or
// allPlansExecution: the pipeline executed to its end in the split the
// explain prints (engine_aggregate_explain.cc), its results discarded, with
// what every stage returned and how long it took.
//
//   PlanExecutor (the $cursor: pushed-down $match / $sort / $limit)
//        │ each document routed to the shard its record lives on
//        ▼
//   shard 0: [stages absorbed..split) ─┐
//   shard 1: [stages absorbed..split) ─┼─▶ merge (in sort order when the
//   ...                                ┘    shards part sorts) ─▶ [$limit again]
//                                            ─▶ stages split..end (no writer)
//
// The same documents come out as the aggregate command's single stream
// over all shards: the shards part is per-document stages and at most a
// final $sort (+ $limit), which commute with splitting the input by shard.
// A final $out / $merge is not run: explain writes nothing (as MongoDB).
// Memory: documents one shard's stages have not pulled yet wait in that
// shard's queue, so an executor whose output interleaves shards (a unique
// index, a sort over several shards) may queue up to its whole output.
//
// Thread-safety: none; one explain runs on one thread.

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/agg/pipeline.h"
#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"
#include "engine/query/plan_executor.h"
#include "engine/storage/storage_engine.h"

namespace tigerdoc::engine {

// How the explain splits a pipeline (indexes into its stages).
struct PipelineSplit {
  size_t absorbed = 0;  // stages [0, absorbed) are the $cursor's query
  size_t split = 0;     // stages [absorbed, split) run on each shard
  std::optional<bson::BsonDoc> merge_sort;  // the shards' outputs merge in this order
  bool limit_again = false;  // stage split-1 is a $limit the merger applies again
  // The $cursor's query: the absorbed leading $match / $sort / $limit.
  std::optional<bson::BsonDoc> cursor_filter;
  std::optional<bson::BsonDoc> cursor_sort;
  std::optional<int64_t> cursor_limit;  // only with cursor_sort
};

// The split of a pipeline over a collection: the leading run of
// per-document stages ($match, $project, $addFields/$set, $unset, $unwind,
// $replaceRoot/$replaceWith, $redact) then an optional $sort (with a
// directly following $limit, applied again by the merger) run on the
// shards; the rest merges. The $cursor absorbs the pipeline's push-down
// prefix (Pipeline::leading_match / leading_sort / leading_limit) as far
// as it lies in the shards part; its limit is the absorbed $sort's top-k
// (Pipeline::sort_limit), so a $sort, $skip, $limit cursor is top-k too.
// `pipeline_array` is what `pipeline` was parsed from. The aggregate
// cursor (aggregate_cursor.cc) pushes the same query into its scan, so
// what the explain prints is what runs.
PipelineSplit SplitOf(const agg::Pipeline& pipeline, const bson_t* pipeline_array);

struct StageRunStats {
  int64_t n_returned = 0;
  std::chrono::steady_clock::duration time{0};  // in Next(), inputs included
  // BSON bytes of the stage's own statistics (Stage::AppendExplainStats),
  // taken when it returned its last document; empty when it has none.
  std::string own_stats;

  int64_t millis() const {
    return std::chrono::duration_cast<std::chrono::milliseconds>(time).count();
  }
};

struct ShardRunStats {
  int shard = 0;
  StageRunStats cursor;              // documents the executor gave this shard
  std::vector<StageRunStats> stages;  // stages [absorbed, split)
};

struct PipelineRunStats {
  std::vector<ShardRunStats> shards;  // in the order given
  std::vector<StageRunStats> merger;  // [$limit again], stages split.. (writer excluded)
};

// Runs `pipeline` split as `split` says over `exec` (null: no collection;
// then `input` feeds the merger, or the pipeline's own first stage does),
// reading with `session`. `shards` lists the shards the executor reads;
// the executor must run the split's cursor query. The results are
// appended to `results` when given, else discarded.
StatusWith<PipelineRunStats> RunSplitPipeline(const agg::Pipeline& pipeline, const PipelineSplit& split,
                                              query::PlanExecutor* exec, const std::vector<int>& shards,
                                              std::optional<std::vector<bson::BsonDoc>> input,
                                              storage::Session& session,
                                              std::vector<bson::BsonDoc>* results = nullptr);

}  // namespace tigerdoc::engine
