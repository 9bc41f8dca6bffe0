// $group over more than 100 MiB of group state (MongoDB's
// internalDocumentSourceGroupMaxMemoryBytes): refused with 292 without
// allowDiskUse; with it the groups spill to <dbpath>/_tmp and every group
// comes back right. The state is made inside the pipeline ($range +
// $unwind multiply 60 small documents into 60000 groups of 2 KiB), so the
// test inserts little.
#include <chrono>
#include <filesystem>
#include <string>

#include "tests/e2e/e2e_test_base.h"

namespace tigerdoc::e2e {
namespace {

using testutil::Integer;
using testutil::Json;

class GroupSpillTest : public E2eTest {
 protected:
  void SetUp() override {
    E2eTest::SetUp();
    InsertPadded("seed", 60, 2048);
  }

  BsonDoc BigGroup(bool allow_disk_use) {
    // 60 x 1000 distinct keys, each holding a 2 KiB string: ~120 MiB of state.
    return Run(std::string(R"({"aggregate": "seed", "pipeline": [
        {"$addFields": {"r": {"$range": [0, 1000]}}}, {"$unwind": "$r"},
        {"$group": {"_id": {"s": "$_id", "r": "$r"}, "pad": {"$first": "$pad"}, "n": {"$sum": 1}}},
        {"$group": {"_id": null, "groups": {"$sum": 1}, "docs": {"$sum": "$n"},
                    "bytes": {"$sum": {"$strLenBytes": "$pad"}}}}],
        "cursor": {}, "allowDiskUse": )") + (allow_disk_use ? "true" : "false") + "}");
  }
};

TEST_F(GroupSpillTest, RefusedWithoutAllowDiskUse) {
  EXPECT_ERROR_REPLY(BigGroup(false), 292, "QueryExceededMemoryLimitNoDiskUseAllowed");
}

TEST_F(GroupSpillTest, SpillsToTmpWithAllowDiskUse) {
  auto start = std::chrono::steady_clock::now();
  BsonDoc r = BigGroup(true);
  auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "cursor.firstBatch.0.groups"), 60000) << Json(r);
  EXPECT_EQ(Integer(r, "cursor.firstBatch.0.docs"), 60000) << Json(r);
  EXPECT_EQ(Integer(r, "cursor.firstBatch.0.bytes"), 60000 * 2048) << Json(r);
  EXPECT_TRUE(std::filesystem::is_directory(server_->dbpath() + "/_tmp"));
  std::printf("group spill over ~120 MiB of state: %.1f s\n", seconds);
}

}  // namespace
}  // namespace tigerdoc::e2e
