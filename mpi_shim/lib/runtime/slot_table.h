// A handle table's lock-free half: slot index -> object pointer, read without a lock by every
// call that takes the handle, written under the table's own lock. The slots live in chunks
// allocated on first use, so a table sized for tens of thousands of handles costs a few
// hundred bytes of .bss until they are used.
//
// Why not one flat array: libmpi.so's load span (text + data + .bss) must stay under 2 MiB.
// From that size on, Linux places a file mapping 2 MiB-aligned, and two ranks sharing a core
// then run the same code at addresses equal in their low 21 bits and, one time in eight, in
// bits 21-23 too; those pairs mispredict each other's branches (docs/performance-history.md,
// 2026-12-07, "Two ranks on a core"). test/load_span.sh keeps the span in check.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <memory>

namespace torus::mpi {

template <typename T, size_t kMax, size_t kChunkBits = 8>
class SlotTable {
  static constexpr size_t kChunk = size_t{1} << kChunkBits;
  static_assert(kMax % kChunk == 0);

 public:
  // The object in slot i (i < kMax), or nullptr. Acquire pairs with set()'s release.
  T* get(size_t i) const noexcept {
    const Chunk* c = chunks_[i >> kChunkBits].load(std::memory_order_acquire);
    return c != nullptr ? c->slots[i & (kChunk - 1)].load(std::memory_order_acquire) : nullptr;
  }

  // Under the owner's lock.
  void set(size_t i, T* p) {
    Chunk* c = chunks_[i >> kChunkBits].load(std::memory_order_relaxed);
    if (c == nullptr) {
      if (p == nullptr) return;
      owned_[i >> kChunkBits] = std::make_unique<Chunk>();
      c = owned_[i >> kChunkBits].get();
      chunks_[i >> kChunkBits].store(c, std::memory_order_release);
    }
    c->slots[i & (kChunk - 1)].store(p, std::memory_order_release);
  }

 private:
  struct Chunk {
    std::array<std::atomic<T*>, kChunk> slots{};
  };
  std::array<std::atomic<Chunk*>, kMax / kChunk> chunks_{};
  std::array<std::unique_ptr<Chunk>, kMax / kChunk> owned_;  // chunks live until exit
};

}  // namespace torus::mpi
