// tigerdoc_bucket_bench: the reference article's bucket pattern, measured.
// 100 sensors x one day of 10-second readings (864,000 readings), stored
// two ways on one server in one run:
//   flat      one document per reading, index {sensorId: 1, ts: 1}
//   bucketed  a time-series collection with the bucket pattern
//             (granularity seconds: hourly buckets, maxCount 360, stats
//             temp/humidity, bucket view "sensorBuckets")
// Readings arrive as a real feed would: time order, all sensors interleaved,
// insert_many batches of 1,000. Reported per layout: documents, collStats
// size and index size, insert rate, and the daily-statistics query for
// every sensor (flat: $match + hourly $group + daily $group over the raw
// readings; bucketed: the article's aggregation on the bucket view, as
// written). The two answers are checked equal for every sensor.
//
//   tigerdoc_bucket_bench --uri mongodb://127.0.0.1:27999/?directConnection=true
//                         [--sensors 100] [--seconds-between 10]

#include <mongoc/mongoc.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench/mongo_connect.h"

namespace tigerdoc::bench {
namespace {

using Clock = std::chrono::steady_clock;

constexpr char kDb[] = "tigerdoc_bucket_bench";
constexpr int64_t kDayMs = 86400000;
constexpr int64_t kDayStart = 1776211200000;  // 2026-04-15T00:00:00Z

struct Options {
  std::string uri = "mongodb://127.0.0.1:27017/?directConnection=true";
  int sensors = 100;
  int seconds_between = 10;
};

struct Result {
  int64_t documents = 0;
  int64_t data_bytes = 0;
  int64_t index_bytes = 0;
  double insert_seconds = 0;
  double query_seconds = 0;
  std::vector<std::vector<double>> answers;  // per sensor: avgTemp, minTemp, maxTemp, totalReadings
};

[[noreturn]] void Die(const std::string& what, const bson_error_t* error = nullptr) {
  std::fprintf(stderr, "tigerdoc_bucket_bench: %s%s%s\n", what.c_str(), error ? ": " : "",
               error ? error->message : "");
  std::exit(1);
}

bson_t* Json(const std::string& json) {
  bson_error_t error;
  bson_t* doc = bson_new_from_json(reinterpret_cast<const uint8_t*>(json.data()),
                                   static_cast<ssize_t>(json.size()), &error);
  if (doc == nullptr) Die("bad JSON " + json, &error);
  return doc;
}

void Command(mongoc_client_t* client, const std::string& json, bson_t* reply_out = nullptr) {
  bson_t* cmd = Json(json);
  bson_t reply;
  bson_error_t error;
  if (!mongoc_client_command_simple(client, kDb, cmd, nullptr, &reply, &error)) {
    Die("command " + json, &error);
  }
  if (reply_out) {
    bson_copy_to(&reply, reply_out);
  }
  bson_destroy(&reply);
  bson_destroy(cmd);
}

int64_t NumberAt(const bson_t* doc, const char* path) {
  bson_iter_t it;
  if (bson_iter_init(&it, doc) && bson_iter_find_descendant(&it, path, &it) && BSON_ITER_HOLDS_NUMBER(&it)) {
    return bson_iter_as_int64(&it);
  }
  return 0;
}

std::string SensorName(int s) {
  char name[32];
  std::snprintf(name, sizeof(name), "SENSOR-%04d", s);
  return name;
}

// Deterministic readings with two decimals.
double Temp(int s, int64_t i) { return 18.0 + static_cast<double>((s * 31 + i * 7) % 90) / 10.0; }
double Humidity(int s, int64_t i) { return 40.0 + static_cast<double>((s * 17 + i * 3) % 120) / 10.0; }

void Load(mongoc_client_t* client, const char* coll_name, const Options& o, Result* r) {
  mongoc_collection_t* coll = mongoc_client_get_collection(client, kDb, coll_name);
  const int64_t per_sensor = kDayMs / 1000 / o.seconds_between;
  std::vector<bson_t*> batch;
  auto flush = [&] {
    if (batch.empty()) return;
    bson_error_t error;
    if (!mongoc_collection_insert_many(coll, const_cast<const bson_t**>(batch.data()), batch.size(),
                                       nullptr, nullptr, &error)) {
      Die(std::string("insert_many into ") + coll_name, &error);
    }
    for (bson_t* d : batch) bson_destroy(d);
    batch.clear();
  };
  const auto start = Clock::now();
  for (int64_t i = 0; i < per_sensor; ++i) {
    for (int s = 0; s < o.sensors; ++s) {
      bson_t* d = bson_new();
      BSON_APPEND_UTF8(d, "sensorId", SensorName(s).c_str());
      BSON_APPEND_DATE_TIME(d, "ts", kDayStart + i * o.seconds_between * 1000);
      BSON_APPEND_DOUBLE(d, "temp", Temp(s, i));
      BSON_APPEND_DOUBLE(d, "humidity", Humidity(s, i));
      batch.push_back(d);
      if (batch.size() == 1000) flush();
    }
  }
  flush();
  r->insert_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  mongoc_collection_destroy(coll);
}

void Stats(mongoc_client_t* client, const char* coll_name, Result* r) {
  bson_t reply;
  Command(client, std::string(R"({"collStats": ")") + coll_name + R"("})", &reply);
  r->documents = NumberAt(&reply, "count");
  r->data_bytes = NumberAt(&reply, "size");
  r->index_bytes = NumberAt(&reply, "totalIndexSize");
  bson_destroy(&reply);
}

std::vector<double> RunDaily(mongoc_client_t* client, const char* coll_name, const std::string& pipeline) {
  mongoc_collection_t* coll = mongoc_client_get_collection(client, kDb, coll_name);
  bson_t* p = Json(pipeline);
  mongoc_cursor_t* cursor = mongoc_collection_aggregate(coll, MONGOC_QUERY_NONE, p, nullptr, nullptr);
  const bson_t* doc = nullptr;
  std::vector<double> out;
  while (mongoc_cursor_next(cursor, &doc)) {
    for (const char* f : {"avgTemp", "minTemp", "maxTemp", "totalReadings"}) {
      bson_iter_t it;
      out.push_back(bson_iter_init_find(&it, doc, f) ? bson_iter_as_double(&it) : NAN);
    }
  }
  bson_error_t error;
  if (mongoc_cursor_error(cursor, &error)) Die(std::string("aggregate on ") + coll_name, &error);
  mongoc_cursor_destroy(cursor);
  bson_destroy(p);
  mongoc_collection_destroy(coll);
  return out;
}

std::string DateJson(int64_t ms) { return R"({"$date": {"$numberLong": ")" + std::to_string(ms) + R"("}})"; }

void Query(mongoc_client_t* client, bool bucketed, const Options& o, Result* r) {
  const std::string range = R"({"$gte": )" + DateJson(kDayStart) + R"(, "$lt": )" + DateJson(kDayStart + kDayMs) + "}";
  const auto start = Clock::now();
  for (int s = 0; s < o.sensors; ++s) {
    const std::string sensor = SensorName(s);
    if (bucketed) {
      // The article's daily statistics, as written, on the bucket view.
      r->answers.push_back(RunDaily(client, "sensorBuckets", R"({"pipeline": [
        {"$match": {"sensorId": ")" + sensor + R"(", "bucketDate": )" + range + R"(}},
        {"$group": {"_id": null, "avgTemp": {"$avg": "$stats.tempAvg"}, "minTemp": {"$min": "$stats.tempMin"},
                    "maxTemp": {"$max": "$stats.tempMax"}, "totalReadings": {"$sum": "$stats.count"}}}]})"));
    } else {
      // The same numbers from the raw readings: hourly averages, then the day.
      r->answers.push_back(RunDaily(client, "flat", R"({"pipeline": [
        {"$match": {"sensorId": ")" + sensor + R"(", "ts": )" + range + R"(}},
        {"$group": {"_id": {"$dateTrunc": {"date": "$ts", "unit": "hour"}}, "avg": {"$avg": "$temp"},
                    "min": {"$min": "$temp"}, "max": {"$max": "$temp"}, "n": {"$sum": 1}}},
        {"$group": {"_id": null, "avgTemp": {"$avg": "$avg"}, "minTemp": {"$min": "$min"},
                    "maxTemp": {"$max": "$max"}, "totalReadings": {"$sum": "$n"}}}]})"));
    }
  }
  r->query_seconds = std::chrono::duration<double>(Clock::now() - start).count();
}

std::string Thousands(int64_t v) {
  std::string s = std::to_string(v);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<size_t>(i), ",");
  return s;
}

int Main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) Die("missing value of " + a);
      return argv[++i];
    };
    if (a == "--uri") {
      o.uri = value();
    } else if (a == "--sensors") {
      o.sensors = std::atoi(value().c_str());
    } else if (a == "--seconds-between") {
      o.seconds_between = std::atoi(value().c_str());
    } else {
      Die("unknown flag " + a + " (--uri, --sensors, --seconds-between)");
    }
  }
  if (o.sensors < 1 || o.seconds_between < 1) Die("--sensors and --seconds-between must be positive");
  StatusWith<mongoc_client_t*> connected = ConnectMongo(o.uri);
  if (!connected.ok()) Die(connected.status().ToString());
  mongoc_client_t* client = connected.value();
  Command(client, R"({"dropDatabase": 1})");

  Result flat, bucketed;
  Command(client, R"({"create": "flat"})");
  Command(client, R"({"createIndexes": "flat", "indexes": [{"key": {"sensorId": 1, "ts": 1}, "name": "sensorId_1_ts_1"}]})");
  Load(client, "flat", o, &flat);
  Stats(client, "flat", &flat);
  Command(client, R"({"create": "readings", "timeseries": {"timeField": "ts", "metaField": "sensorId",
      "granularity": "seconds"}, "bucket": {"maxCount": 360, "stats": ["temp", "humidity"], "view": "sensorBuckets"}})");
  Load(client, "readings", o, &bucketed);
  Stats(client, "system.buckets.readings", &bucketed);
  Query(client, false, o, &flat);
  Query(client, true, o, &bucketed);

  for (int s = 0; s < o.sensors; ++s) {
    const auto& a = flat.answers[s];
    const auto& b = bucketed.answers[s];
    if (a.size() != 4 || b.size() != 4) Die("sensor " + SensorName(s) + ": no daily answer");
    for (int k = 0; k < 4; ++k) {
      if (std::fabs(a[k] - b[k]) > 1e-9 * std::max(1.0, std::fabs(a[k]))) {
        Die("sensor " + SensorName(s) + ": flat and bucketed daily statistics differ");
      }
    }
  }
  const int64_t readings = static_cast<int64_t>(o.sensors) * (kDayMs / 1000 / o.seconds_between);
  std::printf("%d sensors x 1 day of %d-second readings = %s readings; daily stats equal for every sensor\n\n",
              o.sensors, o.seconds_between, Thousands(readings).c_str());
  std::printf("| layout | documents | collStats size | index size | insert rate (readings/s) | daily stats, %d sensors |\n",
              o.sensors);
  std::printf("|---|---|---|---|---|---|\n");
  for (const auto& [name, r] : {std::pair<const char*, const Result*>{"one document per reading", &flat},
                                {"bucketed (time-series + stats)", &bucketed}}) {
    std::printf("| %s | %s | %s B | %s B | %s | %.3f s (%.2f ms per sensor) |\n", name,
                Thousands(r->documents).c_str(), Thousands(r->data_bytes).c_str(),
                Thousands(r->index_bytes).c_str(),
                Thousands(static_cast<int64_t>(readings / r->insert_seconds)).c_str(), r->query_seconds,
                1000.0 * r->query_seconds / o.sensors);
  }
  std::printf("\ndocuments: %.2f%% fewer; bytes: %.1f%% of flat; insert: %.2fx flat; query: %.1fx faster\n",
              100.0 * (1.0 - static_cast<double>(bucketed.documents) / static_cast<double>(flat.documents)),
              100.0 * static_cast<double>(bucketed.data_bytes + bucketed.index_bytes) /
                  static_cast<double>(flat.data_bytes + flat.index_bytes),
              flat.insert_seconds / bucketed.insert_seconds, flat.query_seconds / bucketed.query_seconds);
  mongoc_client_destroy(client);
  return 0;
}

}  // namespace
}  // namespace tigerdoc::bench

int main(int argc, char** argv) { return tigerdoc::bench::Main(argc, argv); }
