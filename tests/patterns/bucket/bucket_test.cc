// The bucket pattern (patterns/bucket) and the time-series pieces under it
// (engine/agg/timeseries): option rules, the bucket format (closing at
// maxCount and at 125 KiB, statistics, unpacking rows with missing
// fields), bucket pruning, and bucketing through an in-memory engine
// (late and out-of-order measurements, chains of closed buckets, TTL).

#include <gtest/gtest.h>

#include <chrono>

#include "engine/agg/timeseries/bucket_format.h"
#include "engine/agg/timeseries/bucket_pushdown.h"
#include "engine/agg/timeseries/timeseries_config.h"
#include "engine/engine.h"
#include "engine/write/pattern_registry.h"
#include "patterns/bucket/bucket_pattern.h"
#include "tests/patterns/pattern_engine.h"

namespace tigerdoc::patterns::bucket {
namespace {

using bson::BsonDoc;

// 2026-04-15T00:00:00Z
constexpr int64_t kDay = 1776211200000;

std::string Date(int64_t ms) { return R"({"$date": {"$numberLong": ")" + std::to_string(ms) + R"("}})"; }

StatusWith<agg::TimeseriesConfig> ParseOptions(const std::string& json) {
  BsonDoc doc = BsonDoc::FromJson(json);
  bson_iter_t ts, expire, bucket;
  const bool has_ts = bson_iter_init_find(&ts, doc.get(), "timeseries");
  const bool has_expire = bson_iter_init_find(&expire, doc.get(), "expireAfterSeconds");
  const bool has_bucket = bson_iter_init_find(&bucket, doc.get(), "bucket");
  EXPECT_TRUE(has_ts);
  return agg::TimeseriesConfig::Parse("create", &ts, has_expire ? &expire : nullptr,
                                      has_bucket ? &bucket : nullptr);
}

TEST(TimeseriesConfigTest, RefusesWhatMongodRefuses) {
  struct Case {
    const char* options;
    ErrorCode code;
    const char* says;
  } cases[] = {
      {R"({"timeseries": {"metaField": "m"}})", ErrorCode::kLocation40414,
       "BSON field 'create.timeseries.timeField' is missing but a required field"},
      {R"({"timeseries": {"timeField": "t", "x": 1}})", ErrorCode::kLocation40415,
       "BSON field 'create.timeseries.x' is an unknown field."},
      {R"({"timeseries": {"timeField": 5}})", ErrorCode::kTypeMismatch, "create.timeseries.timeField"},
      {R"({"timeseries": "t"})", ErrorCode::kTypeMismatch, "create.timeseries"},
      {R"({"timeseries": {"timeField": "t", "granularity": "days"}})", ErrorCode::kBadValue,
       "Enumeration value 'days' for field 'create.timeseries.granularity' is not a valid value."},
      {R"({"timeseries": {"timeField": "t", "bucketMaxSpanSeconds": 60}})", ErrorCode::kInvalidOptions,
       "Time-series 'bucketRoundingSeconds' must be equal to 'bucketMaxSpanSeconds'"},
      {R"({"timeseries": {"timeField": "t", "bucketMaxSpanSeconds": 60, "bucketRoundingSeconds": 30}})",
       ErrorCode::kInvalidOptions, "must be equal"},
      {R"({"timeseries": {"timeField": "t", "granularity": "minutes", "bucketMaxSpanSeconds": 60}})",
       ErrorCode::kInvalidOptions, "other than the default of 86400"},
      {R"({"timeseries": {"timeField": "t", "granularity": "hours", "bucketRoundingSeconds": 60}})",
       ErrorCode::kInvalidOptions, "cannot be set alongside the granularity"},
      {R"({"timeseries": {"timeField": "t", "bucketMaxSpanSeconds": 0, "bucketRoundingSeconds": 0}})",
       ErrorCode::kLocation51024, "value must be >= 1"},
      {R"({"timeseries": {"timeField": "t", "bucketMaxSpanSeconds": 31536001, "bucketRoundingSeconds": 31536001}})",
       ErrorCode::kLocation51024, "value must be <= 31536000"},
      {R"({"timeseries": {"timeField": "a.b"}})", ErrorCode::kInvalidOptions,
       "'timeField' must be a top-level field and not contain a '.'"},
      {R"({"timeseries": {"timeField": "t", "metaField": "_id"}})", ErrorCode::kInvalidOptions,
       "'metaField' cannot be \"_id\""},
      {R"({"timeseries": {"timeField": "t", "metaField": "t"}})", ErrorCode::kInvalidOptions,
       "'metaField' cannot be the same as 'timeField'"},
      {R"({"timeseries": {"timeField": "t"}, "expireAfterSeconds": -1})", ErrorCode::kInvalidOptions,
       "cannot be less than 0"},
      {R"({"timeseries": {"timeField": "t"}, "expireAfterSeconds": "1"})", ErrorCode::kTypeMismatch,
       "create.expireAfterSeconds"},
      {R"({"timeseries": {"timeField": "t"}, "bucket": {"maxCount": 0}})", ErrorCode::kBadValue,
       "create.bucket.maxCount"},
      {R"({"timeseries": {"timeField": "t"}, "bucket": {"maxCount": 100001}})", ErrorCode::kBadValue,
       "create.bucket.maxCount"},
      {R"({"timeseries": {"timeField": "t", "metaField": "m"}, "bucket": {"stats": ["m"]}})",
       ErrorCode::kBadValue, "create.bucket.stats"},
      {R"({"timeseries": {"timeField": "t"}, "bucket": {"stats": ["a", "a"]}})", ErrorCode::kBadValue,
       "twice"},
      {R"({"timeseries": {"timeField": "t"}, "bucket": {"stats": ["a.b"]}})", ErrorCode::kBadValue,
       "create.bucket.stats"},
      {R"({"timeseries": {"timeField": "t"}, "bucket": {"stats": [1]}})", ErrorCode::kTypeMismatch,
       "create.bucket.stats.0"},
      {R"({"timeseries": {"timeField": "t"}, "bucket": {"view": 1}})", ErrorCode::kTypeMismatch,
       "create.bucket.view"},
      {R"({"timeseries": {"timeField": "t"}, "bucket": {"size": 1}})", ErrorCode::kLocation40415,
       "create.bucket.size"},
  };
  for (const Case& c : cases) {
    StatusWith<agg::TimeseriesConfig> parsed = ParseOptions(c.options);
    ASSERT_FALSE(parsed.ok()) << c.options;
    EXPECT_EQ(parsed.status().code(), c.code) << c.options << " -> " << parsed.status().ToString();
    EXPECT_NE(parsed.status().reason().find(c.says), std::string::npos) << parsed.status().ToString();
  }
}

TEST(TimeseriesConfigTest, DefaultsAndCanonicalForm) {
  auto plain = ParseOptions(R"({"timeseries": {"timeField": "t"}})");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain.value().granularity, "seconds");
  EXPECT_EQ(plain.value().bucket_max_span_seconds, 3600);
  EXPECT_EQ(plain.value().bucket_rounding_seconds, 60);
  EXPECT_EQ(plain.value().max_count, 1000);
  EXPECT_EQ(plain.value().TimeseriesOptions().ToJson(),
            BsonDoc::FromJson(R"({"timeField": "t", "granularity": "seconds", "bucketMaxSpanSeconds": 3600})")
                .ToJson());
  auto hours = ParseOptions(R"({"timeseries": {"timeField": "t", "granularity": "hours"}})");
  ASSERT_TRUE(hours.ok());
  EXPECT_EQ(hours.value().bucket_max_span_seconds, 2592000);
  auto custom = ParseOptions(
      R"({"timeseries": {"timeField": "t", "metaField": "m", "bucketMaxSpanSeconds": 600,
          "bucketRoundingSeconds": 600}, "expireAfterSeconds": 60,
          "bucket": {"maxCount": 10, "stats": ["x", "y"], "view": "v"}})");
  ASSERT_TRUE(custom.ok());
  EXPECT_FALSE(custom.value().granularity.has_value());
  auto again = agg::TimeseriesConfig::FromCanonical(custom.value().ToCanonical().get());
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again.value().ToCanonical().ToJson(), custom.value().ToCanonical().ToJson());
  EXPECT_EQ(again.value().stats, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(again.value().view, "v");
  EXPECT_EQ(again.value().expire_after_seconds, 60);
  // Windows: fixed, span-aligned, rounding down before 1970 too.
  EXPECT_EQ(custom.value().WindowStartMillis(kDay + 599999), kDay);
  EXPECT_EQ(custom.value().WindowStartMillis(kDay + 600000), kDay + 600000);
  EXPECT_EQ(custom.value().WindowStartMillis(-1), -600000);
}

agg::TimeseriesConfig Config(int64_t max_count) {
  auto parsed = ParseOptions(R"({"timeseries": {"timeField": "t", "metaField": "m"},
                                 "bucket": {"maxCount": )" + std::to_string(max_count) +
                             R"(, "stats": ["v"]}})");
  EXPECT_TRUE(parsed.ok());
  return parsed.value();
}

TEST(BucketFormatTest, ClosesAtMaxCountAndAtTheSizeLimit) {
  agg::TimeseriesConfig config = Config(3);
  bson_oid_t id = agg::BucketId(kDay, "x", 0).value();
  agg::BucketBuilder b(config, id, kDay, nullptr);
  BsonDoc m = BsonDoc::FromJson(R"({"t": )" + Date(kDay + 5) + R"(, "v": 1})");
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(b.Fits(m.get()));
    b.Append(m.get());
  }
  EXPECT_FALSE(b.Fits(m.get())) << "maxCount 3";

  // 125 KiB: 20 KiB measurements (each also lands in control.min or max the
  // first time), the bucket closes before the limit and not much earlier.
  agg::TimeseriesConfig big = Config(1000);
  agg::BucketBuilder sized(big, id, kDay, nullptr);
  BsonDoc large = BsonDoc::FromJson(R"({"t": )" + Date(kDay) + R"(, "s": ")" +
                                    std::string(20 * 1024, 'x') + R"("})");
  int fitted = 0;
  while (sized.Fits(large.get()) && fitted < 100) {
    sized.Append(large.get());
    ++fitted;
  }
  EXPECT_EQ(fitted, 4);  // data 4 x 20 KiB + min and max 2 x 20 KiB = 120 KiB
  EXPECT_LE(sized.Build().size(), static_cast<size_t>(agg::kBucketMaxSizeBytes));
  EXPECT_GT(sized.Build().size() + 20 * 1024, static_cast<size_t>(agg::kBucketMaxSizeBytes));
  // An empty bucket takes even a measurement above the limit.
  agg::BucketBuilder empty(big, id, kDay, nullptr);
  BsonDoc huge = BsonDoc::FromJson(R"({"t": )" + Date(kDay) + R"(, "s": ")" +
                                   std::string(200 * 1024, 'x') + R"("})");
  EXPECT_TRUE(empty.Fits(huge.get()));
}

TEST(BucketFormatTest, StatsRoundTripAndUnpackSkipsMissingFields) {
  agg::TimeseriesConfig config = Config(100);
  BsonDoc meta = BsonDoc::FromJson(R"({"m": {"site": "a"}})");
  bson_iter_t meta_it;
  ASSERT_TRUE(bson_iter_init_find(&meta_it, meta.get(), "m"));
  bson_oid_t id = agg::BucketId(kDay, "a", 0).value();
  agg::BucketBuilder b(config, id, kDay, &meta_it);
  b.Append(BsonDoc::FromJson(R"({"_id": 1, "t": )" + Date(kDay + 30) + R"(, "m": {"site": "a"}, "v": 5})").get());
  b.Append(BsonDoc::FromJson(R"({"_id": 2, "t": )" + Date(kDay + 10) + R"(, "w": "only here"})").get());
  // Read back and continue: the statistics carry over.
  BsonDoc stored = b.Build();
  auto resumed = agg::BucketBuilder::FromBucket(config, stored.get());
  ASSERT_TRUE(resumed.ok()) << resumed.status().ToString();
  resumed.value().Append(BsonDoc::FromJson(R"({"_id": 3, "t": )" + Date(kDay + 20) + R"(, "v": -2.5})").get());
  resumed.value().Append(BsonDoc::FromJson(R"({"_id": 4, "t": )" + Date(kDay + 40) + R"(, "v": "text"})").get());
  BsonDoc bucket = resumed.value().Build();
  EXPECT_EQ(resumed.value().count(), 4);

  BsonDoc expected = BsonDoc::FromJson(R"({
    "_id": {"$oid": "000000000000000000000000"},
    "control": {"version": 1,
                "min": {"_id": 1, "t": )" + Date(kDay) + R"(, "v": -2.5, "w": "only here"},
                "max": {"_id": 4, "t": )" + Date(kDay + 40) + R"(, "v": "text", "w": "only here"}},
    "meta": {"site": "a"},
    "data": {"_id": {"0": 1, "1": 2, "2": 3, "3": 4},
             "t": {"0": )" + Date(kDay + 30) + R"(, "1": )" + Date(kDay + 10) + R"(, "2": )" +
                                       Date(kDay + 20) + R"(, "3": )" + Date(kDay + 40) + R"(},
             "v": {"0": 5, "2": -2.5, "3": "text"},
             "w": {"1": "only here"}},
    "tigerdocStats": {"count": {"$numberLong": "4"},
                      "fields": {"v": {"n": {"$numberLong": "2"}, "sum": 2.5, "min": -2.5, "max": 5}}}})");
  // Compare all but the _id (its bytes are checked below).
  auto without_id = [](const BsonDoc& d) {
    BsonDoc out;
    bson_copy_to_excluding_noinit(d.get(), out.mutable_get(), "_id", nullptr);
    return out.ToJson();
  };
  EXPECT_EQ(without_id(bucket), without_id(expected));

  auto rows = agg::UnpackBucket(bucket.get(), "t", std::string("m"));
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows.value().size(), 4u);
  EXPECT_EQ(rows.value()[1].ToJson(),
            BsonDoc::FromJson(R"({"t": )" + Date(kDay + 10) + R"(, "m": {"site": "a"}, "_id": 2, "w": "only here"})")
                .ToJson());
  EXPECT_EQ(rows.value()[3].ToJson(),
            BsonDoc::FromJson(R"({"t": )" + Date(kDay + 40) + R"(, "m": {"site": "a"}, "_id": 4, "v": "text"})")
                .ToJson());
}

TEST(BucketFormatTest, IdsCarryTheWindowAndRefuseTimesAnObjectIdCannotHold) {
  auto id = agg::BucketId(kDay, "meta", 7);
  ASSERT_TRUE(id.ok());
  EXPECT_EQ(bson_oid_get_time_t(&id.value()), kDay / 1000);
  EXPECT_EQ(id.value().bytes[11], 7);
  const bson_oid_t other = agg::BucketId(kDay, "other", 7).value();
  EXPECT_FALSE(bson_oid_equal(&id.value(), &other));
  EXPECT_EQ(agg::BucketId(-1000, "m", 0).status().code(), ErrorCode::kBadValue);
  EXPECT_EQ(agg::BucketId(int64_t{1} << 45, "m", 0).status().code(), ErrorCode::kBadValue);
}

std::string Rewritten(const std::string& pipeline) {
  BsonDoc doc = BsonDoc::FromJson(R"({"p": )" + pipeline + "}");
  bson_iter_t it;
  bson_iter_init_find(&it, doc.get(), "p");
  bson_t arr = bson::SubDocumentView(&it);
  BsonDoc out = agg::PushDownBucketFilters(&arr);
  return out.ToJson();
}

std::string ArrayJson(const std::string& json) {
  BsonDoc doc = BsonDoc::FromJson(R"({"p": )" + json + "}");
  bson_iter_t it;
  bson_iter_init_find(&it, doc.get(), "p");
  bson_t arr = bson::SubDocumentView(&it);
  return BsonDoc::CopyOf(&arr).ToJson();
}

TEST(BucketPushdownTest, MetaAndTimeBoundsBecomeABucketFilter) {
  const std::string unpack = R"({"$_internalUnpackBucket": {"timeField": "t", "metaField": "m", "bucketMaxSpanSeconds": 3600}})";
  const std::string d1 = Date(kDay), d2 = Date(kDay + 1000);
  EXPECT_EQ(Rewritten("[" + unpack + R"(, {"$match": {"m.a": 1, "t": {"$gte": )" + d1 + R"(, "$lt": )" + d2 +
                      R"(}, "x": 5}}])"),
            ArrayJson(R"([{"$match": {"meta.a": 1, "control.max.t": {"$gte": )" + d1 +
                      R"(}, "control.min.t": {"$lt": )" + d2 + R"(}}}, )" + unpack +
                      R"(, {"$match": {"m.a": 1, "t": {"$gte": )" + d1 + R"(, "$lt": )" + d2 +
                      R"(}, "x": 5}}])"));
  // Equality on the time, inside a top-level $and.
  EXPECT_EQ(Rewritten("[" + unpack + R"(, {"$match": {"$and": [{"t": )" + d1 + R"(}]}}])"),
            ArrayJson(R"([{"$match": {"control.max.t": {"$gte": )" + d1 + R"(}, "control.min.t": {"$lte": )" + d1 +
                      R"(}}}, )" + unpack + R"(, {"$match": {"$and": [{"t": )" + d1 + R"(}]}}])"));
  // Nothing to use: unchanged (other fields, non-date bounds, $or, no $match next).
  for (const std::string& p : {"[" + unpack + R"(, {"$match": {"x": 1}}])",
                               "[" + unpack + R"(, {"$match": {"t": {"$gte": 5}}}])",
                               "[" + unpack + R"(, {"$match": {"$or": [{"m": 1}, {"x": 2}]}}])",
                               "[" + unpack + R"(, {"$sort": {"t": 1}}, {"$match": {"m": 1}}])",
                               std::string(R"([{"$match": {"m": 1}}])")}) {
    EXPECT_EQ(Rewritten(p), ArrayJson(p)) << p;
  }
  // The bucket view: exact renames.
  const std::string view = R"({"$_internalBucketView": {"timeField": "t", "metaField": "m", "bucketMaxSpanSeconds": 3600, "stats": []}})";
  EXPECT_EQ(Rewritten("[" + view + R"(, {"$match": {"m": "s", "bucketDate": {"$gte": )" + d1 + R"(}}}])"),
            ArrayJson(R"([{"$match": {"meta": "s", "control.min.t": {"$gte": )" + d1 + R"(}}}, )" + view +
                      R"(, {"$match": {"m": "s", "bucketDate": {"$gte": )" + d1 + R"(}}}])"));
}

class BucketEngineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    engine_ = pattern_testing::OpenEngineWith(MakeBucketPattern());
    ASSERT_NE(engine_, nullptr);
  }

  Status Create(const std::string& options) {
    return engine_->CreateCollection(pattern_testing::CreateIn("r", options));
  }

  std::vector<Status> Insert(const std::vector<std::string>& docs) {
    std::vector<BsonDoc> parsed;
    for (const std::string& d : docs) parsed.push_back(BsonDoc::FromJson(d));
    auto results = engine_->InsertMany("db", "r", std::move(parsed), false);
    EXPECT_TRUE(results.ok());
    return results.value();
  }

  // The stored buckets: (window start, meta, row count), in _id order.
  std::vector<std::tuple<int64_t, std::string, int64_t>> Buckets() {
    std::vector<std::tuple<int64_t, std::string, int64_t>> out;
    auto coll = engine_->catalog().Lookup("db.system.buckets.r");
    EXPECT_NE(coll, nullptr);
    storage::Session session = engine_->storage().NewSession();
    EXPECT_TRUE(coll->store
                    ->ForEachDocument(session,
                                      [&](int, const bson_t* doc) {
                                        bson_iter_t it;
                                        int64_t start = 0, count = 0;
                                        std::string meta;
                                        if (bson_iter_init(&it, doc) &&
                                            bson_iter_find_descendant(&it, "control.min.t", &it)) {
                                          start = bson_iter_date_time(&it);
                                        }
                                        if (bson_iter_init_find(&it, doc, "meta")) {
                                          meta = bson_iter_utf8(&it, nullptr);
                                        }
                                        if (bson_iter_init(&it, doc) &&
                                            bson_iter_find_descendant(&it, "tigerdocStats.count", &it)) {
                                          count = bson_iter_as_int64(&it);
                                        }
                                        out.emplace_back(start, meta, count);
                                        return Status::OK();
                                      })
                    .ok());
    std::sort(out.begin(), out.end());
    return out;
  }

  std::unique_ptr<engine::Engine> engine_;
};

std::string M(const std::string& meta, int64_t ms) {
  return R"({"m": ")" + meta + R"(", "t": )" + Date(ms) + R"(, "v": 1})";
}

TEST_F(BucketEngineTest, LateAndOutOfOrderMeasurementsLandInTheirWindow) {
  ASSERT_TRUE(Create(R"({"timeseries": {"timeField": "t", "metaField": "m", "bucketMaxSpanSeconds": 600,
                          "bucketRoundingSeconds": 600}})").ok());
  for (const Status& s : Insert({M("a", kDay + 700000), M("a", kDay + 5), M("b", kDay + 5)})) {
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  // Late: back into the first window of "a", one at a time.
  ASSERT_TRUE(Insert({M("a", kDay + 599999)})[0].ok());
  ASSERT_TRUE(Insert({M("a", kDay)})[0].ok());
  using B = std::tuple<int64_t, std::string, int64_t>;
  EXPECT_EQ(Buckets(), (std::vector<B>{B{kDay, "a", 3}, B{kDay, "b", 1}, B{kDay + 600000, "a", 1}}));
}

TEST_F(BucketEngineTest, AFullBucketClosesAndTheWindowGoesOnInTheNext) {
  ASSERT_TRUE(Create(R"({"timeseries": {"timeField": "t", "metaField": "m"}, "bucket": {"maxCount": 4}})").ok());
  std::vector<std::string> docs;
  for (int i = 0; i < 10; ++i) docs.push_back(M("a", kDay + i * 1000));
  for (const Status& s : Insert(docs)) ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_TRUE(Insert({M("a", kDay)})[0].ok());  // one more, one at a time
  using B = std::tuple<int64_t, std::string, int64_t>;
  EXPECT_EQ(Buckets(), (std::vector<B>{B{kDay, "a", 3}, B{kDay, "a", 4}, B{kDay, "a", 4}}));
  // A measurement without a date is refused alone.
  std::vector<Status> mixed = Insert({M("a", kDay), R"({"m": "a", "t": 1})", M("b", kDay)});
  EXPECT_TRUE(mixed[0].ok());
  EXPECT_EQ(mixed[1].code(), ErrorCode::kBadValue);
  EXPECT_EQ(mixed[1].reason(), "'t' must be present and contain a valid BSON UTC datetime value");
  EXPECT_TRUE(mixed[2].ok());
}

// Two meta values whose 5-byte hashes collide share a chain of bucket ids:
// a bucket of the other value at a measurement's id is stepped over, never
// mixed into. The collision is made by storing a bucket of meta "zzz" at
// the id sequence 0 of meta "a" would take.
TEST_F(BucketEngineTest, AnotherMetaValueAtTheSameIdIsSteppedOver) {
  ASSERT_TRUE(Create(R"({"timeseries": {"timeField": "t", "metaField": "m"}})").ok());
  BsonDoc meta_a;
  BSON_APPEND_UTF8(meta_a.mutable_get(), "", "a");
  const bson_oid_t taken = agg::BucketId(kDay, meta_a.bytes(), 0).value();
  auto config = agg::TimeseriesConfig::FromCanonical(
      BsonDoc::FromJson(R"({"timeField": "t", "metaField": "m", "bucketMaxSpanSeconds": 3600,
                            "bucketRoundingSeconds": 60, "maxCount": 1000, "stats": []})").get());
  ASSERT_TRUE(config.ok());
  BsonDoc other_meta = BsonDoc::FromJson(R"({"m": "zzz"})");
  bson_iter_t other;
  ASSERT_TRUE(bson_iter_init_find(&other, other_meta.get(), "m"));
  agg::BucketBuilder impostor(config.value(), taken, kDay, &other);
  impostor.Append(BsonDoc::FromJson(M("zzz", kDay + 1)).get());
  std::vector<BsonDoc> bucket;
  bucket.push_back(impostor.Build());
  auto stored = engine_->InsertMany("db", "system.buckets.r", std::move(bucket), true);
  ASSERT_TRUE(stored.ok() && stored.value()[0].ok());

  for (const Status& s : Insert({M("a", kDay + 5), M("a", kDay + 6)})) ASSERT_TRUE(s.ok()) << s.ToString();
  using B = std::tuple<int64_t, std::string, int64_t>;
  EXPECT_EQ(Buckets(), (std::vector<B>{B{kDay, "a", 2}, B{kDay, "zzz", 1}}));
}

TEST_F(BucketEngineTest, ExpiredBucketsGoWhole) {
  ASSERT_TRUE(Create(R"({"timeseries": {"timeField": "t", "metaField": "m"}, "expireAfterSeconds": 3600})").ok());
  const int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch()).count();
  // Two hours old (expired), and now (kept), for two sensors.
  for (const Status& s : Insert({M("a", now - 2 * 3600000 - 1000000), M("b", now - 2 * 3600000 - 1000000),
                                 M("a", now)})) {
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  ASSERT_EQ(Buckets().size(), 3u);
  auto deleted = engine_->DeleteExpiredDocuments();
  ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();
  EXPECT_EQ(deleted.value(), 2);
  ASSERT_EQ(Buckets().size(), 1u);
  EXPECT_EQ(std::get<1>(Buckets()[0]), "a");
}

}  // namespace
}  // namespace tigerdoc::patterns::bucket
