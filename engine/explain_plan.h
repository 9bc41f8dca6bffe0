#pragma once
// Pieces of the find explain (engine_explain.cc) that the aggregate explain
// (engine_aggregate_explain.cc) prints inside each shard's $cursor stage.
//
// Thread-safety: pure functions of their arguments.

#include <bson/bson.h>

#include <cstdint>

#include "engine/bson/bson_doc.h"
#include "engine/ops.h"
#include "engine/query/plan_executor.h"

namespace tigerdoc::engine {

// As MongoDB's BSONObjBuilder::appendNumber(long long): an int when it
// fits, else a long.
void AppendExplainNumber(bson_t* doc, const char* field, int64_t value);

// The plan one shard runs for `params` under `exec`: what the find explain
// prints as a shard's winningPlan (with_stats false) or, with that shard's
// `stats` after a run, as its executionStages.
bson::BsonDoc ShardPlanDoc(const FindParams& params, const query::PlanExecutor& exec,
                           const query::ShardExecStats* stats, bool with_stats);

}  // namespace tigerdoc::engine
