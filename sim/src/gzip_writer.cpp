#include "gzip_writer.h"

#include <algorithm>
#include <ostream>
#include <stdexcept>
#include <string>

namespace mhcsim::sim::detail {

GzipWriter::GzipWriter(std::ostream& out) : out_(out) {
  // windowBits 15 + 16: the largest window, with a gzip header and trailer (zlib manual).
  if (deflateInit2(&zs_, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw std::runtime_error("cannot initialise zlib for gzip output");
}

GzipWriter::~GzipWriter() { deflateEnd(&zs_); }

void GzipWriter::write(std::string_view data) {
  // zlib counts input in uInt: feed a very large view in pieces.
  while (!data.empty()) {
    const size_t n = std::min<size_t>(data.size(), 1u << 30);
    zs_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
    zs_.avail_in = static_cast<uInt>(n);
    deflate_all(Z_NO_FLUSH);
    data.remove_prefix(n);
  }
}

void GzipWriter::finish() { deflate_all(Z_FINISH); }

void GzipWriter::deflate_all(int flush) {
  int rc = Z_OK;
  do {
    zs_.next_out = reinterpret_cast<Bytef*>(block_.data());
    zs_.avail_out = static_cast<uInt>(block_.size());
    rc = deflate(&zs_, flush);
    if (rc == Z_STREAM_ERROR) throw std::runtime_error("zlib deflate failed");
    out_.write(block_.data(), static_cast<std::streamsize>(block_.size() - zs_.avail_out));
  } while (zs_.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
}

}  // namespace mhcsim::sim::detail
