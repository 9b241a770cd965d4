#pragma once
// A file in a fresh temporary directory, removed with it.
#include <filesystem>
#include <fstream>
#include <string>

namespace mhcsim::test {

class TempFile {
 public:
  TempFile(const std::string& name, const std::string& contents) {
    static int counter = 0;
    dir_ = std::filesystem::temp_directory_path() /
           ("mhcsim_serving_" + std::to_string(reinterpret_cast<uintptr_t>(this)) + "_" + std::to_string(++counter));
    std::filesystem::create_directories(dir_);
    path_ = dir_ / name;
    std::ofstream(path_) << contents;
  }
  ~TempFile() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::string str() const { return path_.string(); }

 private:
  std::filesystem::path dir_, path_;
};

}  // namespace mhcsim::test
