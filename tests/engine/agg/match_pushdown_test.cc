// JoinViewPipeline (engine/agg/match_pushdown.h): a read's leading $match
// moves before the view's stages that cannot change what it tests, and
// nowhere else.

#include "engine/agg/match_pushdown.h"

#include <gtest/gtest.h>

namespace tigerdoc::agg {
namespace {

std::string Join(const std::string& view, const std::string& user) {
  bson::BsonDoc v = bson::BsonDoc::FromJson("{\"s\": " + view + "}");
  bson::BsonDoc u = bson::BsonDoc::FromJson("{\"s\": " + user + "}");
  bson_iter_t vi, ui;
  bson_iter_init_find(&vi, v.get(), "s");
  bson_iter_init_find(&ui, u.get(), "s");
  uint32_t vl = 0, ul = 0;
  const uint8_t *vd = nullptr, *ud = nullptr;
  bson_iter_array(&vi, &vl, &vd);
  bson_iter_array(&ui, &ul, &ud);
  bson_t va, ua;
  bson_init_static(&va, vd, vl);
  bson_init_static(&ua, ud, ul);
  bson::BsonDoc joined = JoinViewPipeline(&va, &ua);
  // Stage names in order, e.g. "match set lookup".
  std::string names;
  bson_iter_t it;
  bson_iter_init(&it, joined.get());
  while (bson_iter_next(&it)) {
    bson_iter_t stage;
    bson_iter_recurse(&it, &stage);
    bson_iter_next(&stage);
    std::string name = bson_iter_key(&stage);
    if (name == "$match") {
      bson_iter_t f;
      bson_iter_recurse(&stage, &f);
      bson_iter_next(&f);
      name += "(" + std::string(bson_iter_key(&f)) + ")";
    }
    names += (names.empty() ? "" : " ") + name;
  }
  return names;
}

constexpr char kView[] =
    R"([{"$set": {"k": 1, "a.b": 2}}, {"$lookup": {"from": "o", "localField": "k", "foreignField": "_id", "as": "l"}},
        {"$unset": ["k", "l"]}])";

TEST(MatchPushdownTest, MovesPastStagesThatDoNotWriteItsFields) {
  EXPECT_EQ(Join(kView, R"([{"$match": {"_id": 1}}, {"$limit": 1}])"),
            "$match(_id) $set $lookup $unset $limit");
  EXPECT_EQ(Join(kView, R"([{"$match": {"$or": [{"x": 1}, {"y.z": 2}]}}])"),
            "$match($or) $set $lookup $unset");
  // Two leading matches both move, in order.
  EXPECT_EQ(Join(kView, R"([{"$match": {"x": 1}}, {"$match": {"y": 1}}, {"$sort": {"x": 1}}])"),
            "$match(x) $match(y) $set $lookup $unset $sort");
}

TEST(MatchPushdownTest, StopsAtAStageWritingATestedFieldOrAnUnknownStage) {
  EXPECT_EQ(Join(kView, R"([{"$match": {"l": []}}])"), "$set $lookup $unset $match(l)");
  EXPECT_EQ(Join(kView, R"([{"$match": {"l.x": 1}}])"), "$set $lookup $unset $match(l.x)");
  EXPECT_EQ(Join(kView, R"([{"$match": {"a.c": 1}}])"), "$set $match(a.c) $lookup $unset");
  // k is written by $unset (last) and $set.
  EXPECT_EQ(Join(kView, R"([{"$match": {"$and": [{"x": 1}, {"k": 1}]}}])"),
            "$set $lookup $unset $match($and)");
  EXPECT_EQ(Join(R"([{"$project": {"x": 1}}])", R"([{"$match": {"x": 1}}])"), "$project $match(x)");
  EXPECT_EQ(Join(R"([{"$group": {"_id": "$x"}}])", R"([{"$match": {"_id": 1}}])"), "$group $match(_id)");
  // A view's own filter stays the scan's query.
  EXPECT_EQ(Join(R"([{"$match": {"g": 1}}, {"$set": {"k": 1}}])", R"([{"$match": {"a": 1}}])"),
            "$match(g) $match(a) $set");
}

TEST(MatchPushdownTest, FiltersWithOpaqueOperatorsStay) {
  EXPECT_EQ(Join(kView, R"([{"$match": {"$expr": {"$eq": ["$_id", 1]}}}])"),
            "$set $lookup $unset $match($expr)");
  EXPECT_EQ(Join(kView, R"([{"$match": {"_id": 1, "$where": "true"}}])"),
            "$set $lookup $unset $match(_id)");
  // Only leading matches of the read move.
  EXPECT_EQ(Join(kView, R"([{"$limit": 1}, {"$match": {"_id": 1}}])"),
            "$set $lookup $unset $limit $match(_id)");
}

}  // namespace
}  // namespace tigerdoc::agg
