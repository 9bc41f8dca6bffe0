// Engine::Validate on an in-memory engine: a consistent collection is valid
// with MongoDB's counts; damage made directly through the storage layer (an
// index entry deleted, an extra entry, a record under the wrong key, bytes
// that are not BSON, a stale _id table entry) makes it invalid with a
// message naming the index or document.

#include <gtest/gtest.h>

#include "engine/engine.h"
#include "engine/index/index_table.h"
#include "engine/index/key_generator.h"
#include "tests/engine/in_memory_engine.h"

namespace tigerdoc::engine {
namespace {

using bson::BsonDoc;

class ValidateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    engine_ = OpenInMemoryEngine();
    ASSERT_NE(engine_, nullptr);
  }

  // db.c with `shards` shard tables, shard key `shard_key`, indexes a_1
  // (multikey), u_1 (unique) and 100 documents.
  void Fill(const std::string& shard_key = "_id") {
    CreateParams params;
    params.db = "db";
    params.name = "c";
    params.num_shards = 4;
    params.shard_key_field = shard_key;
    ASSERT_TRUE(engine_->CreateCollection(params).ok());
    for (const char* spec : {R"({"key": {"a": 1}, "name": "a_1"})",
                             R"({"key": {"u": 1}, "name": "u_1", "unique": true})"}) {
      CreateIndexesParams ip;
      ip.db = "db";
      ip.coll = "c";
      ip.specs.push_back(BsonDoc::FromJson(spec));
      ASSERT_TRUE(engine_->CreateIndexes(ip).ok());
    }
    std::vector<BsonDoc> docs;
    for (int i = 0; i < 100; ++i) {
      docs.push_back(BsonDoc::FromJson("{\"_id\": " + std::to_string(i) + ", \"k\": " +
                                       std::to_string(i % 5) + ", \"a\": [" + std::to_string(i) +
                                       ", -1], \"u\": " + std::to_string(i) + "}"));
    }
    auto inserted = engine_->InsertMany("db", "c", std::move(docs), true);
    ASSERT_TRUE(inserted.ok());
    for (const Status& st : inserted.value()) ASSERT_TRUE(st.ok()) << st.ToString();
  }

  ValidateResult MustValidate() {
    auto result = engine_->Validate("db", "c");
    EXPECT_TRUE(result.ok()) << result.status().ToString();
    return result.ok() ? std::move(result).value() : ValidateResult{};
  }

  int64_t KeysOf(const ValidateResult& r, const std::string& name) {
    for (const auto& index : r.indexes) {
      if (index.name == name) return index.keys;
    }
    return -1;
  }
  bool IndexValid(const ValidateResult& r, const std::string& name) {
    for (const auto& index : r.indexes) {
      if (index.name == name) return index.valid;
    }
    return false;
  }
  static std::string Errors(const ValidateResult& r) {
    std::string out;
    for (const auto& e : r.errors) out += e + "\n";
    return out;
  }

  // The stored document with _id `id` and where it lives.
  struct Stored {
    BsonDoc doc;
    storage::ShardedRecordStore::Location at;
  };
  Stored Find(int id) {
    auto coll = engine_->catalog().Lookup("db.c");
    storage::Session session = engine_->storage().NewSession();
    bson_value_t v;
    v.value_type = BSON_TYPE_INT32;
    v.value.v_int32 = id;
    auto found = coll->store->FindById(session, &v);
    EXPECT_TRUE(found.ok() && found.value().has_value());
    Stored out{found.value()->Copy(), {}};
    out.at = coll->store->LocationOf(out.doc.get()).value();
    return out;
  }

  std::unique_ptr<Engine> engine_;
};

TEST_F(ValidateTest, ConsistentCollectionIsValidWithCounts) {
  Fill("k");
  ValidateResult r = MustValidate();
  EXPECT_TRUE(r.valid()) << Errors(r);
  EXPECT_EQ(r.ns, "db.c");
  EXPECT_EQ(r.n_records, 100);
  EXPECT_EQ(r.n_invalid_documents, 0);
  ASSERT_EQ(r.indexes.size(), 3u);
  EXPECT_EQ(r.indexes[0].name, "_id_");
  EXPECT_EQ(KeysOf(r, "_id_"), 100);
  EXPECT_EQ(KeysOf(r, "a_1"), 200);  // multikey: two entries per document
  EXPECT_EQ(KeysOf(r, "u_1"), 100);
  EXPECT_TRUE(r.warnings.empty());
}

TEST_F(ValidateTest, MissingCollectionIsNamespaceNotFound) {
  auto r = engine_->Validate("db", "nope");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kNamespaceNotFound);
  EXPECT_EQ(r.status().reason(), "Collection 'db.nope' does not exist to validate.");
}

TEST_F(ValidateTest, DeletedIndexEntryMakesTheIndexInvalid) {
  Fill();
  auto coll = engine_->catalog().Lookup("db.c");
  const index::IndexSpec& spec = *coll->indexes()->FindByName("a_1");
  Stored s = Find(7);
  auto keys = index::GenerateKeys(spec, s.doc.get());
  ASSERT_TRUE(keys.ok());
  {
    storage::Session session = engine_->storage().NewSession();
    ASSERT_TRUE(session
                    .Remove(index::EntryTable(coll->metadata.ident, spec, s.at.shard),
                            index::EncodeEntryKey(spec, keys.value().keys[0].encoded,
                                                  s.at.record_key))
                    .ok());
  }
  ValidateResult r = MustValidate();
  EXPECT_FALSE(r.valid());
  EXPECT_FALSE(IndexValid(r, "a_1"));
  EXPECT_TRUE(IndexValid(r, "u_1"));
  EXPECT_TRUE(IndexValid(r, "_id_"));
  EXPECT_EQ(KeysOf(r, "a_1"), 199);
  EXPECT_NE(Errors(r).find("index a_1 is missing an entry for document { _id: 7 }"),
            std::string::npos)
      << Errors(r);
}

TEST_F(ValidateTest, ExtraIndexEntryMakesTheIndexInvalid) {
  Fill();
  auto coll = engine_->catalog().Lookup("db.c");
  const index::IndexSpec& spec = *coll->indexes()->FindByName("u_1");
  Stored s = Find(3);
  {
    // An entry for a value no document has, pointing at document 3.
    BsonDoc other = BsonDoc::FromJson(R"({"_id": 3, "u": 12345})");
    auto keys = index::GenerateKeys(spec, other.get());
    ASSERT_TRUE(keys.ok());
    storage::Session session = engine_->storage().NewSession();
    ASSERT_TRUE(session
                    .Put(index::EntryTable(coll->metadata.ident, spec, s.at.shard),
                         index::EncodeEntryKey(spec, keys.value().keys[0].encoded, s.at.record_key),
                         index::EncodeEntryValue(s.at.shard, s.at.record_key,
                                                 keys.value().keys[0].values))
                    .ok());
  }
  ValidateResult r = MustValidate();
  EXPECT_FALSE(r.valid());
  EXPECT_FALSE(IndexValid(r, "u_1"));
  EXPECT_EQ(KeysOf(r, "u_1"), 101);
  EXPECT_NE(Errors(r).find("index u_1 has 101 entries but its documents generate 100"),
            std::string::npos)
      << Errors(r);
}

TEST_F(ValidateTest, RecordUnderTheWrongKeyOrNotBsonIsAnInvalidDocument) {
  Fill("k");
  auto coll = engine_->catalog().Lookup("db.c");
  Stored s = Find(11);
  {
    storage::Session session = engine_->storage().NewSession();
    // Document 11's bytes stored under a key nothing places them at.
    ASSERT_TRUE(session.Put(coll->store->TableName(s.at.shard), s.at.record_key + "x",
                            std::string(s.doc.bytes()))
                    .ok());
    // Garbage in place of document 12.
    Stored t = Find(12);
    ASSERT_TRUE(session.Put(coll->store->TableName(t.at.shard), t.at.record_key, "not bson").ok());
  }
  ValidateResult r = MustValidate();
  EXPECT_FALSE(r.valid());
  EXPECT_EQ(r.n_records, 101);
  EXPECT_EQ(r.n_invalid_documents, 2);
  EXPECT_NE(Errors(r).find("is not stored where its shard key and _id place it"),
            std::string::npos)
      << Errors(r);
  EXPECT_NE(Errors(r).find("is not valid BSON"), std::string::npos) << Errors(r);
}

TEST_F(ValidateTest, StaleIdTableEntryMakesTheIdIndexInvalid) {
  Fill("k");
  auto coll = engine_->catalog().Lookup("db.c");
  {
    storage::Session session = engine_->storage().NewSession();
    // An _id table entry for a document that is not stored.
    ASSERT_TRUE(session.Put(storage::ShardedRecordStore::IdTableName(coll->metadata.ident),
                            "\x7f" "stale", "nowhere")
                    .ok());
  }
  ValidateResult r = MustValidate();
  EXPECT_FALSE(r.valid());
  EXPECT_FALSE(IndexValid(r, "_id_"));
  EXPECT_EQ(KeysOf(r, "_id_"), 101);
}

}  // namespace
}  // namespace tigerdoc::engine
