// ShardedRecordStore against an in-memory WiredTiger.

#include "engine/storage/sharded_record_store.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/keystring/key_string.h"
#include "engine/storage/shard_router.h"
#include "tests/engine/storage/in_memory_storage.h"

namespace tigerdoc::storage {
namespace {

using bson::BsonDoc;

// The value of field `name` in `doc` (which must outlive the result).
bson_value_t ValueOf(const BsonDoc& doc, const char* name) {
  bson_iter_t it;
  EXPECT_TRUE(bson_iter_init_find(&it, doc.get(), name)) << name << " in " << doc.ToJson();
  return *bson_iter_value(&it);
}

class ShardedRecordStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    engine_ = OpenInMemoryStorage();
    ASSERT_NE(engine_, nullptr);
  }

  std::unique_ptr<ShardedRecordStore> MakeStore(const std::string& ident, int shards,
                                                const std::string& shard_key) {
    Session session = engine_->NewSession();
    EXPECT_TRUE(
        ShardedRecordStore::CreateTables(session, ident, shards, shard_key == "_id").ok());
    return std::make_unique<ShardedRecordStore>(ident, shards, shard_key);
  }

  Status InsertCommitted(ShardedRecordStore& store, const BsonDoc& doc) {
    Session session = engine_->NewSession();
    RETURN_IF_ERROR(session.Begin());
    Status st = store.Insert(session, doc.get());
    if (!st.ok()) {
      session.Rollback();
      return st;
    }
    return session.Commit();
  }

  std::optional<BsonDoc> Find(ShardedRecordStore& store, const BsonDoc& id_holder) {
    Session session = engine_->NewSession();
    bson_value_t id = ValueOf(id_holder, "_id");
    auto found = store.FindById(session, &id);
    EXPECT_TRUE(found.ok()) << found.status().ToString();
    return std::move(found).value();
  }

  std::unique_ptr<StorageEngine> engine_;
};

TEST_F(ShardedRecordStoreTest, TableNames) {
  ShardedRecordStore store("c7", 3, "k");
  EXPECT_EQ(store.TableName(0), "c7-s0");
  EXPECT_EQ(store.TableName(2), "c7-s2");
  EXPECT_EQ(ShardedRecordStore::IdTableName("c7"), "c7-id");
  Session session = engine_->NewSession();
  ASSERT_TRUE(ShardedRecordStore::CreateTables(session, "c7", 3, false).ok());
  ASSERT_TRUE(ShardedRecordStore::CreateTables(session, "c7", 3, false).ok());  // idempotent
  EXPECT_EQ(session.ListTables().value(),
            (std::vector<std::string>{"c7-id", "c7-s0", "c7-s1", "c7-s2"}));
  ASSERT_TRUE(ShardedRecordStore::DropTables(session, "c7", 3).ok());
  EXPECT_TRUE(session.ListTables().value().empty());
}

TEST_F(ShardedRecordStoreTest, ShardKeyExtraction) {
  ShardedRecordStore top("x", 4, "k");
  ShardedRecordStore dotted("x", 4, "a.b");
  auto shard_key = [](const ShardedRecordStore& store, const char* json) {
    auto key = store.ShardKeyOf(BsonDoc::FromJson(json).get());
    return key.ok() ? key.value().ToJson() : "error " + std::to_string(key.status().code_number());
  };
  EXPECT_EQ(shard_key(top, R"({"_id": 1, "k": "v"})"), R"({ "" : "v" })");
  EXPECT_EQ(shard_key(top, R"({"_id": 1, "k": {"x": 1}})"), R"({ "" : { "x" : 1 } })");
  EXPECT_EQ(shard_key(top, R"({"_id": 1})"), R"({ "" : null })");
  EXPECT_EQ(shard_key(top, R"({"_id": 1, "K": 2})"), R"({ "" : null })");  // case-sensitive
  EXPECT_EQ(shard_key(top, R"({"_id": 1, "k": [1, 2]})"), "error 2");
  EXPECT_EQ(shard_key(dotted, R"({"a": {"b": 5}})"), R"({ "" : 5 })");
  EXPECT_EQ(shard_key(dotted, R"({"a": {"c": 5}})"), R"({ "" : null })");
  EXPECT_EQ(shard_key(dotted, R"({"a": 3})"), R"({ "" : null })");  // path ends at a scalar
  EXPECT_EQ(shard_key(dotted, R"({"a": [{"b": 5}]})"), "error 2");  // crosses an array
  EXPECT_EQ(shard_key(dotted, R"({"a": {"b": []}})"), "error 2");
  ShardedRecordStore by_index("x", 4, "a.0");
  EXPECT_EQ(shard_key(by_index, R"({"a": [7]})"), "error 2");
}

TEST_F(ShardedRecordStoreTest, ShardOfAValueIsStable) {
  // Golden: keystring(1) hashed with version 1. Changing either the key
  // encoding or the hash would move existing data, so this must never change.
  BsonDoc doc = BsonDoc::FromJson(R"({"v": 1, "n": null})");
  bson_value_t one = ValueOf(doc, "v"), null = ValueOf(doc, "n");
  EXPECT_EQ(ShardHashV1(ShardedRecordStore::PartitionPrefix(&one)), 0x175eafbb719ec4c5ULL);
  EXPECT_EQ(ShardHashV1(ShardedRecordStore::PartitionPrefix(&null)), 0x91d002741178ac03ULL);
  EXPECT_EQ(ShardedRecordStore("x", 4, "k").ShardForValue(&one), 1);
  EXPECT_EQ(ShardedRecordStore("x", 16, "k").ShardForValue(&one), 5);
  EXPECT_EQ(ShardedRecordStore("x", 16, "k").ShardForValue(&null), 3);
}

TEST_F(ShardedRecordStoreTest, EqualNumbersOfDifferentTypesShareAShard) {
  BsonDoc doc = BsonDoc::FromJson(
      R"({"i": 42, "l": {"$numberLong": "42"}, "d": 42.0, "m": {"$numberDecimal": "42.00"}})");
  for (int shards : {2, 3, 4, 7, 16, 64}) {
    ShardedRecordStore store("x", shards, "k");
    bson_value_t i = ValueOf(doc, "i"), l = ValueOf(doc, "l"), d = ValueOf(doc, "d"),
                 m = ValueOf(doc, "m");
    EXPECT_EQ(store.ShardForValue(&i), store.ShardForValue(&l));
    EXPECT_EQ(store.ShardForValue(&i), store.ShardForValue(&d));
    EXPECT_EQ(store.ShardForValue(&i), store.ShardForValue(&m));
  }
}

TEST_F(ShardedRecordStoreTest, InsertFindRemoveWithIdShardKey) {
  auto store = MakeStore("c1", 4, "_id");
  BsonDoc doc = BsonDoc::FromJson(R"({"_id": "abc", "x": 1})");
  ASSERT_TRUE(InsertCommitted(*store, doc).ok());
  auto found = Find(*store, doc);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->ToJson(), doc.ToJson());
  EXPECT_FALSE(Find(*store, BsonDoc::FromJson(R"({"_id": "abd"})")).has_value());
  // Found through an equal _id of another numeric type.
  ASSERT_TRUE(InsertCommitted(*store, BsonDoc::FromJson(R"({"_id": 5})")).ok());
  EXPECT_TRUE(Find(*store, BsonDoc::FromJson(R"({"_id": 5.0})")).has_value());

  Status dup = InsertCommitted(*store, BsonDoc::FromJson(R"({"_id": "abc", "x": 2})"));
  EXPECT_EQ(dup.code_number(), 11000);
  EXPECT_EQ(InsertCommitted(*store, BsonDoc::FromJson(R"({"_id": {"$numberLong": "5"}})"))
                .code_number(),
            11000);

  Session session = engine_->NewSession();
  ASSERT_TRUE(session.Begin().ok());
  ASSERT_TRUE(store->Remove(session, doc.get()).ok());
  ASSERT_TRUE(session.Commit().ok());
  EXPECT_FALSE(Find(*store, doc).has_value());
  EXPECT_EQ(store->Remove(session, doc.get()).code(), ErrorCode::kNoSuchKey);
}

TEST_F(ShardedRecordStoreTest, DocumentLandsInItsShardUnderItsRecordKey) {
  auto store = MakeStore("c1", 4, "k");
  BsonDoc doc = BsonDoc::FromJson(R"({"_id": 9, "k": "part"})");
  ASSERT_TRUE(InsertCommitted(*store, doc).ok());
  bson_value_t k = ValueOf(doc, "k"), id = ValueOf(doc, "_id");
  keystring::KeyBuilder expected;
  expected.Append(&k);
  expected.Append(&id);
  Session session = engine_->NewSession();
  auto stored = session.Get(store->TableName(store->ShardForValue(&k)), expected.bytes());
  ASSERT_TRUE(stored.ok());
  ASSERT_TRUE(stored.value().has_value());
  EXPECT_EQ(*stored.value(), std::string(doc.bytes()));
}

TEST_F(ShardedRecordStoreTest, IdIsUniqueAcrossShardsWithANonIdShardKey) {
  auto store = MakeStore("c2", 4, "k");
  // Two shard key values that live in different shards.
  BsonDoc first = BsonDoc::FromJson(R"({"_id": 1, "k": "k0"})");
  bson_value_t k0 = ValueOf(first, "k");
  std::string other;
  for (int i = 1; other.empty(); ++i) {
    std::string candidate = std::to_string(i);
    candidate.insert(0, 1, 'k');
    BsonDoc probe;
    bson_append_utf8(probe.mutable_get(), "k", 1, candidate.c_str(), -1);
    bson_value_t ki = ValueOf(probe, "k");
    if (store->ShardForValue(&ki) != store->ShardForValue(&k0)) other = candidate;
  }
  ASSERT_TRUE(InsertCommitted(*store, first).ok());
  std::string json = R"({"_id": 1, "k": ")";
  json += other;
  json += R"("})";
  Status dup = InsertCommitted(*store, BsonDoc::FromJson(json));
  EXPECT_EQ(dup.code(), ErrorCode::kDuplicateKey);
  // The same _id with the same shard key value is a duplicate too.
  EXPECT_EQ(InsertCommitted(*store, BsonDoc::FromJson(R"({"_id": 1.0, "k": "k0"})")).code(),
            ErrorCode::kDuplicateKey);
  EXPECT_EQ(store->TotalStats().count, 1);
  auto found = Find(*store, first);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->ToJson(), first.ToJson());
}

TEST_F(ShardedRecordStoreTest, PartitionIsOneContiguousRange) {
  auto store = MakeStore("c3", 3, "k");
  // Interleave _ids across partitions so that _id order alone would mix them.
  const std::vector<std::string> values = {"\"a\"", "1", "2.5", "null", "\"b\"", "{\"x\": 1}"};
  std::map<std::string, std::set<int>> ids_of;  // partition prefix -> _ids
  for (int id = 0; id < 60; ++id) {
    const std::string& v = values[id % values.size()];
    BsonDoc doc = BsonDoc::FromJson("{\"_id\": " + std::to_string(id) + ", \"k\": " + v + "}");
    ASSERT_TRUE(InsertCommitted(*store, doc).ok());
    bson_value_t k = ValueOf(doc, "k");
    ids_of[ShardedRecordStore::PartitionPrefix(&k)].insert(id);
  }
  // A missing shard key is the null partition.
  ASSERT_TRUE(InsertCommitted(*store, BsonDoc::FromJson(R"({"_id": 100})")).ok());
  BsonDoc null_holder = BsonDoc::FromJson(R"({"n": null})");
  bson_value_t null = ValueOf(null_holder, "n");
  ids_of[ShardedRecordStore::PartitionPrefix(&null)].insert(100);

  Session session = engine_->NewSession();
  for (const auto& [prefix, ids] : ids_of) {
    int shard = ShardForEncodedKey(prefix, store->num_shards());
    // A prefix scan of one table returns exactly the partition...
    auto cursor = session.Scan(store->TableName(shard), prefix, keystring::PrefixSuccessor(prefix));
    ASSERT_TRUE(cursor.ok());
    std::set<int> seen;
    Status status;
    while (cursor.value().Next(&status)) {
      BsonDoc doc = BsonDoc::CopyOf(reinterpret_cast<const uint8_t*>(cursor.value().value().data()),
                                    cursor.value().value().size());
      bson_value_t id = ValueOf(doc, "_id");
      seen.insert(id.value.v_int32);
    }
    ASSERT_TRUE(status.ok());
    EXPECT_EQ(seen, ids);
  }
  // ...and a full scan of each table never returns to a partition it left.
  for (int shard = 0; shard < store->num_shards(); ++shard) {
    auto cursor = session.Scan(store->TableName(shard), "", "");
    ASSERT_TRUE(cursor.ok());
    std::set<std::string> finished;
    std::string current;
    Status status;
    while (cursor.value().Next(&status)) {
      std::string key(cursor.value().key());
      std::string prefix;
      for (const auto& [p, ids] : ids_of) {
        if (key.compare(0, p.size(), p) == 0) prefix = p;
      }
      ASSERT_FALSE(prefix.empty());
      if (prefix != current) {
        EXPECT_FALSE(finished.count(prefix)) << "partition split in shard " << shard;
        if (!current.empty()) finished.insert(current);
        current = prefix;
      }
    }
  }
}

TEST_F(ShardedRecordStoreTest, UpdateInPlaceAndAcrossPartitions) {
  auto store = MakeStore("c4", 4, "k");
  BsonDoc v1 = BsonDoc::FromJson(R"({"_id": 1, "k": "p0", "x": 1})");
  ASSERT_TRUE(InsertCommitted(*store, v1).ok());

  BsonDoc v2 = BsonDoc::FromJson(R"({"_id": 1, "k": "p0", "x": "a longer value"})");
  Session session = engine_->NewSession();
  ASSERT_TRUE(session.Begin().ok());
  ASSERT_TRUE(store->Update(session, v1.get(), v2.get()).ok());
  ASSERT_TRUE(session.Commit().ok());
  EXPECT_EQ(Find(*store, v1)->ToJson(), v2.ToJson());
  EXPECT_EQ(store->TotalStats().count, 1);
  EXPECT_EQ(store->TotalStats().data_bytes, static_cast<int64_t>(v2.size()));

  // Change the shard key value until the document changes shard.
  bson_value_t p0 = ValueOf(v2, "k");
  const int old_shard = store->ShardForValue(&p0);
  BsonDoc v3;
  for (int i = 1;; ++i) {
    v3 = BsonDoc::FromJson("{\"_id\": 1, \"k\": \"p" + std::to_string(i) + "\"}");
    bson_value_t k = ValueOf(v3, "k");
    if (store->ShardForValue(&k) != old_shard) break;
  }
  bson_value_t k3 = ValueOf(v3, "k");
  const int new_shard = store->ShardForValue(&k3);
  ASSERT_TRUE(session.Begin().ok());
  ASSERT_TRUE(store->Update(session, v2.get(), v3.get()).ok());
  ASSERT_TRUE(session.Commit().ok());
  EXPECT_EQ(Find(*store, v1)->ToJson(), v3.ToJson());
  EXPECT_EQ(store->StatsOf(old_shard).count, 0);
  EXPECT_EQ(store->StatsOf(new_shard).count, 1);
  EXPECT_EQ(store->StatsOf(new_shard).data_bytes, static_cast<int64_t>(v3.size()));
  auto old_copy = session.Scan(store->TableName(old_shard), "", "");
  Status status;
  EXPECT_FALSE(old_copy.value().Next(&status));
  // The _id is still taken.
  EXPECT_EQ(InsertCommitted(*store, v1).code(), ErrorCode::kDuplicateKey);
  // And removable from its new place, freeing the _id.
  ASSERT_TRUE(store->Remove(session, v3.get()).ok());
  EXPECT_FALSE(Find(*store, v1).has_value());
  EXPECT_TRUE(InsertCommitted(*store, v1).ok());
}

// An Update reuses the placement its FindById computed (shard key _id) only
// for that same _id value and shard count: an update of another document,
// of the same _id in another store, or of an equal _id of another type
// after a FindById lands where the document is.
TEST_F(ShardedRecordStoreTest, UpdateAfterFindByIdWritesTheUpdatedDocumentOnly) {
  auto a = MakeStore("ma", 8, "_id");
  auto b = MakeStore("mb", 3, "_id");
  BsonDoc x1 = BsonDoc::FromJson(R"({"_id": "x", "v": 1})");
  BsonDoc y1 = BsonDoc::FromJson(R"({"_id": "y", "v": 1})");
  BsonDoc n1 = BsonDoc::FromJson(R"({"_id": 5, "v": 1})");
  ASSERT_TRUE(InsertCommitted(*a, x1).ok());
  ASSERT_TRUE(InsertCommitted(*a, y1).ok());
  ASSERT_TRUE(InsertCommitted(*a, n1).ok());
  ASSERT_TRUE(InsertCommitted(*b, x1).ok());
  auto update_after_find = [&](ShardedRecordStore& found_in, const BsonDoc& found,
                               ShardedRecordStore& store, const BsonDoc& before,
                               const BsonDoc& after) {
    Session session = engine_->NewSession();
    ASSERT_TRUE(session.Begin().ok());
    bson_value_t id = ValueOf(found, "_id");
    ASSERT_TRUE(found_in.FindById(session, &id).ok());
    ASSERT_TRUE(store.Update(session, before.get(), after.get()).ok());
    ASSERT_TRUE(session.Commit().ok());
  };
  // The same document: the remembered placement.
  BsonDoc x2 = BsonDoc::FromJson(R"({"_id": "x", "v": 2})");
  update_after_find(*a, x1, *a, x1, x2);
  EXPECT_EQ(Find(*a, x1)->ToJson(), x2.ToJson());
  // Another document of the store.
  BsonDoc y2 = BsonDoc::FromJson(R"({"_id": "y", "v": 2})");
  update_after_find(*a, x2, *a, y1, y2);
  EXPECT_EQ(Find(*a, y1)->ToJson(), y2.ToJson());
  EXPECT_EQ(Find(*a, x1)->ToJson(), x2.ToJson());
  // The same _id in a store with another shard count.
  BsonDoc xb = BsonDoc::FromJson(R"({"_id": "x", "v": "b"})");
  update_after_find(*a, x2, *b, x1, xb);
  EXPECT_EQ(Find(*b, x1)->ToJson(), xb.ToJson());
  EXPECT_EQ(Find(*a, x1)->ToJson(), x2.ToJson());
  // An equal _id of another type (found as 5.0, stored as 5).
  BsonDoc n2 = BsonDoc::FromJson(R"({"_id": 5, "v": 2})");
  update_after_find(*a, BsonDoc::FromJson(R"({"_id": 5.0})"), *a, n1, n2);
  EXPECT_EQ(Find(*a, n1)->ToJson(), n2.ToJson());
  EXPECT_EQ(a->TotalStats().count, 3);
}

// Update with shard key _id skips placing the new document again when its
// _id element has the same bytes as the old one's, first in both (the fast
// compare) or not (the walk); an equal _id of another numeric type is
// placed again and lands on the same record. Every _id type RawFields walks.
TEST_F(ShardedRecordStoreTest, UpdateKeepsEveryIdTypeInItsPlace) {
  auto store = MakeStore("ids", 4, "_id");
  const std::vector<std::string> ids = {
      "1", R"({"$numberLong": "2"})", "2.5", R"({"$date": {"$numberLong": "7"}})",
      R"({"$oid": "0123456789abcdef01234567"})", R"({"$numberDecimal": "3.1"})", R"("text")",
      R"("")", R"({"a": 1, "b": [1, 2]})", R"({"$binary": {"base64": "AQI=", "subType": "04"}})",
      "true", "null", R"({"$minKey": 1})"};
  for (const std::string& id : ids) {
    BsonDoc v1 = BsonDoc::FromJson(R"({"_id": )" + id + R"(, "v": 1})");
    ASSERT_TRUE(InsertCommitted(*store, v1).ok()) << id;
    const std::vector<std::string> afters = {
        R"({"_id": )" + id + R"(, "v": 2, "pad": "longer than before"})",  // _id first in both
        R"({"v": 3, "_id": )" + id + "}",                                  // not first: the walk
        R"({"_id": )" + id + R"(, "v": 4})"};
    BsonDoc before = v1.Copy();
    for (const std::string& json : afters) {
      BsonDoc after = BsonDoc::FromJson(json);
      Session session = engine_->NewSession();
      ASSERT_TRUE(session.Begin().ok());
      ASSERT_TRUE(store->Update(session, before.get(), after.get()).ok()) << json;
      ASSERT_TRUE(session.Commit().ok());
      auto found = Find(*store, v1);
      ASSERT_TRUE(found.has_value()) << json;
      EXPECT_EQ(found->ToJson(), after.ToJson());
      before = std::move(after);
    }
  }
  EXPECT_EQ(store->TotalStats().count, static_cast<int64_t>(ids.size()));
  // 5 stored, updated as 5.0: other bytes, the same record.
  BsonDoc five = BsonDoc::FromJson(R"({"_id": 5, "v": 1})");
  ASSERT_TRUE(InsertCommitted(*store, five).ok());
  BsonDoc five_double = BsonDoc::FromJson(R"({"_id": 5.0, "v": 2})");
  Session session = engine_->NewSession();
  ASSERT_TRUE(session.Begin().ok());
  ASSERT_TRUE(store->Update(session, five.get(), five_double.get()).ok());
  ASSERT_TRUE(session.Commit().ok());
  EXPECT_EQ(Find(*store, five)->ToJson(), five_double.ToJson());
  EXPECT_EQ(store->TotalStats().count, static_cast<int64_t>(ids.size()) + 1);
}

TEST_F(ShardedRecordStoreTest, StatsFollowCommitsNotRollbacks) {
  auto store = MakeStore("c5", 4, "k");
  int64_t bytes = 0;
  for (int i = 0; i < 20; ++i) {
    BsonDoc doc = BsonDoc::FromJson("{\"_id\": " + std::to_string(i) + ", \"k\": " +
                                    std::to_string(i % 5) + "}");
    bytes += doc.size();
    ASSERT_TRUE(InsertCommitted(*store, doc).ok());
  }
  EXPECT_EQ(store->TotalStats().count, 20);
  EXPECT_EQ(store->TotalStats().data_bytes, bytes);

  {
    Session session = engine_->NewSession();
    ASSERT_TRUE(session.Begin().ok());
    ASSERT_TRUE(store->Insert(session, BsonDoc::FromJson(R"({"_id": 100, "k": 1})").get()).ok());
    ASSERT_TRUE(store->Remove(session, BsonDoc::FromJson(R"({"_id": 0, "k": 0})").get()).ok());
    EXPECT_EQ(store->TotalStats().count, 20);  // not before commit
    session.Rollback();
  }
  EXPECT_EQ(store->TotalStats().count, 20);
  EXPECT_EQ(store->TotalStats().data_bytes, bytes);

  int64_t per_shard_sum = 0;
  for (int s = 0; s < 4; ++s) per_shard_sum += store->StatsOf(s).count;
  EXPECT_EQ(per_shard_sum, 20);

  // A fresh store over the same tables loads the same numbers.
  ShardedRecordStore reopened("c5", 4, "k");
  Session session = engine_->NewSession();
  ASSERT_TRUE(reopened.LoadStats(session).ok());
  for (int s = 0; s < 4; ++s) {
    EXPECT_EQ(reopened.StatsOf(s).count, store->StatsOf(s).count);
    EXPECT_EQ(reopened.StatsOf(s).data_bytes, store->StatsOf(s).data_bytes);
  }
}

TEST_F(ShardedRecordStoreTest, RejectsDocumentsItCannotPlace) {
  auto store = MakeStore("c6", 4, "k");
  EXPECT_EQ(InsertCommitted(*store, BsonDoc::FromJson(R"({"_id": 1, "k": [1]})")).code(),
            ErrorCode::kBadValue);
  EXPECT_EQ(InsertCommitted(*store, BsonDoc::FromJson(R"({"k": 1})")).code(),
            ErrorCode::kBadValue);
  EXPECT_EQ(store->TotalStats().count, 0);
}

}  // namespace
}  // namespace tigerdoc::storage
