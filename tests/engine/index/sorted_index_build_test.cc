// Sorted index builds (engine/index_builder.h) against the write path: the
// same varied documents indexed by inserts into a collection that already
// has the indexes, and by a build over a collection that does not, give
// byte-identical index tables and the same multikey flags and paths for
// every kind of index; the sort budget just below, at and well above what
// the keys need (and far below it) changes how often it spills, never the
// result.

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "engine/engine.h"
#include "engine/index/index_table.h"
#include "engine/index_builder.h"
#include "tests/engine/in_memory_engine.h"

namespace tigerdoc::engine {
namespace {

using bson::BsonDoc;

const char* const kSpecs[] = {
    R"({"key": {"a": 1}, "name": "a_1"})",
    R"({"key": {"a.b": 1, "c": -1}, "name": "ab_c"})",
    R"({"key": {"arr": 1}, "name": "arr_1"})",
    R"({"key": {"h": "hashed"}, "name": "h_hashed"})",
    R"({"key": {"t": "text"}, "name": "t_text"})",
    R"({"key": {"w.$**": 1}, "name": "w_wild"})",
    R"({"key": {"s": 1}, "name": "s_unique", "unique": true})",
    R"({"key": {"p": 1}, "name": "p_partial", "partialFilterExpression": {"p": {"$gt": 2}}})",
    R"({"key": {"sp": 1}, "name": "sp_sparse", "sparse": true})",
    R"({"key": {"n": 1}, "name": "n_ci", "collation": {"locale": "en", "strength": 2}})",
};

// Document i: scalars of several types, arrays (nested, empty, of
// documents), missing fields, strings differing in case.
std::string Document(int i) {
  std::string d = R"({"_id": )" + std::to_string(i);
  switch (i % 5) {
    case 0: d += R"(, "a": )" + std::to_string(i % 17); break;
    case 1: d += R"(, "a": {"b": [)" + std::to_string(i % 4) + R"(, "x"]})"; break;
    case 2: d += R"(, "a": [{"b": 1}, {"b": )" + std::to_string(i % 6) + "}]"; break;
    case 3: d += R"(, "a": [])"; break;
    default: break;  // missing
  }
  d += R"(, "c": )" + std::to_string(i % 3);
  if (i % 4 != 0) d += R"(, "arr": [[1, 2], )" + std::to_string(i % 9) + R"(, {"z": 1}])";
  d += R"(, "h": )" + (i % 2 == 0 ? std::to_string(i % 11) : "\"h" + std::to_string(i % 7) + "\"");
  d += R"(, "t": "the word)" + std::to_string(i % 13) + R"( and runs running")";
  d += R"(, "w": {"x": )" + std::to_string(i % 5) + (i % 3 == 0 ? R"(, "y": [1, {"z": 2}])" : "") + "}";
  d += R"(, "s": "v)" + std::to_string(i) + "\"";
  d += R"(, "p": )" + std::to_string(i % 5);
  if (i % 3 == 0) d += R"(, "sp": )" + std::to_string(i % 8);
  d += R"(, "n": ")" + std::string(i % 2 == 0 ? "Name" : "nAME") + std::to_string(i % 10) + "\"";
  return d + "}";
}

constexpr int kDocuments = 600;

class SortedIndexBuildTest : public ::testing::Test {
 protected:
  void SetUp() override {
    engine_ = OpenInMemoryEngine();
    ASSERT_NE(engine_, nullptr);
  }
  void TearDown() override { ASSERT_TRUE(SetIndexBuildMemoryLimitBytesForTest(0).ok()); }

  void CreateWithDocuments(const std::string& coll) {
    CreateParams params;
    params.db = "db";
    params.name = coll;
    params.num_shards = 4;
    ASSERT_TRUE(engine_->CreateCollection(params).ok());
    InsertDocuments(coll);
  }

  void InsertDocuments(const std::string& coll) {
    std::vector<BsonDoc> docs;
    for (int i = 0; i < kDocuments; ++i) docs.push_back(BsonDoc::FromJson(Document(i)));
    auto result = engine_->InsertMany("db", coll, std::move(docs), /*ordered=*/true);
    ASSERT_TRUE(result.ok()) << result.status().ToString();
    for (const Status& st : result.value()) ASSERT_TRUE(st.ok()) << st.ToString();
  }

  Status CreateIndexes(const std::string& coll) {
    CreateIndexesParams params;
    params.db = "db";
    params.coll = coll;
    for (const char* spec : kSpecs) params.specs.push_back(BsonDoc::FromJson(spec));
    return engine_->CreateIndexes(params).status();
  }

  std::shared_ptr<catalog::CollectionEntry> Coll(const std::string& name) {
    return engine_->catalog().Lookup("db." + name);
  }

  // (shard of the table, key, value) of every entry of `spec`, in table order.
  using Entries = std::vector<std::tuple<int, std::string, std::string>>;
  Entries EntriesOf(const catalog::CollectionEntry& coll, const index::IndexSpec& spec) {
    Entries out;
    storage::Session session = engine_->storage().NewSession();
    for (const index::IndexTableRef& ref :
         index::IndexTablesFor(coll.metadata.ident, spec, coll.metadata.num_shards)) {
      auto cursor = session.Scan(ref.table, "", "");
      EXPECT_TRUE(cursor.ok()) << cursor.status().ToString();
      if (!cursor.ok()) return out;
      Status st;
      while (cursor.value().Next(&st)) {
        out.emplace_back(ref.shard, std::string(cursor.value().key()),
                         std::string(cursor.value().value()));
      }
      EXPECT_TRUE(st.ok()) << st.ToString();
    }
    return out;
  }

  const index::IndexSpec& SpecNamed(const catalog::CollectionEntry& coll, const std::string& name) {
    const index::IndexSpec* spec = coll.indexes()->FindByName(name);
    EXPECT_NE(spec, nullptr) << name;
    return *spec;
  }

  std::unique_ptr<Engine> engine_;
};

TEST_F(SortedIndexBuildTest, BuildGivesTheWritePathsEntriesAndMultikeyPathsForEveryKind) {
  // "ref": indexes first, entries written by the inserts.
  CreateParams params;
  params.db = "db";
  params.name = "ref";
  params.num_shards = 4;
  ASSERT_TRUE(engine_->CreateCollection(params).ok());
  ASSERT_TRUE(CreateIndexes("ref").ok());
  InsertDocuments("ref");
  // "built": documents first; the build spills (a few KB budget).
  CreateWithDocuments("built");
  ASSERT_TRUE(SetIndexBuildMemoryLimitBytesForTest(20 * 1024).ok());
  Status built = CreateIndexes("built");
  ASSERT_TRUE(built.ok()) << built.ToString();

  auto ref = Coll("ref");
  auto got = Coll("built");
  size_t multikey_indexes = 0;
  for (const auto& ref_spec : ref->indexes()->specs) {
    SCOPED_TRACE(ref_spec->name);
    const index::IndexSpec& spec = SpecNamed(*got, ref_spec->name);
    Entries want = EntriesOf(*ref, *ref_spec);
    EXPECT_GT(want.size(), 0u);
    EXPECT_EQ(EntriesOf(*got, spec), want);
    EXPECT_EQ(spec.multikey, ref_spec->multikey);
    EXPECT_EQ(spec.multikey_paths, ref_spec->multikey_paths);
    EXPECT_EQ(spec.wildcard_multikey_paths, ref_spec->wildcard_multikey_paths);
    if (spec.multikey) ++multikey_indexes;
  }
  EXPECT_EQ(ref->indexes()->specs.size(), std::size(kSpecs));
  EXPECT_GE(multikey_indexes, 4u);  // ab_c, arr_1, t_text, w_wild at least
}

TEST_F(SortedIndexBuildTest, BudgetBelowAtAndAboveTheKeysChangesSpillsNotEntries) {
  // The reference entries: the index written by inserts.
  CreateParams params;
  params.db = "db";
  params.name = "ref";
  params.num_shards = 4;
  ASSERT_TRUE(engine_->CreateCollection(params).ok());
  CreateIndexesParams index_params;
  index_params.db = "db";
  index_params.coll = "ref";
  index_params.specs.push_back(BsonDoc::FromJson(kSpecs[1]));  // multikey, compound
  ASSERT_TRUE(engine_->CreateIndexes(index_params).ok());
  InsertDocuments("ref");
  auto ref = Coll("ref");
  const index::IndexSpec& ref_spec = SpecNamed(*ref, "ab_c");
  const Entries want = EntriesOf(*ref, ref_spec);

  CreateWithDocuments("c");
  auto coll = Coll("c");
  int64_t next_id = 1000;
  // Builds the index into fresh tables of "c" under `budget` bytes.
  auto build = [&](int64_t budget, IndexBuildStats* stats) {
    EXPECT_TRUE(SetIndexBuildMemoryLimitBytesForTest(budget).ok());
    auto parsed = index::ParseIndexSpec(BsonDoc::FromJson(kSpecs[1]).get(), nullptr);
    EXPECT_TRUE(parsed.ok());
    std::vector<index::IndexSpec> specs;
    specs.push_back(std::move(parsed).value());
    specs[0].id = next_id++;
    storage::Session session = engine_->storage().NewUnboundSession();
    EXPECT_TRUE(index::CreateIndexTables(session, coll->metadata.ident, specs[0], 4).ok());
    Status st = BuildIndexesSorted(engine_->storage(), *coll, specs, "", stats);
    EXPECT_TRUE(st.ok()) << st.ToString();
    EXPECT_EQ(EntriesOf(*coll, specs[0]), want) << "budget " << budget;
    EXPECT_TRUE(specs[0].multikey);
    EXPECT_EQ(specs[0].multikey_paths, ref_spec.multikey_paths);
    EXPECT_TRUE(index::DropIndexTables(session, coll->metadata.ident, specs[0], 4).ok());
  };
  IndexBuildStats roomy;
  build(int64_t{1} << 30, &roomy);
  const int64_t needed = roomy.sorted_bytes;
  ASSERT_GT(needed, 10000);
  EXPECT_EQ(roomy.spills, 0);
  EXPECT_EQ(roomy.entries, static_cast<int64_t>(want.size()));
  EXPECT_EQ(roomy.documents, kDocuments);
  EXPECT_EQ(roomy.bulk_tables, 4);

  IndexBuildStats at;
  build(needed, &at);
  EXPECT_EQ(at.spills, 0);
  IndexBuildStats just_below;
  build(needed - 1, &just_below);
  EXPECT_EQ(just_below.spills, 1);  // the last row tips it over: one run of everything
  IndexBuildStats well_above;
  build(needed * 4, &well_above);
  EXPECT_EQ(well_above.spills, 0);
  IndexBuildStats far_below;
  build(needed / 20, &far_below);
  EXPECT_GE(far_below.spills, 19);
  EXPECT_LE(far_below.spills, 21);
  EXPECT_EQ(far_below.bulk_tables, 4);
}

}  // namespace
}  // namespace tigerdoc::engine
