#pragma once
// E2eTest: GoogleTest fixture that runs one real tigerdoc server per test
// suite (binaries registered PER_SUITE: a suite's tests share it; else one per
// test) and gives each test a fresh libmongoc client and its own database
// name, so tests never see each other's data. Lifecycle tests (restart,
// kill -9) drive server_ directly.

#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tests/testutil/mongo_client.h"
#include "tests/testutil/raw_connection.h"
#include "tests/testutil/server_process.h"

namespace tigerdoc::e2e {

using testutil::BsonDoc;
using testutil::MongoClient;
using testutil::RawConnection;
using testutil::ServerProcess;

class E2eTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { StartServer(); }

  // Starts the suite's server with `extra_args` beyond the default flags
  // (a suite's SetUpTestSuite); a server that does not start fails the suite.
  static void StartServer(std::vector<std::string> extra_args = {}) {
    ServerProcess::Options options;
    options.extra_args = std::move(extra_args);
    server_ = std::make_unique<ServerProcess>(options);
    Status st = server_->Start();
    if (!st.ok()) {
      server_.reset();
      GTEST_FAIL() << "could not start the server: " << st.ToString();
    }
  }

  static void TearDownTestSuite() {
    if (server_ && server_->running()) {
      Status st = server_->Stop();
      EXPECT_TRUE(st.ok()) << "unclean shutdown: " << st.ToString();
    }
    server_.reset();
  }

  void SetUp() override {
    ASSERT_NE(server_, nullptr) << "server failed to start (see suite set-up)";
    ASSERT_TRUE(server_->running()) << "server is not running; log:\n" << server_->LogTail();
    client_ = std::make_unique<MongoClient>(server_->uri());
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    // Database names may not contain '.', '/', '\\', ' ', '"', '$' and are
    // at most 63 bytes; test names are identifiers.
    db_ = std::string("e2e_") + info->name();
    // Value-parameterised tests are named "Name/3".
    std::replace(db_.begin(), db_.end(), '/', '_');
    if (db_.size() > 60) db_.resize(60);
  }

  void TearDown() override {
    if (HasFailure() && server_) {
      std::cerr << "---- server log tail ----\n" << server_->LogTail() << "\n----\n";
    }
    client_.reset();
  }

  // How RestartAndReconnect takes the server down first.
  enum class Shutdown {
    kAlreadyDown,  // the test stopped or killed it (e.g. during a write)
    kClean,        // Stop(): SIGTERM, which must exit cleanly
    kKill9,        // a crash at an arbitrary point
  };
  // Takes the server down, starts it again on the same dbpath and port
  // (what persistence and recovery tests check across) and reconnects
  // client_.
  void RestartAndReconnect(Shutdown shutdown = Shutdown::kAlreadyDown) {
    client_.reset();
    if (shutdown == Shutdown::kKill9) server_->Kill9();
    if (shutdown == Shutdown::kClean) {
      Status stopped = server_->Stop();
      ASSERT_TRUE(stopped.ok()) << stopped.ToString();
    }
    Status st = server_->Restart();
    ASSERT_TRUE(st.ok()) << st.ToString();
    client_ = std::make_unique<MongoClient>(server_->uri());
  }

  // A plain socket to the server, for bytes no driver sends.
  RawConnection ConnectRaw() {
    auto c = RawConnection::Connect(server_->port());
    EXPECT_TRUE(c.ok()) << c.status().ToString();
    return std::move(c).value();
  }

  // Runs a command (relaxed JSON) on this test's database.
  BsonDoc Run(std::string_view json) { return client_->RunCommand(db_, json); }
  BsonDoc Run(const BsonDoc& cmd) { return client_->RunCommand(db_, cmd); }
  BsonDoc RunAdmin(std::string_view json) { return client_->RunCommand("admin", json); }

  // Inserts documents (relaxed JSON array text) into `coll` and asserts ok.
  void InsertJson(const std::string& coll, const std::string& docs_json) {
    BsonDoc reply = Run("{\"insert\": \"" + coll + "\", \"documents\": " + docs_json + "}");
    ASSERT_TRUE(testutil::IsOk(reply)) << testutil::Json(reply);
    ASSERT_FALSE(testutil::Has(reply, "writeErrors")) << testutil::Json(reply);
  }

  // Inserts `count` documents {_id: i, r: (i * 37) % count, pad: <pad_bytes
  // bytes>} into `coll`, ten per insert: large state from few inserts (the
  // spill tests). r is a permutation of the _ids unless 37 divides count.
  void InsertPadded(const std::string& coll, int count, size_t pad_bytes) {
    const std::string pad(pad_bytes, 'z');
    for (int first = 0; first < count; first += 10) {
      std::vector<BsonDoc> docs;
      for (int i = first; i < first + 10 && i < count; ++i) {
        BsonDoc d;
        BSON_APPEND_INT32(d.mutable_get(), "_id", i);
        BSON_APPEND_INT32(d.mutable_get(), "r", (i * 37) % count);
        BSON_APPEND_UTF8(d.mutable_get(), "pad", pad.c_str());
        docs.push_back(std::move(d));
      }
      BsonDoc r = client_->InsertMany(db_, coll, docs);
      ASSERT_EQ(testutil::Integer(r, "insertedCount"), static_cast<int64_t>(docs.size()))
          << testutil::Json(r);
    }
  }

  // `n` documents {_id: i, a: i % a_modulus, b: i % 100} in `coll`: a
  // $lookup from a to b over them reads the whole collection per document
  // (no index on b), work that runs long enough to be watched and killed.
  void InsertNumbers(const std::string& coll, int n, int a_modulus) {
    std::vector<BsonDoc> docs;
    for (int i = 0; i < n; ++i) {
      BsonDoc d;
      BSON_APPEND_INT32(d.mutable_get(), "_id", i);
      BSON_APPEND_INT32(d.mutable_get(), "a", i % a_modulus);
      BSON_APPEND_INT32(d.mutable_get(), "b", i % 100);
      docs.push_back(std::move(d));
    }
    BsonDoc r = client_->InsertMany(db_, coll, docs);
    ASSERT_EQ(testutil::Integer(r, "insertedCount"), n) << testutil::Json(r);
  }

  // 20,000 documents {_id, k: a scrambled number, s: 26 letters} in `coll`,
  // 1000 per insert: a sort over them runs long enough to be interrupted.
  void InsertSlowToSort(const std::string& coll) {
    for (int batch = 0; batch < 20; ++batch) {
      std::string docs = "[";
      for (int i = 0; i < 1000; ++i) {
        const int id = batch * 1000 + i;
        docs += (i ? "," : "") + std::string(R"({"_id": )") + std::to_string(id) + R"(, "k": )" +
                std::to_string((id * 7919) % 10007) + R"(, "s": "abcdefghijklmnopqrstuvwxyz"})";
      }
      InsertJson(coll, docs + "]");
    }
  }

  // {getMore: NumberLong(id), collection: coll[, batchSize]} on this db.
  BsonDoc GetMore(int64_t cursor_id, const std::string& coll, int batch_size = 0) {
    BsonDoc cmd;
    BSON_APPEND_INT64(cmd.mutable_get(), "getMore", cursor_id);
    BSON_APPEND_UTF8(cmd.mutable_get(), "collection", coll.c_str());
    if (batch_size > 0) BSON_APPEND_INT32(cmd.mutable_get(), "batchSize", batch_size);
    return Run(cmd);
  }

  // {killCursors: coll, cursors: [NumberLong(id)]}, for any client to run
  // on this db.
  static BsonDoc KillCursorsCommand(const std::string& coll, int64_t cursor_id) {
    BsonDoc cmd;
    BSON_APPEND_UTF8(cmd.mutable_get(), "killCursors", coll.c_str());
    bson_t ids;
    BSON_APPEND_ARRAY_BEGIN(cmd.mutable_get(), "cursors", &ids);
    BSON_APPEND_INT64(&ids, "0", cursor_id);
    bson_append_array_end(cmd.mutable_get(), &ids);
    return cmd;
  }

  // The integer _ids of the documents in the array at `path` of `reply`,
  // in order (-1 for an _id that is not an integer).
  static std::vector<int64_t> Ids(const BsonDoc& reply,
                                  std::string_view path = "cursor.firstBatch") {
    std::vector<int64_t> out;
    for (const auto& d : testutil::DocArray(reply, path)) {
      out.push_back(testutil::Integer(d, "_id").value_or(-1));
    }
    return out;
  }

  static std::unique_ptr<ServerProcess> server_;
  std::unique_ptr<MongoClient> client_;
  std::string db_;
};

inline std::unique_ptr<ServerProcess> E2eTest::server_;

// Asserts ok:1 with the reply in the failure message.
#define ASSERT_OK_REPLY(reply) \
  ASSERT_TRUE(::tigerdoc::testutil::IsOk(reply)) << ::tigerdoc::testutil::Json(reply)
#define EXPECT_OK_REPLY(reply) \
  EXPECT_TRUE(::tigerdoc::testutil::IsOk(reply)) << ::tigerdoc::testutil::Json(reply)

// Asserts {ok: 0, code: <code>, codeName: <name>}.
#define EXPECT_ERROR_REPLY(reply, code_number, code_name)                                   \
  do {                                                                                      \
    const auto& r_ = (reply);                                                               \
    EXPECT_EQ(::tigerdoc::testutil::Number(r_, "ok"), 0.0) << ::tigerdoc::testutil::Json(r_); \
    EXPECT_EQ(::tigerdoc::testutil::Integer(r_, "code"), (code_number))                     \
        << ::tigerdoc::testutil::Json(r_);                                                  \
    EXPECT_EQ(::tigerdoc::testutil::String(r_, "codeName"), std::string(code_name))        \
        << ::tigerdoc::testutil::Json(r_);                                                  \
  } while (0)

}  // namespace tigerdoc::e2e
