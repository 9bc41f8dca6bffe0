// RecordCommand (wire/commands/server_metrics.h) reads what it counts from
// the reply in one walk (issue #18, bench/README.md "CPU per find, round
// 4"): ok, code, n, nModified and the length of cursor.firstBatch /
// cursor.nextBatch. Each case records replies shaped as the commands send
// them (the counted fields in any position, of any numeric type, and
// fields of the same names nested elsewhere that must not count) and
// checks the deltas of opcounters, metrics.document, network and top.
// The counters are process-wide: every case reads them before and after.

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "engine/bson/bson_doc.h"
#include "wire/commands/reply_facts.h"
#include "wire/commands/server_metrics.h"

namespace tigerdoc::wire {
namespace {

using bson::BsonDoc;

int64_t At(const BsonDoc& doc, const char* path) {
  bson_iter_t it, found;
  if (!bson_iter_init(&it, doc.get()) || !bson_iter_find_descendant(&it, path, &found) ||
      !BSON_ITER_HOLDS_NUMBER(&found)) {
    return 0;
  }
  return bson_iter_as_int64(&found);
}

struct Snapshot {
  BsonDoc status;  // opcounters, network, ...
  BsonDoc metrics;  // document: {...}
  BsonDoc top;     // {<ns>: {...}}
};

Snapshot Take() {
  Snapshot s;
  AppendServerMetrics(s.status.mutable_get());
  AppendDocumentMetrics(s.metrics.mutable_get());
  AppendTopTotals(s.top.mutable_get());
  return s;
}

// top's counter `path` ("queries.count") of namespace `ns` (a key with a
// dot, so not a path of its own); 0 when top has no such namespace.
int64_t TopAt(const BsonDoc& top, const std::string& ns, const char* path) {
  bson_iter_t totals, entry, found;
  if (!bson_iter_init_find(&totals, top.get(), "totals") || !bson_iter_recurse(&totals, &entry) ||
      !bson_iter_find(&entry, ns.c_str()) || !bson_iter_recurse(&entry, &found) ||
      !bson_iter_find_descendant(&found, path, &found) || !BSON_ITER_HOLDS_NUMBER(&found)) {
    return 0;
  }
  return bson_iter_as_int64(&found);
}

// The counter at `path` in `which` of after minus before.
int64_t Delta(const Snapshot& before, const Snapshot& after, BsonDoc Snapshot::*which,
              const char* path) {
  return At(after.*which, path) - At(before.*which, path);
}

int64_t TopDelta(const Snapshot& before, const Snapshot& after, const std::string& ns,
                 const char* path) {
  return TopAt(after.top, ns, path) - TopAt(before.top, ns, path);
}

CommandRequest Request(const std::string& json, const std::string& db = "mdb") {
  CommandRequest r;
  r.db = db;
  r.body = BsonDoc::FromJson(json);
  return r;
}

TEST(ServerMetricsTest, FindCountsItsFirstBatchWhereverTheFieldsAre) {
  const Snapshot before = Take();
  const CommandRequest find = Request(R"({"find": "coll", "filter": {"_id": 1}})");
  // As the find command answers: cursor first, ok last.
  RecordCommand("find", find,
                BsonDoc::FromJson(R"({"cursor": {"firstBatch": [{"_id": 1, "n": 5}], "id": 0,
                                       "ns": "mdb.coll"}, "ok": 1.0})"),
                std::chrono::microseconds(7));
  // Fields in another order; an empty batch; ok as an int32.
  RecordCommand("find", find,
                BsonDoc::FromJson(R"({"ok": 1, "cursor": {"ns": "mdb.coll", "id": 0, "firstBatch": []}})"),
                std::chrono::microseconds(3));
  // Three documents, each with fields named like the counted ones.
  RecordCommand("find", find,
                BsonDoc::FromJson(R"({"cursor": {"id": {"$numberLong": "12"}, "firstBatch":
                                       [{"n": 9, "code": 13}, {"cursor": {"firstBatch": [1, 2]}}, {}]},
                                       "ok": 1.0})"),
                std::chrono::microseconds(5));
  const Snapshot after = Take();
  EXPECT_EQ(Delta(before, after, &Snapshot::status, "opcounters.query"), 3);
  EXPECT_EQ(Delta(before, after, &Snapshot::metrics, "document.returned"), 4);
  EXPECT_EQ(Delta(before, after, &Snapshot::status, "opLatencies.reads.ops"), 3);
  EXPECT_EQ(Delta(before, after, &Snapshot::status, "opLatencies.reads.latency"), 15);
  EXPECT_EQ(Delta(before, after, &Snapshot::status, "network.numRequests"), 3);
  EXPECT_EQ(TopDelta(before, after, "mdb.coll", "queries.count"), 3);
  EXPECT_EQ(TopDelta(before, after, "mdb.coll", "queries.time"), 15);
  EXPECT_EQ(TopDelta(before, after, "mdb.coll", "readLock.count"), 3);
  EXPECT_EQ(TopDelta(before, after, "mdb.coll", "total.count"), 3);
}

TEST(ServerMetricsTest, GetMoreCountsItsNextBatchUnderItsCollection) {
  const Snapshot before = Take();
  RecordCommand("getMore", Request(R"({"getMore": {"$numberLong": "5"}, "collection": "gm"})"),
                BsonDoc::FromJson(R"({"cursor": {"nextBatch": [{"a": 1}, {"a": 2}], "id": 5,
                                       "ns": "mdb.gm"}, "ok": 1.0})"),
                std::chrono::microseconds(2));
  const Snapshot after = Take();
  EXPECT_EQ(Delta(before, after, &Snapshot::status, "opcounters.getmore"), 1);
  EXPECT_EQ(Delta(before, after, &Snapshot::metrics, "document.returned"), 2);
  EXPECT_EQ(TopDelta(before, after, "mdb.gm", "getmore.count"), 1);
}

TEST(ServerMetricsTest, WritesCountStatementsAndWhatTheReplySaysTheyDid) {
  const Snapshot before = Take();
  RecordCommand("insert", Request(R"({"insert": "w", "documents": [{"_id": 1}, {"_id": 2}]})"),
                BsonDoc::FromJson(R"({"n": 2, "ok": 1.0})"), std::chrono::microseconds(1));
  // nModified as an int64 before n; a writeErrors entry with its own n.
  RecordCommand("update", Request(R"({"update": "w", "updates": [{"q": {}, "u": {}}, {"q": {}, "u": {}}]})"),
                BsonDoc::FromJson(R"({"nModified": {"$numberLong": "1"}, "n": 2,
                                       "writeErrors": [{"index": 1, "n": 40, "code": 11000}], "ok": 1.0})"),
                std::chrono::microseconds(1));
  RecordCommand("delete", Request(R"({"delete": "w", "deletes": [{"q": {}, "limit": 0}]})"),
                BsonDoc::FromJson(R"({"ok": 1.0, "n": 3.0})"), std::chrono::microseconds(1));
  const Snapshot after = Take();
  EXPECT_EQ(Delta(before, after, &Snapshot::status, "opcounters.insert"), 2);
  EXPECT_EQ(Delta(before, after, &Snapshot::metrics, "document.inserted"), 2);
  EXPECT_EQ(Delta(before, after, &Snapshot::status, "opcounters.update"), 2);
  EXPECT_EQ(Delta(before, after, &Snapshot::metrics, "document.updated"), 1);
  EXPECT_EQ(Delta(before, after, &Snapshot::status, "opcounters.delete"), 1);
  EXPECT_EQ(Delta(before, after, &Snapshot::metrics, "document.deleted"), 3);
  EXPECT_EQ(TopDelta(before, after, "mdb.w", "writeLock.count"), 3);
}

TEST(ServerMetricsTest, CommandsRefusedBeforeRunningStayOutOfTop) {
  const Snapshot before = Take();
  for (int code : {13, 59, 73}) {
    RecordCommand("find", Request(R"({"find": "refused"})"),
                  BsonDoc::FromJson(R"({"ok": 0.0, "errmsg": "no", "code": )" + std::to_string(code) +
                                    R"(, "codeName": "X"})"),
                  std::chrono::microseconds(1));
  }
  // Another error ran the command: it counts.
  RecordCommand("find", Request(R"({"find": "refused"})"),
                BsonDoc::FromJson(R"({"ok": 0.0, "errmsg": "bad", "code": 2, "codeName": "BadValue"})"),
                std::chrono::microseconds(1));
  const Snapshot after = Take();
  EXPECT_EQ(Delta(before, after, &Snapshot::status, "opcounters.query"), 4);
  EXPECT_EQ(TopDelta(before, after, "mdb.refused", "queries.count"), 1);
}

TEST(ServerMetricsTest, DropForgetsTheCollectionOnlyWhenItSucceeded) {
  RecordCommand("find", Request(R"({"find": "gone"})"),
                BsonDoc::FromJson(R"({"cursor": {"firstBatch": [], "id": 0, "ns": "mdb.gone"}, "ok": 1})"),
                std::chrono::microseconds(1));
  EXPECT_EQ(TopAt(Take().top, "mdb.gone", "queries.count"), 1);
  RecordCommand("drop", Request(R"({"drop": "gone"})"),
                BsonDoc::FromJson(R"({"ok": 0.0, "code": 26, "codeName": "NamespaceNotFound"})"),
                std::chrono::microseconds(1));
  EXPECT_EQ(TopAt(Take().top, "mdb.gone", "queries.count"), 1);
  RecordCommand("drop", Request(R"({"drop": "gone"})"), BsonDoc::FromJson(R"({"nIndexesWas": 1, "ok": 1.0})"),
                std::chrono::microseconds(1));
  EXPECT_EQ(TopAt(Take().top, "mdb.gone", "queries.count"), 0);
}

// Namespaces at MongoDB's limit of 255 bytes count; longer ones do not.
TEST(ServerMetricsTest, TopTakesNamespacesUpTo255Bytes) {
  const std::string db = "ldb";
  for (size_t length : {254u, 255u, 256u, 400u}) {
    const std::string coll(length - db.size() - 1, 'c');
    RecordCommand("find", Request(R"({"find": ")" + coll + R"("})", db),
                  BsonDoc::FromJson(R"({"cursor": {"firstBatch": [], "id": 0}, "ok": 1})"),
                  std::chrono::microseconds(1));
    EXPECT_EQ(TopAt(Take().top, db + "." + coll, "queries.count"), length <= 255 ? 1 : 0) << length;
  }
}

TEST(ServerMetricsTest, EightThreadsAtOnceLoseNoCount) {
  const Snapshot before = Take();
  constexpr int kThreads = 8, kEach = 2000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([] {
      const CommandRequest find = Request(R"({"find": "par", "filter": {"_id": 1}})");
      const BsonDoc reply =
          BsonDoc::FromJson(R"({"cursor": {"firstBatch": [{"_id": 1}], "id": 0, "ns": "mdb.par"}, "ok": 1.0})");
      for (int i = 0; i < kEach; ++i) RecordCommand("find", find, reply, std::chrono::microseconds(1));
    });
  }
  for (auto& t : threads) t.join();
  const Snapshot after = Take();
  EXPECT_EQ(Delta(before, after, &Snapshot::status, "opcounters.query"), kThreads * kEach);
  EXPECT_EQ(Delta(before, after, &Snapshot::metrics, "document.returned"), kThreads * kEach);
  EXPECT_EQ(TopDelta(before, after, "mdb.par", "queries.count"), kThreads * kEach);
}

// ReadReplyFacts gives the same answer through RawFields and, where
// RawFields stops (a regex, a code-with-scope), through libbson.
TEST(ReplyFactsTest, SameFactsWhicheverReaderWalks) {
  const std::string body =
      R"("cursor": {"firstBatch": [{"a": 1}, {"b": {"n": 4}}, {}], "id": {"$numberLong": "77"},
                    "ns": "d.c"}, "n": 5, "nModified": {"$numberLong": "4"}, "code": 2, "ok": 1.0)";
  for (const std::string& extra :
       {std::string(), std::string(R"(, "r": {"$regularExpression": {"pattern": "a", "options": ""}})"),
        std::string(R"("r": {"$regularExpression": {"pattern": "a", "options": ""}}, )")}) {
    const std::string json = extra.rfind(", ", 0) == 0 ? "{" + body + extra + "}" : "{" + extra + body + "}";
    const ReplyFacts f = ReadReplyFacts(BsonDoc::FromJson(json).get());
    EXPECT_EQ(f.ok, 1) << json;
    EXPECT_EQ(f.code, 2) << json;
    EXPECT_EQ(f.n, 5) << json;
    EXPECT_EQ(f.n_modified, 4) << json;
    EXPECT_EQ(f.batch, 3) << json;
    EXPECT_EQ(f.cursor_id, 77) << json;
  }
  // A regex inside the batch: counted as an element all the same.
  const ReplyFacts f = ReadReplyFacts(
      BsonDoc::FromJson(R"({"cursor": {"nextBatch": [{"$regularExpression": {"pattern": "a", "options": ""}}, 1],
                            "id": {"$numberLong": "0"}}, "ok": 1})").get());
  EXPECT_EQ(f.batch, 2);
  EXPECT_EQ(f.cursor_id, 0);
}

TEST(ReplyFactsTest, WrongTypesAndAbsentFieldsReadAsZero) {
  ReplyFacts f = ReadReplyFacts(BsonDoc::FromJson(R"({"ok": "yes", "n": null, "cursor": {"id": 5, "firstBatch": {"0": 1}}})").get());
  EXPECT_EQ(f.ok, 0);
  EXPECT_EQ(f.n, 0);
  EXPECT_EQ(f.cursor_id, 0);  // an int32 id is not a cursor id
  EXPECT_EQ(f.batch, 0);      // a document is not a batch
  f = ReadReplyFacts(BsonDoc::FromJson(R"({"cursor": 1, "ok": 1})").get());
  EXPECT_EQ(f.ok, 1);
  EXPECT_EQ(f.batch, 0);
  f = ReadReplyFacts(BsonDoc().get());
  EXPECT_EQ(f.ok, 0);
}

}  // namespace
}  // namespace tigerdoc::wire
