#pragma once
// A stream buffer that deflates what is written through it into one gzip member on another
// stream, block by block, so a large trace never sits in memory compressed and uncompressed at
// once. The read side is traces/src/gzip_streambuf.h.
#include <zlib.h>

#include <array>
#include <iosfwd>
#include <streambuf>

namespace mhcsim::detail {

class GzipStreambuf : public std::streambuf {
 public:
  explicit GzipStreambuf(std::ostream& out);  // throws std::runtime_error if zlib cannot start
  ~GzipStreambuf() override;
  GzipStreambuf(const GzipStreambuf&) = delete;
  GzipStreambuf& operator=(const GzipStreambuf&) = delete;

  void finish();  // writes the gzip trailer; nothing may be written after it

 protected:
  std::streamsize xsputn(const char* s, std::streamsize n) override;
  int_type overflow(int_type ch) override;

 private:
  void deflate_all(int flush);

  std::ostream& out_;
  z_stream zs_{};
  std::array<char, 1 << 16> block_{};
};

}  // namespace mhcsim::detail
