#include "bounded_json_streambuf.h"

#include <fmt/format.h>

#include <algorithm>

#include "mhcsim/input_file.h"

namespace mhcsim::traces {

BoundedJsonStreambuf::int_type BoundedJsonStreambuf::underflow() {
  if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
  if (!error_.empty()) return traits_type::eof();
  size_t at = eback() == nullptr ? 0 : static_cast<size_t>(gptr() - block_.data());
  if (at == filled_) {  // the block is used up: read the next one
    base_ += filled_;
    at = filled_ = 0;
    const auto got = source_.sgetn(block_.data(), static_cast<std::streamsize>(block_.size()));
    if (got <= 0) return traits_type::eof();
    filled_ = static_cast<size_t>(got);
    bytes_ += filled_;
    if (bytes_ > max_bytes_) {
      error_ = fmt::format(
          "trace is larger than the {} limit of JSON (after decompression; raise it "
          "with --max-trace-bytes)",
          format_byte_count(max_bytes_));
      return traits_type::eof();
    }
  }
  // Hand out the block up to max_run_bytes past the last mark.
  const uint64_t pos = base_ + at;
  const uint64_t run_end = mark_ + max_run_bytes_;
  if (pos >= run_end) {
    error_ = fmt::format("more than {} in one string, number or run of whitespace and brackets (not a trace)",
                         format_byte_count(max_run_bytes_));
    return traits_type::eof();
  }
  const size_t n = static_cast<size_t>(std::min<uint64_t>(filled_ - at, run_end - pos));
  setg(block_.data(), block_.data() + at, block_.data() + at + n);
  return traits_type::to_int_type(*gptr());
}

}  // namespace mhcsim::traces
