// engine/log: mongod's JSON line format, the getLog rings at and past their
// capacity, startup warnings, verbosity, rotation, and whole lines from many
// threads at once. (ctest runs each test in its own process, so the global
// log starts fresh for each.)

#include "engine/log/log.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "engine/bson/bson_doc.h"

namespace tigerdoc::log {
namespace {

namespace fs = std::filesystem;

class LogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir[] = "/tmp/tigerdoc-log-test-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    dir_ = dir;
    path_ = dir_ + "/server.log";
  }
  void TearDown() override { fs::remove_all(dir_); }

  Options FileOptions() {
    Options o;
    o.path = path_;
    return o;
  }
  std::vector<std::string> FileLines(const std::string& path) {
    std::ifstream in(path);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
  }
  // The line parsed as JSON; fails the test when it is not one object.
  // libbson reads {"$date": ...} as extended JSON and wants "+0000", not
  // mongod's "+00:00": the time is renamed "date" to stay a plain string.
  static bson::BsonDoc Parse(std::string line) {
    const std::string ext = R"({"t":{"$date":)";
    if (line.rfind(ext, 0) == 0) line.replace(0, ext.size(), R"({"t":{"date":)");
    bson_error_t error;
    bson_t* doc = bson_new_from_json(reinterpret_cast<const uint8_t*>(line.data()),
                                     static_cast<ssize_t>(line.size()), &error);
    EXPECT_NE(doc, nullptr) << error.message << " in " << line;
    if (doc == nullptr) return bson::BsonDoc();
    return bson::BsonDoc(doc);
  }
  static std::string Str(const bson::BsonDoc& doc, const char* path) {
    bson_iter_t it;
    if (!bson_iter_init(&it, doc.get()) || !bson_iter_find_descendant(&it, path, &it) ||
        !BSON_ITER_HOLDS_UTF8(&it)) {
      return "<missing>";
    }
    return bson_iter_utf8(&it, nullptr);
  }

  std::string dir_, path_;
};

TEST_F(LogTest, LinesAreMongodsJsonFormat) {
  ASSERT_TRUE(Configure(FileOptions()).ok());
  SetThreadContext("conn7");
  bson::BsonDoc attr = bson::BsonDoc::FromJson(R"({"port": 27017, "text": "a \"quoted\"\nline"})");
  Write(Severity::kInfo, "NETWORK", 23016, "Waiting for connections", attr.get());
  Write(Severity::kWarning, "STORAGE", 1, "tab\there");
  auto lines = FileLines(path_);
  ASSERT_EQ(lines.size(), 2u);
  bson::BsonDoc first = Parse(lines[0]);
  EXPECT_EQ(lines[0].rfind(R"({"t":{"$date":")", 0), 0u) << lines[0];
  // "2026-11-26T10:49:00.123+00:00"
  const std::string date = Str(first, "t.date");
  ASSERT_EQ(date.size(), 29u) << date;
  EXPECT_EQ(date.substr(10, 1), "T");
  EXPECT_EQ(date.substr(23), "+00:00");
  EXPECT_EQ(Str(first, "s"), "I");
  EXPECT_EQ(Str(first, "c"), "NETWORK");
  EXPECT_EQ(Str(first, "ctx"), "conn7");
  EXPECT_EQ(Str(first, "msg"), "Waiting for connections");
  EXPECT_EQ(Str(first, "attr.text"), "a \"quoted\"\nline");
  bson_iter_t it;
  ASSERT_TRUE(bson_iter_init_find(&it, first.get(), "id"));
  EXPECT_EQ(bson_iter_as_int64(&it), 23016);
  bson::BsonDoc second = Parse(lines[1]);
  EXPECT_EQ(Str(second, "s"), "W");
  EXPECT_EQ(Str(second, "msg"), "tab\there");
  EXPECT_FALSE(bson_iter_init_find(&it, second.get(), "attr"));
}

TEST_F(LogTest, GlobalRingKeepsTheLastLinesBelowAtAndAboveCapacity) {
  ASSERT_TRUE(Configure(FileOptions()).ok());
  for (size_t i = 0; i < kLineCapacity - 1; ++i) Write(Severity::kInfo, "-", 1, "line " + std::to_string(i));
  EXPECT_EQ(RecentLines("global").lines.size(), kLineCapacity - 1);
  Write(Severity::kInfo, "-", 1, "line " + std::to_string(kLineCapacity - 1));
  EXPECT_EQ(RecentLines("global").lines.size(), kLineCapacity);
  for (size_t i = kLineCapacity; i < 3 * kLineCapacity; ++i) Write(Severity::kInfo, "-", 1, "line " + std::to_string(i));
  Recent recent = RecentLines("global");
  EXPECT_EQ(recent.total_lines_written, static_cast<int64_t>(3 * kLineCapacity));
  ASSERT_EQ(recent.lines.size(), kLineCapacity);
  EXPECT_EQ(Str(Parse(recent.lines.front()), "msg"), "line " + std::to_string(2 * kLineCapacity));
  EXPECT_EQ(Str(Parse(recent.lines.back()), "msg"), "line " + std::to_string(3 * kLineCapacity - 1));
  // The ring holds the very lines of the file.
  auto file = FileLines(path_);
  EXPECT_EQ(file.back(), recent.lines.back());
}

TEST_F(LogTest, StartupWarningsAreWarningsBeforeStartupCompletes) {
  ASSERT_TRUE(Configure(FileOptions()).ok());
  Write(Severity::kInfo, "CONTROL", 1, "info at start");
  Write(Severity::kWarning, "CONTROL", 2, "warning at start");
  MarkStartupComplete();
  Write(Severity::kWarning, "CONTROL", 3, "warning later");
  Recent warnings = RecentLines("startupWarnings");
  ASSERT_EQ(warnings.lines.size(), 1u);
  EXPECT_EQ(Str(Parse(warnings.lines[0]), "msg"), "warning at start");
  EXPECT_EQ(RecentLines("global").lines.size(), 3u);
}

TEST_F(LogTest, VerbosityGatesDebugLines) {
  Options o = FileOptions();
  ASSERT_TRUE(Configure(o).ok());
  Write(Severity::kDebug1, "-", 1, "hidden");
  EXPECT_FALSE(Enabled(Severity::kDebug1));
  o.verbosity = 2;
  ASSERT_TRUE(Configure(o).ok());
  Write(Severity::kDebug2, "-", 2, "shown");
  Write(Severity::kDebug3, "-", 3, "hidden too");
  auto lines = FileLines(path_);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(Str(Parse(lines[0]), "s"), "D2");
}

TEST_F(LogTest, AppendKeepsAndDefaultTruncates) {
  ASSERT_TRUE(Configure(FileOptions()).ok());
  Write(Severity::kInfo, "-", 1, "first run");
  Options o = FileOptions();
  o.append = true;
  ASSERT_TRUE(Configure(o).ok());
  Write(Severity::kInfo, "-", 1, "second run");
  EXPECT_EQ(FileLines(path_).size(), 2u);
  ASSERT_TRUE(Configure(FileOptions()).ok());
  Write(Severity::kInfo, "-", 1, "third run");
  EXPECT_EQ(FileLines(path_).size(), 1u);
}

TEST_F(LogTest, RotateRenamesAndReopens) {
  ASSERT_TRUE(Configure(FileOptions()).ok());
  Write(Severity::kInfo, "-", 1, "before");
  ASSERT_TRUE(Rotate().ok());
  ASSERT_TRUE(Rotate().ok());  // twice within a second: both files kept
  Write(Severity::kInfo, "-", 1, "after");
  std::vector<std::string> rotated;
  for (const auto& entry : fs::directory_iterator(dir_)) {
    if (entry.path().filename() != "server.log") rotated.push_back(entry.path());
  }
  ASSERT_EQ(rotated.size(), 2u);
  auto now = FileLines(path_);
  ASSERT_EQ(now.size(), 1u);
  EXPECT_EQ(Str(Parse(now[0]), "msg"), "after");
  size_t before = FileLines(rotated[0]).size() + FileLines(rotated[1]).size();
  EXPECT_EQ(before, 1u);
}

TEST_F(LogTest, StdoutHasNothingToRotate) {
  ASSERT_TRUE(Configure(Options{}).ok());
  EXPECT_TRUE(Rotate().ok());
}

TEST_F(LogTest, UnwritableFileIsAnError) {
  Options o;
  o.path = dir_ + "/missing/dir/server.log";
  Status st = Configure(o);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.reason().find("cannot open log file"), std::string::npos) << st.reason();
}

TEST_F(LogTest, LinesFromManyThreadsStayWhole) {
  ASSERT_TRUE(Configure(FileOptions()).ok());
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([t] {
      SetThreadContext("conn" + std::to_string(t));
      bson::BsonDoc attr = bson::BsonDoc::FromJson(R"({"payload": ")" + std::string(300, 'x') + "\"}");
      for (int i = 0; i < 500; ++i) Write(Severity::kInfo, "COMMAND", 51803, "Slow query", attr.get());
    });
  }
  for (auto& th : threads) th.join();
  auto lines = FileLines(path_);
  ASSERT_EQ(lines.size(), 4000u);
  for (const auto& line : lines) ASSERT_EQ(Str(Parse(line), "msg"), "Slow query");
  EXPECT_EQ(RecentLines("global").total_lines_written, 4000);
}

TEST(LogJsonStringTest, EscapesWhatJsonNeeds) {
  EXPECT_EQ(JsonString("a\"b\\c\n\x01"), "\"a\\\"b\\\\c\\n\\u0001\"");
}

}  // namespace
}  // namespace tigerdoc::log
