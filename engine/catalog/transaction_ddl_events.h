#pragma once
// Where the change events of DDL made inside a client's transaction go.
// The catalog commits a create on its own (catalog.h), but in MongoDB 7 a
// collection created in a transaction is part of it: its `create` (and
// `createIndexes`) events appear only if the transaction commits, with its
// other events. And a collection abandoned by a rolled-back transaction
// never existed for change streams, so its drop records nothing (no `drop`,
// no `invalidate` of streams opened on the name).
//
// Both are scopes on the calling thread (wire/commands/transaction_runner.cc
// and transaction_ddl.cc set them); RecordChange (change_event.h) reads them.
// Scopes do not nest.

#include "engine/storage/storage_engine.h"

namespace tigerdoc::catalog {

// While alive, create and createIndexes events go into `txn` (a client's
// open transaction, bound to this thread) instead of the DDL's own
// transaction.
class TransactionDdlEvents {
 public:
  explicit TransactionDdlEvents(storage::Session* txn);
  ~TransactionDdlEvents();
  TransactionDdlEvents(const TransactionDdlEvents&) = delete;
  TransactionDdlEvents& operator=(const TransactionDdlEvents&) = delete;
  // The transaction of the scope on this thread, or null.
  static storage::Session* Current();
};

// While alive, drop events are not recorded (the drop of a collection an
// aborted transaction created).
class SilentDropEvents {
 public:
  SilentDropEvents();
  ~SilentDropEvents();
  SilentDropEvents(const SilentDropEvents&) = delete;
  SilentDropEvents& operator=(const SilentDropEvents&) = delete;
  static bool Active();
};

}  // namespace tigerdoc::catalog
