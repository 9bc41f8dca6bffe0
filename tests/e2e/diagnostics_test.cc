// Diagnostics end to end, through libmongoc: the profiler (profile command,
// system.profile and its bound, --profile), the plan fields of "Slow query"
// lines, serverStatus's wiredTiger.cache / metrics.cursor / connections,
// cursorTimeoutMillis changed at run time, and the progress of an index
// build seen in currentOp from another connection.

#include <atomic>
#include <chrono>
#include <fstream>
#include <iostream>
#include <thread>

#include "tests/e2e/busy_cursor.h"
#include "tests/e2e/e2e_test_base.h"
#include "tests/engine/temp_dir.h"
#include "tests/testutil/wait_until.h"

namespace tigerdoc::e2e {
namespace {

using testutil::ArrayLength;
using testutil::DocArray;
using testutil::Has;
using testutil::Integer;
using testutil::Json;
using testutil::Number;
using testutil::String;

class DiagnosticsTest : public E2eTest {
 protected:
  // system.profile's entries of this test's database, oldest first.
  std::vector<BsonDoc> ProfileEntries(const std::string& filter = "{}") {
    BsonDoc r = Run(R"({"find": "system.profile", "filter": )" + filter +
                    R"(, "sort": {"_id": 1}, "batchSize": 100000})");
    EXPECT_TRUE(testutil::IsOk(r)) << Json(r);
    return DocArray(r, "cursor.firstBatch");
  }
};

TEST_F(DiagnosticsTest, ProfileCommandReadsAndSetsTheLevel) {
  BsonDoc r = Run(R"({"profile": -1})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "was"), 0);
  EXPECT_EQ(Integer(r, "slowms"), 100);
  EXPECT_EQ(Number(r, "sampleRate"), 1.0);
  ASSERT_OK_REPLY(Run(R"({"profile": 2})"));
  r = Run(R"({"profile": 1, "slowms": 250, "sampleRate": 0.5})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "was"), 2);  // the reply shows the settings before the change
  r = Run(R"({"profile": -1})");
  EXPECT_EQ(Integer(r, "was"), 1);
  EXPECT_EQ(Integer(r, "slowms"), 250);
  EXPECT_EQ(Number(r, "sampleRate"), 0.5);
  // Per database: another database still has the default level.
  EXPECT_EQ(Integer(client_->RunCommand(db_ + "_other", R"({"profile": -1})"), "was"), 0);
  // As mongod, a level outside 0..2 only reads (and unknown fields are
  // ignored: its parser is not strict).
  r = Run(R"({"profile": 3, "slowMS": 5})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "was"), 1);
  EXPECT_EQ(Integer(Run(R"({"profile": -2})"), "was"), 1);
  // Bad input, and nothing changes.
  EXPECT_ERROR_REPLY(Run(R"({"profile": "all"})"), 14, "TypeMismatch");
  EXPECT_ERROR_REPLY(Run(R"({"profile": 2, "sampleRate": 1.5})"), 2, "BadValue");
  EXPECT_ERROR_REPLY(Run(R"({"profile": 2, "sampleRate": -0.1})"), 2, "BadValue");
  EXPECT_ERROR_REPLY(Run(R"({"profile": 2, "slowms": "x"})"), 14, "TypeMismatch");
  EXPECT_ERROR_REPLY(Run(R"({"profile": 2, "filter": {"$bogus": 1}})"), 2, "BadValue");
  EXPECT_ERROR_REPLY(Run(R"({"profile": 2, "filter": 5})"), 2, "BadValue");
  r = Run(R"({"profile": -1})");
  EXPECT_EQ(Integer(r, "was"), 1);
  EXPECT_EQ(Integer(r, "slowms"), 250);
  // The limits of sampleRate are accepted.
  ASSERT_OK_REPLY(Run(R"({"profile": -1, "sampleRate": 0.0})"));
  ASSERT_OK_REPLY(Run(R"({"profile": -1, "sampleRate": 0.5})"));
  r = Run(R"({"profile": 0, "slowms": 100, "sampleRate": 1})");
  EXPECT_EQ(Integer(r, "was"), 1);
  EXPECT_EQ(Number(r, "sampleRate"), 0.5);
}

// A find by _id takes the point read without a plan (engine/id_point_read.h)
// on a collection with no secondary index: the profiler still sees MongoDB's
// IDHACK, one key and one document examined when found, none otherwise.
TEST_F(DiagnosticsTest, FindByIdIsProfiledAsIdHack) {
  InsertJson("p", R"([{"_id": 1, "a": 1}, {"_id": 2, "a": 2}])");
  ASSERT_OK_REPLY(Run(R"({"profile": 2})"));
  ASSERT_OK_REPLY(Run(R"({"find": "p", "filter": {"_id": 2}})"));
  ASSERT_OK_REPLY(Run(R"({"find": "p", "filter": {"_id": 99}})"));
  ASSERT_OK_REPLY(Run(R"({"profile": 0})"));
  std::vector<BsonDoc> entries = ProfileEntries();
  ASSERT_EQ(entries.size(), 3u);  // two finds and {profile: 0}
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(String(entries[i], "planSummary"), "IDHACK") << Json(entries[i]);
    EXPECT_EQ(Integer(entries[i], "keysExamined"), i == 0 ? 1 : 0) << Json(entries[i]);
    EXPECT_EQ(Integer(entries[i], "docsExamined"), i == 0 ? 1 : 0) << Json(entries[i]);
    EXPECT_EQ(Integer(entries[i], "nreturned"), i == 0 ? 1 : 0) << Json(entries[i]);
  }
}

TEST_F(DiagnosticsTest, LevelTwoProfilesEveryOperationWithMongoFields) {
  ASSERT_OK_REPLY(Run(R"({"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1"}]})"));
  InsertJson("c", R"([{"_id": 1, "a": 1}, {"_id": 2, "a": 2}, {"_id": 3, "a": 2}, {"_id": 4, "a": 3}])");
  ASSERT_OK_REPLY(Run(R"({"profile": 2})"));
  ASSERT_OK_REPLY(Run(R"({"find": "c", "filter": {"a": 2}})"));
  ASSERT_OK_REPLY(Run(R"({"find": "c", "filter": {"b": 1}})"));
  ASSERT_OK_REPLY(Run(R"({"insert": "c", "documents": [{"_id": 5}, {"_id": 6}]})"));
  ASSERT_OK_REPLY(Run(R"({"update": "c", "updates": [{"q": {"a": 2}, "u": {"$set": {"b": 1}}, "multi": true}]})"));
  ASSERT_OK_REPLY(Run(R"({"delete": "c", "deletes": [{"q": {"_id": 6}, "limit": 1}]})"));
  EXPECT_EQ(Integer(Run(R"({"find": "nope", "filter": {"$bad": 1}})"), "code"), 2);
  ASSERT_OK_REPLY(Run(R"({"aggregate": "c", "pipeline": [{"$match": {"a": 3}}, {"$project": {"_id": 1}}], "cursor": {}})"));
  ASSERT_OK_REPLY(Run(R"({"profile": 0})"));
  ASSERT_OK_REPLY(Run(R"({"find": "c"})"));  // not profiled any more

  std::vector<BsonDoc> entries = ProfileEntries();
  ASSERT_EQ(entries.size(), 8u);  // the 7 operations and {profile: 0}
  const BsonDoc& ixscan = entries[0];
  EXPECT_EQ(String(ixscan, "op"), "query");
  EXPECT_EQ(String(ixscan, "ns"), db_ + ".c");
  EXPECT_EQ(String(ixscan, "command.find"), "c");
  EXPECT_EQ(String(ixscan, "planSummary"), "IXSCAN { a: 1 }");
  EXPECT_EQ(Integer(ixscan, "keysExamined"), 2);
  EXPECT_EQ(Integer(ixscan, "docsExamined"), 2);
  EXPECT_EQ(Integer(ixscan, "nreturned"), 2);
  EXPECT_EQ(testutil::TypeAt(ixscan, "cursorExhausted"), BSON_TYPE_BOOL);
  EXPECT_GT(Integer(ixscan, "responseLength").value_or(0), 0);
  EXPECT_GE(Integer(ixscan, "millis").value_or(-1), 0);
  EXPECT_EQ(testutil::TypeAt(ixscan, "ts"), BSON_TYPE_DATE_TIME);
  EXPECT_EQ(String(ixscan, "client"), "127.0.0.1");
  EXPECT_EQ(String(ixscan, "protocol"), "op_msg");
  EXPECT_EQ(String(ixscan, "user"), "");
  EXPECT_EQ(ArrayLength(ixscan, "allUsers"), 0u);
  EXPECT_EQ(Integer(ixscan, "numYield"), 0);
  const BsonDoc& collscan = entries[1];
  EXPECT_EQ(String(collscan, "planSummary"), "COLLSCAN");
  EXPECT_EQ(Integer(collscan, "docsExamined"), 4);
  EXPECT_EQ(Integer(collscan, "keysExamined"), 0);
  EXPECT_EQ(Integer(collscan, "nreturned"), 0);
  EXPECT_EQ(String(entries[2], "op"), "insert");
  EXPECT_EQ(Integer(entries[2], "ninserted"), 2);
  EXPECT_EQ(String(entries[3], "op"), "update");
  EXPECT_EQ(Integer(entries[3], "nMatched"), 2);
  EXPECT_EQ(Integer(entries[3], "nModified"), 2);
  EXPECT_EQ(String(entries[4], "op"), "remove");
  EXPECT_EQ(Integer(entries[4], "ndeleted"), 1);
  EXPECT_EQ(Integer(entries[5], "errCode"), 2);
  EXPECT_EQ(String(entries[5], "errName"), "BadValue");
  EXPECT_TRUE(Has(entries[5], "errMsg"));
  // An aggregation: its scan's plan, the pipeline's output returned.
  EXPECT_EQ(String(entries[6], "op"), "command");
  EXPECT_EQ(String(entries[6], "command.aggregate"), "c");
  EXPECT_EQ(String(entries[6], "planSummary"), "IXSCAN { a: 1 }");
  EXPECT_EQ(Integer(entries[6], "keysExamined"), 1);
  EXPECT_EQ(Integer(entries[6], "docsExamined"), 1);
  EXPECT_EQ(Integer(entries[6], "nreturned"), 1);
  EXPECT_EQ(String(entries[7], "op"), "command");
  EXPECT_EQ(String(entries[7], "ns"), db_ + ".$cmd");
}

TEST_F(DiagnosticsTest, GetMoreEntriesCountTheirOwnBatch) {
  std::string docs = "[";
  for (int i = 0; i < 10; ++i) docs += (i ? "," : "") + std::string(R"({"_id": )") + std::to_string(i) + "}";
  InsertJson("c", docs + "]");
  ASSERT_OK_REPLY(Run(R"({"profile": 2})"));
  BsonDoc first = Run(R"({"find": "c", "batchSize": 4})");
  const int64_t id = Integer(first, "cursor.id").value_or(0);
  ASSERT_NE(id, 0);
  ASSERT_OK_REPLY(GetMore(id, "c", 3));
  ASSERT_OK_REPLY(GetMore(id, "c"));
  ASSERT_OK_REPLY(Run(R"({"profile": 0})"));
  std::vector<BsonDoc> entries = ProfileEntries(R"({"op": {"$in": ["query", "getmore"]}})");
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(Integer(entries[0], "nreturned"), 4);
  EXPECT_EQ(Integer(entries[0], "cursorid"), id);
  EXPECT_EQ(String(entries[1], "op"), "getmore");
  EXPECT_EQ(String(entries[1], "ns"), db_ + ".c");
  EXPECT_EQ(Integer(entries[1], "nreturned"), 3);
  EXPECT_EQ(Integer(entries[2], "nreturned"), 3);
  EXPECT_EQ(testutil::TypeAt(entries[2], "cursorExhausted"), BSON_TYPE_BOOL);
  // Documents examined add up to the collection, batch by batch.
  int64_t examined = 0;
  for (const BsonDoc& e : entries) examined += Integer(e, "docsExamined").value_or(0);
  EXPECT_EQ(examined, 10);
}

TEST_F(DiagnosticsTest, LevelOneProfilesSlowOperationsOrWhatTheFilterMatches) {
  InsertJson("c", R"([{"_id": 1}])");
  // slowms 0: every operation is slow.
  ASSERT_OK_REPLY(Run(R"({"profile": 1, "slowms": 0})"));
  ASSERT_OK_REPLY(Run(R"({"find": "c"})"));
  // A high threshold: nothing here is slow.
  ASSERT_OK_REPLY(Run(R"({"profile": 1, "slowms": 100000})"));
  ASSERT_OK_REPLY(Run(R"({"find": "c", "filter": {"x": 1}})"));
  EXPECT_EQ(ProfileEntries(R"({"op": "query"})").size(), 1u);
  // A filter replaces slowms: inserts only, however fast.
  BsonDoc r = Run(R"({"profile": 1, "filter": {"op": "insert"}})");
  ASSERT_OK_REPLY(r);
  ASSERT_OK_REPLY(Run(R"({"insert": "c", "documents": [{"_id": 2}]})"));
  ASSERT_OK_REPLY(Run(R"({"find": "c", "filter": {"y": 1}})"));
  r = Run(R"({"profile": -1})");
  EXPECT_EQ(String(r, "filter.op"), "insert");
  EXPECT_TRUE(Has(r, "note"));
  ASSERT_OK_REPLY(Run(R"({"profile": 0, "filter": "unset", "slowms": 100})"));
  EXPECT_FALSE(Has(Run(R"({"profile": -1})"), "filter"));
  EXPECT_EQ(ProfileEntries(R"({"op": "insert"})").size(), 1u);
  EXPECT_EQ(ProfileEntries(R"({"op": "query"})").size(), 1u);
}

TEST_F(DiagnosticsTest, SystemProfileStaysUnderOneMegabyte) {
  ASSERT_OK_REPLY(Run(R"({"profile": 2})"));
  // Each insert's profiled command is truncated at 10 KB; pings are small.
  // Well above the bound: about 3 MB of 6 KB commands.
  const std::string filler(6000, 'x');
  for (int i = 0; i < 500; ++i) {
    ASSERT_OK_REPLY(Run(R"({"insert": "c", "documents": [{"_id": )" + std::to_string(i) + R"(, "f": ")" +
                        filler + R"("}]})"));
  }
  ASSERT_OK_REPLY(Run(R"({"profile": 0})"));
  BsonDoc stats = Run(R"({"collStats": "system.profile"})");
  ASSERT_OK_REPLY(stats);
  EXPECT_LE(Integer(stats, "size").value_or(INT64_MAX), 1024 * 1024) << Json(stats);
  EXPECT_GE(Integer(stats, "size").value_or(0), 900 * 1024) << Json(stats);
  std::vector<BsonDoc> entries = ProfileEntries();
  ASSERT_GT(entries.size(), 100u);
  ASSERT_LT(entries.size(), 200u);
  // The oldest went first: what is left is the newest, in order, to the end.
  EXPECT_EQ(Integer(entries.back(), "command.profile"), 0);
  int64_t previous = -1;
  for (size_t i = 0; i + 1 < entries.size(); ++i) {
    const int64_t id = Integer(entries[i], "command.documents.0._id").value_or(-1);
    EXPECT_GT(id, previous);
    previous = id;
  }
  EXPECT_EQ(previous, 499);
}

TEST(DiagnosticsStartupTest, ProfileFlagProfilesEveryDatabaseFromTheStart) {
  ServerProcess::Options options;
  options.extra_args = {"--profile", "2"};
  ServerProcess server(options);
  ASSERT_TRUE(server.Start().ok()) << server.LogTail();
  MongoClient client(server.uri());
  ASSERT_OK_REPLY(client.RunCommand("p1", R"({"insert": "c", "documents": [{"_id": 1}]})"));
  EXPECT_EQ(Integer(client.RunCommand("p1", R"({"profile": -1})"), "was"), 2);
  BsonDoc r = client.RunCommand("p1", R"({"find": "system.profile", "filter": {"op": "insert"}})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(ArrayLength(r, "cursor.firstBatch"), 1u) << Json(r);
  EXPECT_EQ(String(r, "cursor.firstBatch.0.ns"), "p1.c");
  EXPECT_TRUE(server.Stop().ok());
}

TEST(DiagnosticsStartupTest, ConfigFileModeSlowOpProfilesSlowOperations) {
  const testing_dirs::TempDir dir("tigerdoc-e2e-prof");  // removed also when an ASSERT returns early
  const std::string config = dir.path() + "/mongod.conf";
  std::ofstream(config) << "operationProfiling:\n  mode: slowOp\n  slowOpThresholdMs: 0\n  slowOpSampleRate: 1.0\n";
  ServerProcess::Options options;
  options.extra_args = {"--config", config};
  ServerProcess server(options);
  ASSERT_TRUE(server.Start().ok()) << server.LogTail();
  MongoClient client(server.uri());
  ASSERT_OK_REPLY(client.RunCommand("p2", R"({"insert": "c", "documents": [{"_id": 1}]})"));
  BsonDoc status = client.RunCommand("p2", R"({"profile": -1})");
  EXPECT_EQ(Integer(status, "was"), 1);
  EXPECT_EQ(Integer(status, "slowms"), 0);
  BsonDoc r = client.RunCommand("p2", R"({"find": "system.profile", "filter": {"op": "insert"}})");
  EXPECT_EQ(ArrayLength(r, "cursor.firstBatch"), 1u) << Json(r);
  EXPECT_TRUE(server.Stop().ok());
}

TEST(DiagnosticsStartupTest, SlowQueryLinesCarryPlanFields) {
  ServerProcess::Options options;
  options.extra_args = {"--slowms", "0"};
  ServerProcess server(options);
  ASSERT_TRUE(server.Start().ok()) << server.LogTail();
  MongoClient client(server.uri());
  ASSERT_OK_REPLY(client.RunCommand("s1", R"({"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1"}]})"));
  ASSERT_OK_REPLY(client.RunCommand("s1", R"({"insert": "c", "documents": [{"a": 1}, {"a": 2}, {"a": 2}]})"));
  ASSERT_OK_REPLY(client.RunCommand("s1", R"({"find": "c", "filter": {"a": 2}, "comment": "ixscan-find"})"));
  ASSERT_OK_REPLY(client.RunCommand("s1", R"({"count": "c", "query": {"a": 2}, "comment": "count-scan"})"));
  BsonDoc log = client.RunCommand("admin", R"({"getLog": "global"})");
  std::string line, count_line;
  for (size_t i = 0; i < ArrayLength(log, "log"); ++i) {
    std::string l = String(log, "log." + std::to_string(i)).value_or("");
    if (l.find("ixscan-find") != std::string::npos) line = l;
    if (l.find("count-scan") != std::string::npos) count_line = l;
  }
  ASSERT_FALSE(line.empty());
  // count: the plan's fields without nreturned (it returns no documents).
  EXPECT_NE(count_line.find(R"("planSummary" : "COUNT_SCAN { a: 1 }")"), std::string::npos) << count_line;
  EXPECT_NE(count_line.find(R"("keysExamined" : )"), std::string::npos) << count_line;
  EXPECT_EQ(count_line.find(R"("nreturned")"), std::string::npos) << count_line;
  EXPECT_NE(line.find(R"("msg":"Slow query")"), std::string::npos) << line;
  EXPECT_NE(line.find(R"("planSummary" : "IXSCAN { a: 1 }")"), std::string::npos) << line;
  EXPECT_NE(line.find(R"("keysExamined" : 2)"), std::string::npos) << line;
  EXPECT_NE(line.find(R"("docsExamined" : 2)"), std::string::npos) << line;
  EXPECT_NE(line.find(R"("nreturned" : 2)"), std::string::npos) << line;
  EXPECT_NE(line.find(R"("durationMillis" : )"), std::string::npos) << line;
  EXPECT_TRUE(server.Stop().ok());
}

TEST_F(DiagnosticsTest, ServerStatusWiredTigerCacheIsReal) {
  BsonDoc before = RunAdmin(R"({"serverStatus": 1})");
  ASSERT_OK_REPLY(before);
  // ServerProcess starts the server with --cacheSizeMB 64.
  EXPECT_EQ(Integer(before, "wiredTiger.cache.maximum bytes configured"), 64 * 1024 * 1024) << Json(before);
  for (const char* field : {"wiredTiger.cache.bytes currently in the cache",
                            "wiredTiger.cache.tracked dirty bytes in the cache", "wiredTiger.cache.pages read into cache",
                            "wiredTiger.cache.pages written from cache", "wiredTiger.cache.bytes read into cache",
                            "wiredTiger.cache.bytes written from cache"}) {
    EXPECT_TRUE(Has(before, field)) << field;
  }
  const int64_t requested_before = Integer(before, "wiredTiger.cache.pages requested from the cache").value_or(-1);
  ASSERT_GE(requested_before, 0) << Json(before);
  // Half a megabyte of new documents: the cache holds them (dirty until the
  // next checkpoint, a minute away; 64 MB evicts nothing of them) and every
  // insert asked the cache for a page.
  const std::string filler(1000, 'y');
  std::string docs = "[";
  for (int i = 0; i < 500; ++i) docs += (i ? "," : "") + std::string(R"({"f": ")") + filler + "\"}";
  InsertJson("c", docs + "]");
  BsonDoc after = RunAdmin(R"({"serverStatus": 1})");
  EXPECT_GT(Integer(after, "wiredTiger.cache.bytes currently in the cache").value_or(0), 500 * 1000);
  EXPECT_GE(Integer(after, "wiredTiger.cache.pages requested from the cache").value_or(0), requested_before + 500);
  EXPECT_GT(Integer(after, "wiredTiger.cache.tracked dirty bytes in the cache").value_or(0), 0);
}

TEST_F(DiagnosticsTest, ServerStatusCountsCursors) {
  std::string docs = "[";
  for (int i = 0; i < 10; ++i) docs += (i ? "," : "") + std::string(R"({"_id": )") + std::to_string(i) + "}";
  InsertJson("c", docs + "]");
  BsonDoc before = RunAdmin(R"({"serverStatus": 1})");
  const int64_t total = Integer(before, "metrics.cursor.open.total").value_or(-1);
  const int64_t no_timeout = Integer(before, "metrics.cursor.open.noTimeout").value_or(-1);
  const int64_t opened = Integer(before, "metrics.cursor.totalOpened").value_or(-1);
  EXPECT_EQ(Integer(before, "metrics.cursor.open.pinned"), 0);
  EXPECT_TRUE(Has(before, "metrics.cursor.timedOut"));
  BsonDoc a = Run(R"({"find": "c", "batchSize": 1})");
  BsonDoc b = Run(R"({"find": "c", "batchSize": 1, "noCursorTimeout": true})");
  ASSERT_NE(Integer(a, "cursor.id").value_or(0), 0);
  BsonDoc during = RunAdmin(R"({"serverStatus": 1})");
  EXPECT_EQ(Integer(during, "metrics.cursor.open.total"), total + 2);
  EXPECT_EQ(Integer(during, "metrics.cursor.open.noTimeout"), no_timeout + 1);
  EXPECT_EQ(Integer(during, "metrics.cursor.totalOpened"), opened + 2);
  // Exhausting one closes it; totalOpened stays.
  ASSERT_OK_REPLY(GetMore(Integer(a, "cursor.id").value(), "c"));
  BsonDoc after = RunAdmin(R"({"serverStatus": 1})");
  EXPECT_EQ(Integer(after, "metrics.cursor.open.total"), total + 1);
  EXPECT_EQ(Integer(after, "metrics.cursor.totalOpened"), opened + 2);
}

TEST_F(DiagnosticsTest, ServerStatusCountsConnections) {
  // Connections of earlier tests (and the start-up probe's) may still be
  // closing: start once the server counts only this test's client, however
  // long a loaded machine takes to see the others end.
  BsonDoc before;
  EXPECT_TRUE(testutil::WaitUntil([&] {
    before = RunAdmin(R"({"serverStatus": 1})");
    return Integer(before, "connections.current") == 1;
  })) << Json(before);
  const int64_t current = Integer(before, "connections.current").value_or(-1);
  const int64_t created = Integer(before, "connections.totalCreated").value_or(-1);
  // This serverStatus is running: one active connection at least.
  EXPECT_GE(Integer(before, "connections.active").value_or(0), 1);
  EXPECT_GT(Integer(before, "connections.available").value_or(0), 0);
  {
    std::vector<std::unique_ptr<MongoClient>> more;
    for (int i = 0; i < 3; ++i) {
      more.push_back(std::make_unique<MongoClient>(server_->uri()));
      ASSERT_OK_REPLY(more.back()->RunCommand("admin", R"({"ping": 1})"));
    }
    BsonDoc during = RunAdmin(R"({"serverStatus": 1})");
    EXPECT_EQ(Integer(during, "connections.current"), current + 3);
    EXPECT_EQ(Integer(during, "connections.totalCreated"), created + 3);
    EXPECT_EQ(Integer(during, "connections.available").value_or(0) + current + 3,
              Integer(before, "connections.available").value_or(0) + current);
  }
  // Closed connections leave `current` (the server sees them end shortly;
  // a starved server thread, later).
  int64_t now = -1;
  testutil::WaitUntil([&] {
    now = Integer(RunAdmin(R"({"serverStatus": 1})"), "connections.current").value_or(-1);
    return now == current;
  });
  EXPECT_EQ(now, current);
}

TEST_F(DiagnosticsTest, ActiveCountsConnectionsRunningARequest) {
  InsertJson("c", R"([{"_id": 1}])");
  // Two other connections keep running a slow request: an unindexed
  // $lookup of 2,000 documents into themselves.
  std::string docs = "[";
  for (int i = 0; i < 2000; ++i) docs += (i ? "," : "") + std::string(R"({"v": )") + std::to_string(i) + "}";
  InsertJson("big", docs + "]");
  std::atomic<bool> stop{false};
  std::vector<std::thread> busy;
  for (int t = 0; t < 2; ++t) {
    busy.emplace_back([&] {
      MongoClient c(server_->uri());
      while (!stop.load()) {
        c.RunCommand(db_, R"({"aggregate": "big", "pipeline": [{"$lookup": {"from": "big", "localField": "v", "foreignField": "v", "as": "m"}}, {"$count": "n"}], "cursor": {}})");
      }
    });
  }
  // At least 200 samples, and until one caught a busy connection mid-request
  // (the busy threads may not even have connected yet on a loaded machine).
  int64_t max_active = 0;
  int samples = 0;
  testutil::WaitUntil(
      [&] {
        ++samples;
        max_active = std::max<int64_t>(max_active, Integer(RunAdmin(R"({"serverStatus": 1})"), "connections.active").value_or(0));
        return max_active >= 3 || (max_active >= 2 && samples >= 200);
      },
      testutil::kGenerousWait, std::chrono::milliseconds(0));
  stop = true;
  for (auto& t : busy) t.join();
  // This serverStatus and at least one busy connection caught mid-request;
  // never more than the three connections that run requests.
  EXPECT_GE(max_active, 2);
  EXPECT_LE(max_active, 3);
}

TEST_F(DiagnosticsTest, CursorTimeoutMillisChangesAtRunTime) {
  std::string docs = "[";
  for (int i = 0; i < 1000; ++i) docs += (i ? "," : "") + std::string(R"({"_id": )") + std::to_string(i) + "}";
  InsertJson("c", docs + "]");
  EXPECT_EQ(Integer(RunAdmin(R"({"getParameter": 1, "cursorTimeoutMillis": 1})"), "cursorTimeoutMillis"), 600000);
  BsonDoc r = RunAdmin(R"({"setParameter": 1, "cursorTimeoutMillis": 1000})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "was"), 600000);
  EXPECT_EQ(Integer(RunAdmin(R"({"getParameter": 1, "cursorTimeoutMillis": 1})"), "cursorTimeoutMillis"), 1000);
  EXPECT_ERROR_REPLY(RunAdmin(R"({"setParameter": 1, "cursorTimeoutMillis": "soon"})"), 2, "BadValue");
  constexpr auto kTimeout = std::chrono::milliseconds(1000);

  // An idle cursor is reaped under the new timeout; a noCursorTimeout one
  // and one used every 200 ms are not. The test waits for the reaper to
  // count the idle one (a starved reaper is late, not wrong) and repeats the
  // run when the machine stalled the used cursor's getMores for the whole
  // timeout (see busy_cursor.h).
  bool proven = false;
  for (int attempt = 1; attempt <= kCursorReapingAttempts && !proven; ++attempt) {
    const int64_t timed_out = CursorsTimedOut(*client_);
    const auto used_opened = BusyCursor::Clock::now();
    const int64_t used_id = Integer(Run(R"({"find": "c", "batchSize": 1})"), "cursor.id").value_or(0);
    BusyCursor used([&] { return GetMore(used_id, "c", 1); }, used_opened);
    const int64_t idle = Integer(Run(R"({"find": "c", "batchSize": 1})"), "cursor.id").value_or(0);
    const int64_t kept = Integer(Run(R"({"find": "c", "batchSize": 1, "noCursorTimeout": true})"), "cursor.id").value_or(0);
    ASSERT_NE(used_id, 0);
    ASSERT_NE(idle, 0);
    ASSERT_NE(kept, 0);
    bool stalled = false;
    testutil::WaitUntil(
        [&] {
          BsonDoc more = used.Use();
          if (used.LongestIdle() >= kTimeout) return stalled = true;
          EXPECT_OK_REPLY(more);
          return CursorsTimedOut(*client_) > timed_out;
        },
        testutil::kGenerousWait, std::chrono::milliseconds(200));
    BsonDoc gone, kept_more, used_more;
    int64_t reaped = -1;
    if (!stalled) {
      gone = GetMore(idle, "c");
      kept_more = GetMore(kept, "c", 1);
      reaped = CursorsTimedOut(*client_);
      used_more = used.Use();
      stalled = used.LongestIdle() >= kTimeout;
    }
    if (stalled) {
      std::cerr << "attempt " << attempt << ": the machine stalled the used cursor past the timeout; again\n";
      static_cast<void>(Run("{\"killCursors\": \"c\", \"cursors\": [" + std::to_string(used_id) + ", " +
                            std::to_string(idle) + ", " + std::to_string(kept) + "]}"));
      continue;
    }
    EXPECT_ERROR_REPLY(gone, 43, "CursorNotFound");
    EXPECT_OK_REPLY(kept_more);
    EXPECT_OK_REPLY(used_more);
    EXPECT_EQ(reaped, timed_out + 1) << "only the idle cursor times out";
    proven = true;
  }
  EXPECT_TRUE(proven) << "the machine stalled longer than the cursor timeout in every attempt";
  ASSERT_OK_REPLY(RunAdmin(R"({"setParameter": 1, "cursorTimeoutMillis": 600000})"));
}

TEST_F(DiagnosticsTest, IndexBuildShowsProgressInCurrentOp) {
  // Enough documents that building three indexes takes a while on a shared
  // machine; inserted in batches of 1,000.
  constexpr int kDocs = 200000;
  for (int b = 0; b < kDocs / 1000; ++b) {
    std::vector<BsonDoc> batch;
    for (int i = 0; i < 1000; ++i) {
      BsonDoc d;
      const int n = b * 1000 + i;
      BSON_APPEND_INT32(d.mutable_get(), "a", n);
      BSON_APPEND_UTF8(d.mutable_get(), "s", ("name-" + std::to_string(n * 7919 % kDocs)).c_str());
      BSON_APPEND_INT32(d.mutable_get(), "m", n % 97);
      batch.push_back(std::move(d));
    }
    BsonDoc r = client_->InsertMany(db_, "big", batch);
    ASSERT_EQ(Integer(r, "insertedCount"), 1000) << Json(r);
  }
  std::atomic<bool> done{false};
  BsonDoc build_reply;
  std::thread builder([&] {
    MongoClient c(server_->uri());
    build_reply = c.RunCommand(db_, R"({"createIndexes": "big", "indexes": [
        {"key": {"s": 1, "a": 1}, "name": "s_a"}, {"key": {"m": 1, "s": -1}, "name": "m_s"},
        {"key": {"a": -1, "m": 1}, "name": "a_m"}]})");
    done = true;
  });
  // The scan's progress (done, total), then each index's load of its
  // sorted keys (mongod's two phases; every index has one key per document).
  std::vector<std::pair<int64_t, int64_t>> seen;
  std::vector<std::pair<int64_t, int64_t>> loading;
  while (!done.load()) {
    BsonDoc op = RunAdmin(R"({"currentOp": 1, "command.createIndexes": "big"})");
    if (Has(op, "inprog.0.progress")) {
      const std::pair<int64_t, int64_t> progress{Integer(op, "inprog.0.progress.done").value_or(-1),
                                                 Integer(op, "inprog.0.progress.total").value_or(-1)};
      const std::string msg = String(op, "inprog.0.msg").value_or("");
      if (msg.rfind("Index Build: inserting keys from external sorter into index: ", 0) == 0) {
        loading.push_back(progress);
      } else {
        EXPECT_EQ(msg.rfind("Index Build: scanning collection: ", 0), 0u) << Json(op);
        EXPECT_TRUE(loading.empty()) << "the scan comes first: " << Json(op);
        seen.push_back(progress);
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  builder.join();
  ASSERT_OK_REPLY(build_reply);
  ASSERT_FALSE(seen.empty()) << "never saw the build's progress";
  for (const auto& [d, t] : seen) {
    EXPECT_EQ(t, kDocs);
    EXPECT_GE(d, 0);
    EXPECT_LE(d, t);
  }
  for (const auto& [d, t] : loading) {
    EXPECT_EQ(t, kDocs);
    EXPECT_GE(d, 0);
    EXPECT_LE(d, t);
  }
  // Progress moves forward, and some of it was seen between start and end.
  for (size_t i = 1; i < seen.size(); ++i) EXPECT_GE(seen[i].first, seen[i - 1].first);
  EXPECT_TRUE(std::any_of(seen.begin(), seen.end(), [](const auto& p) { return p.first > 0 && p.first < kDocs; }));
  // Gone from currentOp once built.
  EXPECT_EQ(ArrayLength(RunAdmin(R"({"currentOp": 1, "command.createIndexes": "big"})"), "inprog"), 0u);
}

// findandmodify is findAndModify under another spelling (one command in
// mongod): both count as writes in opLatencies and in top's writeLock.
// Before the command table said so, top did not record the lower-case
// spelling at all and opLatencies counted it as a command.
TEST_F(DiagnosticsTest, FindAndModifyUnderEitherSpellingCountsAsAWrite) {
  InsertJson("fam", R"([{"_id": 1, "n": 0}])");
  auto writes = [&] {
    return Integer(client_->RunCommand("admin", R"({"serverStatus": 1})"), "opLatencies.writes.ops")
        .value_or(-1);
  };
  auto top_write_count = [&] {
    BsonDoc top = client_->RunCommand("admin", R"({"top": 1})");
    EXPECT_OK_REPLY(top);
    // The namespace key holds a dot, so it is found by key, not by path.
    bson_iter_t totals, ns, count;
    if (!bson_iter_init_find(&totals, top.get(), "totals") || !bson_iter_recurse(&totals, &ns) ||
        !bson_iter_find(&ns, (db_ + ".fam").c_str()) || !bson_iter_recurse(&ns, &count) ||
        !bson_iter_find_descendant(&count, "writeLock.count", &count)) {
      return int64_t{0};
    }
    return bson_iter_as_int64(&count);
  };
  for (const char* spelling : {"findAndModify", "findandmodify"}) {
    SCOPED_TRACE(spelling);
    const int64_t writes_before = writes(), top_before = top_write_count();
    ASSERT_OK_REPLY(Run(std::string(R"({")") + spelling +
                        R"(": "fam", "query": {"_id": 1}, "update": {"$inc": {"n": 1}}})"));
    // Other connections' writes may count too: at least this one.
    EXPECT_GE(writes() - writes_before, 1);
    EXPECT_EQ(top_write_count() - top_before, 1);
  }
}

}  // namespace
}  // namespace tigerdoc::e2e
