// A blocking sort over more than 100 MiB (MongoDB's limit for in-memory
// sorts): refused with 292 without allowDiskUse; with it the sort spills
// to <dbpath>/_tmp and returns every document in order across getMores.
// Top-k (sort with a small limit) over the same data needs no disk.
#include <filesystem>
#include <string>

#include "tests/e2e/e2e_test_base.h"

namespace tigerdoc::e2e {
namespace {

using testutil::ArrayLength;
using testutil::DocArray;
using testutil::Integer;
using testutil::Json;
using testutil::String;

constexpr int kDocs = 110;
constexpr size_t kPad = 1024 * 1024;  // 110 documents of 1 MiB: 110 MiB

class SortSpillTest : public E2eTest {
 protected:
  // The `r` values of every batch of a cursor, in order.
  std::vector<int64_t> DrainR(BsonDoc r) {
    std::vector<int64_t> out;
    std::string path = "cursor.firstBatch";
    while (true) {
      EXPECT_TRUE(testutil::IsOk(r)) << String(r, "errmsg").value_or("");
      for (const BsonDoc& d : DocArray(r, path)) out.push_back(Integer(d, "r").value_or(-1));
      int64_t id = Integer(r, "cursor.id").value_or(0);
      if (id == 0) break;
      r = GetMore(id, "big");
      path = "cursor.nextBatch";
    }
    return out;
  }
};

TEST_F(SortSpillTest, OverOneHundredMebibytesSpillsWithAllowDiskUse) {
  InsertPadded("big", kDocs, kPad);
  BsonDoc refused = Run(R"({"find": "big", "sort": {"r": 1}, "projection": {"pad": 0}})");
  EXPECT_ERROR_REPLY(refused, 292, "QueryExceededMemoryLimitNoDiskUseAllowed");
  EXPECT_EQ(String(refused, "errmsg"),
            "Sort exceeded memory limit of 104857600 bytes, but did not opt in to external sorting.");

  std::vector<int64_t> rs = DrainR(
      Run(R"({"find": "big", "sort": {"r": 1}, "projection": {"pad": 0}, "allowDiskUse": true})"));
  ASSERT_EQ(rs.size(), static_cast<size_t>(kDocs));
  for (int i = 0; i < kDocs; ++i) ASSERT_EQ(rs[i], i) << "at " << i;
  EXPECT_TRUE(std::filesystem::is_directory(server_->dbpath() + "/_tmp"));

  BsonDoc e = Run(R"({"explain": {"find": "big", "sort": {"r": -1}, "allowDiskUse": true},
                      "verbosity": "executionStats"})");
  ASSERT_OK_REPLY(e);
  EXPECT_EQ(testutil::Number(e, "executionStats.executionStages.usedDisk"), 1.0) << String(e, "errmsg").value_or("");
  EXPECT_GE(Integer(e, "executionStats.executionStages.spills").value_or(0), 1);

  // Top-k keeps three documents, far under the limit.
  BsonDoc top = Run(R"({"find": "big", "sort": {"r": -1}, "limit": 3, "projection": {"pad": 0}})");
  ASSERT_OK_REPLY(top);
  std::vector<int64_t> want = {kDocs - 1, kDocs - 2, kDocs - 3};
  std::vector<int64_t> got;
  for (const BsonDoc& d : DocArray(top, "cursor.firstBatch")) got.push_back(Integer(d, "r").value_or(-1));
  EXPECT_EQ(got, want);
}

}  // namespace
}  // namespace tigerdoc::e2e
