// $setWindowFields over one partition of ~120 MiB (more than the 100 MiB
// blocking-stage limit): refused without allowDiskUse (292 from the sort
// MongoDB puts ahead of the stage); with it the sort and the partition spill
// to <dbpath>/_tmp and every row's window values come back right. The
// partition is made inside the pipeline ($range + $unwind multiply 60
// documents of 2 KiB into 60000), so the test inserts little.
#include <chrono>
#include <cstdio>
#include <string>

#include "tests/e2e/e2e_test_base.h"

namespace tigerdoc::e2e {
namespace {

using testutil::Integer;
using testutil::Json;

class WindowSpillTest : public E2eTest {
 protected:
  void SetUp() override {
    E2eTest::SetUp();
    InsertPadded("seed", 60, 2048);
  }

  BsonDoc BigPartition(bool allow_disk_use) {
    // i = 0..59999, one partition; s = i-1 + i + i+1 except at both ends.
    return Run(std::string(R"({"aggregate": "seed", "pipeline": [
        {"$addFields": {"r": {"$range": [0, 1000]}}}, {"$unwind": "$r"},
        {"$project": {"_id": 0, "i": {"$add": [{"$multiply": ["$_id", 1000]}, "$r"]}, "pad": 1}},
        {"$setWindowFields": {"sortBy": {"i": 1}, "output": {
            "s": {"$sum": "$i", "window": {"documents": [-1, 1]}},
            "rk": {"$rank": {}},
            "prev": {"$shift": {"output": "$i", "by": -1, "default": -1}},
            "upTo": {"$max": "$i", "window": {"range": ["unbounded", 0]}}}}},
        {"$group": {"_id": null, "rows": {"$sum": 1},
            "right": {"$sum": {"$cond": [{"$and": [
                {"$or": [{"$eq": ["$s", {"$multiply": ["$i", 3]}]}, {"$eq": ["$i", 0]}, {"$eq": ["$i", 59999]}]},
                {"$eq": ["$rk", {"$add": ["$i", 1]}]},
                {"$eq": ["$prev", {"$subtract": ["$i", 1]}]},
                {"$eq": ["$upTo", "$i"]}]}, 1, 0]}},
            "bytes": {"$sum": {"$strLenBytes": "$pad"}}}}],
        "cursor": {}, "allowDiskUse": )") + (allow_disk_use ? "true" : "false") + "}");
  }
};

TEST_F(WindowSpillTest, RefusedWithoutAllowDiskUse) {
  EXPECT_ERROR_REPLY(BigPartition(false), 292, "QueryExceededMemoryLimitNoDiskUseAllowed");
}

TEST_F(WindowSpillTest, PartitionSpillsWithAllowDiskUse) {
  auto start = std::chrono::steady_clock::now();
  BsonDoc r = BigPartition(true);
  auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "cursor.firstBatch.0.rows"), 60000) << Json(r);
  EXPECT_EQ(Integer(r, "cursor.firstBatch.0.right"), 60000) << Json(r);
  EXPECT_EQ(Integer(r, "cursor.firstBatch.0.bytes"), 60000 * 2048) << Json(r);
  std::printf("$setWindowFields over a ~120 MiB partition: %.1f s\n", seconds);
}

}  // namespace
}  // namespace tigerdoc::e2e
