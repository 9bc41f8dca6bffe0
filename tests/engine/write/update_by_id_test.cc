// Engine::Update with the filter {_id: v}: the path that parses no matcher
// and no expression context (engine_writes.cc) must answer as the general
// path does. Each case pins one edge of it or of the in-place update paths
// it feeds ($inc and $set of top-level fields, engine/update/in_place_*.h):
// numeric promotion on overflow, fields the in-place paths decline
// (missing, nested, decimal), no-op sets (nModified 0), documents growing
// and shrinking, the 16 MiB limit, an _id stored as another numeric type,
// upserts, the positional operator, collations and replacements.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/bson/shell_string.h"
#include "engine/collation/collator_factory.h"
#include "engine/engine.h"
#include "tests/engine/in_memory_engine.h"

namespace tigerdoc::engine {
namespace {

using bson::BsonDoc;

class UpdateByIdTest : public ::testing::Test {
 protected:
  void SetUp() override {
    engine_ = OpenInMemoryEngine();
    ASSERT_NE(engine_, nullptr);
  }

  void Insert(BsonDoc doc) {
    std::vector<BsonDoc> docs;
    docs.push_back(std::move(doc));
    auto result = engine_->InsertMany("db", "c", std::move(docs), true);
    ASSERT_TRUE(result.ok()) << result.status().ToString();
    for (const Status& st : result.value()) ASSERT_TRUE(st.ok()) << st.ToString();
  }
  void Insert(const char* json) { Insert(BsonDoc::FromJson(json)); }

  StatusWith<UpdateResult> Update(const char* query, const char* update, bool upsert = false,
                                  bool multi = false) {
    UpdateStatement st;
    st.query = BsonDoc::FromJson(query);
    st.update = BsonDoc::FromJson(update);
    st.upsert = upsert;
    st.multi = multi;
    return engine_->Update("db", "c", st);
  }

  // The one document `query` finds, in canonical extended JSON ("" when none).
  std::string Find(const char* query) {
    FindParams p;
    p.db = "db";
    p.coll = "c";
    p.filter = BsonDoc::FromJson(query);
    auto batch = engine_->Find(p);
    EXPECT_TRUE(batch.ok()) << batch.status().ToString();
    if (!batch.ok() || batch.value().docs.empty()) return "";
    EXPECT_EQ(batch.value().docs.size(), 1u);
    return Canonical(batch.value().docs[0]);
  }

  static std::string Canonical(const BsonDoc& doc) {
    char* json = bson_as_canonical_extended_json(doc.get(), nullptr);
    std::string out(json);
    bson_free(json);
    return out;
  }
  static std::string Canonical(const char* json) { return Canonical(BsonDoc::FromJson(json)); }

  // Expects n and nModified.
  void ExpectCounts(const StatusWith<UpdateResult>& r, int64_t matched, int64_t modified) {
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r.value().matched, matched);
    EXPECT_EQ(r.value().modified, modified);
    EXPECT_FALSE(r.value().upserted_id.has_value());
  }

  std::unique_ptr<Engine> engine_;
};

TEST_F(UpdateByIdTest, IncOfInt32OverflowsIntoInt64AsMongoDBDoes) {
  Insert(R"({"_id": 1, "a": 2147483647, "b": 1})");
  ExpectCounts(Update(R"({"_id": 1})", R"({"$inc": {"a": 1}})"), 1, 1);
  EXPECT_EQ(Find(R"({"_id": 1})"),
            Canonical(R"({"_id": 1, "a": {"$numberLong": "2147483648"}, "b": 1})"));
  // int64 overflow is an error, and the document stays as it was.
  Insert(R"({"_id": 2, "a": {"$numberLong": "9223372036854775807"}})");
  auto r = Update(R"({"_id": 2})", R"({"$inc": {"a": 1}})");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kBadValue);
  EXPECT_EQ(Find(R"({"_id": 2})"),
            Canonical(R"({"_id": 2, "a": {"$numberLong": "9223372036854775807"}})"));
}

TEST_F(UpdateByIdTest, IncOfDoubleDecimalMissingAndNestedFields) {
  Insert(R"({"_id": "k", "d": 1.5, "m": {"$numberDecimal": "1.1"}, "n": {"x": 1}, "z": 0})");
  ExpectCounts(Update(R"({"_id": "k"})",
                      R"({"$inc": {"d": 1, "m": 1, "n.x": 2, "added": {"$numberLong": "3"}}})"),
               1, 1);
  // Existing fields keep their place, the new one comes last.
  EXPECT_EQ(Find(R"({"_id": "k"})"),
            Canonical(R"({"_id": "k", "d": 2.5, "m": {"$numberDecimal": "2.1"}, "n": {"x": 3},
                          "z": 0, "added": {"$numberLong": "3"}})"));
  // A non-numeric target is TypeMismatch (14).
  auto r = Update(R"({"_id": "k"})", R"({"$inc": {"n": 1}})");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kTypeMismatch);
}

TEST_F(UpdateByIdTest, SetOfTheSameValueModifiesNothing) {
  Insert(R"({"_id": 1, "a": "x", "b": 1})");
  ExpectCounts(Update(R"({"_id": 1})", R"({"$set": {"a": "x"}})"), 1, 0);
  ExpectCounts(Update(R"({"_id": 1})", R"({"$inc": {"b": 0}})"), 1, 0);
  // The same number of another type is a change (MongoDB compares bytes).
  ExpectCounts(Update(R"({"_id": 1})", R"({"$set": {"b": {"$numberLong": "1"}}})"), 1, 1);
  EXPECT_EQ(Find(R"({"_id": 1})"), Canonical(R"({"_id": 1, "a": "x", "b": {"$numberLong": "1"}})"));
}

TEST_F(UpdateByIdTest, SetGrowsAndShrinksTheDocumentInPlaceKeepingFieldOrder) {
  Insert(R"({"_id": 1, "a": "short", "b": 2, "c": "tail"})");
  const std::string big(300, 'g');  // the document leaves libbson's inline buffer
  const std::string grow = R"({"$set": {"c": "t", "a": ")" + big + R"("}})";
  ExpectCounts(Update(R"({"_id": 1})", grow.c_str()), 1, 1);
  EXPECT_EQ(Find(R"({"_id": 1})"),
            Canonical((R"({"_id": 1, "a": ")" + big + R"(", "b": 2, "c": "t"})").c_str()));
  ExpectCounts(Update(R"({"_id": 1})", R"({"$set": {"a": "", "b": null}})"), 1, 1);
  EXPECT_EQ(Find(R"({"_id": 1})"), Canonical(R"({"_id": 1, "a": "", "b": null, "c": "t"})"));
}

TEST_F(UpdateByIdTest, ResultsOverSixteenMebibytesAreRefusedAndAtTheLimitStored) {
  constexpr size_t kLimit = 16 * 1024 * 1024;
  // {_id: 1, s: "<n bytes>"}: 4 + (1 + 4 + 4) + (1 + 2 + 4 + n + 1) + 1 bytes.
  const size_t overhead = 4 + 9 + 8 + 1;
  BsonDoc doc;
  BSON_APPEND_INT32(doc.mutable_get(), "_id", 1);
  const std::string filler(kLimit - overhead - 100, 'f');
  BSON_APPEND_UTF8(doc.mutable_get(), "s", filler.c_str());
  ASSERT_EQ(doc.size(), kLimit - 100);
  Insert(std::move(doc));
  // 100 bytes more: exactly 16 MiB, stored. {t: ""} is 1 + 2 + 4 + 1 bytes.
  const std::string to_limit = R"({"$set": {"t": ")" + std::string(100 - 8, 't') + R"("}})";
  ExpectCounts(Update(R"({"_id": 1})", to_limit.c_str()), 1, 1);
  // One byte more is error 17419, and the stored document stays as it was.
  const std::string over = R"({"$set": {"t": ")" + std::string(100 - 8 + 1, 't') + R"("}})";
  auto r = Update(R"({"_id": 1})", over.c_str());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code_number(), 17419);
  EXPECT_EQ(r.status().reason(), "Resulting document after update is larger than 16777216");
  ExpectCounts(Update(R"({"_id": 1})", to_limit.c_str()), 1, 0);
}

TEST_F(UpdateByIdTest, MatchesAnIdStoredAsAnotherNumericType) {
  Insert(R"({"_id": 1.0, "a": 1})");
  ExpectCounts(Update(R"({"_id": {"$numberLong": "1"}})", R"({"$inc": {"a": 1}})"), 1, 1);
  ExpectCounts(Update(R"({"_id": 1})", R"({"$inc": {"a": 1}})"), 1, 1);
  EXPECT_EQ(Find(R"({"_id": 1})"), Canonical(R"({"_id": 1.0, "a": 3})"));
  ExpectCounts(Update(R"({"_id": 2})", R"({"$inc": {"a": 1}})"), 0, 0);
  ExpectCounts(Update(R"({"_id": "1"})", R"({"$inc": {"a": 1}})"), 0, 0);
}

TEST_F(UpdateByIdTest, UpsertInsertsTheFiltersIdOnceThenUpdates) {
  Insert(R"({"_id": 0})");  // the collection exists
  auto r = Update(R"({"_id": 7})", R"({"$inc": {"n": 1}, "$setOnInsert": {"s": 1}})", true);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r.value().matched, 1);
  EXPECT_EQ(r.value().modified, 0);
  ASSERT_TRUE(r.value().upserted_id.has_value());
  EXPECT_EQ(bson::ToShellString(r.value().upserted_id->get()), "{ : 7 }");
  EXPECT_EQ(Find(R"({"_id": 7})"), Canonical(R"({"_id": 7, "n": 1, "s": 1})"));
  ExpectCounts(Update(R"({"_id": 7})", R"({"$inc": {"n": 1}, "$setOnInsert": {"s": 2}})", true), 1,
               1);
  EXPECT_EQ(Find(R"({"_id": 7})"), Canonical(R"({"_id": 7, "n": 2, "s": 1})"));
}

TEST_F(UpdateByIdTest, PositionalOperatorHasNoArrayMatchFromAnIdFilter) {
  Insert(R"({"_id": 1, "a": [1, 2]})");
  auto r = Update(R"({"_id": 1})", R"({"$set": {"a.$": 5}})");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kBadValue);
  EXPECT_EQ(r.status().reason(), "The positional operator did not find the match needed from the query.");
  ExpectCounts(Update(R"({"_id": 1})", R"({"$set": {"a.$[]": 5}})"), 1, 1);
  EXPECT_EQ(Find(R"({"_id": 1})"), Canonical(R"({"_id": 1, "a": [5, 5]})"));
}

TEST_F(UpdateByIdTest, CollationStillComparesTheIdUnderIt) {
  Insert(R"({"_id": "abc", "n": 0})");
  const BsonDoc spec = BsonDoc::FromJson(R"({"locale": "en", "strength": 2})");
  StatusWith<const bson::Collator*> collator = collation::CollatorFor(spec.get());
  ASSERT_TRUE(collator.ok());
  UpdateStatement st;
  st.query = BsonDoc::FromJson(R"({"_id": "ABC"})");
  st.update = BsonDoc::FromJson(R"({"$inc": {"n": 1}})");
  st.collation = collator.value();
  ExpectCounts(engine_->Update("db", "c", st), 1, 1);
  // Without it, "ABC" is another _id.
  ExpectCounts(Update(R"({"_id": "ABC"})", R"({"$inc": {"n": 1}})"), 0, 0);
  EXPECT_EQ(Find(R"({"_id": "abc"})"), Canonical(R"({"_id": "abc", "n": 1})"));
}

TEST_F(UpdateByIdTest, ReplacementKeepsTheIdAndRefusesMulti) {
  Insert(R"({"_id": 1, "a": 1})");
  ExpectCounts(Update(R"({"_id": 1})", R"({"b": 2})"), 1, 1);
  EXPECT_EQ(Find(R"({"_id": 1})"), Canonical(R"({"_id": 1, "b": 2})"));
  auto r = Update(R"({"_id": 1})", R"({"b": 3})", false, /*multi=*/true);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kFailedToParse);
  EXPECT_EQ(r.status().reason(), "multi update is not supported for replacement-style update");
  r = Update(R"({"_id": 1})", R"({"_id": 2})");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kImmutableField);
}

TEST_F(UpdateByIdTest, UnusedArrayFiltersFailAsOnTheGeneralPath) {
  Insert(R"({"_id": 1, "a": 1})");
  UpdateStatement st;
  st.query = BsonDoc::FromJson(R"({"_id": 1})");
  st.update = BsonDoc::FromJson(R"({"$inc": {"a": 1}})");
  st.array_filters = BsonDoc::FromJson(R"({"0": {"x": 1}})");
  auto r = engine_->Update("db", "c", st);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kFailedToParse);
  EXPECT_EQ(r.status().reason(),
            "The array filter for identifier 'x' was not used in the update { $inc: { a: 1 } }");
}

}  // namespace
}  // namespace tigerdoc::engine
