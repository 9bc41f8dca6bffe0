#pragma once
// DDL inside a multi-document transaction, as MongoDB 7 has it: creating a
// collection (explicitly, or implicitly by a write or createIndexes) and
// creating indexes on a collection created in the same transaction are
// part of the transaction, so an aborted transaction leaves no collection
// behind; the rest is refused with 263 OperationNotSupportedInTransaction.
//
// tigerdoc's catalog commits a create on its own (catalog/catalog.h), so
// "part of the transaction" is kept here. A statement that may create a
// collection that does not exist first claims its name for its transaction
// (ClaimCollection); until that transaction ends, the name is pending:
//   - a statement of another transaction that writes to it answers 112
//     WriteConflict (TransientTransactionError), as MongoDB's lock on the
//     uncommitted collection does, so no other transaction's uncommitted
//     write can be inside it;
//   - a write outside transactions waits for the end (AwaitPendingCreations),
//     as MongoDB's waits for the lock.
// Commit releases the name. A rollback (abort, a failed statement, a failed
// commit, the lifetime reaper, endSessions) abandons it: the collection is
// dropped (if empty: only writes committed before the claim can be in it)
// by DropAbandonedCollections, after the rollback and outside every lock
// (a rollback can run inside a write holding the collection's write lock),
// and only then released.
//
// Not covered: $out/$merge targets (refused in transactions anyway),
// dropDatabase of a database holding a pending name, and a kill -9 before
// the abandoned collection is dropped (the empty collection then stays).
//
// Thread-safety: every function is thread-safe; those taking a
// LogicalSession REQUIRE it checked out with a transaction in progress.

#include <chrono>
#include <string>
#include <vector>

#include "engine/base/status.h"
#include "engine/session/logical_session_catalog.h"
#include "wire/commands/command.h"

namespace tigerdoc::wire {

// MongoDB 7's refusals of a statement of a transaction that are about what
// it would create or write elsewhere: $out / $merge, a view or time-series
// collection, indexes on a collection the transaction did not create or
// that holds documents. OK when the statement may run.
Status CheckTransactionStatement(CommandContext& ctx, engine::LogicalSession& s);

// The collection a statement may create, claimed for its transaction.
struct ClaimedCollection {
  std::string ns;       // empty: the statement creates nothing
  bool claimed = false;  // claimed by this statement (it did not exist)
};
// Before a statement of transaction `s`: WriteConflict when the statement
// writes to a name another transaction claimed; else claims the name it
// may create when that does not exist yet.
StatusWith<ClaimedCollection> ClaimCollection(CommandContext& ctx, engine::LogicalSession& s);
// After the statement: keeps the claim until the transaction ends when the
// collection now exists, releases it otherwise.
void SettleClaim(CommandContext& ctx, engine::LogicalSession& s, const ClaimedCollection& claim);

// Before a command outside transactions: waits while a name it writes to
// is claimed by a transaction of another session (`lsid` may be null).
void AwaitPendingCreations(CommandContext& ctx, const bson_t* lsid);

// How long a statement of a transaction waits for a DDL command's gate on
// the collection it writes first: MongoDB's
// maxTransactionLockRequestTimeoutMillis (5 ms) for the transaction's IX
// lock behind the DDL's X lock.
inline constexpr std::chrono::milliseconds kTransactionLockRequestTimeout{5};

// Before a statement of transaction `s` that writes documents (the table's
// write kind): marks its collection used by the transaction until the
// transaction ends, as MongoDB's transaction holds the collection's IX lock
// to its end. A DDL command's gate on the collection (AwaitTransactionsUsing)
// makes a first write wait kTransactionLockRequestTimeout, then answer 24
// LockTimeout (the runner aborts the transaction and labels the error
// TransientTransactionError), so neither waits for the other forever.
Status EnterTransactionWrite(CommandContext& ctx, engine::LogicalSession& s);
// After the statement: the use ends with the transaction (its commit or
// rollback callbacks, registered after the statement's own), or at once
// when the statement already rolled the transaction back.
void NoteTransactionWrites(CommandContext& ctx, engine::LogicalSession& s);

// A retryable write's use of its collection, from before its write unit
// to after its commit (its documents are uncommitted in between): waits
// while a DDL command's gate covers the collection. Ends when destroyed.
class RetryableWriteUse {
 public:
  RetryableWriteUse() = default;
  RetryableWriteUse(CommandContext& ctx, const engine::LogicalSession& s, int64_t txn_number);
  RetryableWriteUse(const RetryableWriteUse&) = delete;
  RetryableWriteUse& operator=(const RetryableWriteUse&) = delete;
  ~RetryableWriteUse();

 private:
  const engine::Engine* engine_ = nullptr;
  std::string ns_, owner_;
  int64_t txn_number_ = -1;
};

// What a DDL command holds while it runs (see AwaitTransactionsUsing).
class DdlGate {
 public:
  DdlGate() = default;
  DdlGate(DdlGate&& other) noexcept;
  DdlGate& operator=(DdlGate&&) = delete;
  ~DdlGate();

 private:
  friend DdlGate AwaitTransactionsUsing(const CommandSpec& spec, CommandContext& ctx,
                                        const bson_t* lsid);
  const engine::Engine* engine_ = nullptr;
  std::vector<std::string> namespaces_;
};
// Before a command outside transactions that drops, replaces or indexes
// collections (drop, dropIndexes, createIndexes, dropDatabase,
// renameCollection, $out; their rows in the command table say `ddl`, and
// any other command returns at once without reading its body): closes the gate of each of them, then waits
// while a transaction (or a retryable write) of another session that wrote
// to one of them is open, as MongoDB's DDL waits for the transaction's
// lock (a dropped collection's in-memory state must outlive the commits of
// transactions that wrote to it; an index build sees committed documents
// only). The gate stays closed until the returned DdlGate is destroyed
// after the command ran, so no transaction can write the collection
// between the wait and the DDL. The command's own session's open
// transaction is aborted instead of waited for. The lifetime reaper bounds
// the wait.
[[nodiscard]] DdlGate AwaitTransactionsUsing(const CommandSpec& spec, CommandContext& ctx,
                                             const bson_t* lsid);

// Drops the collections abandoned by rolled-back transactions of
// `engine` (those still empty) and releases their names. Called by the
// runner before and after each command, outside every lock.
void DropAbandonedCollections(engine::Engine* engine);

}  // namespace tigerdoc::wire
