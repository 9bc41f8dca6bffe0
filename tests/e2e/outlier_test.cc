// The outlier pattern through libmongoc on the real server: several
// connections pushing onto the same and different books, kill -9 in the
// middle of concurrent pushes (afterwards each book's embedded part plus
// overflow is exactly the acknowledged pushes, flags and counters
// consistent), findAndModify's new document, upserts and $merge into a
// parent collection.
#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "tests/e2e/e2e_test_base.h"
#include "tests/testutil/wait_until.h"

namespace tigerdoc::e2e {
namespace {

using testutil::Integer;
using testutil::Json;

// threshold 5, chunk 3: every few pushes cross a boundary.
constexpr char kCreateBooks[] =
    R"({"create": "books", "outlier": {"path": "customers", "threshold": 5,
        "overflow": "books_overflow", "chunk": 3, "flag": "hasExtras",
        "countField": "customersCount", "view": "books_full"}})";
constexpr int kThreshold = 5;
constexpr int kBooks = 3;
constexpr int kThreads = 4;

class OutlierE2eTest : public E2eTest {
 protected:
  static std::vector<int64_t> IntArray(const BsonDoc& doc, std::string_view path) {
    std::vector<int64_t> out;
    std::optional<bson_iter_t> it = testutil::Lookup(doc, path);
    if (!it || !BSON_ITER_HOLDS_ARRAY(&*it)) return out;
    bson_iter_t child;
    bson_iter_recurse(&*it, &child);
    while (bson_iter_next(&child)) out.push_back(bson_iter_as_int64(&child));
    return out;
  }

  // The book as stored and as the view shows it.
  struct Book {
    std::vector<int64_t> embedded;
    std::vector<int64_t> whole;
    bool flagged = false;
    int64_t count = -1;
  };
  Book ReadBook(int id) {
    Book book;
    const std::string filter = R"(, "filter": {"_id": )" + std::to_string(id) + "}}";
    BsonDoc stored = Run(R"({"find": "books")" + filter);
    EXPECT_OK_REPLY(stored);
    book.embedded = IntArray(stored, "cursor.firstBatch.0.customers");
    book.flagged = testutil::TypeAt(stored, "cursor.firstBatch.0.hasExtras") == BSON_TYPE_BOOL;
    book.count = Integer(stored, "cursor.firstBatch.0.customersCount").value_or(-1);
    BsonDoc whole = Run(R"({"find": "books_full")" + filter);
    EXPECT_OK_REPLY(whole);
    book.whole = IntArray(whole, "cursor.firstBatch.0.customers");
    return book;
  }

  void ExpectConsistent(const Book& book, int id) {
    EXPECT_EQ(book.count, static_cast<int64_t>(book.whole.size())) << "book " << id;
    EXPECT_EQ(book.flagged, book.whole.size() > static_cast<size_t>(kThreshold)) << "book " << id;
    EXPECT_EQ(book.embedded.size(), std::min(book.whole.size(), static_cast<size_t>(kThreshold)))
        << "book " << id;
  }

  void ExpectValidAndStatsExact(int64_t flagged) {
    BsonDoc validate = Run(R"({"validate": "books"})");
    EXPECT_OK_REPLY(validate);
    EXPECT_TRUE(testutil::Lookup(validate, "valid").has_value());
    EXPECT_EQ(testutil::TypeAt(validate, "valid"), BSON_TYPE_BOOL);
    EXPECT_EQ(testutil::ArrayLength(validate, "errors"), 0u) << Json(validate);
    BsonDoc stats = Run(R"({"collStats": "books"})");
    EXPECT_EQ(Integer(stats, "patterns.outlier.flaggedDocuments"), flagged) << Json(stats);
    BsonDoc count = Run(R"({"count": "books_overflow"})");
    EXPECT_EQ(Integer(stats, "patterns.outlier.overflowDocuments"), Integer(count, "n"))
        << Json(stats);
  }

  // Each thread pushes its own items (thread * 1,000,000 + i) onto book
  // i % kBooks, one push per request, until `stop` or `per_thread`; returns
  // the acknowledged items of each thread in order, and the one in flight
  // when a request failed.
  struct ThreadPushes {
    std::vector<std::pair<int, int64_t>> acknowledged;  // (book, item)
    std::optional<std::pair<int, int64_t>> in_flight;
  };
  std::vector<ThreadPushes> PushConcurrently(int per_thread, std::atomic<bool>* stop,
                                             std::atomic<int64_t>* acks) {
    std::vector<ThreadPushes> out(kThreads);
    std::vector<std::thread> threads;
    const std::string uri = server_->uri();
    const std::string db = db_;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        MongoClient client(uri);
        for (int i = 0; i < per_thread && !stop->load(); ++i) {
          const int book = (i + t) % kBooks;
          const int64_t item = int64_t{t} * 1000000 + i;
          out[t].in_flight = std::make_pair(book, item);
          BsonDoc r = client.RunCommand(
              db, R"({"update": "books", "updates": [{"q": {"_id": )" + std::to_string(book) +
                      R"(}, "u": {"$push": {"customers": )" + std::to_string(item) + "}}}]}");
          if (!testutil::IsOk(r) || testutil::Has(r, "writeErrors") || Integer(r, "nModified") != 1) {
            return;
          }
          out[t].acknowledged.emplace_back(book, item);
          out[t].in_flight.reset();
          acks->fetch_add(1);
        }
      });
    }
    for (auto& thread : threads) thread.join();
    return out;
  }
};

TEST_F(OutlierE2eTest, ConcurrentPushesKeepEveryItemExactlyOnceInOrder) {
  ASSERT_OK_REPLY(Run(kCreateBooks));
  for (int b = 0; b < kBooks; ++b) {
    ASSERT_OK_REPLY(Run(R"({"insert": "books", "documents": [{"_id": )" + std::to_string(b) +
                        R"(, "customers": []}]})"));
  }
  std::atomic<bool> stop{false};
  std::atomic<int64_t> acks{0};
  std::vector<ThreadPushes> pushes = PushConcurrently(150, &stop, &acks);
  std::map<int, std::vector<int64_t>> expected;  // book -> items (any interleaving)
  for (const ThreadPushes& t : pushes) {
    EXPECT_EQ(t.acknowledged.size(), 150u);
    for (const auto& [book, item] : t.acknowledged) expected[book].push_back(item);
  }
  int64_t flagged = 0;
  for (int b = 0; b < kBooks; ++b) {
    Book book = ReadBook(b);
    ExpectConsistent(book, b);
    flagged += book.flagged ? 1 : 0;
    std::multiset<int64_t> got(book.whole.begin(), book.whole.end());
    std::multiset<int64_t> want(expected[b].begin(), expected[b].end());
    EXPECT_EQ(got, want) << "book " << b;
    // Each connection's pushes keep their order.
    std::map<int64_t, int64_t> last_of_thread;
    for (int64_t item : book.whole) {
      auto [it, fresh] = last_of_thread.emplace(item / 1000000, item);
      if (!fresh) {
        EXPECT_LT(it->second, item) << "book " << b;
        it->second = item;
      }
    }
  }
  ExpectValidAndStatsExact(flagged);
}

TEST_F(OutlierE2eTest, ConcurrentPullsAndPushesOnOneBookLeaveExactlyWhatWasNotPulled) {
  ASSERT_OK_REPLY(Run(kCreateBooks));
  ASSERT_OK_REPLY(Run(R"({"insert": "books", "documents": [{"_id": 0, "customers": []}]})"));
  // Pushers add their own items; a puller removes every even item of
  // pusher 0 once it was acknowledged (they sit in the embedded part or in
  // any chunk by then), while the pushes go on.
  std::atomic<bool> stop{false};
  std::atomic<int64_t> acked0{-1};  // highest acknowledged item of pusher 0
  std::vector<std::vector<int64_t>> pushed(3);
  std::set<int64_t> pulled;
  const std::string uri = server_->uri();
  const std::string db = db_;
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&, t] {
      MongoClient client(uri);
      for (int64_t i = 0; i < 120; ++i) {
        const int64_t item = int64_t{t} * 1000000 + i;
        BsonDoc r = client.RunCommand(db, R"({"update": "books", "updates": [{"q": {"_id": 0},
            "u": {"$push": {"customers": )" + std::to_string(item) + "}}}]}");
        if (!testutil::IsOk(r) || Integer(r, "nModified") != 1) return;
        pushed[t].push_back(item);
        if (t == 0) acked0.store(i);
      }
    });
  }
  threads.emplace_back([&] {
    MongoClient client(uri);
    int64_t next = 0;
    while (next < 120) {
      if (next > acked0.load()) {
        std::this_thread::yield();
        continue;
      }
      BsonDoc r = client.RunCommand(db, R"({"update": "books", "updates": [{"q": {"_id": 0},
          "u": {"$pull": {"customers": {"$in": [)" + std::to_string(next) + "]}}}}]}");
      if (!testutil::IsOk(r) || Integer(r, "nModified") != 1) {
        ADD_FAILURE() << "pull of " << next << ": " << Json(r);
        return;
      }
      pulled.insert(next);
      next += 2;
    }
  });
  for (auto& thread : threads) thread.join();
  std::multiset<int64_t> want;
  for (const auto& items : pushed) {
    EXPECT_EQ(items.size(), 120u);
    for (int64_t item : items) {
      if (!pulled.count(item)) want.insert(item);
    }
  }
  Book book = ReadBook(0);
  ExpectConsistent(book, 0);
  EXPECT_EQ(std::multiset<int64_t>(book.whole.begin(), book.whole.end()), want);
  ExpectValidAndStatsExact(1);
}

// $out would replace the books at once, leaving the overflow of books it
// drops behind: it is refused ($merge goes through the pattern).
TEST_F(OutlierE2eTest, OutIntoAnOutlierCollectionIsRefused) {
  ASSERT_OK_REPLY(Run(kCreateBooks));
  ASSERT_OK_REPLY(Run(R"({"insert": "books", "documents": [
      {"_id": 1, "customers": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]},
      {"_id": 2, "customers": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]}]})"));
  ASSERT_OK_REPLY(Run(R"({"insert": "src", "documents": [
      {"_id": 1, "customers": [9, 8, 7, 6, 5, 4, 3]}, {"_id": 3, "customers": [1]}]})"));
  BsonDoc out = Run(R"({"aggregate": "src", "pipeline": [{"$out": "books"}], "cursor": {}})");
  EXPECT_ERROR_REPLY(out, 20, "IllegalOperation");
  EXPECT_NE(Json(out).find("outlier option"), std::string::npos) << Json(out);
  // Nothing changed: both books as they were, overflow and counters exact.
  EXPECT_EQ(ReadBook(1).whole.size(), 10u);
  EXPECT_EQ(ReadBook(2).whole.size(), 12u);
  ExpectConsistent(ReadBook(2), 2);
  BsonDoc validate = Run(R"({"validate": "books"})");
  EXPECT_EQ(testutil::ArrayLength(validate, "errors"), 0u) << Json(validate);
  // $merge of the same documents goes through the pattern.
  ASSERT_OK_REPLY(Run(R"({"aggregate": "src", "pipeline": [{"$merge": {"into": "books"}}], "cursor": {}})"));
  Book book = ReadBook(1);
  EXPECT_EQ(book.whole, (std::vector<int64_t>{9, 8, 7, 6, 5, 4, 3}));
  ExpectConsistent(book, 1);
  EXPECT_EQ(ReadBook(3).whole, (std::vector<int64_t>{1}));
}

TEST_F(OutlierE2eTest, KillNineDuringConcurrentPushesKeepsExactlyTheAcknowledged) {
  ASSERT_OK_REPLY(Run(kCreateBooks));
  for (int b = 0; b < kBooks; ++b) {
    ASSERT_OK_REPLY(Run(R"({"insert": "books", "documents": [{"_id": )" + std::to_string(b) +
                        R"(, "customers": [-1, -2, -3]}]})"));
  }
  std::atomic<bool> stop{false};
  std::atomic<int64_t> acks{0};
  std::vector<ThreadPushes> pushes;
  std::thread pusher([&] { pushes = PushConcurrently(1000000, &stop, &acks); });
  // (A generous deadline for a loaded machine: a passing run ends the wait at 400.)
  testutil::WaitUntil([&] { return acks.load() >= 400; }, testutil::kGenerousWait, std::chrono::milliseconds(5));
  server_->Kill9();
  stop.store(true);
  pusher.join();
  ASSERT_GE(acks.load(), 400) << "pushers failed early";
  RestartAndReconnect();

  int64_t flagged = 0;
  for (int b = 0; b < kBooks; ++b) {
    Book book = ReadBook(b);
    ExpectConsistent(book, b);
    flagged += book.flagged ? 1 : 0;
    std::multiset<int64_t> got(book.whole.begin(), book.whole.end());
    std::multiset<int64_t> acknowledged = {-1, -2, -3};
    std::set<int64_t> maybe;  // pushes whose reply the kill swallowed
    for (const ThreadPushes& t : pushes) {
      for (const auto& [bk, item] : t.acknowledged) {
        if (bk == b) acknowledged.insert(item);
      }
      if (t.in_flight && t.in_flight->first == b) maybe.insert(t.in_flight->second);
    }
    for (int64_t item : acknowledged) {
      EXPECT_EQ(got.count(item), 1u) << "acknowledged item " << item << " of book " << b;
    }
    for (int64_t item : got) {
      EXPECT_TRUE(acknowledged.count(item) || maybe.count(item))
          << "item " << item << " of book " << b << " was never acknowledged";
    }
  }
  ExpectValidAndStatsExact(flagged);
  // The restarted server routes again.
  BsonDoc r = Run(R"({"update": "books", "updates": [{"q": {"_id": 0}, "u": {"$pull": {"customers": {"$gte": 0}}}}]})");
  EXPECT_OK_REPLY(r);
  Book book = ReadBook(0);
  EXPECT_EQ(book.whole, (std::vector<int64_t>{-1, -2, -3}));
  EXPECT_FALSE(book.flagged);
  ExpectValidAndStatsExact(flagged - 1);
}

TEST_F(OutlierE2eTest, FindAndModifyUpsertAndMergeAreRouted) {
  ASSERT_OK_REPLY(Run(kCreateBooks));
  // findAndModify returns the document as stored (embedded part + flag).
  BsonDoc r = Run(R"({"findAndModify": "books", "query": {"_id": 1}, "upsert": true, "new": true,
                      "update": {"$push": {"customers": {"$each": [1, 2, 3, 4, 5, 6, 7]}}}})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(IntArray(r, "value.customers"), (std::vector<int64_t>{1, 2, 3, 4, 5})) << Json(r);
  EXPECT_EQ(testutil::TypeAt(r, "value.hasExtras"), BSON_TYPE_BOOL);
  r = Run(R"({"findAndModify": "books", "query": {"_id": 1}, "new": true,
              "update": {"$push": {"customers": 8}}})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "value.customersCount"), 8) << Json(r);
  EXPECT_EQ(ReadBook(1).whole, (std::vector<int64_t>{1, 2, 3, 4, 5, 6, 7, 8}));
  // Refusals reach the driver as write errors with code 72.
  r = Run(R"({"update": "books", "updates": [{"q": {"_id": 1}, "u": {"$set": {"customers.$[]": 0}}}]})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "writeErrors.0.code"), 72) << Json(r);
  EXPECT_EQ(ReadBook(1).whole, (std::vector<int64_t>{1, 2, 3, 4, 5, 6, 7, 8}));
  // $merge into the parent collection replaces through the same hook.
  ASSERT_OK_REPLY(Run(R"({"insert": "src", "documents": [{"_id": 1, "customers": [9, 8, 7, 6, 5, 4, 3, 2, 1, 0]},
                                                          {"_id": 2, "customers": [1]}]})"));
  r = Run(R"({"aggregate": "src", "pipeline": [{"$merge": {"into": "books"}}], "cursor": {}})");
  ASSERT_OK_REPLY(r);
  Book book = ReadBook(1);
  EXPECT_EQ(book.whole, (std::vector<int64_t>{9, 8, 7, 6, 5, 4, 3, 2, 1, 0}));
  ExpectConsistent(book, 1);
  book = ReadBook(2);
  EXPECT_EQ(book.whole, (std::vector<int64_t>{1}));
  // Deleting a parent deletes its overflow.
  ASSERT_OK_REPLY(Run(R"({"delete": "books", "deletes": [{"q": {"_id": 1}, "limit": 1}]})"));
  EXPECT_EQ(Integer(Run(R"({"count": "books_overflow"})"), "n"), 0);
  ExpectValidAndStatsExact(0);
}

}  // namespace
}  // namespace tigerdoc::e2e
