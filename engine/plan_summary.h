#pragma once
// MongoDB's planSummary of a plan that ran: what the "Slow query" log line
// and system.profile show ("COLLSCAN", "IXSCAN { a: 1 }", "IXSCAN { a: 1 },
// IXSCAN { b: 1 }" for an $or, "IDHACK", "DISTINCT_SCAN { a: 1 }",
// "CLUSTERED_IXSCAN"), and the recording of a read's execution stats in the
// running operation (engine/operation_registry.h, OperationStats).
//
// Thread-safety: pure functions; RecordReadStats writes the calling
// thread's current operation only.

#include <cstdint>
#include <string>

#include "engine/query/plan_executor.h"

namespace tigerdoc::engine {

// `count_scan`: the plan ran as CountAll(count_scan) does: an exact index
// plan is a COUNT_SCAN.
std::string PlanSummary(const query::PlanExecutor& exec, bool count_scan = false);

// Adds what `exec` examined since `keys_before` / `docs_before` (its totals
// when the request started using it) and `returned` documents (negative:
// a command that returns no documents, e.g. count) to the current
// operation's stats; nothing outside a registered operation. The plan
// summary is the first plan's the operation ran (an aggregation's main
// scan, not the scans of its $lookup sub-pipelines, which come later).
void RecordReadStats(const query::PlanExecutor& exec, int64_t keys_before, int64_t docs_before,
                     int64_t returned, bool count_scan = false);

// A find by _id answered without a plan (engine/id_point_read.h): MongoDB's
// IDHACK, which examines one key and one document when it finds the
// document, none otherwise.
void RecordIdPointReadStats(int64_t returned);

// Adds `returned` documents to the current operation's nreturned (an
// aggregation's batches; its scans record with RecordReadStats(-1)).
void RecordReturned(int64_t returned);

}  // namespace tigerdoc::engine
