// The discriminator single-collection pattern through the real server:
// configuration, refusals with errInfo in writeErrors and command errors,
// per-type stats, and queries on the discriminator using a {type, ts} index.

#include "tests/e2e/e2e_test_base.h"
#include "tests/testutil/array_keys.h"

namespace tigerdoc::e2e {
namespace {

using testutil::DocArray;
using testutil::Integer;
using testutil::Json;
using testutil::String;

class DiscriminatorE2eTest : public E2eTest {};

TEST_F(DiscriminatorE2eTest, OneCollectionManyTypes) {
  ASSERT_OK_REPLY(Run(R"({"create": "events", "discriminator": {"field": "type", "types": {
      "user.login": {}, "order.*": {"orderId": {"$exists": true}},
      "payment.processed": {"amount": {"$gt": 0}}}}})"));
  BsonDoc list = Run(R"({"listCollections": 1, "filter": {"name": "events"}})");
  EXPECT_EQ(String(DocArray(list, "cursor.firstBatch").at(0).Copy(), "options.discriminator.field"),
            "type") << Json(list);
  BsonDoc r = Run(R"({"insert": "events", "ordered": false, "documents": [
      {"_id": 1, "type": "user.login", "ts": 1},
      {"_id": 2, "type": "order.created", "orderId": 9, "ts": 2},
      {"_id": 3, "type": "order.shipped", "ts": 3},
      {"_id": 4, "type": "payment.processed", "amount": 5, "ts": 4},
      {"_id": 5, "type": "payment.failed", "ts": 5},
      {"_id": 6, "ts": 6}]})");
  EXPECT_EQ(Integer(r, "n"), 3) << Json(r);
  ASSERT_EQ(testutil::ArrayLength(r, "writeErrors"), 3u) << Json(r);
  for (const BsonDoc& e : DocArray(r, "writeErrors")) EXPECT_EQ(Integer(e, "code"), 121) << Json(e);
  EXPECT_EQ(Integer(r, "writeErrors.1.errInfo.failingDocumentId"), 5) << Json(r);
  EXPECT_EQ(String(r, "writeErrors.1.errInfo.details.value"), "payment.failed") << Json(r);
  EXPECT_NE(Json(r).find(R"("declaredTypes" : [ "user.login", "order.*", "payment.processed" ])"),
            std::string::npos) << Json(r);
  EXPECT_EQ(String(r, "writeErrors.0.errInfo.discriminator.type"), "order.*") << Json(r);
  // The type's validator explains itself as MongoDB's validators do.
  EXPECT_EQ(String(r, "writeErrors.0.errInfo.details.operatorName"), "$exists") << Json(r);
  r = Run(R"({"findAndModify": "events", "query": {"_id": 4}, "update": {"$set": {"amount": -1}}})");
  EXPECT_ERROR_REPLY(r, 121, "DocumentValidationFailure");
  EXPECT_EQ(String(r, "errInfo.discriminator.type"), "payment.processed") << Json(r);
  // $jsonSchema works in a type's validator.
  ASSERT_OK_REPLY(Run(R"({"collMod": "events", "discriminator": {"field": "type", "types": {
      "user.login": {}, "order.*": {"orderId": {"$exists": true}},
      "payment.processed": {"$jsonSchema": {"required": ["amount"], "properties": {"amount": {"minimum": 0}}}}}}})"));
  r = Run(R"({"insert": "events", "documents": [{"_id": 10, "type": "payment.processed", "amount": -3}]})");
  EXPECT_EQ(String(r, "writeErrors.0.errInfo.details.operatorName"), "$jsonSchema") << Json(r);

  BsonDoc stats = Run(R"({"collStats": "events"})");
  EXPECT_EQ(Integer(stats, "patterns.discriminator.types.order\\.*.count"), std::nullopt);
  BsonDoc types = testutil::SubDoc(stats, "patterns.discriminator.types");
  bson_iter_t it;
  ASSERT_TRUE(bson_iter_init_find(&it, types.get(), "order.*")) << Json(stats);
  bson_iter_t count;
  ASSERT_TRUE(bson_iter_recurse(&it, &count) && bson_iter_find(&count, "count"));
  EXPECT_EQ(bson_iter_as_int64(&count), 1) << Json(stats);

  // $collStats answers per shard; each shard's per-type counts add up to
  // the collection's (what mongosh's db.c.stats() shows under `shards`).
  BsonDoc per_shard = Run(R"({"aggregate": "events", "pipeline": [{"$collStats": {"storageStats": {}}},
      {"$group": {"_id": null, "docs": {"$sum": "$storageStats.count"}, "shards": {"$sum": 1}}}],
      "cursor": {}})");
  ASSERT_OK_REPLY(per_shard);
  EXPECT_EQ(Integer(per_shard, "cursor.firstBatch.0.shards"), 4) << Json(per_shard);
  EXPECT_EQ(Integer(per_shard, "cursor.firstBatch.0.docs"), 3) << Json(per_shard);
  BsonDoc shard_types = Run(R"({"aggregate": "events", "pipeline": [{"$collStats": {"storageStats": {}}},
      {"$project": {"_id": 0, "t": {"$objectToArray": "$storageStats.patterns.discriminator.types"}}},
      {"$unwind": "$t"}, {"$group": {"_id": "$t.k", "n": {"$sum": "$t.v.count"}}}, {"$sort": {"_id": 1}}],
      "cursor": {}})");
  EXPECT_EQ(testutil::CanonicalJson(testutil::SubDoc(shard_types, "cursor.firstBatch")),
            testutil::CanonicalJson(R"({"0": {"_id": "order.*", "n": {"$numberLong": "1"}},
                              "1": {"_id": "payment.processed", "n": {"$numberLong": "1"}},
                              "2": {"_id": "user.login", "n": {"$numberLong": "1"}}})")) << Json(shard_types);

  // Queries on the discriminator use an index led by it.
  ASSERT_OK_REPLY(Run(R"({"createIndexes": "events", "indexes": [{"key": {"type": 1, "ts": -1}, "name": "type_ts"}]})"));
  r = Run(R"({"find": "events", "filter": {"type": {"$in": ["order.created", "user.login"]}}, "sort": {"_id": 1}})");
  EXPECT_EQ(Ids(r), (std::vector<int64_t>{1, 2})) << Json(r);
  BsonDoc explain = Run(R"({"explain": {"find": "events", "filter": {"type": "order.created"}}})");
  const std::string plan = Json(explain);
  EXPECT_NE(plan.find("type_ts"), std::string::npos) << plan;
  EXPECT_NE(plan.find(R"("patterns" : { "discriminator" : { "field" : "type")"), std::string::npos) << plan;
  // The explain's arrays (the declared types among them) are numbered 0, 1, ...
  EXPECT_EQ(testutil::FirstMisnumberedArray(explain.get()), "") << plan;
  BsonDoc validated = Run(R"({"validate": "events"})");
  EXPECT_EQ(testutil::ArrayLength(validated, "errors"), 0u) << Json(validated);
}

}  // namespace
}  // namespace tigerdoc::e2e
