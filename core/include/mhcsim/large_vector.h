#pragma once
// Arrays of millions of elements (a trace's kernels, launches and names) on transparent huge
// pages. Such arrays are written once, front to back, and every 4 KiB page pays a page fault
// on first touch: on the 2-core development VM, `compare`'s bench spent ~20% of its time in
// them (perf), and glibc's own glibc.malloc.hugetlb=1 tunable, which advises huge pages for
// every mmap'd chunk, made it 1.6x faster. Linux backs a madvise(MADV_HUGEPAGE) range with
// 2 MiB pages when THP is "madvise" (Debian's default) or "always"; elsewhere the advice is
// ignored and the allocation behaves like any other.
#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace mhcsim {

inline constexpr size_t kHugePageBytes = size_t{2} << 20;

// Allocations of at least one huge page are aligned to one and advised; smaller ones are
// std::allocator's (rounding them up would waste more than the faults cost).
template <class T>
struct HugePageAllocator {
  using value_type = T;
  HugePageAllocator() = default;
  template <class U>
  HugePageAllocator(const HugePageAllocator<U>&) noexcept {}  // NOLINT: implicit, as std::allocator's

  T* allocate(size_t n) {
    if (n > max_size()) throw std::bad_array_new_length();
    const size_t bytes = n * sizeof(T);
    if (bytes < kHugePageBytes) return std::allocator<T>{}.allocate(n);
    const size_t rounded = (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
    void* p = std::aligned_alloc(kHugePageBytes, rounded);
    if (p == nullptr) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    ::madvise(p, rounded, MADV_HUGEPAGE);  // advice: a failure only means small pages
#endif
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t n) noexcept {
    if (n * sizeof(T) < kHugePageBytes)
      std::allocator<T>{}.deallocate(p, n);
    else
      std::free(p);
  }
  static constexpr size_t max_size() noexcept { return (size_t(-1) - kHugePageBytes) / sizeof(T); }
  template <class U>
  bool operator==(const HugePageAllocator<U>&) const noexcept {
    return true;
  }
};

template <class T>
using LargeVector = std::vector<T, HugePageAllocator<T>>;

}  // namespace mhcsim
