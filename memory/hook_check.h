// Detects other libraries that intercept the memory-release functions (munmap, mremap,
// madvise, ...) by symbol interposition or by patching their code: such hooks have corrupted
// RDMA data when two libraries' hooks fought. Reported, never "fixed".
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace torus::mem {

struct Interposition {
  std::string function;  // "munmap"
  std::string by;        // the object whose definition wins, or "patched code"
  bool sanitizer = false;  // the interposer is a sanitizer runtime (passes calls through)
};

// Compares each function's global definition with libc's own, and looks for a jump patched
// over the start of libc's code (x86-64). Costs a few dlsym calls: call once.
std::vector<Interposition> find_memory_hooks();

// True when `code` (the first bytes of a function) starts with a jump that a patcher writes
// over a function's entry. Exposed for tests.
bool looks_patched(std::span<const uint8_t> code) noexcept;

// One line per finding, "" when none.
std::string describe(const std::vector<Interposition>& hooks);

}  // namespace torus::mem
