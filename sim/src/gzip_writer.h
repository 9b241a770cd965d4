#pragma once
// Deflates what it is given into one gzip member on an output stream, block by block, so a
// large trace never sits in memory compressed and uncompressed at once. The read side is
// traces/src/gzip_streambuf.h.
#include <zlib.h>

#include <array>
#include <iosfwd>
#include <string_view>

namespace mhcsim::sim::detail {

class GzipWriter {
 public:
  explicit GzipWriter(std::ostream& out);  // throws std::runtime_error if zlib cannot start
  ~GzipWriter();
  GzipWriter(const GzipWriter&) = delete;
  GzipWriter& operator=(const GzipWriter&) = delete;

  void write(std::string_view data);
  void finish();  // writes the gzip trailer; nothing may be written after it

 private:
  void deflate_all(int flush);

  std::ostream& out_;
  z_stream zs_{};
  std::array<char, 1 << 16> block_{};
};

}  // namespace mhcsim::sim::detail
