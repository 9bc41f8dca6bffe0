// Index maintenance through the Engine facade on an in-memory engine: after
// every kind of write, each index's tables hold exactly the entries its
// documents generate (no stale entry, none missing), builds index existing
// documents, failed builds leave nothing, and TTL deletes through the index.

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "engine/bson/shell_string.h"
#include "engine/engine.h"
#include "engine/index/index_table.h"
#include "engine/index/key_generator.h"
#include "tests/engine/in_memory_engine.h"

namespace tigerdoc::engine {
namespace {

using bson::BsonDoc;

class IndexMaintenanceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    engine_ = OpenInMemoryEngine();
    ASSERT_NE(engine_, nullptr);
  }

  void Create(int shards, const std::string& shard_key = "_id") {
    CreateParams params;
    params.db = "db";
    params.name = "c";
    params.num_shards = shards;
    params.shard_key_field = shard_key;
    ASSERT_TRUE(engine_->CreateCollection(params).ok());
  }

  StatusWith<CreateIndexesResult> CreateIndex(const char* spec_json) {
    CreateIndexesParams params;
    params.db = "db";
    params.coll = "c";
    params.specs.push_back(BsonDoc::FromJson(spec_json));
    return engine_->CreateIndexes(params);
  }

  std::vector<Status> Insert(std::initializer_list<const char*> jsons, bool ordered = true) {
    std::vector<BsonDoc> docs;
    for (const char* json : jsons) docs.push_back(BsonDoc::FromJson(json));
    auto result = engine_->InsertMany("db", "c", std::move(docs), ordered);
    EXPECT_TRUE(result.ok());
    return result.ok() ? std::move(result).value() : std::vector<Status>{};
  }

  StatusWith<UpdateResult> Update(const char* query, const char* update, bool multi = false,
                                  bool upsert = false) {
    UpdateStatement st;
    st.query = BsonDoc::FromJson(query);
    st.update = BsonDoc::FromJson(update);
    st.multi = multi;
    st.upsert = upsert;
    return engine_->Update("db", "c", st);
  }

  int64_t Delete(const char* query) {
    DeleteStatement st;
    st.query = BsonDoc::FromJson(query);
    auto r = engine_->Delete("db", "c", st);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? r.value().deleted : -1;
  }

  // Every index table holds exactly the entries the stored documents
  // generate; returns the number of entries checked.
  size_t ExpectConsistent() {
    auto coll = engine_->catalog().Lookup("db.c");
    EXPECT_NE(coll, nullptr);
    storage::Session session = engine_->storage().NewSession();
    size_t checked = 0;
    for (const auto& spec : coll->indexes()->specs) {
      std::map<std::string, std::string> expected;  // table + key -> value
      for (int shard = 0; shard < coll->store->num_shards(); ++shard) {
        auto cursor = session.Scan(coll->store->TableName(shard), "", "");
        EXPECT_TRUE(cursor.ok());
        Status status;
        while (cursor.value().Next(&status)) {
          BsonDoc doc = BsonDoc::CopyOf(reinterpret_cast<const uint8_t*>(cursor.value().value().data()),
                                        cursor.value().value().size());
          auto keys = index::GenerateKeys(*spec, doc.get());
          EXPECT_TRUE(keys.ok());
          for (const auto& key : keys.value().keys) {
            std::string table = index::EntryTable(coll->metadata.ident, *spec, shard);
            expected[table + "|" +
                     index::EncodeEntryKey(*spec, key.encoded, std::string(cursor.value().key()))] =
                index::EncodeEntryValue(shard, cursor.value().key(), key.values);
          }
        }
      }
      std::map<std::string, std::string> actual;
      for (const auto& ref : index::IndexTablesFor(coll->metadata.ident, *spec, coll->store->num_shards())) {
        auto cursor = session.Scan(ref.table, "", "");
        EXPECT_TRUE(cursor.ok()) << ref.table;
        Status status;
        while (cursor.value().Next(&status)) {
          actual[ref.table + "|" + std::string(cursor.value().key())] = std::string(cursor.value().value());
          auto entry = index::DecodeIndexEntry(cursor.value().key(), cursor.value().value());
          EXPECT_TRUE(entry.ok());
        }
      }
      EXPECT_EQ(actual.size(), expected.size()) << spec->name;
      EXPECT_TRUE(actual == expected) << spec->name;
      checked += actual.size();
    }
    return checked;
  }

  std::unique_ptr<Engine> engine_;
};

TEST_F(IndexMaintenanceTest, InsertUpdateDeleteKeepEveryIndexExact) {
  Create(4, "k");
  ASSERT_TRUE(CreateIndex(R"({"key": {"a": 1}, "name": "a_1"})").ok());
  ASSERT_TRUE(CreateIndex(R"({"key": {"b": 1, "c": -1}, "name": "bc", "unique": true})").ok());
  ASSERT_TRUE(CreateIndex(R"({"key": {"h": "hashed"}, "name": "h"})").ok());
  ASSERT_TRUE(CreateIndex(R"({"key": {"s": 1}, "name": "s", "sparse": true})").ok());
  ASSERT_TRUE(CreateIndex(
      R"({"key": {"p": 1}, "name": "p", "unique": true, "partialFilterExpression": {"q": {"$gt": 0}}})").ok());
  for (const Status& st : Insert({R"({"_id": 1, "k": 1, "a": [1, 2, 2], "b": 1, "c": 1, "h": 5})",
                                  R"({"_id": 2, "k": 2, "a": 3, "b": 1, "c": 2, "s": 1, "p": 1, "q": 1})",
                                  R"({"_id": 3, "k": 1, "a": [], "b": 2, "p": 1})"})) {
    EXPECT_TRUE(st.ok()) << st.ToString();
  }
  EXPECT_GT(ExpectConsistent(), 0u);
  EXPECT_TRUE(engine_->catalog().Lookup("db.c")->indexes()->FindByName("a_1")->multikey);
  // A changed key, an unchanged one, a value of equal encoding (1 -> 1.0).
  ASSERT_TRUE(Update(R"({"_id": 1})", R"({"$set": {"a": 7, "c": 1.0}})").ok());
  ExpectConsistent();
  // The shard key changes: the document moves, its entries follow.
  ASSERT_TRUE(Update(R"({"_id": 2})", R"({"$set": {"k": 99, "s": 2}})").ok());
  ExpectConsistent();
  // Multi update and upsert.
  ASSERT_TRUE(Update(R"({})", R"({"$inc": {"c": 10}})", true).ok());
  ASSERT_TRUE(Update(R"({"_id": 4})", R"({"$set": {"k": 4, "a": [8, 9], "b": 4}})", false, true).ok());
  ExpectConsistent();
  EXPECT_EQ(Delete(R"({"_id": {"$in": [1, 3]}})"), 2);
  ExpectConsistent();
  FindAndModifyParams fam;
  fam.db = "db";
  fam.coll = "c";
  fam.query = BsonDoc::FromJson(R"({"_id": 4})");
  fam.remove = true;
  ASSERT_TRUE(engine_->FindAndModify(fam).ok());
  ExpectConsistent();
}

TEST_F(IndexMaintenanceTest, UniqueViolationsRollBackTheWholeWrite) {
  Create(8, "k");
  ASSERT_TRUE(CreateIndex(R"({"key": {"u": 1}, "name": "u_1", "unique": true})").ok());
  std::vector<Status> results = Insert({R"({"_id": 1, "k": 1, "u": 1})", R"({"_id": 2, "k": 2, "u": 1})",
                                        R"({"_id": 3, "k": 3, "u": 3})"},
                                       /*ordered=*/false);
  ASSERT_EQ(results.size(), 3u);
  EXPECT_TRUE(results[0].ok());
  EXPECT_EQ(results[1].code(), ErrorCode::kDuplicateKey);
  EXPECT_EQ(results[1].reason(),
            "E11000 duplicate key error collection: db.c index: u_1 dup key: { u: 1 }");
  EXPECT_TRUE(results[2].ok());
  // An update into a taken key fails and changes nothing.
  auto updated = Update(R"({"_id": 3})", R"({"$set": {"u": 1, "other": true}})");
  EXPECT_EQ(updated.status().code(), ErrorCode::kDuplicateKey);
  ExpectConsistent();
  // Missing values are null for a non-sparse unique index: only one allowed.
  EXPECT_TRUE(Insert({R"({"_id": 10, "k": 10})"})[0].ok());
  Status second_null = Insert({R"({"_id": 11, "k": 11})"})[0];
  EXPECT_EQ(second_null.code(), ErrorCode::kDuplicateKey);
  EXPECT_NE(second_null.reason().find("dup key: { u: null }"), std::string::npos);
  ExpectConsistent();
}

TEST_F(IndexMaintenanceTest, BuildsIndexExistingDocumentsAndFailedBuildsLeaveNothing) {
  Create(4);
  for (int i = 0; i < 2500; ++i) {
    std::string doc = "{\"_id\": " + std::to_string(i) + ", \"a\": " + std::to_string(i % 7) +
                      ", \"t\": [" + std::to_string(i) + ", " + std::to_string(i + 1) + "]}";
    std::vector<BsonDoc> docs;
    docs.push_back(BsonDoc::FromJson(doc));
    ASSERT_TRUE(engine_->InsertMany("db", "c", std::move(docs), true).ok());
  }
  auto built = CreateIndex(R"({"key": {"a": 1, "t": 1}, "name": "at"})");
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  EXPECT_EQ(built.value().num_indexes_before, 1);
  EXPECT_EQ(built.value().num_indexes_after, 2);
  EXPECT_EQ(ExpectConsistent(), 5000u);
  EXPECT_TRUE(engine_->catalog().Lookup("db.c")->indexes()->FindByName("at")->multikey);
  auto dup = CreateIndex(R"({"key": {"a": 1}, "name": "a_unique", "unique": true})");
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(dup.status().code(), ErrorCode::kDuplicateKey);
  EXPECT_NE(dup.status().reason().find("index: a_unique dup key"), std::string::npos);
  auto coll = engine_->catalog().Lookup("db.c");
  EXPECT_EQ(coll->indexes()->specs.size(), 1u);
  storage::Session session = engine_->storage().NewSession();
  auto tables = session.ListTables();
  ASSERT_TRUE(tables.ok());
  for (const std::string& t : tables.value()) {
    auto id = index::IndexIdOfTable(t);
    if (id) EXPECT_EQ(*id, coll->indexes()->specs[0]->id) << t;
  }
}

TEST_F(IndexMaintenanceTest, ParallelArraysAreRefusedOnWriteAndBuild) {
  Create(2);
  ASSERT_TRUE(CreateIndex(R"({"key": {"x": 1, "y": 1}, "name": "xy"})").ok());
  Status st = Insert({R"({"_id": 1, "x": [1], "y": [2]})"})[0];
  EXPECT_EQ(st.code(), ErrorCode::kCannotIndexParallelArrays);
  EXPECT_EQ(st.reason(), "cannot index parallel arrays [y] [x]");
  EXPECT_TRUE(Insert({R"({"_id": 2, "x": [1], "z": [2]})"})[0].ok());
  auto build = CreateIndex(R"({"key": {"x": 1, "z": 1}, "name": "xz"})");
  EXPECT_EQ(build.status().code(), ErrorCode::kCannotIndexParallelArrays);
  ExpectConsistent();
}

TEST_F(IndexMaintenanceTest, TtlDeletesExpiredDatesOnly) {
  Create(4);
  ASSERT_TRUE(CreateIndex(R"({"key": {"t": 1}, "name": "t", "expireAfterSeconds": 3600})").ok());
  const int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch()).count();
  const std::string old_date = "{\"$date\": {\"$numberLong\": \"" + std::to_string(now - 7200 * 1000) + "\"}}";
  const std::string new_date = "{\"$date\": {\"$numberLong\": \"" + std::to_string(now) + "\"}}";
  std::vector<BsonDoc> docs;
  docs.push_back(BsonDoc::FromJson("{\"_id\": 1, \"t\": " + old_date + "}"));
  docs.push_back(BsonDoc::FromJson("{\"_id\": 2, \"t\": " + new_date + "}"));
  docs.push_back(BsonDoc::FromJson("{\"_id\": 3, \"t\": [" + new_date + ", " + old_date + "]}"));
  docs.push_back(BsonDoc::FromJson(R"({"_id": 4, "t": "not a date"})"));
  docs.push_back(BsonDoc::FromJson(R"({"_id": 5})"));
  ASSERT_TRUE(engine_->InsertMany("db", "c", std::move(docs), true).ok());
  auto deleted = engine_->DeleteExpiredDocuments();
  ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();
  EXPECT_EQ(deleted.value(), 2);  // _id 1, and 3 through its earliest date
  CountParams count;
  count.db = "db";
  count.coll = "c";
  EXPECT_EQ(engine_->Count(count).value(), 3);
  ExpectConsistent();
}

}  // namespace
}  // namespace tigerdoc::engine
