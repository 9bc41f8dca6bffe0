// Catalog and statistics commands: count, listDatabases, listCollections,
// create, drop, dropDatabase, dbStats, collStats.
#include <algorithm>
#include <set>

#include "tests/e2e/e2e_test_base.h"

namespace tigerdoc::e2e {
namespace {

using testutil::DocArray;
using testutil::Has;
using testutil::Integer;
using testutil::Json;
using testutil::Number;
using testutil::String;
using testutil::TypeAt;

class CatalogTest : public E2eTest {
 protected:
  std::set<std::string> DatabaseNames() {
    BsonDoc r = RunAdmin(R"({"listDatabases": 1})");
    EXPECT_OK_REPLY(r);
    std::set<std::string> out;
    for (const auto& d : DocArray(r, "databases")) out.insert(String(d, "name").value_or("?"));
    return out;
  }

  std::set<std::string> CollectionNames() {
    BsonDoc r = Run(R"({"listCollections": 1})");
    EXPECT_OK_REPLY(r);
    std::set<std::string> out;
    for (const auto& d : DocArray(r, "cursor.firstBatch")) out.insert(String(d, "name").value_or("?"));
    return out;
  }

  // Inserts `docs_json` (one JSON document each) into `coll`; returns the
  // sum of their BSON sizes, which is what MongoDB reports as data size.
  int64_t InsertSized(const std::string& coll, const std::vector<std::string>& docs_json) {
    BsonDoc cmd;
    BSON_APPEND_UTF8(cmd.mutable_get(), "insert", coll.c_str());
    bson_t arr;
    BSON_APPEND_ARRAY_BEGIN(cmd.mutable_get(), "documents", &arr);
    int64_t total = 0;
    for (size_t i = 0; i < docs_json.size(); ++i) {
      BsonDoc d = BsonDoc::FromJson(docs_json[i]);
      total += static_cast<int64_t>(d.size());
      BSON_APPEND_DOCUMENT(&arr, std::to_string(i).c_str(), d.get());
    }
    bson_append_array_end(cmd.mutable_get(), &arr);
    BsonDoc r = Run(cmd);
    EXPECT_OK_REPLY(r);
    EXPECT_EQ(Integer(r, "n"), static_cast<int64_t>(docs_json.size())) << Json(r);
    return total;
  }
};

TEST_F(CatalogTest, CountWithQuerySkipAndLimit) {
  InsertJson("c", R"([{"_id": 1, "a": 1}, {"_id": 2, "a": 2}, {"_id": 3, "a": 3}, {"_id": 4, "a": 4}])");
  BsonDoc r = Run(R"({"count": "c"})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(TypeAt(r, "n"), BSON_TYPE_INT32) << Json(r);
  EXPECT_EQ(Integer(r, "n"), 4) << Json(r);
  EXPECT_EQ(Integer(Run(R"({"count": "c", "query": {"a": {"$gt": 2}}})"), "n"), 2);
  EXPECT_EQ(Integer(Run(R"({"count": "c", "skip": 1, "limit": 2})"), "n"), 2);
  EXPECT_EQ(Integer(Run(R"({"count": "c", "skip": 3})"), "n"), 1);
  // A missing collection counts zero.
  r = Run(R"({"count": "nope"})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "n"), 0) << Json(r);
}

TEST_F(CatalogTest, ListDatabasesShowsDatabasesWithData) {
  EXPECT_EQ(DatabaseNames().count(db_), 0u);
  InsertJson("c", R"([{"_id": 1}])");
  BsonDoc r = RunAdmin(R"({"listDatabases": 1})");
  ASSERT_OK_REPLY(r);
  bool found = false;
  for (const auto& d : DocArray(r, "databases")) {
    if (String(d, "name") != db_) continue;
    found = true;
    EXPECT_TRUE(Number(d, "sizeOnDisk").has_value()) << Json(d);
    EXPECT_EQ(TypeAt(d, "empty"), BSON_TYPE_BOOL) << Json(d);
    EXPECT_EQ(Number(d, "empty"), 0.0) << Json(d);
  }
  EXPECT_TRUE(found) << Json(r);
  EXPECT_TRUE(Number(r, "totalSize").has_value()) << Json(r);
  EXPECT_TRUE(Number(r, "totalSizeMb").has_value()) << Json(r);

  r = RunAdmin(R"({"listDatabases": 1, "nameOnly": true})");
  ASSERT_OK_REPLY(r);
  for (const auto& d : DocArray(r, "databases")) {
    EXPECT_EQ(bson_count_keys(d.get()), 1u) << "nameOnly gives only names: " << Json(d);
  }
}

TEST_F(CatalogTest, ListDatabasesOnlyOnAdmin) {
  BsonDoc r = Run(R"({"listDatabases": 1})");
  EXPECT_ERROR_REPLY(r, 13, "Unauthorized");
  EXPECT_EQ(String(r, "errmsg"), "listDatabases may only be run against the admin database.")
      << Json(r);
}

TEST_F(CatalogTest, ListCollectionsShape) {
  InsertJson("c1", R"([{"_id": 1}])");
  ASSERT_OK_REPLY(Run(R"({"create": "c2"})"));
  BsonDoc r = Run(R"({"listCollections": 1})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "cursor.id"), 0) << Json(r);
  EXPECT_EQ(String(r, "cursor.ns"), db_ + ".$cmd.listCollections") << Json(r);
  auto colls = DocArray(r, "cursor.firstBatch");
  ASSERT_EQ(colls.size(), 2u) << Json(r);
  for (const auto& c : colls) {
    EXPECT_EQ(String(c, "type"), "collection") << Json(c);
    EXPECT_EQ(TypeAt(c, "options"), BSON_TYPE_DOCUMENT) << Json(c);
    EXPECT_EQ(TypeAt(c, "info"), BSON_TYPE_DOCUMENT) << Json(c);
    EXPECT_EQ(Number(c, "info.readOnly"), 0.0) << Json(c);
    EXPECT_EQ(String(c, "idIndex.name"), "_id_") << Json(c);
  }
  EXPECT_EQ(CollectionNames(), (std::set<std::string>{"c1", "c2"}));

  r = Run(R"({"listCollections": 1, "filter": {"name": "c2"}})");
  ASSERT_EQ(DocArray(r, "cursor.firstBatch").size(), 1u) << Json(r);
  EXPECT_EQ(String(DocArray(r, "cursor.firstBatch")[0], "name"), "c2");

  r = Run(R"({"listCollections": 1, "nameOnly": true})");
  for (const auto& c : DocArray(r, "cursor.firstBatch")) {
    EXPECT_EQ(bson_count_keys(c.get()), 2u) << "nameOnly gives name and type: " << Json(c);
    EXPECT_EQ(String(c, "type"), "collection") << Json(c);
  }
}

TEST_F(CatalogTest, CreateRejectsExistingWithDifferentOptionsAndBadNames) {
  ASSERT_OK_REPLY(Run(R"({"create": "c"})"));
  // MongoDB >= 7.0 accepts an identical re-create; every version rejects a
  // re-create with different options.
  BsonDoc r = Run(R"({"create": "c", "shardKey": {"k": 1}, "shards": 4})");
  EXPECT_ERROR_REPLY(r, 48, "NamespaceExists");
  r = Run(R"({"create": ""})");
  EXPECT_ERROR_REPLY(r, 73, "InvalidNamespace");
}

TEST_F(CatalogTest, DropRemovesCollectionAndItsDocuments) {
  InsertJson("c", R"([{"_id": 1}, {"_id": 2}])");
  InsertJson("keep", R"([{"_id": 1}])");
  BsonDoc r = Run(R"({"drop": "c"})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "nIndexesWas"), 1) << Json(r);
  EXPECT_EQ(String(r, "ns"), db_ + ".c") << Json(r);
  EXPECT_EQ(CollectionNames(), (std::set<std::string>{"keep"}));
  EXPECT_EQ(Integer(Run(R"({"count": "c"})"), "n"), 0);
  // Re-creating by insert starts empty.
  InsertJson("c", R"([{"_id": 1}])");
  EXPECT_EQ(Integer(Run(R"({"count": "c"})"), "n"), 1);
}

TEST_F(CatalogTest, DropDatabaseRemovesEverything) {
  InsertJson("c", R"([{"_id": 1}])");
  InsertJson("d", R"([{"_id": 1}])");
  ASSERT_EQ(DatabaseNames().count(db_), 1u);
  BsonDoc r = Run(R"({"dropDatabase": 1})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(DatabaseNames().count(db_), 0u);
  EXPECT_TRUE(CollectionNames().empty());
  EXPECT_EQ(Integer(Run(R"({"count": "c"})"), "n"), 0);
}

TEST_F(CatalogTest, DbStatsCountsCollectionsObjectsAndExactDataSize) {
  int64_t size = InsertSized("c1", {R"({"_id": 1, "s": "hello"})", R"({"_id": 2, "n": 3.5})",
                                    R"({"_id": 3, "arr": [1, 2, 3]})"});
  size += InsertSized("c2", {R"({"_id": "a", "x": {"y": true}})", R"({"_id": "b"})"});
  BsonDoc r = Run(R"({"dbStats": 1})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(String(r, "db"), db_) << Json(r);
  EXPECT_EQ(Number(r, "collections"), 2.0) << Json(r);
  EXPECT_EQ(Number(r, "objects"), 5.0) << Json(r);
  EXPECT_EQ(Number(r, "dataSize"), static_cast<double>(size)) << Json(r);
  EXPECT_EQ(Number(r, "avgObjSize"), static_cast<double>(size) / 5) << Json(r);
  EXPECT_EQ(Number(r, "indexes"), 2.0) << Json(r);
  for (const char* f : {"views", "storageSize", "indexSize", "totalSize", "scaleFactor"}) {
    EXPECT_TRUE(Number(r, f).has_value()) << f << " missing: " << Json(r);
  }
}

TEST_F(CatalogTest, CollStatsReportsExactSizeAndFollowsDeletes) {
  std::vector<std::string> docs;
  for (int i = 0; i < 10; ++i) {
    docs.push_back(R"({"_id": )" + std::to_string(i) + R"(, "v": ")" + std::string(i * 10, 'z') + "\"}");
  }
  int64_t size = InsertSized("c", docs);
  BsonDoc r = Run(R"({"collStats": "c"})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(String(r, "ns"), db_ + ".c") << Json(r);
  EXPECT_EQ(Number(r, "count"), 10.0) << Json(r);
  EXPECT_EQ(Number(r, "size"), static_cast<double>(size)) << Json(r);
  EXPECT_EQ(Number(r, "avgObjSize"), static_cast<double>(size / 10)) << Json(r);
  EXPECT_EQ(Number(r, "nindexes"), 1.0) << Json(r);
  EXPECT_TRUE(Has(r, "indexSizes._id_")) << Json(r);
  EXPECT_TRUE(Number(r, "storageSize").has_value()) << Json(r);
  EXPECT_TRUE(Number(r, "totalIndexSize").has_value()) << Json(r);

  // Delete the largest document: count and size follow exactly.
  BsonDoc last = BsonDoc::FromJson(docs.back());
  ASSERT_OK_REPLY(Run(R"({"delete": "c", "deletes": [{"q": {"_id": 9}, "limit": 1}]})"));
  r = Run(R"({"collStats": "c"})");
  EXPECT_EQ(Number(r, "count"), 9.0) << Json(r);
  EXPECT_EQ(Number(r, "size"), static_cast<double>(size - static_cast<int64_t>(last.size())))
      << Json(r);

  // An update that grows a document grows size by the difference.
  ASSERT_OK_REPLY(Run(R"({"update": "c", "updates": [{"q": {"_id": 0}, "u": {"$set": {"v": "0123456789"}}}]})"));
  r = Run(R"({"collStats": "c"})");
  EXPECT_EQ(Number(r, "size"), static_cast<double>(size - static_cast<int64_t>(last.size()) + 10))
      << Json(r);
}

}  // namespace
}  // namespace tigerdoc::e2e
