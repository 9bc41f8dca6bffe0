// Updates whose filter is exactly {_id: v} skip the query planner and go
// straight to the point read (engine/write/engine_writes.cc, IdEquality):
// the answers must be those of the planned path, for numbers of another
// type, absent _ids with and without upsert, collections sharded by another
// field, filters that only look like {_id: v}, and several connections
// updating the same documents at once. A $set of existing top-level
// fields is spliced into the stored bytes (engine/update/in_place_set.h):
// its answers must be the general path's (field order, no-ops, appended
// fields, validators, unique indexes), also from concurrent connections.
#include <thread>
#include <vector>

#include "tests/e2e/e2e_test_base.h"

namespace tigerdoc::e2e {
namespace {

using testutil::DocArray;
using testutil::Integer;
using testutil::Json;

class UpdateByIdTest : public E2eTest {
 protected:
  // {n, nModified} of an update of one statement.
  std::pair<int64_t, int64_t> Update(const std::string& coll, const std::string& q,
                                     const std::string& u, bool upsert = false) {
    BsonDoc r = Run(R"({"update": ")" + coll + R"(", "updates": [{"q": )" + q + R"(, "u": )" + u +
                    (upsert ? R"(, "upsert": true)" : "") + "}]}");
    EXPECT_TRUE(testutil::IsOk(r)) << Json(r);
    return {Integer(r, "n").value_or(-1), Integer(r, "nModified").value_or(-1)};
  }
  int64_t FieldOf(const std::string& coll, const std::string& filter, const char* field) {
    BsonDoc r = Run(R"({"find": ")" + coll + R"(", "filter": )" + filter + "}");
    auto docs = DocArray(r, "cursor.firstBatch");
    if (docs.size() != 1) return -1;
    return Integer(docs[0], field).value_or(-1);
  }
};

TEST_F(UpdateByIdTest, NumbersOfAnotherTypeMatchAsInTheQueryPath) {
  InsertJson("c", R"([{"_id": {"$numberLong": "5"}, "a": 0}, {"_id": 2.5, "a": 0}])");
  EXPECT_EQ(Update("c", R"({"_id": 5})", R"({"$inc": {"a": 1}})"), std::make_pair(1L, 1L));
  EXPECT_EQ(Update("c", R"({"_id": 5.0})", R"({"$inc": {"a": 1}})"), std::make_pair(1L, 1L));
  EXPECT_EQ(Update("c", R"({"_id": 2.5})", R"({"$inc": {"a": 1}})"), std::make_pair(1L, 1L));
  EXPECT_EQ(Update("c", R"({"_id": 6})", R"({"$inc": {"a": 1}})"), std::make_pair(0L, 0L));
  EXPECT_EQ(FieldOf("c", R"({"_id": 5})", "a"), 2);
  EXPECT_EQ(FieldOf("c", R"({"_id": 2.5})", "a"), 1);
}

TEST_F(UpdateByIdTest, AbsentIdUpsertsAndUnchangedDocumentIsNotModified) {
  InsertJson("c", R"([{"_id": "k1", "a": 1}])");
  EXPECT_EQ(Update("c", R"({"_id": "k1"})", R"({"$set": {"a": 1}})"), std::make_pair(1L, 0L));
  BsonDoc r = Run(R"({"update": "c", "updates": [{"q": {"_id": "k2"}, "u": {"$set": {"a": 7}}, "upsert": true}]})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "n"), 1) << Json(r);
  EXPECT_EQ(DocArray(r, "upserted").size(), 1u) << Json(r);
  EXPECT_EQ(FieldOf("c", R"({"_id": "k2"})", "a"), 7);
}

TEST_F(UpdateByIdTest, CollectionShardedByAnotherFieldFindsTheDocument) {
  ASSERT_OK_REPLY(Run(R"({"create": "s", "shardKey": {"k": 1}, "shards": 4})"));
  InsertJson("s", R"([{"_id": 1, "k": "x", "a": 0}, {"_id": 2, "k": "y", "a": 0}])");
  EXPECT_EQ(Update("s", R"({"_id": 2})", R"({"$set": {"a": 9}})"), std::make_pair(1L, 1L));
  EXPECT_EQ(FieldOf("s", R"({"_id": 2})", "a"), 9);
  EXPECT_EQ(FieldOf("s", R"({"_id": 1})", "a"), 0);
}

TEST_F(UpdateByIdTest, FiltersThatOnlyLookLikeAnIdEqualityKeepTheirMeaning) {
  InsertJson("c", R"([{"_id": 1, "a": 0}, {"_id": 2, "a": 0}, {"_id": "ab", "a": 0}])");
  // A second condition that fails: no match although the _id exists.
  EXPECT_EQ(Update("c", R"({"_id": 1, "a": 5})", R"({"$set": {"b": 1}})"), std::make_pair(0L, 0L));
  // Operators and regexes on _id go through the planner.
  EXPECT_EQ(Update("c", R"({"_id": {"$gt": 1}})", R"({"$set": {"b": 1}})"), std::make_pair(1L, 1L));
  EXPECT_EQ(Update("c", R"({"_id": {"$regularExpression": {"pattern": "^a", "options": ""}}})",
                   R"({"$set": {"b": 2}})"),
            std::make_pair(1L, 1L));
  EXPECT_EQ(FieldOf("c", R"({"_id": "ab"})", "b"), 2);
}

TEST_F(UpdateByIdTest, ConcurrentIncrementsByIdAreAllApplied) {
  InsertJson("c", R"([{"_id": 0, "n": 0}, {"_id": 1, "n": 0}, {"_id": 2, "n": 0}])");
  constexpr int kThreads = 4, kPerThread = 150;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      MongoClient client(server_->uri());
      for (int i = 0; i < kPerThread; ++i) {
        BsonDoc r = client.RunCommand(
            db_, R"({"update": "c", "updates": [{"q": {"_id": )" + std::to_string((t + i) % 3) +
                     R"(}, "u": {"$inc": {"n": 1}}}]})");
        EXPECT_EQ(Integer(r, "nModified"), 1) << Json(r);
      }
    });
  }
  for (auto& th : threads) th.join();
  int64_t total = 0;
  for (int id = 0; id < 3; ++id) total += FieldOf("c", R"({"_id": )" + std::to_string(id) + "}", "n");
  EXPECT_EQ(total, kThreads * kPerThread);
}

// {_id: id, field0: "<id>-0-...", ..., field9: ...}: a YCSB record's shape.
std::string YcsbRecord(const std::string& id) {
  std::string doc = R"({"_id": ")" + id + R"(")";
  for (int f = 0; f < 10; ++f) {
    doc += R"(, "field)" + std::to_string(f) + R"(": ")" + id + "-" + std::to_string(f) + "-" +
           std::string(90, 'a' + f) + R"(")";
  }
  return doc + "}";
}

TEST_F(UpdateByIdTest, SetOfExistingFieldsKeepsOrderNoOpsAndAppends) {
  InsertJson("c", "[" + YcsbRecord("user1") + "]");
  const std::string value(100, 'Z');
  EXPECT_EQ(Update("c", R"({"_id": "user1"})", R"({"$set": {"field3": ")" + value + R"("}})"),
            std::make_pair(1L, 1L));
  // The same value again: matched, not modified.
  EXPECT_EQ(Update("c", R"({"_id": "user1"})", R"({"$set": {"field3": ")" + value + R"("}})"),
            std::make_pair(1L, 0L));
  // Another type of an equal number is a change (binary comparison).
  EXPECT_EQ(Update("c", R"({"_id": "user1"})", R"({"$set": {"field5": 1}})"), std::make_pair(1L, 1L));
  EXPECT_EQ(Update("c", R"({"_id": "user1"})", R"({"$set": {"field5": 1.0}})"), std::make_pair(1L, 1L));
  EXPECT_EQ(Update("c", R"({"_id": "user1"})", R"({"$set": {"field5": 1.0}})"), std::make_pair(1L, 0L));
  // Two fields at once, out of document order; a missing one is appended.
  EXPECT_EQ(Update("c", R"({"_id": "user1"})",
                   R"({"$set": {"field9": {"a": [1, 2]}, "field0": "short", "zz": true}})"),
            std::make_pair(1L, 1L));
  BsonDoc r = Run(R"({"find": "c", "filter": {"_id": "user1"}})");
  auto docs = DocArray(r, "cursor.firstBatch");
  ASSERT_EQ(docs.size(), 1u) << Json(r);
  std::string expected = YcsbRecord("user1");
  auto replace = [&](int f, const std::string& json) {
    const std::string key = R"("field)" + std::to_string(f) + R"(": )";
    const size_t at = expected.find(key) + key.size();
    expected.replace(at, expected.find('"', at + 1) + 1 - at, json);
  };
  replace(0, R"("short")");
  replace(3, "\"" + value + "\"");
  replace(5, "1.0");
  replace(9, R"({"a": [1, 2]})");
  expected.insert(expected.size() - 1, R"(, "zz": true)");
  EXPECT_EQ(testutil::CanonicalJson(docs[0]), testutil::CanonicalJson(expected));
}

TEST_F(UpdateByIdTest, SetOfExistingFieldsMeetsValidatorsAndUniqueIndexes) {
  ASSERT_OK_REPLY(Run(R"({"create": "v", "validator": {"field1": {"$type": "string"}}})"));
  InsertJson("v", "[" + YcsbRecord("user1") + "," + YcsbRecord("user2") + "]");
  BsonDoc refused = Run(R"({"update": "v", "updates": [{"q": {"_id": "user1"}, "u": {"$set": {"field1": 5}}}]})");
  EXPECT_EQ(Integer(refused, "writeErrors.0.code"), 121) << Json(refused);
  EXPECT_EQ(Integer(refused, "nModified"), 0) << Json(refused);
  ASSERT_OK_REPLY(Run(R"({"createIndexes": "v", "indexes": [{"key": {"field2": 1}, "name": "f2", "unique": true}]})"));
  BsonDoc dup = Run(R"({"update": "v", "updates": [{"q": {"_id": "user1"}, "u": {"$set": {"field2": "user2-2-)" +
                    std::string(90, 'c') + R"("}}}]})");
  EXPECT_EQ(Integer(dup, "writeErrors.0.code"), 11000) << Json(dup);
  // The index follows a spliced value: the old key is gone, the new found.
  EXPECT_EQ(Update("v", R"({"_id": "user1"})", R"({"$set": {"field2": "new"}})"), std::make_pair(1L, 1L));
  BsonDoc by_new = Run(R"({"find": "v", "filter": {"field2": "new"}, "hint": "f2"})");
  EXPECT_EQ(DocArray(by_new, "cursor.firstBatch").size(), 1u) << Json(by_new);
  BsonDoc by_old = Run(R"({"find": "v", "filter": {"field2": "user1-2-)" + std::string(90, 'c') +
                       R"("}, "hint": "f2"})");
  EXPECT_EQ(DocArray(by_old, "cursor.firstBatch").size(), 0u) << Json(by_old);
}

TEST_F(UpdateByIdTest, ConcurrentSetsOfOneFieldEachFromSeveralConnectionsAllLand) {
  constexpr int kThreads = 5, kPerThread = 80, kDocs = 3;
  std::string records = "[";
  for (int d = 0; d < kDocs; ++d) records += (d ? "," : "") + YcsbRecord("user" + std::to_string(d));
  InsertJson("c", records + "]");
  // Thread t owns field t and field t + 5 of every document; its last
  // write to each must be what the document holds in the end.
  auto value = [](int t, int i) { return std::to_string(t) + "-" + std::to_string(i) + std::string(96, 'v'); };
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      MongoClient client(server_->uri());
      for (int i = 0; i < kPerThread; ++i) {
        const int field = t + (i % 2) * kThreads;
        BsonDoc r = client.RunCommand(
            db_, R"({"update": "c", "updates": [{"q": {"_id": "user)" + std::to_string(i % kDocs) +
                     R"("}, "u": {"$set": {"field)" + std::to_string(field) + R"(": ")" + value(t, i) +
                     R"("}}}]})");
        EXPECT_EQ(Integer(r, "nModified"), 1) << Json(r);
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int d = 0; d < kDocs; ++d) {
    std::string expected = R"({"_id": "user)" + std::to_string(d) + R"(")";
    for (int f = 0; f < 10; ++f) {
      const int t = f % kThreads, parity = f / kThreads;
      int last = -1;  // the last i of thread t with this document and field
      for (int i = 0; i < kPerThread; ++i) {
        if (i % kDocs == d && i % 2 == parity) last = i;
      }
      expected += R"(, "field)" + std::to_string(f) + R"(": ")" + value(t, last) + R"(")";
    }
    BsonDoc r = Run(R"({"find": "c", "filter": {"_id": "user)" + std::to_string(d) + R"("}})");
    auto docs = DocArray(r, "cursor.firstBatch");
    ASSERT_EQ(docs.size(), 1u) << Json(r);
    EXPECT_EQ(testutil::CanonicalJson(docs[0]), testutil::CanonicalJson(expected + "}"));
  }
}

// Eight connections read-modify-write one record at once: each update runs
// through the cursor its point read left on the record, and a conflicting
// commit between the read and the write must be retried, not lost.
TEST_F(UpdateByIdTest, IncrementsOfOneIdFromEightConnectionsAreExact) {
  InsertJson("c", "[" + YcsbRecord("hot") + "]");
  ASSERT_OK_REPLY(Run(R"({"update": "c", "updates": [{"q": {"_id": "hot"}, "u": {"$set": {"n": 0}}}]})"));
  constexpr int kThreads = 8, kPerThread = 100;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      MongoClient client(server_->uri());
      for (int i = 0; i < kPerThread; ++i) {
        // Every other update also rewrites a 100-byte field in place.
        const std::string u = i % 2 == 0 ? R"({"$inc": {"n": 1}})"
                                         : R"({"$inc": {"n": 1}, "$set": {"field)" + std::to_string(t) +
                                               R"(": ")" + std::string(100, 'a' + t) + R"("}})";
        BsonDoc r = client.RunCommand(
            db_, R"({"update": "c", "updates": [{"q": {"_id": "hot"}, "u": )" + u + "}]}");
        EXPECT_EQ(Integer(r, "nModified"), 1) << Json(r);
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(FieldOf("c", R"({"_id": "hot"})", "n"), kThreads * kPerThread);
}

// The collection's byte count follows updates that change a record's size
// (spliced $set) and ones that keep it ($inc in place), then a restart.
TEST_F(UpdateByIdTest, CollectionSizeFollowsFastUpdatesAndRestarts) {
  InsertJson("c", "[" + YcsbRecord("user1") + "," + YcsbRecord("user2") + "]");
  EXPECT_EQ(Update("c", R"({"_id": "user1"})", R"({"$set": {"field4": "short"}})"), std::make_pair(1L, 1L));
  EXPECT_EQ(Update("c", R"({"_id": "user2"})", R"({"$set": {"field4": ")" + std::string(300, 'L') + R"("}})"),
            std::make_pair(1L, 1L));
  EXPECT_EQ(Update("c", R"({"_id": "user2"})", R"({"$set": {"n": 1}})"), std::make_pair(1L, 1L));
  EXPECT_EQ(Update("c", R"({"_id": "user2"})", R"({"$inc": {"n": 5}})"), std::make_pair(1L, 1L));
  auto stored_bytes = [&] {
    int64_t total = 0;
    BsonDoc r = Run(R"({"find": "c", "filter": {}})");
    for (const auto& doc : DocArray(r, "cursor.firstBatch")) total += doc.get()->len;
    return total;
  };
  const int64_t expected = stored_bytes();
  EXPECT_EQ(Integer(Run(R"({"collStats": "c"})"), "size"), expected);
  client_.reset();
  server_->Kill9();
  ASSERT_TRUE(server_->Restart().ok());
  client_ = std::make_unique<MongoClient>(server_->uri());
  EXPECT_EQ(stored_bytes(), expected);
  EXPECT_EQ(Integer(Run(R"({"collStats": "c"})"), "size"), expected);
  EXPECT_EQ(FieldOf("c", R"({"_id": "user2"})", "n"), 6);
}

// The same updates through the _id fast path (point read, in-place apply,
// write through the read's cursor) and through the planner ({_id: {$in}}:
// a scan, the general apply, a searched write) store the same bytes, also
// after kill -9 and recovery.
TEST_F(UpdateByIdTest, FastAndPlannedUpdatesStoreTheSameBytesAcrossKillNine) {
  auto record = [](const std::string& id) {
    std::string doc = R"({"_id": ")" + id + R"(", "n": 0, "d": 1.5, "l": {"$numberLong": "7"})";
    for (int f = 0; f < 10; ++f) {
      doc += R"(, "field)" + std::to_string(f) + R"(": ")" + std::string(100, 'a' + f) + R"(")";
    }
    return doc + "}";
  };
  InsertJson("c", "[" + record("fast") + "," + record("planned") + "]");
  const std::vector<std::string> updates = {
      R"({"$inc": {"n": 1}})",
      R"({"$set": {"field3": "short"}})",
      R"({"$inc": {"n": 2, "d": 0.25, "l": 3}})",
      R"({"$set": {"field0": ")" + std::string(150, 'Z') + R"(", "field9": {"a": [1, 2]}}})",
      R"({"$set": {"field5": 5}})",
      R"({"$inc": {"n": -3}})",
      R"({"$set": {"field5": 5}})",  // a no-op: matched, not modified
  };
  for (const std::string& u : updates) {
    const auto fast = Update("c", R"({"_id": "fast"})", u);
    const auto planned = Update("c", R"({"_id": {"$in": ["planned"]}})", u);
    EXPECT_EQ(fast, planned) << u;
  }
  auto without_id = [&](const std::string& id) {
    BsonDoc r = Run(R"({"find": "c", "filter": {"_id": ")" + id + R"("}})");
    auto docs = DocArray(r, "cursor.firstBatch");
    EXPECT_EQ(docs.size(), 1u) << Json(r);
    if (docs.empty()) return std::string();
    std::string json = testutil::CanonicalJson(docs[0]);
    return json.substr(json.find(','));  // the _id is the first field
  };
  const std::string before = without_id("fast");
  EXPECT_EQ(before, without_id("planned"));
  client_.reset();
  server_->Kill9();
  ASSERT_TRUE(server_->Restart().ok());
  client_ = std::make_unique<MongoClient>(server_->uri());
  EXPECT_EQ(without_id("fast"), before);
  EXPECT_EQ(without_id("planned"), before);
}

// Acknowledged fast updates from several connections survive kill -9: the
// positioned write is journaled by the commit like any other.
TEST_F(UpdateByIdTest, AcknowledgedFastUpdatesFromSeveralConnectionsSurviveKillNine) {
  constexpr int kThreads = 6, kPerThread = 60;
  std::string records = "[";
  for (int t = 0; t < kThreads; ++t) {
    records += (t ? "," : "") + YcsbRecord("user" + std::to_string(t));
  }
  InsertJson("c", records + "]");
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      MongoClient client(server_->uri());
      const std::string q = R"({"_id": "user)" + std::to_string(t) + R"("})";
      for (int i = 1; i <= kPerThread; ++i) {
        const std::string u = i % 2 == 0 ? R"({"$inc": {"n": 1}})"
                                         : R"({"$set": {"field7": "v)" + std::to_string(i) + R"("}, "$inc": {"n": 1}})";
        BsonDoc r = client.RunCommand(db_, R"({"update": "c", "updates": [{"q": )" + q +
                                               R"(, "u": )" + u + "}]}");
        EXPECT_EQ(Integer(r, "nModified"), 1) << Json(r);
      }
    });
  }
  for (auto& th : threads) th.join();
  client_.reset();
  server_->Kill9();
  ASSERT_TRUE(server_->Restart().ok());
  client_ = std::make_unique<MongoClient>(server_->uri());
  for (int t = 0; t < kThreads; ++t) {
    const std::string id = "user" + std::to_string(t);
    BsonDoc r = Run(R"({"find": "c", "filter": {"_id": ")" + id + R"("}})");
    auto docs = DocArray(r, "cursor.firstBatch");
    ASSERT_EQ(docs.size(), 1u) << Json(r);
    EXPECT_EQ(Integer(docs[0], "n"), kPerThread) << Json(r);
    EXPECT_EQ(testutil::String(docs[0], "field7").value_or(""), "v" + std::to_string(kPerThread - 1)) << Json(r);
  }
  BsonDoc valid = Run(R"({"validate": "c", "full": true})");
  EXPECT_EQ(testutil::Number(valid, "valid"), 1.0) << Json(valid);
}

}  // namespace
}  // namespace tigerdoc::e2e
