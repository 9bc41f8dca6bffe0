// findAndModify as the drivers' findOneAndUpdate/Replace/Delete use it:
// which document (sort), before or after image (new), projection (fields),
// upserts with lastErrorObject, removal, and MongoDB's argument errors.
#include "tests/e2e/e2e_test_base.h"

namespace tigerdoc::e2e {
namespace {

using testutil::CanonicalJson;
using testutil::Has;
using testutil::Integer;
using testutil::Json;
using testutil::SubDoc;
using testutil::TypeAt;

class FindAndModifyTest : public E2eTest {
 protected:
  void SetUp() override {
    E2eTest::SetUp();
    InsertJson("f", R"([{"_id": 1, "x": 5}, {"_id": 2, "x": 3}, {"_id": 3, "x": 9}])");
  }
};

TEST_F(FindAndModifyTest, UpdatesFirstInSortOrderAndReturnsBeforeImage) {
  BsonDoc r = Run(R"({"findAndModify": "f", "query": {"x": {"$gt": 1}}, "sort": {"x": 1},
                      "update": {"$inc": {"x": 100}}})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(CanonicalJson(SubDoc(r, "value")), CanonicalJson(R"({"_id": 2, "x": 3})"));
  EXPECT_EQ(Integer(r, "lastErrorObject.n"), 1);
  EXPECT_EQ(CanonicalJson(SubDoc(r, "lastErrorObject")),
            CanonicalJson(R"({"n": 1, "updatedExisting": true})"));
  BsonDoc after = Run(R"({"find": "f", "filter": {"_id": 2}})");
  EXPECT_EQ(Integer(after, "cursor.firstBatch.0.x"), 103) << Json(after);
}

TEST_F(FindAndModifyTest, NewReturnsAfterImageWithProjection) {
  BsonDoc r = Run(R"({"findAndModify": "f", "query": {"_id": 3}, "update": {"$set": {"y": 1}},
                      "new": true, "fields": {"x": 0}})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(CanonicalJson(SubDoc(r, "value")), CanonicalJson(R"({"_id": 3, "y": 1})"));
}

TEST_F(FindAndModifyTest, ReplacementKeepsId) {
  BsonDoc r = Run(R"({"findAndModify": "f", "query": {"_id": 1}, "update": {"z": 7}, "new": true})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(CanonicalJson(SubDoc(r, "value")), CanonicalJson(R"({"_id": 1, "z": 7})"));
}

TEST_F(FindAndModifyTest, RemoveReturnsDeletedDocument) {
  BsonDoc r = Run(R"({"findAndModify": "f", "query": {}, "sort": {"x": -1}, "remove": true})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(CanonicalJson(SubDoc(r, "value")), CanonicalJson(R"({"_id": 3, "x": 9})"));
  EXPECT_EQ(CanonicalJson(SubDoc(r, "lastErrorObject")), CanonicalJson(R"({"n": 1})"));
  BsonDoc count = Run(R"({"count": "f"})");
  EXPECT_EQ(Integer(count, "n"), 2);
}

TEST_F(FindAndModifyTest, NoMatchReturnsNull) {
  BsonDoc r = Run(R"({"findAndModify": "f", "query": {"_id": 42}, "update": {"$set": {"a": 1}}})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(TypeAt(r, "value"), BSON_TYPE_NULL) << Json(r);
  EXPECT_EQ(CanonicalJson(SubDoc(r, "lastErrorObject")),
            CanonicalJson(R"({"n": 0, "updatedExisting": false})"));
}

TEST_F(FindAndModifyTest, UpsertReportsUpsertedIdAndNewDocument) {
  BsonDoc r = Run(R"({"findAndModify": "f", "query": {"_id": 7, "k": "a"},
                      "update": {"$set": {"v": 1}}, "upsert": true, "new": true})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(CanonicalJson(SubDoc(r, "value")), CanonicalJson(R"({"_id": 7, "k": "a", "v": 1})"));
  EXPECT_EQ(CanonicalJson(SubDoc(r, "lastErrorObject")),
            CanonicalJson(R"({"n": 1, "updatedExisting": false, "upserted": 7})"));
  // Without new: the value is null, as there was no document before.
  BsonDoc r2 = Run(R"({"findAndModify": "f", "query": {"_id": 8}, "update": {"$set": {"v": 1}},
                       "upsert": true})");
  ASSERT_OK_REPLY(r2);
  EXPECT_EQ(TypeAt(r2, "value"), BSON_TYPE_NULL) << Json(r2);
}

TEST_F(FindAndModifyTest, ArgumentErrorsAsMongoDB) {
  BsonDoc both = Run(R"({"findAndModify": "f", "remove": true, "update": {"$set": {"a": 1}}})");
  EXPECT_EQ(Integer(both, "code"), 9) << Json(both);
  BsonDoc neither = Run(R"({"findAndModify": "f", "query": {}})");
  EXPECT_EQ(Integer(neither, "code"), 9) << Json(neither);
  BsonDoc remove_new = Run(R"({"findAndModify": "f", "remove": true, "new": true})");
  EXPECT_EQ(Integer(remove_new, "code"), 9) << Json(remove_new);
  BsonDoc bad_op = Run(R"({"findAndModify": "f", "query": {}, "update": {"$bogus": {"a": 1}}})");
  EXPECT_EQ(Integer(bad_op, "code"), 9) << Json(bad_op);
  EXPECT_FALSE(Has(bad_op, "value"));
}

}  // namespace
}  // namespace tigerdoc::e2e
