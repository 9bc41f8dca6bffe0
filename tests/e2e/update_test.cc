// The update language through the update command: array operators,
// positional updates with arrayFilters, upserts, unacknowledged (w:0)
// writes, the 16 MiB document limit, and many connections incrementing
// one counter without losing an increment.
#include <thread>

#include "tests/e2e/e2e_test_base.h"
#include "tests/testutil/raw_connection.h"

namespace tigerdoc::e2e {
namespace {

using testutil::CanonicalJson;
using testutil::DocArray;
using testutil::Has;
using testutil::Integer;
using testutil::Json;
using testutil::SubDoc;

class UpdateTest : public E2eTest {
 protected:
  std::string One(const std::string& coll, const std::string& filter) {
    BsonDoc r = Run(R"({"find": ")" + coll + R"(", "filter": )" + filter + "}");
    auto docs = DocArray(r, "cursor.firstBatch");
    return docs.size() == 1 ? CanonicalJson(docs[0]) : "<" + std::to_string(docs.size()) + " docs>";
  }
};

TEST_F(UpdateTest, PushWithAllModifiers) {
  // MongoDB's "Use $push Operator with Multiple Modifiers" example.
  InsertJson("students", R"([{"_id": 5, "quizzes": [{"wk": 1, "score": 10}, {"wk": 2, "score": 8},
                               {"wk": 3, "score": 5}, {"wk": 4, "score": 6}]}])");
  BsonDoc r = Run(R"({"update": "students", "updates": [{"q": {"_id": 5}, "u": {"$push": {"quizzes": {
      "$each": [{"wk": 5, "score": 8}, {"wk": 6, "score": 7}, {"wk": 7, "score": 6}],
      "$sort": {"score": -1}, "$slice": 3}}}}]})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "nModified"), 1);
  EXPECT_EQ(One("students", R"({"_id": 5})"),
            CanonicalJson(R"({"_id": 5, "quizzes": [{"wk": 1, "score": 10}, {"wk": 2, "score": 8},
                                                   {"wk": 5, "score": 8}]})"));
}

TEST_F(UpdateTest, ArrayFiltersUpdateMatchingElements) {
  // MongoDB's "Update All Array Elements That Match arrayFilters" example.
  InsertJson("students", R"([{"_id": 1, "grades": [95, 92, 90]}, {"_id": 2, "grades": [98, 100, 102]},
                              {"_id": 3, "grades": [95, 110, 100]}])");
  BsonDoc r = Run(R"({"update": "students", "updates": [{"q": {}, "u": {"$set": {"grades.$[element]": 100}},
      "multi": true, "arrayFilters": [{"element": {"$gte": 100}}]}]})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "n"), 3);
  EXPECT_EQ(Integer(r, "nModified"), 2);
  EXPECT_EQ(One("students", R"({"_id": 3})"), CanonicalJson(R"({"_id": 3, "grades": [95, 100, 100]})"));
  BsonDoc unknown = Run(R"({"update": "students", "updates": [{"q": {}, "u": {"$set": {"grades.$[x]": 1}}}]})");
  ASSERT_OK_REPLY(unknown);
  EXPECT_EQ(Integer(unknown, "writeErrors.0.code"), 2) << Json(unknown);
}

TEST_F(UpdateTest, PositionalOperatorUpdatesMatchedElement) {
  InsertJson("students", R"([{"_id": 1, "grades": [85, 80, 80]}])");
  BsonDoc r = Run(R"({"update": "students", "updates": [{"q": {"_id": 1, "grades": 80},
                                                          "u": {"$set": {"grades.$": 82}}}]})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(One("students", R"({"_id": 1})"), CanonicalJson(R"({"_id": 1, "grades": [85, 82, 80]})"));
}

TEST_F(UpdateTest, UpsertSeedsFromFilterThenSetOnInsert) {
  BsonDoc r = Run(R"({"update": "u", "updates": [{"q": {"sku": "abc", "qty": {"$gt": 1}},
      "u": {"$set": {"price": 5}, "$setOnInsert": {"created": true}}, "upsert": true}]})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "n"), 1);
  EXPECT_EQ(Integer(r, "nModified"), 0);
  ASSERT_TRUE(Has(r, "upserted.0._id")) << Json(r);
  BsonDoc found = Run(R"({"find": "u", "projection": {"_id": 0}})");
  EXPECT_EQ(CanonicalJson(SubDoc(found, "cursor.firstBatch.0")),
            // Since MongoDB 5.0 update operators apply fields in lexicographic order.
            CanonicalJson(R"({"sku": "abc", "created": true, "price": 5})"));
}

TEST_F(UpdateTest, ErrorsLeaveDocumentUnchanged) {
  InsertJson("e", R"([{"_id": 1, "a": "text", "b": 1}])");
  BsonDoc inc = Run(R"({"update": "e", "updates": [{"q": {"_id": 1}, "u": {"$inc": {"a": 1}, "$set": {"b": 2}}}]})");
  ASSERT_OK_REPLY(inc);
  EXPECT_EQ(Integer(inc, "writeErrors.0.code"), 14) << Json(inc);
  BsonDoc conflict = Run(R"({"update": "e", "updates": [{"q": {"_id": 1}, "u": {"$set": {"b": 2}, "$inc": {"b": 1}}}]})");
  EXPECT_EQ(Integer(conflict, "writeErrors.0.code"), 40) << Json(conflict);
  BsonDoc immutable = Run(R"({"update": "e", "updates": [{"q": {"_id": 1}, "u": {"_id": 2, "a": 1}}]})");
  EXPECT_EQ(Integer(immutable, "writeErrors.0.code"), 66) << Json(immutable);
  EXPECT_EQ(One("e", R"({"_id": 1})"), CanonicalJson(R"({"_id": 1, "a": "text", "b": 1})"));
}

TEST_F(UpdateTest, UnacknowledgedWritesAreApplied) {
  mongoc_collection_t* coll = mongoc_client_get_collection(client_->get(), db_.c_str(), "w0");
  mongoc_write_concern_t* wc = mongoc_write_concern_new();
  mongoc_write_concern_set_w(wc, MONGOC_WRITE_CONCERN_W_UNACKNOWLEDGED);
  bson_t opts = BSON_INITIALIZER;
  mongoc_write_concern_append(wc, &opts);
  bson_error_t error;
  for (int i = 0; i < 50; ++i) {
    bson_t* doc = BCON_NEW("_id", BCON_INT32(i));
    EXPECT_TRUE(mongoc_collection_insert_one(coll, doc, &opts, nullptr, &error)) << error.message;
    bson_destroy(doc);
  }
  bson_destroy(&opts);
  mongoc_write_concern_destroy(wc);
  mongoc_collection_destroy(coll);
  // The same connection handles messages in order, so the count sees them.
  BsonDoc count = Run(R"({"count": "w0"})");
  EXPECT_EQ(Integer(count, "n"), 50) << Json(count);
}

TEST_F(UpdateTest, JournaledWriteConcernIsAcknowledged) {
  BsonDoc r = Run(R"({"insert": "j", "documents": [{"_id": 1}], "writeConcern": {"w": 1, "j": true}})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "n"), 1);
}

TEST_F(UpdateTest, DocumentsLargerThan16MiBAreRefused) {
  // An update that grows a document past 16 MiB: code 17419, nothing changes.
  InsertJson("big", R"([{"_id": 1}])");
  std::string nine_mib(9 * 1024 * 1024, 'x');
  for (const char* field : {"a", "b"}) {
    BsonDoc cmd;
    BSON_APPEND_UTF8(cmd.mutable_get(), "update", "big");
    bson_t updates, u0, u, set;
    bson_append_array_begin(cmd.mutable_get(), "updates", -1, &updates);
    bson_append_document_begin(&updates, "0", -1, &u0);
    bson_t q;
    bson_append_document_begin(&u0, "q", -1, &q);
    BSON_APPEND_INT32(&q, "_id", 1);
    bson_append_document_end(&u0, &q);
    bson_append_document_begin(&u0, "u", -1, &u);
    bson_append_document_begin(&u, "$set", -1, &set);
    bson_append_utf8(&set, field, -1, nine_mib.data(), static_cast<int>(nine_mib.size()));
    bson_append_document_end(&u, &set);
    bson_append_document_end(&u0, &u);
    bson_append_document_end(&updates, &u0);
    bson_append_array_end(cmd.mutable_get(), &updates);
    BsonDoc r = Run(cmd);
    ASSERT_OK_REPLY(r);
    if (std::string(field) == "a") {
      EXPECT_EQ(Integer(r, "nModified"), 1) << Json(r);
    } else {
      EXPECT_EQ(Integer(r, "writeErrors.0.code"), 17419) << testutil::String(r, "writeErrors.0.errmsg").value_or("");
    }
  }
  BsonDoc has_b = Run(R"({"count": "big", "query": {"b": {"$exists": true}}})");
  EXPECT_EQ(Integer(has_b, "n"), 0);

  // An insert of a document over 16 MiB, sent raw (drivers refuse to send
  // one): code 2 BadValue in writeErrors, as mongod (jstests/core/max_doc_size.js).
  auto conn = testutil::RawConnection::Connect(server_->port());
  ASSERT_TRUE(conn.ok());
  // Just over 16 MiB: the wire accepts documents up to 16 MiB + 16 KiB (as
  // MongoDB does, for command overhead), the insert path refuses them.
  std::string over_16_mib(16 * 1024 * 1024 + 100, 'y');
  BsonDoc insert;
  BSON_APPEND_UTF8(insert.mutable_get(), "insert", "big");
  bson_t docs, d0;
  bson_append_array_begin(insert.mutable_get(), "documents", -1, &docs);
  bson_append_document_begin(&docs, "0", -1, &d0);
  BSON_APPEND_INT32(&d0, "_id", 2);
  bson_append_utf8(&d0, "s", -1, over_16_mib.data(), static_cast<int>(over_16_mib.size()));
  bson_append_document_end(&docs, &d0);
  bson_append_array_end(insert.mutable_get(), &docs);
  BSON_APPEND_UTF8(insert.mutable_get(), "$db", db_.c_str());
  ASSERT_TRUE(conn.value().Send(testutil::EncodeOpMsg(7, insert)).ok());
  std::string reply;
  ASSERT_EQ(conn.value().ReadMessage(&reply, std::chrono::seconds(30)),
            testutil::RawConnection::ReadResult::kMessage);
  auto body = testutil::DecodeOpMsgBody(reply);
  ASSERT_TRUE(body.ok());
  EXPECT_EQ(Integer(body.value(), "writeErrors.0.code"), 2)
      << testutil::String(body.value(), "errmsg").value_or("") << Integer(body.value(), "code").value_or(0);
}

TEST_F(UpdateTest, ConcurrentIncrementsLoseNothing) {
  InsertJson("counter", R"([{"_id": 1, "n": 0}])");
  constexpr int kConnections = 8;
  constexpr int kIncrements = 10000;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < kConnections; ++t) {
    threads.emplace_back([&] {
      MongoClient client(server_->uri());
      BsonDoc cmd = BsonDoc::FromJson(
          R"({"update": "counter", "updates": [{"q": {"_id": 1}, "u": {"$inc": {"n": 1}}}]})");
      for (int i = 0; i < kIncrements; ++i) {
        BsonDoc r = client.RunCommand(db_, cmd);
        if (!testutil::IsOk(r) || Integer(r, "nModified") != 1) failures.fetch_add(1);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  BsonDoc r = Run(R"({"find": "counter"})");
  EXPECT_EQ(Integer(r, "cursor.firstBatch.0.n"), kConnections * kIncrements) << Json(r);
}

}  // namespace
}  // namespace tigerdoc::e2e
