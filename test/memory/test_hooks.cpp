// Detection of other libraries' hooks on the memory-release functions.
#include <dlfcn.h>
#include <doctest/doctest.h>
#include <sys/shm.h>

#include <cstdint>
#include <vector>

#include "memory/hook_check.h"

using namespace torus::mem;

// This binary interposes shmdt (forwarding to libc's), as a memory-hook library would.
extern "C" int shmdt(const void* addr) {
  using Fn = int (*)(const void*);
  static Fn real = reinterpret_cast<Fn>(dlsym(RTLD_NEXT, "shmdt"));
  return real(addr);
}

TEST_CASE("hooks: an interposed memory-release function is reported with its object") {
  const std::vector<Interposition> hooks = find_memory_hooks();
  bool found = false;
  for (const Interposition& h : hooks) {
    if (h.function == "shmdt") {
      found = true;
      CHECK(h.by.find("torus_memory_tests") != std::string::npos);
      CHECK_FALSE(h.sanitizer);
    }
    // Nothing patches libc's code in this process.
    CHECK(h.by.find("patched") == std::string::npos);
  }
  CHECK(found);
  CHECK(describe(hooks).find("shmdt is intercepted by") != std::string::npos);
}

TEST_CASE("hooks: jumps written over a function entry are recognised") {
  const std::vector<uint8_t> glibc_munmap = {0xf3, 0x0f, 0x1e, 0xfa, 0xb8, 0x0b, 0x00,
                                             0x00, 0x00, 0x0f, 0x05, 0x48, 0x3d, 0x01};
  CHECK_FALSE(looks_patched(glibc_munmap));
  CHECK(looks_patched(std::vector<uint8_t>{0xe9, 1, 2, 3, 4}));
  CHECK(looks_patched(std::vector<uint8_t>{0xf3, 0x0f, 0x1e, 0xfa, 0xe9, 1, 2, 3, 4}));
  CHECK(looks_patched(std::vector<uint8_t>{0xff, 0x25, 0, 0, 0, 0}));
  // movabs $imm64, %r11 ; jmp *%r11
  CHECK(looks_patched(
      std::vector<uint8_t>{0x49, 0xbb, 1, 2, 3, 4, 5, 6, 7, 8, 0x41, 0xff, 0xe3}));
  // movabs $imm64, %rax ; jmp *%rax
  CHECK(looks_patched(std::vector<uint8_t>{0x48, 0xb8, 1, 2, 3, 4, 5, 6, 7, 8, 0xff, 0xe0}));
  CHECK_FALSE(looks_patched(std::vector<uint8_t>{}));
}
