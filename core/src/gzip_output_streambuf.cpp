#include "gzip_output_streambuf.h"

#include <ostream>
#include <stdexcept>

namespace mhcsim::detail {

GzipOutputStreambuf::GzipOutputStreambuf(std::ostream& out) : out_(out) {
  // windowBits 15 + 16: the largest window, with a gzip header and trailer (zlib manual).
  if (deflateInit2(&zs_, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw std::runtime_error("cannot initialise zlib for gzip output");
  setp(in_.data(), in_.data() + in_.size());
}

GzipOutputStreambuf::~GzipOutputStreambuf() { deflateEnd(&zs_); }

GzipOutputStreambuf::int_type GzipOutputStreambuf::overflow(int_type ch) {
  if (finished_) throw std::logic_error("gzip output written after its trailer");
  deflate_buffered(Z_NO_FLUSH);
  if (!traits_type::eq_int_type(ch, traits_type::eof())) {
    *pptr() = traits_type::to_char_type(ch);
    pbump(1);
  }
  return traits_type::not_eof(ch);
}

void GzipOutputStreambuf::finish() {
  if (finished_) return;
  deflate_buffered(Z_FINISH);
  finished_ = true;
  setp(nullptr, nullptr);  // so that the next write reaches overflow(), which refuses it
}

void GzipOutputStreambuf::deflate_buffered(int flush) {
  zs_.next_in = reinterpret_cast<Bytef*>(pbase());
  zs_.avail_in = static_cast<uInt>(pptr() - pbase());
  int rc = Z_OK;
  do {
    zs_.next_out = reinterpret_cast<Bytef*>(block_.data());
    zs_.avail_out = static_cast<uInt>(block_.size());
    rc = deflate(&zs_, flush);
    if (rc == Z_STREAM_ERROR) throw std::runtime_error("zlib deflate failed");
    out_.write(block_.data(), static_cast<std::streamsize>(block_.size() - zs_.avail_out));
  } while (zs_.avail_in > 0 || zs_.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
  setp(in_.data(), in_.data() + in_.size());
}

}  // namespace mhcsim::detail
