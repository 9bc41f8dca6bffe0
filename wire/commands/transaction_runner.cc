// RunInSession: a command's session fields (lsid, txnNumber, autocommit,
// startTransaction) on a --replSet server.
//
//   no txnNumber              -> runs as is (the session is marked used)
//   txnNumber                 -> a retryable write: insert, update, delete,
//                                findAndModify, applied once per txnNumber
//   txnNumber + autocommit:false -> a statement of the session's
//                                multi-statement transaction, or its
//                                commitTransaction / abortTransaction
//
// Both kinds run the command with the session's own storage session bound
// to this thread (storage::TransactionBinding), so every read and write the
// engine makes, the patterns' side writes included, is one WiredTiger
// transaction; the retryable write's record (engine/session/
// txn_record_store.h) is written in that same transaction, so a write and
// the proof that it happened commit together, also across kill -9.
//
// A retryable write whose bound run failed part-way (a write error rolled
// the whole WiredTiger transaction back) runs again the ordinary way, unit
// by unit, so its partial effects and write errors are MongoDB's; its
// record then follows in a transaction of its own (a crash between the two
// could apply such a retry twice).

#include <algorithm>
#include <chrono>
#include <random>
#include <optional>
#include <string>
#include <thread>

#include "engine/catalog/transaction_ddl_events.h"
#include "engine/engine.h"
#include "engine/session/logical_session_catalog.h"
#include "wire/commands/command_args.h"
#include "wire/commands/command_registry.h"
#include "wire/commands/transaction_ddl.h"
#include "wire/commands/session_uid.h"
#include "wire/reply/reply_builder.h"

namespace tigerdoc::wire {
namespace {

using engine::LogicalSession;
using engine::LogicalSessionCatalog;
using engine::TxnRecord;
using engine::TxnState;

constexpr char kTransientTransactionError[] = "TransientTransactionError";
constexpr char kUnknownTransactionCommitResult[] = "UnknownTransactionCommitResult";
// How often a retryable write is re-run in one transaction after a write
// conflict before it falls back to unit-by-unit writing.
constexpr int kRetryableWriteAttempts = 10;

struct SessionFields {
  const bson_t* lsid = nullptr;  // points into the body
  bson_t lsid_storage;
  std::optional<int64_t> txn_number;
  bool autocommit_false = false;
  bool start_transaction = false;
};

// OperationSessionInfo, with MongoDB's checks (initializeOperationSessionInfo).
StatusWith<bool> ParseSessionFields(const bson_t* body, SessionFields* f) {
  bson_iter_t it;
  if (bson_iter_init_find(&it, body, "lsid")) {
    if (!BSON_ITER_HOLDS_DOCUMENT(&it)) {
      return Status(ErrorCode::kTypeMismatch, "BSON field 'OperationSessionInfo.lsid' is the wrong type '" +
                                                  std::string(BsonTypeName(bson_iter_type(&it))) +
                                                  "', expected type 'object'");
    }
    uint32_t len = 0;
    const uint8_t* data = nullptr;
    bson_iter_document(&it, &len, &data);
    if (!bson_init_static(&f->lsid_storage, data, len)) {
      return Status(ErrorCode::kInvalidBSON, "invalid lsid");
    }
    f->lsid = &f->lsid_storage;
  }
  if (bson_iter_init_find(&it, body, "txnNumber")) {
    if (!BSON_ITER_HOLDS_INT64(&it) && !BSON_ITER_HOLDS_INT32(&it)) {
      return Status(ErrorCode::kTypeMismatch,
                    "BSON field 'OperationSessionInfo.txnNumber' is the wrong type '" +
                        std::string(BsonTypeName(bson_iter_type(&it))) + "', expected type 'long'");
    }
    f->txn_number = bson_iter_as_int64(&it);
    if (*f->txn_number < 0) return Status(ErrorCode::kBadValue, "TxnNumber cannot be negative");
    if (f->lsid == nullptr) {
      return Status(ErrorCode::kInvalidOptions,
                    "Transaction number requires a session ID to also be specified");
    }
  }
  if (bson_iter_init_find(&it, body, "autocommit")) {
    if (!BSON_ITER_HOLDS_BOOL(&it)) {
      return Status(ErrorCode::kTypeMismatch,
                    "BSON field 'OperationSessionInfo.autocommit' is the wrong type, expected type 'bool'");
    }
    if (bson_iter_bool(&it)) {
      return Status(ErrorCode::kInvalidOptions, "Specifying autocommit=true is not allowed.");
    }
    if (!f->txn_number) {
      return Status(ErrorCode::kInvalidOptions,
                    "'autocommit' field requires a transaction number to also be specified");
    }
    f->autocommit_false = true;
  }
  if (bson_iter_init_find(&it, body, "startTransaction")) {
    if (!BSON_ITER_HOLDS_BOOL(&it) || !bson_iter_bool(&it)) {
      return Status(ErrorCode::kInvalidOptions, "Specifying startTransaction=false is not allowed.");
    }
    if (!f->autocommit_false) {
      return Status(ErrorCode::kInvalidOptions,
                    "'startTransaction' field requires 'autocommit' field to also be specified");
    }
    f->start_transaction = true;
  }
  return true;
}

// A command the table does not allow in transactions (its in_transaction
// column), as MongoDB 7's CommandHelpers::canUseTransactions answers it.
Status NotAllowedInTransaction(std::string_view name) {
  if (name == "count") {
    return Status(ErrorCode::kOperationNotSupportedInTransaction,
                  "Cannot run 'count' in a multi-document transaction. Please see "
                  "http://dochub.mongodb.org/core/transaction-count for a recommended alternative.");
  }
  return Status(ErrorCode::kOperationNotSupportedInTransaction,
                "Cannot run '" + std::string(name) + "' in a multi-document transaction.");
}

std::string SessionIdText(const LogicalSession& s) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  // The lsid UUID's 16 bytes (the key's user digest after them is not shown).
  for (size_t i = 0; i < std::min<size_t>(s.id.size(), 16); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    out += kHex[static_cast<uint8_t>(s.id[i]) >> 4];
    out += kHex[static_cast<uint8_t>(s.id[i]) & 15];
  }
  return out;
}

bson::BsonDoc WithLabel(bson::BsonDoc reply, const char* label) {
  bson_t labels;
  BSON_APPEND_ARRAY_BEGIN(reply.mutable_get(), "errorLabels", &labels);
  BSON_APPEND_UTF8(&labels, "0", label);
  bson_append_array_end(reply.mutable_get(), &labels);
  return reply;
}

bson::BsonDoc TransientError(const Status& status) {
  return WithLabel(ErrorReply(status), kTransientTransactionError);
}

bool ReplyOk(const bson_t* reply) {
  bson_iter_t it;
  return bson_iter_init_find(&it, reply, "ok") && bson_iter_as_double(&it) == 1.0;
}

bool ReplyHasWriteErrors(const bson_t* reply) {
  bson_iter_t it;
  return bson_iter_init_find(&it, reply, "writeErrors");
}

// A WriteConflict anywhere in the reply: top-level or in writeErrors.
bool ReplyHasWriteConflict(const bson_t* reply) {
  const int32_t kConflict = static_cast<int32_t>(ErrorCode::kWriteConflict);
  bson_iter_t it, errors, error;
  if (bson_iter_init_find(&it, reply, "code") && bson_iter_as_int64(&it) == kConflict) return true;
  if (!bson_iter_init_find(&errors, reply, "writeErrors") || !BSON_ITER_HOLDS_ARRAY(&errors) ||
      !bson_iter_recurse(&errors, &error)) {
    return false;
  }
  while (bson_iter_next(&error)) {
    bson_iter_t code;
    if (BSON_ITER_HOLDS_DOCUMENT(&error) && bson_iter_recurse(&error, &code) &&
        bson_iter_find(&code, "code") && bson_iter_as_int64(&code) == kConflict) {
      return true;
    }
  }
  return false;
}

bool WantsJournal(const bson_t* body) {
  bson_iter_t it;
  return bson_iter_init(&it, body) && bson_iter_find_descendant(&it, "writeConcern.j", &it) &&
         bson_iter_as_bool(&it);
}

// The cursor a reply opened ({cursor: {id, ns}}), to close with the
// transaction it reads.
void RememberCursor(LogicalSession& s, const bson_t* reply) {
  bson_iter_t id, ns;
  if (bson_iter_init(&id, reply) && bson_iter_find_descendant(&id, "cursor.id", &id) &&
      BSON_ITER_HOLDS_INT64(&id) && bson_iter_int64(&id) != 0 && bson_iter_init(&ns, reply) &&
      bson_iter_find_descendant(&ns, "cursor.ns", &ns) && BSON_ITER_HOLDS_UTF8(&ns)) {
    s.txn_cursors.emplace_back(bson_iter_int64(&id), bson_iter_utf8(&ns, nullptr));
  }
}

Status NoSuchTransaction(int64_t txn_number) {
  return Status(ErrorCode::kNoSuchTransaction,
                "Transaction with { txnNumber: " + std::to_string(txn_number) + " } has been aborted.");
}

// A session the server has just met again (after a restart, or after it
// forgot an idle one) knows its txnNumber only from its record: without
// this, a retry of an older write would run a second time instead of
// answering 225, and a retried commit would not know it committed.
Status CatchUpWithRecord(LogicalSessionCatalog& sessions, LogicalSession& s) {
  if (s.record_loaded) return Status::OK();  // s.txn_number already follows the record
  StatusWith<std::optional<TxnRecord>> record = sessions.LastRecord(s);
  if (!record.ok()) return record.status();
  if (record.value() && record.value()->txn_number > s.txn_number) {
    s.txn_number = record.value()->txn_number;
    s.state = record.value()->kind == TxnRecord::Kind::kCommit ? TxnState::kCommitted : TxnState::kNone;
  }
  return Status::OK();
}

// ---- retryable writes ----------------------------------------------------

bson::BsonDoc RunRetryableWrite(const CommandSpec& spec, CommandContext& ctx, LogicalSession& s,
                                int64_t txn_number) {
  LogicalSessionCatalog& sessions = ctx.engine->sessions();
  if (txn_number < s.txn_number) {
    return ErrorReply(Status(ErrorCode::kTransactionTooOld,
                             "Retryable write with txnNumber " + std::to_string(txn_number) +
                                 " is prohibited on session " + SessionIdText(s) +
                                 " because a newer retryable write with txnNumber " +
                                 std::to_string(s.txn_number) +
                                 " has already started on this session."));
  }
  if (s.state == TxnState::kInProgress) {
    if (txn_number == s.txn_number) {
      return ErrorReply(Status(ErrorCode::kInvalidOptions,
                               "txnNumber " + std::to_string(txn_number) +
                                   " belongs to a transaction in progress: send autocommit: false"));
    }
    sessions.AbortTransaction(s, "a newer retryable write started");
  }
  StatusWith<std::optional<TxnRecord>> record = sessions.LastRecord(s);
  if (!record.ok()) return ErrorReply(record.status());
  if (record.value() && record.value()->txn_number == txn_number) {
    if (record.value()->kind == TxnRecord::Kind::kWrite) return std::move(record.value()->reply);
    return ErrorReply(Status(ErrorCode::kTransactionCommitted,
                             "Transaction " + std::to_string(txn_number) + " has been committed."));
  }
  s.txn_number = txn_number;
  s.state = TxnState::kNone;

  storage::StorageEngine& storage = ctx.engine->storage();
  auto record_of = [&](const bson::BsonDoc& reply) {
    TxnRecord r;
    r.txn_number = txn_number;
    r.kind = TxnRecord::Kind::kWrite;
    r.reply = reply.Copy();
    return r;
  };
  auto journal_if_asked = [&](bson::BsonDoc reply) {
    if (WantsJournal(ctx.body())) {
      Status flushed = storage.FlushJournal();
      if (!flushed.ok()) return ErrorReply(flushed);
    }
    return reply;
  };
  static thread_local std::mt19937 rng(std::random_device{}());
  for (int attempt = 0; attempt < kRetryableWriteAttempts; ++attempt) {
    storage::Session owner = storage.NewUnboundSession();
    if (Status begun = owner.Begin(); !begun.ok()) return ErrorReply(begun);
    bson::BsonDoc reply;
    {
      storage::TransactionBinding bind(&owner);
      reply = RunCommandReply(spec, ctx);
    }
    if (owner.in_transaction()) {
      if (!ReplyOk(reply.get())) return reply;  // refused before writing: nothing to record
      Status status = sessions.WriteRecord(owner, s, record_of(reply));
      if (status.ok()) status = owner.Commit();
      if (status.ok()) return journal_if_asked(std::move(reply));
      if (status.code() != ErrorCode::kWriteConflict) return ErrorReply(status);
    } else if (!ReplyHasWriteConflict(reply.get())) {
      break;  // a write error rolled the unit back: run it unit by unit
    }
    // Conflicting writers: back off with jitter, as RunWriteUnit does.
    const int max_us = std::min(2000, 20 << std::min(attempt, 6));
    std::this_thread::sleep_for(std::chrono::microseconds(rng() % max_us));
  }
  bson::BsonDoc reply = RunCommandReply(spec, ctx);
  if (ReplyOk(reply.get())) {
    storage::Session session = storage.NewUnboundSession();
    Status status = session.Begin();
    if (status.ok()) status = sessions.WriteRecord(session, s, record_of(reply));
    if (status.ok()) status = session.Commit();
    if (!status.ok()) return ErrorReply(status);
  }
  return journal_if_asked(std::move(reply));
}

// ---- transactions ----------------------------------------------------------

bson::BsonDoc CommitTransaction(CommandContext& ctx, LogicalSession& s, int64_t txn_number) {
  LogicalSessionCatalog& sessions = ctx.engine->sessions();
  if (s.txn_number == txn_number && s.state == TxnState::kCommitted) return OkReply(bson::BsonDoc());
  if (s.txn_number == txn_number && s.state == TxnState::kInProgress) {
    Status committed = sessions.CommitTransaction(s);
    if (committed.ok()) {
      if (WantsJournal(ctx.body())) {
        Status flushed = ctx.engine->storage().FlushJournal();
        if (!flushed.ok()) return WithLabel(ErrorReply(flushed), kUnknownTransactionCommitResult);
      }
      return OkReply(bson::BsonDoc());
    }
    if (committed.code() == ErrorCode::kNoSuchTransaction || committed.code() == ErrorCode::kWriteConflict) {
      return TransientError(committed);
    }
    return WithLabel(ErrorReply(committed), kUnknownTransactionCommitResult);
  }
  // After a restart only the record knows the commit happened.
  if (s.state == TxnState::kNone) {
    StatusWith<std::optional<TxnRecord>> record = sessions.LastRecord(s);
    if (!record.ok()) return WithLabel(ErrorReply(record.status()), kUnknownTransactionCommitResult);
    if (record.value() && record.value()->txn_number == txn_number &&
        record.value()->kind == TxnRecord::Kind::kCommit) {
      return OkReply(bson::BsonDoc());
    }
  }
  return TransientError(NoSuchTransaction(txn_number));
}

bson::BsonDoc AbortTransaction(CommandContext& ctx, LogicalSession& s, int64_t txn_number) {
  if (s.txn_number == txn_number && s.state == TxnState::kInProgress) {
    ctx.engine->sessions().AbortTransaction(s, "abortTransaction");
    return OkReply(bson::BsonDoc());
  }
  if (s.txn_number == txn_number && s.state == TxnState::kCommitted) {
    return ErrorReply(Status(ErrorCode::kTransactionCommitted,
                             "Transaction " + std::to_string(txn_number) + " has been committed."));
  }
  return TransientError(NoSuchTransaction(txn_number));
}

// MongoDB 7 refuses writes to a capped collection inside a transaction
// (they are serialised outside of it): insert/update as a write error 263,
// delete as 20, findAndModify as a command error 263. nullopt: allowed.
static std::optional<bson::BsonDoc> RefuseCappedWrite(CommandContext& ctx) {
  const std::string_view name = ctx.name;
  if (name != "insert" && name != "update" && name != "delete" && name != "findAndModify") {
    return std::nullopt;
  }
  bson_iter_t it;
  if (!bson_iter_init(&it, ctx.body()) || !bson_iter_next(&it) || !BSON_ITER_HOLDS_UTF8(&it)) {
    return std::nullopt;
  }
  const std::string ns = ctx.db() + "." + bson_iter_utf8(&it, nullptr);
  auto entry = ctx.engine->catalog().Lookup(ns);
  if (entry == nullptr || !entry->store->capped()) return std::nullopt;
  const std::string refused = "Collection '" + ns +
                              "' is a capped collection. Writes in transactions are not allowed "
                              "on capped collections.";
  if (name == "findAndModify") {
    return ErrorReply(Status(ErrorCode::kOperationNotSupportedInTransaction, refused));
  }
  const bool is_delete = name == "delete";
  bson::BsonDoc reply;
  bson_t* doc = reply.mutable_get();
  BSON_APPEND_INT32(doc, "n", 0);
  if (name == "update") BSON_APPEND_INT32(doc, "nModified", 0);
  bson_t errors, error;
  bson_append_array_begin(doc, "writeErrors", -1, &errors);
  bson_append_document_begin(&errors, "0", -1, &error);
  BSON_APPEND_INT32(&error, "index", 0);
  BSON_APPEND_INT32(&error, "code", is_delete ? 20 : 263);
  BSON_APPEND_UTF8(&error, "errmsg",
                   is_delete ? ("Cannot remove from a capped collection in a multi-document "
                                "transaction: " + ns).c_str()
                             : refused.c_str());
  bson_append_document_end(&errors, &error);
  bson_append_array_end(doc, &errors);
  BSON_APPEND_DOUBLE(doc, "ok", 1.0);
  return reply;
}

bson::BsonDoc RunTransactionStatement(const CommandSpec& spec, CommandContext& ctx,
                                      LogicalSession& s, const SessionFields& f) {
  LogicalSessionCatalog& sessions = ctx.engine->sessions();
  const int64_t n = *f.txn_number;
  if (n < s.txn_number) {
    return ErrorReply(Status(ErrorCode::kTransactionTooOld,
                             "Cannot start transaction " + std::to_string(n) + " on session " +
                                 SessionIdText(s) + " because a newer transaction " +
                                 std::to_string(s.txn_number) + " has already started."));
  }
  if (ctx.name == "commitTransaction") return CommitTransaction(ctx, s, n);
  if (ctx.name == "abortTransaction") return AbortTransaction(ctx, s, n);
  if (f.start_transaction) {
    if (n == s.txn_number) {
      return TransientError(Status(ErrorCode::kNoSuchTransaction,
                                   "Transaction " + std::to_string(n) + " was already started"));
    }
    if (Status begun = sessions.BeginTransaction(s, n); !begun.ok()) return ErrorReply(begun);
  } else if (n > s.txn_number || s.state == TxnState::kNone) {
    return TransientError(Status(ErrorCode::kNoSuchTransaction,
                                 "Given transaction number " + std::to_string(n) +
                                     " does not match any in-progress transactions. The active "
                                     "transaction number is " +
                                     std::to_string(s.txn_number)));
  } else if (s.state == TxnState::kCommitted) {
    return ErrorReply(Status(ErrorCode::kTransactionCommitted,
                             "Transaction " + std::to_string(n) + " has been committed."));
  } else if (s.state == TxnState::kAborted) {
    return TransientError(NoSuchTransaction(n));
  }
  if (Status refused = CheckTransactionStatement(ctx, s); !refused.ok()) {
    sessions.AbortTransaction(s, "an operation not supported in a transaction");
    return ErrorReply(refused);
  }
  if (std::optional<bson::BsonDoc> refused = RefuseCappedWrite(ctx)) {
    sessions.AbortTransaction(s, "a write to a capped collection");
    return std::move(*refused);
  }
  if (Status entered = EnterTransactionWrite(ctx, s); !entered.ok()) {
    sessions.AbortTransaction(s, "a lock timeout behind a DDL command");
    return TransientError(entered);
  }
  StatusWith<ClaimedCollection> claim = ClaimCollection(ctx, s);
  if (!claim.ok()) {
    sessions.AbortTransaction(s, "a write conflict");
    NoteTransactionWrites(ctx, s);  // ends the use EnterTransactionWrite began
    return TransientError(claim.status());
  }
  bson::BsonDoc reply;
  {
    storage::TransactionBinding bind(&*s.txn);
    catalog::TransactionDdlEvents ddl_events(&*s.txn);
    reply = RunCommandReply(spec, ctx);
  }
  SettleClaim(ctx, s, claim.value());
  NoteTransactionWrites(ctx, s);
  RememberCursor(s, reply.get());
  const bool rolled_back = !s.txn->in_transaction();
  const bool failed = !ReplyOk(reply.get()) || ReplyHasWriteErrors(reply.get());
  if (rolled_back || failed) {
    // As in MongoDB, a statement that fails aborts its transaction.
    const bool conflict = ReplyHasWriteConflict(reply.get());
    sessions.AbortTransaction(s, conflict ? "a write conflict" : "a statement failed");
    if (conflict) {
      return TransientError(Status(ErrorCode::kWriteConflict,
                                   "Write conflict during plan execution and yielding is disabled. :: "
                                   "Please retry your operation or multi-document transaction."));
    }
  }
  return reply;
}

}  // namespace

static bson::BsonDoc RunInSessionUnchecked(const CommandSpec& spec, CommandContext& ctx) {
  SessionFields f;
  if (StatusWith<bool> parsed = ParseSessionFields(ctx.body(), &f); !parsed.ok()) {
    return ErrorReply(parsed.status());
  }
  if (!f.txn_number && (ctx.name == "commitTransaction" || ctx.name == "abortTransaction")) {
    return ErrorReply(Status(ErrorCode::kInvalidOptions,
                             std::string(ctx.name) + " must be run within a transaction"));
  }
  if (f.autocommit_false && !spec.traits.in_transaction) {
    // Refused before the session is checked out, as mongod does: the
    // transaction neither starts nor aborts (commands_not_allowed_in_txn.js).
    return ErrorReply(NotAllowedInTransaction(ctx.name));
  }
  if (!f.autocommit_false) AwaitPendingCreations(ctx, f.lsid);
  // A DDL command's gate stays closed until it ran (transaction_ddl.h).
  const DdlGate ddl_gate = f.autocommit_false ? DdlGate() : AwaitTransactionsUsing(spec, ctx, f.lsid);
  if (f.lsid == nullptr) return RunCommandReply(spec, ctx);
  if (!f.txn_number) {
    if (StatusWith<std::string> key = LogicalSessionCatalog::SessionKeyOf(f.lsid, SessionUidOf(ctx)); key.ok()) {
      ctx.engine->sessions().Touch(key.value());
    }
    return RunCommandReply(spec, ctx);
  }
  if (!f.autocommit_false && !spec.traits.retryable) {
    return ErrorReply(Status(ErrorCode::kLocation50768,
                             "txnNumber may only be provided for multi-document transactions and "
                             "retryable write commands. autocommit:false was not provided, and " +
                                 std::string(ctx.name) + " is not a retryable write command."));
  }
  StatusWith<LogicalSessionCatalog::CheckedOut> checked = ctx.engine->sessions().CheckOut(f.lsid, SessionUidOf(ctx));
  if (!checked.ok()) return ErrorReply(checked.status());
  LogicalSession& s = *checked.value();
  if (Status caught = CatchUpWithRecord(ctx.engine->sessions(), s); !caught.ok()) return ErrorReply(caught);
  if (f.autocommit_false) return RunTransactionStatement(spec, ctx, s, f);
  // Its documents are uncommitted until the write's record commits.
  const RetryableWriteUse use(ctx, s, *f.txn_number);
  return RunRetryableWrite(spec, ctx, s, *f.txn_number);
}

// Collections that transactions rolled back since the last command (by
// this command, or by the lifetime reaper or endSessions meanwhile) are
// dropped here, outside every lock (transaction_ddl.h).
bson::BsonDoc RunInSession(const CommandSpec& spec, CommandContext& ctx) {
  DropAbandonedCollections(ctx.engine);
  bson::BsonDoc reply = RunInSessionUnchecked(spec, ctx);
  DropAbandonedCollections(ctx.engine);
  return reply;
}

}  // namespace tigerdoc::wire
