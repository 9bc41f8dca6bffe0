// The outlier pattern (patterns/outlier): option parsing and collMod rules,
// the routing of operator updates (update_routing.h), and the layout of a
// parent and its overflow chunks on every write path, on an in-memory
// engine (limits below, at and above threshold and chunk).

#include <gtest/gtest.h>

#include <numeric>

#include "engine/engine.h"
#include "engine/write/pattern_registry.h"
#include "patterns/outlier/outlier_config.h"
#include "patterns/outlier/outlier_pattern.h"
#include "patterns/outlier/update_routing.h"
#include "tests/patterns/pattern_engine.h"

namespace tigerdoc::patterns::outlier {
namespace {

using bson::BsonDoc;

// ---- config -------------------------------------------------------------

class OutlierConfigTest : public ::testing::Test {
 protected:
  StatusWith<OutlierConfig> Parse(const std::string& json) {
    doc_ = BsonDoc::FromJson(json);
    bson_iter_t it;
    EXPECT_TRUE(bson_iter_init_find(&it, doc_.get(), "outlier"));
    return OutlierConfig::Parse("create", &it);
  }
  BsonDoc doc_;
};

TEST_F(OutlierConfigTest, DefaultsAndCanonicalRoundTrip) {
  auto parsed = Parse(R"({"outlier": {"path": "customers", "threshold": 1000, "overflow": "o"}})");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed.value().flag, "isOutlier");
  EXPECT_EQ(parsed.value().chunk, 1000);
  EXPECT_TRUE(parsed.value().count_field.empty());
  BsonDoc canonical = parsed.value().ToCanonical();
  auto again = OutlierConfig::FromCanonical(canonical.get());
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again.value().ToCanonical().bytes(), canonical.bytes());
  // Whole doubles are numbers like any other.
  parsed = Parse(R"({"outlier": {"path": "c", "threshold": 5.0, "overflow": "o", "chunk": 1,
                     "flag": "hasExtras", "countField": "n", "view": "v"}})");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed.value().threshold, 5);
  EXPECT_EQ(parsed.value().chunk, 1);
}

TEST_F(OutlierConfigTest, BadOptionsNameTheField) {
  struct Case {
    const char* json;
    ErrorCode code;
    const char* names;
  } cases[] = {
      {R"({"outlier": "customers"})", ErrorCode::kTypeMismatch, "create.outlier'"},
      {R"({"outlier": {"threshold": 3, "overflow": "o"}})", ErrorCode::kLocation40414, "create.outlier.path"},
      {R"({"outlier": {"path": "c", "overflow": "o"}})", ErrorCode::kLocation40414, "create.outlier.threshold"},
      {R"({"outlier": {"path": "c", "threshold": 3}})", ErrorCode::kLocation40414, "create.outlier.overflow"},
      {R"({"outlier": {"path": "c", "threshold": 3, "overflow": "o", "treshold": 1}})",
       ErrorCode::kLocation40415, "create.outlier.treshold"},
      {R"({"outlier": {"path": "c", "threshold": 0, "overflow": "o"}})", ErrorCode::kBadValue, "create.outlier.threshold"},
      {R"({"outlier": {"path": "c", "threshold": -1, "overflow": "o"}})", ErrorCode::kBadValue, "create.outlier.threshold"},
      {R"({"outlier": {"path": "c", "threshold": 1000001, "overflow": "o"}})", ErrorCode::kBadValue, "create.outlier.threshold"},
      {R"({"outlier": {"path": "c", "threshold": 1.5, "overflow": "o"}})", ErrorCode::kFailedToParse, "create.outlier.threshold"},
      {R"({"outlier": {"path": "c", "threshold": "3", "overflow": "o"}})", ErrorCode::kTypeMismatch, "create.outlier.threshold"},
      {R"({"outlier": {"path": "c", "threshold": 3, "overflow": "o", "chunk": 0}})", ErrorCode::kBadValue, "create.outlier.chunk"},
      {R"({"outlier": {"path": "a.b", "threshold": 3, "overflow": "o"}})", ErrorCode::kBadValue, "create.outlier.path"},
      {R"({"outlier": {"path": "$c", "threshold": 3, "overflow": "o"}})", ErrorCode::kBadValue, "create.outlier.path"},
      {R"({"outlier": {"path": "_id", "threshold": 3, "overflow": "o"}})", ErrorCode::kBadValue, "create.outlier.path"},
      {R"({"outlier": {"path": 1, "threshold": 3, "overflow": "o"}})", ErrorCode::kTypeMismatch, "create.outlier.path"},
      {R"({"outlier": {"path": "c", "threshold": 3, "overflow": ""}})", ErrorCode::kBadValue, "create.outlier.overflow"},
      {R"({"outlier": {"path": "c", "threshold": 3, "overflow": "a$b"}})", ErrorCode::kBadValue, "create.outlier.overflow"},
      {R"({"outlier": {"path": "c", "threshold": 3, "overflow": "o", "flag": "c"}})", ErrorCode::kBadValue, "create.outlier.flag"},
      {R"({"outlier": {"path": "c", "threshold": 3, "overflow": "o", "countField": "isOutlier"}})",
       ErrorCode::kBadValue, "create.outlier.countField"},
      {R"({"outlier": {"path": "c", "threshold": 3, "overflow": "o", "countField": "n", "view": "o"}})", ErrorCode::kBadValue, "create.outlier.view"},
      {R"({"outlier": {"path": "c", "threshold": 3, "overflow": "o", "view": "v"}})", ErrorCode::kBadValue, "create.outlier.view"},
  };
  for (const Case& c : cases) {
    auto parsed = Parse(c.json);
    ASSERT_FALSE(parsed.ok()) << c.json;
    EXPECT_EQ(parsed.status().code(), c.code) << c.json << " -> " << parsed.status().ToString();
    EXPECT_NE(parsed.status().reason().find(c.names), std::string::npos) << parsed.status().ToString();
  }
}

// ---- routing ------------------------------------------------------------

StatusWith<ArrayChange> Classify(const std::string& json) {
  BsonDoc update = BsonDoc::FromJson(json);
  return ClassifyUpdate(update.get(), "customers");
}

TEST(OutlierRoutingTest, RoutableUpdatesAndTheirChange) {
  struct Case {
    const char* update;
    ArrayChange change;
  } cases[] = {
      {R"({"$set": {"title": "x"}, "$inc": {"n": 1}})", ArrayChange::kNone},
      {R"({"$set": {"customersX": 1, "other.customers": 2}})", ArrayChange::kNone},
      {R"({"$push": {"customers": 1}})", ArrayChange::kAppend},
      {R"({"$push": {"customers": {"$each": [1, 2]}}})", ArrayChange::kAppend},
      {R"({"$push": {"customers": {"name": "a", "$each": 1}}})", ArrayChange::kAppend},
      {R"({"$addToSet": {"customers": {"$each": [1]}}})", ArrayChange::kAddToSet},
      {R"({"$addToSet": {"customers": {"a": 1}}})", ArrayChange::kAddToSet},
      {R"({"$pull": {"customers": {"$gt": 3}}})", ArrayChange::kPull},
      {R"({"$pullAll": {"customers": [1, 2]}})", ArrayChange::kPull},
      {R"({"$set": {"customers": []}})", ArrayChange::kReplace},
      {R"({"$unset": {"customers": ""}})", ArrayChange::kReplace},
      {R"({"$setOnInsert": {"customers": [1]}})", ArrayChange::kNone},
  };
  for (const Case& c : cases) {
    auto change = Classify(c.update);
    ASSERT_TRUE(change.ok()) << c.update << " -> " << change.status().ToString();
    EXPECT_EQ(change.value(), c.change) << c.update;
  }
}

TEST(OutlierRoutingTest, UnroutableUpdatesAreRefusedNamingOperatorAndField) {
  struct Case {
    const char* update;
    const char* names;
  } cases[] = {
      {R"({"$set": {"customers.5": 1}})", "$set to 'customers.5'"},
      {R"({"$unset": {"customers.0": 1}})", "$unset to 'customers.0'"},
      {R"({"$set": {"customers.$": 1}})", "$set to 'customers.$'"},
      {R"({"$set": {"customers.$[].name": 1}})", "$set to 'customers.$[].name'"},
      {R"({"$inc": {"customers.$[x].n": 1}})", "$inc to 'customers.$[x].n'"},
      {R"({"$pop": {"customers": 1}})", "$pop to 'customers'"},
      {R"({"$push": {"customers": {"$each": [1], "$sort": 1}}})", "$push with $sort"},
      {R"({"$push": {"customers": {"$each": [1], "$slice": -3}}})", "$push with $slice"},
      {R"({"$push": {"customers": {"$each": [1], "$position": 0}}})", "$push with $position"},
      {R"({"$rename": {"customers": "c2"}})", "$rename to 'customers'"},
      {R"({"$rename": {"other": "customers"}})", "'other' to 'customers'"},
      {R"({"$max": {"customers": [9]}})", "$max to 'customers'"},
      {R"({"$currentDate": {"customers": true}})", "$currentDate to 'customers'"},
  };
  for (const Case& c : cases) {
    auto change = Classify(c.update);
    ASSERT_FALSE(change.ok()) << c.update;
    EXPECT_EQ(change.status().code(), ErrorCode::kInvalidOptions) << c.update;
    EXPECT_NE(change.status().reason().find(c.names), std::string::npos)
        << change.status().reason();
  }
}

TEST(OutlierRoutingTest, PullForChunkKeepsTheConditionOnItems) {
  BsonDoc update = BsonDoc::FromJson(
      R"({"$pull": {"customers": {"$in": [1, 2]}, "other": 3}, "$set": {"a": 1}})");
  EXPECT_EQ(PullForChunk(update.get(), "customers").ToJson(),
            R"({ "$pull" : { "items" : { "$in" : [ 1, 2 ] } } })");
  update = BsonDoc::FromJson(R"({"$pullAll": {"customers": [4]}})");
  EXPECT_EQ(PullForChunk(update.get(), "customers").ToJson(), R"({ "$pullAll" : { "items" : [ 4 ] } })");
}

// ---- the pattern on an engine ---------------------------------------------

class OutlierEngineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    engine_ = pattern_testing::OpenEngineWith(MakeOutlierPattern());
    ASSERT_NE(engine_, nullptr);
  }

  Status Create(const std::string& name, const std::string& options) {
    return engine_->CreateCollection(pattern_testing::CreateIn(name, options));
  }
  // threshold 3, chunk 2: small enough to cross every boundary.
  void CreateBooks() {
    ASSERT_TRUE(Create("books", R"({"outlier": {"path": "c", "threshold": 3, "overflow": "ov",
                                     "chunk": 2, "flag": "big", "countField": "n"}})").ok());
  }
  Status Insert(const std::string& json) {
    std::vector<BsonDoc> docs;
    docs.push_back(BsonDoc::FromJson(json));
    auto results = engine_->InsertMany("db", "books", std::move(docs), true);
    if (!results.ok()) return results.status();
    return results.value()[0];
  }
  StatusWith<engine::UpdateResult> Update(int id, const std::string& update) {
    engine::UpdateStatement statement;
    statement.query = BsonDoc::FromJson("{\"_id\": " + std::to_string(id) + "}");
    statement.update = BsonDoc::FromJson(update);
    return engine_->Update("db", "books", statement);
  }
  std::vector<BsonDoc> Find(const std::string& coll, const std::string& filter,
                            const std::string& sort = "{}") {
    engine::FindParams find;
    find.db = "db";
    find.coll = coll;
    find.filter = BsonDoc::FromJson(filter);
    find.sort = BsonDoc::FromJson(sort);
    find.batch_size = 100000;
    auto batch = engine_->Find(find);
    EXPECT_TRUE(batch.ok()) << batch.status().ToString();
    return batch.ok() ? std::move(batch.value().docs) : std::vector<BsonDoc>();
  }
  static std::vector<int> Ints(const bson_t* doc, const char* field) {
    std::vector<int> out;
    bson_iter_t it, child;
    if (!bson_iter_init_find(&it, doc, field) || !BSON_ITER_HOLDS_ARRAY(&it)) return out;
    bson_iter_recurse(&it, &child);
    while (bson_iter_next(&child)) out.push_back(bson_iter_int32(&child));
    return out;
  }
  struct Book {
    std::vector<int> embedded;
    std::vector<std::vector<int>> chunks;
    bool flagged = false;
    int64_t count = -1;
    std::vector<int> Whole() const {
      std::vector<int> all = embedded;
      for (const auto& c : chunks) all.insert(all.end(), c.begin(), c.end());
      return all;
    }
  };
  Book Read(int id) {
    Book book;
    auto parents = Find("books", "{\"_id\": " + std::to_string(id) + "}");
    EXPECT_EQ(parents.size(), 1u);
    if (parents.empty()) return book;
    book.embedded = Ints(parents[0].get(), "c");
    bson_iter_t it;
    book.flagged = bson_iter_init_find(&it, parents[0].get(), "big") && bson_iter_bool(&it);
    if (bson_iter_init_find(&it, parents[0].get(), "n")) book.count = bson_iter_as_int64(&it);
    for (const BsonDoc& chunk :
         Find("ov", "{\"parentId\": " + std::to_string(id) + "}", R"({"seq": 1})")) {
      book.chunks.push_back(Ints(chunk.get(), "items"));
    }
    return book;
  }
  std::string Stats() {
    auto stats = engine_->PatternStats(*engine_->catalog().Lookup("db.books"));
    EXPECT_TRUE(stats.ok());
    return stats.value().ToJson();
  }
  std::vector<std::string> Recount() {
    std::vector<std::string> problems;
    EXPECT_TRUE(engine_->ValidatePatterns(*engine_->catalog().Lookup("db.books"), &problems).ok());
    return problems;
  }
  static std::vector<int> Range(int from, int to) {
    std::vector<int> out(static_cast<size_t>(to - from));
    std::iota(out.begin(), out.end(), from);
    return out;
  }
  static std::string Json(const std::vector<int>& v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
    return s + "]";
  }

  std::unique_ptr<engine::Engine> engine_;
};

TEST_F(OutlierEngineTest, OverflowMustNotBeTheCollectionAndCollModKeepsLayoutFields) {
  Status status = Create("books", R"({"outlier": {"path": "c", "threshold": 3, "overflow": "books"}})");
  EXPECT_EQ(status.code(), ErrorCode::kBadValue) << status.ToString();
  EXPECT_NE(status.reason().find("create.outlier.overflow"), std::string::npos);
  CreateBooks();
  BsonDoc change = BsonDoc::FromJson(
      R"({"outlier": {"path": "d", "threshold": 3, "overflow": "ov", "chunk": 2, "flag": "big", "countField": "n"}})");
  status = engine_->ModifyPatterns("db", "books", change.get());
  EXPECT_EQ(status.code(), ErrorCode::kBadValue);
  EXPECT_NE(status.reason().find("collMod.outlier.path"), std::string::npos) << status.ToString();
  change = BsonDoc::FromJson(
      R"({"outlier": {"path": "c", "threshold": 4, "overflow": "ov", "chunk": 2, "flag": "big", "countField": "n"}})");
  EXPECT_TRUE(engine_->ModifyPatterns("db", "books", change.get()).ok());
}

TEST_F(OutlierEngineTest, InsertBelowAtAndAboveThresholdAndChunk) {
  CreateBooks();
  // n items: 3 fit (at threshold); 4 = one chunk of 1; 5 = one full chunk; 6 = two chunks.
  for (int n = 0; n <= 8; ++n) {
    ASSERT_TRUE(Insert("{\"_id\": " + std::to_string(n) + ", \"c\": " + Json(Range(0, n)) + "}").ok());
    Book book = Read(n);
    EXPECT_EQ(book.Whole(), Range(0, n)) << n;
    EXPECT_EQ(book.embedded.size(), static_cast<size_t>(std::min(n, 3))) << n;
    EXPECT_EQ(book.flagged, n > 3) << n;
    EXPECT_EQ(book.count, n);
    EXPECT_EQ(book.chunks.size(), static_cast<size_t>(n > 3 ? (n - 3 + 1) / 2 : 0)) << n;
    for (size_t i = 0; i + 1 < book.chunks.size(); ++i) EXPECT_EQ(book.chunks[i].size(), 2u);
  }
  // Flagged: 4..8 (5 documents); chunks 1+1+2+2+3 = 9.
  EXPECT_NE(Stats().find(R"("flaggedDocuments" : 5, "overflowDocuments" : 9)"), std::string::npos)
      << Stats();
  EXPECT_TRUE(Recount().empty());
}

TEST_F(OutlierEngineTest, PushesOneByOneAndInBatchesKeepTheWholeArrayInOrder) {
  CreateBooks();
  ASSERT_TRUE(Insert(R"({"_id": 1, "c": []})").ok());
  std::vector<int> expected;
  int next = 0;
  for (int batch : {1, 1, 1, 1, 2, 3, 1, 7, 0, 4}) {
    std::vector<int> items = Range(next, next + batch);
    next += batch;
    auto result = Update(1, "{\"$push\": {\"c\": {\"$each\": " + Json(items) + "}}}");
    ASSERT_TRUE(result.ok()) << result.status().ToString();
    expected.insert(expected.end(), items.begin(), items.end());
    Book book = Read(1);
    ASSERT_EQ(book.Whole(), expected) << "after " << expected.size();
    EXPECT_EQ(book.count, static_cast<int64_t>(expected.size()));
    EXPECT_EQ(book.flagged, expected.size() > 3);
  }
  EXPECT_TRUE(Recount().empty());
}

TEST_F(OutlierEngineTest, PushesWithoutCountFieldReadTheChunksInstead) {
  ASSERT_TRUE(Create("books", R"({"outlier": {"path": "c", "threshold": 3, "overflow": "ov",
                                   "chunk": 2, "flag": "big"}})").ok());
  ASSERT_TRUE(Insert(R"({"_id": 1, "c": [0]})").ok());
  for (int i = 1; i < 12; ++i) {
    ASSERT_TRUE(Update(1, "{\"$push\": {\"c\": " + std::to_string(i) + "}}").ok());
    Book book = Read(1);
    ASSERT_EQ(book.Whole(), Range(0, i + 1));
    EXPECT_EQ(book.count, -1);
    EXPECT_EQ(book.flagged, i + 1 > 3);
  }
  EXPECT_TRUE(Recount().empty());
}

TEST_F(OutlierEngineTest, AddToSetSkipsItemsInEitherPart) {
  CreateBooks();
  ASSERT_TRUE(Insert(R"({"_id": 1, "c": [0, 1, 2, 3, 4, 5]})").ok());
  auto result = Update(1, R"({"$addToSet": {"c": {"$each": [1, 4, 6, 6, 5, 7]}}})");
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(Read(1).Whole(), Range(0, 8));
  // Everything already there: nothing changes.
  result = Update(1, R"({"$addToSet": {"c": 7}})");
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result.value().modified, 0);
  EXPECT_EQ(Read(1).Whole(), Range(0, 8));
}

TEST_F(OutlierEngineTest, PullFromBothPartsRefillsTheEmbeddedPartAndClearsTheFlag) {
  CreateBooks();
  ASSERT_TRUE(Insert(R"({"_id": 1, "c": [0, 1, 2, 3, 4, 5, 6, 7, 8]})").ok());
  // Only in overflow: the embedded part is unchanged, the engine still writes.
  auto result = Update(1, R"({"$pull": {"c": {"$in": [4, 7]}}})");
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result.value().modified, 1);
  Book book = Read(1);
  EXPECT_EQ(book.Whole(), (std::vector<int>{0, 1, 2, 3, 5, 6, 8}));
  EXPECT_EQ(book.chunks, (std::vector<std::vector<int>>{{3, 5}, {6, 8}}));
  // From the embedded part: refilled from the chunks.
  ASSERT_TRUE(Update(1, R"({"$pullAll": {"c": [0, 1]}})").ok());
  book = Read(1);
  EXPECT_EQ(book.embedded, (std::vector<int>{2, 3, 5}));
  EXPECT_EQ(book.chunks, (std::vector<std::vector<int>>{{6, 8}}));
  EXPECT_TRUE(book.flagged);
  // Nothing matches anywhere: not modified.
  result = Update(1, R"({"$pull": {"c": 99}})");
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result.value().modified, 0);
  // Down to the threshold: chunks go, flag goes.
  ASSERT_TRUE(Update(1, R"({"$pull": {"c": {"$gte": 8}}})").ok());
  book = Read(1);
  EXPECT_EQ(book.Whole(), (std::vector<int>{2, 3, 5, 6}));
  ASSERT_TRUE(Update(1, R"({"$pull": {"c": 2}})").ok());
  book = Read(1);
  EXPECT_EQ(book.embedded, (std::vector<int>{3, 5, 6}));
  EXPECT_TRUE(book.chunks.empty());
  EXPECT_FALSE(book.flagged);
  EXPECT_EQ(book.count, 3);
  EXPECT_NE(Stats().find(R"("flaggedDocuments" : 0, "overflowDocuments" : 0)"), std::string::npos)
      << Stats();
  EXPECT_TRUE(Recount().empty());
}

TEST_F(OutlierEngineTest, UnroutableUpdatesOnFlaggedDocumentsChangeNothing) {
  CreateBooks();
  ASSERT_TRUE(Insert(R"({"_id": 1, "c": [0, 1, 2, 3, 4]})").ok());
  ASSERT_TRUE(Insert(R"({"_id": 2, "c": [0, 1]})").ok());
  for (const char* update : {R"({"$pop": {"c": 1}})", R"({"$set": {"c.1": 9}})",
                             R"({"$push": {"c": {"$each": [9], "$slice": 2}}})",
                             R"({"$set": {"c.$[]": 0}})", R"({"$set": {"t": 1}, "$pop": {"c": -1}})"}) {
    auto result = Update(1, update);
    ASSERT_FALSE(result.ok()) << update;
    EXPECT_EQ(result.status().code(), ErrorCode::kInvalidOptions) << update;
    EXPECT_NE(result.status().reason().find("of the document { _id: 1 } of db.books"),
              std::string::npos) << result.status().reason();
    // Never half-applied.
    EXPECT_EQ(Read(1).Whole(), Range(0, 5)) << update;
    // An unflagged document takes them as plain MongoDB.
    EXPECT_TRUE(Update(2, update).ok()) << update;
  }
  engine::UpdateStatement pipeline;
  pipeline.query = BsonDoc::FromJson(R"({"_id": 1})");
  pipeline.update = BsonDoc::FromJson(R"({"0": {"$set": {"t": 1}}})");
  pipeline.update_is_pipeline = true;
  auto result = engine_->Update("db", "books", pipeline);
  EXPECT_EQ(result.status().code(), ErrorCode::kInvalidOptions);
  // Fields beside the array, and the whole array, are fine.
  ASSERT_TRUE(Update(1, R"({"$set": {"title": "x"}, "$inc": {"sold": 1}})").ok());
  EXPECT_EQ(Read(1).Whole(), Range(0, 5));
  ASSERT_TRUE(Update(1, R"({"$set": {"c": [7, 8, 9, 10, 11, 12]}})").ok());
  Book book = Read(1);
  EXPECT_EQ(book.Whole(), Range(7, 13));
  EXPECT_EQ(book.chunks.size(), 2u);
  EXPECT_TRUE(Recount().empty());
}

TEST_F(OutlierEngineTest, ReplaceAndDeleteTakeTheOverflowAlong) {
  CreateBooks();
  ASSERT_TRUE(Insert(R"({"_id": 1, "c": [0, 1, 2, 3, 4, 5, 6, 7]})").ok());
  ASSERT_TRUE(Insert(R"({"_id": 2, "c": [0, 1, 2, 3, 4, 5, 6, 7]})").ok());
  // A replacement lays the new array out from scratch.
  ASSERT_TRUE(Update(1, R"({"title": "r", "c": [1, 2, 3, 4]})").ok());
  Book book = Read(1);
  EXPECT_EQ(book.Whole(), Range(1, 5));
  EXPECT_EQ(book.chunks.size(), 1u);
  ASSERT_TRUE(Update(1, R"({"title": "r"})").ok());
  book = Read(1);
  EXPECT_TRUE(book.Whole().empty());
  EXPECT_FALSE(book.flagged);
  EXPECT_EQ(book.count, 0);
  engine::DeleteStatement remove;
  remove.query = BsonDoc::FromJson(R"({"_id": 2})");
  remove.limit = 1;
  ASSERT_TRUE(engine_->Delete("db", "books", remove).ok());
  EXPECT_TRUE(Find("ov", "{}").empty());
  EXPECT_NE(Stats().find(R"("flaggedDocuments" : 0, "overflowDocuments" : 0)"), std::string::npos)
      << Stats();
  EXPECT_TRUE(Recount().empty());
}

TEST_F(OutlierEngineTest, ValidateReportsCountersThatDisagree) {
  CreateBooks();
  ASSERT_TRUE(Insert(R"({"_id": 1, "c": [0, 1, 2, 3, 4, 5, 6, 7]})").ok());
  // A chunk removed behind the pattern's back.
  engine::DeleteStatement remove;
  remove.query = BsonDoc::FromJson(R"({"seq": 0})");
  remove.limit = 1;
  ASSERT_TRUE(engine_->Delete("db", "ov", remove).ok());
  std::vector<std::string> problems = Recount();
  ASSERT_FALSE(problems.empty());
  std::string all;
  for (const auto& p : problems) all += p + "\n";
  EXPECT_NE(all.find("collStats counts 3 overflow documents, the flagged documents have 0"),
            std::string::npos) << all;
  // The chunks after the missing one belong to nobody now.
  EXPECT_NE(all.find("2 documents of db.ov belong to no flagged parent"), std::string::npos) << all;
}

}  // namespace
}  // namespace tigerdoc::patterns::outlier
