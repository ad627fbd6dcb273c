// Loading libfabric at run time (ofi_lib.h).
#include "transports/ofi/ofi_lib.h"

#include <dlfcn.h>

namespace torus::ofi {
namespace {

// The versions torus was written against (the ones the linker picked when it linked
// libfabric): a later libfabric keeps them, so the calls keep their semantics.
template <typename Fn>
bool bind(void* lib, const char* name, const char* version, Fn* out, std::string* why) {
  void* sym = ::dlvsym(lib, name, version);
  if (sym == nullptr) sym = ::dlsym(lib, name);
  if (sym == nullptr) {
    *why = std::string("libfabric.so.1 has no ") + name;
    return false;
  }
  *out = reinterpret_cast<Fn>(sym);
  return true;
}

struct Loaded {
  FabricApi api{};
  bool ok = false;
  std::string why;

  Loaded() {
    void* lib = ::dlopen("libfabric.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
      const char* e = ::dlerror();
      why = std::string("cannot load libfabric.so.1: ") + (e != nullptr ? e : "unknown error");
      return;
    }
    ok = bind(lib, "fi_getinfo", "FABRIC_1.3", &api.getinfo, &why) &&
         bind(lib, "fi_freeinfo", "FABRIC_1.3", &api.freeinfo, &why) &&
         bind(lib, "fi_dupinfo", "FABRIC_1.3", &api.dupinfo, &why) &&
         bind(lib, "fi_fabric", "FABRIC_1.1", &api.fabric, &why) &&
         bind(lib, "fi_strerror", "FABRIC_1.0", &api.strerror, &why);
  }
};

const Loaded& loaded() {
  static const Loaded l;
  return l;
}

}  // namespace

const FabricApi* fabric_api(std::string* why) {
  const Loaded& l = loaded();
  if (!l.ok && why != nullptr) *why = l.why;
  return l.ok ? &l.api : nullptr;
}

const char* ofi_strerror(int err) {
  const FabricApi* api = fabric_api();
  return api != nullptr ? api->strerror(err) : "libfabric not loaded";
}

}  // namespace torus::ofi
