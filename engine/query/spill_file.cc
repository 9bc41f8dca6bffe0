#include "engine/query/spill_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace tigerdoc::query {
namespace {

Status ErrnoStatus(const std::string& what) {
  return Status(ErrorCode::kInternalError, what + ": " + std::strerror(errno));
}

}  // namespace

StatusWith<std::unique_ptr<SpillFile>> SpillFile::Open(const std::string& dir_option) {
  std::string dir = dir_option.empty() ? std::filesystem::temp_directory_path().string() : dir_option;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    return Status(ErrorCode::kInternalError, "cannot create spill directory " + dir + ": " + ec.message());
  }
  int fd = -1;
#ifdef O_TMPFILE
  fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
#endif
  if (fd < 0) {
    // Filesystems without O_TMPFILE: a named file, unlinked at once.
    std::string path = dir + "/tigerdoc-spill-XXXXXX";
    fd = ::mkstemp(path.data());
    if (fd < 0) return ErrnoStatus("cannot create spill file in " + dir);
    ::unlink(path.c_str());
  }
  return std::unique_ptr<SpillFile>(new SpillFile(fd));
}

SpillFile::~SpillFile() { ::close(fd_); }

Status SpillFile::Append(std::string_view bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::pwrite(fd_, bytes.data() + done, bytes.size() - done, size_ + static_cast<int64_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoStatus("spill file: write failed");
    done += static_cast<size_t>(n);
  }
  size_ += static_cast<int64_t>(bytes.size());
  return Status::OK();
}

Status SpillFile::ReadAt(int64_t offset, size_t n, char* out) const {
  if (offset < 0 || offset + static_cast<int64_t>(n) > size_) {
    return Status(ErrorCode::kInternalError, "spill file: read past the end");
  }
  size_t got = 0;
  while (got < n) {
    ssize_t r = ::pread(fd_, out + got, n - got, offset + static_cast<int64_t>(got));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return ErrnoStatus("spill file: read failed");
    if (r == 0) return Status(ErrorCode::kInternalError, "spill file: unexpected end");
    got += static_cast<size_t>(r);
  }
  return Status::OK();
}

Status SpillFile::Truncate() {
  if (::ftruncate(fd_, 0) != 0) return ErrnoStatus("spill file: truncate failed");
  size_ = 0;
  return Status::OK();
}

}  // namespace tigerdoc::query
