#include "mhcsim/input_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <iterator>
#include <streambuf>

#include "mhcsim/error.h"

namespace mhcsim {
namespace {

std::string file_type_problem(const struct stat& st) {
  if (S_ISREG(st.st_mode)) return "";
  const char* what = S_ISDIR(st.st_mode)    ? "a directory"
                     : S_ISFIFO(st.st_mode) ? "a FIFO"
                     : S_ISCHR(st.st_mode)  ? "a character device"
                     : S_ISBLK(st.st_mode)  ? "a block device"
                     : S_ISSOCK(st.st_mode) ? "a socket"
                                            : "a special file";
  return fmt::format("{}, not a regular file", what);
}

std::string too_large(const InputKind& kind, uint64_t bytes) {
  return fmt::format("{} is larger than the {} limit ({} bytes{}){}", kind.what, format_byte_count(kind.max_bytes),
                     bytes, bytes > kind.max_bytes ? "" : " or more",
                     kind.raise_flag.empty() ? "" : fmt::format(" (raise it with {})", kind.raise_flag));
}

}  // namespace

// Reads the descriptor in blocks and stops at the byte limit: what it has read so far is all
// the parser sees, and error() says why it stopped early.
class InputFile::Buffer : public std::streambuf {
 public:
  Buffer(int fd, uint64_t max_bytes) : fd_(fd), max_bytes_(max_bytes) {}
  ~Buffer() override { ::close(fd_); }
  const std::string& error() const { return error_; }
  bool over_limit() const { return bytes_read_ > max_bytes_; }
  uint64_t bytes_read() const { return bytes_read_; }

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    if (!error_.empty()) return traits_type::eof();
    ssize_t n;
    do n = ::read(fd_, block_.data(), block_.size());
    while (n < 0 && errno == EINTR);
    if (n < 0) error_ = std::strerror(errno);
    if (n <= 0) return traits_type::eof();
    bytes_read_ += static_cast<uint64_t>(n);
    if (over_limit()) {  // the file grew after fstat()
      error_ = "grew past its size limit while being read";
      return traits_type::eof();
    }
    setg(block_.data(), block_.data(), block_.data() + n);
    return traits_type::to_int_type(*gptr());
  }

 private:
  int fd_;
  uint64_t max_bytes_;
  uint64_t bytes_read_ = 0;
  std::string error_;
  std::array<char, 1 << 16> block_{};
};

std::string input_file_problem(const std::filesystem::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::strerror(errno);
  return file_type_problem(st);
}

std::string format_byte_count(uint64_t bytes) {
  constexpr uint64_t kMiBBytes = uint64_t{1} << 20, kGiBBytes = uint64_t{1} << 30;
  if (bytes >= kGiBBytes && bytes % kGiBBytes == 0) return fmt::format("{} GiB", bytes / kGiBBytes);
  if (bytes >= kMiBBytes && bytes % kMiBBytes == 0) return fmt::format("{} MiB", bytes / kMiBBytes);
  return fmt::format("{} bytes", bytes);
}

InputFile::InputFile(const std::filesystem::path& path, InputKind kind)
    : path_(path.string()), kind_(std::move(kind)), stream_(nullptr) {
  // stat() first so a FIFO is refused without opening it; open with O_NONBLOCK anyway and
  // check the descriptor again, in case the path was replaced by a FIFO in between.
  if (const std::string problem = input_file_problem(path); !problem.empty()) cannot_open(problem);
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) cannot_open(std::strerror(errno));
  buffer_ = std::make_unique<Buffer>(fd, kind_.max_bytes);  // owns fd from here on
  struct stat st {};
  if (::fstat(fd, &st) != 0) cannot_open(std::strerror(errno));
  if (const std::string problem = file_type_problem(st); !problem.empty()) cannot_open(problem);
  size_bytes_ = static_cast<uint64_t>(st.st_size);
  if (size_bytes_ > kind_.max_bytes) fail(too_large(kind_, size_bytes_));
  stream_.rdbuf(buffer_.get());
}

InputFile::~InputFile() = default;

const std::string& InputFile::stream_error() const { return buffer_->error(); }

void InputFile::fail(const std::string& reason) const { throw InputError(kind_.key, reason, {path_, 0}); }

void InputFile::cannot_open(const std::string& problem) const {
  fail(fmt::format("cannot open {} ({})", kind_.what, problem));
}

std::string InputFile::read_all() {
  std::string text;
  text.reserve(size_bytes_);
  text.assign(std::istreambuf_iterator<char>(stream_), std::istreambuf_iterator<char>());
  if (buffer_->over_limit()) fail(too_large(kind_, buffer_->bytes_read()));
  if (!stream_error().empty()) fail(fmt::format("cannot read {} ({})", kind_.what, stream_error()));
  return text;
}

std::string read_input_file(const std::filesystem::path& path, const InputKind& kind) {
  return InputFile(path, kind).read_all();
}

}  // namespace mhcsim
