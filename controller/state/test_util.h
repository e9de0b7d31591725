// Helpers for unit tests that touch files: a temporary directory removed at
// scope exit, and a file writer.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace clusterctl::testing {

class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "clusterctl-test-XXXXXX").string();
    char* made = ::mkdtemp(pattern.data());
    path_ = made ? made : "";
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Writes `text` and a newline to `path`, creating its directories (sysfs
// and /etc trees for the facts' probes).
inline void WriteFileLine(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path) << text << "\n";
}

}  // namespace clusterctl::testing
