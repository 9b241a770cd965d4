#pragma once
// A stream buffer that deflates what is written through it into one gzip member on another
// stream, a 64 KiB block at a time, so a large trace never sits in memory compressed and
// uncompressed at once. The read side is traces/src/gzip_streambuf.h.
#include <zlib.h>

#include <array>
#include <iosfwd>
#include <streambuf>

namespace mhcsim::detail {

class GzipOutputStreambuf : public std::streambuf {
 public:
  explicit GzipOutputStreambuf(std::ostream& out);  // throws std::runtime_error if zlib cannot start
  ~GzipOutputStreambuf() override;
  GzipOutputStreambuf(const GzipOutputStreambuf&) = delete;
  GzipOutputStreambuf& operator=(const GzipOutputStreambuf&) = delete;

  // Deflates what is buffered and writes the gzip trailer; writing after it throws.
  void finish();

 protected:
  // The inherited sync() does nothing: blocks are deflated whole until finish(), as a flush
  // mid-stream would cost compression.
  int_type overflow(int_type ch) override;

 private:
  void deflate_buffered(int flush);

  std::ostream& out_;
  z_stream zs_{};
  bool finished_ = false;
  std::array<char, 1 << 16> in_{};
  std::array<char, 1 << 16> block_{};
};

}  // namespace mhcsim::detail
