// Catalog: loading, DDL ordering, ident allocation and orphan reaping.

#include "engine/catalog/catalog.h"

#include "engine/catalog/capped_options.h"
#include "engine/catalog/change_event.h"

#include <algorithm>
#include <chrono>
#include <deque>
#include <mutex>
#include <vector>
#include <cstdio>
#include <optional>
#include <set>

#include "engine/index/index_table.h"
#include "engine/index/multikey_merge.h"

namespace tigerdoc::catalog {

namespace {

using storage::Session;
using storage::ShardedRecordStore;

// "c<digits>" -> the number; 0 when `stem` is not an ident.
uint64_t IdentNumber(std::string_view stem) {
  if (stem.size() < 2 || stem[0] != 'c' || stem.size() > 20) return 0;
  uint64_t n = 0;
  for (char c : stem.substr(1)) {
    if (c < '0' || c > '9') return 0;
    n = n * 10 + static_cast<uint64_t>(c - '0');
  }
  return n;
}

// The ident a table belongs to: the part of its name before the first '-'.
std::string_view StemOf(std::string_view table) { return table.substr(0, table.find('-')); }

Status ValidateShardKeyField(std::string_view field) {
  if (field.empty()) return Status(ErrorCode::kBadValue, "shard key field name cannot be empty");
  if (field.find('\0') != std::string_view::npos) {
    return Status(ErrorCode::kBadValue, "shard key field name cannot contain null characters");
  }
  size_t start = 0;
  for (;;) {
    size_t dot = field.find('.', start);
    std::string_view part = field.substr(start, dot == std::string_view::npos ? dot : dot - start);
    if (part.empty()) {
      return Status(ErrorCode::kBadValue,
                    "shard key field '" + std::string(field) + "' has an empty path component");
    }
    if (part.front() == '$') {
      return Status(ErrorCode::kBadValue,
                    "shard key field '" + std::string(field) + "' cannot start with '$'");
    }
    if (dot == std::string_view::npos) return Status::OK();
    start = dot + 1;
  }
}

std::string_view AsView(const bson::BsonDoc& doc) { return doc.bytes(); }

bool IsTemp(const CollectionMetadata& md) {
  bson_iter_t it;
  return bson_iter_init_find(&it, md.options.get(), kTempOption) && bson_iter_as_bool(&it);
}

// `options` without the temp flag.
bson::BsonDoc WithoutTemp(const bson_t* options) {
  bson::BsonDoc out;
  bson_iter_t it;
  bson_iter_init(&it, options);
  while (bson_iter_next(&it)) {
    if (std::string_view(bson_iter_key(&it)) == kTempOption) continue;
    bson_append_iter(out.mutable_get(), nullptr, 0, &it);
  }
  return out;
}

// The "indexes" and "nextIndexId" fields of a catalog document.
StatusWith<std::shared_ptr<index::IndexSet>> IndexesFromRow(const bson_t* row) {
  auto set = std::make_shared<index::IndexSet>();
  bson_iter_t it;
  if (bson_iter_init_find(&it, row, "nextIndexId") &&
      (BSON_ITER_HOLDS_INT64(&it) || BSON_ITER_HOLDS_INT32(&it))) {
    set->next_index_id = std::max<int64_t>(1, bson_iter_as_int64(&it));
  }
  if (bson_iter_init_find(&it, row, "indexes") && BSON_ITER_HOLDS_ARRAY(&it)) {
    bson_iter_t element;
    bson_iter_recurse(&it, &element);
    while (bson_iter_next(&element)) {
      if (!BSON_ITER_HOLDS_DOCUMENT(&element)) {
        return Status(ErrorCode::kFailedToParse, "malformed catalog entry: bad indexes");
      }
      uint32_t len = 0;
      const uint8_t* data = nullptr;
      bson_iter_document(&element, &len, &data);
      bson_t spec_doc;
      bson_init_static(&spec_doc, data, len);
      ASSIGN_OR_RETURN(index::IndexSpec spec, index::IndexSpec::FromCatalogBson(&spec_doc));
      set->next_index_id = std::max(set->next_index_id, spec.id + 1);
      set->specs.push_back(std::make_shared<const index::IndexSpec>(std::move(spec)));
    }
  }
  return set;
}

}  // namespace

std::shared_ptr<const index::IndexSet> CollectionEntry::indexes() const {
  std::lock_guard<std::mutex> lock(index_mutex_);
  return indexes_;
}

std::shared_ptr<const PatternState> CollectionEntry::patterns() const {
  std::lock_guard<std::mutex> lock(index_mutex_);
  return patterns_;
}

bson::BsonDoc Catalog::RowFor(const CollectionEntry& entry, const index::IndexSet& indexes) {
  // Options and pattern configs are the live ones (collMod may have
  // changed them since the entry was loaded).
  std::shared_ptr<const PatternState> patterns = entry.patterns();
  bson::BsonDoc row = entry.metadata.ToBson(entry.metadata.options.get(), patterns->configs.get());
  bson_t array;
  BSON_APPEND_ARRAY_BEGIN(row.mutable_get(), "indexes", &array);
  int i = 0;
  for (const auto& spec : indexes.specs) {
    std::string key = std::to_string(i++);
    bson::BsonDoc doc = spec->ToCatalogBson();
    bson_append_document(&array, key.c_str(), -1, doc.get());
  }
  bson_append_array_end(row.mutable_get(), &array);
  BSON_APPEND_INT64(row.mutable_get(), "nextIndexId", indexes.next_index_id);
  return row;
}

StatusWith<std::unique_ptr<Catalog>> Catalog::Open(storage::StorageEngine* engine) {
  std::unique_ptr<Catalog> catalog(new Catalog(engine));
  Session session = engine->NewUnboundSession();
  RETURN_IF_ERROR(session.CreateTable(kCatalogTable));

  uint64_t persisted_next = 1, max_entry = 0;
  {
    ASSIGN_OR_RETURN(storage::Cursor cursor, session.Scan(kCatalogTable, "", ""));
    Status status;
    while (cursor.Next(&status)) {
      const auto* data = reinterpret_cast<const uint8_t*>(cursor.value().data());
      ASSIGN_OR_RETURN(bson::BsonDoc doc, bson::BsonDoc::FromBytes(data, cursor.value().size()));
      if (cursor.key() == kNextIdentKey) {
        bson_iter_t it;
        if (bson_iter_init_find(&it, doc.get(), "nextIdent") &&
            (BSON_ITER_HOLDS_INT64(&it) || BSON_ITER_HOLDS_INT32(&it))) {
          persisted_next = static_cast<uint64_t>(std::max<int64_t>(1, bson_iter_as_int64(&it)));
        }
        continue;
      }
      if (ViewDefinition::IsViewEntry(doc.get())) {
        auto view = ViewDefinition::FromBson(doc.get());
        if (!view.ok()) {
          return view.status().WithContext("catalog entry '" + std::string(cursor.key()) + "': ");
        }
        std::string ns = view.value().ns;
        catalog->views_.emplace(std::move(ns), std::make_shared<const ViewDefinition>(
                                                   std::move(view).value()));
        continue;
      }
      auto metadata = CollectionMetadata::FromBson(doc.get());
      if (!metadata.ok()) {
        return metadata.status().WithContext("catalog entry '" + std::string(cursor.key()) +
                                             "': ");
      }
      auto entry = std::make_shared<CollectionEntry>();
      entry->metadata = std::move(metadata).value();
      if (IsTemp(entry->metadata)) {
        // A $out that did not finish: forget it; its tables become orphans.
        RETURN_IF_ERROR(session.Remove(kCatalogTable, entry->metadata.ns));
        continue;
      }
      auto indexes = IndexesFromRow(doc.get());
      if (!indexes.ok()) {
        return indexes.status().WithContext("catalog entry '" + std::string(cursor.key()) + "': ");
      }
      for (const auto& spec : indexes.value()->specs) {
        entry->persisted_multikey_[spec->id] = spec->multikey_paths;
        entry->persisted_wildcard_multikey_[spec->id] = spec->wildcard_multikey_paths;
      }
      entry->indexes_ = std::move(indexes).value();
      entry->patterns_ = std::make_shared<PatternState>(
          PatternState{entry->metadata.patterns.Copy(), nullptr});
      max_entry = std::max(max_entry, IdentNumber(entry->metadata.ident));
      entry->store = std::make_unique<ShardedRecordStore>(
          entry->metadata.ident, entry->metadata.num_shards, entry->metadata.shard_key_field,
          CappedLimitsOf(entry->metadata.options.get()).has_value());
      catalog->collections_.emplace(entry->metadata.ns, std::move(entry));
    }
    RETURN_IF_ERROR(status);
  }
  for (auto& [ns, entry] : catalog->collections_) {
    RETURN_IF_ERROR(entry->store->LoadStats(session).WithContext("loading stats of " + ns + ": "));
  }

  uint64_t max_table = 0;
  RETURN_IF_ERROR(catalog->ReapOrphans(session, &max_table));
  // The persisted counter alone would do; the maxima guard against an older
  // data directory or a counter row lost with a partial write.
  catalog->next_ident_ = std::max({persisted_next, max_entry + 1, max_table + 1});
  return catalog;
}

Status Catalog::ReapOrphans(Session& session, uint64_t* max_ident_seen) {
  std::set<std::string, std::less<>> known;
  std::map<std::string, std::set<int64_t>, std::less<>> index_ids;  // by ident
  for (const auto& [ns, entry] : collections_) {
    known.insert(entry->metadata.ident);
    auto& ids = index_ids[entry->metadata.ident];
    for (const auto& spec : entry->indexes_->specs) ids.insert(spec->id);
  }
  ASSIGN_OR_RETURN(std::vector<std::string> tables, session.ListTables());
  *max_ident_seen = 0;
  for (const std::string& table : tables) {
    std::string_view stem = StemOf(table);
    uint64_t number = IdentNumber(stem);
    if (number == 0) continue;  // not a collection table ("_catalog", ...)
    *max_ident_seen = std::max(*max_ident_seen, number);
    if (known.count(stem) != 0) {
      // An index table of an index the entry does not name: a build that
      // a crash interrupted before the entry was updated.
      std::optional<int64_t> id = index::IndexIdOfTable(table);
      auto ids = index_ids.find(stem);
      if (!id || ids->second.count(*id) != 0) continue;
    }
    Status dropped = session.DropTable(table);
    if (!dropped.ok()) {
      // Not fatal: the table is unreachable, and the next start tries again.
      std::fprintf(stderr, "catalog: cannot drop orphaned table %s: %s\n", table.c_str(),
                   dropped.ToString().c_str());
    }
  }
  return Status::OK();
}

std::shared_ptr<CollectionEntry> Catalog::Lookup(std::string_view ns) const {
  std::shared_lock<std::shared_mutex> lock(map_mutex_);
  auto it = collections_.find(ns);
  return it == collections_.end() ? nullptr : it->second;
}

std::vector<std::shared_ptr<CollectionEntry>> Catalog::List(std::string_view db) const {
  std::shared_lock<std::shared_mutex> lock(map_mutex_);
  std::vector<std::shared_ptr<CollectionEntry>> out;
  for (const auto& [ns, entry] : collections_) {
    if (db.empty() || entry->metadata.db == db) out.push_back(entry);
  }
  return out;
}

std::vector<std::string> Catalog::ListDatabases() const {
  std::shared_lock<std::shared_mutex> lock(map_mutex_);
  std::set<std::string> dbs;
  for (const auto& [ns, entry] : collections_) dbs.insert(entry->metadata.db);
  for (const auto& [ns, view] : views_) dbs.insert(view->db);
  return {dbs.begin(), dbs.end()};
}

StatusWith<std::shared_ptr<CollectionEntry>> Catalog::CreateCollection(
    const CreateCollectionRequest& request) {
  std::lock_guard<std::mutex> ddl(ddl_mutex_);
  return CreateLocked(request);
}

StatusWith<std::shared_ptr<CollectionEntry>> Catalog::GetOrCreate(std::string_view db,
                                                                 std::string_view name,
                                                                 int default_num_shards) {
  std::string ns = std::string(db) + "." + std::string(name);
  if (auto entry = Lookup(ns)) return entry;
  std::lock_guard<std::mutex> ddl(ddl_mutex_);
  // Another thread may have created it while we waited for the DDL mutex.
  if (auto entry = Lookup(ns)) return entry;
  CreateCollectionRequest request;
  request.db = std::string(db);
  request.name = std::string(name);
  request.num_shards = default_num_shards;
  return CreateLocked(request);
}

StatusWith<std::string> Catalog::AllocateIdent(Session& session) {
  const uint64_t number = next_ident_;
  bson::BsonDoc counter;
  BSON_APPEND_INT64(counter.mutable_get(), "nextIdent", static_cast<int64_t>(number + 1));
  // Persisted before the ident is used, so that even a crash right after
  // creating the tables never hands the same ident out twice.
  RETURN_IF_ERROR(session.Put(kCatalogTable, kNextIdentKey, AsView(counter)));
  next_ident_ = number + 1;
  std::string ident = std::to_string(number);
  ident.insert(ident.begin(), 'c');
  return ident;
}

StatusWith<std::shared_ptr<CollectionEntry>> Catalog::CreateLocked(
    const CreateCollectionRequest& request) {
  RETURN_IF_ERROR(ValidateNamespace(request.db, request.name));
  RETURN_IF_ERROR(ValidateShardKeyField(request.shard_key_field));
  if (request.num_shards < 1 || request.num_shards > kMaxShards) {
    return Status(ErrorCode::kBadValue, "number of shards must be between 1 and " +
                                            std::to_string(kMaxShards) + ", got " +
                                            std::to_string(request.num_shards));
  }
  const std::string ns = request.db + "." + request.name;
  if (Lookup(ns) != nullptr || LookupView(ns) != nullptr) {
    return Status(ErrorCode::kNamespaceExists, "Collection " + ns + " already exists.");
  }

  Session session = engine_->NewUnboundSession();
  ASSIGN_OR_RETURN(std::string ident, AllocateIdent(session));

  auto entry = std::make_shared<CollectionEntry>();
  CollectionMetadata& md = entry->metadata;
  md.ns = ns;
  md.db = request.db;
  md.name = request.name;
  md.ident = ident;
  md.shard_key_field = request.shard_key_field;
  md.num_shards = request.num_shards;
  md.options = request.options.Copy();
  md.default_collator = DefaultCollatorOf(md.options.get());
  md.collated_id_table = md.default_collator != nullptr;
  md.patterns = request.patterns.Copy();
  entry->patterns_ =
      std::make_shared<PatternState>(PatternState{md.patterns.Copy(), nullptr});

  // Tables first, then the entry: a crash in between leaves only orphans.
  const bool capped = CappedLimitsOf(md.options.get()).has_value();
  Status created = ShardedRecordStore::CreateTables(session, ident, md.num_shards,
                                                    md.shard_key_field == "_id" && !capped,
                                                    md.collated_id_table);
  entry->store =
      std::make_unique<ShardedRecordStore>(ident, md.num_shards, md.shard_key_field, capped);
  if (created.ok() && request.attach) {
    StatusWith<std::shared_ptr<const PatternAttachment>> attached = request.attach(*entry);
    if (attached.ok()) {
      entry->patterns_ = std::make_shared<PatternState>(
          PatternState{md.patterns.Copy(), std::move(attached).value()});
    } else {
      created = attached.status();
    }
  }
  if (created.ok()) {
    // The row and the change log's create event commit together.
    created = session.Begin();
    if (created.ok()) {
      created = session.Insert(kCatalogTable, ns, AsView(RowFor(*entry, index::IndexSet())));
      if (created.ok()) {
        bson::BsonDoc desc = bson::BsonDoc::FromJson(
            R"({"idIndex": {"v": 2, "key": {"_id": 1}, "name": "_id_"}})");
        created = RecordChange(*this, session,
                               NamespaceEvent("create", request.db, request.name, desc.get()));
      }
      created = created.ok() ? session.Commit() : (session.Rollback(), created);
    }
  }
  if (!created.ok()) {
    static_cast<void>(DropIdentTables(session, ident));  // best effort; the reaper is the backstop
    return created;
  }
  {
    std::unique_lock<std::shared_mutex> lock(map_mutex_);
    collections_.emplace(ns, entry);
  }
  return entry;
}

Status Catalog::DropCollection(std::string_view ns) {
  std::lock_guard<std::mutex> ddl(ddl_mutex_);
  return DropLocked(std::string(ns));
}

Status Catalog::DropDatabase(std::string_view db) {
  std::lock_guard<std::mutex> ddl(ddl_mutex_);
  bool dropped_any = false;
  for (const auto& entry : List(db)) {
    RETURN_IF_ERROR(DropLocked(entry->metadata.ns));
    dropped_any = true;
  }
  for (const auto& view : ListViews(db)) {
    RETURN_IF_ERROR(DropViewLocked(view->ns));
    dropped_any = true;
  }
  if (!dropped_any || change_recorder_ == nullptr) return Status::OK();
  // After the drop event of each collection, as MongoDB's oplog has them.
  Session session = engine_->NewUnboundSession();
  RETURN_IF_ERROR(session.Begin());
  Status recorded = RecordChange(*this, session, NamespaceEvent("dropDatabase", db, ""));
  if (!recorded.ok()) {
    session.Rollback();
    return recorded;
  }
  return session.Commit();
}

namespace {

// A collection entry removed from the catalog (dropped, renamed away,
// replaced) stays allocated for a while: a write that started before the
// removal may still commit (a client's transaction lives up to
// transactionLifetimeLimitSeconds, a retryable write's between its
// statement and its commit), and its commit callbacks reach the entry and
// its record store through raw pointers (size counters, multikey paths).
// Freeing at once crashed such commits. Ten minutes covers the default 60
// s lifetime many times over; never freed at exit (no destructor runs
// after the engine closed).
constexpr auto kKeepRemovedEntriesFor = std::chrono::minutes(10);

void KeepAfterRemoval(std::shared_ptr<CollectionEntry> entry) {
  using Clock = std::chrono::steady_clock;
  static std::mutex* mu = new std::mutex();
  static auto* kept = new std::deque<std::pair<Clock::time_point, std::shared_ptr<CollectionEntry>>>();
  std::vector<std::shared_ptr<CollectionEntry>> expired;  // freed outside the lock
  std::lock_guard<std::mutex> lock(*mu);
  const Clock::time_point now = Clock::now();
  while (!kept->empty() && now - kept->front().first > kKeepRemovedEntriesFor) {
    expired.push_back(std::move(kept->front().second));
    kept->pop_front();
  }
  kept->emplace_back(now, std::move(entry));
}

}  // namespace

Status Catalog::RenameCollection(std::string_view from_ns, std::string_view to_db,
                                 std::string_view to_name, bool drop_target) {
  std::lock_guard<std::mutex> ddl(ddl_mutex_);
  std::shared_ptr<CollectionEntry> from = Lookup(from_ns);
  if (from == nullptr) return Status(ErrorCode::kNamespaceNotFound, "source namespace does not exist");
  RETURN_IF_ERROR(ValidateNamespace(to_db, to_name));
  const std::string to_ns = std::string(to_db) + "." + std::string(to_name);
  std::shared_ptr<CollectionEntry> replaced = Lookup(to_ns);
  if (replaced != nullptr && !drop_target) {
    return Status(ErrorCode::kNamespaceExists, "target namespace exists");
  }
  // No write may run on either collection while they change names.
  std::unique_lock<std::shared_mutex> from_writes(from->write_mutex());
  std::unique_lock<std::shared_mutex> target_writes;
  if (replaced != nullptr) target_writes = std::unique_lock<std::shared_mutex>(replaced->write_mutex());
  auto renamed = std::make_shared<CollectionEntry>();
  CollectionMetadata& md = renamed->metadata;
  md.ns = to_ns;
  md.db = std::string(to_db);
  md.name = std::string(to_name);
  md.ident = from->metadata.ident;
  md.shard_key_field = from->metadata.shard_key_field;
  md.num_shards = from->metadata.num_shards;
  md.hash_version = from->metadata.hash_version;
  md.max_document_bytes = from->metadata.max_document_bytes;
  std::shared_ptr<const PatternState> from_patterns = from->patterns();
  md.options = WithoutTemp(from->metadata.options.get());
  md.default_collator = from->metadata.default_collator;
  md.collated_id_table = from->metadata.collated_id_table;
  md.patterns = from_patterns->configs.Copy();
  // The attachment moves too: its state (counters, tables) is the ident's.
  renamed->patterns_ = std::make_shared<PatternState>(
      PatternState{md.patterns.Copy(), from_patterns->attachment});
  renamed->store = from->store;
  // Index tables are named by the ident, so they move with it.
  std::shared_ptr<const index::IndexSet> indexes = from->indexes();
  renamed->indexes_ = indexes;
  {
    std::lock_guard<std::mutex> lock(from->index_mutex_);
    renamed->persisted_multikey_ = from->persisted_multikey_;
    renamed->persisted_wildcard_multikey_ = from->persisted_wildcard_multikey_;
  }

  // One transaction: the catalog on disk holds the old state or the new.
  Session session = engine_->NewUnboundSession();
  RETURN_IF_ERROR(session.Begin());
  Status written = session.Remove(kCatalogTable, from->metadata.ns);
  if (written.ok()) written = session.Put(kCatalogTable, to_ns, AsView(RowFor(*renamed, *indexes)));
  if (written.ok() && replaced != nullptr) {
    written = RecordChange(*this, session, NamespaceEvent("drop", to_db, to_name));
  }
  if (written.ok()) {
    written = RecordChange(*this, session,
                           RenameEvent(from->metadata.db, from->metadata.name, to_db, to_name,
                                       replaced != nullptr));
  }
  if (!written.ok()) {
    session.Rollback();
    return written;
  }
  RETURN_IF_ERROR(session.Commit());
  {
    std::unique_lock<std::shared_mutex> lock(map_mutex_);
    collections_.erase(from->metadata.ns);
    collections_[to_ns] = renamed;
  }
  KeepAfterRemoval(from);
  if (replaced != nullptr) KeepAfterRemoval(replaced);
  if (replaced != nullptr) {
    Status dropped = DropIdentTables(session, replaced->metadata.ident);
    if (!dropped.ok()) {
      std::fprintf(stderr, "catalog: replaced %s but not all of its old tables were dropped: %s\n",
                   to_ns.c_str(), dropped.ToString().c_str());
    }
  }
  return Status::OK();
}

Status Catalog::DropLocked(const std::string& ns) {
  std::shared_ptr<CollectionEntry> entry = Lookup(ns);
  if (entry == nullptr) return DropViewLocked(ns);
  // Waits for running writes and index builds of the collection.
  std::unique_lock<std::shared_mutex> writes(entry->write_mutex());
  Session session = engine_->NewUnboundSession();
  // The entry first, then the tables: a crash in between leaves only orphans.
  // The change log's drop event commits with the entry's removal.
  RETURN_IF_ERROR(session.Begin());
  Status removed = session.Remove(kCatalogTable, ns);
  if (removed.ok()) {
    removed = RecordChange(*this, session,
                           NamespaceEvent("drop", entry->metadata.db, entry->metadata.name));
  }
  if (!removed.ok()) {
    session.Rollback();
    return removed;
  }
  RETURN_IF_ERROR(session.Commit());
  {
    std::unique_lock<std::shared_mutex> lock(map_mutex_);
    collections_.erase(ns);
  }
  KeepAfterRemoval(entry);
  Status dropped = DropIdentTables(session, entry->metadata.ident);
  if (!dropped.ok()) {
    // The collection is gone for clients; its tables are reaped at the next start.
    std::fprintf(stderr, "catalog: dropped %s but not all of its tables: %s\n", ns.c_str(),
                 dropped.ToString().c_str());
  }
  return Status::OK();
}

bool Catalog::IsRegistered(const CollectionEntry& entry) const {
  std::shared_lock<std::shared_mutex> lock(map_mutex_);
  auto it = collections_.find(entry.metadata.ns);
  return it != collections_.end() && it->second.get() == &entry;
}

Status Catalog::PublishIndexes(CollectionEntry& entry,
                               std::shared_ptr<const index::IndexSet> indexes,
                               const bson_t* change) {
  // No ddl_mutex_ here: the caller holds entry.write_mutex() exclusively,
  // and a drop takes that lock before it removes the entry, so the entry
  // cannot go away between this check and the write (and taking ddl_mutex_
  // under the write mutex would invert the drop's lock order).
  if (!IsRegistered(entry)) {
    return Status(ErrorCode::kNamespaceNotFound,
                  "Collection " + entry.metadata.ns + " was dropped");
  }
  Session session = engine_->NewUnboundSession();
  if (change == nullptr) {
    RETURN_IF_ERROR(session.Put(kCatalogTable, entry.metadata.ns, AsView(RowFor(entry, *indexes))));
  } else {
    // The row and the change log's index event commit together.
    RETURN_IF_ERROR(session.Begin());
    Status written =
        session.Put(kCatalogTable, entry.metadata.ns, AsView(RowFor(entry, *indexes)));
    if (written.ok()) written = RecordChange(*this, session, bson::BsonDoc::CopyOf(change));
    if (!written.ok()) {
      session.Rollback();
      return written;
    }
    RETURN_IF_ERROR(session.Commit());
  }
  std::lock_guard<std::mutex> lock(entry.index_mutex_);
  entry.persisted_multikey_.clear();
  entry.persisted_wildcard_multikey_.clear();
  for (const auto& spec : indexes->specs) {
    entry.persisted_multikey_[spec->id] = spec->multikey_paths;
    entry.persisted_wildcard_multikey_[spec->id] = spec->wildcard_multikey_paths;
  }
  entry.indexes_ = std::move(indexes);
  return Status::OK();
}

Status Catalog::ReplaceOptions(CollectionEntry& entry, bson::BsonDoc options) {
  // As PublishIndexes: the caller's exclusive write mutex keeps a drop out.
  if (!IsRegistered(entry)) {
    return Status(ErrorCode::kNamespaceNotFound,
                  "Collection " + entry.metadata.ns + " was dropped");
  }
  bson::BsonDoc previous = std::move(entry.metadata.options);
  entry.metadata.options = std::move(options);
  Session session = engine_->NewUnboundSession();
  Status stored =
      session.Put(kCatalogTable, entry.metadata.ns, AsView(RowFor(entry, *entry.indexes())));
  if (!stored.ok()) {
    entry.metadata.options = std::move(previous);
    return stored;
  }
  std::lock_guard<std::mutex> lock(entry.validator_slot.mutex);
  entry.validator_slot.built = false;
  entry.validator_slot.validator.reset();
  return Status::OK();
}

StatusWith<int64_t> Catalog::ReserveIndexIds(CollectionEntry& entry, int count) {
  std::shared_ptr<index::IndexSet> next = entry.indexes()->CopyShallow();
  const int64_t first = next->next_index_id;
  next->next_index_id += count;
  RETURN_IF_ERROR(PublishIndexes(entry, std::move(next)));
  return first;
}

// operationDescription of createIndexes / dropIndexes: {indexes: [<spec>...]}.
static bson::BsonDoc IndexesDescription(
    const std::vector<std::shared_ptr<const index::IndexSpec>>& specs) {
  bson::BsonDoc desc;
  bson_t array;
  bson_append_array_begin(desc.mutable_get(), "indexes", -1, &array);
  for (size_t i = 0; i < specs.size(); ++i) {
    std::string key = std::to_string(i);
    BSON_APPEND_DOCUMENT(&array, key.c_str(), specs[i]->ToListIndexesBson().get());
  }
  bson_append_array_end(desc.mutable_get(), &array);
  return desc;
}

Status Catalog::AddIndexes(CollectionEntry& entry, std::vector<index::IndexSpec> specs) {
  std::shared_ptr<index::IndexSet> next = entry.indexes()->CopyShallow();
  std::vector<std::shared_ptr<const index::IndexSpec>> added;
  for (index::IndexSpec& spec : specs) {
    next->next_index_id = std::max(next->next_index_id, spec.id + 1);
    added.push_back(std::make_shared<const index::IndexSpec>(std::move(spec)));
    next->specs.push_back(added.back());
  }
  bson::BsonDoc event = NamespaceEvent("createIndexes", entry.metadata.db, entry.metadata.name,
                                       IndexesDescription(added).get());
  return PublishIndexes(entry, std::move(next), event.get());
}

Status Catalog::ReplaceIndex(CollectionEntry& entry, index::IndexSpec spec) {
  std::shared_ptr<index::IndexSet> next = entry.indexes()->CopyShallow();
  const int64_t id = spec.id;
  for (auto& current : next->specs) {
    if (current->id == id) current = std::make_shared<const index::IndexSpec>(std::move(spec));
  }
  return PublishIndexes(entry, std::move(next));
}

Status Catalog::DropIndexes(CollectionEntry& entry, const std::vector<int64_t>& index_ids) {
  std::shared_ptr<const index::IndexSet> current = entry.indexes();
  std::shared_ptr<index::IndexSet> next = current->CopyShallow();
  next->specs.clear();
  std::vector<std::shared_ptr<const index::IndexSpec>> dropped;
  for (const auto& spec : current->specs) {
    if (std::find(index_ids.begin(), index_ids.end(), spec->id) != index_ids.end()) {
      dropped.push_back(spec);
    } else {
      next->specs.push_back(spec);
    }
  }
  // The entry first, then the tables: a crash in between leaves orphans
  // that the start-up reaper drops.
  bson::BsonDoc event = NamespaceEvent("dropIndexes", entry.metadata.db, entry.metadata.name,
                                       IndexesDescription(dropped).get());
  RETURN_IF_ERROR(PublishIndexes(entry, std::move(next), event.get()));
  Session session = engine_->NewUnboundSession();
  for (const auto& spec : dropped) {
    Status st = index::DropIndexTables(session, entry.metadata.ident, *spec, entry.metadata.num_shards);
    if (!st.ok()) {
      std::fprintf(stderr, "catalog: dropped index %s of %s but not all of its tables: %s\n",
                   spec->name.c_str(), entry.metadata.ns.c_str(), st.ToString().c_str());
    }
  }
  return Status::OK();
}

Status Catalog::MarkMultikey(Session& session, CollectionEntry& entry,
                             const std::vector<MultikeyUpdate>& updates) {
  std::shared_ptr<const index::IndexSet> snapshot;
  bool persist = false;
  {
    std::lock_guard<std::mutex> lock(entry.index_mutex_);
    std::shared_ptr<index::IndexSet> next;
    for (const MultikeyUpdate& update : updates) {
      const index::IndexSpec* spec = entry.indexes_->FindById(update.index_id);
      if (spec == nullptr) continue;
      if (index::ExtendsMultikey(*spec, update.paths, update.wildcard_paths)) {
        if (!next) next = entry.indexes_->CopyShallow();
        for (auto& shared : next->specs) {
          if (shared->id != update.index_id) continue;
          index::IndexSpec copy = shared->Clone();
          index::MarkMultikey(copy, update.paths, update.wildcard_paths);
          shared = std::make_shared<const index::IndexSpec>(std::move(copy));
        }
      }
      persist = persist ||
                index::AddsArrayPaths(entry.persisted_multikey_[update.index_id],
                                      entry.persisted_wildcard_multikey_[update.index_id],
                                      update.paths, update.wildcard_paths);
    }
    if (next) entry.indexes_ = std::move(next);
    snapshot = entry.indexes_;
  }
  if (!persist) return Status::OK();
  // The snapshot includes every path marked so far (marking is eager and
  // only grows), so writing it whole loses nothing; two transactions
  // writing the row concurrently conflict and one retries.
  RETURN_IF_ERROR(session.Put(kCatalogTable, entry.metadata.ns, AsView(RowFor(entry, *snapshot))));
  CollectionEntry* target = &entry;
  session.OnCommit([target, snapshot] {
    std::lock_guard<std::mutex> lock(target->index_mutex_);
    for (const auto& spec : snapshot->specs) {
      index::MergeArrayPaths(target->persisted_multikey_[spec->id],
                             target->persisted_wildcard_multikey_[spec->id], spec->multikey_paths,
                             spec->wildcard_multikey_paths);
    }
  });
  return Status::OK();
}

Status Catalog::SetPatterns(CollectionEntry& entry, std::shared_ptr<const PatternState> state,
                            const bson_t* options) {
  if (options == nullptr) {
    std::lock_guard<std::mutex> lock(entry.index_mutex_);
    entry.patterns_ = std::move(state);
    return Status::OK();
  }
  // As ReplaceOptions: the caller's exclusive write mutex keeps writers and
  // a drop out. The row is built from the new state: swap, put back on failure.
  if (!IsRegistered(entry)) {
    return Status(ErrorCode::kNamespaceNotFound, "Collection " + entry.metadata.ns + " was dropped");
  }
  bson::BsonDoc previous_options = std::move(entry.metadata.options);
  entry.metadata.options = bson::BsonDoc::CopyOf(options);
  std::shared_ptr<const PatternState> previous;
  {
    std::lock_guard<std::mutex> lock(entry.index_mutex_);
    previous = entry.patterns_;
    entry.patterns_ = state;
  }
  Session session = engine_->NewUnboundSession();
  Status written =
      session.Put(kCatalogTable, entry.metadata.ns, AsView(RowFor(entry, *entry.indexes())));
  if (!written.ok()) {
    entry.metadata.options = std::move(previous_options);
    std::lock_guard<std::mutex> lock(entry.index_mutex_);
    entry.patterns_ = previous;
  }
  return written;
}

Status Catalog::DropIdentTables(Session& session, const std::string& ident) {
  ASSIGN_OR_RETURN(std::vector<std::string> tables, session.ListTables());
  Status first;
  for (const std::string& table : tables) {
    if (StemOf(table) != ident) continue;
    Status st = session.DropTable(table);
    if (first.ok()) first = st;
  }
  return first;
}

}  // namespace tigerdoc::catalog
