// Change streams end to end through libmongoc's watch API
// (mongoc_collection_watch / mongoc_database_watch / mongoc_client_watch)
// against a server started with --replSet rs0: every write kind gives its
// event, concurrent writers' acknowledged writes are seen exactly once in
// commit order, resuming across a restart and kill -9 misses and repeats
// nothing, trimmed history answers 286, and getMore waits for events.

#include <atomic>
#include <chrono>
#include <map>
#include <set>
#include <thread>

#include "tests/e2e/e2e_test_base.h"

namespace tigerdoc::e2e {
namespace {

using testutil::Integer;
using testutil::Json;
using testutil::String;
using Clock = std::chrono::steady_clock;

class ChangeStreamTest : public E2eTest {
 protected:
  static void SetUpTestSuite() { StartServer({"--replSet", "rs0"}); }

  // A collection handle of this test's database (freed by the caller).
  mongoc_collection_t* Collection(const std::string& name) {
    return mongoc_client_get_collection(client_->get(), db_.c_str(), name.c_str());
  }

  // Opens a watch on db_.coll with `opts` (relaxed JSON), pipeline `stages`.
  mongoc_change_stream_t* Watch(const std::string& coll, const std::string& opts = "{}",
                                const std::string& stages = "[]") {
    mongoc_collection_t* c = Collection(coll);
    BsonDoc pipeline = BsonDoc::FromJson("{\"pipeline\": " + stages + "}");
    BsonDoc options = BsonDoc::FromJson(opts);
    mongoc_change_stream_t* stream = mongoc_collection_watch(c, pipeline.get(), options.get());
    mongoc_collection_destroy(c);
    return stream;
  }

  // The next `n` events (fewer when `timeout` passes first); fails the
  // test on a stream error.
  static std::vector<BsonDoc> Next(mongoc_change_stream_t* stream, size_t n,
                                   std::chrono::seconds timeout = std::chrono::seconds(20)) {
    std::vector<BsonDoc> events;
    const auto deadline = Clock::now() + timeout;
    while (events.size() < n && Clock::now() < deadline) {
      const bson_t* doc = nullptr;
      if (mongoc_change_stream_next(stream, &doc)) {
        events.push_back(BsonDoc::CopyOf(doc));
        continue;
      }
      bson_error_t error;
      const bson_t* reply = nullptr;
      if (mongoc_change_stream_error_document(stream, &error, &reply)) {
        ADD_FAILURE() << "stream error: " << error.message << " "
                      << (reply ? BsonDoc::CopyOf(reply).ToJson() : "");
        break;
      }
    }
    return events;
  }

  static BsonDoc TokenOf(mongoc_change_stream_t* stream) {
    return BsonDoc::CopyOf(mongoc_change_stream_get_resume_token(stream));
  }
};

std::string Op(const BsonDoc& event) { return String(event, "operationType").value_or("?"); }

TEST_F(ChangeStreamTest, EveryWriteKindGivesItsEvent) {
  InsertJson("c", R"([{"_id": 0}])");  // the collection exists before the watch
  InsertJson("src", R"([{"_id": 100, "m": 1}, {"_id": 101, "m": 2}])");
  mongoc_change_stream_t* stream = Watch("c", R"({"maxAwaitTimeMS": 200})");
  ASSERT_OK_REPLY(Run(R"({"insert": "c", "documents": [{"_id": 1, "a": 1, "b": {"x": 1, "y": 2}, "arr": [1, 2, 3]}]})"));
  ASSERT_OK_REPLY(Run(R"({"update": "c", "updates": [{"q": {"_id": 1}, "u": {"$set": {"a": 2, "b.x": 5}, "$unset": {"b.y": 1}, "$pop": {"arr": 1}}}]})"));
  ASSERT_OK_REPLY(Run(R"({"update": "c", "updates": [{"q": {"_id": 1}, "u": {"r": 1}}]})"));
  ASSERT_OK_REPLY(Run(R"({"update": "c", "updates": [{"q": {"_id": 2}, "u": {"$set": {"up": 1}}, "upsert": true}]})"));
  ASSERT_OK_REPLY(Run(R"({"findAndModify": "c", "query": {"_id": 2}, "update": {"$inc": {"up": 1}}})"));
  ASSERT_OK_REPLY(Run(R"({"delete": "c", "deletes": [{"q": {"_id": 1}, "limit": 1}]})"));
  ASSERT_OK_REPLY(Run(R"({"aggregate": "src", "pipeline": [{"$merge": {"into": "c"}}], "cursor": {}})"));
  ASSERT_OK_REPLY(Run(R"({"drop": "c"})"));

  std::vector<BsonDoc> events = Next(stream, 10);
  std::vector<std::string> ops;
  for (const BsonDoc& e : events) ops.push_back(Op(e));
  EXPECT_EQ(ops, (std::vector<std::string>{"insert", "update", "replace", "insert", "update",
                                           "delete", "insert", "insert", "drop", "invalidate"}));
  ASSERT_GE(events.size(), 10u);
  EXPECT_EQ(Json(testutil::SubDoc(events[0], "fullDocument")),
            Json(BsonDoc::FromJson(R"({"_id": 1, "a": 1, "b": {"x": 1, "y": 2}, "arr": [1, 2, 3]})")));
  EXPECT_EQ(String(events[0], "ns.db"), db_);
  EXPECT_EQ(String(events[0], "ns.coll"), std::string("c"));
  EXPECT_EQ(Integer(events[0], "documentKey._id"), 1);
  EXPECT_EQ(testutil::TypeAt(events[0], "clusterTime"), BSON_TYPE_TIMESTAMP);
  EXPECT_EQ(testutil::TypeAt(events[0], "wallTime"), BSON_TYPE_DATE_TIME);
  EXPECT_EQ(testutil::TypeAt(events[0], "_id._data"), BSON_TYPE_UTF8);
  EXPECT_EQ(Json(testutil::SubDoc(events[1], "updateDescription")),
            Json(BsonDoc::FromJson(R"({"updatedFields": {"a": 2, "b.x": 5}, "removedFields": ["b.y"],
                                       "truncatedArrays": [{"field": "arr", "newSize": 2}]})")));
  EXPECT_FALSE(testutil::Has(events[1], "fullDocument"));
  EXPECT_EQ(Json(testutil::SubDoc(events[2], "fullDocument")),
            Json(BsonDoc::FromJson(R"({"_id": 1, "r": 1})")));
  EXPECT_EQ(Integer(events[5], "documentKey._id"), 1);
  EXPECT_EQ(Integer(events[6], "fullDocument.m"), 1);
  EXPECT_EQ(String(events[8], "ns.coll"), std::string("c"));
  // After the invalidate the stream is over.
  const bson_t* doc = nullptr;
  EXPECT_FALSE(mongoc_change_stream_next(stream, &doc));
  mongoc_change_stream_destroy(stream);
}

TEST_F(ChangeStreamTest, LaterStagesAndFullDocumentOptionsApply) {
  ASSERT_OK_REPLY(Run(R"({"create": "c", "changeStreamPreAndPostImages": {"enabled": true}})"));
  mongoc_change_stream_t* stream =
      Watch("c",
            R"({"maxAwaitTimeMS": 200, "fullDocument": "required", "fullDocumentBeforeChange": "required"})",
            R"([{"$match": {"operationType": "update"}}, {"$addFields": {"seen": true}},
                {"$project": {"updateDescription": 0}}])");
  InsertJson("c", R"([{"_id": 1, "v": 1}])");
  ASSERT_OK_REPLY(Run(R"({"update": "c", "updates": [{"q": {"_id": 1}, "u": {"$inc": {"v": 1}}}]})"));
  std::vector<BsonDoc> events = Next(stream, 1);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(Op(events[0]), "update");
  EXPECT_EQ(Integer(events[0], "fullDocument.v"), 2);
  EXPECT_EQ(Integer(events[0], "fullDocumentBeforeChange.v"), 1);
  EXPECT_FALSE(testutil::Has(events[0], "updateDescription"));
  EXPECT_TRUE(testutil::Has(events[0], "seen"));
  mongoc_change_stream_destroy(stream);

  // updateLookup reads the document as it is now.
  mongoc_change_stream_t* lookup = Watch("c", R"({"maxAwaitTimeMS": 200, "fullDocument": "updateLookup"})");
  ASSERT_OK_REPLY(Run(R"({"update": "c", "updates": [{"q": {"_id": 1}, "u": {"$set": {"w": 1}}}]})"));
  events = Next(lookup, 1);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(Integer(events[0], "fullDocument.w"), 1);
  mongoc_change_stream_destroy(lookup);
}

// Updates by _id that patch the stored bytes ($inc in place, $set spliced)
// and write through the cursor of their point read: every event still
// carries the whole documents before and after, in order, also when
// several connections update one record at once.
TEST_F(ChangeStreamTest, FastUpdatesByIdCarryWholeDocumentsBeforeAndAfter) {
  ASSERT_OK_REPLY(Run(R"({"create": "c", "changeStreamPreAndPostImages": {"enabled": true}})"));
  const std::string pad(100, 'p');
  InsertJson("c", R"([{"_id": "k", "n": 0, "s": ")" + pad + R"(", "t": "tail"}])");
  mongoc_change_stream_t* stream =
      Watch("c", R"({"maxAwaitTimeMS": 200, "fullDocument": "required", "fullDocumentBeforeChange": "required"})");
  constexpr int kThreads = 4, kPerThread = 10;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      MongoClient client(server_->uri());
      for (int i = 0; i < kPerThread; ++i) {
        const std::string u = i % 2 == 0
                                  ? R"({"$inc": {"n": 1}})"
                                  : R"({"$set": {"s": ")" + std::to_string(t) + std::string(90 + i, 'a' + t) + R"("}})";
        BsonDoc r = client.RunCommand(db_, R"({"update": "c", "updates": [{"q": {"_id": "k"}, "u": )" + u + "}]}");
        EXPECT_EQ(Integer(r, "nModified"), 1) << Json(r);
      }
    });
  }
  for (auto& th : threads) th.join();
  std::vector<BsonDoc> events = Next(stream, kThreads * kPerThread);
  ASSERT_EQ(events.size(), static_cast<size_t>(kThreads * kPerThread));
  // Each event's before image is the previous event's after image; the
  // first one's is the inserted document, the last one's after is stored.
  std::string previous = Json(BsonDoc::FromJson(R"({"_id": "k", "n": 0, "s": ")" + pad + R"(", "t": "tail"})"));
  int64_t incs = 0;
  for (const BsonDoc& e : events) {
    ASSERT_EQ(Op(e), "update") << Json(e);
    EXPECT_EQ(Json(testutil::SubDoc(e, "fullDocumentBeforeChange")), previous);
    previous = Json(testutil::SubDoc(e, "fullDocument"));
    EXPECT_EQ(String(e, "fullDocument.t"), std::string("tail")) << Json(e);
    if (testutil::Has(e, "updateDescription.updatedFields.n")) {
      ++incs;
      EXPECT_EQ(Integer(e, "fullDocument.n"), incs) << Json(e);
    }
  }
  EXPECT_EQ(incs, kThreads * kPerThread / 2);
  BsonDoc now = Run(R"({"find": "c", "filter": {"_id": "k"}})");
  EXPECT_EQ(Json(testutil::DocArray(now, "cursor.firstBatch").at(0)), previous);
  mongoc_change_stream_destroy(stream);
}

TEST_F(ChangeStreamTest, DatabaseAndClusterStreamsSeeEveryCollection) {
  mongoc_database_t* database = mongoc_client_get_database(client_->get(), db_.c_str());
  BsonDoc empty = BsonDoc::FromJson(R"({"pipeline": []})");
  BsonDoc opts = BsonDoc::FromJson(R"({"maxAwaitTimeMS": 200})");
  mongoc_change_stream_t* db_stream = mongoc_database_watch(database, empty.get(), opts.get());
  mongoc_change_stream_t* all = mongoc_client_watch(client_->get(), empty.get(), opts.get());
  InsertJson("a", R"([{"_id": 1}])");
  InsertJson("b", R"([{"_id": 2}])");
  ASSERT_OK_REPLY(client_->RunCommand("other_db_cs", R"({"insert": "z", "documents": [{"_id": 3}]})"));
  std::vector<BsonDoc> in_db = Next(db_stream, 2);
  ASSERT_EQ(in_db.size(), 2u);
  EXPECT_EQ(String(in_db[0], "ns.coll"), std::string("a"));
  EXPECT_EQ(String(in_db[1], "ns.coll"), std::string("b"));
  std::vector<BsonDoc> everywhere = Next(all, 3);
  ASSERT_EQ(everywhere.size(), 3u);
  EXPECT_EQ(String(everywhere[2], "ns.db"), std::string("other_db_cs"));
  // dropDatabase ends the database stream.
  ASSERT_OK_REPLY(Run(R"({"dropDatabase": 1})"));
  std::vector<BsonDoc> dropped = Next(db_stream, 4);
  std::vector<std::string> ops;
  for (const BsonDoc& e : dropped) ops.push_back(Op(e));
  EXPECT_EQ(ops, (std::vector<std::string>{"drop", "drop", "dropDatabase", "invalidate"}));
  mongoc_change_stream_destroy(db_stream);
  mongoc_change_stream_destroy(all);
  mongoc_database_destroy(database);
}

TEST_F(ChangeStreamTest, FourWritersOneWatcherSeeEveryAcknowledgedWriteOnceInCommitOrder) {
  InsertJson("c", R"([{"_id": "seed"}])");
  mongoc_change_stream_t* stream = Watch("c", R"({"maxAwaitTimeMS": 500})");
  constexpr int kWriters = 4, kPerWriter = 200;
  std::vector<std::thread> writers;
  std::atomic<int> failures{0};
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      MongoClient client(server_->uri());
      for (int n = 0; n < kPerWriter; ++n) {
        BsonDoc reply = client.RunCommand(
            db_, "{\"insert\": \"c\", \"documents\": [{\"_id\": \"w" + std::to_string(w) + "-" +
                     std::to_string(n) + "\", \"w\": " + std::to_string(w) +
                     ", \"n\": " + std::to_string(n) + "}]}");
        if (!testutil::IsOk(reply) || testutil::Has(reply, "writeErrors")) ++failures;
      }
    });
  }
  for (auto& t : writers) t.join();
  ASSERT_EQ(failures.load(), 0);
  std::vector<BsonDoc> events = Next(stream, kWriters * kPerWriter, std::chrono::seconds(60));
  ASSERT_EQ(events.size(), static_cast<size_t>(kWriters * kPerWriter));
  std::set<std::string> seen;
  std::map<int64_t, int64_t> last_n;
  std::string last_token;
  for (const BsonDoc& e : events) {
    EXPECT_EQ(Op(e), "insert");
    EXPECT_TRUE(seen.insert(*String(e, "documentKey._id")).second) << "twice: " << Json(e);
    const int64_t w = *Integer(e, "fullDocument.w"), n = *Integer(e, "fullDocument.n");
    // One writer's inserts commit one after another: their events too.
    auto it = last_n.find(w);
    if (it != last_n.end()) EXPECT_EQ(n, it->second + 1) << Json(e);
    last_n[w] = n;
    const std::string token = *String(e, "_id._data");
    EXPECT_LT(last_token, token) << "tokens out of order";
    last_token = token;
  }
  EXPECT_EQ(seen.size(), static_cast<size_t>(kWriters * kPerWriter));
  // Nothing more: no phantom or repeated events.
  EXPECT_TRUE(Next(stream, 1, std::chrono::seconds(1)).empty());
  mongoc_change_stream_destroy(stream);
}

TEST_F(ChangeStreamTest, ResumeAcrossRestartAndKill9MissesAndRepeatsNothing) {
  InsertJson("c", R"([{"_id": -1}])");
  mongoc_change_stream_t* stream = Watch("c", R"({"maxAwaitTimeMS": 200})");
  for (int i = 0; i < 100; ++i) InsertJson("c", "[{\"_id\": " + std::to_string(i) + "}]");
  std::vector<BsonDoc> first = Next(stream, 50);
  ASSERT_EQ(first.size(), 50u);
  BsonDoc token = testutil::SubDoc(first.back(), "_id");
  mongoc_change_stream_destroy(stream);

  RestartAndReconnect(Shutdown::kClean);
  for (int i = 100; i < 150; ++i) InsertJson("c", "[{\"_id\": " + std::to_string(i) + "}]");
  stream = Watch("c", "{\"maxAwaitTimeMS\": 200, \"resumeAfter\": " + token.ToJson() + "}");
  std::vector<BsonDoc> rest = Next(stream, 100);
  ASSERT_EQ(rest.size(), 100u);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(Integer(rest[i], "documentKey._id"), 50 + i);
  BsonDoc last = testutil::SubDoc(rest.back(), "_id");
  mongoc_change_stream_destroy(stream);

  // Acknowledged writes just before a kill -9 are there after it.
  for (int i = 150; i < 200; ++i) InsertJson("c", "[{\"_id\": " + std::to_string(i) + "}]");
  RestartAndReconnect(Shutdown::kKill9);
  stream = Watch("c", "{\"maxAwaitTimeMS\": 200, \"resumeAfter\": " + last.ToJson() + "}");
  std::vector<BsonDoc> after_crash = Next(stream, 50);
  ASSERT_EQ(after_crash.size(), 50u);
  for (int i = 0; i < 50; ++i) EXPECT_EQ(Integer(after_crash[i], "documentKey._id"), 150 + i);
  EXPECT_TRUE(Next(stream, 1, std::chrono::seconds(1)).empty());
  // New writes keep coming after the restart, later than every old token.
  InsertJson("c", R"([{"_id": 1000}])");
  std::vector<BsonDoc> fresh = Next(stream, 1);
  ASSERT_EQ(fresh.size(), 1u);
  EXPECT_LT(*String(after_crash.back(), "_id._data"), *String(fresh[0], "_id._data"));
  mongoc_change_stream_destroy(stream);
}

TEST_F(ChangeStreamTest, TrimmedHistoryAnswers286) {
  InsertJson("c", R"([{"_id": "first"}])");
  BsonDoc opened = Run(R"({"aggregate": "c", "pipeline": [{"$changeStream": {}}], "cursor": {}})");
  ASSERT_OK_REPLY(opened);
  BsonDoc start = testutil::SubDoc(opened, "cursor.postBatchResumeToken");
  InsertJson("c", R"([{"_id": "tracked"}])");
  ASSERT_OK_REPLY(RunAdmin(R"({"setParameter": 1, "changeLogRetentionMB": 1})"));
  const std::string big(100 * 1024, 'x');
  for (int i = 0; i < 30; ++i) {
    InsertJson("big", "[{\"_id\": " + std::to_string(i) + ", \"pad\": \"" + big + "\"}]");
  }
  BsonDoc reply;
  const auto deadline = Clock::now() + std::chrono::seconds(20);
  do {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    reply = Run("{\"aggregate\": \"c\", \"pipeline\": [{\"$changeStream\": {\"resumeAfter\": " +
                start.ToJson() + "}}], \"cursor\": {}}");
  } while (testutil::IsOk(reply) && Clock::now() < deadline);
  EXPECT_ERROR_REPLY(reply, 286, "ChangeStreamHistoryLost");
  // A stream from now still works.
  EXPECT_OK_REPLY(Run(R"({"aggregate": "c", "pipeline": [{"$changeStream": {}}], "cursor": {}})"));
}

TEST_F(ChangeStreamTest, GetMoreWaitsForEventsAndReturnsOnArrival) {
  InsertJson("c", R"([{"_id": 0}])");
  BsonDoc opened = Run(R"({"aggregate": "c", "pipeline": [{"$changeStream": {}}], "cursor": {}})");
  ASSERT_OK_REPLY(opened);
  const int64_t id = *Integer(opened, "cursor.id");
  ASSERT_NE(id, 0);
  // Nothing comes: an empty batch after the wait, with a token.
  auto begin = Clock::now();
  BsonDoc empty = Run("{\"getMore\": {\"$numberLong\": \"" + std::to_string(id) +
                      "\"}, \"collection\": \"c\", \"maxTimeMS\": 300}");
  ASSERT_OK_REPLY(empty);
  EXPECT_GE(Clock::now() - begin, std::chrono::milliseconds(250));
  EXPECT_EQ(testutil::ArrayLength(empty, "cursor.nextBatch"), 0u);
  EXPECT_EQ(testutil::TypeAt(empty, "cursor.postBatchResumeToken._data"), BSON_TYPE_UTF8);
  // An event during a long wait is returned at once.
  std::thread writer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    MongoClient other(server_->uri());
    other.RunCommand(db_, R"({"insert": "c", "documents": [{"_id": 1}]})");
  });
  begin = Clock::now();
  BsonDoc got = Run("{\"getMore\": {\"$numberLong\": \"" + std::to_string(id) +
                    "\"}, \"collection\": \"c\", \"maxTimeMS\": 30000}");
  const auto waited = Clock::now() - begin;
  writer.join();
  ASSERT_OK_REPLY(got);
  ASSERT_EQ(testutil::ArrayLength(got, "cursor.nextBatch"), 1u) << Json(got);
  // Returned on the event, not at the 30 s maxTimeMS; the margin is for a
  // loaded machine (the writer connects first).
  EXPECT_LT(waited, std::chrono::seconds(15));
  EXPECT_EQ(*String(got, "cursor.nextBatch.0._id._data"),
            *String(got, "cursor.postBatchResumeToken._data"));
}

TEST_F(ChangeStreamTest, ExpandedEventsOutInvalidatesAndStartOptions) {
  InsertJson("c", R"([{"_id": 1}])");
  BsonDoc opened = Run(
      R"({"aggregate": "c", "pipeline": [{"$changeStream": {"showExpandedEvents": true}}], "cursor": {}})");
  ASSERT_OK_REPLY(opened);
  const int64_t id = *Integer(opened, "cursor.id");
  ASSERT_OK_REPLY(Run(R"({"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1"}]})"));
  ASSERT_OK_REPLY(Run(R"({"dropIndexes": "c", "index": "a_1"})"));
  // $out replaces the collection: its watchers see the drop and the end.
  InsertJson("src", R"([{"_id": 7}])");
  ASSERT_OK_REPLY(Run(R"({"aggregate": "src", "pipeline": [{"$out": "c"}], "cursor": {}})"));
  BsonDoc got = Run("{\"getMore\": {\"$numberLong\": \"" + std::to_string(id) +
                    "\"}, \"collection\": \"c\", \"maxTimeMS\": 2000}");
  ASSERT_OK_REPLY(got);
  std::vector<BsonDoc> events = testutil::DocArray(got, "cursor.nextBatch");
  std::vector<std::string> ops;
  for (const BsonDoc& e : events) ops.push_back(Op(e));
  ASSERT_EQ(ops, (std::vector<std::string>{"createIndexes", "dropIndexes", "drop", "invalidate"}))
      << Json(got);
  EXPECT_EQ(String(events[0], "operationDescription.indexes.0.name"), std::string("a_1"));
  EXPECT_EQ(*Integer(got, "cursor.id"), 0) << "the stream ends after invalidate";

  // startAfter the invalidate: a new stream on the name, after the drop.
  const std::string invalidate = Json(testutil::SubDoc(events[3], "_id"));
  BsonDoc after = Run("{\"aggregate\": \"c\", \"pipeline\": [{\"$changeStream\": {\"startAfter\": " +
                      invalidate + "}}], \"cursor\": {}}");
  ASSERT_OK_REPLY(after);
  EXPECT_EQ(testutil::ArrayLength(after, "cursor.firstBatch"), 0u) << Json(after);
  // resumeAfter an invalidate is refused, as MongoDB.
  EXPECT_ERROR_REPLY(Run("{\"aggregate\": \"c\", \"pipeline\": [{\"$changeStream\": {\"resumeAfter\": " +
                         invalidate + "}}], \"cursor\": {}}"),
                     260, "InvalidResumeToken");
  // startAtOperationTime: from the createIndexes event's clusterTime on.
  bson_iter_t ts;
  ASSERT_TRUE(bson_iter_init_find(&ts, events[0].get(), "clusterTime"));
  uint32_t t = 0, i = 0;
  bson_iter_timestamp(&ts, &t, &i);
  BsonDoc at = Run("{\"aggregate\": \"c\", \"pipeline\": [{\"$changeStream\": {\"showExpandedEvents\": true, "
                   "\"startAtOperationTime\": {\"$timestamp\": {\"t\": " + std::to_string(t) +
                   ", \"i\": " + std::to_string(i) + "}}}}], \"cursor\": {}}");
  ASSERT_OK_REPLY(at);
  EXPECT_EQ(String(at, "cursor.firstBatch.0.operationType"), std::string("createIndexes")) << Json(at);
  EXPECT_EQ(testutil::ArrayLength(at, "cursor.firstBatch"), 4u) << Json(at);
}

// renameCollection: the source's watchers see rename then invalidate, a
// replaced target's watchers drop then invalidate, the database's watchers
// the drop and the rename (with operationDescription when expanded) and
// then writes under the new name.
TEST_F(ChangeStreamTest, RenameCollectionGivesRenameAndInvalidate) {
  InsertJson("c", R"([{"_id": 1}])");
  InsertJson("t", R"([{"_id": "replaced"}])");
  auto open = [&](const std::string& target, const std::string& options) {
    BsonDoc opened = Run("{\"aggregate\": " + target + ", \"pipeline\": [{\"$changeStream\": " + options +
                         "}], \"cursor\": {}}");
    EXPECT_OK_REPLY(opened);
    return *Integer(opened, "cursor.id");
  };
  const int64_t on_c = open("\"c\"", "{}");
  const int64_t on_t = open("\"t\"", "{}");
  const int64_t on_db = open("1", "{\"showExpandedEvents\": true}");
  ASSERT_OK_REPLY(RunAdmin("{\"renameCollection\": \"" + db_ + ".c\", \"to\": \"" + db_ +
                           ".t\", \"dropTarget\": true}"));
  InsertJson("t", R"([{"_id": 2}])");
  auto more = [&](int64_t id, const std::string& coll) {
    return Run("{\"getMore\": {\"$numberLong\": \"" + std::to_string(id) + "\"}, \"collection\": \"" + coll +
               "\", \"maxTimeMS\": 1000}");
  };
  auto ops = [](const BsonDoc& got) {
    std::vector<std::string> out;
    for (const BsonDoc& e : testutil::DocArray(got, "cursor.nextBatch")) out.push_back(Op(e));
    return out;
  };
  BsonDoc from_c = more(on_c, "c");
  ASSERT_EQ(ops(from_c), (std::vector<std::string>{"rename", "invalidate"})) << Json(from_c);
  EXPECT_EQ(String(from_c, "cursor.nextBatch.0.ns.coll"), std::string("c"));
  EXPECT_EQ(String(from_c, "cursor.nextBatch.0.to.db"), db_);
  EXPECT_EQ(String(from_c, "cursor.nextBatch.0.to.coll"), std::string("t"));
  EXPECT_FALSE(testutil::Has(from_c, "cursor.nextBatch.0.operationDescription")) << "not expanded";
  EXPECT_EQ(*Integer(from_c, "cursor.id"), 0) << "the stream ends after invalidate";

  BsonDoc from_t = more(on_t, "t");
  EXPECT_EQ(ops(from_t), (std::vector<std::string>{"drop", "invalidate"})) << Json(from_t);

  BsonDoc from_db = more(on_db, "$cmd.aggregate");
  ASSERT_EQ(ops(from_db), (std::vector<std::string>{"drop", "rename", "insert"})) << Json(from_db);
  EXPECT_EQ(String(from_db, "cursor.nextBatch.0.ns.coll"), std::string("t"));
  EXPECT_EQ(String(from_db, "cursor.nextBatch.1.operationDescription.to.coll"), std::string("t"));
  EXPECT_EQ(String(from_db, "cursor.nextBatch.2.ns.coll"), std::string("t"));
  EXPECT_EQ(Integer(from_db, "cursor.nextBatch.2.documentKey._id"), 2);
  EXPECT_NE(*Integer(from_db, "cursor.id"), 0) << "a database stream goes on";

  // A rename to another database: the source database's stream sees it.
  const int64_t on_db2 = open("1", "{}");
  ASSERT_OK_REPLY(RunAdmin("{\"renameCollection\": \"" + db_ + ".t\", \"to\": \"" + db_ + "_away.t\"}"));
  BsonDoc away = more(on_db2, "$cmd.aggregate");
  ASSERT_EQ(ops(away), (std::vector<std::string>{"rename"})) << Json(away);
  EXPECT_EQ(String(away, "cursor.nextBatch.0.to.db"), db_ + "_away");
}

// A collection created in a transaction is part of it, as in MongoDB 7:
// after an abort its watchers saw nothing (no create, and no drop or
// invalidate when it goes away); after a commit the create comes first,
// with the transaction's other events.
TEST_F(ChangeStreamTest, CollectionsCreatedInTransactionsAppearOnlyOnCommit) {
  InsertJson("other", R"([{"_id": 0}])");
  const std::string lsid = R"("lsid": {"id": {"$binary": {"base64": "EjRWeJASNFZ4kBI0VniQEg==", "subType": "04"}}})";
  auto txn = [&](int n, bool start) {
    return lsid + R"(, "txnNumber": {"$numberLong": ")" + std::to_string(n) + R"("}, "autocommit": false)" +
           (start ? R"(, "startTransaction": true)" : "");
  };
  BsonDoc on_coll = Run(R"({"aggregate": "born", "pipeline": [{"$changeStream": {}}], "cursor": {}})");
  BsonDoc on_db = Run(R"({"aggregate": 1, "pipeline": [{"$changeStream": {"showExpandedEvents": true}}], "cursor": {}})");
  ASSERT_OK_REPLY(on_coll);
  ASSERT_OK_REPLY(on_db);
  ASSERT_OK_REPLY(Run(R"({"insert": "born", "documents": [{"_id": "aborted"}], )" + txn(1, true) + "}"));
  ASSERT_OK_REPLY(RunAdmin(R"({"abortTransaction": 1, )" + txn(1, false) + "}"));
  ASSERT_OK_REPLY(Run(R"({"create": "born", )" + txn(2, true) + "}"));
  ASSERT_OK_REPLY(Run(R"({"insert": "born", "documents": [{"_id": "kept"}], )" + txn(2, false) + "}"));
  ASSERT_OK_REPLY(RunAdmin(R"({"commitTransaction": 1, )" + txn(2, false) + "}"));
  auto more = [&](const BsonDoc& opened, const std::string& coll) {
    return Run("{\"getMore\": {\"$numberLong\": \"" + std::to_string(*Integer(opened, "cursor.id")) +
               "\"}, \"collection\": \"" + coll + "\", \"maxTimeMS\": 1000}");
  };
  BsonDoc coll_events = more(on_coll, "born");
  std::vector<BsonDoc> events = testutil::DocArray(coll_events, "cursor.nextBatch");
  ASSERT_EQ(events.size(), 1u) << Json(coll_events);
  EXPECT_EQ(Op(events[0]), "insert");
  EXPECT_EQ(String(events[0], "documentKey._id"), std::string("kept"));
  BsonDoc db_events = more(on_db, "$cmd.aggregate");
  std::vector<std::string> ops;
  for (const BsonDoc& e : testutil::DocArray(db_events, "cursor.nextBatch")) ops.push_back(Op(e));
  EXPECT_EQ(ops, (std::vector<std::string>{"create", "insert"})) << Json(db_events);
  EXPECT_EQ(String(db_events, "cursor.nextBatch.0.ns.coll"), std::string("born"));
  EXPECT_TRUE(testutil::Has(db_events, "cursor.nextBatch.0.txnNumber")) << Json(db_events);
}

TEST_F(ChangeStreamTest, BadOptionsAnswerMongoDbCodes) {
  InsertJson("c", R"([{"_id": 0}])");
  EXPECT_ERROR_REPLY(Run(R"({"aggregate": "c", "pipeline": [{"$changeStream": {"fullDocument": "x"}}], "cursor": {}})"),
                     2, "BadValue");
  EXPECT_ERROR_REPLY(Run(R"({"aggregate": "c", "pipeline": [{"$changeStream": {}}, {"$group": {"_id": 1}}], "cursor": {}})"),
                     20, "IllegalOperation");
  EXPECT_ERROR_REPLY(Run(R"({"aggregate": "c", "pipeline": [{"$match": {}}, {"$changeStream": {}}], "cursor": {}})"),
                     40602, "Location40602");
  EXPECT_ERROR_REPLY(Run(R"({"aggregate": 1, "pipeline": [{"$changeStream": {"allChangesForCluster": true}}], "cursor": {}})"),
                     72, "InvalidOptions");
  EXPECT_ERROR_REPLY(Run(R"({"aggregate": "c", "pipeline": [{"$changeStream": {"resumeAfter": {"_data": "00"}}}], "cursor": {}})"),
                     2, "BadValue");
  // A well-formed token the log never held.
  EXPECT_ERROR_REPLY(Run(R"({"aggregate": "c", "pipeline": [{"$changeStream": {"resumeAfter": {"_data": "01FFFFFFF0000000010000000000"}}}], "cursor": {}})"),
                     280, "ChangeStreamFatalError");
  // The server keeps serving.
  EXPECT_OK_REPLY(Run(R"({"ping": 1})"));
}

TEST(ChangeStreamStandaloneTest, StandaloneAnswers40573) {
  ServerProcess server;
  ASSERT_TRUE(server.Start().ok());
  MongoClient client(server.uri());
  BsonDoc reply = client.RunCommand(
      "db", R"({"aggregate": "c", "pipeline": [{"$changeStream": {}}], "cursor": {}})");
  EXPECT_EQ(Integer(reply, "code"), 40573) << Json(reply);
  EXPECT_EQ(testutil::Number(reply, "ok"), 0.0);
  EXPECT_TRUE(server.Stop().ok());
}

}  // namespace
}  // namespace tigerdoc::e2e
