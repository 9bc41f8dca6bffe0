// insert / update / delete results as MongoDB reports them: n, nModified,
// upserted, writeErrors (ordered and unordered batches), and the exact
// E11000 duplicate key message.
#include "tests/e2e/e2e_test_base.h"

namespace tigerdoc::e2e {
namespace {

using testutil::CanonicalJson;
using testutil::DocArray;
using testutil::Has;
using testutil::Integer;
using testutil::Json;
using testutil::String;
using testutil::SubDoc;
using testutil::TypeAt;

class CrudTest : public E2eTest {
 protected:
  std::string DupMessage(const std::string& coll, const std::string& key) {
    return "E11000 duplicate key error collection: " + db_ + "." + coll +
           " index: _id_ dup key: { _id: " + key + " }";
  }

  // All documents of `coll` sorted by _id, as canonical JSON.
  std::vector<std::string> AllDocs(const std::string& coll) {
    BsonDoc r = Run(R"({"find": ")" + coll + R"(", "sort": {"_id": 1}})");
    std::vector<std::string> out;
    for (const auto& d : DocArray(r, "cursor.firstBatch")) out.push_back(CanonicalJson(d));
    return out;
  }
};

TEST_F(CrudTest, InsertReportsCountAsInt32) {
  BsonDoc r = Run(R"({"insert": "c", "documents": [{"_id": 1, "a": 1}, {"_id": 2, "a": 2}]})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(TypeAt(r, "n"), BSON_TYPE_INT32) << Json(r);
  EXPECT_EQ(Integer(r, "n"), 2) << Json(r);
  EXPECT_FALSE(Has(r, "writeErrors")) << Json(r);
  EXPECT_EQ(AllDocs("c"), (std::vector<std::string>{CanonicalJson(R"({"_id": 1, "a": 1})"),
                                                    CanonicalJson(R"({"_id": 2, "a": 2})")}));
}

TEST_F(CrudTest, InsertWithoutIdGetsObjectIdFirst) {
  ASSERT_OK_REPLY(Run(R"({"insert": "c", "documents": [{"a": 1}]})"));
  BsonDoc r = Run(R"({"find": "c"})");
  auto docs = DocArray(r, "cursor.firstBatch");
  ASSERT_EQ(docs.size(), 1u) << Json(r);
  bson_iter_t it;
  ASSERT_TRUE(bson_iter_init(&it, docs[0].get()));
  ASSERT_TRUE(bson_iter_next(&it));
  EXPECT_STREQ(bson_iter_key(&it), "_id") << Json(docs[0]);
  EXPECT_EQ(bson_iter_type(&it), BSON_TYPE_OID) << Json(docs[0]);
}

TEST_F(CrudTest, OrderedInsertStopsAtDuplicateKey) {
  BsonDoc r = Run(
      R"({"insert": "c", "documents": [{"_id": 1}, {"_id": 2}, {"_id": 1}, {"_id": 3}]})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "n"), 2) << Json(r);
  auto errors = DocArray(r, "writeErrors");
  ASSERT_EQ(errors.size(), 1u) << Json(r);
  EXPECT_EQ(Integer(errors[0], "index"), 2) << Json(r);
  EXPECT_EQ(Integer(errors[0], "code"), 11000) << Json(r);
  EXPECT_EQ(String(errors[0], "errmsg"), DupMessage("c", "1")) << Json(r);
  EXPECT_EQ(CanonicalJson(SubDoc(errors[0], "keyPattern")), CanonicalJson(R"({"_id": 1})"));
  EXPECT_EQ(CanonicalJson(SubDoc(errors[0], "keyValue")), CanonicalJson(R"({"_id": 1})"));
  EXPECT_EQ(AllDocs("c"), (std::vector<std::string>{CanonicalJson(R"({"_id": 1})"),
                                                    CanonicalJson(R"({"_id": 2})")}));
}

TEST_F(CrudTest, UnorderedInsertContinuesPastDuplicates) {
  BsonDoc r = Run(R"({"insert": "c", "ordered": false, "documents":
      [{"_id": 1}, {"_id": 1}, {"_id": 2}, {"_id": 2}, {"_id": 3}]})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "n"), 3) << Json(r);
  auto errors = DocArray(r, "writeErrors");
  ASSERT_EQ(errors.size(), 2u) << Json(r);
  EXPECT_EQ(Integer(errors[0], "index"), 1);
  EXPECT_EQ(Integer(errors[0], "code"), 11000);
  EXPECT_EQ(String(errors[0], "errmsg"), DupMessage("c", "1"));
  EXPECT_EQ(Integer(errors[1], "index"), 3);
  EXPECT_EQ(Integer(errors[1], "code"), 11000);
  EXPECT_EQ(String(errors[1], "errmsg"), DupMessage("c", "2"));
  EXPECT_EQ(AllDocs("c").size(), 3u);
}

TEST_F(CrudTest, DuplicateKeyMessageFormatsStringIds) {
  ASSERT_OK_REPLY(Run(R"({"insert": "c", "documents": [{"_id": "k"}]})"));
  BsonDoc r = Run(R"({"insert": "c", "documents": [{"_id": "k"}]})");
  auto errors = DocArray(r, "writeErrors");
  ASSERT_EQ(errors.size(), 1u) << Json(r);
  EXPECT_EQ(String(errors[0], "errmsg"), DupMessage("c", "\"k\"")) << Json(r);
}

TEST_F(CrudTest, DriverInsertManyUsesDocumentSequence) {
  // mongoc_collection_insert_many sends an OP_MSG kind-1 "documents" section.
  std::vector<BsonDoc> docs;
  for (int i = 0; i < 5; ++i) docs.push_back(BsonDoc::FromJson(R"({"_id": )" + std::to_string(i) + "}"));
  docs.push_back(BsonDoc::FromJson(R"({"_id": 2})"));
  docs.push_back(BsonDoc::FromJson(R"({"_id": 9})"));
  BsonDoc ordered = client_->InsertMany(db_, "c", docs, /*ordered=*/true);
  EXPECT_EQ(Integer(ordered, "insertedCount"), 5) << Json(ordered);
  ASSERT_EQ(DocArray(ordered, "writeErrors").size(), 1u) << Json(ordered);
  EXPECT_EQ(Integer(DocArray(ordered, "writeErrors")[0], "index"), 5) << Json(ordered);
  EXPECT_EQ(AllDocs("c").size(), 5u);

  BsonDoc unordered = client_->InsertMany(db_, "d", docs, /*ordered=*/false);
  EXPECT_EQ(Integer(unordered, "insertedCount"), 6) << Json(unordered);
  EXPECT_EQ(AllDocs("d").size(), 6u);
}

TEST_F(CrudTest, UpdateReportsMatchedAndModified) {
  InsertJson("c", R"([{"_id": 1, "a": 1}, {"_id": 2, "a": 1}, {"_id": 3, "a": 2}])");
  BsonDoc r = Run(R"({"update": "c", "updates": [{"q": {"_id": 1}, "u": {"$set": {"b": 5}}}]})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "n"), 1) << Json(r);
  EXPECT_EQ(Integer(r, "nModified"), 1) << Json(r);
  EXPECT_FALSE(Has(r, "upserted")) << Json(r);

  // Setting the same value again matches but modifies nothing.
  r = Run(R"({"update": "c", "updates": [{"q": {"_id": 1}, "u": {"$set": {"b": 5}}}]})");
  EXPECT_EQ(Integer(r, "n"), 1) << Json(r);
  EXPECT_EQ(Integer(r, "nModified"), 0) << Json(r);

  // No match: zeros, no upsert.
  r = Run(R"({"update": "c", "updates": [{"q": {"_id": 42}, "u": {"$set": {"b": 5}}}]})");
  EXPECT_EQ(Integer(r, "n"), 0) << Json(r);
  EXPECT_EQ(Integer(r, "nModified"), 0) << Json(r);

  // multi:false updates only one of two matches; multi:true both.
  r = Run(R"({"update": "c", "updates": [{"q": {"a": 1}, "u": {"$inc": {"x": 1}}}]})");
  EXPECT_EQ(Integer(r, "n"), 1) << Json(r);
  r = Run(R"({"update": "c", "updates": [{"q": {"a": 1}, "u": {"$inc": {"x": 1}}, "multi": true}]})");
  EXPECT_EQ(Integer(r, "n"), 2) << Json(r);
  EXPECT_EQ(Integer(r, "nModified"), 2) << Json(r);
  EXPECT_EQ(Integer(Run(R"({"count": "c", "query": {"x": {"$exists": true}}})"), "n"), 2);
}

TEST_F(CrudTest, UpsertReportsUpsertedIdAndIndex) {
  InsertJson("c", R"([{"_id": 1}])");
  BsonDoc r = Run(R"({"update": "c", "updates": [
      {"q": {"_id": 1}, "u": {"$set": {"a": 1}}, "upsert": true},
      {"q": {"_id": 10}, "u": {"$set": {"a": 2}}, "upsert": true}]})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "n"), 2) << Json(r);
  EXPECT_EQ(Integer(r, "nModified"), 1) << Json(r);
  auto upserted = DocArray(r, "upserted");
  ASSERT_EQ(upserted.size(), 1u) << Json(r);
  EXPECT_EQ(CanonicalJson(upserted[0]), CanonicalJson(R"({"index": 1, "_id": 10})"));
  EXPECT_EQ(AllDocs("c"), (std::vector<std::string>{CanonicalJson(R"({"_id": 1, "a": 1})"),
                                                    CanonicalJson(R"({"_id": 10, "a": 2})")}));

  // An upsert whose query has no _id generates an ObjectId and keeps the
  // query's equality fields in the new document.
  r = Run(R"({"update": "c", "updates": [{"q": {"k": "x"}, "u": {"$set": {"v": 1}}, "upsert": true}]})");
  upserted = DocArray(r, "upserted");
  ASSERT_EQ(upserted.size(), 1u) << Json(r);
  EXPECT_EQ(TypeAt(upserted[0], "_id"), BSON_TYPE_OID) << Json(r);
  BsonDoc found = Run(R"({"find": "c", "filter": {"k": "x"}, "projection": {"_id": 0}})");
  ASSERT_EQ(DocArray(found, "cursor.firstBatch").size(), 1u) << Json(found);
  EXPECT_EQ(CanonicalJson(DocArray(found, "cursor.firstBatch")[0]),
            CanonicalJson(R"({"k": "x", "v": 1})"));
}

TEST_F(CrudTest, ReplacementUpdateKeepsId) {
  InsertJson("c", R"([{"_id": 1, "a": 1, "b": 2}])");
  BsonDoc r = Run(R"({"update": "c", "updates": [{"q": {"_id": 1}, "u": {"z": 9}}]})");
  EXPECT_EQ(Integer(r, "nModified"), 1) << Json(r);
  EXPECT_EQ(AllDocs("c"), (std::vector<std::string>{CanonicalJson(R"({"_id": 1, "z": 9})")}));
}

TEST_F(CrudTest, OrderedUpdateBatchStopsAtFirstError) {
  InsertJson("c", R"([{"_id": 1}, {"_id": 2}, {"_id": 3}])");
  BsonDoc r = Run(R"({"update": "c", "updates": [
      {"q": {"_id": 1}, "u": {"$set": {"a": 1}}},
      {"q": {"_id": 2}, "u": {"$set": {"_id": 99}}},
      {"q": {"_id": 3}, "u": {"$set": {"a": 1}}}]})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "n"), 1) << Json(r);
  EXPECT_EQ(Integer(r, "nModified"), 1) << Json(r);
  auto errors = DocArray(r, "writeErrors");
  ASSERT_EQ(errors.size(), 1u) << Json(r);
  EXPECT_EQ(Integer(errors[0], "index"), 1);
  EXPECT_EQ(Integer(errors[0], "code"), 66) << Json(r);  // ImmutableField
  EXPECT_EQ(String(errors[0], "errmsg"),
            "Performing an update on the path '_id' would modify the immutable field '_id'");
  EXPECT_EQ(Integer(Run(R"({"count": "c", "query": {"a": 1}})"), "n"), 1);
}

TEST_F(CrudTest, UnorderedUpdateBatchContinuesPastErrors) {
  InsertJson("c", R"([{"_id": 1}, {"_id": 2}, {"_id": 3}])");
  BsonDoc r = Run(R"({"update": "c", "ordered": false, "updates": [
      {"q": {"_id": 1}, "u": {"$set": {"a": 1}}},
      {"q": {"_id": 2}, "u": {"$set": {"_id": 99}}},
      {"q": {"_id": 3}, "u": {"$set": {"a": 1}}}]})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "n"), 2) << Json(r);
  EXPECT_EQ(Integer(r, "nModified"), 2) << Json(r);
  ASSERT_EQ(DocArray(r, "writeErrors").size(), 1u) << Json(r);
  EXPECT_EQ(Integer(DocArray(r, "writeErrors")[0], "index"), 1) << Json(r);
}

TEST_F(CrudTest, UnknownUpdateOperatorIsFailedToParse) {
  InsertJson("c", R"([{"_id": 1}])");
  BsonDoc r = Run(R"({"update": "c", "updates": [{"q": {"_id": 1}, "u": {"$foo": {"a": 1}}}]})");
  // MongoDB reports this per statement, as a write error.
  auto errors = DocArray(r, "writeErrors");
  ASSERT_EQ(errors.size(), 1u) << Json(r);
  EXPECT_EQ(Integer(errors[0], "code"), 9) << Json(r);  // FailedToParse
  EXPECT_EQ(Integer(r, "n"), 0) << Json(r);
}

TEST_F(CrudTest, DeleteHonoursLimit) {
  InsertJson("c", R"([{"_id": 1, "a": 1}, {"_id": 2, "a": 1}, {"_id": 3, "a": 1}, {"_id": 4, "a": 2}])");
  BsonDoc r = Run(R"({"delete": "c", "deletes": [{"q": {"a": 1}, "limit": 1}]})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(TypeAt(r, "n"), BSON_TYPE_INT32) << Json(r);
  EXPECT_EQ(Integer(r, "n"), 1) << Json(r);
  r = Run(R"({"delete": "c", "deletes": [{"q": {"a": 1}, "limit": 0}]})");
  EXPECT_EQ(Integer(r, "n"), 2) << Json(r);
  r = Run(R"({"delete": "c", "deletes": [{"q": {"a": 1}, "limit": 0}]})");
  EXPECT_EQ(Integer(r, "n"), 0) << Json(r);
  EXPECT_EQ(AllDocs("c"), (std::vector<std::string>{CanonicalJson(R"({"_id": 4, "a": 2})")}));
}

TEST_F(CrudTest, DeleteBatchAddsUpCounts) {
  InsertJson("c", R"([{"_id": 1}, {"_id": 2}, {"_id": 3}])");
  BsonDoc r = Run(R"({"delete": "c", "deletes": [
      {"q": {"_id": 1}, "limit": 1}, {"q": {"_id": 7}, "limit": 1}, {"q": {"_id": {"$gte": 2}}, "limit": 0}]})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "n"), 3) << Json(r);
  EXPECT_TRUE(AllDocs("c").empty());
}

TEST_F(CrudTest, WritesToMissingCollectionCreateItOrMatchNothing) {
  // insert creates the collection implicitly; update/delete on a missing
  // collection succeed with n: 0.
  BsonDoc r = Run(R"({"update": "nope", "updates": [{"q": {}, "u": {"$set": {"a": 1}}}]})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "n"), 0) << Json(r);
  r = Run(R"({"delete": "nope", "deletes": [{"q": {}, "limit": 0}]})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "n"), 0) << Json(r);
  r = Run(R"({"find": "nope"})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(testutil::ArrayLength(r, "cursor.firstBatch"), 0u) << Json(r);
  EXPECT_EQ(Integer(r, "cursor.id"), 0) << Json(r);
}

// Inserts are grouped into shared transactions; a failure inside a group
// must still be reported at its own index, with the rest of the group kept.
TEST_F(CrudTest, LargeBatchReportsDuplicateAtItsIndex) {
  auto batch = [](bool ordered) {
    std::string docs = "[";
    for (int i = 0; i < 300; ++i) {
      if (i) docs += ",";
      docs += "{\"_id\": " + std::to_string(i == 150 ? 10 : i) + "}";
    }
    return std::string(R"({"insert": "big", "ordered": )") + (ordered ? "true" : "false") +
           R"(, "documents": )" + docs + "]}";
  };
  BsonDoc ordered = Run(batch(true));
  ASSERT_OK_REPLY(ordered);
  EXPECT_EQ(Integer(ordered, "n"), 150) << Json(ordered);
  EXPECT_EQ(Integer(ordered, "writeErrors.0.index"), 150) << Json(ordered);
  EXPECT_EQ(Integer(ordered, "writeErrors.0.code"), 11000);
  Run(R"({"drop": "big"})");
  BsonDoc unordered = Run(batch(false));
  ASSERT_OK_REPLY(unordered);
  EXPECT_EQ(Integer(unordered, "n"), 299) << Json(unordered);
  EXPECT_EQ(Integer(unordered, "writeErrors.0.index"), 150);
  EXPECT_EQ(testutil::ArrayLength(unordered, "writeErrors"), 1u);
  BsonDoc count = Run(R"({"count": "big"})");
  EXPECT_EQ(Integer(count, "n"), 299);
}

}  // namespace
}  // namespace tigerdoc::e2e
