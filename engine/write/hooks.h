#pragma once
// PatternHook: how a pattern (patterns/<name>/) joins a collection's writes
// without the engine knowing it.
//
// A collection's catalog row names its patterns and their canonical configs
// (`patterns: {<name>: <config>}`); the engine asks each Pattern of the
// registry (pattern_registry.h) for one hook per configured collection and
// runs them from CollectionWriter, INSIDE the write's WiredTiger
// transaction, for every document change on every write path (insert,
// update, replace, upsert, delete, findAndModify, batches, $out, $merge,
// TTL deletes, and other hooks' writes):
//
//   CollectionWriter::Insert/Update           CollectionWriter::Remove
//     BeforeStore (each hook, config order)     store + index entries removed
//     store + index entries                     AfterRemove (each hook)
//     AfterStore (each hook)
//
// What a hook may do:
//   - BeforeStore: check the document (a non-OK Status refuses the write;
//     the transaction rolls back, so nothing of it stays), or reshape it by
//     filling *reshaped (the next hook and the store see the new document).
//     It must not write anything: later hooks may still refuse.
//   - AfterStore / AfterRemove: read and write WiredTiger through
//     ctx.session() (counter rows, tables of its own named
//     "<ident>-<suffix>"), and change other collections through
//     ctx.WriterFor(), whose writes go through their own CollectionWriter
//     and so through their own rules and hooks. A non-OK Status refuses the
//     whole write. Everything commits or rolls back with the write.
//   - Take in-memory reservations with ctx.session().OnCommit/OnRollback.
//   - AppendStats / AppendShardStats / AppendExplain / Validate: report
//     (collStats, $collStats per shard, explain, validate). They run outside write transactions, on a session of their
//     own.
// Guards: a pattern may also check writes of a collection it does not
// configure (Pattern::GuardFor: the parent a subset writes into); a guard's
// BeforeStore runs after the collection's own hooks' and tells its
// pattern's writes from others by WriteEvent::origin, which a hook writing
// through WriterFor sets with CollectionWriter::SetOrigin.
//
// A refusal is a MongoDB-style Status with a message that says what to
// change. Write conflicts (112) must be returned as they are: the write
// unit retries the whole unit, hooks included, so hooks keep no state
// across a call that is not undone by OnRollback.
//
// Ownership: the engine owns hooks (shared by the collection's pattern
// state; an old hook may still run a write that started before a collMod
// replaced it, which is why collMod takes the collection's write mutex
// exclusively). The context and the documents it passes are borrowed for
// the call only.
//
// Thread-safety: one hook serves every concurrent writer of its
// collection; its methods must be thread-safe (keep mutable state atomic or
// in WiredTiger).

#include <bson/bson.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"
#include "engine/catalog/catalog.h"
#include "engine/storage/storage_engine.h"

namespace tigerdoc::engine {

class CollectionWriter;

enum class WriteKind { kInsert, kUpdate, kRemove };

// One document change. `before` is the stored document (update, remove),
// `after` the one being stored (insert, update); the other is nullptr.
struct WriteEvent {
  WriteKind kind = WriteKind::kInsert;
  const bson_t* before = nullptr;
  const bson_t* after = nullptr;
  // An insert made by an upsert: errors speak of an update (17419, not 10334).
  bool from_update = false;
  // kUpdate: the operator update that produced `after` ({$push: {...}}), so
  // a pattern that keeps part of a document elsewhere can route it; nullptr
  // for replacements and pipelines and writes without one ($merge).
  const bson_t* update = nullptr;
  // kUpdate: `after` came from a pipeline update (update is nullptr).
  bool update_is_pipeline = false;
  // kInsert / kUpdate: the document as the write proposed it, before any
  // hook reshaped it (AfterStore's `after` is the stored, reshaped one).
  const bson_t* proposed = nullptr;
  // Who makes the write: empty for a command's own write; for a write a
  // hook makes through WriterFor, what that hook set with
  // CollectionWriter::SetOrigin (e.g. "subset db.reviews"), so that a guard
  // (Pattern::GuardFor) can let its own pattern's writes through.
  std::string_view origin;
};

// What a hook sees of the write it joins.
class HookContext {
 public:
  virtual ~HookContext() = default;
  // The write's session. REQUIRES: it is in a transaction (during a write).
  virtual storage::Session& session() = 0;
  // The collection being written.
  virtual const catalog::CollectionEntry& collection() const = 0;
  // A writer for another collection (created with the defaults when
  // missing, which is DDL and not undone by a rollback), valid until the
  // write this context belongs to ends. Its writes run that collection's
  // hooks; BadValue when hooks nest deeper than a few levels (a cycle of
  // patterns writing each other).
  virtual StatusWith<CollectionWriter*> WriterFor(std::string_view db, std::string_view coll) = 0;
  // Another collection's entry without creating it (nullptr when absent),
  // for hooks that read it or must leave a missing collection missing.
  virtual std::shared_ptr<catalog::CollectionEntry> Lookup(std::string_view /*db*/,
                                                           std::string_view /*coll*/) {
    return nullptr;
  }
};

class PatternHook {
 public:
  virtual ~PatternHook() = default;

  // REQUIRES (the three write calls): ctx.session() is in a transaction.
  virtual Status BeforeStore(HookContext& /*ctx*/, const WriteEvent& /*event*/,
                             bson::BsonDoc* /*reshaped*/) {
    return Status::OK();
  }
  virtual Status AfterStore(HookContext& /*ctx*/, const WriteEvent& /*event*/) {
    return Status::OK();
  }
  virtual Status AfterRemove(HookContext& /*ctx*/, const WriteEvent& /*event*/) {
    return Status::OK();
  }
  // Whether an update changes anything, for updates a pattern routes
  // partly elsewhere (the engine compares only the stored document): a $pull
  // of items kept in another collection changes something although the
  // document stays as it was; an $addToSet of items kept elsewhere changes
  // nothing although the document grew. `event.after` is the engine's
  // result; `modified` is the engine's verdict. kChanges makes the write go
  // through (BeforeStore / AfterStore run; `after` may equal `before`),
  // kNoChange skips it (nModified 0). May read, must not write.
  enum class UpdateEffect { kAsComputed, kChanges, kNoChange };
  virtual StatusWith<UpdateEffect> EffectOfUpdate(HookContext& /*ctx*/,
                                                  const WriteEvent& /*event*/,
                                                  bool /*modified*/) {
    return UpdateEffect::kAsComputed;
  }

  // collStats: appends what the pattern reports to `out` (the pattern's own
  // sub-document of collStats' `patterns`).
  virtual Status AppendStats(storage::Session& /*session*/,
                             const catalog::CollectionEntry& /*coll*/, bson_t* /*out*/) {
    return Status::OK();
  }
  // $collStats: one document per shard (the shape a sharded cluster gives,
  // which mongosh's db.c.stats() shows under `shards.<name>`); appends what
  // the pattern reports for shard `shard` alone.
  virtual Status AppendShardStats(storage::Session& /*session*/,
                                  const catalog::CollectionEntry& /*coll*/, int /*shard*/,
                                  bson_t* /*out*/) {
    return Status::OK();
  }
  // explain: appends how the pattern shapes the collection's reads.
  virtual void AppendExplain(const catalog::CollectionEntry& /*coll*/, bson_t* /*out*/) const {}
  // validate: recomputes what the pattern keeps beside the documents and
  // adds a line per difference to *problems.
  virtual Status Validate(storage::Session& /*session*/, const catalog::CollectionEntry& /*coll*/,
                          std::vector<std::string>* /*problems*/) {
    return Status::OK();
  }
  // validate with the catalog, for patterns that relate collections (the
  // subset's parent); what the engine calls. By default, Validate above.
  virtual Status ValidateWith(storage::Session& session, catalog::Catalog& /*catalog*/,
                              const catalog::CollectionEntry& coll,
                              std::vector<std::string>* problems) {
    return Validate(session, coll, problems);
  }
};

}  // namespace tigerdoc::engine
