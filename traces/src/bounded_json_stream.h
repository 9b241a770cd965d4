#pragma once
// The input of RapidJSON's SAX reader for a trace: the trace's bytes (plain or inflated) in
// 64 KiB blocks, within bounds on what a hostile file can make the reader hold or do (issue 16,
// H5: a 4 MB gzip can inflate to GiBs).
//   - Bytes after decompression: at most max_bytes; past it the stream ends and error() says so.
//   - Runs of whitespace and brackets (and commas and colons): at most max_run_bytes after the
//     last byte of anything else (a string, number or literal); checked as each block is handed
//     out, by scanning the block back from its end, so nothing is scanned per byte on the way.
//   - Strings (and keys): RapidJSON copies each onto its stack; TokenStackAllocator refuses to
//     grow that stack past twice max_run_bytes, and the reader's handler refuses a string
//     longer than max_run_bytes, so memory stays bounded whatever the input. Numbers are not
//     held (their digits go by as the parser reads them).
// The parser then fails on the cut; the caller reports error() instead.
#include <rapidjson/reader.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include <array>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <streambuf>
#include <string>
#include <string_view>

namespace mhcsim::traces {

// The blocks of one trace, handed out to a BoundedJsonStream.
class BoundedJsonSource {
 public:
  BoundedJsonSource(std::streambuf& source, uint64_t max_bytes, uint64_t max_run_bytes)
      : source_(source), max_bytes_(max_bytes), max_run_bytes_(max_run_bytes) {}
  BoundedJsonSource(const BoundedJsonSource&) = delete;
  BoundedJsonSource& operator=(const BoundedJsonSource&) = delete;

  // Empty while within the limits; otherwise which limit was passed.
  const std::string& error() const { return error_; }
  // The message of the run limit (also that of a string past max_run_bytes).
  std::string run_error() const;

  // Everything handed out so far, up to `end`, was read: hands out the next bytes as [cur, end)
  // and `offset`, the stream offset of cur minus its address; leaves cur == end at the end of
  // the input or past a limit.
  void next(const char*& cur, const char*& end, uintptr_t& offset);

  // Bytes before the current block stay readable this far back: the last kKeepBytes of the
  // block before (so that the text of a number that ends at the start of a block can be read).
  const char* kept_from() const { return kept_from_; }
  static constexpr size_t kKeepBytes = 1024;

 private:
  static constexpr size_t kBlockBytes = size_t{1} << 16;
  char* block() { return buffer_.data() + kKeepBytes; }

  std::streambuf& source_;
  uint64_t max_bytes_;
  uint64_t max_run_bytes_;
  uint64_t bytes_ = 0;               // read from the source
  uint64_t base_ = 0;                // offset of block_[0] in the stream
  uint64_t mark_ = 0;                // offset just past the last byte not in a run
  size_t filled_ = 0;                // bytes of block_ read from the source
  const char* scan_from_ = nullptr;  // start of the bytes handed out last
  bool done_ = false;                // the source is used up
  std::string error_;
  std::array<char, kKeepBytes + kBlockBytes> buffer_{};  // kept bytes, then the block
  const char* kept_from_ = buffer_.data() + kKeepBytes;
};

// RapidJSON's input stream concept (Peek, Take, Tell) over a BoundedJsonSource: a pointer pair
// into the current block; '\0' at the end of the input, as RapidJSON expects (a NUL byte in the
// input reads alike: at_end() tells them apart). Not an output stream: in-situ parsing
// (kParseInsituFlag) is not supported.
class BoundedJsonStream {
 public:
  using Ch = char;
  explicit BoundedJsonStream(BoundedJsonSource& source) : source_(&source) {}

  RAPIDJSON_FORCEINLINE Ch Peek() const {
    if (cur_ == end_) [[unlikely]]
      return refill();
    return *cur_;
  }
  RAPIDJSON_FORCEINLINE Ch Take() {
    if (cur_ == end_) [[unlikely]] {
      refill();
      if (cur_ == end_) return '\0';
    }
    return *cur_++;
  }
  size_t Tell() const { return static_cast<size_t>(reinterpret_cast<uintptr_t>(cur_) + offset_); }
  // True when the input is used up (or cut by a limit), not at a NUL byte.
  bool at_end() const { return Peek() == '\0' && cur_ == end_; }

  // The text of the number that ends where the stream is (RapidJSON's Double() is called there),
  // or empty when it started more than BoundedJsonSource::kKeepBytes before the block.
  std::string_view number_before() const {
    const char* p = cur_;
    const char* const from = source_->kept_from();
    const auto number_byte = [](char c) {
      return (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E';
    };
    while (p != from && number_byte(p[-1])) --p;
    if (p == from || p == cur_) return {};
    return {p, static_cast<size_t>(cur_ - p)};
  }

  // The bytes of the block not read yet, for the bulk paths below; skip_to(p) reads up to p.
  const char* buffered() const { return cur_; }
  const char* buffered_end() const { return end_; }
  void skip_to(const char* p) { cur_ = p; }

  Ch* PutBegin() {
    assert(false);
    return nullptr;
  }
  void Put(Ch) { assert(false); }
  void Flush() {}
  size_t PutEnd(Ch*) {
    assert(false);
    return 0;
  }

 private:
  // The next block's first byte, or '\0' (leaving cur_ == end_) at the end.
  [[gnu::noinline]] Ch refill() const {
    source_->next(cur_, end_, offset_);
    return cur_ == end_ ? '\0' : *cur_;
  }

  mutable const char* cur_ = nullptr;
  mutable const char* end_ = nullptr;
  mutable uintptr_t offset_ = 0;  // Tell() = cur_ + offset_ (modulo 2^64)
  BoundedJsonSource* source_;
};

// Thrown by TokenStackAllocator when RapidJSON's stack would pass its limit.
struct TokenTooLong {};

// RapidJSON's allocator concept for the reader's stack (which holds the string being
// read): malloc, but never more than max_bytes in one block.
class TokenStackAllocator {
 public:
  static const bool kNeedFree = true;
  explicit TokenStackAllocator(size_t max_bytes = 0) : max_bytes_(max_bytes) {}
  void* Malloc(size_t size) { return Realloc(nullptr, 0, size); }
  void* Realloc(void* p, size_t, size_t size) {
    if (size == 0) {
      std::free(p);
      return nullptr;
    }
    if (size > max_bytes_) throw TokenTooLong{};
    void* q = std::realloc(p, size);
    if (q == nullptr) throw std::bad_alloc();
    return q;
  }
  static void Free(void* p) { std::free(p); }

 private:
  size_t max_bytes_;
};

}  // namespace mhcsim::traces

// RapidJSON copies a stream with copyOptimization into each call that skips whitespace or reads
// a string or number, and back: for this 32-byte stream the copies stalled on store forwarding
// (the reader ran at half the speed it does by reference).
namespace rapidjson {
template <>
struct StreamTraits<mhcsim::traces::BoundedJsonStream> {
  enum { copyOptimization = 0 };
};

// RapidJSON reads a byte at a time through Peek() and Take() except where a stream type brings
// a bulk path; it has them for its in-memory streams only. These two give BoundedJsonStream the
// same: whitespace skipped a block at a time, and the plain part of a string (up to a quote,
// backslash or control character) copied onto the reader's stack at once, which makes strings
// (kernel names) several times faster to read. Both are explicit specializations of RapidJSON
// 1.1.0's templates (SkipWhitespace, GenericReader::ScanCopyUnescapedString).
template <>
inline void SkipWhitespace(mhcsim::traces::BoundedJsonStream& is) {
  for (;;) {
    const char* p = SkipWhitespace(is.buffered(), is.buffered_end());
    is.skip_to(p);
    if (p != is.buffered_end() || is.Peek() == '\0') return;
  }
}

using TraceReader = GenericReader<UTF8<>, UTF8<>, mhcsim::traces::TokenStackAllocator>;

template <>
template <>
inline void TraceReader::ScanCopyUnescapedString(mhcsim::traces::BoundedJsonStream& is, StackStream<char>& os) {
  const char* const begin = is.buffered();
  const char* const end = is.buffered_end();
  const char* p = begin;
#ifdef __SSE2__
  // 16 bytes at a time (SSE2 is part of x86-64), never reading past the block's end.
  const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), space = _mm_set1_epi8(0x20);
  const __m128i flip = _mm_set1_epi8(static_cast<char>(0x80));  // unsigned < 0x20 as signed compare
  for (; end - p >= 16; p += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i stop = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
                                      _mm_cmplt_epi8(_mm_xor_si128(v, flip), _mm_xor_si128(space, flip)));
    if (const int mask = _mm_movemask_epi8(stop); mask != 0) {
      p += __builtin_ctz(static_cast<unsigned>(mask));
      break;
    }
  }
#endif
  while (p != end) {
    const auto c = static_cast<unsigned char>(*p);
    if (c == '"' || c == '\\' || c < 0x20) break;
    ++p;
  }
  if (p == begin) return;
  const auto n = static_cast<SizeType>(p - begin);
  std::memcpy(os.Push(n), begin, n);
  is.skip_to(p);
}
}  // namespace rapidjson
