#include "mhcsim/atomic_write.h"

#include "gzip_output_streambuf.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>
#include <zlib.h>

#include <array>
#include <cerrno>
#include <ostream>
#include <stdexcept>
#include <streambuf>
#include <system_error>

#include "mhcsim/error.h"
#include "mhcsim/version.h"
#include "output_paths.h"

namespace mhcsim {
namespace fs = std::filesystem;

namespace {

// An ostream buffer over a file descriptor: a stream cannot say why a write failed (errno) or
// be fsync'ed, this can. It also hashes what passes, for manifests.
class FdBuf : public std::streambuf {
 public:
  explicit FdBuf(int fd) : fd_(fd) { setp(buffer_.data(), buffer_.data() + buffer_.size()); }
  int error() const { return error_; }
  const WrittenFile& written() const { return written_; }

 protected:
  int_type overflow(int_type ch) override {
    if (!drain()) return traits_type::eof();
    if (traits_type::eq_int_type(ch, traits_type::eof())) return traits_type::not_eof(ch);
    *pptr() = traits_type::to_char_type(ch);
    pbump(1);
    return ch;
  }
  int sync() override { return drain() ? 0 : -1; }

 private:
  bool drain() {
    for (const char* p = pbase(); p < pptr();) {
      const ssize_t n = ::write(fd_, p, static_cast<size_t>(pptr() - p));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        error_ = n < 0 ? errno : EIO;
        return false;
      }
      hash(p, static_cast<size_t>(n));
      p += n;
    }
    setp(buffer_.data(), buffer_.data() + buffer_.size());
    return true;
  }
  void hash(const char* p, size_t n) {
    written_.fnv1a64 = fnv1a64_update(written_.fnv1a64, std::string_view(p, n));
    written_.bytes += n;
  }

  int fd_;
  int error_ = 0;
  WrittenFile written_{0, kFnv1a64Offset};
  std::array<char, 1 << 16> buffer_;
};

struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

// Writes `write`'s output to `temp` and flushes it to disk. Errors name `target`: the temp
// file is an implementation detail the user never chose.
WrittenFile write_temp(const fs::path& target, const fs::path& temp, const WriteFn& write) {
  Fd f{::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666)};
  if (f.fd < 0) detail::path_error(target, "cannot create", errno);
  FdBuf buf(f.fd);
  std::ostream out(&buf);
  write(out);
  out.flush();
  const auto fail = [&](int err) {
    throw std::runtime_error(
        fmt::format("{}: cannot write ({})", target.string(), std::generic_category().message(err)));
  };
  if (buf.error() || !out) fail(buf.error() ? buf.error() : EIO);
  if (::fsync(f.fd) != 0) fail(errno);
  const int fd = f.fd;
  f.fd = -1;
  if (::close(fd) != 0) fail(errno);
  return buf.written();
}

}  // namespace

uint64_t fnv1a64_update(uint64_t h, std::string_view bytes) {
  constexpr uint64_t kPrime = 0x100000001b3;
  for (const char c : bytes) h = (h ^ static_cast<unsigned char>(c)) * kPrime;
  return h;
}

std::string written_by(std::string_view verb) { return fmt::format("mhcsim {} {}", verb, kVersion); }

std::string with_written_by(std::string_view object, std::string_view verb) {
  const auto open = object.find('{');
  if (open == std::string_view::npos) throw std::logic_error("with_written_by: not a JSON object");
  const auto rest = object.substr(open + 1);
  const auto first = rest.find_first_not_of(" \n\t\r");
  const bool empty = first == std::string_view::npos || rest[first] == '}';
  return fmt::format("{{\"written_by\": \"{}\"{}{}", written_by(verb), empty ? "" : ",", rest);
}

bool written_by_mhcsim(const fs::path& path, std::string_view verb) {
  constexpr int kHead = 512;
  std::array<char, kHead> head{};
  int n = 0;
  // Only a regular file is read (a symbolic link to a FIFO would block the open).
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return false;
  // gzopen reads a plain file as it is and a gzip file decompressed.
  if (gzFile f = gzopen(path.c_str(), "rb")) {
    n = gzread(f, head.data(), kHead);
    gzclose(f);
  }
  if (n <= 0) return false;
  const std::string_view text(head.data(), static_cast<size_t>(n));
  const std::string value = fmt::format("\"mhcsim {} ", verb);
  return text.find("\"written_by\": " + value) != std::string_view::npos ||
         text.find("\"written_by\":" + value) != std::string_view::npos;
}

void require_output_file(const fs::path& path, bool replace, const char* option, const OwnedFileFn& owned,
                         std::string_view owner) {
  if (path.empty()) throw InputError(option, "empty path (expected a file name)");
  if (!path.has_filename() || path.filename() == "." || path.filename() == "..")
    throw InputError(option, fmt::format("'{}' names a directory (expected a file name)", path.string()));
  std::error_code ec;
  // The rename replaces what is there: a regular file or a symbolic link is fine, a device, a
  // FIFO or a directory is not (`-o /dev/null` must not replace the device node).
  const auto type = fs::symlink_status(path, ec).type();
  if (type != fs::file_type::regular && type != fs::file_type::symlink && type != fs::file_type::not_found &&
      type != fs::file_type::none)
    throw InputError(
        option, fmt::format("'{}' is {} (expected a regular file to write)", path.string(), detail::type_name(type)));
  if (type == fs::file_type::not_found || type == fs::file_type::none) return;
  const std::string force = detail::force_switch(option);
  if (!replace) throw InputError(option, fmt::format("'{}' exists (use {} to replace it)", path.string(), force));
  if (owned && !owned(path))
    throw InputError(option, fmt::format("'{}' was not written by {}: {} replaces only its outputs "
                                         "(expected another name)",
                                         path.string(), owner, force));
}

void require_output_file(const fs::path& path, bool replace, const char* option, std::string_view verb) {
  require_output_file(
      path, replace, option, [&](const fs::path& p) { return written_by_mhcsim(p, verb); },
      fmt::format("mhcsim {}", verb));
}

std::vector<fs::path> leftover_temporaries(const fs::path& target) { return detail::leftovers(target, "tmp"); }

OutputBatch::~OutputBatch() {
  std::error_code ignored;
  for (const auto& p : pending_) fs::remove(p.temp, ignored);
}

WrittenFile OutputBatch::add(const fs::path& path, const WriteFn& write) {
  // Checked here too, not only by the CLI: a rename onto /dev/null would replace the device.
  // Whether an existing file may be replaced is its caller's question, asked before the work.
  require_output_file(path, true, "", {}, "");
  detail::make_folder(path);
  detail::clean_stale(path);
  pending_.push_back({path, detail::sibling(path, "tmp")});
  return write_temp(path, pending_.back().temp, write);
}

void OutputBatch::commit() {
  for (const auto& p : pending_) {
    detail::fault_point(p.target);
    std::error_code ec;
    fs::rename(p.temp, p.target, ec);
    if (ec) detail::path_error(p.target, "cannot replace", ec.value());
    detail::sync_directory(detail::output_folder(p.target));
  }
  pending_.clear();
}

WrittenFile write_file_atomically(const fs::path& path, const WriteFn& write) {
  OutputBatch batch;
  const WrittenFile w = batch.add(path, write);
  batch.commit();
  return w;
}

void write_file_atomically_gzip_by_name(const fs::path& path, const WriteFn& write) {
  if (path.extension() != ".gz") {
    write_file_atomically(path, write);
    return;
  }
  write_file_atomically(path, [&](std::ostream& out) {
    detail::GzipOutputStreambuf gz(out);
    std::ostream zipped(&gz);
    zipped.exceptions(std::ios::badbit);  // a deflate error ends the write, not just the stream
    write(zipped);
    gz.finish();
  });
}

WrittenFile write_file_atomically(const fs::path& path, std::string_view contents) {
  return write_file_atomically(
      path, [&](std::ostream& out) { out.write(contents.data(), static_cast<std::streamsize>(contents.size())); });
}

}  // namespace mhcsim
