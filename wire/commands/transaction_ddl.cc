// Why: see transaction_ddl.h. The notes of created collections live in one
// process-wide registry keyed by session and engine, so neither the engine
// nor the session catalog carries the wire layer's bookkeeping; the keys
// are compared, never dereferenced.

#include "wire/commands/transaction_ddl.h"

#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <utility>
#include <vector>

#include "engine/catalog/catalog.h"
#include "engine/ops.h"

namespace tigerdoc::wire {
namespace {

using engine::LogicalSession;
using NamespacePair = std::pair<std::string, std::string>;  // (db, coll)

struct CreatedInTransaction {
  int64_t txn_number = -1;
  std::set<NamespacePair> namespaces;
};

struct Registry {
  std::mutex mu;
  std::map<const LogicalSession*, CreatedInTransaction> created;       // guarded by mu
  std::map<const engine::Engine*, std::vector<NamespacePair>> abandoned;  // guarded by mu
  std::atomic<bool> any_abandoned{false};
};

Registry& TheRegistry() {
  static Registry* registry = new Registry();  // never destroyed: used by exiting threads
  return *registry;
}

Status NotInTransaction(const std::string& what) {
  return Status(ErrorCode::kOperationNotSupportedInTransaction, what);
}

bool CreatedByThisTransaction(const LogicalSession& s, const NamespacePair& ns) {
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.created.find(&s);
  return it != r.created.end() && it->second.txn_number == s.txn_number &&
         it->second.namespaces.count(ns) != 0;
}

// The pipeline's own stages only: $out and $merge are refused anywhere
// else by the stages' parsers.
Status CheckAggregate(const bson_t* body) {
  bson_iter_t it, stages, stage;
  if (!bson_iter_init_find(&it, body, "pipeline") || !BSON_ITER_HOLDS_ARRAY(&it) ||
      !bson_iter_recurse(&it, &stages)) {
    return Status::OK();  // the command's own parsing answers
  }
  while (bson_iter_next(&stages)) {
    if (!BSON_ITER_HOLDS_DOCUMENT(&stages) || !bson_iter_recurse(&stages, &stage) ||
        !bson_iter_next(&stage)) {
      continue;
    }
    const std::string_view name = bson_iter_key(&stage);
    if (name == "$out" || name == "$merge") {
      return NotInTransaction(std::string(name) + " cannot be used in a transaction");
    }
  }
  return Status::OK();
}

Status CheckCreate(const bson_t* body) {
  bson_iter_t it;
  if (bson_iter_init_find(&it, body, "viewOn")) {
    return NotInTransaction("Cannot create a view in a multi-document transaction.");
  }
  if (bson_iter_init_find(&it, body, "timeseries")) {
    return NotInTransaction("Cannot create a time-series collection in a multi-document transaction.");
  }
  return Status::OK();
}

// Every index `body` asks for is already there (by name): MongoDB answers
// such a createIndexes without building anything, also in a transaction.
bool AllIndexesExist(const bson_t* body, const catalog::CollectionEntry& entry) {
  std::set<std::string> names;
  for (const auto& spec : entry.indexes()->specs) names.insert(spec->name);
  names.insert("_id_");
  bson_iter_t it, specs, field;
  if (!bson_iter_init_find(&it, body, "indexes") || !BSON_ITER_HOLDS_ARRAY(&it) ||
      !bson_iter_recurse(&it, &specs)) {
    return false;
  }
  bool any = false;
  while (bson_iter_next(&specs)) {
    if (!BSON_ITER_HOLDS_DOCUMENT(&specs) || !bson_iter_recurse(&specs, &field) ||
        !bson_iter_find(&field, "name") || !BSON_ITER_HOLDS_UTF8(&field) ||
        names.count(bson_iter_utf8(&field, nullptr)) == 0) {
      return false;
    }
    any = true;
  }
  return any;
}

// Whether the collection holds a document as the transaction sees it (its
// own uncommitted inserts included).
StatusWith<bool> HoldsDocumentsInTransaction(CommandContext& ctx, LogicalSession& s,
                                             const NamespacePair& ns) {
  engine::CountParams count;
  count.db = ns.first;
  count.coll = ns.second;
  // A filter, so the count reads the documents rather than the committed
  // size counter.
  bson_t exists;
  bson_init(&exists);
  BSON_APPEND_BOOL(&exists, "$exists", true);
  BSON_APPEND_DOCUMENT(count.filter.mutable_get(), "_id", &exists);
  bson_destroy(&exists);
  count.limit = 1;
  storage::TransactionBinding bind(&*s.txn);
  ASSIGN_OR_RETURN(int64_t n, ctx.engine->Count(count));
  return n > 0;
}

Status CheckCreateIndexes(CommandContext& ctx, LogicalSession& s) {
  bson_iter_t it;
  if (!bson_iter_init(&it, ctx.body()) || !bson_iter_next(&it) || !BSON_ITER_HOLDS_UTF8(&it)) {
    return Status::OK();  // the command's own parsing answers
  }
  const NamespacePair ns(ctx.db(), bson_iter_utf8(&it, nullptr));
  const std::string full = ns.first + "." + ns.second;
  std::shared_ptr<catalog::CollectionEntry> entry = ctx.engine->catalog().Lookup(full);
  if (entry == nullptr) return Status::OK();  // created by this statement
  if (!CreatedByThisTransaction(s, ns)) {
    if (AllIndexesExist(ctx.body(), *entry)) return Status::OK();
    return NotInTransaction("Cannot create new indexes on existing collection " + full +
                            " in a multi-document transaction.");
  }
  ASSIGN_OR_RETURN(bool holds_documents, HoldsDocumentsInTransaction(ctx, s, ns));
  if (holds_documents) {
    return NotInTransaction("Cannot create new indexes on non-empty collection " + full +
                            " in a multi-document transaction.");
  }
  return Status::OK();
}

void Abandon(const engine::Engine* engine, std::set<NamespacePair> namespaces) {
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto& list = r.abandoned[engine];
  list.insert(list.end(), namespaces.begin(), namespaces.end());
  r.any_abandoned.store(true);
}

}  // namespace

Status CheckTransactionStatement(CommandContext& ctx, LogicalSession& s) {
  if (ctx.name == "aggregate") return CheckAggregate(ctx.body());
  if (ctx.name == "create") return CheckCreate(ctx.body());
  if (ctx.name == "createIndexes") return CheckCreateIndexes(ctx, s);
  return Status::OK();
}

CreatableCollection CollectionTheStatementMayCreate(CommandContext& ctx) {
  CreatableCollection target;
  const std::string_view name = ctx.name;
  if (name != "create" && name != "createIndexes" && name != "insert" && name != "update" &&
      name != "findAndModify" && name != "findandmodify") {
    return target;
  }
  bson_iter_t it;
  if (!bson_iter_init(&it, ctx.body()) || !bson_iter_next(&it) || !BSON_ITER_HOLDS_UTF8(&it)) {
    return target;
  }
  target.db = ctx.db();
  target.coll = bson_iter_utf8(&it, nullptr);
  target.existed = ctx.engine->catalog().Lookup(target.db + "." + target.coll) != nullptr;
  return target;
}

void NoteCreatedCollection(CommandContext& ctx, LogicalSession& s, const CreatableCollection& target) {
  if (target.coll.empty() || target.existed ||
      ctx.engine->catalog().Lookup(target.db + "." + target.coll) == nullptr) {
    return;
  }
  const NamespacePair ns(target.db, target.coll);
  const engine::Engine* engine = ctx.engine;
  if (!s.txn || !s.txn->in_transaction()) {
    Abandon(engine, {ns});  // the statement already rolled the transaction back
    return;
  }
  Registry& r = TheRegistry();
  bool first = false;
  {
    std::lock_guard<std::mutex> lock(r.mu);
    CreatedInTransaction& created = r.created[&s];
    if (created.txn_number != s.txn_number) created = CreatedInTransaction{s.txn_number, {}};
    first = created.namespaces.empty();
    created.namespaces.insert(ns);
  }
  if (!first) return;
  // One pair of callbacks per transaction: its end settles every note.
  const LogicalSession* key = &s;
  const int64_t txn_number = s.txn_number;
  auto take_notes = [key, txn_number] {
    Registry& reg = TheRegistry();
    std::lock_guard<std::mutex> lock(reg.mu);
    std::set<NamespacePair> namespaces;
    auto it = reg.created.find(key);
    if (it != reg.created.end() && it->second.txn_number == txn_number) {
      namespaces = std::move(it->second.namespaces);
      reg.created.erase(it);
    }
    return namespaces;
  };
  s.txn->OnCommit([take_notes] { take_notes(); });
  s.txn->OnRollback([take_notes, engine] { Abandon(engine, take_notes()); });
}

void DropAbandonedCollections(engine::Engine* engine) {
  Registry& r = TheRegistry();
  if (!r.any_abandoned.load()) return;
  std::vector<NamespacePair> namespaces;
  {
    std::lock_guard<std::mutex> lock(r.mu);
    auto it = r.abandoned.find(engine);
    if (it == r.abandoned.end()) return;
    namespaces = std::move(it->second);
    r.abandoned.erase(it);
    r.any_abandoned.store(!r.abandoned.empty());
  }
  for (const auto& [db, coll] : namespaces) {
    if (engine->catalog().Lookup(db + "." + coll) == nullptr) continue;
    engine::CountParams count;
    count.db = db;
    count.coll = coll;
    StatusWith<int64_t> n = engine->Count(count);
    if (!n.ok() || n.value() != 0) continue;  // someone else's documents: the collection stays
    (void)engine->DropCollection(db, coll);
  }
}

}  // namespace tigerdoc::wire
