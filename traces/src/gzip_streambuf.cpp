#include "gzip_streambuf.h"

#include <cstring>

namespace mhcsim::traces {

GzipStreambuf::GzipStreambuf(std::streambuf& source) : source_(source) {
  // 15 + 32: maximum window, and detect a gzip or zlib header automatically (zlib manual).
  if (inflateInit2(&zs_, 15 + 32) != Z_OK) error_ = "cannot initialise zlib";
  setg(out_.data(), out_.data(), out_.data());
}

GzipStreambuf::~GzipStreambuf() { inflateEnd(&zs_); }

bool GzipStreambuf::refill_input() {
  const auto n = source_.sgetn(in_.data(), static_cast<std::streamsize>(in_.size()));
  zs_.next_in = reinterpret_cast<Bytef*>(in_.data());
  zs_.avail_in = static_cast<uInt>(n > 0 ? n : 0);
  return zs_.avail_in > 0;
}

GzipStreambuf::int_type GzipStreambuf::underflow() {
  if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
  while (error_.empty()) {
    if (zs_.avail_in == 0 && !refill_input()) {
      if (!member_done_) error_ = "truncated gzip stream (ends inside compressed data)";
      break;
    }
    if (member_done_) {  // concatenated gzip members decode as one stream (gzip(1) does too)
      if (inflateReset(&zs_) != Z_OK) {
        error_ = "cannot reset zlib";
        break;
      }
      member_done_ = false;
    }
    zs_.next_out = reinterpret_cast<Bytef*>(out_.data());
    zs_.avail_out = static_cast<uInt>(out_.size());
    const int rc = inflate(&zs_, Z_NO_FLUSH);
    if (rc == Z_STREAM_END) member_done_ = true;
    const size_t produced = out_.size() - zs_.avail_out;
    if (rc != Z_OK && rc != Z_STREAM_END && !(rc == Z_BUF_ERROR && produced > 0))
      error_ = std::string("corrupt gzip data (") + (zs_.msg ? zs_.msg : "no progress") + ")";
    if (produced > 0) {
      setg(out_.data(), out_.data(), out_.data() + produced);
      return traits_type::to_int_type(*gptr());
    }
  }
  return traits_type::eof();
}

bool starts_with_gzip_magic(std::streambuf& source) {
  const auto first = source.sgetc();
  if (first != 0x1f) return false;
  // Peek the second byte without consuming: read it, then put both back.
  source.sbumpc();
  const auto second = source.sgetc();
  source.sungetc();
  return second == 0x8b;
}

}  // namespace mhcsim::traces
