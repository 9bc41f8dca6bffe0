// DiskSpaceGuard against the real file system holding the temp directory:
// thresholds far above and below its free space.

#include "engine/storage/disk_space.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace tigerdoc::storage {
namespace {

const std::string kDir = std::filesystem::temp_directory_path().string();
constexpr uint64_t kExabyte = uint64_t{1} << 60;

TEST(DiskSpaceGuardTest, FreeBytesOfAnExistingDirectoryIsReadable) {
  auto free_bytes = FreeDiskBytes(kDir);
  ASSERT_TRUE(free_bytes.ok()) << free_bytes.status().ToString();
  EXPECT_GT(free_bytes.value(), 0u);
}

TEST(DiskSpaceGuardTest, WritesAreRefusedWithOutOfDiskSpaceBelowTheReserve) {
  DiskSpaceGuard guard(kDir, kExabyte);
  Status st = guard.CheckWrite();
  EXPECT_EQ(st.code(), ErrorCode::kOutOfDiskSpace);
  EXPECT_EQ(st.code_number(), 14031);
  EXPECT_NE(st.reason().find(kDir), std::string::npos) << st.reason();
  // Refusals re-measure rather than trust the cached figure: still refused.
  EXPECT_EQ(guard.CheckWrite().code(), ErrorCode::kOutOfDiskSpace);
}

TEST(DiskSpaceGuardTest, RemovesNeedOnlyHalfTheReserve) {
  auto free_bytes = FreeDiskBytes(kDir);
  ASSERT_TRUE(free_bytes.ok());
  // A reserve 1.5x the free space: writes refused, removes allowed (unless
  // the disk shrinks by a third during the test).
  DiskSpaceGuard guard(kDir, free_bytes.value() / 2 * 3);
  EXPECT_EQ(guard.CheckWrite().code(), ErrorCode::kOutOfDiskSpace);
  EXPECT_TRUE(guard.CheckRemove().ok());
}

TEST(DiskSpaceGuardTest, ZeroReserveTurnsTheGuardOff) {
  DiskSpaceGuard guard("/nonexistent-directory", 0);
  EXPECT_TRUE(guard.CheckWrite().ok());
  EXPECT_TRUE(guard.CheckRemove().ok());
}

TEST(DiskSpaceGuardTest, AnUnreadableFileSystemLeavesTheDecisionToTheStorage) {
  DiskSpaceGuard guard("/nonexistent-directory", kExabyte);
  EXPECT_TRUE(guard.CheckWrite().ok());
}

}  // namespace
}  // namespace tigerdoc::storage
