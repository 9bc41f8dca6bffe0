// Engine::Validate on an in-memory engine: a consistent collection is valid
// with MongoDB's counts; damage made directly through the storage layer (an
// index entry deleted, an extra entry, a record under the wrong key, bytes
// that are not BSON, a stale _id table entry, a lost collated _id entry)
// makes it invalid with a message naming the index or document, and lists
// it as MongoDB does (missingIndexEntries, corruptRecords); documents the
// collection's validator refuses are counted as a warning.

#include <gtest/gtest.h>

#include "engine/bson/compare.h"
#include "engine/engine.h"
#include "engine/index/index_table.h"
#include "engine/index/key_generator.h"
#include "engine/keystring/key_string.h"
#include "engine/storage/shard_router.h"
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
  ASSERT_EQ(r.missing_index_entries.size(), 1u);
  const int64_t record_id = static_cast<int64_t>(storage::ShardHashV1(s.at.record_key) & INT64_MAX);
  BsonDoc expected = BsonDoc::FromJson(R"({"indexName": "a_1", "recordId": )" + std::to_string(record_id) +
                                       R"(, "idKey": 7})");
  // indexKey: the removed entry's key, {a: <value>}.
  BSON_APPEND_DOCUMENT(expected.mutable_get(), "indexKey", keys.value().keys[0].values.get());
  EXPECT_EQ(bson::CompareDocuments(r.missing_index_entries[0].get(), expected.get()), 0);
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
  std::string garbage_key;
  {
    storage::Session session = engine_->storage().NewSession();
    // Document 11's bytes stored under a key nothing places them at.
    ASSERT_TRUE(session.Put(coll->store->TableName(s.at.shard), s.at.record_key + "x",
                            std::string(s.doc.bytes()))
                    .ok());
    // Garbage in place of document 12.
    Stored t = Find(12);
    garbage_key = t.at.record_key;
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
  // corruptRecords names the record that is not BSON by its record id.
  EXPECT_EQ(r.corrupt_records,
            std::vector<int64_t>{static_cast<int64_t>(storage::ShardHashV1(garbage_key) & INT64_MAX)});
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

TEST_F(ValidateTest, DocumentsTheValidatorRefusesAreAWarningNotAnError) {
  for (const char* level : {"strict", "off"}) {
    CreateParams params;
    params.db = "db";
    params.name = std::string("v_") + level;
    // "warn" lets the refused documents in, as bypassDocumentValidation or
    // a later collMod would.
    params.options = BsonDoc::FromJson(std::string(R"({"validator": {"n": {"$lt": 10}}, "validationLevel": ")") +
                                       level + R"(", "validationAction": "warn"})");
    ASSERT_TRUE(engine_->CreateCollection(params).ok());
    std::vector<BsonDoc> docs;
    for (int i = 0; i < 15; ++i) docs.push_back(BsonDoc::FromJson("{\"_id\": " + std::to_string(i) + ", \"n\": " + std::to_string(i) + "}"));
    auto inserted = engine_->InsertMany("db", params.name, std::move(docs), true);
    ASSERT_TRUE(inserted.ok());
    auto result = engine_->Validate("db", params.name);
    ASSERT_TRUE(result.ok()) << result.status().ToString();
    EXPECT_TRUE(result.value().valid()) << Errors(result.value());
    if (std::string(level) == "off") {
      EXPECT_EQ(result.value().n_non_compliant_documents, 0);
      EXPECT_TRUE(result.value().warnings.empty());
    } else {
      EXPECT_EQ(result.value().n_non_compliant_documents, 5);  // n = 10 .. 14
      ASSERT_EQ(result.value().warnings.size(), 1u);
      EXPECT_EQ(result.value().warnings[0],
                "Detected one or more documents not compliant with the collection's schema. Check logs "
                "for log id 5363500.");
    }
  }
}

TEST_F(ValidateTest, LostCollatedIdEntryMakesTheIdIndexInvalid) {
  CreateParams params;
  params.db = "db";
  params.name = "c";
  params.options = BsonDoc::FromJson(R"({"collation": {"locale": "en", "strength": 2}})");
  ASSERT_TRUE(engine_->CreateCollection(params).ok());
  std::vector<BsonDoc> docs;
  for (const char* id : {"a", "b", "c"}) docs.push_back(BsonDoc::FromJson(std::string(R"({"_id": ")") + id + "\"}"));
  ASSERT_TRUE(engine_->InsertMany("db", "c", std::move(docs), true).ok());
  EXPECT_TRUE(MustValidate().valid());
  auto coll = engine_->catalog().Lookup("db.c");
  ASSERT_TRUE(coll->metadata.collated_id_table);
  {
    storage::Session session = engine_->storage().NewSession();
    BsonDoc id = BsonDoc::FromJson(R"({"_id": "B"})");
    bson_iter_t it;
    ASSERT_TRUE(bson_iter_init_find(&it, id.get(), "_id"));
    // The collated key of "B" is that of "b" under strength 2.
    ASSERT_TRUE(session
                    .Remove(storage::ShardedRecordStore::CollatedIdTableName(coll->metadata.ident),
                            keystring::Encode(&it, coll->metadata.default_collator))
                    .ok());
  }
  ValidateResult r = MustValidate();
  EXPECT_FALSE(r.valid());
  EXPECT_FALSE(IndexValid(r, "_id_"));
  EXPECT_NE(Errors(r).find("index _id_ has no collated entry for document { _id: \"b\" }"), std::string::npos)
      << Errors(r);
  EXPECT_NE(Errors(r).find("index _id_ has 2 collated entries for 3 records"), std::string::npos) << Errors(r);
}

}  // namespace
}  // namespace tigerdoc::engine
