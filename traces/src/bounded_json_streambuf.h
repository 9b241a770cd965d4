#pragma once
// A read-only streambuf between a trace's bytes (plain or inflated) and nlohmann::json's SAX
// parser that bounds what the parser can be made to hold: a 4 MB gzip can inflate to GiBs
// (issue 16, H5), and nlohmann's lexer keeps a whole string or number, and every byte it reads
// after the start of the last one (whitespace, brackets, literals), in memory. The SAX handler
// calls mark() as each string or number ends; the stream hands out at most max_run_bytes past
// the last mark, so the lexer holds at most the last token and max_run_bytes after it. Past
// either limit the stream ends and error() says why (the parser then fails on the cut; the
// caller reports error() instead). Nothing is scanned byte by byte here.
#include <array>
#include <cstdint>
#include <streambuf>
#include <string>

namespace mhcsim::traces {

class BoundedJsonStreambuf : public std::streambuf {
 public:
  BoundedJsonStreambuf(std::streambuf& source, uint64_t max_bytes, uint64_t max_run_bytes)
      : source_(source), max_bytes_(max_bytes), max_run_bytes_(max_run_bytes) {}

  // Empty while within the limits; otherwise which limit was passed.
  const std::string& error() const { return error_; }

  // A string or number ended at the read position: the next run is counted from here.
  void mark() {
    if (gptr() != nullptr) mark_ = base_ + static_cast<uint64_t>(gptr() - block_.data());
  }

 protected:
  int_type underflow() override;

 private:
  static constexpr size_t kBlockBytes = 1 << 16;

  std::streambuf& source_;
  uint64_t max_bytes_;
  uint64_t max_run_bytes_;
  uint64_t bytes_ = 0;  // read from the source
  uint64_t base_ = 0;   // offset of block_[0] in the stream
  uint64_t mark_ = 0;   // offset where the last string or number ended
  size_t filled_ = 0;   // bytes of block_ read from the source (handed out up to egptr())
  std::string error_;
  std::array<char, kBlockBytes> block_{};
};

}  // namespace mhcsim::traces
