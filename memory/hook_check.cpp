// Interposition and code-patch detection for the memory-release functions.
#include "memory/hook_check.h"

#include <dlfcn.h>

#include <cstring>

namespace torus::mem {
namespace {

constexpr const char* kFunctions[] = {"munmap", "mremap", "madvise", "mmap", "brk", "sbrk",
                                      "shmdt"};

std::string object_of(void* fn) {
  Dl_info info{};
  if (fn != nullptr && dladdr(fn, &info) != 0 && info.dli_fname != nullptr &&
      info.dli_fname[0] != '\0')
    return info.dli_fname;
  return "the main program";
}

// A sanitizer's interceptors forward to the real call, so they hide nothing from the kernel's
// userfaultfd events; tell them apart so their presence is not reported as a danger.
bool is_sanitizer_object(const std::string& object) {
  for (const char* rt : {"__asan_init", "__tsan_init", "__msan_init", "__hwasan_init"}) {
    void* sym = dlsym(RTLD_DEFAULT, rt);
    if (sym != nullptr && object_of(sym) == object) return true;
  }
  return false;
}

}  // namespace

bool looks_patched(std::span<const uint8_t> code) noexcept {
  // glibc built with CET starts functions with endbr64; a patch may follow it.
  static constexpr uint8_t kEndbr64[] = {0xf3, 0x0f, 0x1e, 0xfa};
  if (code.size() >= 4 && std::memcmp(code.data(), kEndbr64, 4) == 0) code = code.subspan(4);
  if (code.empty()) return false;
  if (code[0] == 0xe9 || code[0] == 0xeb) return true;                      // jmp rel32/rel8
  if (code.size() >= 2 && code[0] == 0xff && code[1] == 0x25) return true;  // jmp [rip+d]
  // movabs $target, %rXX ; jmp *%rXX — the usual absolute trampoline.
  if (code.size() >= 12 && (code[0] == 0x48 || code[0] == 0x49) && code[1] >= 0xb8 &&
      code[1] <= 0xbf) {
    const uint8_t* j = code.data() + 10;
    if (j[0] == 0xff && j[1] >= 0xe0 && j[1] <= 0xe7) return true;
    if (code.size() >= 13 && j[0] == 0x41 && j[1] == 0xff && j[2] >= 0xe0 && j[2] <= 0xe7)
      return true;
  }
  return false;
}

std::vector<Interposition> find_memory_hooks() {
  std::vector<Interposition> found;
  void* libc = dlopen("libc.so.6", RTLD_NOLOAD | RTLD_LAZY);
  for (const char* name : kFunctions) {
    void* global = dlsym(RTLD_DEFAULT, name);
    void* own = libc != nullptr ? dlsym(libc, name) : nullptr;
    if (global != nullptr && own != nullptr && global != own) {
      Interposition i{name, object_of(global), false};
      i.sanitizer = is_sanitizer_object(i.by);
      found.push_back(std::move(i));
    }
#if defined(__x86_64__)
    if (own != nullptr && looks_patched({static_cast<const uint8_t*>(own), 16}))
      found.push_back({name, "patched code (a jump written over libc's entry)", false});
#endif
  }
  if (libc != nullptr) dlclose(libc);
  return found;
}

std::string describe(const std::vector<Interposition>& hooks) {
  std::string out;
  for (const Interposition& h : hooks) {
    if (!out.empty()) out += "; ";
    out += h.function + " is intercepted by " + h.by;
    if (h.sanitizer) out += " (sanitizer runtime)";
  }
  return out;
}

}  // namespace torus::mem
