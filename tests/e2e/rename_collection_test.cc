// renameCollection (admin command): the documents, indexes and options move
// to the new name, in the same database or another; dropTarget replaces an
// existing target; MongoDB 7's codes for every refusal; renames from several
// connections at once while others write.

#include <atomic>
#include <set>
#include <thread>
#include <vector>

#include "tests/e2e/e2e_test_base.h"
#include "tests/testutil/wait_until.h"

namespace tigerdoc::e2e {
namespace {

using testutil::Integer;
using testutil::Json;
using testutil::String;

class RenameCollectionTest : public E2eTest {
 protected:
  BsonDoc Rename(const std::string& from, const std::string& to, const std::string& extra = "") {
    return RunAdmin("{\"renameCollection\": \"" + from + "\", \"to\": \"" + to + "\"" + extra + "}");
  }
  std::string Ns(const std::string& coll) const { return db_ + "." + coll; }
  int64_t Count(const std::string& db, const std::string& coll) {
    BsonDoc reply = client_->RunCommand(db, "{\"count\": \"" + coll + "\"}");
    EXPECT_OK_REPLY(reply);
    return Integer(reply, "n").value_or(-1);
  }
  std::set<std::string> Names(const std::string& db) {
    BsonDoc listed = client_->RunCommand(db, R"({"listCollections": 1, "nameOnly": true})");
    std::set<std::string> names;
    for (const BsonDoc& c : testutil::DocArray(listed, "cursor.firstBatch")) names.insert(*String(c, "name"));
    return names;
  }
};

TEST_F(RenameCollectionTest, DocumentsIndexesAndOptionsMoveToTheNewName) {
  ASSERT_OK_REPLY(Run(R"({"create": "a", "validator": {"n": {"$type": "int"}}})"));
  InsertJson("a", R"([{"_id": 1, "n": 1}, {"_id": 2, "n": 2}])");
  ASSERT_OK_REPLY(Run(R"({"createIndexes": "a", "indexes": [{"key": {"n": 1}, "name": "n_1", "unique": true}]})"));
  ASSERT_OK_REPLY(Rename(Ns("a"), Ns("b")));
  EXPECT_EQ(Names(db_), (std::set<std::string>{"b"}));
  EXPECT_EQ(Count(db_, "b"), 2);
  BsonDoc indexes = Run(R"({"listIndexes": "b"})");
  EXPECT_EQ(String(indexes, "cursor.firstBatch.1.name"), std::string("n_1")) << Json(indexes);
  EXPECT_EQ(String(indexes, "cursor.firstBatch.1.ns"), std::nullopt);  // as MongoDB 7: no ns
  // The unique index and the validator still hold under the new name.
  EXPECT_EQ(Integer(Run(R"({"insert": "b", "documents": [{"_id": 3, "n": 1}]})"), "writeErrors.0.code"), 11000);
  EXPECT_EQ(Integer(Run(R"({"insert": "b", "documents": [{"_id": 4, "n": "x"}]})"), "writeErrors.0.code"), 121);
  BsonDoc found = Run(R"({"find": "b", "filter": {"n": 2}})");
  EXPECT_EQ(Ids(found), (std::vector<int64_t>{2}));
  // The old name is free again and empty.
  EXPECT_EQ(Count(db_, "a"), 0);
  InsertJson("a", R"([{"_id": 9}])");
  EXPECT_EQ(Count(db_, "a"), 1);
}

TEST_F(RenameCollectionTest, AcrossDatabasesAndWithDropTarget) {
  InsertJson("src", R"([{"_id": 1}, {"_id": 2}])");
  const std::string other = db_ + "_other";
  ASSERT_OK_REPLY(Rename(Ns("src"), other + ".moved"));
  EXPECT_EQ(Count(other, "moved"), 2);
  EXPECT_EQ(Names(db_).count("src"), 0u);

  InsertJson("t", R"([{"_id": "old target"}])");
  ASSERT_OK_REPLY(client_->RunCommand(other, R"({"insert": "moved", "documents": [{"_id": 3}]})"));
  EXPECT_ERROR_REPLY(Rename(other + ".moved", Ns("t")), 48, "NamespaceExists");
  EXPECT_ERROR_REPLY(Rename(other + ".moved", Ns("t"), ", \"dropTarget\": false"), 48, "NamespaceExists");
  EXPECT_EQ(Count(other, "moved"), 3);
  ASSERT_OK_REPLY(Rename(other + ".moved", Ns("t"), ", \"dropTarget\": true"));
  EXPECT_EQ(Count(db_, "t"), 3);
  BsonDoc gone = Run(R"({"find": "t", "filter": {"_id": "old target"}})");
  EXPECT_TRUE(Ids(gone).empty()) << Json(gone);
  EXPECT_TRUE(Names(other).empty());
  // dropTarget with no target is an ordinary rename.
  ASSERT_OK_REPLY(Rename(Ns("t"), Ns("u"), ", \"dropTarget\": true"));
  EXPECT_EQ(Count(db_, "u"), 3);
}

TEST_F(RenameCollectionTest, RefusalsAnswerMongoDb7Codes) {
  InsertJson("a", R"([{"_id": 1}])");
  InsertJson("b", R"([{"_id": 1}])");
  ASSERT_OK_REPLY(Run(R"({"create": "v", "viewOn": "a", "pipeline": []})"));
  BsonDoc missing = Rename(Ns("nope"), Ns("x"));
  EXPECT_ERROR_REPLY(missing, 26, "NamespaceNotFound");
  EXPECT_EQ(String(missing, "errmsg"), "Source collection " + Ns("nope") + " does not exist");
  BsonDoc exists = Rename(Ns("a"), Ns("b"));
  EXPECT_ERROR_REPLY(exists, 48, "NamespaceExists");
  EXPECT_EQ(String(exists, "errmsg"), std::string("target namespace exists"));
  BsonDoc itself = Rename(Ns("a"), Ns("a"));
  EXPECT_ERROR_REPLY(itself, 20, "IllegalOperation");
  EXPECT_EQ(String(itself, "errmsg"), std::string("Can't rename a collection to itself"));
  EXPECT_ERROR_REPLY(Rename(Ns("v"), Ns("w")), 166, "CommandNotSupportedOnView");
  EXPECT_ERROR_REPLY(Rename(Ns("a"), Ns("v")), 48, "NamespaceExists");
  BsonDoc bad_source = Rename("nodot", Ns("x"));
  EXPECT_ERROR_REPLY(bad_source, 73, "InvalidNamespace");
  EXPECT_EQ(String(bad_source, "errmsg"), std::string("Invalid source namespace: nodot"));
  EXPECT_ERROR_REPLY(Rename(Ns("a"), db_ + ".bad$name"), 73, "InvalidNamespace");
  EXPECT_ERROR_REPLY(Rename(Ns("a"), db_ + "."), 73, "InvalidNamespace");
  EXPECT_ERROR_REPLY(RunAdmin("{\"renameCollection\": \"" + Ns("a") + "\"}"), 40414, "Location40414");
  EXPECT_ERROR_REPLY(RunAdmin("{\"renameCollection\": 1, \"to\": \"" + Ns("x") + "\"}"), 14, "TypeMismatch");
  EXPECT_ERROR_REPLY(Rename(Ns("a"), Ns("x"), ", \"bogus\": 1"), 40415, "Location40415");
  // Only on the admin database.
  BsonDoc not_admin = Run("{\"renameCollection\": \"" + Ns("a") + "\", \"to\": \"" + Ns("x") + "\"}");
  EXPECT_ERROR_REPLY(not_admin, 13, "Unauthorized");
  // Nothing changed.
  EXPECT_EQ(Names(db_), (std::set<std::string>{"a", "b", "v"}));
  EXPECT_EQ(Count(db_, "a"), 1);
}

// Four connections each keep renaming their collection away to a fresh name
// while four others keep inserting under the original name (which recreates
// it): every acknowledged insert is found under one of the names afterwards,
// every rename either moves the collection or finds it just moved (26), and
// the server keeps serving. Fresh target names make the first rename of each
// pair certain to succeed whatever order the threads run in (renaming back
// and forth could fail with 48 for good once a writer recreated both names).
TEST_F(RenameCollectionTest, ConcurrentRenamesAndWritesLoseNothing) {
  constexpr int kPairs = 4;
  constexpr int kRenames = 30;
  for (int p = 0; p < kPairs; ++p) InsertJson("p" + std::to_string(p), R"([{"_id": "seed"}])");
  std::atomic<bool> stop{false};
  std::atomic<int64_t> acknowledged{0};
  std::vector<std::atomic<int64_t>> renamed(kPairs);
  std::vector<std::thread> threads;
  for (int p = 0; p < kPairs; ++p) {
    threads.emplace_back([&, p] {
      MongoClient client(server_->uri());
      const std::string source = Ns("p" + std::to_string(p));
      for (int i = 0; i < kRenames; ++i) {
        const std::string target = source + "_moved" + std::to_string(i);
        BsonDoc r = client.RunCommand("admin", "{\"renameCollection\": \"" + source + "\", \"to\": \"" + target + "\"}");
        const int64_t code = testutil::IsOk(r) ? 0 : Integer(r, "code").value_or(-1);
        EXPECT_TRUE(code == 0 || code == 26) << Json(r);
        if (code == 0) renamed[p].fetch_add(1);
      }
    });
    threads.emplace_back([&, p] {
      MongoClient client(server_->uri());
      const std::string coll = "p" + std::to_string(p);
      for (int i = 0; !stop.load(); ++i) {
        BsonDoc r = client.RunCommand(db_, "{\"insert\": \"" + coll + "\", \"documents\": [{\"_id\": " +
                                               std::to_string(i) + "}]}");
        if (testutil::IsOk(r) && !testutil::Has(r, "writeErrors")) acknowledged.fetch_add(1);
      }
    });
  }
  for (int t = 0; t < 2 * kPairs; t += 2) threads[t].join();
  // The writers' threads may not even have connected yet on a loaded
  // machine: stop them only once writes were acknowledged.
  EXPECT_TRUE(testutil::WaitUntil([&] { return acknowledged.load() > 0; }));
  stop = true;
  for (int t = 1; t < 2 * kPairs; t += 2) threads[t].join();
  int64_t found = -kPairs;  // the seeds
  for (const std::string& name : Names(db_)) found += Count(db_, name);
  EXPECT_EQ(found, acknowledged.load());
  EXPECT_GT(acknowledged.load(), 0);
  for (int p = 0; p < kPairs; ++p) EXPECT_GT(renamed[p].load(), 0) << "pair " << p;
}

}  // namespace
}  // namespace tigerdoc::e2e
