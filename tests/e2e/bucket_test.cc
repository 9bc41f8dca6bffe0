// The bucket pattern through a real driver (libmongoc): time-series
// collections under concurrent inserters (every measurement stored exactly
// once, bucket statistics exact) and kill -9 during inserts (every
// acknowledged measurement survives a restart, buckets stay consistent).
#include <atomic>
#include <map>
#include <set>
#include <thread>

#include "tests/e2e/e2e_test_base.h"
#include "tests/testutil/wait_until.h"

namespace tigerdoc::e2e {
namespace {

using testutil::DocArray;
using testutil::Integer;
using testutil::Json;
using testutil::Number;

// 2026-04-15T00:00:00Z
constexpr int64_t kDay = 1776211200000;

std::string Measurement(const std::string& sensor, int64_t ts_ms, int64_t n) {
  return R"({"sensorId": ")" + sensor + R"(", "ts": {"$date": {"$numberLong": ")" +
         std::to_string(ts_ms) + R"("}}, "n": )" + std::to_string(n) +
         R"(, "temp": )" + std::to_string(n % 97) + "}";
}

class BucketTest : public E2eTest {
 protected:
  void CreateReadings(int max_count) {
    ASSERT_OK_REPLY(Run(R"({"create": "readings", "timeseries": {"timeField": "ts",
        "metaField": "sensorId", "granularity": "seconds"},
        "bucket": {"maxCount": )" + std::to_string(max_count) +
                        R"(, "stats": ["temp"], "view": "readingBuckets"}})"));
  }

  // Every document an aggregation on `coll` returns.
  std::vector<BsonDoc> AggregateAll(const std::string& coll, const std::string& pipeline) {
    std::vector<BsonDoc> out;
    BsonDoc r = Run(R"({"aggregate": ")" + coll + R"(", "pipeline": )" + pipeline +
                    R"(, "cursor": {"batchSize": 1000}})");
    EXPECT_OK_REPLY(r);
    for (auto& d : DocArray(r, "cursor.firstBatch")) out.push_back(std::move(d));
    int64_t id = Integer(r, "cursor.id").value_or(0);
    while (id != 0) {
      r = GetMore(id, coll, 1000);
      EXPECT_OK_REPLY(r);
      if (!testutil::IsOk(r)) break;
      for (auto& d : DocArray(r, "cursor.nextBatch")) out.push_back(std::move(d));
      id = Integer(r, "cursor.id").value_or(0);
    }
    return out;
  }

  // The `n` of every measurement, with how often each is stored.
  std::map<int64_t, int> StoredNs() {
    std::map<int64_t, int> out;
    for (const BsonDoc& d : AggregateAll("readings", R"([{"$project": {"_id": 0, "n": 1}}])")) {
      ++out[Integer(d, "n").value_or(-1)];
    }
    return out;
  }

  // Every bucket, through the bucket view: its statistics equal what its
  // measurements say, it holds at most `max_count`, and its measurements
  // lie in its window.
  void ExpectBucketsConsistent(int max_count) {
    for (const BsonDoc& b : AggregateAll("readingBuckets", "[]")) {
      const std::vector<BsonDoc> rows = DocArray(b, "measurements");
      ASSERT_FALSE(rows.empty()) << Json(b);
      EXPECT_LE(rows.size(), static_cast<size_t>(max_count)) << Json(b);
      EXPECT_EQ(Integer(b, "stats.count"), static_cast<int64_t>(rows.size())) << Json(b);
      double sum = 0, lo = 1e300, hi = -1e300;
      for (const BsonDoc& m : rows) {
        const double t = Number(m, "temp").value_or(0);
        sum += t;
        lo = std::min(lo, t);
        hi = std::max(hi, t);
        const auto ts = testutil::Lookup(m, "ts");
        ASSERT_TRUE(ts.has_value());
        const auto start = testutil::Lookup(b, "bucketDate");
        const auto end = testutil::Lookup(b, "bucketEndDate");
        EXPECT_GE(bson_iter_date_time(&*ts), bson_iter_date_time(&*start)) << Json(b);
        EXPECT_LT(bson_iter_date_time(&*ts), bson_iter_date_time(&*end)) << Json(b);
      }
      EXPECT_EQ(Number(b, "stats.tempMin"), lo) << Json(b);
      EXPECT_EQ(Number(b, "stats.tempMax"), hi) << Json(b);
      EXPECT_DOUBLE_EQ(Number(b, "stats.tempAvg").value_or(-1), sum / rows.size()) << Json(b);
    }
    // validate recomputes every bucket's statistics from its measurements.
    BsonDoc validated = Run(R"({"validate": "system.buckets.readings"})");
    std::optional<bson_iter_t> valid = testutil::Lookup(validated, "valid");
    EXPECT_TRUE(valid.has_value() && bson_iter_as_bool(&*valid)) << Json(validated);
  }
};

// Eight connections insert at once, single inserts and batches, into three
// shared sensors and one of their own, times spread over three hours and out
// of order, with small buckets (maxCount 25) so buckets close while others
// write to them: every measurement is stored exactly once.
TEST_F(BucketTest, ConcurrentInsertersStoreEveryMeasurementOnce) {
  CreateReadings(25);
  constexpr int kThreads = 8;
  constexpr int kPerThread = 300;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  std::string first_failure;
  std::mutex failure_mutex;
  const std::string uri = server_->uri();
  const std::string db = db_;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      MongoClient c(uri);
      std::vector<std::string> batch;
      auto flush = [&] {
        if (batch.empty()) return;
        std::string docs = "[";
        for (size_t i = 0; i < batch.size(); ++i) docs += (i ? "," : "") + batch[i];
        docs += "]";
        BsonDoc r = c.RunCommand(db, R"({"insert": "readings", "documents": )" + docs + "}");
        if (!testutil::IsOk(r) || testutil::Has(r, "writeErrors") ||
            Integer(r, "n") != static_cast<int64_t>(batch.size())) {
          std::lock_guard<std::mutex> lock(failure_mutex);
          if (failures++ == 0) first_failure = Json(r);
        }
        batch.clear();
      };
      for (int i = 0; i < kPerThread; ++i) {
        const int64_t n = t * 100000 + i;
        const std::string sensor = i % 4 == 3 ? "own-" + std::to_string(t) : "shared-" + std::to_string(i % 3);
        // Three hours, visited out of order.
        const int64_t ts = kDay + ((i * 7919) % 10800) * 1000 + t;
        batch.push_back(Measurement(sensor, ts, n));
        if (i % 2 == 0 || batch.size() >= 10) flush();
      }
      flush();
    });
  }
  for (auto& th : threads) th.join();
  ASSERT_EQ(failures.load(), 0) << first_failure;

  const std::map<int64_t, int> stored = StoredNs();
  EXPECT_EQ(stored.size(), static_cast<size_t>(kThreads * kPerThread));
  int duplicates = 0;
  for (const auto& [n, times] : stored) duplicates += times > 1 ? 1 : 0;
  EXPECT_EQ(duplicates, 0);
  for (int t = 0; t < kThreads; ++t) {
    for (int i = 0; i < kPerThread; ++i) {
      ASSERT_EQ(stored.count(t * 100000 + i), 1u) << "measurement " << t * 100000 + i << " lost";
    }
  }
  BsonDoc count = Run(R"({"count": "readings", "query": {"sensorId": "shared-1"}})");
  int64_t shared1 = 0;
  for (int t = 0; t < kThreads; ++t) {
    for (int i = 0; i < kPerThread; ++i) shared1 += (i % 4 != 3 && i % 3 == 1) ? 1 : 0;
  }
  EXPECT_EQ(Integer(count, "n"), shared1) << Json(count);
  ExpectBucketsConsistent(25);
}

// Inserts, deletes and updates at once on one sensor: every inserted
// measurement is either still there or counted by exactly one delete, the
// updates lose and double nothing, and the statistics stay exact.
TEST_F(BucketTest, ConcurrentDeletesAndUpdatesKeepTheBooks) {
  CreateReadings(30);
  constexpr int kInserters = 3;
  constexpr int kPerThread = 300;
  std::atomic<bool> inserting{true};
  std::atomic<int64_t> deleted{0};
  std::atomic<int> failures{0};
  std::string first_failure;
  std::mutex failure_mutex;
  auto fail = [&](const BsonDoc& r) {
    std::lock_guard<std::mutex> lock(failure_mutex);
    if (failures++ == 0) first_failure = Json(r);
  };
  const std::string uri = server_->uri();
  const std::string db = db_;
  std::vector<std::thread> inserters;
  for (int t = 0; t < kInserters; ++t) {
    inserters.emplace_back([&, t] {
      MongoClient c(uri);
      for (int i = 0; i < kPerThread; ++i) {
        const int64_t n = t * 100000 + i;
        BsonDoc r = c.RunCommand(db, R"({"insert": "readings", "documents": [)" +
                                         Measurement("shared", kDay + ((i * 7919) % 7200) * 1000, n) + "]}");
        if (!testutil::IsOk(r) || Integer(r, "n") != 1) fail(r);
      }
    });
  }
  std::thread deleter([&] {
    MongoClient c(uri);
    while (inserting.load()) {
      // Odd n only: each such measurement can be deleted once.
      BsonDoc r = c.RunCommand(db, R"({"delete": "readings", "deletes": [{"q": {"sensorId": "shared",
          "n": {"$mod": [2, 1]}}, "limit": 0}]})");
      if (!testutil::IsOk(r) || testutil::Has(r, "writeErrors")) fail(r);
      deleted += Integer(r, "n").value_or(0);
    }
  });
  std::thread updater([&] {
    MongoClient c(uri);
    while (inserting.load()) {
      BsonDoc r = c.RunCommand(db, R"({"update": "readings", "updates": [{"q": {"sensorId": "shared"},
          "u": {"$set": {"touched": true}}, "multi": true}]})");
      if (!testutil::IsOk(r) || testutil::Has(r, "writeErrors")) fail(r);
    }
  });
  for (auto& th : inserters) th.join();
  inserting.store(false);
  deleter.join();
  updater.join();
  ASSERT_EQ(failures.load(), 0) << first_failure;

  const std::map<int64_t, int> stored = StoredNs();
  int64_t odd_stored = 0;
  for (const auto& [n, times] : stored) {
    EXPECT_EQ(times, 1) << "measurement " << n;
    odd_stored += n % 2;
  }
  int64_t odd_inserted = 0;
  for (int t = 0; t < kInserters; ++t) {
    for (int i = 0; i < kPerThread; ++i) {
      const int64_t n = t * 100000 + i;
      odd_inserted += n % 2;
      if (n % 2 == 0) EXPECT_EQ(stored.count(n), 1u) << "even measurement " << n << " lost";
    }
  }
  EXPECT_EQ(odd_stored + deleted.load(), odd_inserted) << "deleted " << deleted.load();
  EXPECT_GT(deleted.load(), 0);
  ExpectBucketsConsistent(30);
}

// kill -9 while a connection inserts measurements one at a time: after the
// restart every acknowledged one is there, at most the one in flight more,
// and every bucket's statistics still equal its measurements.
TEST_F(BucketTest, KillNineKeepsEveryAcknowledgedMeasurement) {
  CreateReadings(40);
  std::atomic<int64_t> acknowledged_count{0};
  std::atomic<bool> stop{false};
  std::vector<int64_t> acknowledged;
  std::atomic<bool> writer_failed{false};
  std::string first_failure;
  const std::string uri = server_->uri();
  const std::string db = db_;
  std::thread writer([&] {
    MongoClient c(uri);
    for (int64_t i = 0; !stop.load(); ++i) {
      const std::string sensor = "s" + std::to_string(i % 5);
      BsonDoc r = c.RunCommand(db, R"({"insert": "readings", "documents": [)" +
                                       Measurement(sensor, kDay + (i * 37 % 7200) * 1000, i) +
                                       R"(], "writeConcern": {"w": 1}})");
      if (!testutil::IsOk(r) || testutil::Has(r, "writeErrors") || Integer(r, "n") != 1) {
        first_failure = Json(r);
        writer_failed.store(true);
        return;
      }
      acknowledged.push_back(i);
      acknowledged_count.store(static_cast<int64_t>(acknowledged.size()));
    }
  });
  // (A generous deadline: a passing run ends the wait at 400.)
  testutil::WaitUntil([&] { return acknowledged_count.load() >= 400 || writer_failed.load(); },
                      testutil::kGenerousWait, std::chrono::milliseconds(5));
  server_->Kill9();
  stop.store(true);
  writer.join();
  ASSERT_GE(acknowledged.size(), 400u) << "writer failed early: " << first_failure;

  RestartAndReconnect();
  const std::map<int64_t, int> stored = StoredNs();
  size_t missing = 0;
  for (int64_t n : acknowledged) {
    if (!stored.count(n) && ++missing <= 10) ADD_FAILURE() << "acknowledged " << n << " lost";
  }
  EXPECT_EQ(missing, 0u);
  EXPECT_LE(stored.size(), acknowledged.size() + 1);
  for (const auto& [n, times] : stored) EXPECT_EQ(times, 1) << "measurement " << n;
  ExpectBucketsConsistent(40);
  // Still a time-series collection that takes measurements.
  BsonDoc r = Run(R"({"insert": "readings", "documents": [)" + Measurement("s0", kDay, -1) + "]}");
  EXPECT_EQ(Integer(r, "n"), 1) << Json(r);
  BsonDoc info = Run(R"({"listCollections": 1, "filter": {"name": "readings"}})");
  EXPECT_EQ(testutil::String(info, "cursor.firstBatch.0.type"), "timeseries") << Json(info);
}

// A time-series collection through the driver: the options mongod refuses,
// and the find / count forms drivers send.
TEST_F(BucketTest, DriverReadsAndRefusals) {
  CreateReadings(1000);
  InsertJson("readings", "[" + Measurement("a", kDay, 1) + "," + Measurement("b", kDay + 1000, 2) +
                             "," + Measurement("a", kDay + 7200000, 3) + "]");
  BsonDoc r = Run(R"({"find": "readings", "filter": {"sensorId": "a"}, "sort": {"ts": -1},
                      "projection": {"_id": 0, "n": 1}})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(testutil::CanonicalJson(testutil::SubDoc(r, "cursor.firstBatch")),
            testutil::CanonicalJson(R"({"0": {"n": 3}, "1": {"n": 1}})"));
  EXPECT_EQ(Integer(Run(R"({"count": "readings"})"), "n"), 3);
  r = Run(R"({"update": "readings", "updates": [{"q": {"n": {"$gte": 2}}, "u": {"$set": {"x": 1}}, "multi": true}]})");
  EXPECT_EQ(Integer(r, "n"), 2) << Json(r);
  EXPECT_EQ(Integer(r, "nModified"), 2) << Json(r);
  EXPECT_EQ(Integer(Run(R"({"count": "readings", "query": {"x": 1}})"), "n"), 2);
  r = Run(R"({"delete": "readings", "deletes": [{"q": {"sensorId": "a", "n": 3}, "limit": 0}]})");
  EXPECT_EQ(Integer(r, "n"), 1) << Json(r);
  r = Run(R"({"findAndModify": "readings", "query": {}, "sort": {"n": -1}, "remove": true})");
  EXPECT_EQ(Integer(r, "value.n"), 2) << Json(r);
  EXPECT_EQ(Integer(Run(R"({"count": "readings"})"), "n"), 1);
  EXPECT_ERROR_REPLY(Run(R"({"create": "t2", "timeseries": {"timeField": "ts",
                         "bucketRoundingSeconds": 60}})"), 72, "InvalidOptions");
  EXPECT_ERROR_REPLY(Run(R"({"create": "t3", "timeseries": {"timeField": "ts",
                         "bucketMaxSpanSeconds": 0, "bucketRoundingSeconds": 0}})"), 51024, "Location51024");
}

}  // namespace
}  // namespace tigerdoc::e2e
