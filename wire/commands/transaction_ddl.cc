// Why: see transaction_ddl.h. The claims live in one process-wide registry
// keyed by engine and namespace, so neither the engine nor the session
// catalog carries the wire layer's bookkeeping; the engine pointer is a key
// compared, never dereferenced, except by DropAbandonedCollections of that
// engine.

#include "wire/commands/transaction_ddl.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <utility>
#include <vector>

#include "engine/catalog/catalog.h"
#include "engine/catalog/transaction_ddl_events.h"
#include "engine/ops.h"
#include "wire/commands/command_args.h"
#include "wire/commands/command_registry.h"

namespace tigerdoc::wire {
namespace {

using engine::LogicalSession;

struct Claim {
  std::string owner;  // the session id (lsid UUID bytes)
  int64_t txn_number = -1;
  bool abandoned = false;  // the transaction rolled back: drop pending
  bool noted = false;      // a use whose end is registered with its transaction
};

using ClaimKey = std::pair<const engine::Engine*, std::string>;  // (engine, "db.coll")

struct Registry {
  std::mutex mu;
  std::condition_variable released;  // a claim went away
  std::map<ClaimKey, Claim> claims;  // guarded by mu
  std::atomic<int> abandoned{0};     // claims with abandoned set
  std::atomic<int> count{0};         // claims.size(), read without mu
  // Collections written by open transactions: (engine, ns) -> owners.
  std::multimap<ClaimKey, Claim> uses;  // guarded by mu
  std::atomic<int> use_count{0};        // uses.size(), read without mu
  // Collections closed by running DDL commands (DdlGate): (engine, ns), or
  // (engine, "db.") for a whole database; one entry per command.
  std::multiset<ClaimKey> gates;  // guarded by mu
};

// Whether a DDL command's gate covers `key`. REQUIRES: r.mu held.
bool Gated(const Registry& r, const ClaimKey& key) {
  for (const ClaimKey& gate : r.gates) {
    if (gate.first != key.first) continue;
    const std::string& ns = gate.second;
    const bool whole_db = !ns.empty() && ns.back() == '.';
    if (whole_db ? key.second.compare(0, ns.size(), ns) == 0 : key.second == ns) return true;
  }
  return false;
}

// The use of `key` by (owner, txn_number), or end(). REQUIRES: r.mu held.
std::multimap<ClaimKey, Claim>::iterator FindUse(Registry& r, const ClaimKey& key,
                                                 const std::string& owner, int64_t txn_number) {
  auto [begin, end] = r.uses.equal_range(key);
  for (auto it = begin; it != end; ++it) {
    if (it->second.owner == owner && it->second.txn_number == txn_number) return it;
  }
  return r.uses.end();
}

Registry& TheRegistry() {
  static Registry* registry = new Registry();  // never destroyed: used by exiting threads
  return *registry;
}

Status NotInTransaction(const std::string& what) {
  return Status(ErrorCode::kOperationNotSupportedInTransaction, what);
}

bool Owns(const Claim& claim, const LogicalSession& s) {
  return claim.owner == s.id && claim.txn_number == s.txn_number && !claim.abandoned;
}

std::string FirstStringArgument(CommandContext& ctx) {
  bson_iter_t it;
  if (!bson_iter_init(&it, ctx.body()) || !bson_iter_next(&it) || !BSON_ITER_HOLDS_UTF8(&it)) return "";
  return bson_iter_utf8(&it, nullptr);
}

bool MayCreate(std::string_view name) {
  return name == "create" || name == "createIndexes" || name == "insert" || name == "update" ||
         name == "findAndModify" || name == "findandmodify";
}

// The namespaces a command writes to or changes.
std::vector<std::string> WrittenNamespaces(CommandContext& ctx) {
  const std::string_view name = ctx.name;
  if (name == "renameCollection") {
    std::vector<std::string> out;
    if (std::string from = FirstStringArgument(ctx); !from.empty()) out.push_back(from);
    bson_iter_t it;
    if (bson_iter_init_find(&it, ctx.body(), "to") && BSON_ITER_HOLDS_UTF8(&it)) {
      out.push_back(bson_iter_utf8(&it, nullptr));
    }
    return out;
  }
  if (!MayCreate(name) && name != "delete" && name != "drop" && name != "dropIndexes" && name != "collMod") {
    return {};
  }
  const std::string coll = FirstStringArgument(ctx);
  if (coll.empty()) return {};
  return {ctx.db() + "." + coll};
}

// The pipeline's own stages only: $out and $merge are refused anywhere
// else by the stages' parsers.
Status CheckAggregate(const bson_t* body) {
  // Stages that read outside the transaction's snapshot: a change stream
  // reads the change log with a session of its own, and would end the
  // client's transaction under it (review finding 5).
  static const std::set<std::string_view> kNotInTransaction = {
      "$changeStream", "$collStats", "$currentOp", "$indexStats", "$listLocalSessions",
      "$listSessions", "$planCacheStats"};
  Status refused = Status::OK();
  ForEachPipelineStage(body, [&](std::string_view name, const bson_iter_t&) {
    if (name == "$out" || name == "$merge") {
      refused = NotInTransaction(std::string(name) + " cannot be used in a transaction");
    } else if (kNotInTransaction.count(name) != 0) {
      refused = NotInTransaction("Operation not permitted in transaction :: caused by :: Aggregation stage " +
                                 std::string(name) + " cannot run within a multi-document transaction.");
    }
    return refused.ok();
  });
  return refused;
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
                                             const std::string& coll) {
  engine::CountParams count;
  count.db = ctx.db();
  count.coll = coll;
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
  const std::string coll = FirstStringArgument(ctx);
  if (coll.empty()) return Status::OK();  // the command's own parsing answers
  const std::string ns = ctx.db() + "." + coll;
  std::shared_ptr<catalog::CollectionEntry> entry = ctx.engine->catalog().Lookup(ns);
  if (entry == nullptr) return Status::OK();  // created by this statement
  bool created_here = false;
  {
    Registry& r = TheRegistry();
    std::lock_guard<std::mutex> lock(r.mu);
    auto it = r.claims.find(ClaimKey(ctx.engine, ns));
    created_here = it != r.claims.end() && Owns(it->second, s);
  }
  if (!created_here) {
    if (AllIndexesExist(ctx.body(), *entry)) return Status::OK();
    return NotInTransaction("Cannot create new indexes on existing collection " + ns +
                            " in a multi-document transaction.");
  }
  ASSIGN_OR_RETURN(bool holds_documents, HoldsDocumentsInTransaction(ctx, s, coll));
  if (holds_documents) {
    return NotInTransaction("Cannot create new indexes on non-empty collection " + ns +
                            " in a multi-document transaction.");
  }
  return Status::OK();
}

void Abandon(const ClaimKey& key, const std::string& owner, int64_t txn_number) {
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.claims.find(key);
  if (it == r.claims.end() || it->second.owner != owner || it->second.txn_number != txn_number ||
      it->second.abandoned) {
    return;
  }
  it->second.abandoned = true;
  r.abandoned.fetch_add(1);
  r.released.notify_all();  // waiters drop it themselves rather than wait for a command
}

void Release(const ClaimKey& key, const std::string& owner, int64_t txn_number) {
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.claims.find(key);
  if (it == r.claims.end() || it->second.owner != owner || it->second.txn_number != txn_number) return;
  if (it->second.abandoned) r.abandoned.fetch_sub(1);
  r.claims.erase(it);
  r.count.fetch_sub(1);
  r.released.notify_all();
}

// insert, update, delete and findAndModify: the table's write kind.
bool WritesDocuments(std::string_view name) {
  const CommandSpec* spec = FindCommand(name);
  return spec != nullptr && spec->traits.kind == CommandKind::kWrite;
}

// The namespaces a DDL command outside transactions removes or replaces
// ("db." alone for dropDatabase: every collection of the database).
std::vector<std::string> ReplacedNamespaces(CommandContext& ctx) {
  const std::string_view name = ctx.name;
  // createIndexes too: its build reads committed documents only, so a
  // document an open transaction wrote would get no entry in the new index
  // when that transaction commits (review finding 2).
  if (name == "drop" || name == "dropIndexes" || name == "createIndexes") {
    const std::string coll = FirstStringArgument(ctx);
    if (coll.empty()) return {};
    return {ctx.db() + "." + coll};
  }
  if (name == "dropDatabase") return {ctx.db() + "."};
  if (name == "renameCollection") return WrittenNamespaces(ctx);
  if (name == "aggregate") {  // $out replaces its target
    std::vector<std::string> out;
    ForEachPipelineStage(ctx.body(), [&](std::string_view stage_name, const bson_iter_t& stage) {
      if (stage_name != "$out") return true;
      if (BSON_ITER_HOLDS_UTF8(&stage)) {
        out.push_back(ctx.db() + "." + bson_iter_utf8(&stage, nullptr));
      } else if (BSON_ITER_HOLDS_DOCUMENT(&stage)) {
        bson_iter_t db, coll;
        std::string target_db = ctx.db();
        if (bson_iter_recurse(&stage, &db) && bson_iter_find(&db, "db") && BSON_ITER_HOLDS_UTF8(&db)) {
          target_db = bson_iter_utf8(&db, nullptr);
        }
        if (bson_iter_recurse(&stage, &coll) && bson_iter_find(&coll, "coll") && BSON_ITER_HOLDS_UTF8(&coll)) {
          out.push_back(target_db + "." + bson_iter_utf8(&coll, nullptr));
        }
      }
      return true;
    });
    return out;
  }
  return {};
}

void EndUse(const ClaimKey& key, const std::string& owner, int64_t txn_number) {
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto [begin, end] = r.uses.equal_range(key);
  for (auto it = begin; it != end; ++it) {
    if (it->second.owner == owner && it->second.txn_number == txn_number) {
      r.uses.erase(it);
      r.use_count.fetch_sub(1);
      r.released.notify_all();
      return;
    }
  }
}

}  // namespace

Status CheckTransactionStatement(CommandContext& ctx, LogicalSession& s) {
  if (ctx.name == "aggregate") return CheckAggregate(ctx.body());
  if (ctx.name == "create") return CheckCreate(ctx.body());
  if (ctx.name == "createIndexes") return CheckCreateIndexes(ctx, s);
  return Status::OK();
}

StatusWith<ClaimedCollection> ClaimCollection(CommandContext& ctx, LogicalSession& s) {
  ClaimedCollection result;
  const std::vector<std::string> written = WrittenNamespaces(ctx);
  if (written.empty()) return result;
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  for (const std::string& ns : written) {
    auto it = r.claims.find(ClaimKey(ctx.engine, ns));
    if (it != r.claims.end() && !Owns(it->second, s)) {
      return Status(ErrorCode::kWriteConflict,
                    "Collection " + ns + " is being created by another transaction. :: Please retry "
                    "your operation or multi-document transaction.");
    }
  }
  if (!MayCreate(ctx.name)) return result;
  result.ns = written.front();
  const ClaimKey key(ctx.engine, result.ns);
  if (r.claims.count(key) == 0 && ctx.engine->catalog().Lookup(result.ns) == nullptr) {
    r.claims[key] = Claim{s.id, s.txn_number, false};
    r.count.fetch_add(1);
    result.claimed = true;
  }
  return result;
}

void SettleClaim(CommandContext& ctx, LogicalSession& s, const ClaimedCollection& claim) {
  if (!claim.claimed) return;
  const ClaimKey key(ctx.engine, claim.ns);
  const std::string owner = s.id;
  const int64_t txn_number = s.txn_number;
  if (ctx.engine->catalog().Lookup(claim.ns) == nullptr) {
    Release(key, owner, txn_number);  // the statement created nothing
    return;
  }
  if (!s.txn || !s.txn->in_transaction()) {
    Abandon(key, owner, txn_number);  // the statement already rolled the transaction back
    return;
  }
  s.txn->OnCommit([key, owner, txn_number] { Release(key, owner, txn_number); });
  s.txn->OnRollback([key, owner, txn_number] { Abandon(key, owner, txn_number); });
}

Status EnterTransactionWrite(CommandContext& ctx, LogicalSession& s) {
  if (!WritesDocuments(ctx.name)) return Status::OK();
  const std::string coll = FirstStringArgument(ctx);
  if (coll.empty()) return Status::OK();
  const ClaimKey key(ctx.engine, ctx.db() + "." + coll);
  Registry& r = TheRegistry();
  std::unique_lock<std::mutex> lock(r.mu);
  if (FindUse(r, key, s.id, s.txn_number) != r.uses.end()) return Status::OK();  // held already
  const auto deadline = std::chrono::steady_clock::now() + kTransactionLockRequestTimeout;
  while (Gated(r, key)) {
    if (r.released.wait_until(lock, deadline) == std::cv_status::timeout && Gated(r, key)) {
      return Status(ErrorCode::kLockTimeout,
                    "Unable to acquire IX lock on '" + key.second + "' within " +
                        std::to_string(kTransactionLockRequestTimeout.count()) +
                        "ms. :: a DDL command holds the collection; retry the transaction.");
    }
  }
  r.uses.emplace(key, Claim{s.id, s.txn_number, false});
  r.use_count.fetch_add(1);
  return Status::OK();
}

void NoteTransactionWrites(CommandContext& ctx, LogicalSession& s) {
  if (!WritesDocuments(ctx.name)) return;
  const std::string coll = FirstStringArgument(ctx);
  if (coll.empty()) return;
  const ClaimKey key(ctx.engine, ctx.db() + "." + coll);
  const std::string owner = s.id;
  const int64_t txn_number = s.txn_number;
  const bool open = s.txn && s.txn->in_transaction();
  {
    Registry& r = TheRegistry();
    std::lock_guard<std::mutex> lock(r.mu);
    auto use = FindUse(r, key, owner, txn_number);
    if (use == r.uses.end()) {
      if (!open) return;
      use = r.uses.emplace(key, Claim{owner, txn_number, false});
      r.use_count.fetch_add(1);
    }
    if (use->second.noted) return;  // an earlier statement registered its end
    if (!open) {
      // The statement rolled the transaction back: no callback will run.
      r.uses.erase(use);
      r.use_count.fetch_sub(1);
      r.released.notify_all();
      return;
    }
    use->second.noted = true;
  }
  // Registered after the statement's own callbacks, so it runs after them.
  s.txn->OnCommit([key, owner, txn_number] { EndUse(key, owner, txn_number); });
  s.txn->OnRollback([key, owner, txn_number] { EndUse(key, owner, txn_number); });
}

RetryableWriteUse::RetryableWriteUse(CommandContext& ctx, const LogicalSession& s, int64_t txn_number) {
  if (!WritesDocuments(ctx.name)) return;
  const std::string coll = FirstStringArgument(ctx);
  if (coll.empty()) return;
  const ClaimKey key(ctx.engine, ctx.db() + "." + coll);
  Registry& r = TheRegistry();
  std::unique_lock<std::mutex> lock(r.mu);
  // Not a transaction: it waits for the DDL as a plain write waits for the
  // collection's lock (it holds no use meanwhile, so nothing waits for it).
  while (Gated(r, key)) r.released.wait_for(lock, std::chrono::milliseconds(100));
  r.uses.emplace(key, Claim{s.id, txn_number, false});
  r.use_count.fetch_add(1);
  engine_ = ctx.engine;
  ns_ = key.second;
  owner_ = s.id;
  txn_number_ = txn_number;
}

RetryableWriteUse::~RetryableWriteUse() {
  if (engine_ != nullptr) EndUse(ClaimKey(engine_, ns_), owner_, txn_number_);
}

DdlGate::DdlGate(DdlGate&& other) noexcept
    : engine_(other.engine_), namespaces_(std::move(other.namespaces_)) {
  other.engine_ = nullptr;
  other.namespaces_.clear();
}

DdlGate::~DdlGate() {
  if (engine_ == nullptr || namespaces_.empty()) return;
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  for (const std::string& ns : namespaces_) {
    auto it = r.gates.find(ClaimKey(engine_, ns));
    if (it != r.gates.end()) r.gates.erase(it);
  }
  r.released.notify_all();
}

DdlGate AwaitTransactionsUsing(const CommandSpec& spec, CommandContext& ctx, const bson_t* lsid) {
  DdlGate gate;
  if (!spec.traits.ddl) return gate;
  std::vector<std::string> replaced = ReplacedNamespaces(ctx);
  if (replaced.empty()) return gate;
  std::string self;
  if (lsid != nullptr) {
    if (StatusWith<std::string> id = engine::LogicalSessionCatalog::SessionIdOf(lsid); id.ok()) {
      self = id.value();
    }
  }
  auto in_use_by = [&](bool want_self) {
    for (const auto& [key, use] : TheRegistry().uses) {
      if (key.first != ctx.engine || (use.owner == self) != want_self) continue;
      for (const std::string& ns : gate.namespaces_) {
        const bool whole_db = !ns.empty() && ns.back() == '.';
        if (whole_db ? key.second.compare(0, ns.size(), ns) == 0 : key.second == ns) return true;
      }
    }
    return false;
  };
  Registry& r = TheRegistry();
  std::unique_lock<std::mutex> lock(r.mu);
  // Closed first: from here no transaction starts writing these
  // collections, so once the open ones end, none is left until the DDL ran.
  for (const std::string& ns : replaced) r.gates.emplace(ctx.engine, ns);
  gate.engine_ = ctx.engine;
  gate.namespaces_ = std::move(replaced);
  if (!self.empty() && in_use_by(true)) {
    // The session's own open transaction: it cannot end while this command
    // waits, so the DDL ends it (its writes roll back), as the command's
    // session is the transaction's.
    lock.unlock();
    StatusWith<engine::LogicalSessionCatalog::CheckedOut> own = ctx.engine->sessions().CheckOut(lsid);
    if (own.ok() && (*own.value()).state == engine::TxnState::kInProgress) {
      ctx.engine->sessions().AbortTransaction(*own.value(), "a DDL command of its session replaced a collection it wrote");
    }
    lock.lock();
  }
  while (in_use_by(false)) r.released.wait_for(lock, std::chrono::milliseconds(100));
  return gate;
}

void AwaitPendingCreations(CommandContext& ctx, const bson_t* lsid) {
  // A claim made just after this look is harmless: a write outside
  // transactions commits at once, so the abandoned collection is kept.
  if (TheRegistry().count.load() == 0) return;
  const std::vector<std::string> written = WrittenNamespaces(ctx);
  if (written.empty()) return;
  std::string self;
  if (lsid != nullptr) {
    if (StatusWith<std::string> id = engine::LogicalSessionCatalog::SessionIdOf(lsid); id.ok()) {
      self = id.value();
    }
  }
  Registry& r = TheRegistry();
  std::unique_lock<std::mutex> lock(r.mu);
  for (;;) {
    bool blocked = false, abandoned = false;
    for (const std::string& ns : written) {
      auto it = r.claims.find(ClaimKey(ctx.engine, ns));
      if (it == r.claims.end() || it->second.owner == self) continue;
      blocked = true;
      abandoned = abandoned || it->second.abandoned;
    }
    if (!blocked) return;
    if (abandoned) {
      lock.unlock();
      DropAbandonedCollections(ctx.engine);
      lock.lock();
      continue;
    }
    r.released.wait_for(lock, std::chrono::milliseconds(100));
  }
}

void DropAbandonedCollections(engine::Engine* engine) {
  Registry& r = TheRegistry();
  if (r.abandoned.load() == 0) return;
  // One thread at a time (every command of a replica set calls this, and so
  // does a writer waiting on the claim). An abandoned claim is released only
  // here, so the list taken under this lock holds claims that still block
  // writers outside transactions. Without it a second thread's stale list
  // let it count and drop the name after the first had released it, while
  // a waiting insert recreated the collection: the insert was acknowledged
  // and dropped with it (transaction_test's
  // OthersWaitForACollectionATransactionIsCreating, once in ~40 runs on a
  // loaded machine).
  static std::mutex one_at_a_time;
  std::lock_guard<std::mutex> dropping(one_at_a_time);
  std::vector<std::pair<ClaimKey, Claim>> abandoned;
  {
    std::lock_guard<std::mutex> lock(r.mu);
    for (const auto& [key, claim] : r.claims) {
      if (key.first == engine && claim.abandoned) abandoned.emplace_back(key, claim);
    }
  }
  for (const auto& [key, claim] : abandoned) {
    const std::string& ns = key.second;
    const size_t dot = ns.find('.');
    const std::string db = ns.substr(0, dot), coll = ns.substr(dot + 1);
    if (engine->catalog().Lookup(ns) != nullptr) {
      engine::CountParams count;
      count.db = db;
      count.coll = coll;
      StatusWith<int64_t> n = engine->Count(count);
      // Documents committed before the claim (by a write outside sessions)
      // are someone's acknowledged data: the collection stays.
      if (n.ok() && n.value() == 0) {
        catalog::SilentDropEvents silent;  // it never existed for change streams
        (void)engine->DropCollection(db, coll);
      }
    }
    Release(key, claim.owner, claim.txn_number);
  }
}

}  // namespace tigerdoc::wire
