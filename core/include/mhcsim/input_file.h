#pragma once
// Every input file (scenario, patterns, benchmark JSON, calibration profile, trace) is opened
// here. The parsers behind them read until end of file, so a device (/dev/zero) would be read
// forever, a FIFO blocks open() until a writer comes, and a huge file exhausts memory: only
// regular files are opened, and their size is checked against a limit before the first byte
// is read (issue 16, H2, H3, H5).
#include <cstdint>
#include <filesystem>
#include <istream>
#include <memory>
#include <string>
#include <string_view>

namespace mhcsim {

// Files people write (scenarios, patterns): the shipped ones are a few KB.
inline constexpr uint64_t kMaxHandWrittenInputBytes = uint64_t{1} << 20;  // 1 MiB
// JSON read into a DOM (benchmark output, calibration profiles; the largest real ones are a
// few MB): nlohmann::json takes up to ~16 bytes per byte of input, so 16 MiB stays < 256 MiB.
inline constexpr uint64_t kMaxJsonDocumentBytes = uint64_t{16} << 20;  // 16 MiB

struct InputKind {
  std::string_view what;  // "scenario file": named in every message
  uint64_t max_bytes = kMaxHandWrittenInputBytes;
  std::string_view raise_flag{};  // the flag that raises max_bytes, named when it is exceeded
  std::string key{};              // InputError key (e.g. "calibration.profile"); may be empty
};

// Why `path` cannot be an input file, or empty when it is a regular file: the OS reason when
// it cannot be stat()ed ("No such file or directory"), else what it is ("a FIFO, not a
// regular file"). Never opens the path, so a FIFO cannot block.
std::string input_file_problem(const std::filesystem::path& path);

// "1 MiB", "4 GiB" for whole binary units, else "123456 bytes".
std::string format_byte_count(uint64_t bytes);

// An open regular file of at most kind.max_bytes. Reads never go past the limit, even when
// the file grows after it was opened.
class InputFile {
 public:
  // Throws InputError(kind.key, reason, {path, 0}) when the file cannot be opened, is not a
  // regular file, or is larger than kind.max_bytes.
  InputFile(const std::filesystem::path& path, InputKind kind);
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  uint64_t size_bytes() const { return size_bytes_; }
  // Buffered reads; a read error or growth past the limit ends the stream and is kept in
  // stream_error(), which callers check when their parser stops early.
  std::istream& stream() { return stream_; }
  const std::string& stream_error() const;
  // The whole file; throws InputError on a read error or growth past the limit.
  std::string read_all();
  // Throws InputError naming the file with `reason` (for parsers that stop on a stream_error).
  [[noreturn]] void fail(const std::string& reason) const;

 private:
  class Buffer;
  [[noreturn]] void cannot_open(const std::string& problem) const;
  std::string path_;
  InputKind kind_;
  uint64_t size_bytes_ = 0;
  std::unique_ptr<Buffer> buffer_;
  std::istream stream_;
};

// InputFile(path, kind).read_all().
std::string read_input_file(const std::filesystem::path& path, const InputKind& kind);

}  // namespace mhcsim
