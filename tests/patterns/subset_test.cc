// The subset pattern (patterns/subset): option parsing (codes naming the
// field), counter state (add/remove exactness, rendering, encoding), and
// the parent's top-N and counters kept through an in-memory engine at and
// around the limit (fewer children, exactly `limit`, more; ties; deletes
// and demotions pulling in the next; moves between parents; missing
// parents), the guard, and validate finding a damaged parent.

#include <gtest/gtest.h>

#include "engine/engine.h"
#include "engine/write/collection_writer.h"
#include "engine/write/pattern_registry.h"
#include "engine/write/write_unit.h"
#include "patterns/subset/subset_config.h"
#include "patterns/subset/subset_counters.h"
#include "engine/write/hook_runner.h"
#include "patterns/subset/subset_hook.h"
#include "patterns/subset/subset_pattern.h"
#include "patterns/subset/subset_resync.h"
#include "tests/patterns/pattern_engine.h"

namespace tigerdoc::patterns::subset {
namespace {

using bson::BsonDoc;

StatusWith<SubsetConfig> ParseJson(const std::string& json) {
  BsonDoc doc = BsonDoc::FromJson(R"({"subset": )" + json + "}");
  bson_iter_t it;
  bson_iter_init_find(&it, doc.get(), "subset");
  return SubsetConfig::Parse("create", &it, "reviews");
}

TEST(SubsetConfigTest, BadOptionsNameTheField) {
  struct Case {
    const char* option;
    ErrorCode code;
    const char* names;
  } cases[] = {
      {R"({"parent": "p", "localField": "x", "as": "a", "colour": 1})", ErrorCode::kLocation40415,
       "create.subset.colour"},
      {R"({"localField": "x", "as": "a"})", ErrorCode::kLocation40414, "create.subset.parent"},
      {R"({"parent": "p", "as": "a"})", ErrorCode::kLocation40414, "create.subset.localField"},
      {R"({"parent": "p", "localField": "x"})", ErrorCode::kLocation40414, "create.subset.as"},
      {R"({"parent": 1, "localField": "x", "as": "a"})", ErrorCode::kTypeMismatch, "create.subset.parent"},
      {R"({"parent": "reviews", "localField": "x", "as": "a"})", ErrorCode::kBadValue, "create.subset.parent"},
      {R"({"parent": "a$b", "localField": "x", "as": "a"})", ErrorCode::kBadValue, "create.subset.parent"},
      {R"({"parent": "p", "localField": "x.", "as": "a"})", ErrorCode::kFailedToParse, "create.subset.localField"},
      {R"({"parent": "p", "localField": "x", "as": "$a"})", ErrorCode::kFailedToParse, "create.subset.as"},
      {R"({"parent": "p", "localField": "x", "as": "a", "limit": 0})", ErrorCode::kBadValue, "create.subset.limit"},
      {R"({"parent": "p", "localField": "x", "as": "a", "limit": 1001})", ErrorCode::kBadValue, "create.subset.limit"},
      {R"({"parent": "p", "localField": "x", "as": "a", "limit": 1.5})", ErrorCode::kFailedToParse, "create.subset.limit"},
      {R"({"parent": "p", "localField": "x", "as": "a", "limit": "3"})", ErrorCode::kTypeMismatch, "create.subset.limit"},
      {R"({"parent": "p", "localField": "x", "as": "a", "sort": {}})", ErrorCode::kBadValue, "create.subset.sort"},
      {R"({"parent": "p", "localField": "x", "as": "a", "sort": {"h": 0}})", ErrorCode::kBadValue, "create.subset.sort.h"},
      {R"({"parent": "p", "localField": "x", "as": "a", "sort": {"h": "desc"}})", ErrorCode::kBadValue, "create.subset.sort.h"},
      {R"({"parent": "p", "localField": "x", "as": "a", "project": {"a": 1, "b": 0}})", ErrorCode::kFailedToParse, "create.subset.project"},
      {R"({"parent": "p", "localField": "x", "as": "a", "counters": {"n": 1}})", ErrorCode::kTypeMismatch, "create.subset.counters.n"},
      {R"({"parent": "p", "localField": "x", "as": "a", "counters": {"n": {"$min": "$r"}}})", ErrorCode::kFailedToParse, "create.subset.counters.n"},
      {R"({"parent": "p", "localField": "x", "as": "a", "counters": {"n": {"$avg": "r"}}})", ErrorCode::kFailedToParse, "create.subset.counters.n"},
      {R"({"parent": "p", "localField": "x", "as": "a", "counters": {"n": {"$sum": 1, "$avg": "$r"}}})", ErrorCode::kFailedToParse, "create.subset.counters.n"},
      {R"({"parent": "p", "localField": "x", "as": "a", "counters": {"a.n": {"$sum": 1}}})", ErrorCode::kBadValue, "create.subset.counters.a.n"},
      {R"({"parent": "p", "localField": "x", "as": "s.a", "counters": {"s": {"$sum": 1}}})", ErrorCode::kBadValue, "create.subset.counters.s"},
      {R"({"parent": "p", "localField": "x", "as": "_id.a"})", ErrorCode::kBadValue, "create.subset.as"},
      {R"({"parent": "p", "localField": "x", "foreignField": "sku", "as": "sku"})", ErrorCode::kBadValue, "create.subset.as"},
      {R"("products")", ErrorCode::kTypeMismatch, "create.subset"},
  };
  for (const Case& c : cases) {
    StatusWith<SubsetConfig> parsed = ParseJson(c.option);
    ASSERT_FALSE(parsed.ok()) << c.option;
    EXPECT_EQ(parsed.status().code(), c.code) << c.option << ": " << parsed.status().ToString();
    EXPECT_NE(parsed.status().reason().find(c.names), std::string::npos)
        << c.option << ": " << parsed.status().reason();
  }
}

TEST(SubsetConfigTest, CanonicalFormRoundTripsWithDefaults) {
  StatusWith<SubsetConfig> parsed = ParseJson(
      R"({"parent": "products", "localField": "productId", "as": "top", "sort": {"helpful": -1.0},
          "limit": 3.0, "counters": {"n": {"$sum": 1.0}, "avg": {"$avg": "$rating"}}})");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  const SubsetConfig& config = parsed.value();
  EXPECT_EQ(config.foreign_field(), "_id");
  EXPECT_EQ(config.limit(), 3);
  EXPECT_EQ(config.IndexKey().ToJson(), R"({ "productId" : 1, "helpful" : -1, "_id" : 1 })");
  EXPECT_EQ(config.SortWithId().ToJson(), R"({ "helpful" : -1, "_id" : 1 })");
  EXPECT_EQ(config.OwnedPaths(), (std::vector<std::string>{"top", "n", "avg"}));
  StatusWith<SubsetConfig> again = SubsetConfig::FromCanonical(config.ToCanonical().get(), "reviews");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again.value().ToCanonical().bytes(), config.ToCanonical().bytes());
  // Defaults: sort by _id, 10 kept.
  StatusWith<SubsetConfig> plain = ParseJson(R"({"parent": "p", "localField": "x", "as": "a"})");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain.value().limit(), 10);
  EXPECT_EQ(plain.value().IndexKey().ToJson(), R"({ "x" : 1, "_id" : 1 })");
}

TEST(SubsetConfigTest, OnlyChangesToShownOrCountedFieldsMatter) {
  StatusWith<SubsetConfig> parsed = ParseJson(
      R"({"parent": "p", "localField": "pid", "as": "top", "sort": {"h": -1},
          "project": {"title": 1}, "counters": {"avg": {"$avg": "$rating"}}})");
  ASSERT_TRUE(parsed.ok());
  const SubsetConfig& config = parsed.value();
  BsonDoc base = BsonDoc::FromJson(R"({"_id": 1, "pid": 1, "h": 2, "title": "t", "rating": 3, "body": "b"})");
  auto matters = [&](const std::string& other) {
    return config.ChildChangeMatters(base.get(), BsonDoc::FromJson(other).get());
  };
  EXPECT_FALSE(matters(R"({"_id": 1, "pid": 1, "h": 2, "title": "t", "rating": 3, "body": "changed"})"));
  EXPECT_TRUE(matters(R"({"_id": 1, "pid": 2, "h": 2, "title": "t", "rating": 3, "body": "b"})"));
  EXPECT_TRUE(matters(R"({"_id": 1, "pid": 1, "h": 3, "title": "t", "rating": 3, "body": "b"})"));
  EXPECT_TRUE(matters(R"({"_id": 1, "pid": 1, "h": 2, "title": "u", "rating": 3, "body": "b"})"));
  EXPECT_TRUE(matters(R"({"_id": 1, "pid": 1, "h": 2, "title": "t", "rating": 4, "body": "b"})"));
  EXPECT_TRUE(matters(R"({"_id": 1, "pid": 1, "h": 2, "title": "t", "body": "b"})"));
}

TEST(SubsetCountersTest, AddAndRemoveStayExactAndRender) {
  StatusWith<SubsetConfig> parsed = ParseJson(
      R"({"parent": "p", "localField": "pid", "as": "top", "counters": {
          "n": {"$sum": 1}, "twice": {"$sum": 2}, "half": {"$sum": 0.5}, "total": {"$sum": "$r"},
          "avg": {"$avg": "$r"}, "dist": {"$countByValue": "$r"}}})");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  const SubsetConfig& config = parsed.value();
  CounterState state(config.counters().size());
  EXPECT_TRUE(state.empty());
  auto render = [&] {
    BsonDoc out;
    state.Render(config, out.mutable_get());
    return out.ToJson();
  };
  EXPECT_EQ(render(),
            R"({ "n" : 0, "twice" : 0, "half" : 0.0, "total" : 0, "avg" : null, "dist" : {  } })");
  const char* children[] = {R"({"r": 2})", R"({"r": 10})", R"({"r": 2.5})", R"({"r": "x"})",
                            R"({"other": 1})", R"({"r": null})", R"({"r": 2.0})"};
  for (const char* c : children) state.Apply(config, BsonDoc::FromJson(c).get(), 1);
  EXPECT_FALSE(state.empty());
  // Numbers: 2, 10, 2.5, 2.0 (the string, missing and null are not summed).
  EXPECT_EQ(render(), R"({ "n" : 7, "twice" : 14, "half" : 3.5, "total" : 16.5, "avg" : 4.125, )"
                      R"("dist" : { "2" : 2, "2.5" : 1, "10" : 1, "x" : 1 } })");
  // Encoded and decoded, the state is the same.
  StatusWith<CounterState> decoded = CounterState::Decode(state.Encode(), config.counters().size());
  ASSERT_TRUE(decoded.ok());
  EXPECT_TRUE(decoded.value() == state);
  // Removing the doubles leaves exact integers again (no rounding left over).
  state.Apply(config, BsonDoc::FromJson(R"({"r": 2.5})").get(), -1);
  state.Apply(config, BsonDoc::FromJson(R"({"r": 2.0})").get(), -1);
  EXPECT_EQ(render(), R"({ "n" : 5, "twice" : 10, "half" : 2.5, "total" : 12, "avg" : 6.0, )"
                      R"("dist" : { "2" : 1, "10" : 1, "x" : 1 } })");
  for (const char* c : {R"({"r": 2})", R"({"r": 10})", R"({"r": "x"})", R"({"other": 1})",
                        R"({"r": null})"}) {
    state.Apply(config, BsonDoc::FromJson(c).get(), -1);
  }
  EXPECT_TRUE(state.empty());
  EXPECT_EQ(render(),
            R"({ "n" : 0, "twice" : 0, "half" : 0.0, "total" : 0, "avg" : null, "dist" : {  } })");
}

// Through the engine: products/reviews with limit 2.
class SubsetEngineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    engine_ = pattern_testing::OpenEngineWith(MakeSubsetPattern());
    ASSERT_NE(engine_, nullptr);
    ASSERT_TRUE(Insert("products", R"({"_id": 1, "name": "a"})").ok());
    ASSERT_TRUE(Insert("products", R"({"_id": 2, "name": "b"})").ok());
    ASSERT_TRUE(engine_
                    ->CreateCollection(pattern_testing::CreateIn(
                        "reviews",
                        R"({"subset": {"parent": "products", "localField": "pid", "as": "s.top",
                            "sort": {"h": -1}, "limit": 2, "project": {"h": 1},
                            "counters": {"s.n": {"$sum": 1}, "s.avg": {"$avg": "$r"}}}})"))
                    .ok());
  }

  Status Insert(const std::string& coll, const std::string& json) {
    std::vector<BsonDoc> docs;
    docs.push_back(BsonDoc::FromJson(json));
    auto results = engine_->InsertMany("db", coll, std::move(docs), true);
    if (!results.ok()) return results.status();
    return results.value()[0];
  }
  Status Update(const std::string& coll, const std::string& query, const std::string& update) {
    engine::UpdateStatement statement;
    statement.query = BsonDoc::FromJson(query);
    statement.update = BsonDoc::FromJson(update);
    return engine_->Update("db", coll, statement).status();
  }
  void Delete(const std::string& query) {
    engine::DeleteStatement statement;
    statement.query = BsonDoc::FromJson(query);
    ASSERT_TRUE(engine_->Delete("db", "reviews", statement).ok());
  }
  // The product's summary `s` as JSON ("" when it has none).
  std::string Summary(int id) {
    engine::FindParams find;
    find.db = "db";
    find.coll = "products";
    find.filter = BsonDoc::FromJson(R"({"_id": )" + std::to_string(id) + "}");
    find.projection = BsonDoc::FromJson(R"({"_id": 0, "s": 1})");
    auto batch = engine_->Find(find);
    EXPECT_TRUE(batch.ok());
    if (!batch.ok() || batch.value().docs.empty()) return "none";
    return batch.value().docs[0].ToJson();
  }
  std::vector<std::string> Validate() {
    std::vector<std::string> problems;
    EXPECT_TRUE(engine_->ValidatePatterns(*engine_->catalog().Lookup("db.reviews"), &problems).ok());
    return problems;
  }

  std::unique_ptr<engine::Engine> engine_;
};

TEST_F(SubsetEngineTest, TopNBelowAtAndAboveTheLimitWithTies) {
  EXPECT_EQ(Summary(1), "{ }");  // no child yet: left alone
  ASSERT_TRUE(Insert("reviews", R"({"_id": 10, "pid": 1, "h": 5, "r": 4})").ok());
  EXPECT_EQ(Summary(1), R"({ "s" : { "avg" : 4.0, "n" : 1, "top" : [ { "_id" : 10, "h" : 5 } ] } })");
  ASSERT_TRUE(Insert("reviews", R"({"_id": 11, "pid": 1, "h": 7, "r": 1})").ok());
  EXPECT_EQ(Summary(1), R"({ "s" : { "avg" : 2.5, "n" : 2, "top" : [ { "_id" : 11, "h" : 7 }, { "_id" : 10, "h" : 5 } ] } })");
  // Above the limit: a worse child is counted, not embedded.
  ASSERT_TRUE(Insert("reviews", R"({"_id": 12, "pid": 1, "h": 1, "r": 1})").ok());
  EXPECT_EQ(Summary(1), R"({ "s" : { "avg" : 2.0, "n" : 3, "top" : [ { "_id" : 11, "h" : 7 }, { "_id" : 10, "h" : 5 } ] } })");
  // A tie with the last embedded one: the smaller _id wins.
  ASSERT_TRUE(Insert("reviews", R"({"_id": 9, "pid": 1, "h": 5, "r": 2})").ok());
  EXPECT_EQ(Summary(1), R"({ "s" : { "avg" : 2.0, "n" : 4, "top" : [ { "_id" : 11, "h" : 7 }, { "_id" : 9, "h" : 5 } ] } })");
  // Delete of an embedded child pulls in the next; demotion too.
  Delete(R"({"_id": 11})");
  EXPECT_EQ(Summary(1), R"({ "s" : { "avg" : 2.3333333333333334814, "n" : 3, "top" : [ { "_id" : 9, "h" : 5 }, { "_id" : 10, "h" : 5 } ] } })");
  ASSERT_TRUE(Update("reviews", R"({"_id": 9})", R"({"$set": {"h": 0}})").ok());
  EXPECT_EQ(Summary(1), R"({ "s" : { "avg" : 2.3333333333333334814, "n" : 3, "top" : [ { "_id" : 10, "h" : 5 }, { "_id" : 12, "h" : 1 } ] } })");
  // Moving a child to another parent changes both.
  ASSERT_TRUE(Update("reviews", R"({"_id": 10})", R"({"$set": {"pid": 2}})").ok());
  EXPECT_EQ(Summary(1), R"({ "s" : { "avg" : 1.5, "n" : 2, "top" : [ { "_id" : 12, "h" : 1 }, { "_id" : 9, "h" : 0 } ] } })");
  EXPECT_EQ(Summary(2), R"({ "s" : { "avg" : 4.0, "n" : 1, "top" : [ { "_id" : 10, "h" : 5 } ] } })");
  // The last child gone: an empty subset and zero counts.
  Delete(R"({"pid": 2})");
  EXPECT_EQ(Summary(2), R"({ "s" : { "avg" : null, "n" : 0, "top" : [  ] } })");
  EXPECT_TRUE(Validate().empty());
}

TEST_F(SubsetEngineTest, MissingParentIsLeftAloneAndCountersStayExact) {
  ASSERT_TRUE(Insert("reviews", R"({"_id": 1, "pid": 3, "h": 1, "r": 5})").ok());
  ASSERT_TRUE(Insert("reviews", R"({"_id": 2, "h": 1, "r": 5})").ok());  // no parent key
  EXPECT_EQ(Summary(3), "none");
  EXPECT_FALSE(engine_->catalog().Lookup("db.products") == nullptr);
  // An array key is refused: a child has one parent.
  EXPECT_EQ(Insert("reviews", R"({"_id": 3, "pid": [1, 2], "h": 1})").code(), ErrorCode::kBadValue);
  // The parent appears later: the next child write brings it up to date,
  // counting the child written before it existed.
  ASSERT_TRUE(Insert("products", R"({"_id": 3})").ok());
  ASSERT_TRUE(Insert("reviews", R"({"_id": 4, "pid": 3, "h": 2, "r": 3})").ok());
  EXPECT_EQ(Summary(3), R"({ "s" : { "avg" : 4.0, "n" : 2, "top" : [ { "_id" : 4, "h" : 2 }, { "_id" : 1, "h" : 1 } ] } })");
  EXPECT_TRUE(Validate().empty());
}

TEST_F(SubsetEngineTest, GuardRefusesDirectWritesAndValidateFindsDamage) {
  ASSERT_TRUE(Insert("reviews", R"({"_id": 1, "pid": 1, "h": 1, "r": 5})").ok());
  Status refused = Update("products", R"({"_id": 1})", R"({"$set": {"s.n": 5}})");
  EXPECT_EQ(refused.code(), ErrorCode::kImmutableField);
  EXPECT_NE(refused.reason().find("'s.n'"), std::string::npos) << refused.reason();
  EXPECT_NE(refused.reason().find("subset option of db.reviews"), std::string::npos);
  EXPECT_EQ(Update("products", R"({"_id": 1})", R"({"$set": {"s.top": []}})").code(),
            ErrorCode::kImmutableField);
  EXPECT_TRUE(Update("products", R"({"_id": 1})", R"({"$set": {"name": "z", "s.other": 1}})").ok());
  EXPECT_EQ(Insert("products", R"({"_id": 5, "s": {"n": 1}})").code(), ErrorCode::kImmutableField);
  // A write made as the subset passes the guard: damage the parent that way
  // and validate reports it.
  auto products = engine_->catalog().Lookup("db.products");
  storage::Session session = engine_->storage().NewSession();
  {
    engine::CollectionWriter writer(engine_->catalog(), *products);
    writer.SetOrigin("subset db.reviews");
    ASSERT_TRUE(engine::RunWriteUnit(session, [&]() -> Status {
                  bson_iter_t it;
                  BsonDoc id = BsonDoc::FromJson(R"({"v": 1})");
                  bson_iter_init(&it, id.get());
                  bson_iter_next(&it);
                  auto current = products->store->FindById(session, bson_iter_value(&it));
                  if (!current.ok()) return current.status();
                  return writer.Update(session, current.value()->get(),
                                       BsonDoc::FromJson(R"({"_id": 1, "s": {"n": 9}})").get());
                }).ok());
  }
  std::vector<std::string> problems = Validate();
  ASSERT_EQ(problems.size(), 3u);  // top, n and avg
  EXPECT_NE(problems[1].find("'s.n' is 9 but the children in db.reviews give 1"), std::string::npos)
      << problems[1];
  // resyncSubset repairs it.
  auto resync = engine_->RunPatternCommand("resyncSubset", "db",
                                           BsonDoc::FromJson(R"({"resyncSubset": "reviews"})").get());
  ASSERT_TRUE(resync.ok()) << resync.status().ToString();
  EXPECT_TRUE(Validate().empty());
}

TEST_F(SubsetEngineTest, ResyncGoesInBatchesReportsProgressAndStopsWhenAsked) {
  for (int p = 3; p <= 7; ++p) {
    ASSERT_TRUE(Insert("products", R"({"_id": )" + std::to_string(p) + "}").ok());
  }
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE(Insert("reviews", R"({"_id": )" + std::to_string(i) + R"(, "pid": )" +
                                      std::to_string(1 + i % 7) + R"(, "h": )" + std::to_string(i) +
                                      R"(, "r": 3})").ok());
  }
  auto child = engine_->catalog().Lookup("db.reviews");
  std::shared_ptr<SubsetHook> hook;
  for (const auto& named : engine::HookRunner::Of(*child->patterns())->hooks()) {
    hook = std::dynamic_pointer_cast<SubsetHook>(named.hook);
  }
  ASSERT_NE(hook, nullptr);
  std::vector<int64_t> seen;
  ResyncProgress progress;
  ASSERT_TRUE(ResyncParents(engine_->catalog(), engine_->storage(), child, *hook, nullptr, 3,
                            [&](const ResyncProgress& p) {
                              seen.push_back(p.parents_matched);
                              return Status::OK();
                            },
                            &progress)
                  .ok());
  EXPECT_EQ(seen, (std::vector<int64_t>{3, 6, 7}));  // 7 products in batches of 3
  EXPECT_EQ(progress.batches, 3);
  EXPECT_EQ(progress.parents_updated, 7);
  EXPECT_TRUE(Validate().empty());
  // A progress callback that says stop (killOp) ends it after that batch.
  Status stopped = ResyncParents(engine_->catalog(), engine_->storage(), child, *hook, nullptr, 2,
                                 [](const ResyncProgress&) {
                                   return Status(ErrorCode::kInterruptedAtShutdown, "interrupted at shutdown");
                                 },
                                 &progress);
  EXPECT_EQ(stopped.code(), ErrorCode::kInterruptedAtShutdown);
  EXPECT_EQ(progress.batches, 1);
  EXPECT_EQ(progress.parents_matched, 2);
}

}  // namespace
}  // namespace tigerdoc::patterns::subset
