// TTL indexes through libmongoc with a 1 s monitor: expired dates go,
// arrays expire with their earliest date, non-dates stay, compound TTL
// indexes are refused, and collMod's expireAfterSeconds takes effect.

#include <chrono>
#include <thread>

#include "tests/e2e/index_test_base.h"
#include "tests/testutil/wait_until.h"

namespace tigerdoc::e2e {
namespace {

using testutil::DocArray;
using testutil::Json;

class IndexTtlTest : public IndexE2eTest {
 protected:
  static std::string DateMsAgo(int64_t ms) {
    const int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::system_clock::now().time_since_epoch()).count();
    return R"({"$date": {"$numberLong": ")" + std::to_string(now - ms) + R"("}})";
  }

  // Waits until `coll` holds `expected` documents (the TTL monitor's
  // thread may run seconds late on a loaded machine).
  bool WaitForCount(const std::string& coll, int64_t expected) {
    return testutil::WaitUntil([&] { return Count(coll) == expected; }, testutil::kGenerousWait,
                               std::chrono::milliseconds(100));
  }
};

TEST_F(IndexTtlTest, MonitorDeletesExpiredDocuments) {
  ASSERT_OK_REPLY(CreateIndexes("s", R"([{"key": {"at": 1}, "name": "at_1", "expireAfterSeconds": 60}])"));
  const std::string old_date = DateMsAgo(3600 * 1000), fresh = DateMsAgo(0);
  InsertJson("s", "[{\"_id\": 1, \"at\": " + old_date + "}, {\"_id\": 2, \"at\": " + fresh +
                      "}, {\"_id\": 3, \"at\": [" + fresh + ", " + old_date + "]}, {\"_id\": 4, \"at\": \"" +
                      "yesterday\"}, {\"_id\": 5}]");
  ASSERT_TRUE(WaitForCount("s", 3)) << Count("s");
  BsonDoc left = Run(R"({"find": "s", "sort": {"_id": 1}})");
  EXPECT_EQ(Ids(left), (std::vector<int64_t>{2, 4, 5}));
  // Shortening expireAfterSeconds through collMod expires the fresh one.
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  ASSERT_OK_REPLY(Run(R"({"collMod": "s", "index": {"name": "at_1", "expireAfterSeconds": 0}})"));
  ASSERT_TRUE(WaitForCount("s", 2)) << Count("s");
}

TEST_F(IndexTtlTest, DescendingAndPartialTtlIndexes) {
  ASSERT_OK_REPLY(CreateIndexes("d", R"([{"key": {"at": -1}, "name": "at_-1", "expireAfterSeconds": 1,
      "partialFilterExpression": {"kind": "temp"}}])"));
  const std::string old_date = DateMsAgo(3600 * 1000);
  InsertJson("d", "[{\"_id\": 1, \"kind\": \"temp\", \"at\": " + old_date + "}, {\"_id\": 2, \"kind\": \"keep\", \"at\": " +
                      old_date + "}]");
  ASSERT_TRUE(WaitForCount("d", 1)) << Count("d");
  EXPECT_EQ(Ids(Run(R"({"find": "d"})")), std::vector<int64_t>{2});
}

TEST_F(IndexTtlTest, CompoundTtlIsRefused) {
  EXPECT_ERROR_REPLY(CreateIndexes("c", R"([{"key": {"a": 1, "at": 1}, "name": "x", "expireAfterSeconds": 1}])"),
                     67, "CannotCreateIndex");
}

}  // namespace
}  // namespace tigerdoc::e2e
