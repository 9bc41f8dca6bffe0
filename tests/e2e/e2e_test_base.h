#pragma once
// E2eTest: GoogleTest fixture that runs one real tigerdoc server per test
// suite (ctest runs each test in its own process, so in practice one per
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
#include "tests/testutil/server_process.h"

namespace tigerdoc::e2e {

using testutil::BsonDoc;
using testutil::MongoClient;
using testutil::ServerProcess;

class E2eTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    server_ = std::make_unique<ServerProcess>();
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

  // {getMore: NumberLong(id), collection: coll[, batchSize]} on this db.
  BsonDoc GetMore(int64_t cursor_id, const std::string& coll, int batch_size = 0) {
    BsonDoc cmd;
    BSON_APPEND_INT64(cmd.mutable_get(), "getMore", cursor_id);
    BSON_APPEND_UTF8(cmd.mutable_get(), "collection", coll.c_str());
    if (batch_size > 0) BSON_APPEND_INT32(cmd.mutable_get(), "batchSize", batch_size);
    return Run(cmd);
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
