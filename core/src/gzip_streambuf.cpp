#include "gzip_streambuf.h"

#include <algorithm>
#include <ostream>
#include <stdexcept>
#include <string>

namespace mhcsim::detail {

GzipStreambuf::GzipStreambuf(std::ostream& out) : out_(out) {
  // windowBits 15 + 16: the largest window, with a gzip header and trailer (zlib manual).
  if (deflateInit2(&zs_, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw std::runtime_error("cannot initialise zlib for gzip output");
}

GzipStreambuf::~GzipStreambuf() { deflateEnd(&zs_); }

std::streamsize GzipStreambuf::xsputn(const char* s, std::streamsize n) {
  // zlib counts input in uInt: feed a very large write in pieces.
  for (std::streamsize left = n; left > 0;) {
    const auto piece = std::min<std::streamsize>(left, std::streamsize{1} << 30);
    zs_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(s));
    zs_.avail_in = static_cast<uInt>(piece);
    deflate_all(Z_NO_FLUSH);
    s += piece;
    left -= piece;
  }
  return n;
}

GzipStreambuf::int_type GzipStreambuf::overflow(int_type ch) {
  if (traits_type::eq_int_type(ch, traits_type::eof())) return traits_type::not_eof(ch);
  const char c = traits_type::to_char_type(ch);
  xsputn(&c, 1);
  return ch;
}

void GzipStreambuf::finish() { deflate_all(Z_FINISH); }

void GzipStreambuf::deflate_all(int flush) {
  int rc = Z_OK;
  do {
    zs_.next_out = reinterpret_cast<Bytef*>(block_.data());
    zs_.avail_out = static_cast<uInt>(block_.size());
    rc = deflate(&zs_, flush);
    if (rc == Z_STREAM_ERROR) throw std::runtime_error("zlib deflate failed");
    out_.write(block_.data(), static_cast<std::streamsize>(block_.size() - zs_.avail_out));
  } while (zs_.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
}

}  // namespace mhcsim::detail
