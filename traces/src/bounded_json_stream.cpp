#include "bounded_json_stream.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "mhcsim/input_file.h"

namespace mhcsim::traces {
namespace {

// Whitespace and the structural characters: what a run is made of.
constexpr std::array<bool, 256> kRunByte = [] {
  std::array<bool, 256> t{};
  for (const unsigned char c : {' ', '\t', '\n', '\r', '[', ']', '{', '}', ',', ':'}) t[c] = true;
  return t;
}();

}  // namespace

std::string BoundedJsonSource::run_error() const {
  return fmt::format("more than {} in one string, number or run of whitespace and brackets (not a trace)",
                     format_byte_count(max_run_bytes_));
}

void BoundedJsonSource::next(const char*& cur, const char*& end, uintptr_t& offset) {
  if (!error_.empty() || done_) return;
  // The run so far ends at the last byte handed out that is not whitespace or a bracket.
  if (scan_from_ != nullptr)
    for (const char* p = end; p > scan_from_; --p)
      if (!kRunByte[static_cast<unsigned char>(p[-1])]) {
        mark_ = base_ + static_cast<uint64_t>(p - block());
        break;
      }
  size_t at = scan_from_ == nullptr ? 0 : static_cast<size_t>(end - block());
  if (at == filled_) {  // the block is used up: keep its end and read the next one
    const size_t keep = std::min(filled_, kKeepBytes);
    std::memcpy(block() - keep, block() + filled_ - keep, keep);
    kept_from_ = block();  // until the read succeeds: the kept bytes precede the old block's end
    const auto got = source_.sgetn(block(), static_cast<std::streamsize>(kBlockBytes));
    if (got <= 0) {
      done_ = true;
      return;
    }
    kept_from_ = block() - keep;
    base_ += filled_;
    at = 0;
    filled_ = static_cast<size_t>(got);
    bytes_ += filled_;
    if (bytes_ > max_bytes_) {
      error_ = fmt::format(
          "trace is larger than the {} limit of JSON (after decompression; raise it "
          "with --max-trace-bytes)",
          format_byte_count(max_bytes_));
      return;
    }
  }
  // Hand out the block up to max_run_bytes past the mark.
  const uint64_t pos = base_ + at;
  const uint64_t run_end = mark_ + max_run_bytes_;
  if (pos >= run_end) {
    error_ = run_error();
    return;
  }
  const size_t n = static_cast<size_t>(std::min<uint64_t>(filled_ - at, run_end - pos));
  cur = scan_from_ = block() + at;
  end = cur + n;
  offset = static_cast<uintptr_t>(base_) - reinterpret_cast<uintptr_t>(block());
}

}  // namespace mhcsim::traces
