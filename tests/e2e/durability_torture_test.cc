// Kill -9 torture: 8 writers over libmongoc (even ones with writeConcern
// {j: true}, odd ones w:1) insert documents with unique ids (writer, seq)
// and $inc a counter of their own, while the server is SIGKILLed at a
// random moment (0.2-1.5 s of load per cycle) and restarted on the same
// dbpath. After every restart:
//   * every acknowledged j:true insert and increment is there;
//   * a missing w:1 write was acknowledged less than kW1LossBoundMs before
//     the kill (the journal's 100 ms group commit; with kill -9 the OS keeps
//     what was written, so in practice nothing is lost);
//   * no document is duplicated and nothing appears that was neither
//     acknowledged nor in flight;
//   * validate passes on both collections.
// TIGERDOC_TORTURE_CYCLES sets the number of cycles (default 5, the CI
// form); TIGERDOC_TORTURE_SEED replays a run.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <thread>

#include "tests/e2e/e2e_test_base.h"

namespace tigerdoc::e2e {
namespace {

using Clock = std::chrono::steady_clock;
using testutil::Integer;
using testutil::Json;

constexpr int kWriters = 8;
constexpr int64_t kIdStride = 1000000000;  // _id = writer * kIdStride + seq
constexpr int kW1LossBoundMs = 300;
constexpr char kDb[] = "torture";

int EnvInt(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::atoi(v) : fallback;
}

// What one writer did and what the server holds for it.
struct Writer {
  int id = 0;
  bool journaled = false;
  int64_t next_seq = 0;
  // This cycle (reset after each check).
  std::map<int64_t, Clock::time_point> acked_inserts;
  std::vector<Clock::time_point> acked_incs;
  std::optional<int64_t> inflight_insert;
  bool inflight_inc = false;
  std::string last_error;
  // The state found after the previous restart.
  std::set<int64_t> present;
  int64_t counter = 0;
  // Totals.
  int64_t total_acked_inserts = 0;
  int64_t total_acked_incs = 0;
};

bool Acknowledged(const BsonDoc& r) {
  return testutil::IsOk(r) && !testutil::Has(r, "writeErrors") &&
         !testutil::Has(r, "writeConcernError");
}

BsonDoc WriteConcern(bool journaled) {
  BsonDoc wc;
  BSON_APPEND_INT32(wc.mutable_get(), "w", 1);
  if (journaled) BSON_APPEND_BOOL(wc.mutable_get(), "j", true);
  return wc;
}

void RunWriter(const std::string& uri, Writer* w, const std::atomic<bool>* stop) {
  MongoClient client(uri + "&retryWrites=false");
  const BsonDoc wc = WriteConcern(w->journaled);
  const std::string pad(100, 'x');
  for (int64_t op = 0; !stop->load(); ++op) {
    BsonDoc cmd;
    bson_t* c = cmd.mutable_get();
    const bool inc = op % 4 == 3;
    if (inc) {
      BSON_APPEND_UTF8(c, "update", "counters");
      bson_t updates, u, q, spec, fields;
      bson_append_array_begin(c, "updates", -1, &updates);
      bson_append_document_begin(&updates, "0", -1, &u);
      bson_append_document_begin(&u, "q", -1, &q);
      BSON_APPEND_INT32(&q, "_id", w->id);
      bson_append_document_end(&u, &q);
      bson_append_document_begin(&u, "u", -1, &spec);
      bson_append_document_begin(&spec, "$inc", -1, &fields);
      BSON_APPEND_INT32(&fields, "n", 1);
      bson_append_document_end(&spec, &fields);
      bson_append_document_end(&u, &spec);
      bson_append_document_end(&updates, &u);
      bson_append_array_end(c, &updates);
      w->inflight_inc = true;
    } else {
      const int64_t seq = w->next_seq++;
      BSON_APPEND_UTF8(c, "insert", "docs");
      bson_t docs, d;
      bson_append_array_begin(c, "documents", -1, &docs);
      bson_append_document_begin(&docs, "0", -1, &d);
      BSON_APPEND_INT64(&d, "_id", w->id * kIdStride + seq);
      BSON_APPEND_INT32(&d, "w", w->id);
      BSON_APPEND_INT64(&d, "seq", seq);
      BSON_APPEND_UTF8(&d, "pad", pad.c_str());
      bson_append_document_end(&docs, &d);
      bson_append_array_end(c, &docs);
      w->inflight_insert = seq;
    }
    BSON_APPEND_DOCUMENT(c, "writeConcern", wc.get());
    BsonDoc r = client.RunCommand(kDb, cmd);
    if (!Acknowledged(r)) {
      w->last_error = Json(r);
      return;  // the server is gone: what was in flight stays in flight
    }
    const auto now = Clock::now();
    if (inc) {
      if (Integer(r, "nModified") != 1) {
        w->last_error = "increment matched nothing: " + Json(r);
        return;
      }
      w->inflight_inc = false;
      w->acked_incs.push_back(now);
    } else {
      w->acked_inserts[*w->inflight_insert] = now;
      w->inflight_insert.reset();
    }
  }
}

class DurabilityTortureTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = std::make_unique<ServerProcess>();
    Status st = server_->Start();
    ASSERT_TRUE(st.ok()) << st.ToString();
  }
  void TearDown() override {
    if (HasFailure()) std::cerr << "---- server log tail ----\n" << server_->LogTail() << "\n";
  }

  BsonDoc Run(MongoClient& c, std::string_view json) { return c.RunCommand(kDb, json); }

  // Every document of `coll` ({_id, w, seq} or {_id, n}), through getMore.
  static std::vector<BsonDoc> All(MongoClient& c, const std::string& coll,
                                  const std::string& projection) {
    std::vector<BsonDoc> out;
    BsonDoc r = c.RunCommand(kDb, R"({"find": ")" + coll + R"(", "projection": )" + projection +
                                      R"(, "batchSize": 100000})");
    EXPECT_TRUE(testutil::IsOk(r)) << Json(r);
    for (auto& d : testutil::DocArray(r, "cursor.firstBatch")) out.push_back(std::move(d));
    int64_t id = Integer(r, "cursor.id").value_or(0);
    while (id != 0) {
      BsonDoc more;
      BSON_APPEND_INT64(more.mutable_get(), "getMore", id);
      BSON_APPEND_UTF8(more.mutable_get(), "collection", coll.c_str());
      r = c.RunCommand(kDb, more);
      EXPECT_TRUE(testutil::IsOk(r)) << Json(r);
      if (!testutil::IsOk(r)) break;
      for (auto& d : testutil::DocArray(r, "cursor.nextBatch")) out.push_back(std::move(d));
      id = Integer(r, "cursor.id").value_or(0);
    }
    return out;
  }

  void ExpectValid(MongoClient& c, const std::string& coll) {
    BsonDoc r = c.RunCommand(kDb, R"({"validate": ")" + coll + R"(", "full": true})");
    EXPECT_TRUE(testutil::IsOk(r)) << Json(r);
    EXPECT_EQ(testutil::TypeAt(r, "valid"), BSON_TYPE_BOOL) << Json(r);
    auto valid = testutil::Lookup(r, "valid");
    EXPECT_TRUE(valid && bson_iter_bool(&*valid)) << Json(r);
    EXPECT_EQ(Integer(r, "nInvalidDocuments"), 0) << Json(r);
    EXPECT_EQ(Integer(r, "keysPerIndex._id_"), Integer(r, "nrecords")) << Json(r);
  }

  std::unique_ptr<ServerProcess> server_;
};

TEST_F(DurabilityTortureTest, AcknowledgedWritesSurviveRepeatedKillNine) {
  const int cycles = EnvInt("TIGERDOC_TORTURE_CYCLES", 5);
  const unsigned seed = static_cast<unsigned>(
      EnvInt("TIGERDOC_TORTURE_SEED", static_cast<int>(std::random_device{}() & 0x7fffffff)));
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> load_ms(200, 1500);
  std::cout << "[torture] cycles=" << cycles << " seed=" << seed << std::endl;

  std::vector<Writer> writers(kWriters);
  {
    MongoClient c(server_->uri());
    ASSERT_TRUE(testutil::IsOk(
        Run(c, R"({"create": "docs", "shardKey": {"w": 1}, "shards": 4})")));
    ASSERT_TRUE(testutil::IsOk(Run(
        c, R"({"createIndexes": "docs", "indexes": [{"key": {"w": 1, "seq": 1}, "name": "w_seq", "unique": true}]})")));
    std::string counters = "[";
    for (int i = 0; i < kWriters; ++i) {
      writers[i].id = i;
      writers[i].journaled = i % 2 == 0;
      counters += (i ? "," : "") + std::string(R"({"_id": )") + std::to_string(i) + R"(, "n": 0})";
    }
    ASSERT_TRUE(Acknowledged(Run(c, R"({"insert": "counters", "documents": )" + counters +
                                        R"(], "writeConcern": {"j": true}})")));
  }

  const auto started = Clock::now();
  std::vector<int64_t> lost_w1_per_cycle;
  int64_t lost_w1_incs = 0;
  for (int cycle = 0; cycle < cycles && !HasFailure(); ++cycle) {
    std::atomic<bool> stop{false};
    std::vector<std::thread> threads;
    const std::string uri = server_->uri();
    for (auto& w : writers) threads.emplace_back(RunWriter, uri, &w, &stop);
    std::this_thread::sleep_for(std::chrono::milliseconds(load_ms(rng)));
    const auto killed_at = Clock::now();
    server_->Kill9();
    stop.store(true);
    for (auto& t : threads) t.join();
    Status restarted = server_->Restart();
    ASSERT_TRUE(restarted.ok()) << restarted.ToString();

    MongoClient c(server_->uri());
    std::map<int, std::set<int64_t>> present;
    std::map<int, int64_t> id_count;
    for (const BsonDoc& d : All(c, "docs", R"({"w": 1, "seq": 1})")) {
      const int w = static_cast<int>(Integer(d, "w").value_or(-1));
      const int64_t seq = Integer(d, "seq").value_or(-1);
      ASSERT_EQ(Integer(d, "_id"), w * kIdStride + seq) << Json(d);
      ASSERT_TRUE(present[w].insert(seq).second) << "duplicated document " << Json(d);
    }
    std::map<int, int64_t> counters;
    for (const BsonDoc& d : All(c, "counters", "{}")) {
      counters[static_cast<int>(Integer(d, "_id").value_or(-1))] = Integer(d, "n").value_or(-1);
    }
    ASSERT_EQ(counters.size(), static_cast<size_t>(kWriters));

    int64_t lost_w1 = 0, acked_this_cycle = 0;
    const auto bound = killed_at - std::chrono::milliseconds(kW1LossBoundMs);
    for (Writer& w : writers) {
      const std::set<int64_t>& now = present[w.id];
      // What survived the previous crash survives this one.
      for (int64_t seq : w.present) {
        EXPECT_TRUE(now.count(seq)) << "writer " << w.id << " lost old seq " << seq;
      }
      for (const auto& [seq, acked_at] : w.acked_inserts) {
        if (now.count(seq)) continue;
        if (w.journaled) {
          ADD_FAILURE() << "writer " << w.id << " lost j:true insert seq " << seq << " acknowledged "
                        << std::chrono::duration_cast<std::chrono::milliseconds>(killed_at - acked_at).count()
                        << " ms before the kill";
        } else {
          ++lost_w1;
          EXPECT_GT(acked_at, bound) << "writer " << w.id << " lost a w:1 insert acknowledged "
                                     << std::chrono::duration_cast<std::chrono::milliseconds>(killed_at - acked_at).count()
                                     << " ms before the kill";
        }
      }
      for (int64_t seq : now) {
        if (w.present.count(seq) || w.acked_inserts.count(seq)) continue;
        EXPECT_EQ(w.inflight_insert, std::optional<int64_t>(seq))
            << "writer " << w.id << " has seq " << seq << " that was never sent";
      }
      const int64_t acked = static_cast<int64_t>(w.acked_incs.size());
      const int64_t counter = counters[w.id];
      EXPECT_LE(counter, w.counter + acked + (w.inflight_inc ? 1 : 0)) << "writer " << w.id;
      if (w.journaled) {
        EXPECT_GE(counter, w.counter + acked) << "writer " << w.id << " lost j:true increments";
      } else {
        const int64_t old_enough = std::count_if(w.acked_incs.begin(), w.acked_incs.end(),
                                                 [&](Clock::time_point t) { return t <= bound; });
        EXPECT_GE(counter, w.counter + old_enough) << "writer " << w.id;
        lost_w1_incs += std::max<int64_t>(0, w.counter + acked - counter);
      }
      acked_this_cycle += static_cast<int64_t>(w.acked_inserts.size()) + acked;
      w.total_acked_inserts += static_cast<int64_t>(w.acked_inserts.size());
      w.total_acked_incs += acked;
      // The next cycle starts from what is there now.
      w.present = now;
      w.counter = counter;
      w.acked_inserts.clear();
      w.acked_incs.clear();
      w.inflight_insert.reset();
      w.inflight_inc = false;
    }
    ExpectValid(c, "docs");
    ExpectValid(c, "counters");
    lost_w1_per_cycle.push_back(lost_w1);
    std::cout << "[torture] cycle " << cycle << ": " << acked_this_cycle
              << " acknowledged writes, lost w:1 " << lost_w1 << std::endl;
  }

  int64_t j_inserts = 0, w1_inserts = 0, j_incs = 0, w1_incs = 0, docs = 0;
  for (const Writer& w : writers) {
    (w.journaled ? j_inserts : w1_inserts) += w.total_acked_inserts;
    (w.journaled ? j_incs : w1_incs) += w.total_acked_incs;
    docs += static_cast<int64_t>(w.present.size());
  }
  int64_t lost_total = 0, lost_max = 0;
  for (int64_t n : lost_w1_per_cycle) {
    lost_total += n;
    lost_max = std::max(lost_max, n);
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - started).count();
  std::cout << "[torture] " << lost_w1_per_cycle.size() << " cycles in " << seconds
            << " s; acknowledged j:true inserts " << j_inserts << ", w:1 inserts " << w1_inserts
            << ", j:true $inc " << j_incs << ", w:1 $inc " << w1_incs << "; documents " << docs
            << "; lost w:1 inserts " << lost_total << " (max " << lost_max
            << " per cycle), lost w:1 $inc " << lost_w1_incs << std::endl;
  EXPECT_GT(j_inserts, 0);
  EXPECT_GT(w1_inserts, 0);
}

}  // namespace
}  // namespace tigerdoc::e2e
