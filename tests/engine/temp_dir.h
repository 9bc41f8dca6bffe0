#pragma once
// TempDir: a fresh directory under the system's temporary directory for a
// test's data files (a WiredTiger home that must survive a reopen),
// removed with everything in it when the TempDir goes.

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <string>

namespace tigerdoc::testing_dirs {

class TempDir {
 public:
  // `prefix` starts the directory's name, e.g. "tigerdoc-cat".
  explicit TempDir(const std::string& prefix) {
    std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
    EXPECT_NE(mkdtemp(pattern.data()), nullptr) << pattern;
    path_ = pattern;
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace tigerdoc::testing_dirs
