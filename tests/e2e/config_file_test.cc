// The real server started from mongod's YAML config file (--config / -f):
// the file's settings take effect, flags override it, and a file with a key
// tigerdoc does not have stops the start with exit status 2 and the key's
// path on stderr (wire/config/ has the parser's unit tests).

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <fstream>

#include "tests/e2e/busy_cursor.h"
#include "tests/e2e/e2e_test_base.h"
#include "tests/engine/temp_dir.h"
#include "tests/testutil/wait_until.h"

namespace tigerdoc::e2e {
namespace {

// A YAML config file in a directory of its own, removed when the test ends,
// also when an ASSERT returns early (a removal at the test's end leaked it).
class ConfigFile {
 public:
  explicit ConfigFile(const std::string& yaml) : dir_("tigerdoc-e2e-config"), path_(dir_.path() + "/mongod.conf") {
    std::ofstream(path_) << yaml;
  }
  const std::string& path() const { return path_; }

 private:
  testing_dirs::TempDir dir_;
  std::string path_;
};

// Runs the server binary with `args`, expecting it to exit at once: its
// exit status and its output (stdout and stderr).
std::pair<int, std::string> RunToExit(const std::string& args) {
  std::string command = testutil::DefaultServerBinary() + " " + args + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  EXPECT_NE(pipe, nullptr);
  std::string out;
  std::array<char, 512> buf;
  while (fgets(buf.data(), buf.size(), pipe)) out += buf.data();
  int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

TEST(ConfigFileTest, SettingsOfTheFileTakeEffectAndFlagsOverrideIt) {
  // net.port is overridden by ServerProcess's --port; the file's shards and
  // cursor timeout stay.
  const ConfigFile config(
      "net:\n  port: 1\n  bindIp: 127.0.0.1\ntigerdoc:\n  shards: 5\nsetParameter:\n  cursorTimeoutMillis: 200\n");
  ServerProcess::Options options;
  options.extra_args = {"--config", config.path()};
  ServerProcess server(options);
  ASSERT_TRUE(server.Start().ok()) << server.LogTail();
  MongoClient client(server.uri());
  ASSERT_OK_REPLY(client.RunCommand("cfg", R"({"create": "c"})"));
  BsonDoc stats = client.RunCommand("cfg", R"({"aggregate": "c", "pipeline": [{"$collStats": {"count": {}}}],
                                             "cursor": {}})");
  ASSERT_OK_REPLY(stats);
  EXPECT_EQ(testutil::ArrayLength(stats, "cursor.firstBatch"), 5u) << testutil::Json(stats);
  // The cursor timeout of 200 ms: an idle cursor is reaped (waited for, not
  // slept on: a starved reaper thread is late, not wrong).
  std::string docs = "[";
  for (int i = 0; i < 5; ++i) docs += (i ? "," : "") + std::string("{\"_id\": ") + std::to_string(i) + "}";
  ASSERT_OK_REPLY(client.RunCommand("cfg", R"({"insert": "c", "documents": )" + docs + "]}"));
  BsonDoc found = client.RunCommand("cfg", R"({"find": "c", "batchSize": 1})");
  ASSERT_OK_REPLY(found);
  int64_t cursor_id = testutil::Integer(found, "cursor.id").value_or(0);
  ASSERT_NE(cursor_id, 0);
  EXPECT_TRUE(testutil::WaitUntil([&] { return CursorsTimedOut(client) == 1; }))
      << "the idle cursor was not reaped";
  BsonDoc more;
  BSON_APPEND_INT64(more.mutable_get(), "getMore", cursor_id);
  BSON_APPEND_UTF8(more.mutable_get(), "collection", "c");
  EXPECT_ERROR_REPLY(client.RunCommand("cfg", more), 43, "CursorNotFound");
  EXPECT_TRUE(server.Stop().ok());
}

TEST(ConfigFileTest, UnknownKeyStopsTheStartNamingItsPath) {
  // A mongod key tigerdoc has no use for (no sharded clusters). Port 0: a
  // server that wrongly started would not take a well-known port.
  const ConfigFile config("net:\n  port: 0\nsharding:\n  clusterRole: shardsvr\n");
  auto [status, out] = RunToExit("-f " + config.path());
  EXPECT_EQ(status, 2) << out;
  EXPECT_NE(out.find("unknown option sharding.clusterRole"), std::string::npos) << out;
}

TEST(ConfigFileTest, ForkIsRefusedClearly) {
  const ConfigFile config("processManagement:\n  fork: true\n");
  auto [status, out] = RunToExit("--config " + config.path());
  EXPECT_EQ(status, 2) << out;
  EXPECT_NE(out.find("processManagement.fork: true is not supported"), std::string::npos) << out;
}

}  // namespace
}  // namespace tigerdoc::e2e
