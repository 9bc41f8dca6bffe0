#pragma once
// DDL inside a multi-document transaction, as MongoDB 7 has it: creating a
// collection (explicitly, or implicitly by a write or createIndexes) and
// creating indexes on a collection created in the same transaction are
// part of the transaction, so an aborted transaction leaves no collection
// behind; the rest is refused with 263 OperationNotSupportedInTransaction.
//
// tigerdoc's catalog commits a create on its own (catalog/catalog.h), so
// "part of the transaction" is kept here: the runner notes each collection
// a statement created, and when the transaction rolls back (abort, a failed
// statement, a failed commit, the lifetime reaper, endSessions) the
// collection is dropped, if still empty: a write another client made to it
// meanwhile is acknowledged data and stays. The drop runs after the
// rollback, from DropAbandonedCollections, never inside the rollback (it
// can run inside a write that holds the collection's write lock).
//
// Thread-safety: every function is thread-safe; those taking a
// LogicalSession REQUIRE it checked out with a transaction in progress.

#include <string>

#include "engine/base/status.h"
#include "engine/session/logical_session_catalog.h"
#include "wire/commands/command.h"

namespace tigerdoc::wire {

// MongoDB 7's refusals of a statement of a transaction that are about what
// it would create or write elsewhere: $out / $merge, a view or time-series
// collection, indexes on a collection the transaction did not create or
// that holds documents. OK when the statement may run.
Status CheckTransactionStatement(CommandContext& ctx, engine::LogicalSession& s);

// The namespace `ctx` may create ("" for commands that create nothing) and
// whether it exists now; call before running the statement.
struct CreatableCollection {
  std::string db;
  std::string coll;
  bool existed = true;
};
CreatableCollection CollectionTheStatementMayCreate(CommandContext& ctx);

// After the statement: when `target` did not exist before and does now,
// the transaction created it; its rollback then abandons it.
void NoteCreatedCollection(CommandContext& ctx, engine::LogicalSession& s,
                           const CreatableCollection& target);

// Drops the collections abandoned by rolled-back transactions of
// `engine` (those still empty). Called by the runner before and after each
// command of a session, outside every lock.
void DropAbandonedCollections(engine::Engine* engine);

}  // namespace tigerdoc::wire
