// $expr and aggregation expressions outside aggregate, through the wire:
// find / count / delete / update / findAndModify filters with `let`,
// $match in aggregate, computed fields of find projections.
#include <algorithm>

#include "tests/e2e/e2e_test_base.h"

namespace tigerdoc::e2e {
namespace {

using testutil::CanonicalJson;
using testutil::DocArray;
using testutil::Integer;
using testutil::Json;
using testutil::String;
using testutil::SubDoc;

class ExprTest : public E2eTest {
 protected:
  void SetUp() override {
    E2eTest::SetUp();
    // The manual's $expr example.
    InsertJson("monthlyBudget", R"([
      {"_id": 1, "category": "food", "budget": 400, "spent": 450},
      {"_id": 2, "category": "drinks", "budget": 100, "spent": 150},
      {"_id": 3, "category": "clothes", "budget": 100, "spent": 50},
      {"_id": 4, "category": "misc", "budget": 500, "spent": 300},
      {"_id": 5, "category": "travel", "budget": 200, "spent": 650}])");
  }

  static std::vector<int64_t> Sorted(std::vector<int64_t> ids) {
    std::sort(ids.begin(), ids.end());
    return ids;
  }
};

TEST_F(ExprTest, FindComparesFieldsOfOneDocument) {
  BsonDoc r = Run(R"({"find": "monthlyBudget", "filter": {"$expr": {"$gt": ["$spent", "$budget"]}}})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Sorted(Ids(r)), (std::vector<int64_t>{1, 2, 5}));
}

TEST_F(ExprTest, FindWithLetVariablesAndOtherPredicates) {
  BsonDoc r = Run(R"({"find": "monthlyBudget",
      "filter": {"budget": {"$lt": 450}, "$expr": {"$gt": ["$spent", "$$limit"]}},
      "let": {"limit": {"$add": [100, 200]}}})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Sorted(Ids(r)), (std::vector<int64_t>{1, 5}));
  // $cond inside $expr (the manual's discount example shape).
  r = Run(R"({"find": "monthlyBudget", "filter": {"$expr": {"$lt": [
      {"$cond": {"if": {"$gte": ["$budget", 200]}, "then": {"$multiply": ["$budget", 0.5]},
                 "else": "$budget"}}, 150]}}})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Sorted(Ids(r)), (std::vector<int64_t>{2, 3, 5}));
}

TEST_F(ExprTest, CountAndAggregateMatch) {
  BsonDoc r = Run(R"({"count": "monthlyBudget", "query": {"$expr": {"$lt": ["$spent", "$budget"]}}})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "n"), 2);
  r = Run(R"({"aggregate": "monthlyBudget", "pipeline": [
      {"$match": {"$or": [{"$expr": {"$eq": ["$category", "$$c"]}}, {"_id": 4}]}},
      {"$sort": {"_id": 1}}], "let": {"c": "food"}, "cursor": {}})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Ids(r), (std::vector<int64_t>{1, 4}));
}

TEST_F(ExprTest, EvaluationAndParseErrorsFailTheCommand) {
  BsonDoc r = Run(R"({"find": "monthlyBudget", "filter": {"$expr": {"$divide": ["$spent", 0]}}})");
  EXPECT_ERROR_REPLY(r, 2, "BadValue");
  EXPECT_EQ(String(r, "errmsg"), "can't $divide by zero");
  r = Run(R"({"find": "monthlyBudget", "filter": {"$expr": {"$frobnicate": 1}}})");
  EXPECT_ERROR_REPLY(r, 168, "InvalidPipelineOperator");
  r = Run(R"({"find": "monthlyBudget", "filter": {"$expr": "$$undefinedVar"}})");
  EXPECT_EQ(Integer(r, "code"), 17276) << Json(r);
  r = Run(R"({"find": "monthlyBudget", "filter": {"a": {"$elemMatch": {"$expr": true}}}})");
  EXPECT_ERROR_REPLY(r, 2, "BadValue");
  // The server keeps serving.
  r = Run(R"({"count": "monthlyBudget"})");
  EXPECT_EQ(Integer(r, "n"), 5);
}

TEST_F(ExprTest, UpdateDeleteAndFindAndModifyFilters) {
  BsonDoc r = Run(R"({"update": "monthlyBudget", "updates": [
      {"q": {"$expr": {"$gt": ["$spent", "$budget"]}}, "u": {"$set": {"over": true}}, "multi": true}]})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "nModified"), 3);
  r = Run(R"({"findAndModify": "monthlyBudget", "query": {"$expr": {"$eq": ["$spent", "$$s"]}},
      "update": {"$inc": {"spent": 1}}, "new": true, "let": {"s": 50}})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "value.spent"), 51);
  r = Run(R"({"delete": "monthlyBudget", "deletes": [{"q": {"$expr": {"$eq": ["$over", true]}}, "limit": 0}]})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "n"), 3);
  r = Run(R"({"delete": "monthlyBudget", "deletes": [{"q": {"$expr": {"$eq": ["$_id", "$$id"]}}, "limit": 1}],
      "let": {"id": 4}})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "n"), 1);
  r = Run(R"({"find": "monthlyBudget"})");
  EXPECT_EQ(Ids(r), (std::vector<int64_t>{3}));
}

TEST_F(ExprTest, UpsertWithExprSeedsOnlyFromEqualities) {
  BsonDoc r = Run(R"({"update": "monthlyBudget", "updates": [
      {"q": {"category": "books", "$expr": {"$gt": ["$spent", 1000]}}, "u": {"$set": {"budget": 10}},
       "upsert": true}]})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "n"), 1);
  r = Run(R"({"find": "monthlyBudget", "filter": {"category": "books"}, "projection": {"_id": 0}})");
  EXPECT_EQ(CanonicalJson(SubDoc(r, "cursor.firstBatch")),
            CanonicalJson(R"({"0": {"category": "books", "budget": 10}})"));
}

TEST_F(ExprTest, FindProjectionWithComputedFields) {
  BsonDoc r = Run(R"({"find": "monthlyBudget", "filter": {"_id": 1},
      "projection": {"category": 1, "left": {"$subtract": ["$budget", "$spent"]}, "c": "$category",
                     "tag": "fixed", "zero": {"$literal": 0}, "v": "$$v", "_id": 0},
      "let": {"v": {"$toUpper": "x"}}})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(CanonicalJson(SubDoc(r, "cursor.firstBatch")),
            CanonicalJson(R"({"0": {"category": "food", "left": -50, "c": "food", "tag": "fixed",
                                    "zero": 0, "v": "X"}})"));
  r = Run(R"({"find": "monthlyBudget", "projection": {"spent": 0, "x": {"$add": [1, 2]}}})");
  EXPECT_ERROR_REPLY(r, 31252, "Location31252");
  r = Run(R"({"find": "monthlyBudget", "projection": {"x": {"$add": [1, 2]}, "spent": 0}})");
  EXPECT_ERROR_REPLY(r, 31254, "Location31254");
  // findAndModify's fields take computed fields too.
  r = Run(R"({"findAndModify": "monthlyBudget", "query": {"_id": 2}, "update": {"$set": {"a": 1}},
      "fields": {"twice": {"$multiply": ["$spent", 2]}}, "new": true})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(CanonicalJson(SubDoc(r, "value")), CanonicalJson(R"({"_id": 2, "twice": 300})"));
}

}  // namespace
}  // namespace tigerdoc::e2e
