// Catalog against WiredTiger: in memory, and in a temporary data directory
// for persistence and reaping.

#include "engine/catalog/catalog.h"

#include "engine/index/index_table.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <set>
#include <thread>

#include "tests/engine/catalog/open_catalog.h"
#include "tests/engine/storage/in_memory_storage.h"
#include "tests/engine/temp_dir.h"

namespace tigerdoc::catalog {
namespace {

using bson::BsonDoc;
using storage::Session;
using storage::StorageEngine;
using testing_dirs::TempDir;

CreateCollectionRequest Request(std::string db, std::string name, std::string key = "_id",
                                int shards = 4) {
  CreateCollectionRequest r;
  r.db = std::move(db);
  r.name = std::move(name);
  r.shard_key_field = std::move(key);
  r.num_shards = shards;
  return r;
}

std::set<std::string> Tables(StorageEngine* engine) {
  Session session = engine->NewSession();
  auto tables = session.ListTables();
  EXPECT_TRUE(tables.ok());
  return {tables.value().begin(), tables.value().end()};
}

Status InsertDoc(StorageEngine* engine, CollectionEntry& entry, const char* json) {
  Session session = engine->NewSession();
  RETURN_IF_ERROR(session.Begin());
  BsonDoc doc = BsonDoc::FromJson(json);
  Status st = entry.store->Insert(session, doc.get());
  if (!st.ok()) return st;
  return session.Commit();
}

class CatalogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    engine_ = storage::OpenInMemoryStorage();
    ASSERT_NE(engine_, nullptr);
    catalog_ = OpenCatalog(engine_.get());
  }
  std::unique_ptr<StorageEngine> engine_;
  std::unique_ptr<Catalog> catalog_;
};

TEST_F(CatalogTest, CreateLookupListDrop) {
  auto created = catalog_->CreateCollection(Request("app", "users"));
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  const CollectionMetadata& md = created.value()->metadata;
  EXPECT_EQ(md.ns, "app.users");
  EXPECT_EQ(md.db, "app");
  EXPECT_EQ(md.name, "users");
  EXPECT_EQ(md.ident, "c1");
  EXPECT_EQ(md.num_shards, 4);
  EXPECT_EQ(created.value()->store->ident(), "c1");
  EXPECT_EQ(Tables(engine_.get()),
            (std::set<std::string>{"_catalog", "c1-s0", "c1-s1", "c1-s2", "c1-s3"}));

  ASSERT_TRUE(catalog_->CreateCollection(Request("app", "orders", "customer", 2)).ok());
  ASSERT_TRUE(catalog_->CreateCollection(Request("other", "x")).ok());
  EXPECT_EQ(catalog_->Lookup("app.users"), created.value());
  EXPECT_EQ(catalog_->Lookup("app.nope"), nullptr);

  std::vector<std::string> names;
  for (const auto& e : catalog_->List("app")) names.push_back(e->metadata.ns);
  EXPECT_EQ(names, (std::vector<std::string>{"app.orders", "app.users"}));
  EXPECT_EQ(catalog_->List("").size(), 3u);
  EXPECT_EQ(catalog_->ListDatabases(), (std::vector<std::string>{"app", "other"}));
  EXPECT_TRUE(Tables(engine_.get()).count("c2-id"));  // non-_id shard key

  ASSERT_TRUE(catalog_->DropCollection("app.orders").ok());
  EXPECT_EQ(catalog_->Lookup("app.orders"), nullptr);
  for (const std::string& t : Tables(engine_.get())) EXPECT_NE(t.rfind("c2-", 0), 0u) << t;

  ASSERT_TRUE(catalog_->DropDatabase("app").ok());
  EXPECT_EQ(catalog_->ListDatabases(), std::vector<std::string>{"other"});
  EXPECT_TRUE(catalog_->DropDatabase("never").ok());
}

TEST_F(CatalogTest, DropAlsoRemovesTablesOtherLayersAddedUnderTheIdent) {
  auto entry = catalog_->CreateCollection(Request("db", "c")).value();
  {
    Session session = engine_->NewSession();
    ASSERT_TRUE(session.CreateTable(entry->metadata.ident + "-s0-ix-a_1").ok());
  }
  ASSERT_TRUE(catalog_->DropCollection("db.c").ok());
  EXPECT_EQ(Tables(engine_.get()), std::set<std::string>{"_catalog"});
}

// A transaction that wrote to a collection commits after the collection
// was dropped or renamed away: its commit callbacks (the store's size
// counters) still reach a live entry. Freed at once, this was a
// use-after-free (a crash under AddressSanitizer, and a SIGSEGV of the
// server in practice).
TEST_F(CatalogTest, WritesCommittedAfterADropOrRenameReachALiveEntry) {
  for (bool rename : {false, true}) {
    SCOPED_TRACE(rename ? "rename" : "drop");
    auto created = catalog_->CreateCollection(Request("db", "c"));
    ASSERT_TRUE(created.ok()) << created.status().ToString();
    std::weak_ptr<CollectionEntry> weak = created.value();
    Session txn = engine_->NewUnboundSession();
    ASSERT_TRUE(txn.Begin().ok());
    BsonDoc doc = BsonDoc::FromJson(R"({"_id": 1})");
    ASSERT_TRUE(created.value()->store->Insert(txn, doc.get()).ok());
    created = StatusWith<std::shared_ptr<CollectionEntry>>(std::shared_ptr<CollectionEntry>());
    if (rename) {
      ASSERT_TRUE(catalog_->RenameCollection("db.c", "db", "renamed", false).ok());
    } else {
      ASSERT_TRUE(catalog_->DropCollection("db.c").ok());
    }
    EXPECT_FALSE(weak.expired()) << "the removed entry was freed under an open transaction";
    EXPECT_TRUE(txn.Commit().ok());  // runs the store's commit callback
    if (rename) ASSERT_TRUE(catalog_->DropCollection("db.renamed").ok());
  }
}

TEST_F(CatalogTest, ExistingAndMissingNamespaces) {
  ASSERT_TRUE(catalog_->CreateCollection(Request("db", "c")).ok());
  auto again = catalog_->CreateCollection(Request("db", "c"));
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code_number(), 48);
  EXPECT_EQ(again.status().reason(), "Collection db.c already exists.");

  Status missing = catalog_->DropCollection("db.nope");
  EXPECT_EQ(missing.code_number(), 26);
  EXPECT_EQ(missing.reason(), "ns not found");
}

TEST_F(CatalogTest, RejectsBadShardSettings) {
  EXPECT_EQ(catalog_->CreateCollection(Request("db", "a", "_id", 0)).status().code(),
            ErrorCode::kBadValue);
  EXPECT_EQ(catalog_->CreateCollection(Request("db", "a", "_id", kMaxShards + 1)).status().code(),
            ErrorCode::kBadValue);
  EXPECT_EQ(catalog_->CreateCollection(Request("db", "a", "a..b")).status().code(),
            ErrorCode::kBadValue);
  EXPECT_EQ(catalog_->CreateCollection(Request("db", "a", "$x")).status().code(),
            ErrorCode::kBadValue);
  EXPECT_EQ(catalog_->CreateCollection(Request("db", "a", "")).status().code(),
            ErrorCode::kBadValue);
  EXPECT_TRUE(catalog_->List("").empty());
  EXPECT_TRUE(catalog_->CreateCollection(Request("db", "a", "a.b", 1)).ok());
}

TEST_F(CatalogTest, MetadataDocumentFormat) {
  CreateCollectionRequest request = Request("db", "events", "device.id", 8);
  request.options = BsonDoc::FromJson(R"({"capped": false})");
  auto entry = catalog_->CreateCollection(request).value();
  BsonDoc doc = entry->metadata.ToBson();
  EXPECT_EQ(doc.ToJson(),
            R"({ "ns" : "db.events", "ident" : "c1", "shardKey" : { "device.id" : 1 }, )"
            R"("shards" : 8, "hashVersion" : 1, "options" : { "capped" : false }, )"
            R"("maxDocumentBytes" : 16777216 })");
  auto parsed = CollectionMetadata::FromBson(doc.get());
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed.value().ns, "db.events");
  EXPECT_EQ(parsed.value().db, "db");
  EXPECT_EQ(parsed.value().name, "events");
  EXPECT_EQ(parsed.value().shard_key_field, "device.id");
  EXPECT_EQ(parsed.value().num_shards, 8);
  EXPECT_EQ(parsed.value().options.ToJson(), R"({ "capped" : false })");

  // The stored row is that document plus the (empty) index list.
  Session session = engine_->NewSession();
  auto stored = session.Get(kCatalogTable, "db.events");
  ASSERT_TRUE(stored.ok() && stored.value().has_value());
  BsonDoc row = BsonDoc::CopyOf(reinterpret_cast<const uint8_t*>(stored.value()->data()),
                                stored.value()->size());
  EXPECT_EQ(row.ToJson(),
            R"({ "ns" : "db.events", "ident" : "c1", "shardKey" : { "device.id" : 1 }, )"
            R"("shards" : 8, "hashVersion" : 1, "options" : { "capped" : false }, )"
            R"("maxDocumentBytes" : 16777216, "indexes" : [  ], "nextIndexId" : 1 })");

  // A collection name may itself contain dots.
  BsonDoc dotted = BsonDoc::FromJson(
      R"({"ns": "db.a.b", "ident": "c5", "shardKey": {"_id": 1}, "shards": 2, "hashVersion": 1})");
  auto md = CollectionMetadata::FromBson(dotted.get());
  ASSERT_TRUE(md.ok());
  EXPECT_EQ(md.value().db, "db");
  EXPECT_EQ(md.value().name, "a.b");

  BsonDoc future = BsonDoc::FromJson(
      R"({"ns": "db.a", "ident": "c5", "shardKey": {"_id": 1}, "shards": 2, "hashVersion": 2})");
  EXPECT_EQ(CollectionMetadata::FromBson(future.get()).status().code(),
            ErrorCode::kNotImplemented);
  BsonDoc broken = BsonDoc::FromJson(R"({"ns": "db.a", "ident": "c5"})");
  EXPECT_EQ(CollectionMetadata::FromBson(broken.get()).status().code(),
            ErrorCode::kFailedToParse);
}

TEST_F(CatalogTest, GetOrCreateIsRaceFree) {
  constexpr int kThreads = 8;
  std::vector<std::shared_ptr<CollectionEntry>> got(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      auto entry = catalog_->GetOrCreate("db", "implicit", 3);
      ASSERT_TRUE(entry.ok()) << entry.status().ToString();
      got[i] = entry.value();
    });
  }
  for (auto& t : threads) t.join();
  for (const auto& e : got) EXPECT_EQ(e, got[0]);
  EXPECT_EQ(got[0]->metadata.num_shards, 3);
  EXPECT_EQ(catalog_->List("db").size(), 1u);
  EXPECT_EQ(Tables(engine_.get()),
            (std::set<std::string>{"_catalog", "c1-s0", "c1-s1", "c1-s2"}));
  // And an existing one is returned as is.
  EXPECT_EQ(catalog_->GetOrCreate("db", "implicit", 9).value(), got[0]);
  EXPECT_EQ(catalog_->GetOrCreate("bad db", "x", 1).status().code_number(), 73);
}

TEST(CatalogPersistenceTest, EntriesStatsAndIdentsSurviveReopen) {
  TempDir dir("tigerdoc-cat");
  {
    auto engine = storage::OpenStorageAt(dir.path());
    auto catalog = OpenCatalog(engine.get());
    auto users = catalog->CreateCollection(Request("app", "users", "team", 2)).value();
    ASSERT_TRUE(InsertDoc(engine.get(), *users, R"({"_id": 1, "team": "a"})").ok());
    ASSERT_TRUE(InsertDoc(engine.get(), *users, R"({"_id": 2, "team": "b"})").ok());
    ASSERT_TRUE(catalog->CreateCollection(Request("app", "gone")).ok());  // c2
    ASSERT_TRUE(catalog->DropCollection("app.gone").ok());
  }
  auto engine = storage::OpenStorageAt(dir.path());
  auto catalog = OpenCatalog(engine.get());
  auto users = catalog->Lookup("app.users");
  ASSERT_NE(users, nullptr);
  EXPECT_EQ(users->metadata.ident, "c1");
  EXPECT_EQ(users->metadata.shard_key_field, "team");
  EXPECT_EQ(users->metadata.num_shards, 2);
  EXPECT_EQ(users->store->TotalStats().count, 2);
  EXPECT_EQ(catalog->Lookup("app.gone"), nullptr);
  // _id uniqueness still holds through the reloaded store.
  EXPECT_EQ(InsertDoc(engine.get(), *users, R"({"_id": 1, "team": "z"})").code_number(), 11000);
  // Idents are never reused, even the dropped highest one.
  EXPECT_EQ(catalog->CreateCollection(Request("app", "new")).value()->metadata.ident, "c3");
}

TEST(CatalogPersistenceTest, PatternConfigsAndOptionsSurviveReopen) {
  TempDir dir("tigerdoc-cat");
  {
    auto engine = storage::OpenStorageAt(dir.path());
    auto catalog = OpenCatalog(engine.get());
    CreateCollectionRequest request = Request("app", "p");
    request.options = bson::BsonDoc::FromJson(R"({"maxShardBytes": 4096})");
    request.patterns = bson::BsonDoc::FromJson(R"({"sizeLimits": {"maxShardBytes": 4096}})");
    auto entry = catalog->CreateCollection(request).value();
    EXPECT_EQ(entry->patterns()->configs.ToJson(), R"({ "sizeLimits" : { "maxShardBytes" : 4096 } })");
    // collMod: new options and configs, persisted.
    std::unique_lock<std::shared_mutex> writes(entry->write_mutex());
    ASSERT_TRUE(catalog->SetPatterns(*entry,
                                     std::make_shared<PatternState>(PatternState{
                                         bson::BsonDoc::FromJson(R"({"sizeLimits": {"maxShardBytes": 8192}})"),
                                         nullptr}),
                                     bson::BsonDoc::FromJson(R"({"maxShardBytes": 8192})").get())
                    .ok());
  }
  auto engine = storage::OpenStorageAt(dir.path());
  auto catalog = OpenCatalog(engine.get());
  auto entry = catalog->Lookup("app.p");
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(entry->metadata.options.ToJson(), R"({ "maxShardBytes" : 8192 })");
  EXPECT_EQ(entry->patterns()->configs.ToJson(), R"({ "sizeLimits" : { "maxShardBytes" : 8192 } })");
  EXPECT_EQ(entry->patterns()->attachment, nullptr);  // the engine attaches hooks
}

TEST(CatalogPersistenceTest, OpenReapsOrphanedTables) {
  TempDir dir("tigerdoc-cat");
  {
    auto engine = storage::OpenStorageAt(dir.path());
    auto catalog = OpenCatalog(engine.get());
    ASSERT_TRUE(catalog->CreateCollection(Request("db", "kept")).ok());  // c1
    // What a crash between "create tables" and "write entry" leaves behind,
    // and a drop whose tables could not be removed.
    Session session = engine->NewSession();
    ASSERT_TRUE(session.CreateTable("c7-s0").ok());
    ASSERT_TRUE(session.CreateTable("c7-id").ok());
    ASSERT_TRUE(session.CreateTable("c1x-s0").ok());     // not an ident: left alone
    ASSERT_TRUE(session.CreateTable("scratch").ok());    // not an ident: left alone
  }
  auto engine = storage::OpenStorageAt(dir.path());
  auto catalog = OpenCatalog(engine.get());
  std::set<std::string> tables = Tables(engine.get());
  EXPECT_FALSE(tables.count("c7-s0"));
  EXPECT_FALSE(tables.count("c7-id"));
  EXPECT_TRUE(tables.count("c1-s0"));
  EXPECT_TRUE(tables.count("c1x-s0"));
  EXPECT_TRUE(tables.count("scratch"));
  ASSERT_NE(catalog->Lookup("db.kept"), nullptr);
  // An ident seen on disk is not handed out again.
  EXPECT_EQ(catalog->CreateCollection(Request("db", "next")).value()->metadata.ident, "c8");
}

TEST(CatalogPersistenceTest, CorruptEntryFailsOpen) {
  auto engine = storage::OpenInMemoryStorage();
  {
    Session session = engine->NewSession();
    ASSERT_TRUE(session.CreateTable(kCatalogTable).ok());
    BsonDoc bad = BsonDoc::FromJson(R"({"ns": "db.x"})");
    ASSERT_TRUE(session.Put(kCatalogTable, "db.x", bad.bytes()).ok());
  }
  auto catalog = Catalog::Open(engine.get());
  EXPECT_FALSE(catalog.ok());
}

}  // namespace
}  // namespace tigerdoc::catalog

namespace tigerdoc::catalog {
namespace {

index::IndexSpec ParsedSpec(const char* json, int64_t id) {
  auto spec = index::ParseIndexSpec(BsonDoc::FromJson(json).get());
  EXPECT_TRUE(spec.ok()) << spec.status().ToString();
  index::IndexSpec out = std::move(spec).value();
  out.id = id;
  return out;
}

TEST(CatalogIndexTest, IndexesPersistAndOrphanIndexTablesAreReaped) {
  TempDir dir("tigerdoc-cat");
  {
    auto engine = storage::OpenStorageAt(dir.path());
    auto catalog = OpenCatalog(engine.get());
    auto entry = catalog->CreateCollection(Request("db", "c", "_id", 2)).value();  // c1
    std::unique_lock<std::shared_mutex> lock(entry->write_mutex());
    auto first = catalog->ReserveIndexIds(*entry, 3);
    ASSERT_TRUE(first.ok());
    EXPECT_EQ(first.value(), 1);
    Session session = engine->NewSession();
    index::IndexSpec kept = ParsedSpec(R"({"key": {"a": 1}, "name": "a_1"})", 1);
    ASSERT_TRUE(index::CreateIndexTables(session, "c1", kept, 2).ok());
    std::vector<index::IndexSpec> specs;
    specs.push_back(kept.Clone());
    ASSERT_TRUE(catalog->AddIndexes(*entry, std::move(specs)).ok());
    // Index 2 was being built when the "crash" came: tables, no entry.
    index::IndexSpec orphan = ParsedSpec(R"({"key": {"b": 1}, "name": "b_1", "unique": true})", 2);
    ASSERT_TRUE(index::CreateIndexTables(session, "c1", orphan, 2).ok());
    EXPECT_EQ(entry->indexes()->specs.size(), 1u);
    EXPECT_EQ(entry->indexes()->next_index_id, 4);
  }
  auto engine = storage::OpenStorageAt(dir.path());
  auto catalog = OpenCatalog(engine.get());
  auto entry = catalog->Lookup("db.c");
  ASSERT_NE(entry, nullptr);
  auto indexes = entry->indexes();
  ASSERT_EQ(indexes->specs.size(), 1u);
  EXPECT_EQ(indexes->specs[0]->name, "a_1");
  EXPECT_EQ(indexes->next_index_id, 4);  // reserved ids are never reused
  std::set<std::string> tables = Tables(engine.get());
  EXPECT_TRUE(tables.count("c1-x1-s0"));
  EXPECT_TRUE(tables.count("c1-x1-s1"));
  EXPECT_FALSE(tables.count("c1-x2"));
}

TEST(CatalogIndexTest, DropIndexesRemovesEntryAndTables) {
  auto engine = storage::OpenInMemoryStorage();
  auto catalog = OpenCatalog(engine.get());
  auto entry = catalog->CreateCollection(Request("db", "c", "_id", 2)).value();
  std::unique_lock<std::shared_mutex> lock(entry->write_mutex());
  Session session = engine->NewSession();
  index::IndexSpec spec = ParsedSpec(R"({"key": {"a": 1}, "name": "a_1"})", 1);
  ASSERT_TRUE(index::CreateIndexTables(session, "c1", spec, 2).ok());
  std::vector<index::IndexSpec> specs;
  specs.push_back(std::move(spec));
  ASSERT_TRUE(catalog->AddIndexes(*entry, std::move(specs)).ok());
  ASSERT_TRUE(catalog->DropIndexes(*entry, {1}).ok());
  EXPECT_TRUE(entry->indexes()->specs.empty());
  EXPECT_FALSE(Tables(engine.get()).count("c1-x1-s0"));
  // A dropped collection refuses index DDL.
  lock.unlock();
  ASSERT_TRUE(catalog->DropCollection("db.c").ok());
  lock.lock();
  EXPECT_EQ(catalog->ReserveIndexIds(*entry, 1).status().code(), ErrorCode::kNamespaceNotFound);
}

TEST(CatalogIndexTest, MultikeyIsPublishedAtOnceAndPersistedOnlyOnCommit) {
  TempDir dir("tigerdoc-cat");
  {
    auto engine = storage::OpenStorageAt(dir.path());
    auto catalog = OpenCatalog(engine.get());
    std::shared_ptr<CollectionEntry> entries[2];
    for (int i = 0; i < 2; ++i) {
      entries[i] = catalog->CreateCollection(Request("db", i == 0 ? "rolled" : "committed")).value();
      std::unique_lock<std::shared_mutex> lock(entries[i]->write_mutex());
      std::vector<index::IndexSpec> specs;
      specs.push_back(ParsedSpec(R"({"key": {"a": 1}, "name": "a_1"})", 1));
      specs.push_back(ParsedSpec(R"({"key": {"b.c": 1}, "name": "bc"})", 2));
      ASSERT_TRUE(catalog->AddIndexes(*entries[i], std::move(specs)).ok());
    }
    Session session = engine->NewSession();
    // Rolled back: visible in memory at once (conservative), not persisted.
    {
      std::shared_lock<std::shared_mutex> lock(entries[0]->write_mutex());
      ASSERT_TRUE(session.Begin().ok());
      ASSERT_TRUE(catalog->MarkMultikey(session, *entries[0], {{1, {{0}}}}).ok());
      EXPECT_TRUE(entries[0]->indexes()->FindById(1)->multikey);
      session.Rollback();
    }
    // Committed: persisted.
    {
      std::shared_lock<std::shared_mutex> lock(entries[1]->write_mutex());
      ASSERT_TRUE(session.Begin().ok());
      ASSERT_TRUE(catalog->MarkMultikey(session, *entries[1], {{2, {{1}}}}).ok());
      ASSERT_TRUE(session.Commit().ok());
      EXPECT_EQ(entries[1]->indexes()->FindById(2)->multikey_paths[0], std::set<size_t>{1});
    }
  }
  auto engine = storage::OpenStorageAt(dir.path());
  auto catalog = OpenCatalog(engine.get());
  EXPECT_FALSE(catalog->Lookup("db.rolled")->indexes()->FindById(1)->multikey);
  auto indexes = catalog->Lookup("db.committed")->indexes();
  EXPECT_FALSE(indexes->FindById(1)->multikey);
  EXPECT_TRUE(indexes->FindById(2)->multikey);
  EXPECT_EQ(indexes->FindById(2)->multikey_paths[0], std::set<size_t>{1});
}

}  // namespace
}  // namespace tigerdoc::catalog

namespace tigerdoc::catalog {
namespace {

// $out's building blocks: a temporary collection renamed over its target.
TEST(CatalogRenameTest, RenameReplacesTargetAtomicallyAndSurvivesReopen) {
  TempDir dir("tigerdoc-cat");
  {
    auto engine = storage::OpenStorageAt(dir.path());
    auto catalog = OpenCatalog(engine.get());
    auto old_target = catalog->CreateCollection(Request("db", "target")).value();  // c1
    ASSERT_TRUE(InsertDoc(engine.get(), *old_target, R"({"_id": "old"})").ok());
    CreateCollectionRequest temp = Request("db", "tmp.agg_out.1", "k", 2);
    temp.options = BsonDoc::FromJson(R"({"validationLevel": "off", "temp": true})");
    auto fresh = catalog->CreateCollection(temp).value();  // c2
    ASSERT_TRUE(InsertDoc(engine.get(), *fresh, R"({"_id": 1, "k": "a"})").ok());
    ASSERT_TRUE(InsertDoc(engine.get(), *fresh, R"({"_id": 2, "k": "b"})").ok());

    ASSERT_TRUE(catalog->RenameCollection("db.tmp.agg_out.1", "db", "target", true).ok());
    EXPECT_EQ(catalog->Lookup("db.tmp.agg_out.1"), nullptr);
    auto now = catalog->Lookup("db.target");
    ASSERT_NE(now, nullptr);
    EXPECT_EQ(now->metadata.ident, "c2");
    EXPECT_EQ(now->metadata.ns, "db.target");
    EXPECT_EQ(now->metadata.shard_key_field, "k");
    EXPECT_EQ(now->store->TotalStats().count, 2);  // live stats carried over
    EXPECT_EQ(now->metadata.options.ToJson(), BsonDoc::FromJson(R"({"validationLevel": "off"})").ToJson());
    for (const std::string& t : Tables(engine.get())) EXPECT_NE(t.rfind("c1-", 0), 0u) << t;
    // Without drop_target an existing name is refused; a missing source too.
    ASSERT_TRUE(catalog->CreateCollection(Request("db", "other")).ok());
    EXPECT_EQ(catalog->RenameCollection("db.other", "db", "target", false).code_number(), 48);
    EXPECT_EQ(catalog->RenameCollection("db.nope", "db", "x", true).code_number(), 26);
    // Another database.
    ASSERT_TRUE(catalog->RenameCollection("db.other", "db2", "moved", true).ok());
    EXPECT_NE(catalog->Lookup("db2.moved"), nullptr);
  }
  auto engine = storage::OpenStorageAt(dir.path());
  auto catalog = OpenCatalog(engine.get());
  auto target = catalog->Lookup("db.target");
  ASSERT_NE(target, nullptr);
  EXPECT_EQ(target->metadata.ident, "c2");
  EXPECT_EQ(target->store->TotalStats().count, 2);
  EXPECT_NE(catalog->Lookup("db2.moved"), nullptr);
}

TEST(CatalogRenameTest, TemporaryCollectionsAreDroppedAtOpen) {
  TempDir dir("tigerdoc-cat");
  {
    auto engine = storage::OpenStorageAt(dir.path());
    auto catalog = OpenCatalog(engine.get());
    CreateCollectionRequest temp = Request("db", "tmp.agg_out.7");
    temp.options = BsonDoc::FromJson(R"({"temp": true})");
    ASSERT_TRUE(catalog->CreateCollection(temp).ok());  // c1: a $out cut short by a crash
    ASSERT_TRUE(catalog->CreateCollection(Request("db", "kept")).ok());
  }
  auto engine = storage::OpenStorageAt(dir.path());
  auto catalog = OpenCatalog(engine.get());
  EXPECT_EQ(catalog->Lookup("db.tmp.agg_out.7"), nullptr);
  EXPECT_NE(catalog->Lookup("db.kept"), nullptr);
  for (const std::string& t : Tables(engine.get())) EXPECT_NE(t.rfind("c1-", 0), 0u) << t;
}

}  // namespace
}  // namespace tigerdoc::catalog

namespace tigerdoc::catalog {
namespace {

// $indexStats counters live with the in-memory index: every snapshot swap
// (multikey clone, another index added or dropped) keeps counting into the
// same counter; reopening the catalog starts them at zero, as MongoDB's
// counters reset on restart.
TEST(CatalogIndexUsageTest, CountersSurviveSnapshotSwapsButNotReopen) {
  TempDir dir("tigerdoc-cat");
  {
    auto engine = storage::OpenStorageAt(dir.path());
    auto catalog = OpenCatalog(engine.get());
    std::shared_ptr<CollectionEntry> entry = catalog->CreateCollection(Request("db", "c")).value();
    {
      std::unique_lock<std::shared_mutex> lock(entry->write_mutex());
      std::vector<index::IndexSpec> specs;
      specs.push_back(ParsedSpec(R"({"key": {"a": 1}, "name": "a_1"})", 1));
      specs.push_back(ParsedSpec(R"({"key": {"b": 1}, "name": "b_1"})", 2));
      ASSERT_TRUE(catalog->AddIndexes(*entry, std::move(specs)).ok());
    }
    const index::IndexSpec* before = entry->indexes()->FindById(1);
    before->usage->Record();
    before->usage->Record();
    entry->id_index_usage->Record();
    EXPECT_EQ(entry->indexes()->FindById(2)->usage->ops(), 0);

    // Multikey: the spec is cloned into a new snapshot.
    Session session = engine->NewSession();
    {
      std::shared_lock<std::shared_mutex> lock(entry->write_mutex());
      ASSERT_TRUE(session.Begin().ok());
      ASSERT_TRUE(catalog->MarkMultikey(session, *entry, {{1, {{0}}}}).ok());
      ASSERT_TRUE(session.Commit().ok());
    }
    std::shared_ptr<const index::IndexSet> after_multikey = entry->indexes();
    EXPECT_TRUE(after_multikey->FindById(1)->multikey);
    EXPECT_EQ(after_multikey->FindById(1)->usage->ops(), 2);
    after_multikey->FindById(1)->usage->Record();

    // Another index added, one dropped: shallow copies of the set.
    {
      std::unique_lock<std::shared_mutex> lock(entry->write_mutex());
      std::vector<index::IndexSpec> specs;
      specs.push_back(ParsedSpec(R"({"key": {"d": 1}, "name": "d_1"})", 3));
      ASSERT_TRUE(catalog->AddIndexes(*entry, std::move(specs)).ok());
      ASSERT_TRUE(catalog->DropIndexes(*entry, {2}).ok());
    }
    EXPECT_EQ(entry->indexes()->FindById(1)->usage->ops(), 3);
    EXPECT_EQ(entry->indexes()->FindById(3)->usage->ops(), 0);
    EXPECT_EQ(entry->id_index_usage->ops(), 1);
  }
  auto engine = storage::OpenStorageAt(dir.path());
  auto catalog = OpenCatalog(engine.get());
  std::shared_ptr<CollectionEntry> entry = catalog->Lookup("db.c");
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(entry->indexes()->FindById(1)->usage->ops(), 0);
  EXPECT_EQ(entry->id_index_usage->ops(), 0);
}

}  // namespace
}  // namespace tigerdoc::catalog
