#pragma once
// ChangeRecorder: where every change to documents and namespaces is
// recorded, inside the WiredTiger transaction making it, for change streams
// (engine/changes/change_log.h implements it).
//
// Callers (the collection writer for documents, the catalog for DDL) build
// the event as a change log row (engine/changes/change_event.h, format in
// engine/README.md "Change log") and hand it over; it is written when that
// transaction commits, in commit order, and dropped when it rolls back, so
// a reader never misses a committed change nor sees an uncommitted one.
//
// Thread-safety: Record may be called from many threads, each with its own
// session.

#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"
#include "engine/storage/storage_engine.h"

namespace tigerdoc::catalog {

class ChangeRecorder {
 public:
  virtual ~ChangeRecorder() = default;
  // REQUIRES: `session` is in a transaction.
  virtual Status Record(storage::Session& session, bson::BsonDoc event) = 0;
};

}  // namespace tigerdoc::catalog
