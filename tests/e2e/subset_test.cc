// The subset pattern (patterns/subset) through the real server and
// libmongoc: options (create, collMod, listCollections, errors, restart),
// the parent kept equal to a recomputation from the children under 8
// concurrent connections inserting, updating and deleting children of the
// same few parents (inserts, batches, updates, replacements, findAndModify,
// deletes), a kill -9 among those writers, refusal of direct writes to the
// parent's owned paths, children without a parent, resyncSubset after a
// collMod, and a parent's size limit failing the child write.

#include <algorithm>
#include <atomic>
#include <map>
#include <random>
#include <thread>

#include "tests/e2e/e2e_test_base.h"
#include "tests/testutil/wait_until.h"

namespace tigerdoc::e2e {
namespace {

using testutil::DocArray;
using testutil::Integer;
using testutil::Json;
using testutil::Number;
using testutil::String;

constexpr char kSubsetOption[] = R"({"parent": "products", "localField": "productId",
  "as": "reviewSummary.topReviews", "sort": {"helpful": -1}, "limit": 3,
  "project": {"customerName": 1, "rating": 1, "title": 1},
  "counters": {"reviewSummary.totalCount": {"$sum": 1},
               "reviewSummary.averageRating": {"$avg": "$rating"},
               "reviewSummary.ratingDistribution": {"$countByValue": "$rating"}}})";
constexpr int kProducts = 4;

class SubsetE2eTest : public E2eTest {
 protected:
  void CreateProductsAndReviews() {
    std::string products;
    for (int p = 0; p < kProducts; ++p) {
      products += (p ? "," : "") + std::string(R"({"_id": )") + std::to_string(p) +
                  R"(, "name": "product )" + std::to_string(p) + R"("})";
    }
    InsertJson("products", "[" + products + "]");
    ASSERT_OK_REPLY(Run(std::string(R"({"create": "reviews", "subset": )") + kSubsetOption + "}"));
  }

  static std::string Review(int64_t id, int product, int helpful, int rating) {
    return R"({"_id": )" + std::to_string(id) + R"(, "productId": )" + std::to_string(product) +
           R"(, "customerName": "c)" + std::to_string(id) + R"(", "rating": )" +
           std::to_string(rating) + R"(, "title": "t)" + std::to_string(id) + R"(", "helpful": )" +
           std::to_string(helpful) + "}";
  }

  std::vector<BsonDoc> All(const std::string& coll) {
    std::vector<BsonDoc> out;
    BsonDoc r = Run(R"({"find": ")" + coll + R"(", "batchSize": 1000000})");
    EXPECT_OK_REPLY(r);
    for (BsonDoc& d : DocArray(r, "cursor.firstBatch")) out.push_back(std::move(d));
    int64_t id = Integer(r, "cursor.id").value_or(0);
    while (id != 0) {
      r = GetMore(id, coll);
      for (BsonDoc& d : DocArray(r, "cursor.nextBatch")) out.push_back(std::move(d));
      id = Integer(r, "cursor.id").value_or(0);
    }
    return out;
  }

  // Every product equals what its reviews give, computed here from the
  // reviews alone. Returns how many reviews were seen.
  size_t ExpectParentsEqualRecomputation() {
    std::map<int64_t, std::vector<BsonDoc>> by_product;
    std::vector<BsonDoc> reviews = All("reviews");
    for (BsonDoc& r : reviews) by_product[Integer(r, "productId").value_or(-1)].push_back(r.Copy());
    for (const BsonDoc& product : All("products")) {
      const int64_t id = Integer(product, "_id").value_or(-1);
      std::vector<BsonDoc>& children = by_product[id];
      if (children.empty() && !testutil::Has(product, "reviewSummary")) continue;
      std::sort(children.begin(), children.end(), [](const BsonDoc& a, const BsonDoc& b) {
        const int64_t ha = Integer(a, "helpful").value_or(0), hb = Integer(b, "helpful").value_or(0);
        if (ha != hb) return ha > hb;
        return Integer(a, "_id").value_or(0) < Integer(b, "_id").value_or(0);
      });
      std::vector<BsonDoc> top = DocArray(product, "reviewSummary.topReviews");
      EXPECT_EQ(top.size(), std::min<size_t>(3, children.size())) << Json(product);
      for (size_t i = 0; i < top.size() && i < children.size(); ++i) {
        EXPECT_EQ(Integer(top[i], "_id"), Integer(children[i], "_id")) << i << " " << Json(product);
        EXPECT_EQ(String(top[i], "title"), String(children[i], "title")) << Json(product);
        EXPECT_EQ(Integer(top[i], "rating"), Integer(children[i], "rating")) << Json(product);
        EXPECT_FALSE(testutil::Has(top[i], "helpful")) << "projected out: " << Json(product);
        EXPECT_FALSE(testutil::Has(top[i], "productId")) << "projected out: " << Json(product);
      }
      int64_t sum = 0;
      std::map<std::string, int64_t> distribution;
      for (const BsonDoc& c : children) {
        sum += Integer(c, "rating").value_or(0);
        distribution[std::to_string(Integer(c, "rating").value_or(0))]++;
      }
      EXPECT_EQ(Integer(product, "reviewSummary.totalCount"), static_cast<int64_t>(children.size()))
          << Json(product);
      if (children.empty()) {
        EXPECT_EQ(testutil::TypeAt(product, "reviewSummary.averageRating"), BSON_TYPE_NULL);
      } else {
        EXPECT_EQ(Number(product, "reviewSummary.averageRating"),
                  static_cast<double>(sum) / static_cast<double>(children.size()))
            << Json(product);
      }
      BsonDoc kept = testutil::SubDoc(product, "reviewSummary.ratingDistribution");
      EXPECT_EQ(bson_count_keys(kept.get()), distribution.size()) << Json(product);
      for (const auto& [rating, n] : distribution) {
        EXPECT_EQ(Integer(kept, rating), n) << rating << " " << Json(product);
      }
    }
    BsonDoc validated = Run(R"({"validate": "reviews"})");
    EXPECT_OK_REPLY(validated);
    EXPECT_EQ(testutil::ArrayLength(validated, "errors"), 0u) << Json(validated);
    return reviews.size();
  }

  // 8 connections, each inserting (one by one and in batches), updating
  // `helpful` (update, replacement, findAndModify) and deleting reviews of
  // the same kProducts products, until `stop` or `ops_per_thread`.
  static void Workload(const std::string& uri, const std::string& db, int ops_per_thread,
                       std::atomic<bool>& stop, std::atomic<int64_t>& acknowledged,
                       std::atomic<int>& unexpected) {
    std::vector<std::thread> writers;
    for (int t = 0; t < 8; ++t) {
      writers.emplace_back([&, t] {
        MongoClient c(uri);
        std::mt19937 rng(static_cast<uint32_t>(t * 7919 + 1));
        int64_t next = 0;
        auto id = [&](int64_t i) { return static_cast<int64_t>(t) * 1000000 + i; };
        for (int i = 0; i < ops_per_thread && !stop.load(); ++i) {
          const int product = static_cast<int>(rng() % kProducts);
          const int helpful = static_cast<int>(rng() % 50);
          const int rating = 1 + static_cast<int>(rng() % 5);
          const int64_t earlier = next > 0 ? id(static_cast<int64_t>(rng() % next)) : id(0);
          BsonDoc r;
          switch (i % 8) {
            case 0: case 1: case 2:
              r = c.RunCommand(db, R"({"insert": "reviews", "documents": [)" +
                                       Review(id(next++), product, helpful, rating) + "]}");
              break;
            case 3:
              r = c.RunCommand(db, R"({"insert": "reviews", "ordered": false, "documents": [)" +
                                       Review(id(next), product, helpful, rating) + "," +
                                       Review(id(next + 1), (product + 1) % kProducts, helpful / 2,
                                              rating) + "]}");
              next += 2;
              break;
            case 4:
              r = c.RunCommand(db, R"({"update": "reviews", "updates": [{"q": {"_id": )" +
                                       std::to_string(earlier) + R"(}, "u": {"$set": {"helpful": )" +
                                       std::to_string(helpful) + "}}}]}");
              break;
            case 5:  // a replacement that may also move the review to another product
              r = c.RunCommand(db, R"({"update": "reviews", "updates": [{"q": {"_id": )" +
                                       std::to_string(earlier) + R"(}, "u": )" +
                                       Review(earlier, product, helpful, rating) + "}]}");
              break;
            case 6:
              r = c.RunCommand(db, R"({"findAndModify": "reviews", "query": {"_id": )" +
                                       std::to_string(earlier) + R"(}, "update": {"$inc": {"helpful": 7}}})");
              break;
            case 7:
              r = c.RunCommand(db, R"({"delete": "reviews", "deletes": [{"q": {"_id": )" +
                                       std::to_string(earlier) + R"(}, "limit": 1}]})");
              break;
          }
          if (!testutil::IsOk(r)) {
            if (!stop.load()) unexpected++;  // the server is gone when stopping by kill -9
            return;
          }
          if (testutil::Has(r, "writeErrors")) unexpected++;
          acknowledged++;
        }
      });
    }
    for (auto& w : writers) w.join();
  }
};

TEST_F(SubsetE2eTest, OptionsAreValidatedShownAndPersisted) {
  auto create = [&](const std::string& option) {
    return Run(R"({"create": "bad", "subset": )" + option + "}");
  };
  BsonDoc bad;
  EXPECT_ERROR_REPLY(create(R"({"parent": "p", "localField": "x", "as": "a", "colour": 1})"), 40415,
                     "Location40415");
  EXPECT_ERROR_REPLY(create(R"({"parent": "p", "localField": "x"})"), 40414, "Location40414");
  EXPECT_ERROR_REPLY(create(R"({"parent": "p", "localField": "x", "as": "a", "limit": 0})"), 2,
                     "BadValue");
  EXPECT_ERROR_REPLY(create(R"({"parent": "p", "localField": "x", "as": "a", "limit": 1001})"), 2,
                     "BadValue");
  EXPECT_ERROR_REPLY(create(R"({"parent": "p", "localField": "x", "as": "a", "limit": 2.5})"), 9,
                     "FailedToParse");
  EXPECT_ERROR_REPLY(create(R"({"parent": "p", "localField": "x", "as": "a", "sort": {"h": 2}})"),
                     2, "BadValue");
  EXPECT_ERROR_REPLY(create(R"({"parent": "p", "localField": "x", "as": "a..b"})"), 9,
                     "FailedToParse");
  EXPECT_ERROR_REPLY(create(R"({"parent": 5, "localField": "x", "as": "a"})"), 14, "TypeMismatch");
  EXPECT_ERROR_REPLY(create(R"({"parent": "p", "localField": "x", "as": "a",
                               "counters": {"n": {"$max": "$x"}}})"), 9, "FailedToParse");
  EXPECT_ERROR_REPLY(create(R"({"parent": "p", "localField": "x", "as": "s.top",
                               "counters": {"s": {"$sum": 1}}})"), 2, "BadValue");
  EXPECT_ERROR_REPLY(create(R"({"parent": "p", "localField": "x", "as": "_id"})"), 2, "BadValue");
  // Its own parent: refused at create (and the collection is not made).
  bad = create(R"({"parent": "bad", "localField": "x", "as": "a"})");
  EXPECT_ERROR_REPLY(bad, 2, "BadValue");
  EXPECT_NE(String(bad, "errmsg").value_or("").find("create.subset.parent"), std::string::npos)
      << Json(bad);
  EXPECT_EQ(testutil::ArrayLength(Run(R"({"listCollections": 1, "filter": {"name": "bad"}})"),
                                  "cursor.firstBatch"), 0u);
  bad = create(R"({"parent": "p", "localField": "x", "as": "a", "limit": 0})");
  EXPECT_NE(String(bad, "errmsg").value_or("").find("create.subset.limit"), std::string::npos)
      << Json(bad);

  CreateProductsAndReviews();
  BsonDoc indexes = Run(R"({"listIndexes": "reviews"})");
  EXPECT_NE(Json(indexes).find("productId_1_helpful_-1__id_1"), std::string::npos) << Json(indexes);
  auto listed = [&] {
    return Run(R"({"listCollections": 1, "filter": {"name": "reviews"}})");
  };
  EXPECT_EQ(String(listed(), "cursor.firstBatch.0.options.subset.parent"), "products");
  EXPECT_EQ(Integer(listed(), "cursor.firstBatch.0.options.subset.limit"), 3);
  // collMod checks too, and replaces the option whole.
  EXPECT_ERROR_REPLY(Run(R"({"collMod": "reviews", "subset": {"parent": "products"}})"), 40414,
                     "Location40414");
  client_.reset();
  ASSERT_TRUE(server_->Stop().ok());
  ASSERT_TRUE(server_->Restart().ok());
  client_ = std::make_unique<MongoClient>(server_->uri());
  EXPECT_EQ(Integer(listed(), "cursor.firstBatch.0.options.subset.limit"), 3);
  InsertJson("reviews", "[" + Review(1, 0, 5, 4) + "]");
  EXPECT_EQ(Integer(Run(R"({"find": "products", "filter": {"_id": 0}})"),
                    "cursor.firstBatch.0.reviewSummary.totalCount"),
            1);
}

TEST_F(SubsetE2eTest, EightConnectionsLeaveEveryParentEqualToItsChildren) {
  CreateProductsAndReviews();
  std::atomic<bool> stop{false};
  std::atomic<int64_t> acknowledged{0};
  std::atomic<int> unexpected{0};
  Workload(server_->uri(), db_, 120, stop, acknowledged, unexpected);
  EXPECT_EQ(unexpected.load(), 0);
  EXPECT_EQ(acknowledged.load(), 8 * 120);
  EXPECT_GT(ExpectParentsEqualRecomputation(), 100u);
}

TEST_F(SubsetE2eTest, KillNineAmongChildWritersLeavesParentsExact) {
  CreateProductsAndReviews();
  std::atomic<bool> stop{false};
  std::atomic<int64_t> acknowledged{0};
  std::atomic<int> unexpected{0};
  std::thread workload([&] {
    Workload(server_->uri(), db_, 1000000, stop, acknowledged, unexpected);
  });
  // (A generous deadline for a loaded machine: a passing run ends the wait at 600.)
  testutil::WaitUntil([&] { return acknowledged.load() >= 600; }, testutil::kGenerousWait,
                      std::chrono::milliseconds(5));
  stop.store(true);
  server_->Kill9();
  workload.join();
  client_.reset();
  ASSERT_TRUE(server_->Restart().ok());
  client_ = std::make_unique<MongoClient>(server_->uri());
  EXPECT_GT(acknowledged.load(), 100);
  EXPECT_GT(ExpectParentsEqualRecomputation(), 50u);
}

TEST_F(SubsetE2eTest, DirectWritesToOwnedPathsAreRefusedOthersPass) {
  CreateProductsAndReviews();
  InsertJson("reviews", "[" + Review(1, 0, 5, 4) + "," + Review(2, 0, 9, 2) + "]");
  for (const char* update : {R"({"$set": {"reviewSummary.totalCount": 7}})",
                             R"({"$push": {"reviewSummary.topReviews": {"_id": 9}}})",
                             R"({"$unset": {"reviewSummary": 1}})",
                             R"({"name": "replaced without the summary"})"}) {
    BsonDoc r = Run(std::string(R"({"update": "products", "updates": [{"q": {"_id": 0}, "u": )") +
                    update + "}]}");
    ASSERT_OK_REPLY(r);
    EXPECT_EQ(Integer(r, "writeErrors.0.code"), 66) << update << " " << Json(r);
    EXPECT_NE(String(r, "writeErrors.0.errmsg").value_or("").find("subset option of"),
              std::string::npos) << Json(r);
  }
  BsonDoc inserted = Run(R"({"insert": "products", "documents": [{"_id": 50,
                            "reviewSummary": {"totalCount": 3}}]})");
  EXPECT_EQ(Integer(inserted, "writeErrors.0.code"), 66) << Json(inserted);
  // Other fields of the parent stay writable, and the subset keeps working.
  BsonDoc renamed = Run(R"({"update": "products", "updates": [{"q": {"_id": 0},
                          "u": {"$set": {"name": "renamed", "reviewSummary.note": "mine"}}}]})");
  ASSERT_OK_REPLY(renamed);
  EXPECT_EQ(Integer(renamed, "nModified"), 1) << Json(renamed);
  InsertJson("reviews", "[" + Review(3, 0, 1, 5) + "]");
  // A child whose parent does not exist is stored, and no parent appears.
  InsertJson("reviews", "[" + Review(4, 77, 1, 5) + "]");
  EXPECT_EQ(testutil::ArrayLength(Run(R"({"find": "products", "filter": {"_id": 77}})"),
                                  "cursor.firstBatch"), 0u);
  ExpectParentsEqualRecomputation();
  // Deleting the best review pulls in the next one.
  ASSERT_OK_REPLY(Run(R"({"delete": "reviews", "deletes": [{"q": {"_id": 2}, "limit": 1}]})"));
  BsonDoc product = Run(R"({"find": "products", "filter": {"_id": 0}})");
  EXPECT_EQ(Integer(product, "cursor.firstBatch.0.reviewSummary.topReviews.0._id"), 1);
  EXPECT_EQ(String(product, "cursor.firstBatch.0.name"), "renamed");
  ExpectParentsEqualRecomputation();
}

TEST_F(SubsetE2eTest, CollModAddsTheOptionAndResyncRebuildsParents) {
  InsertJson("products", R"([{"_id": 0}, {"_id": 1}, {"_id": 2}])");
  std::string reviews;
  for (int i = 0; i < 250; ++i) reviews += (i ? "," : "") + Review(i, i % 3, i % 17, 1 + i % 5);
  InsertJson("reviews", "[" + reviews + "]");
  ASSERT_OK_REPLY(Run(std::string(R"({"collMod": "reviews", "subset": )") + kSubsetOption + "}"));
  EXPECT_NE(Json(Run(R"({"listIndexes": "reviews"})")).find("productId_1_helpful_-1__id_1"),
            std::string::npos);
  // Only the matching parents, in batches of one.
  BsonDoc one = Run(R"({"resyncSubset": "reviews", "filter": {"_id": 1}, "batchSize": 1})");
  ASSERT_OK_REPLY(one);
  EXPECT_EQ(Integer(one, "parentsMatched"), 1) << Json(one);
  EXPECT_FALSE(testutil::Has(Run(R"({"find": "products", "filter": {"_id": 0}})"),
                             "cursor.firstBatch.0.reviewSummary"));
  BsonDoc all = Run(R"({"resyncSubset": "reviews", "batchSize": 2})");
  ASSERT_OK_REPLY(all);
  EXPECT_EQ(Integer(all, "parentsMatched"), 3) << Json(all);
  EXPECT_EQ(Integer(all, "batches"), 2) << Json(all);
  EXPECT_EQ(ExpectParentsEqualRecomputation(), 250u);
  EXPECT_ERROR_REPLY(Run(R"({"resyncSubset": "products"})"), 2, "BadValue");
  EXPECT_ERROR_REPLY(Run(R"({"resyncSubset": "nothing"})"), 26, "NamespaceNotFound");
  EXPECT_ERROR_REPLY(Run(R"({"resyncSubset": 5})"), 73, "InvalidNamespace");
  EXPECT_ERROR_REPLY(Run(R"({"resyncSubset": "reviews", "batchSize": 0})"), 2, "BadValue");
  EXPECT_ERROR_REPLY(Run(R"({"resyncSubset": "reviews", "colour": 0})"), 40415, "Location40415");
}

// resyncSubset is an operation like any other: currentOp shows its
// progress, killOp stops it between batches (11601) and maxTimeMS bounds it
// (50); the batches done stay done.
TEST_F(SubsetE2eTest, ResyncShowsInCurrentOpAndStopsOnKillOpOrMaxTime) {
  constexpr int kParents = 3000;
  std::string products, reviews;
  for (int p = 0; p < kParents; ++p) {
    products += (p ? "," : "") + std::string(R"({"_id": )") + std::to_string(p) + "}";
    reviews += (p ? "," : "") + Review(p, p, p % 7, 1 + p % 5);
  }
  InsertJson("products", "[" + products + "]");
  InsertJson("reviews", "[" + reviews + "]");
  ASSERT_OK_REPLY(Run(std::string(R"({"collMod": "reviews", "subset": )") + kSubsetOption + "}"));

  const std::string uri = server_->uri();
  const std::string db = db_;
  std::atomic<bool> finished{false};
  BsonDoc reply;
  std::thread resync([&] {
    testutil::MongoClient c(uri);
    reply = c.RunCommand(db, R"({"resyncSubset": "reviews", "batchSize": 1})");
    finished.store(true);
  });
  testutil::MongoClient watcher(uri);
  int64_t opid = -1;
  BsonDoc op;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!finished.load() && std::chrono::steady_clock::now() < deadline) {
    op = watcher.RunCommand("admin", R"({"currentOp": 1, "command.resyncSubset": "reviews"})");
    if (Integer(op, "inprog.0.resyncSubset.batches").value_or(0) >= 20) {
      opid = Integer(op, "inprog.0.opid").value_or(-1);
      break;
    }
  }
  ASSERT_GT(opid, 0) << Json(op);
  EXPECT_EQ(testutil::String(op, "inprog.0.resyncSubset.parent"), db_ + ".products") << Json(op);
  EXPECT_EQ(testutil::String(op, "inprog.0.ns"), db_ + ".reviews") << Json(op);
  EXPECT_OK_REPLY(watcher.RunCommand("admin", R"({"killOp": 1, "op": )" + std::to_string(opid) + "}"));
  resync.join();
  EXPECT_ERROR_REPLY(reply, 11601, "Interrupted");
  op = watcher.RunCommand("admin", R"({"currentOp": 1, "command.resyncSubset": "reviews"})");
  EXPECT_EQ(DocArray(op, "inprog").size(), 0u) << Json(op);

  BsonDoc timed = Run(R"({"resyncSubset": "reviews", "batchSize": 1, "maxTimeMS": 20})");
  EXPECT_ERROR_REPLY(timed, 50, "MaxTimeMSExpired");
  // Run to the end, the parents are exact.
  ASSERT_OK_REPLY(Run(R"({"resyncSubset": "reviews"})"));
  EXPECT_EQ(ExpectParentsEqualRecomputation(), static_cast<size_t>(kParents));
}

TEST_F(SubsetE2eTest, AParentOverItsSizeLimitFailsTheChildWrite) {
  ASSERT_OK_REPLY(Run(R"({"create": "products", "maxDocumentBytes": 2048})"));
  InsertJson("products", R"([{"_id": 0}])");
  ASSERT_OK_REPLY(Run(std::string(R"({"create": "reviews", "subset": )") + kSubsetOption + "}"));
  const std::string big(1000, 'x');
  auto review = [&](int id) {
    return R"({"_id": )" + std::to_string(id) + R"(, "productId": 0, "helpful": )" +
           std::to_string(id) + R"(, "rating": 3, "title": ")" + big + R"("})";
  };
  InsertJson("reviews", "[" + review(1) + "]");
  BsonDoc over = Run(R"({"insert": "reviews", "documents": [)" + review(2) + "]}");
  EXPECT_EQ(Integer(over, "writeErrors.0.code"), 17419) << Json(over);
  EXPECT_NE(String(over, "writeErrors.0.errmsg").value_or("").find("maxDocumentBytes"),
            std::string::npos) << Json(over);
  // Refused whole: the review is not stored and the parent is unchanged.
  EXPECT_EQ(testutil::ArrayLength(Run(R"({"find": "reviews"})"), "cursor.firstBatch"), 1u);
  ExpectParentsEqualRecomputation();
}

TEST_F(SubsetE2eTest, MergeAndOutIntoTheChildKeepParents) {
  CreateProductsAndReviews();
  std::string reviews;
  for (int i = 0; i < 40; ++i) reviews += (i ? "," : "") + Review(i, i % kProducts, i, 1 + i % 5);
  InsertJson("reviews", "[" + reviews + "]");
  // $merge: new reviews inserted, existing ones promoted (whenMatched: merge).
  std::string staged;
  for (int i = 30; i < 60; ++i) staged += (i > 30 ? "," : "") + Review(i, i % kProducts, 100 + i, 1 + i % 3);
  InsertJson("staging", "[" + staged + "]");
  ASSERT_OK_REPLY(Run(R"({"aggregate": "staging", "pipeline": [{"$merge": {"into": "reviews",
                        "whenMatched": "merge", "whenNotMatched": "insert"}}], "cursor": {}})"));
  EXPECT_EQ(ExpectParentsEqualRecomputation(), 60u);
  // $out would replace every review at once, with no per-review write to
  // keep the products in step: it is refused, and nothing changes.
  BsonDoc out = Run(R"({"aggregate": "staging", "pipeline": [{"$match": {"productId": {"$ne": 3}}},
                        {"$out": "reviews"}], "cursor": {}})");
  EXPECT_ERROR_REPLY(out, 20, "IllegalOperation");
  EXPECT_NE(Json(out).find("with $merge"), std::string::npos) << Json(out);
  EXPECT_EQ(ExpectParentsEqualRecomputation(), 60u);
  // Without the option, $out works; after putting it back, resyncSubset
  // brings the products in step.
  ASSERT_OK_REPLY(Run(R"({"collMod": "reviews", "subset": null})"));
  ASSERT_OK_REPLY(Run(R"({"aggregate": "staging", "pipeline": [{"$match": {"productId": {"$ne": 3}}},
                        {"$out": "reviews"}], "cursor": {}})"));
  ASSERT_OK_REPLY(Run(std::string(R"({"collMod": "reviews", "subset": )") + kSubsetOption + "}"));
  ASSERT_OK_REPLY(Run(R"({"resyncSubset": "reviews"})"));
  EXPECT_EQ(ExpectParentsEqualRecomputation(), 22u);  // 30 staged, 8 of product 3
  EXPECT_EQ(Integer(Run(R"({"find": "products", "filter": {"_id": 3}})"),
                    "cursor.firstBatch.0.reviewSummary.totalCount"), 0);
}

}  // namespace
}  // namespace tigerdoc::e2e
