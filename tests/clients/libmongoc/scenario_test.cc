// The client scenario (tests/clients/README.md) through libmongoc's own API
// (collections, bulk operations, cursors, bson_error_t), not raw commands
// where the driver has a helper, against the real server E2eTest starts.

#include <mongoc/mongoc.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tests/e2e/e2e_test_base.h"

namespace tigerdoc::e2e {
namespace {

BsonDoc J(std::string_view json) { return BsonDoc::FromJson(json); }

// Every document of a cursor, which is destroyed; fails on a cursor error.
std::vector<BsonDoc> Drain(mongoc_cursor_t* cursor) {
  std::vector<BsonDoc> out;
  const bson_t* doc;
  while (mongoc_cursor_next(cursor, &doc)) out.push_back(BsonDoc::CopyOf(doc));
  bson_error_t error;
  EXPECT_FALSE(mongoc_cursor_error(cursor, &error)) << error.message;
  mongoc_cursor_destroy(cursor);
  return out;
}

class ClientScenarioLibmongoc : public E2eTest {
 protected:
  void SetUp() override {
    E2eTest::SetUp();
    // The driver's defaults and a plain mongodb:// URI.
    std::string uri = "mongodb://127.0.0.1:" + std::to_string(server_->port()) + "/";
    client_raw_ = mongoc_client_new(uri.c_str());
    ASSERT_NE(client_raw_, nullptr);
    // Server errors in MONGOC_ERROR_SERVER with the server's code, as
    // libmongoc recommends for new code (version 1 scatters them by API).
    ASSERT_TRUE(mongoc_client_set_error_api(client_raw_, MONGOC_ERROR_API_VERSION_2));
    db_raw_ = mongoc_client_get_database(client_raw_, "scenario_libmongoc");
    bson_error_t error;
    mongoc_database_drop(db_raw_, &error);  // absent the first time
  }
  void TearDown() override {
    for (auto* c : colls_) mongoc_collection_destroy(c);
    if (db_raw_) mongoc_database_destroy(db_raw_);
    if (client_raw_) mongoc_client_destroy(client_raw_);
    E2eTest::TearDown();
  }
  mongoc_collection_t* Coll(const char* name) {
    colls_.push_back(mongoc_database_get_collection(db_raw_, name));
    return colls_.back();
  }
  // A bulk insert of `docs` (JSON objects), ordered or not; returns the
  // reply and the error.
  BsonDoc BulkInsert(mongoc_collection_t* coll, const std::vector<std::string>& docs, bool ordered,
                     bson_error_t* error, bool* ok) {
    BsonDoc opts = J(ordered ? R"({"ordered": true})" : R"({"ordered": false})");
    mongoc_bulk_operation_t* bulk = mongoc_collection_create_bulk_operation_with_opts(coll, opts.get());
    for (const auto& d : docs) {
      BsonDoc doc = J(d);
      EXPECT_TRUE(mongoc_bulk_operation_insert_with_opts(bulk, doc.get(), nullptr, error)) << error->message;
    }
    BsonDoc reply;
    *ok = mongoc_bulk_operation_execute(bulk, reply.mutable_get(), error) != 0;
    mongoc_bulk_operation_destroy(bulk);
    return reply;
  }
  std::vector<std::string> IndexNames(mongoc_collection_t* coll) {
    std::vector<std::string> names;
    for (const auto& spec : Drain(mongoc_collection_find_indexes_with_opts(coll, nullptr))) {
      names.push_back(testutil::String(spec, "name").value_or(""));
    }
    return names;
  }

  mongoc_client_t* client_raw_ = nullptr;
  mongoc_database_t* db_raw_ = nullptr;
  std::vector<mongoc_collection_t*> colls_;
};

TEST_F(ClientScenarioLibmongoc, TheWholeScenario) {
  bson_error_t error;

  // 1. create with tigerdoc's options
  mongoc_collection_t* customers = mongoc_database_create_collection(db_raw_, "customers", nullptr, &error);
  ASSERT_NE(customers, nullptr) << error.message;
  colls_.push_back(customers);
  BsonDoc create_opts = J(R"({"shardKey": {"customer": 1}, "shards": 3, "maxDocumentBytes": 2048})");
  mongoc_collection_t* orders = mongoc_database_create_collection(db_raw_, "orders", create_opts.get(), &error);
  ASSERT_NE(orders, nullptr) << error.message;
  colls_.push_back(orders);
  BsonDoc filter = J(R"({"filter": {"name": "orders"}})");
  auto infos = Drain(mongoc_database_find_collections_with_opts(db_raw_, filter.get()));
  ASSERT_EQ(infos.size(), 1u);
  EXPECT_EQ(testutil::CanonicalJson(testutil::SubDoc(infos[0], "options.shardKey")),
            testutil::CanonicalJson(R"({"customer": 1})"));
  EXPECT_EQ(testutil::Integer(infos[0], "options.maxDocumentBytes"), 2048);

  // 2. CRUD
  std::vector<BsonDoc> people;
  for (const char* json : {R"({"_id": "c1", "name": "Ada"})", R"({"_id": "c2", "name": "Bo"})",
                           R"({"_id": "c3", "name": "Cy"})"}) {
    people.push_back(J(json));
  }
  const bson_t* people_ptrs[] = {people[0].get(), people[1].get(), people[2].get()};
  BsonDoc reply;
  ASSERT_TRUE(mongoc_collection_insert_many(customers, people_ptrs, 3, nullptr, reply.mutable_get(), &error))
      << error.message;
  EXPECT_EQ(testutil::Integer(reply, "insertedCount"), 3);
  BsonDoc first = J(R"({"_id": 1, "customer": "c1", "status": "open", "total": 10})");
  ASSERT_TRUE(mongoc_collection_insert_one(orders, first.get(), nullptr, nullptr, &error)) << error.message;
  BsonDoc by_id = J(R"({"_id": 1})");
  auto found = Drain(mongoc_collection_find_with_opts(orders, by_id.get(), nullptr, nullptr));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(testutil::Integer(found[0], "total"), 10);
  BsonDoc inc = J(R"({"$inc": {"total": 5}})");
  BsonDoc update_reply;
  ASSERT_TRUE(mongoc_collection_update_one(orders, by_id.get(), inc.get(), nullptr, update_reply.mutable_get(),
                                           &error)) << error.message;
  EXPECT_EQ(testutil::Integer(update_reply, "modifiedCount"), 1);
  BsonDoc replacement = J(R"({"customer": "c1", "status": "open", "total": 15, "note": "replaced"})");
  BsonDoc replace_reply;
  ASSERT_TRUE(mongoc_collection_replace_one(orders, by_id.get(), replacement.get(), nullptr,
                                            replace_reply.mutable_get(), &error)) << error.message;
  EXPECT_EQ(testutil::Integer(replace_reply, "modifiedCount"), 1);
  found = Drain(mongoc_collection_find_with_opts(orders, by_id.get(), nullptr, nullptr));
  EXPECT_EQ(testutil::String(found.at(0), "note"), "replaced");
  BsonDoc c3 = J(R"({"_id": "c3"})");
  BsonDoc delete_reply;
  ASSERT_TRUE(mongoc_collection_delete_one(customers, c3.get(), nullptr, delete_reply.mutable_get(), &error));
  EXPECT_EQ(testutil::Integer(delete_reply, "deletedCount"), 1);

  // 3. bulk writes with a duplicate key, ordered and unordered: the driver
  // reports the server's write error as a bson_error_t in its server domain.
  bool ok = true;
  BsonDoc ordered = BulkInsert(orders,
                               {R"({"_id": 2, "customer": "c1", "status": "open", "total": 20})",
                                R"({"_id": 2, "customer": "c1", "status": "open", "total": 20})",
                                R"({"_id": 3, "customer": "c2", "status": "closed", "total": 30})"},
                               true, &error, &ok);
  EXPECT_FALSE(ok);
  EXPECT_EQ(error.domain, static_cast<uint32_t>(MONGOC_ERROR_SERVER));
  EXPECT_EQ(error.code, 11000u);
  EXPECT_EQ(testutil::Integer(ordered, "nInserted"), 1) << testutil::Json(ordered);
  EXPECT_EQ(testutil::Integer(ordered, "writeErrors.0.index"), 1) << testutil::Json(ordered);
  BsonDoc three = J(R"({"_id": 3})");
  EXPECT_TRUE(Drain(mongoc_collection_find_with_opts(orders, three.get(), nullptr, nullptr)).empty());
  BsonDoc unordered = BulkInsert(orders,
                                 {R"({"_id": 3, "customer": "c2", "status": "closed", "total": 30})",
                                  R"({"_id": 2, "customer": "c1", "status": "open", "total": 20})",
                                  R"({"_id": 4, "customer": "c2", "status": "open", "total": 40})"},
                                 false, &error, &ok);
  EXPECT_FALSE(ok);
  EXPECT_EQ(error.code, 11000u);
  EXPECT_EQ(testutil::Integer(unordered, "nInserted"), 2) << testutil::Json(unordered);
  EXPECT_EQ(testutil::Integer(unordered, "writeErrors.0.index"), 1) << testutil::Json(unordered);
  EXPECT_EQ(testutil::Integer(unordered, "writeErrors.0.code"), 11000) << testutil::Json(unordered);

  // 4. findOneAndUpdate, the document after
  BsonDoc four = J(R"({"_id": 4})");
  BsonDoc ship = J(R"({"$set": {"status": "shipped"}})");
  mongoc_find_and_modify_opts_t* fam = mongoc_find_and_modify_opts_new();
  mongoc_find_and_modify_opts_set_update(fam, ship.get());
  mongoc_find_and_modify_opts_set_flags(fam, MONGOC_FIND_AND_MODIFY_RETURN_NEW);
  BsonDoc fam_reply;
  ASSERT_TRUE(mongoc_collection_find_and_modify_with_opts(orders, four.get(), fam, fam_reply.mutable_get(), &error))
      << error.message;
  mongoc_find_and_modify_opts_destroy(fam);
  EXPECT_EQ(testutil::String(fam_reply, "value.status"), "shipped");
  EXPECT_EQ(testutil::Integer(fam_reply, "value.total"), 40);

  // 5. index create / list / drop
  // libmongoc 1.23 deprecates its index helper for the createIndexes
  // command through the collection's write-command path.
  BsonDoc create_index = J(R"({"createIndexes": "orders",
                              "indexes": [{"key": {"status": 1, "total": -1}, "name": "status_total"}]})");
  ASSERT_TRUE(mongoc_collection_write_command_with_opts(orders, create_index.get(), nullptr, nullptr, &error))
      << error.message;
  auto names = IndexNames(orders);
  EXPECT_NE(std::find(names.begin(), names.end(), "_id_"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "status_total"), names.end());
  ASSERT_TRUE(mongoc_collection_drop_index(orders, "status_total", &error)) << error.message;
  names = IndexNames(orders);
  EXPECT_EQ(std::find(names.begin(), names.end(), "status_total"), names.end());

  // 6. aggregate with $lookup and $group
  BsonDoc pipeline = J(R"({"pipeline": [
      {"$lookup": {"from": "customers", "localField": "customer", "foreignField": "_id", "as": "c"}},
      {"$unwind": "$c"},
      {"$group": {"_id": "$c.name", "total": {"$sum": "$total"}, "n": {"$sum": 1}}},
      {"$sort": {"_id": 1}}]})");
  auto totals = Drain(mongoc_collection_aggregate(orders, MONGOC_QUERY_NONE, pipeline.get(), nullptr, nullptr));
  ASSERT_EQ(totals.size(), 2u);
  EXPECT_EQ(testutil::CanonicalJson(totals[0]), testutil::CanonicalJson(R"({"_id": "Ada", "total": 35, "n": 2})"));
  EXPECT_EQ(testutil::CanonicalJson(totals[1]), testutil::CanonicalJson(R"({"_id": "Bo", "total": 70, "n": 2})"));

  // 7. a cursor paging past one batch
  mongoc_collection_t* pages = Coll("pages");
  std::vector<BsonDoc> page_docs;
  for (int i = 0; i < 250; ++i) page_docs.push_back(J(R"({"_id": )" + std::to_string(i) + R"(, "i": )" +
                                                      std::to_string(i) + "}"));
  const bson_t* page_ptrs[250];
  for (int i = 0; i < 250; ++i) page_ptrs[i] = page_docs[i].get();
  ASSERT_TRUE(mongoc_collection_insert_many(pages, page_ptrs, 250, nullptr, nullptr, &error))
      << error.message;
  BsonDoc all = J("{}");
  BsonDoc paging = J(R"({"sort": {"_id": 1}, "batchSize": 40})");
  auto paged = Drain(mongoc_collection_find_with_opts(pages, all.get(), paging.get(), nullptr));
  ASSERT_EQ(paged.size(), 250u);
  for (int i = 0; i < 250; ++i) EXPECT_EQ(testutil::Integer(paged[i], "i"), i);

  // 8. counts
  BsonDoc open = J(R"({"status": "open"})");
  EXPECT_EQ(mongoc_collection_count_documents(orders, open.get(), nullptr, nullptr, nullptr, &error), 2)
      << error.message;
  EXPECT_EQ(mongoc_collection_estimated_document_count(orders, nullptr, nullptr, nullptr, &error), 4)
      << error.message;

  // 9. distinct (libmongoc has no helper: the command through the collection)
  BsonDoc distinct_cmd = J(R"({"distinct": "orders", "key": "customer"})");
  BsonDoc distinct;
  ASSERT_TRUE(mongoc_collection_read_command_with_opts(orders, distinct_cmd.get(), nullptr, nullptr,
                                                       distinct.mutable_get(), &error)) << error.message;
  ASSERT_EQ(testutil::ArrayLength(distinct, "values"), 2u) << testutil::Json(distinct);
  std::vector<std::string> values = {testutil::String(distinct, "values.0").value_or(""),
                                     testutil::String(distinct, "values.1").value_or("")};
  std::sort(values.begin(), values.end());
  EXPECT_EQ(values, (std::vector<std::string>{"c1", "c2"}));

  // 10. explain: one shard of three read for the shard key
  BsonDoc explain_cmd = J(R"({"explain": {"find": "orders", "filter": {"customer": "c1"}}})");
  BsonDoc plan;
  ASSERT_TRUE(mongoc_database_command_simple(db_raw_, explain_cmd.get(), nullptr, plan.mutable_get(), &error))
      << error.message;
  EXPECT_TRUE(testutil::Has(plan, "queryPlanner"));
  EXPECT_EQ(testutil::TypeAt(plan, "sharding.targeted"), BSON_TYPE_BOOL);
  EXPECT_EQ(testutil::Number(plan, "sharding.targeted"), 1.0);
  EXPECT_EQ(testutil::Integer(plan, "sharding.numShards"), 3);
  EXPECT_EQ(testutil::ArrayLength(plan, "sharding.shardsRead"), 1u);

  // 11. server error codes as the driver exposes them
  BsonDoc big = J(R"({"_id": 5, "customer": "c1", "pad": ")" + std::string(3000, 'x') + "\"}");
  EXPECT_FALSE(mongoc_collection_insert_one(orders, big.get(), nullptr, nullptr, &error));
  EXPECT_EQ(error.domain, static_cast<uint32_t>(MONGOC_ERROR_SERVER));
  EXPECT_EQ(error.code, 10334u);
  BsonDoc unknown = J(R"({"tigerdocNoSuchCommand": 1})");
  BsonDoc unknown_reply;
  EXPECT_FALSE(mongoc_database_command_simple(db_raw_, unknown.get(), nullptr, unknown_reply.mutable_get(),
                                              &error));
  EXPECT_EQ(error.domain, static_cast<uint32_t>(MONGOC_ERROR_SERVER));
  EXPECT_EQ(error.code, 59u);
  EXPECT_EQ(testutil::String(unknown_reply, "codeName"), "CommandNotFound");
}

}  // namespace
}  // namespace tigerdoc::e2e
