#pragma once
// The database profiler, as mongod's: the `profile` command
// (db.setProfilingLevel / db.getProfilingStatus) and the per-database
// `<db>.system.profile` collection it writes.
//
// Levels: 0 off, 1 operations that took slowms or longer (a `sampleRate`
// fraction of them), 2 every operation; any other level (-1 by convention)
// reads the settings without changing the level, as mongod. A `filter` (a query on the profile
// entry, e.g. {millis: {$gt: 5}} or {op: "query"}) replaces slowms and
// sampleRate for the database it is set on. The level and filter are per
// database (the start-up level, --profile / operationProfiling.mode, is every
// database's default); slowms and sampleRate are process-wide, and slowms is
// also the "Slow query" log threshold (engine/log/log.h SlowMs()).
//
// system.profile is bounded, as mongod's capped 1 MB collection: once the
// entries of a database pass kProfileCollectionBytes the oldest are deleted
// (the bound is kept by this module; tigerdoc has no capped collections yet).
// Entries carry MongoDB 7's fields: op, ns, command (originatingCommand for
// a getMore is not kept), keysExamined, docsExamined, nreturned, ninserted /
// nMatched / nModified / ndeleted from the reply, numYield, responseLength,
// protocol, millis, planSummary, errCode / errName / errMsg on failure, ts,
// client, appName (not known: omitted), allUsers, user.
//
// Reads of system.profile itself are not profiled (they would fill it with
// the profiler's own readers).
//
// Thread-safety: all functions are thread-safe; the settings are under one
// mutex, each database's bound under another.

#include <chrono>

#include "engine/operation_registry.h"
#include "wire/commands/command.h"

namespace tigerdoc::wire {

inline constexpr int64_t kProfileCollectionBytes = 1024 * 1024;

// The start-up settings: --profile / operationProfiling.mode and
// --slowOpSampleRate / operationProfiling.slowOpSampleRate.
void ConfigureProfiler(int default_level, double sample_rate);

// {profile: <level>, slowms?, sampleRate?, filter?}; replies the settings
// before the change {was, slowms, sampleRate, filter?, note?} and logs
// mongod's "Profiler settings changed" (48742) when something changes.
StatusWith<bson::BsonDoc> RunProfile(CommandContext& ctx);

// The database's profiling level now. As mongod, an operation is profiled
// by the level its database had when it started (so {profile: 0} itself is
// profiled and {profile: 2} is not). Lock-free while no database profiles.
int ProfilingLevelOf(const std::string& db);

// Writes a system.profile entry for a command that ran, when `level` (its
// database's when it started) and the database's filter ask for one. `user_db_name`: the connection's "user@db", empty
// when not authenticated; `info` and `stats`: its operation's.
void ProfileIfWanted(engine::Engine& engine, int level, const ConnectionInfo& conn,
                     const CommandRequest& request,
                     const std::string& user_db_name, const engine::OperationInfo& info,
                     const engine::OperationStats& stats,
                     std::chrono::steady_clock::duration duration, const bson::BsonDoc& reply);

}  // namespace tigerdoc::wire
