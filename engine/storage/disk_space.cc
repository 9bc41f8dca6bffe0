#include "engine/storage/disk_space.h"

#include <sys/statvfs.h>

#include <cerrno>
#include <chrono>
#include <cstring>

namespace tigerdoc::storage {

namespace {

// Short enough that a burst of writes cannot outrun the reserve between two
// statvfs calls (about 1 MiB at the server's insert rate), long enough that
// the call does not show in profiles.
constexpr int64_t kRefreshNs = 10'000'000;

std::string Mib(uint64_t bytes) {
  return std::to_string(bytes / (1024 * 1024)) + " MiB";
}

}  // namespace

StatusWith<uint64_t> FreeDiskBytes(const std::string& path) {
  struct statvfs st;
  if (statvfs(path.c_str(), &st) != 0) {
    return Status(ErrorCode::kInternalError,
                  "cannot read the free space of '" + path + "': " + std::strerror(errno));
  }
  return static_cast<uint64_t>(st.f_bavail) * st.f_frsize;
}

std::string OutOfDiskSpaceMessage(const std::string& path, uint64_t free_bytes,
                                  uint64_t needed_bytes, const char* what) {
  return std::string(what) + " refused: the file system holding '" + path + "' has " +
         Mib(free_bytes) + " free, below the " + Mib(needed_bytes) +
         " tigerdoc keeps in reserve (--diskReserveMB); free some space";
}

Status DiskSpaceGuard::Check(uint64_t needed, const char* what) {
  if (needed == 0) return Status::OK();
  const int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::steady_clock::now().time_since_epoch())
                          .count();
  uint64_t free_bytes = free_bytes_.load(std::memory_order_relaxed);
  const int64_t checked_at = checked_at_ns_.load(std::memory_order_acquire);
  // A refusal always re-measures, so writes resume as soon as space is freed.
  if (checked_at == 0 || now - checked_at > kRefreshNs || free_bytes < needed) {
    auto measured = FreeDiskBytes(path_);
    // A failing statvfs says nothing about space: let WiredTiger report.
    if (!measured.ok()) return Status::OK();
    free_bytes = measured.value();
    free_bytes_.store(free_bytes, std::memory_order_relaxed);
    checked_at_ns_.store(now, std::memory_order_release);
  }
  if (free_bytes >= needed) return Status::OK();
  return Status(ErrorCode::kOutOfDiskSpace, OutOfDiskSpaceMessage(path_, free_bytes, needed, what));
}

}  // namespace tigerdoc::storage
