// Index scans through the Engine facade on in-memory WiredTiger: for many
// filters over varied data (arrays, missing, null, mixed types), a find
// answers exactly what a collection scan answers whatever index exists;
// explain shows the chosen index with exact keysExamined/docsExamined;
// sorted queries merge the shards' index streams (SORT_MERGE); covered
// queries fetch nothing; a dropped index kills its cursors (175).
//
// The indexes are built here from engine/index's pieces (key generation,
// entry encoding, catalog DDL), as the createIndexes command does, so these
// tests pin the executor down on their own.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "engine/index/index_table.h"
#include "engine/index/key_generator.h"
#include "tests/engine/in_memory_engine.h"
#include "tests/engine/query/test_json.h"

namespace tigerdoc::engine {
namespace {

using bson::BsonDoc;

constexpr char kDb[] = "db";
constexpr char kColl[] = "c";

class IndexScanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    EngineOptions options = InMemoryEngineOptions();
    options.max_blocking_sort_bytes = 1;  // any blocking sort fails: merges must not sort
    engine_ = OpenInMemoryEngine(options);
    ASSERT_NE(engine_, nullptr);
  }

  void Insert(const std::vector<std::string>& docs) {
    std::vector<BsonDoc> batch;
    for (const std::string& d : docs) batch.push_back(testing_json::Json(d));
    auto inserted = engine_->InsertMany(kDb, kColl, std::move(batch), true);
    ASSERT_TRUE(inserted.ok()) << inserted.status().ToString();
    for (const Status& st : inserted.value()) ASSERT_TRUE(st.ok()) << st.ToString();
  }

  // Builds an index over the existing documents as createIndexes does.
  void BuildIndex(const std::string& spec_json) {
    auto coll = engine_->catalog().Lookup("db.c");
    ASSERT_NE(coll, nullptr);
    auto parsed = index::ParseIndexSpec(testing_json::Json(spec_json).get());
    ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
    index::IndexSpec spec = std::move(parsed).value();
    std::unique_lock<std::shared_mutex> lock(coll->write_mutex());
    auto id = engine_->catalog().ReserveIndexIds(*coll, 1);
    ASSERT_TRUE(id.ok());
    spec.id = id.value();
    spec.multikey_paths.assign(spec.fields.size(), {});
    storage::Session session = engine_->storage().NewSession();
    const storage::ShardedRecordStore& store = *coll->store;
    ASSERT_TRUE(index::CreateIndexTables(session, store.ident(), spec, store.num_shards()).ok());
    for (int shard = 0; shard < store.num_shards(); ++shard) {
      auto cursor = session.Scan(store.TableName(shard), "", "");
      ASSERT_TRUE(cursor.ok());
      Status status;
      while (cursor.value().Next(&status)) {
        std::string record_key(cursor.value().key());
        BsonDoc doc = BsonDoc::CopyOf(reinterpret_cast<const uint8_t*>(cursor.value().value().data()),
                                      cursor.value().value().size());
        auto keys = index::GenerateKeys(spec, doc.get());
        ASSERT_TRUE(keys.ok()) << keys.status().ToString() << " for " << doc.ToJson();
        if (keys.value().multikey) spec.multikey = true;
        for (size_t f = 0; f < spec.fields.size(); ++f) {
          for (size_t c : keys.value().multikey_paths[f]) spec.multikey_paths[f].insert(c);
        }
        for (const index::IndexKey& key : keys.value().keys) {
          ASSERT_TRUE(session
                          .Put(index::EntryTable(store.ident(), spec, shard),
                               index::EncodeEntryKey(spec, key.encoded, record_key),
                               index::EncodeEntryValue(shard, record_key, key.values))
                          .ok());
        }
      }
      ASSERT_TRUE(status.ok());
    }
    std::vector<index::IndexSpec> specs;
    specs.push_back(std::move(spec));
    ASSERT_TRUE(engine_->catalog().AddIndexes(*coll, std::move(specs)).ok());
  }

  void DropIndex(const std::string& name) {
    auto coll = engine_->catalog().Lookup("db.c");
    std::unique_lock<std::shared_mutex> lock(coll->write_mutex());
    const index::IndexSpec* spec = coll->indexes()->FindByName(name);
    ASSERT_NE(spec, nullptr);
    ASSERT_TRUE(engine_->catalog().DropIndexes(*coll, {spec->id}).ok());
  }

  FindParams Params(const std::string& filter, const std::string& sort = "{}",
                    const std::string& projection = "{}") {
    FindParams p;
    p.db = kDb;
    p.coll = kColl;
    p.filter = testing_json::Json(filter);
    p.sort = testing_json::Json(sort);
    p.projection = testing_json::Json(projection);
    return p;
  }

  // Every result (find + getMores in batches of `batch`), as JSON.
  std::vector<std::string> All(FindParams p, int64_t batch = 3) {
    p.batch_size = batch;
    std::vector<std::string> out;
    auto first = engine_->Find(p);
    EXPECT_TRUE(first.ok()) << first.status().ToString();
    if (!first.ok()) return out;
    CursorBatch b = std::move(first).value();
    for (auto& d : b.docs) out.push_back(d.ToJson());
    while (b.cursor_id != 0) {
      GetMoreParams g;
      g.db = kDb;
      g.coll = kColl;
      g.cursor_id = b.cursor_id;
      g.batch_size = batch;
      auto more = engine_->GetMore(g);
      EXPECT_TRUE(more.ok()) << more.status().ToString();
      if (!more.ok()) break;
      b = std::move(more).value();
      for (auto& d : b.docs) out.push_back(d.ToJson());
    }
    return out;
  }

  std::vector<std::string> Sorted(std::vector<std::string> v) {
    std::sort(v.begin(), v.end());
    return v;
  }

  BsonDoc Explain(const FindParams& p) {
    auto e = engine_->ExplainFind(p, ExplainVerbosity::kExecutionStats);
    EXPECT_TRUE(e.ok()) << e.status().ToString();
    return e.ok() ? std::move(e).value() : BsonDoc();
  }

  static std::string Str(const BsonDoc& doc, const char* path) {
    bson_iter_t it, found;
    if (!bson_iter_init(&it, doc.get()) || !bson_iter_find_descendant(&it, path, &found)) {
      return "<missing " + std::string(path) + ">";
    }
    if (BSON_ITER_HOLDS_UTF8(&found)) return bson_iter_utf8(&found, nullptr);
    if (BSON_ITER_HOLDS_NUMBER(&found)) return std::to_string(bson_iter_as_int64(&found));
    if (BSON_ITER_HOLDS_BOOL(&found)) return bson_iter_bool(&found) ? "true" : "false";
    return "<other>";
  }

  std::unique_ptr<Engine> engine_;
};

const std::vector<std::string> kVariedDocs = {
    R"({"_id": 1, "a": 1, "b": 1, "c": "x"})",
    R"({"_id": 2, "a": 2, "b": 1})",
    R"({"_id": 3, "a": 2, "b": 2, "c": "y"})",
    R"({"_id": 4, "a": null, "b": 3})",
    R"({"_id": 5, "b": 4})",
    R"({"_id": 6, "a": [1, 5, 9], "b": 5})",
    R"({"_id": 7, "a": [], "b": 6})",
    R"({"_id": 8, "a": "abc", "b": 7})",
    R"({"_id": 9, "a": "abd", "b": 8, "c": "x"})",
    R"({"_id": 10, "a": 5.5, "b": -1})",
    R"({"_id": 11, "a": {"x": 1}, "b": 2})",
    R"({"_id": 12, "a": [[1, 2], 3], "b": 9})",
    R"({"_id": 13, "a": true})",
    R"({"_id": 14, "a": {"$date": 1000}, "b": 1})",
    R"({"_id": 15, "a": [{"x": 1}, {"x": 2}], "b": 3})",
    R"({"_id": 16, "a": -3, "b": [1, 2]})",
    R"({"_id": 17, "a": 9, "b": 9, "c": "z"})",
};

const std::vector<std::string> kFilters = {
    R"({})",
    R"({"a": 1})",
    R"({"a": 2, "b": 2})",
    R"({"a": null})",
    R"({"a": {"%ne": null}})",
    R"({"a": {"%exists": true}})",
    R"({"a": {"%exists": false}})",
    R"({"a": {"%gt": 1}})",
    R"({"a": {"%gte": 1, "%lt": 6}})",
    R"({"a": {"%lt": "abd"}})",
    R"({"a": {"%in": [1, 9, "abc", null]}})",
    R"({"a": {"%nin": [1, 2]}})",
    R"({"a": {"%ne": 2}})",
    R"({"a": {"%not": {"%gt": 2}}})",
    R"({"a": {"%regex": "^ab"}})",
    R"({"a": {"%regex": "c$"}})",
    R"({"a": {"%elemMatch": {"%gt": 4, "%lt": 6}}})",
    R"({"a": {"%size": 0}})",
    R"({"a": []})",
    R"({"a": [1, 2]})",
    R"({"a": {"x": 1}})",
    R"({"a.x": 2})",
    R"({"a": {"%gt": 0}, "b": {"%lte": 5}})",
    R"({"b": {"%in": [1, 2]}, "a": {"%gte": 2}})",
    R"({"%or": [{"a": 1}, {"b": 2}]})",
    R"({"%or": [{"a": {"%gt": 5}}, {"c": "x"}]})",
    R"({"c": "x"})",
};

const std::vector<std::string> kIndexes = {
    R"({"key": {"a": 1}})",
    R"({"key": {"a": -1}})",
    R"({"key": {"a": 1, "b": 1}})",
    R"({"key": {"b": -1, "a": 1}})",
    R"({"key": {"a": 1}, "sparse": true})",
    R"({"key": {"a": 1}, "partialFilterExpression": {"b": {"%gt": 2}}})",
    R"({"key": {"a.x": 1}})",
};

TEST_F(IndexScanTest, SameResultsWithAndWithoutEachIndex) {
  Insert(kVariedDocs);
  std::vector<std::vector<std::string>> expected;
  for (const std::string& filter : kFilters) expected.push_back(Sorted(All(Params(filter))));
  for (const std::string& spec : kIndexes) {
    BuildIndex(spec);
    auto coll = engine_->catalog().Lookup("db.c");
    const std::string name = coll->indexes()->specs.back()->name;
    for (size_t i = 0; i < kFilters.size(); ++i) {
      EXPECT_EQ(Sorted(All(Params(kFilters[i]))), expected[i])
          << "filter " << kFilters[i] << " with index " << spec;
      // Forcing the index answers the same too (sparse and partial
      // indexes may only be hinted when the query allows them).
      FindParams hinted = Params(kFilters[i]);
      hinted.hint = FindHint::kIndex;
      BSON_APPEND_UTF8(hinted.hint_index.mutable_get(), "", name.c_str());
      auto e = engine_->ExplainFind(hinted, ExplainVerbosity::kQueryPlanner);
      bool sparse_or_partial = spec.find("sparse") != std::string::npos ||
                               spec.find("partial") != std::string::npos;
      if (e.ok() && !sparse_or_partial) {
        EXPECT_EQ(Sorted(All(std::move(hinted))), expected[i])
            << "filter " << kFilters[i] << " hinting " << spec;
      }
    }
    DropIndex(name);
  }
}

TEST_F(IndexScanTest, ExplainShowsTheIndexWithExactCounts) {
  std::vector<std::string> docs;
  for (int i = 0; i < 200; ++i) {
    docs.push_back("{\"_id\": " + std::to_string(i) + ", \"a\": " + std::to_string(i % 50) +
                   ", \"b\": " + std::to_string(i) + "}");
  }
  Insert(docs);
  BuildIndex(R"({"key": {"a": 1}})");
  FindParams p = Params(R"({"a": 7})");
  BsonDoc e = Explain(p);
  EXPECT_EQ(Str(e, "planner.winningPlan"), "IXSCAN a_1");
  EXPECT_EQ(Str(e, "executionStats.nReturned"), "4");
  EXPECT_EQ(Str(e, "executionStats.totalKeysExamined"), "4");
  EXPECT_EQ(Str(e, "executionStats.totalDocsExamined"), "4");
  // The only applicable index: no collection scan is considered (MongoDB).
  EXPECT_EQ(Str(e, "queryPlanner.rejectedPlans.0.stage"), "<missing queryPlanner.rejectedPlans.0.stage>");
  // Exact bounds: FETCH without a filter, over the IXSCAN.
  EXPECT_EQ(Str(e, "queryPlanner.winningPlan.shards.0.winningPlan.stage"), "FETCH");
  EXPECT_EQ(Str(e, "queryPlanner.winningPlan.shards.0.winningPlan.filter"), "<missing queryPlanner.winningPlan.shards.0.winningPlan.filter>");
  EXPECT_EQ(Str(e, "queryPlanner.winningPlan.shards.0.winningPlan.inputStage.stage"), "IXSCAN");
  EXPECT_EQ(Str(e, "queryPlanner.winningPlan.shards.0.winningPlan.inputStage.indexName"), "a_1");
  EXPECT_EQ(Str(e, "queryPlanner.winningPlan.shards.0.winningPlan.inputStage.indexBounds.a.0"),
            "[7, 7]");
  // A range with a residual predicate.
  BsonDoc r = Explain(Params(R"({"a": {"%gte": 10, "%lt": 12}, "b": {"%gt": 100}})"));
  EXPECT_EQ(Str(r, "executionStats.nReturned"), "4");
  EXPECT_EQ(Str(r, "executionStats.totalKeysExamined"), "8");
  EXPECT_EQ(Str(r, "executionStats.totalDocsExamined"), "8");
  EXPECT_EQ(Str(r, "queryPlanner.winningPlan.shards.0.winningPlan.inputStage.indexBounds.a.0"),
            "[10, 12)");
}

// `n` documents {_id: 1000 + i, filler: i} that no test filter selects.
std::vector<std::string> Filler(int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) {
    out.push_back("{\"_id\": " + std::to_string(1000 + i) + ", \"filler\": " + std::to_string(i) + "}");
  }
  return out;
}

TEST_F(IndexScanTest, CoveredQueriesExamineNoDocuments) {
  Insert({R"({"_id": 1, "b": 1, "c": "x", "d": 1})", R"({"_id": 2, "b": 2})",
          R"({"_id": 3, "b": 3, "c": null})", R"({"_id": 4, "b": 3, "c": {"k": [1]}})",
          R"({"_id": 5, "b": 4, "c": "y"})", R"({"_id": 6, "b": "s", "c": "y"})"});
  Insert(Filler(50));
  BuildIndex(R"({"key": {"b": 1, "c": 1}})");
  FindParams p = Params(R"({"b": {"%gte": 1, "%lte": 3}})", "{}", R"({"b": 1, "c": 1, "_id": 0})");
  BsonDoc e = Explain(p);
  EXPECT_EQ(Str(e, "planner.winningPlan"), "IXSCAN b_1_c_1");
  EXPECT_EQ(Str(e, "executionStats.totalDocsExamined"), "0");
  EXPECT_EQ(Str(e, "queryPlanner.winningPlan.shards.0.winningPlan.stage"), "PROJECTION_COVERED");
  std::vector<std::string> covered = Sorted(All(Params(R"({"b": {"%gte": 1, "%lte": 3}})", "{}",
                                                       R"({"b": 1, "c": 1, "_id": 0})")));
  FindParams natural = Params(R"({"b": {"%gte": 1, "%lte": 3}})", "{}", R"({"b": 1, "c": 1, "_id": 0})");
  natural.hint = FindHint::kNaturalForward;
  std::vector<std::string> scanned = Sorted(All(std::move(natural)));
  EXPECT_EQ(covered.size(), 4u);
  // _id 2 lacks c: the index holds null for it and the covered plan returns
  // that null, as MongoDB's PROJECTION_COVERED does; the document has none.
  auto with_null = std::find(covered.begin(), covered.end(), R"({ "b" : 2, "c" : null })");
  auto without = std::find(scanned.begin(), scanned.end(), R"({ "b" : 2 })");
  ASSERT_NE(with_null, covered.end());
  ASSERT_NE(without, scanned.end());
  covered.erase(with_null);
  scanned.erase(without);
  EXPECT_EQ(covered, scanned);
}

TEST_F(IndexScanTest, SortedQueriesMergeShardStreams) {
  std::vector<std::string> docs;
  for (int i = 0; i < 300; ++i) {
    docs.push_back("{\"_id\": " + std::to_string(i) + ", \"a\": " + std::to_string((i * 37) % 101) +
                   ", \"b\": " + std::to_string(i % 7) + "}");
  }
  Insert(docs);
  BuildIndex(R"({"key": {"b": 1, "a": -1}})");
  // max_blocking_sort_bytes is 1: a blocking sort would fail with 292.
  std::vector<std::string> out = All(Params(R"({"b": 3})", R"({"a": -1})"), 10);
  ASSERT_EQ(out.size(), 43u);
  int last = 1000;
  for (const std::string& json : out) {
    BsonDoc d = BsonDoc::FromJson(json);
    bson_iter_t it;
    ASSERT_TRUE(bson_iter_init_find(&it, d.get(), "a"));
    EXPECT_LE(bson_iter_as_int64(&it), last);
    last = static_cast<int>(bson_iter_as_int64(&it));
  }
  BsonDoc e = Explain(Params(R"({"b": 3})", R"({"a": -1})"));
  EXPECT_EQ(Str(e, "queryPlanner.winningPlan.stage"), "SORT_MERGE");
  EXPECT_EQ(Str(e, "sharding.numShards"), "4");
}

// A sort against the index's directions reads every shard's stream backward
// and merges them largest first: no blocking sort (which would fail here, the
// sort memory being 1 byte), also across getMore batches of 7.
TEST_F(IndexScanTest, SortAgainstTheIndexDirectionScansBackward) {
  std::vector<std::string> docs;
  for (int i = 0; i < 300; ++i) {
    docs.push_back("{\"_id\": " + std::to_string(i) + ", \"a\": " + std::to_string((i * 37) % 101) +
                   ", \"b\": " + std::to_string(i % 7) + "}");
  }
  Insert(docs);
  BuildIndex(R"({"key": {"b": 1, "a": -1}})");
  auto field = [](const std::string& json, const char* name) {
    BsonDoc d = BsonDoc::FromJson(json);
    bson_iter_t it;
    EXPECT_TRUE(bson_iter_init_find(&it, d.get(), name)) << json;
    return bson_iter_as_int64(&it);
  };
  // Equality on b, then a ascending: the index's {a: -1} read backward.
  std::vector<std::string> out = All(Params(R"({"b": 3})", R"({"a": 1})"), 7);
  ASSERT_EQ(out.size(), 43u);
  for (size_t i = 1; i < out.size(); ++i) EXPECT_LE(field(out[i - 1], "a"), field(out[i], "a"));
  BsonDoc e = Explain(Params(R"({"b": 3})", R"({"a": 1})"));
  EXPECT_EQ(Str(e, "queryPlanner.winningPlan.stage"), "SORT_MERGE");
  EXPECT_EQ(Str(e, "queryPlanner.winningPlan.shards.0.winningPlan.inputStage.direction"), "backward");
  // The whole index reversed: {b: -1, a: 1}.
  out = All(Params("{}", R"({"b": -1, "a": 1})"), 7);
  ASSERT_EQ(out.size(), 300u);
  for (size_t i = 1; i < out.size(); ++i) {
    const int64_t b0 = field(out[i - 1], "b"), b1 = field(out[i], "b");
    EXPECT_GE(b0, b1);
    if (b0 == b1) EXPECT_LE(field(out[i - 1], "a"), field(out[i], "a"));
  }
  // The index's own order stays forward.
  e = Explain(Params(R"({"b": 3})", R"({"a": -1})"));
  EXPECT_EQ(Str(e, "queryPlanner.winningPlan.shards.0.winningPlan.inputStage.direction"), "forward");
}

TEST_F(IndexScanTest, MultikeyResultsHaveNoDuplicates) {
  Insert({R"({"_id": 1, "t": [1, 2, 3, 2]})", R"({"_id": 2, "t": [3, 4]})", R"({"_id": 3, "t": 2})"});
  Insert(Filler(50));
  BuildIndex(R"({"key": {"t": 1}})");
  EXPECT_EQ(All(Params(R"({"t": {"%gte": 2}})")).size(), 3u);
  BsonDoc e = Explain(Params(R"({"t": {"%gte": 2}})"));
  EXPECT_EQ(Str(e, "planner.winningPlan"), "IXSCAN t_1");
  EXPECT_EQ(Str(e, "queryPlanner.winningPlan.shards.0.winningPlan.inputStage.isMultiKey"), "true");
}

TEST_F(IndexScanTest, OrOfIndexScans) {
  std::vector<std::string> docs;
  for (int i = 0; i < 100; ++i) {
    docs.push_back("{\"_id\": " + std::to_string(i) + ", \"a\": " + std::to_string(i) +
                   ", \"b\": " + std::to_string(100 - i) + "}");
  }
  Insert(docs);
  BuildIndex(R"({"key": {"a": 1}})");
  BuildIndex(R"({"key": {"b": 1}})");
  FindParams p = Params(R"({"%or": [{"a": {"%lt": 3}}, {"b": {"%lt": 3}}, {"a": 1}]})");
  BsonDoc e = Explain(p);
  EXPECT_EQ(Str(e, "planner.winningPlan"), "OR(IXSCAN a_1, IXSCAN b_1, IXSCAN a_1)");
  EXPECT_EQ(Str(e, "executionStats.nReturned"), "5");
  EXPECT_EQ(All(std::move(p)).size(), 5u);
}

TEST_F(IndexScanTest, HashedIndexServesEqualityOnly) {
  Insert({R"({"_id": 1, "h": 1})", R"({"_id": 2, "h": 1.0})", R"({"_id": 3, "h": "x"})",
          R"({"_id": 4})", R"({"_id": 5, "h": null})", R"({"_id": 6, "h": 2})"});
  Insert(Filler(50));
  BuildIndex(R"({"key": {"h": "hashed"}})");
  BsonDoc e = Explain(Params(R"({"h": {"%in": [1, "x"]}})"));
  EXPECT_EQ(Str(e, "planner.winningPlan"), "IXSCAN h_hashed");
  EXPECT_EQ(Str(e, "executionStats.nReturned"), "3");
  EXPECT_EQ(All(Params(R"({"h": null})")).size(), 52u);  // missing fields hash as null
  EXPECT_EQ(Str(Explain(Params(R"({"h": {"%gt": 1}})")), "planner.winningPlan"), "COLLSCAN");
}

TEST_F(IndexScanTest, HintsNameAnIndexOrFail) {
  Insert(kVariedDocs);
  BuildIndex(R"({"key": {"b": 1}})");
  FindParams p = Params(R"({"a": 1})");
  p.hint = FindHint::kIndex;
  p.hint_index = testing_json::Json(R"({"b": 1})");
  BsonDoc e = Explain(p);
  EXPECT_EQ(Str(e, "planner.winningPlan"), "IXSCAN b_1");
  EXPECT_EQ(Str(e, "queryPlanner.winningPlan.shards.0.winningPlan.inputStage.indexBounds.b.0"),
            "[MinKey, MaxKey]");
  p.hint_index = testing_json::Json(R"({"": "nope"})");
  auto bad = engine_->Find(p);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code_number(), 2);
  EXPECT_EQ(bad.status().reason(), "hint provided does not correspond to an existing index");
}

TEST_F(IndexScanTest, DroppedIndexKillsTheCursor) {
  std::vector<std::string> docs;
  for (int i = 0; i < 50; ++i) docs.push_back("{\"_id\": " + std::to_string(i) + ", \"a\": 1}");
  Insert(docs);
  BuildIndex(R"({"key": {"a": 1}})");
  FindParams p = Params(R"({"a": 1})");
  p.hint = FindHint::kIndex;
  p.hint_index = testing_json::Json(R"({"": "a_1"})");
  p.batch_size = 5;
  auto first = engine_->Find(p);
  ASSERT_TRUE(first.ok());
  ASSERT_NE(first.value().cursor_id, 0);
  DropIndex("a_1");
  GetMoreParams g;
  g.db = kDb;
  g.coll = kColl;
  g.cursor_id = first.value().cursor_id;
  auto more = engine_->GetMore(g);
  ASSERT_FALSE(more.ok());
  EXPECT_EQ(more.status().code_number(), 175);
}

TEST_F(IndexScanTest, WritesUseTheIndex) {
  Insert(kVariedDocs);
  BuildIndex(R"({"key": {"b": 1}})");
  DeleteStatement del;
  del.query = testing_json::Json(R"({"b": {"%in": [1, 2]}})");
  del.limit = 0;
  auto deleted = engine_->Delete(kDb, kColl, del);
  ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();
  EXPECT_EQ(deleted.value().deleted, 6);
}

}  // namespace
}  // namespace tigerdoc::engine
