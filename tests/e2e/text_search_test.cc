// Text search end to end through libmongoc: text indexes as listIndexes
// shows them, $text with textScore projections and sorts, cursors over
// several batches, the first $match of an aggregation, explain's
// TEXT_MATCH, MongoDB's codes for misuse, and several connections
// searching while others write.

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "tests/e2e/text_index_base.h"

namespace tigerdoc::e2e {
namespace {

using testutil::DocArray;
using testutil::Integer;
using testutil::Json;
using testutil::Number;
using testutil::String;

class TextSearchTest : public TextIndexE2eTest {};

TEST_F(TextSearchTest, ListIndexesShowsMongoDBsStoredForm) {
  CreateTextIndex("a", R"({"title": "text", "body": "text"})", R"("weights": {"title": 5})");
  BsonDoc list = Run(R"({"listIndexes": "a"})");
  ASSERT_OK_REPLY(list);
  std::vector<BsonDoc> indexes = DocArray(list, "cursor.firstBatch");
  ASSERT_EQ(indexes.size(), 2u);
  EXPECT_EQ(testutil::CanonicalJson(indexes[1]),
            testutil::CanonicalJson(R"({"v": 2, "key": {"_fts": "text", "_ftsx": 1}, "name": "text",
                "weights": {"body": 1, "title": 5}, "default_language": "english",
                "language_override": "language", "textIndexVersion": 3})"));
}

TEST_F(TextSearchTest, OneTextIndexPerCollection) {
  CreateTextIndex("a", R"({"title": "text"})");
  EXPECT_ERROR_REPLY(
      Run(R"({"createIndexes": "a", "indexes": [{"key": {"body": "text"}, "name": "other"}]})"), 67,
      "CannotCreateIndex");
  // The same index again is a no-op; dropping it frees the place.
  EXPECT_OK_REPLY(
      Run(R"({"createIndexes": "a", "indexes": [{"key": {"title": "text"}, "name": "text"}]})"));
  ASSERT_OK_REPLY(Run(R"({"dropIndexes": "a", "index": "text"})"));
  EXPECT_OK_REPLY(
      Run(R"({"createIndexes": "a", "indexes": [{"key": {"body": "text"}, "name": "other"}]})"));
}

TEST_F(TextSearchTest, ProjectsAndSortsByTextScore) {
  InsertJson("a", R"([{"_id": 1, "t": "hello world"}, {"_id": 2, "t": "hello"},
                     {"_id": 3, "t": "goodbye"}, {"_id": 4, "t": "hello hello world"}])");
  CreateTextIndex("a", R"({"t": "text"})");
  BsonDoc reply = Run(R"({"find": "a", "filter": {"$text": {"$search": "hello"}},
      "projection": {"_id": 1, "s": {"$meta": "textScore"}}, "sort": {"s": {"$meta": "textScore"}}})");
  ASSERT_OK_REPLY(reply);
  // 4: freq 1 + 1/2, coeff 0.5 * 2/3 + 0.5 -> 1.25; 2: the whole string,
  // 1.1; 1: one of two terms, 0.75.
  EXPECT_EQ(Ids(reply), (std::vector<int64_t>{4, 2, 1}));
  std::vector<BsonDoc> docs = DocArray(reply, "cursor.firstBatch");
  ASSERT_EQ(docs.size(), 3u);
  EXPECT_DOUBLE_EQ(*Number(docs[0], "s"), 1.25);
  EXPECT_DOUBLE_EQ(*Number(docs[1], "s"), 1.1);
  EXPECT_DOUBLE_EQ(*Number(docs[2], "s"), 0.75);
}

TEST_F(TextSearchTest, CursorOverSeveralBatchesKeepsScores) {
  // 101 matches: the default first batch (101) exactly, then batchSize 2
  // just below, at and above a batch's end.
  std::string docs = "[";
  for (int i = 0; i < 205; ++i) {
    if (i) docs += ",";
    docs += "{\"_id\": " + std::to_string(i) + ", \"t\": \"" + (i % 2 ? "match" : "other") + " " +
            std::to_string(i) + "\"}";
  }
  InsertJson("a", docs + "]");
  CreateTextIndex("a", R"({"t": "text"})");
  BsonDoc first = Run(R"({"find": "a", "filter": {"$text": {"$search": "match"}}, "batchSize": 100,
      "projection": {"s": {"$meta": "textScore"}}})");
  ASSERT_OK_REPLY(first);
  int64_t total = static_cast<int64_t>(testutil::ArrayLength(first, "cursor.firstBatch"));
  EXPECT_EQ(total, 100);
  int64_t cursor = *Integer(first, "cursor.id");
  while (cursor != 0) {
    BsonDoc more = GetMore(cursor, "a", 2);
    ASSERT_OK_REPLY(more);
    for (const BsonDoc& d : DocArray(more, "cursor.nextBatch")) {
      EXPECT_DOUBLE_EQ(*Number(d, "s"), 0.75) << Json(d);
      ++total;
    }
    cursor = *Integer(more, "cursor.id");
  }
  EXPECT_EQ(total, 102);
}

TEST_F(TextSearchTest, AggregationFirstMatchAndCount) {
  InsertJson("a", R"([{"_id": 1, "t": "red apple"}, {"_id": 2, "t": "green apples"},
                     {"_id": 3, "t": "banana"}])");
  CreateTextIndex("a", R"({"t": "text"})");
  BsonDoc reply = Run(R"({"aggregate": "a", "pipeline": [{"$match": {"$text": {"$search": "apple"}}},
      {"$sort": {"_id": 1}}], "cursor": {}})");
  ASSERT_OK_REPLY(reply);
  EXPECT_EQ(Ids(reply), (std::vector<int64_t>{1, 2}));
  EXPECT_ERROR_REPLY(Run(R"({"aggregate": "a", "pipeline": [{"$sort": {"_id": 1}},
      {"$match": {"$text": {"$search": "apple"}}}], "cursor": {}})"), 17313, "Location17313");
  BsonDoc count = Run(R"({"count": "a", "query": {"$text": {"$search": "banana"}}})");
  ASSERT_OK_REPLY(count);
  EXPECT_EQ(Integer(count, "n"), 1);
  BsonDoc removed = Run(R"({"delete": "a", "deletes": [{"q": {"$text": {"$search": "apples"}}, "limit": 0}]})");
  ASSERT_OK_REPLY(removed);
  EXPECT_EQ(Integer(removed, "n"), 2);
}

TEST_F(TextSearchTest, ExplainShowsTextMatch) {
  InsertJson("a", R"([{"_id": 1, "t": "red apple"}])");
  CreateTextIndex("a", R"({"t": "text"})");
  BsonDoc reply = Run(R"({"explain": {"find": "a", "filter": {"$text": {"$search": "apples -pear \"red apple\""}}}})");
  ASSERT_OK_REPLY(reply);
  const std::string json = Json(reply);
  EXPECT_NE(json.find("\"TEXT_MATCH\""), std::string::npos) << json;
  for (const char* part : {"parsedTextQuery", "\"appl\"", "\"red\"", "\"pear\"", "\"red apple\""}) {
    EXPECT_NE(json.find(part), std::string::npos) << part << " in " << json;
  }
}

TEST_F(TextSearchTest, MisuseAnswersMongoDBsCodes) {
  InsertJson("a", R"([{"_id": 1, "t": "red apple"}])");
  EXPECT_ERROR_REPLY(Run(R"({"find": "a", "filter": {"$text": {"$search": "apple"}}})"), 27,
                     "IndexNotFound");
  CreateTextIndex("a", R"({"t": "text"})");
  EXPECT_ERROR_REPLY(Run(R"({"find": "a", "projection": {"s": {"$meta": "textScore"}}})"), 40218,
                     "Location40218");
  EXPECT_ERROR_REPLY(Run(R"({"find": "a", "filter": {"$text": {"$search": "a"}},
      "projection": {"s": {"$meta": "nope"}}})"), 17308, "Location17308");
  EXPECT_ERROR_REPLY(Run(R"({"find": "a", "sort": {"s": {"$meta": "nope"}}})"), 31138,
                     "Location31138");
  EXPECT_ERROR_REPLY(Run(R"({"find": "a", "filter": {"$text": {"$search": 1}}})"), 14,
                     "TypeMismatch");
  EXPECT_ERROR_REPLY(Run(R"({"find": "a", "filter": {"$text": {"$search": "a", "$language": "xx"}}})"),
                     2, "BadValue");
  EXPECT_ERROR_REPLY(Run(R"({"find": "a", "filter": {"$nor": [{"$text": {"$search": "a"}}]}})"), 2,
                     "BadValue");
  // The server keeps serving.
  BsonDoc ok = Run(R"({"find": "a", "filter": {"$text": {"$search": "apple"}}})");
  ASSERT_OK_REPLY(ok);
  EXPECT_EQ(Ids(ok), (std::vector<int64_t>{1}));
}

TEST_F(TextSearchTest, SeveralConnectionsSearchWhileOthersWrite) {
  CreateTextIndex("a", R"({"t": "text"})");
  constexpr int kWriters = 3;
  constexpr int kDocsPerWriter = 60;
  std::atomic<bool> writing{true};
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      MongoClient client(server_->uri());
      for (int i = 0; i < kDocsPerWriter; ++i) {
        const int id = w * 1000 + i;
        BsonDoc reply = client.RunCommand(
            db_, "{\"insert\": \"a\", \"documents\": [{\"_id\": " + std::to_string(id) +
                     ", \"t\": \"writer" + std::to_string(w) + " common words\"}]}");
        if (!testutil::IsOk(reply)) ++failures;
      }
    });
  }
  std::atomic<int> searches{0};
  for (int r = 0; r < 2; ++r) {
    threads.emplace_back([&] {
      MongoClient client(server_->uri());
      while (writing) {
        BsonDoc reply = client.RunCommand(
            db_, R"({"find": "a", "filter": {"$text": {"$search": "common"}},
                     "projection": {"s": {"$meta": "textScore"}}, "batchSize": 1000})");
        if (!testutil::IsOk(reply)) ++failures;
        for (const BsonDoc& d : DocArray(reply, "cursor.firstBatch")) {
          if (Number(d, "s").value_or(0) <= 0) ++failures;
        }
        ++searches;
      }
    });
  }
  for (int w = 0; w < kWriters; ++w) threads[w].join();
  writing = false;
  for (size_t i = kWriters; i < threads.size(); ++i) threads[i].join();
  EXPECT_EQ(failures, 0);
  EXPECT_GT(searches, 0);
  for (int w = 0; w < kWriters; ++w) {
    BsonDoc count = Run("{\"count\": \"a\", \"query\": {\"$text\": {\"$search\": \"writer" +
                        std::to_string(w) + "\"}}}");
    EXPECT_EQ(Integer(count, "n"), kDocsPerWriter) << Json(count);
  }
}

}  // namespace
}  // namespace tigerdoc::e2e
