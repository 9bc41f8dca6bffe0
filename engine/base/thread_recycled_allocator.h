#pragma once
// ThreadRecycledAllocator<T>: a std allocator that keeps the last freed
// single-object block of each type per thread and hands it out again, for
// an object made and freed once per request on the same thread.
//
// Why: a type holding a bson::BsonDoc is 128-byte aligned (libbson's bson_t
// is alignas(128)), and glibc's memalign and the free of its block cost
// about 900 instructions where a recycled block costs a few. The registry's
// Operation is allocated and freed once per command (issue #18,
// bench/README.md "CPU per find, round 5"); another allocator (tcmalloc)
// was rejected for its memory, and this keeps at most one block per type
// and thread (freed when the thread ends).
//
// Contract: allocate(1) returns this thread's kept block when there is one,
// else a fresh one from std::allocator; deallocate(p, 1) keeps p when this
// thread keeps none, else frees it. A block freed on another thread than
// the one that allocated it is kept by (or freed on) that other thread;
// both are fine, blocks of one type are interchangeable. n != 1 goes to
// std::allocator.
//
// Thread-safety: the kept blocks are thread_local; no locks.

#include <cstddef>
#include <memory>
#include <utility>

namespace tigerdoc {

template <typename T>
class ThreadRecycledAllocator {
 public:
  using value_type = T;

  ThreadRecycledAllocator() = default;
  template <typename U>
  ThreadRecycledAllocator(const ThreadRecycledAllocator<U>&) noexcept {}  // NOLINT: rebinding

  T* allocate(std::size_t n) {
    if (n == 1) {
      if (T* kept = std::exchange(Kept().block, nullptr)) return kept;
    }
    return std::allocator<T>().allocate(n);
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (n == 1) {
      Slot& slot = Kept();
      if (slot.block == nullptr) {
        slot.block = p;
        return;
      }
    }
    std::allocator<T>().deallocate(p, n);
  }

  // Whether this thread keeps a block (for tests).
  static bool KeepsBlock() { return Kept().block != nullptr; }

  template <typename U>
  bool operator==(const ThreadRecycledAllocator<U>&) const noexcept { return true; }
  template <typename U>
  bool operator!=(const ThreadRecycledAllocator<U>&) const noexcept { return false; }

 private:
  struct Slot {
    T* block = nullptr;
    ~Slot() {
      if (block != nullptr) std::allocator<T>().deallocate(block, 1);
    }
  };
  static Slot& Kept() {
    thread_local Slot slot;
    return slot;
  }
};

}  // namespace tigerdoc
