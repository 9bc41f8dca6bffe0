// Size limits (patterns/size_limits) through the real server and libmongoc:
// configuration (create, collMod, listCollections, collStats, restart),
// every write path just below, at and above each limit, ordered and
// unordered batches, 8 concurrent connections filling partitions, and a
// kill -9 among 8 writers after which the counters equal a recount.

#include <atomic>
#include <map>
#include <thread>

#include "tests/e2e/e2e_test_base.h"
#include "tests/testutil/wait_until.h"

namespace tigerdoc::e2e {
namespace {

using testutil::DocArray;
using testutil::Integer;
using testutil::Json;
using testutil::String;

constexpr int kPartitionCode = 91000001;
constexpr int kShardCode = 91000002;

// The server checks TTL indexes every second here.
class SizeLimitsE2eTest : public E2eTest {
 protected:
  static void SetUpTestSuite() { StartServer({"--setParameter", "ttlMonitorSleepSecs=1"}); }

  // {_id: id, p: p, pad: "xx..."} of exactly `bytes` BSON bytes.
  static BsonDoc Doc(int64_t id, const std::string& p, int bytes) {
    BsonDoc doc;
    BSON_APPEND_INT64(doc.mutable_get(), "_id", id);
    BSON_APPEND_UTF8(doc.mutable_get(), "p", p.c_str());
    int n = bytes - static_cast<int>(doc.size()) - 10;
    BSON_APPEND_UTF8(doc.mutable_get(), "pad", std::string(static_cast<size_t>(n), 'x').c_str());
    EXPECT_EQ(static_cast<int>(doc.size()), bytes);
    return doc;
  }

  template <typename... D>
  static std::vector<BsonDoc> Docs(D&&... docs) {
    std::vector<BsonDoc> out;
    (out.push_back(std::forward<D>(docs)), ...);
    return out;
  }

  static BsonDoc InsertCommand(const std::string& coll, const std::vector<BsonDoc>& docs,
                               bool ordered) {
    BsonDoc cmd;
    BSON_APPEND_UTF8(cmd.mutable_get(), "insert", coll.c_str());
    bson_t array;
    BSON_APPEND_ARRAY_BEGIN(cmd.mutable_get(), "documents", &array);
    for (size_t i = 0; i < docs.size(); ++i) {
      BSON_APPEND_DOCUMENT(&array, std::to_string(i).c_str(), docs[i].get());
    }
    bson_append_array_end(cmd.mutable_get(), &array);
    BSON_APPEND_BOOL(cmd.mutable_get(), "ordered", ordered);
    return cmd;
  }

  BsonDoc Insert(const std::string& coll, std::vector<BsonDoc> docs, bool ordered = true) {
    return Run(InsertCommand(coll, docs, ordered));
  }

  // [(index, code)] of a write reply's writeErrors.
  static std::vector<std::pair<int64_t, int64_t>> WriteErrors(const BsonDoc& reply) {
    std::vector<std::pair<int64_t, int64_t>> out;
    for (const BsonDoc& e : DocArray(reply, "writeErrors")) {
      out.emplace_back(Integer(e, "index").value_or(-1), Integer(e, "code").value_or(-1));
    }
    return out;
  }

  BsonDoc Stats(const std::string& coll) {
    BsonDoc stats = Run(R"({"collStats": ")" + coll + R"("})");
    EXPECT_OK_REPLY(stats);
    return stats;
  }

  struct Counts {
    int64_t count = 0;
    int64_t size = 0;
    bool operator==(const Counts& o) const { return count == o.count && size == o.size; }
  };

  // Partition p -> {count, size} from the documents themselves (client side).
  std::map<std::string, Counts> RecountPartitions(const std::string& coll) {
    std::map<std::string, Counts> out;
    BsonDoc r = Run(R"({"find": ")" + coll + R"(", "batchSize": 1000000})");
    EXPECT_OK_REPLY(r);
    auto add = [&](const std::vector<BsonDoc>& docs) {
      for (const BsonDoc& d : docs) {
        Counts& c = out[String(d, "p").value_or("?")];
        c.count += 1;
        c.size += static_cast<int64_t>(d.size());
      }
    };
    add(DocArray(r, "cursor.firstBatch"));
    int64_t id = Integer(r, "cursor.id").value_or(0);
    while (id != 0) {
      r = GetMore(id, coll);
      add(DocArray(r, "cursor.nextBatch"));
      id = Integer(r, "cursor.id").value_or(0);
    }
    return out;
  }

  // The counters (collStats) equal a recount: every partition (at most 10,
  // so all are listed) and every shard total.
  void ExpectCountersEqualRecount(const std::string& coll) {
    std::map<std::string, Counts> actual = RecountPartitions(coll);
    BsonDoc stats = Stats(coll);
    std::map<std::string, Counts> kept;
    std::map<int64_t, Counts> shard_of_partitions;
    ASSERT_LE(actual.size(), 10u);
    EXPECT_EQ(Integer(stats, "patterns.sizeLimits.partitions"), static_cast<int64_t>(actual.size()));
    for (const BsonDoc& p : DocArray(stats, "patterns.sizeLimits.largestPartitions")) {
      Counts c{Integer(p, "count").value_or(-1), Integer(p, "size").value_or(-1)};
      kept[String(p, "key.p").value_or("?")] = c;
      Counts& s = shard_of_partitions[Integer(p, "shard").value_or(-1)];
      s.count += c.count;
      s.size += c.size;
    }
    EXPECT_EQ(kept.size(), actual.size()) << Json(stats);
    for (const auto& [p, c] : actual) {
      EXPECT_EQ(kept[p].count, c.count) << p << " " << Json(stats);
      EXPECT_EQ(kept[p].size, c.size) << p << " " << Json(stats);
    }
    for (const BsonDoc& s : DocArray(stats, "patterns.sizeLimits.shards")) {
      Counts expected = shard_of_partitions[Integer(s, "shard").value_or(-1)];
      EXPECT_EQ(Integer(s, "count"), expected.count) << Json(stats);
      EXPECT_EQ(Integer(s, "size"), expected.size) << Json(stats);
    }
  }
};

TEST_F(SizeLimitsE2eTest, OptionsAreSetShownValidatedAndPersisted) {
  ASSERT_OK_REPLY(Run(R"({"create": "c", "shardKey": {"p": 1}, "maxDocumentBytes": 2097152,
                          "maxPartitionBytes": 21474836480, "maxShardBytes": 1073741824})"));
  BsonDoc list = Run(R"({"listCollections": 1, "filter": {"name": "c"}})");
  ASSERT_OK_REPLY(list);
  BsonDoc info = DocArray(list, "cursor.firstBatch").at(0).Copy();
  EXPECT_EQ(Integer(info, "options.maxDocumentBytes"), 2097152);
  EXPECT_EQ(Integer(info, "options.maxPartitionBytes"), 21474836480LL);
  BsonDoc stats = Stats("c");
  EXPECT_EQ(Integer(stats, "patterns.sizeLimits.maxDocumentBytes"), 2097152) << Json(stats);
  EXPECT_EQ(Integer(stats, "patterns.sizeLimits.maxShardBytes"), 1073741824) << Json(stats);

  BsonDoc r = Run(R"({"create": "bad1", "maxDocumentBytes": 100})");
  EXPECT_ERROR_REPLY(r, 2, "BadValue");
  EXPECT_NE(String(r, "errmsg").value_or("").find("create.maxDocumentBytes"), std::string::npos);
  EXPECT_ERROR_REPLY(Run(R"({"create": "bad2", "maxPartitionBytes": "big"})"), 14, "TypeMismatch");
  EXPECT_ERROR_REPLY(Run(R"({"create": "bad3", "maxShardBytes": 4096.5})"), 9, "FailedToParse");
  r = Run(R"({"create": "bad4", "maxPartitonBytes": 4096})");
  EXPECT_ERROR_REPLY(r, 40415, "Location40415");
  EXPECT_NE(String(r, "errmsg").value_or("").find("maxPartitonBytes"), std::string::npos);
  r = Run(R"({"collMod": "c", "maxShardBytes": -1})");
  EXPECT_ERROR_REPLY(r, 2, "BadValue");
  EXPECT_NE(String(r, "errmsg").value_or("").find("collMod.maxShardBytes"), std::string::npos);
  EXPECT_ERROR_REPLY(Run(R"({"collMod": "nope", "maxShardBytes": 4096})"), 26, "NamespaceNotFound");

  ASSERT_OK_REPLY(Run(R"({"collMod": "c", "maxPartitionBytes": 4096, "maxShardBytes": null})"));
  // Persisted: after a restart the limits are there and enforced.
  client_.reset();
  ASSERT_TRUE(server_->Stop().ok());
  ASSERT_TRUE(server_->Restart().ok());
  client_ = std::make_unique<MongoClient>(server_->uri());
  list = Run(R"({"listCollections": 1, "filter": {"name": "c"}})");
  info = DocArray(list, "cursor.firstBatch").at(0).Copy();
  EXPECT_EQ(Integer(info, "options.maxPartitionBytes"), 4096) << Json(info);
  EXPECT_FALSE(testutil::Has(info, "options.maxShardBytes")) << Json(info);
  r = Insert("c", Docs(Doc(1, "a", 4000), Doc(2, "a", 1024)));
  EXPECT_EQ(WriteErrors(r), (std::vector<std::pair<int64_t, int64_t>>{{1, kPartitionCode}}))
      << Json(r);
}

TEST_F(SizeLimitsE2eTest, OrderedAndUnorderedBatchesAtThePartitionLimit) {
  ASSERT_OK_REPLY(Run(R"({"create": "c", "shardKey": {"p": 1}, "maxPartitionBytes": 4096})"));
  // Four documents of 1 KiB reach the limit exactly; the fifth passes it.
  BsonDoc r = Insert("c", Docs(Doc(1, "a", 1024), Doc(2, "a", 1024), Doc(3, "a", 1024),
                           Doc(4, "a", 1024), Doc(5, "a", 1024), Doc(6, "b", 1024)));
  EXPECT_EQ(Integer(r, "n"), 4);
  EXPECT_EQ(WriteErrors(r), (std::vector<std::pair<int64_t, int64_t>>{{4, kPartitionCode}}));
  BsonDoc error = DocArray(r, "writeErrors").at(0).Copy();
  const std::string message = String(error, "errmsg").value_or("");
  EXPECT_NE(message.find("partition { p: \"a\" } of e2e_OrderedAndUnorderedBatchesAtThePartitionLimit.c"),
            std::string::npos) << message;
  EXPECT_NE(message.find("would reach 5120 bytes"), std::string::npos) << message;
  EXPECT_NE(message.find("maxPartitionBytes: 4096"), std::string::npos) << message;
  r = Insert("c", Docs(Doc(7, "a", 1024), Doc(8, "b", 3000), Doc(9, "b", 1097), Doc(10, "b", 1096)),
             /*ordered=*/false);
  EXPECT_EQ(Integer(r, "n"), 2);
  EXPECT_EQ(WriteErrors(r),
            (std::vector<std::pair<int64_t, int64_t>>{{0, kPartitionCode}, {2, kPartitionCode}}));
  ExpectCountersEqualRecount("c");
}

TEST_F(SizeLimitsE2eTest, EveryUpdatePathIsLimitedAndShrinkingFreesSpace) {
  ASSERT_OK_REPLY(Run(R"({"create": "c", "shardKey": {"p": 1}, "maxPartitionBytes": 4096})"));
  BsonDoc r = Insert("c", Docs(Doc(1, "a", 2000), Doc(2, "a", 2000)));
  ASSERT_EQ(Integer(r, "n"), 2);
  const std::string big(200, 'y');
  auto expect_refused = [&](const std::string& json) {
    SCOPED_TRACE(json.substr(0, 120));
    BsonDoc reply = Run(json);
    if (testutil::Has(reply, "writeErrors")) {
      EXPECT_EQ(Integer(reply, "writeErrors.0.code"), kPartitionCode) << json << Json(reply);
    } else {
      EXPECT_ERROR_REPLY(reply, kPartitionCode, "PartitionSizeLimitExceeded");
    }
  };
  expect_refused(R"({"update": "c", "updates": [{"q": {"_id": 1}, "u": {"$set": {"big": ")" + big + R"("}}}]})");
  expect_refused(R"({"update": "c", "updates": [{"q": {"_id": 1}, "u": {"p": "a", "pad": ")" +
                 std::string(2100, 'z') + R"("}}]})");
  expect_refused(R"({"update": "c", "updates": [{"q": {"_id": 1}, "u": [{"$set": {"big": ")" + big + R"("}}]}]})");
  ASSERT_OK_REPLY(Run(R"({"update": "c", "updates": [{"q": {"_id": 2}, "u": {"$set": {"arr": [1, 2]}}}]})"));
  expect_refused(R"({"update": "c", "updates": [{"q": {"_id": 2}, "u": {"$set": {"arr.$[e]": ")" + big +
                 R"("}}, "arrayFilters": [{"e": 1}]}]})");
  expect_refused(R"({"update": "c", "updates": [{"q": {"_id": 3, "p": "a"}, "u": {"$set": {"pad": ")" + big +
                 R"("}}, "upsert": true}]})");
  expect_refused(R"({"findAndModify": "c", "query": {"_id": 1}, "update": {"$set": {"big": ")" + big + R"("}}})");
  expect_refused(R"({"findAndModify": "c", "query": {"_id": 4, "p": "a"}, "update": {"$set": {"x": ")" + big +
                 R"("}}, "upsert": true})");
  // A multi-update stops at the document that would pass the limit.
  expect_refused(R"({"update": "c", "updates": [{"q": {}, "u": {"$set": {"big": ")" + big + R"("}}, "multi": true}]})");
  // Other partitions and shrinking updates still work; deletes free space.
  ASSERT_OK_REPLY(Run(R"({"update": "c", "updates": [{"q": {"_id": 1}, "u": {"$set": {"pad": ""}}}]})"));
  r = Run(R"({"update": "c", "updates": [{"q": {"_id": 1}, "u": {"$set": {"big": ")" + big + R"("}}}]})");
  EXPECT_EQ(Integer(r, "nModified"), 1) << Json(r);
  ASSERT_OK_REPLY(Run(R"({"findAndModify": "c", "query": {"_id": 2}, "remove": true})"));
  r = Run(R"({"findAndModify": "c", "query": {"_id": 5, "p": "a"}, "update": {"$set": {"pad": ")" +
          std::string(1500, 'q') + R"("}}, "upsert": true, "new": true})");
  EXPECT_OK_REPLY(r);
  ASSERT_OK_REPLY(Run(R"({"delete": "c", "deletes": [{"q": {"_id": 5}, "limit": 1}]})"));
  ExpectCountersEqualRecount("c");
}

TEST_F(SizeLimitsE2eTest, DocumentLimitJustBelowAtAndAbove) {
  ASSERT_OK_REPLY(Run(R"({"create": "c", "maxDocumentBytes": 2048})"));
  BsonDoc r = Insert("c", Docs(Doc(1, "a", 2047), Doc(2, "a", 2048), Doc(3, "a", 2049)), false);
  EXPECT_EQ(Integer(r, "n"), 2);
  EXPECT_EQ(WriteErrors(r), (std::vector<std::pair<int64_t, int64_t>>{{2, 10334}}));
  EXPECT_NE(String(r, "writeErrors.0.errmsg").value_or("").find("max size: 2048"), std::string::npos)
      << Json(r);
  r = Run(R"({"update": "c", "updates": [{"q": {"_id": 1}, "u": {"$set": {"b": "bb"}}}]})");
  EXPECT_EQ(Integer(r, "writeErrors.0.code"), 17419) << Json(r);
  EXPECT_NE(String(r, "writeErrors.0.errmsg").value_or("").find("larger than 2048"), std::string::npos);
}

TEST_F(SizeLimitsE2eTest, ShardLimitJustBelowAtAndAbove) {
  ASSERT_OK_REPLY(Run(R"({"create": "c", "shardKey": {"p": 1}, "shards": 1, "maxShardBytes": 5000})"));
  BsonDoc r = Insert("c", Docs(Doc(1, "a", 2000), Doc(2, "b", 2000), Doc(3, "c", 1024), Doc(4, "d", 1000)), false);
  EXPECT_EQ(WriteErrors(r), (std::vector<std::pair<int64_t, int64_t>>{{2, kShardCode}})) << Json(r);
  const std::string message = String(r, "writeErrors.0.errmsg").value_or("");
  EXPECT_NE(message.find("shard 0 of e2e_ShardLimitJustBelowAtAndAbove.c would reach 5024 bytes"),
            std::string::npos) << message;
  EXPECT_NE(message.find("maxShardBytes: 5000"), std::string::npos) << message;
  BsonDoc stats = Stats("c");
  EXPECT_EQ(Integer(stats, "patterns.sizeLimits.shards.0.size"), 5000) << Json(stats);
  EXPECT_EQ(Integer(stats, "patterns.sizeLimits.shards.0.count"), 3) << Json(stats);
  ExpectCountersEqualRecount("c");
}

TEST_F(SizeLimitsE2eTest, MergeOutAndTtlGoThroughTheLimits) {
  ASSERT_OK_REPLY(Run(R"({"create": "t", "shardKey": {"p": 1}, "maxPartitionBytes": 4096})"));
  ASSERT_EQ(Integer(Insert("src", Docs(Doc(1, "a", 2000), Doc(2, "a", 2000), Doc(3, "a", 2000))), "n"), 3);
  BsonDoc r = Run(R"({"aggregate": "src", "pipeline": [{"$merge": {"into": "t"}}], "cursor": {}})");
  EXPECT_EQ(Integer(r, "code"), kPartitionCode) << Json(r);
  r = Run(R"({"aggregate": "src", "pipeline": [{"$out": "t"}], "cursor": {}})");
  EXPECT_EQ(Integer(r, "code"), kPartitionCode) << Json(r);
  r = Run(R"({"aggregate": "src", "pipeline": [{"$match": {"_id": {"$lt": 3}}}, {"$out": "t"}], "cursor": {}})");
  ASSERT_OK_REPLY(r);
  // The replaced collection keeps its options and limits.
  BsonDoc list = Run(R"({"listCollections": 1, "filter": {"name": "t"}})");
  EXPECT_EQ(Integer(DocArray(list, "cursor.firstBatch").at(0).Copy(), "options.maxPartitionBytes"), 4096)
      << Json(list);
  ExpectCountersEqualRecount("t");
  // TTL deletes free space.
  ASSERT_OK_REPLY(Run(R"({"update": "t", "updates": [{"q": {}, "u": {"$set": {"at": {"$date": "2000-01-01T00:00:00Z"}}}, "multi": true}]})"));
  ASSERT_OK_REPLY(Run(R"({"createIndexes": "t", "indexes": [{"key": {"at": 1}, "name": "at_1", "expireAfterSeconds": 1}]})"));
  // (Waited for: the TTL monitor's thread may run late on a loaded machine.)
  EXPECT_TRUE(testutil::WaitUntil([&] { return RecountPartitions("t").empty(); }, testutil::kGenerousWait,
                                  std::chrono::milliseconds(100)));
  EXPECT_EQ(Integer(Stats("t"), "patterns.sizeLimits.partitions"), 0);
  EXPECT_EQ(Integer(Insert("t", Docs(Doc(9, "a", 4096))), "n"), 1);
}

TEST_F(SizeLimitsE2eTest, EightConnectionsFillPartitionsExactly) {
  ASSERT_OK_REPLY(Run(R"({"create": "c", "shardKey": {"p": 1}, "maxPartitionBytes": 10240})"));
  const std::string uri = server_->uri();
  const std::string db = db_;
  std::vector<std::thread> writers;
  std::atomic<int> unexpected{0};
  for (int t = 0; t < 8; ++t) {
    writers.emplace_back([&, t] {
      MongoClient c(uri);
      for (int i = 0; i < 30; ++i) {
        BsonDoc r = c.RunCommand(db, InsertCommand("c", Docs(Doc(t * 1000 + i, "p" + std::to_string(i % 6), 1024)), true));
        if (!testutil::IsOk(r)) unexpected++;
        if (testutil::Has(r, "writeErrors") && Integer(r, "writeErrors.0.code") != kPartitionCode) unexpected++;
      }
    });
  }
  for (auto& w : writers) w.join();
  EXPECT_EQ(unexpected.load(), 0);
  // 40 attempts per partition, room for 10: each is full, none is over.
  for (const auto& [p, c] : RecountPartitions("c")) {
    EXPECT_EQ(c.count, 10) << p;
    EXPECT_EQ(c.size, 10240) << p;
  }
  ExpectCountersEqualRecount("c");
}

TEST_F(SizeLimitsE2eTest, KillNineAmongEightWritersLeavesExactCounters) {
  ASSERT_OK_REPLY(Run(R"({"create": "c", "shardKey": {"p": 1}, "maxPartitionBytes": 400000})"));
  const std::string uri = server_->uri();
  const std::string db = db_;
  std::atomic<int64_t> acknowledged{0};
  std::atomic<bool> stop{false};
  std::vector<std::thread> writers;
  for (int t = 0; t < 8; ++t) {
    writers.emplace_back([&, t] {
      MongoClient c(uri);
      for (int i = 0; !stop.load(); ++i) {
        // Inserts, growing updates and deletes, so every kind of change is in flight.
        std::string p = "p" + std::to_string((t + i) % 8);
        BsonDoc r;
        if (i % 5 == 3) {
          r = c.RunCommand(db, R"({"update": "c", "updates": [{"q": {"_id": )" +
                                   std::to_string(t * 100000 + i - 1) +
                                   R"(}, "u": {"$set": {"more": "0123456789"}}}]})");
        } else if (i % 7 == 6) {
          r = c.RunCommand(db, R"({"delete": "c", "deletes": [{"q": {"_id": )" +
                                   std::to_string(t * 100000 + i - 2) + R"(}, "limit": 1}]})");
        } else {
          r = c.RunCommand(db, InsertCommand("c", Docs(Doc(t * 100000 + i, p, 300 + (i % 50))), true));
        }
        if (!testutil::IsOk(r)) return;  // the server is gone
        acknowledged++;
      }
    });
  }
  // (A generous deadline for a loaded machine: a passing run ends the wait at 1500.)
  testutil::WaitUntil([&] { return acknowledged.load() >= 1500; }, testutil::kGenerousWait,
                      std::chrono::milliseconds(5));
  server_->Kill9();
  stop.store(true);
  for (auto& w : writers) w.join();
  client_.reset();
  ASSERT_TRUE(server_->Restart().ok());
  client_ = std::make_unique<MongoClient>(server_->uri());
  EXPECT_GT(acknowledged.load(), 100);
  EXPECT_FALSE(RecountPartitions("c").empty());
  ExpectCountersEqualRecount("c");
  // validate recounts them too.
  BsonDoc validated = Run(R"({"validate": "c"})");
  ASSERT_OK_REPLY(validated);
  EXPECT_EQ(testutil::ArrayLength(validated, "errors"), 0u) << Json(validated);
  EXPECT_NE(Json(validated).find(R"("valid" : true)"), std::string::npos) << Json(validated);
}

}  // namespace
}  // namespace tigerdoc::e2e
