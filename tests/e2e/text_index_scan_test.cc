// $text through the text index end to end: the documents examined are the
// matches, not the collection (explain's TEXT_MATCH over FETCH <- IXSCAN /
// OR, or TEXT_OR when the score is asked for); result counts just below,
// at and above find's batch sizes, across shards, with writes changing the
// terms of documents between reads; compound text indexes and their prefix
// equalities (291), and their non-text fields refusing arrays (201).

#include <atomic>
#include <set>
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

class TextIndexScanTest : public TextIndexE2eTest {
 protected:
  // Inserts documents _id [from, to): every `every`-th one (by _id) holds
  // "needle", the others only filler words.
  void Fill(const std::string& coll, int from, int to, int every) {
    std::string docs = "[";
    for (int i = from; i < to; ++i) {
      if (i > from) docs += ",";
      docs += "{\"_id\": " + std::to_string(i) + ", \"t\": \"" +
              (every > 0 && i % every == 0 ? "needle in " : "plain hay ") + "word" +
              std::to_string(i % 7) + "\"}";
    }
    InsertJson(coll, docs + "]");
  }

  BsonDoc Explain(const std::string& find_json) {
    BsonDoc reply = Run("{\"explain\": " + find_json + ", \"verbosity\": \"executionStats\"}");
    EXPECT_TRUE(testutil::IsOk(reply)) << Json(reply);
    return reply;
  }

  // Every _id a find returns, first batch and getMores (default sizes).
  std::vector<int64_t> AllIds(const std::string& coll, const std::string& find_json) {
    BsonDoc reply = Run(find_json);
    EXPECT_TRUE(testutil::IsOk(reply)) << Json(reply);
    std::vector<int64_t> ids = Ids(reply);
    int64_t cursor = Integer(reply, "cursor.id").value_or(0);
    while (cursor != 0) {
      BsonDoc more = GetMore(cursor, coll);
      EXPECT_TRUE(testutil::IsOk(more)) << Json(more);
      if (!testutil::IsOk(more)) break;
      for (int64_t id : Ids(more, "cursor.nextBatch")) ids.push_back(id);
      cursor = Integer(more, "cursor.id").value_or(0);
    }
    return ids;
  }
};

constexpr char kPlan[] = "queryPlanner.winningPlan.shards.0.winningPlan";

TEST_F(TextIndexScanTest, DocumentsExaminedAreTheMatchesNotTheCollection) {
  ASSERT_OK_REPLY(Run(R"({"create": "big", "shards": 1})"));
  CreateTextIndex("big", R"({"t": "text"})");
  // 10,000 documents, 10 of them with the term.
  for (int from = 0; from < 10000; from += 2000) Fill("big", from, from + 2000, 1000);
  BsonDoc e = Explain(R"({"find": "big", "filter": {"$text": {"$search": "needles"}}})");
  EXPECT_EQ(Integer(e, "executionStats.nReturned"), 10) << Json(e);
  EXPECT_EQ(Integer(e, "executionStats.totalDocsExamined"), 10) << Json(e);
  EXPECT_EQ(Integer(e, "executionStats.totalKeysExamined"), 10) << Json(e);
  const std::string plan = kPlan;
  EXPECT_EQ(String(e, plan + ".stage"), "TEXT_MATCH") << Json(e);
  EXPECT_EQ(String(e, plan + ".indexName"), "text");
  EXPECT_EQ(String(e, plan + ".inputStage.stage"), "FETCH") << Json(e);
  EXPECT_EQ(String(e, plan + ".inputStage.inputStage.stage"), "IXSCAN") << Json(e);
  EXPECT_EQ(String(e, plan + ".inputStage.inputStage.direction"), "backward");

  // Two terms: one scan each under an OR; a document holding both is
  // returned once.
  e = Explain(R"({"find": "big", "filter": {"$text": {"$search": "needle word3"}}})");
  EXPECT_EQ(String(e, plan + ".inputStage.inputStage.stage"), "OR") << Json(e);
  EXPECT_EQ(testutil::ArrayLength(e, plan + ".inputStage.inputStage.inputStages"), 2u);
  // word3: the documents with _id % 7 == 3; needle: _ids 0, 1000, ..., 9000
  // (1000 and 8000 hold word3 too).
  int64_t expected = 0;
  for (int i = 0; i < 10000; ++i) expected += (i % 7 == 3 || i % 1000 == 0) ? 1 : 0;
  EXPECT_EQ(Integer(e, "executionStats.nReturned"), expected) << Json(e);
  EXPECT_EQ(Integer(e, "executionStats.totalDocsExamined"), expected);

  // The text score asked for: TEXT_OR, which scores.
  e = Explain(R"({"find": "big", "filter": {"$text": {"$search": "needle"}},
      "projection": {"s": {"$meta": "textScore"}}})");
  EXPECT_EQ(String(e, plan + ".stage"), "PROJECTION_DEFAULT") << Json(e);
  EXPECT_EQ(String(e, plan + ".inputStage.stage"), "TEXT_MATCH") << Json(e);
  EXPECT_EQ(String(e, plan + ".inputStage.inputStage.stage"), "TEXT_OR") << Json(e);
  EXPECT_EQ(Integer(e, "executionStats.totalDocsExamined"), 10) << Json(e);

  // Only negations: no term to read, nothing returned, nothing examined.
  e = Explain(R"({"find": "big", "filter": {"$text": {"$search": "-needle"}}})");
  EXPECT_EQ(Integer(e, "executionStats.nReturned"), 0) << Json(e);
  EXPECT_EQ(Integer(e, "executionStats.totalDocsExamined"), 0) << Json(e);
}

TEST_F(TextIndexScanTest, ResultCountsAroundBatchSizesAcrossShards) {
  ASSERT_OK_REPLY(Run(R"({"create": "s", "shards": 4})"));
  CreateTextIndex("s", R"({"t": "text"})");
  // Matches 0, 1, 101 (the first batch), 1000 and 1001 under distinct words.
  std::string docs = "[";
  int id = 0;
  auto add = [&](const std::string& word, int n) {
    for (int i = 0; i < n; ++i) {
      if (id > 0) docs += ",";
      docs += "{\"_id\": " + std::to_string(id++) + ", \"t\": \"" + word + " filler\"}";
    }
  };
  add("alpha", 1);
  add("bravo", 101);
  add("charlie", 1000);
  add("delta", 1001);
  InsertJson("s", docs + "]");
  struct Case {
    const char* search;
    size_t count;
  } cases[] = {{"zulu", 0}, {"alpha", 1}, {"bravo", 101}, {"charlie", 1000}, {"delta", 1001},
               {"alpha bravo", 102}, {"filler", 2103}};
  for (const Case& c : cases) {
    std::vector<int64_t> ids = AllIds(
        "s", std::string("{\"find\": \"s\", \"filter\": {\"$text\": {\"$search\": \"") + c.search +
                 "\"}}}");
    EXPECT_EQ(ids.size(), c.count) << c.search;
    EXPECT_EQ(std::set<int64_t>(ids.begin(), ids.end()).size(), ids.size()) << c.search;
    BsonDoc count = Run(std::string("{\"count\": \"s\", \"query\": {\"$text\": {\"$search\": \"") +
                        c.search + "\"}}}");
    EXPECT_EQ(Integer(count, "n"), static_cast<int64_t>(c.count)) << c.search << Json(count);
  }
  // Sorted by score with a limit past the first batch: the limit holds.
  EXPECT_EQ(AllIds("s", R"({"find": "s", "filter": {"$text": {"$search": "delta"}},
      "projection": {"s": {"$meta": "textScore"}}, "sort": {"s": {"$meta": "textScore"}},
      "limit": 150})").size(), 150u);
}

TEST_F(TextIndexScanTest, WritesMoveDocumentsBetweenTerms) {
  CreateTextIndex("w", R"({"t": "text"})");
  Fill("w", 0, 300, 1);  // every document holds "needle"
  BsonDoc first = Run(R"({"find": "w", "filter": {"$text": {"$search": "needle"}}, "batchSize": 10})");
  ASSERT_OK_REPLY(first);
  std::set<int64_t> seen;
  for (int64_t id : Ids(first)) seen.insert(id);
  // Between batches: every document loses the term but ten, some are
  // removed; none of them may come back.
  ASSERT_OK_REPLY(Run(R"({"update": "w", "updates": [{"q": {"_id": {"$gte": 10}},
      "u": {"$set": {"t": "thread only"}}, "multi": true}]})"));
  // Later batches: only documents that still hold the term (_id < 10),
  // each once, and all of those not returned yet.
  size_t expected = seen.size();
  for (int64_t id = 0; id < 10; ++id) expected += seen.count(id) ? 0 : 1;
  int64_t cursor = *Integer(first, "cursor.id");
  while (cursor != 0) {
    BsonDoc more = GetMore(cursor, "w", 7);
    ASSERT_OK_REPLY(more);
    for (int64_t id : Ids(more, "cursor.nextBatch")) {
      EXPECT_LT(id, 10);
      EXPECT_TRUE(seen.insert(id).second) << id;
    }
    cursor = *Integer(more, "cursor.id");
  }
  EXPECT_EQ(seen.size(), expected);
  // The new term finds the updated documents, the old one only the rest.
  EXPECT_EQ(AllIds("w", R"({"find": "w", "filter": {"$text": {"$search": "threads"}}})").size(), 290u);
  EXPECT_EQ(AllIds("w", R"({"find": "w", "filter": {"$text": {"$search": "needle"}}})").size(), 10u);
  ASSERT_OK_REPLY(Run(R"({"delete": "w", "deletes": [{"q": {"$text": {"$search": "thread"}}, "limit": 0}]})"));
  EXPECT_EQ(AllIds("w", R"({"find": "w", "filter": {"$text": {"$search": "thread"}}})").size(), 0u);
  EXPECT_EQ(AllIds("w", R"({"find": "w", "filter": {}})").size(), 10u);
}

TEST_F(TextIndexScanTest, PhrasesNegationsAndOtherPredicatesFilterTheCandidates) {
  InsertJson("p", R"([{"_id": 1, "t": "Red apple pie", "n": 1}, {"_id": 2, "t": "apple red", "n": 2},
                     {"_id": 3, "t": "green apple", "n": 3}, {"_id": 4, "t": "pear", "n": 4}])");
  CreateTextIndex("p", R"({"t": "text"})");  // built over existing documents
  auto ids = [&](const std::string& filter) {
    std::vector<int64_t> out =
        AllIds("p", "{\"find\": \"p\", \"filter\": " + filter + ", \"sort\": {\"_id\": 1}}");
    return out;
  };
  EXPECT_EQ(ids(R"({"$text": {"$search": "\"red apple\""}})"), (std::vector<int64_t>{1}));
  EXPECT_EQ(ids(R"({"$text": {"$search": "apple -green"}})"), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(ids(R"({"$text": {"$search": "apple"}, "n": {"$gte": 2}})"), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(ids(R"({"$text": {"$search": "Red", "$caseSensitive": true}})"), (std::vector<int64_t>{1}));
  // returnKey: no index key for $text's fetched documents, as MongoDB's {}.
  BsonDoc keys = Run(R"({"find": "p", "filter": {"$text": {"$search": "pear"}}, "returnKey": true})");
  ASSERT_OK_REPLY(keys);
  for (const BsonDoc& d : DocArray(keys, "cursor.firstBatch")) EXPECT_EQ(bson_count_keys(d.get()), 0u) << Json(keys);
  EXPECT_EQ(testutil::ArrayLength(keys, "cursor.firstBatch"), 1u);
  // Inserted after the index: found through it too.
  InsertJson("p", R"([{"_id": 5, "t": "apples and pears"}])");
  EXPECT_EQ(ids(R"({"$text": {"$search": "pear"}})"), (std::vector<int64_t>{4, 5}));
}

TEST_F(TextIndexScanTest, CompoundIndexNeedsPrefixEqualities) {
  InsertJson("c", R"([{"_id": 1, "cat": "a", "t": "coffee shop", "z": 1},
                     {"_id": 2, "cat": "b", "t": "coffee beans"},
                     {"_id": 3, "t": "coffee cup"}])");
  CreateTextIndex("c", R"({"cat": 1, "t": "text", "z": 1})");
  BsonDoc reply = Run(R"({"find": "c", "filter": {"$text": {"$search": "coffee"}}})");
  EXPECT_ERROR_REPLY(reply, 291, "NoQueryExecutionPlans");
  EXPECT_NE(String(reply, "errmsg")->find(
                "planner returned error :: caused by :: failed to use text index to satisfy $text "
                "query (if text index is compound, are equality predicates given for all prefix "
                "fields?)"),
            std::string::npos)
      << Json(reply);
  EXPECT_ERROR_REPLY(Run(R"({"find": "c", "filter": {"$text": {"$search": "coffee"},
      "cat": {"$in": ["a", "b"]}}})"), 291, "NoQueryExecutionPlans");
  EXPECT_EQ(AllIds("c", R"({"find": "c", "filter": {"$text": {"$search": "coffee"}, "cat": "b"}})"),
            (std::vector<int64_t>{2}));
  EXPECT_EQ(AllIds("c", R"({"find": "c", "filter": {"$and": [{"cat": {"$eq": "a"}},
      {"$text": {"$search": "coffee"}}]}})"), (std::vector<int64_t>{1}));
  // A missing prefix field is indexed as null.
  EXPECT_EQ(AllIds("c", R"({"find": "c", "filter": {"$text": {"$search": "cup"}, "cat": null}})"),
            (std::vector<int64_t>{3}));
  BsonDoc e = Explain(R"({"find": "c", "filter": {"$text": {"$search": "coffee"}, "cat": "a"}})");
  EXPECT_EQ(String(e, std::string(kPlan) + ".indexPrefix.cat"), "a") << Json(e);
  EXPECT_EQ(Integer(e, "executionStats.totalDocsExamined"), 1) << Json(e);
  // Non-text fields of a text index refuse arrays.
  BsonDoc bad = Run(R"({"insert": "c", "documents": [{"_id": 9, "cat": ["a"], "t": "tea"}]})");
  ASSERT_OK_REPLY(bad);
  EXPECT_EQ(Integer(bad, "writeErrors.0.code"), 201) << Json(bad);
  bad = Run(R"({"insert": "c", "documents": [{"_id": 10, "cat": "a", "z": [], "t": "tea"}]})");
  EXPECT_EQ(Integer(bad, "writeErrors.0.code"), 201) << Json(bad);
  // A text index serves nothing but $text, even queries on its prefix.
  EXPECT_EQ(AllIds("c", R"({"find": "c", "filter": {"cat": "a"}})"), (std::vector<int64_t>{1}));
  e = Explain(R"({"find": "c", "filter": {"cat": "a"}})");
  EXPECT_EQ(String(e, std::string(kPlan) + ".stage"), "COLLSCAN") << Json(e);
}

TEST_F(TextIndexScanTest, ConnectionsRewriteTermsWhileOthersSearch) {
  ASSERT_OK_REPLY(Run(R"({"create": "m", "shards": 3})"));
  CreateTextIndex("m", R"({"t": "text"})");
  Fill("m", 0, 200, 1);
  constexpr int kWriters = 3;
  std::atomic<bool> writing{true};
  std::atomic<int> failures{0};
  std::atomic<int> searches{0};
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      MongoClient client(server_->uri());
      // Each writer flips its own documents between two words.
      for (int round = 0; round < 20; ++round) {
        const std::string word = round % 2 ? "needle" : "thimble";
        BsonDoc reply = client.RunCommand(
            db_, "{\"update\": \"m\", \"updates\": [{\"q\": {\"_id\": {\"$mod\": [" +
                     std::to_string(kWriters) + ", " + std::to_string(w) +
                     "]}}, \"u\": {\"$set\": {\"t\": \"" + word + "\"}}, \"multi\": true}]}");
        if (!testutil::IsOk(reply)) ++failures;
      }
    });
  }
  std::vector<std::thread> readers;
  for (int r = 0; r < 2; ++r) {
    readers.emplace_back([&] {
      MongoClient client(server_->uri());
      while (writing) {
        // Every document returned must hold the word when it is read.
        BsonDoc reply = client.RunCommand(
            db_, R"({"find": "m", "filter": {"$text": {"$search": "thimble"}}, "batchSize": 1000})");
        if (!testutil::IsOk(reply)) ++failures;
        for (const BsonDoc& d : DocArray(reply, "cursor.firstBatch")) {
          if (String(d, "t").value_or("") != "thimble") ++failures;
        }
        ++searches;
      }
    });
  }
  for (std::thread& t : writers) t.join();
  writing = false;
  for (std::thread& t : readers) t.join();
  EXPECT_EQ(failures, 0);
  EXPECT_GT(searches, 0);
  // The last round (19) wrote "needle" everywhere.
  EXPECT_EQ(AllIds("m", R"({"find": "m", "filter": {"$text": {"$search": "needle"}}})").size(), 200u);
  EXPECT_EQ(AllIds("m", R"({"find": "m", "filter": {"$text": {"$search": "thimble"}}})").size(), 0u);
}

TEST_F(TextIndexScanTest, TextUnderOrNeedsEveryOtherBranchIndexed) {
  ASSERT_OK_REPLY(Run(R"({"create": "o", "shards": 2})"));
  std::string docs = "[";
  for (int i = 0; i < 400; ++i) {
    if (i) docs += ",";
    docs += "{\"_id\": " + std::to_string(i) + ", \"a\": " + std::to_string(i % 40) +
            ", \"t\": \"" + (i % 100 == 0 ? "espresso" : "water") + "\"}";
  }
  InsertJson("o", docs + "]");
  CreateTextIndex("o", R"({"t": "text"})");
  const std::string find =
      R"({"find": "o", "filter": {"$or": [{"$text": {"$search": "espresso"}}, {"a": 7}]}})";
  BsonDoc reply = Run(find);
  EXPECT_ERROR_REPLY(reply, 291, "NoQueryExecutionPlans");
  EXPECT_NE(String(reply, "errmsg")->find("Failed to produce a solution for TEXT under OR - other "
                                          "non-TEXT clauses under OR have to be indexed as well."),
            std::string::npos)
      << Json(reply);
  ASSERT_OK_REPLY(Run(R"({"createIndexes": "o", "indexes": [{"key": {"a": 1}, "name": "a_1"}]})"));
  // 4 with the term (_id 0, 100, 200, 300: a = 0, 20, 0, 20) and 10 with a: 7.
  std::vector<int64_t> ids = AllIds("o", find);
  EXPECT_EQ(ids.size(), 14u);
  EXPECT_EQ(std::set<int64_t>(ids.begin(), ids.end()).size(), 14u);
  BsonDoc e = Explain(find);
  EXPECT_EQ(Integer(e, "executionStats.nReturned"), 14) << Json(e);
  EXPECT_EQ(Integer(e, "executionStats.totalDocsExamined"), 14) << Json(e);
  // An overlap is returned once: _id 0 has the term and a: 0.
  ids = AllIds("o", R"({"find": "o", "filter": {"$or": [{"$text": {"$search": "espresso"}}, {"a": 0}]}})");
  EXPECT_EQ(ids.size(), 12u);  // a: 0 is 10 documents, two of them with the term, plus 100 and 300
  EXPECT_EQ(std::set<int64_t>(ids.begin(), ids.end()).size(), 12u);
  // Under $nor it stays refused.
  EXPECT_ERROR_REPLY(Run(R"({"find": "o", "filter": {"$nor": [{"$text": {"$search": "espresso"}}]}})"),
                     2, "BadValue");
}

}  // namespace
}  // namespace tigerdoc::e2e
