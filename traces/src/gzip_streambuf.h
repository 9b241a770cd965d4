#pragma once
// A read-only streambuf that inflates a gzip (or zlib) stream from another streambuf in
// fixed-size blocks, so decompressed data never sits in memory whole. Errors are recorded and
// end the stream (the caller asks error() after reading) instead of throwing through the
// JSON parser that consumes it.
#include <zlib.h>

#include <array>
#include <streambuf>
#include <string>

namespace mhcsim::traces {

class GzipStreambuf : public std::streambuf {
 public:
  explicit GzipStreambuf(std::streambuf& source);
  ~GzipStreambuf() override;
  GzipStreambuf(const GzipStreambuf&) = delete;
  GzipStreambuf& operator=(const GzipStreambuf&) = delete;

  // Empty while the stream is good; otherwise why decompression stopped.
  const std::string& error() const { return error_; }

 protected:
  int_type underflow() override;

 private:
  static constexpr size_t kBlockBytes = 1 << 16;
  bool refill_input();

  std::streambuf& source_;
  z_stream zs_{};
  bool member_done_ = false;  // the current gzip member ended (another may follow)
  std::string error_;
  std::array<char, kBlockBytes> in_{};
  std::array<char, kBlockBytes> out_{};
};

// True when the next two bytes of `source` are the gzip magic 1f 8b (nothing is consumed).
bool starts_with_gzip_magic(std::streambuf& source);

}  // namespace mhcsim::traces
