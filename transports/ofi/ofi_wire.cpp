// Packing and validation of the ofi address and remote key (ofi_wire.h).
#include "transports/ofi/ofi_wire.h"

#include <cstring>

namespace torus::ofi {

std::string pack_address(uint64_t worker_uid, uint64_t pid_ns, uint32_t pid,
                         const std::string& provider, const std::string& fabric,
                         std::span<const std::byte> name) {
  AddrHeader h{};
  h.magic = kAddrMagic;
  h.version = kVersion;
  h.prov_len = static_cast<uint8_t>(provider.size() > 255 ? 255 : provider.size());
  h.fabric_len = static_cast<uint8_t>(fabric.size() > 255 ? 255 : fabric.size());
  h.name_len = static_cast<uint16_t>(name.size());
  h.worker_uid = worker_uid;
  h.pid_ns = pid_ns;
  h.pid = pid;
  std::string out(reinterpret_cast<const char*>(&h), sizeof(h));
  out.append(provider, 0, h.prov_len);
  out.append(fabric, 0, h.fabric_len);
  out.append(reinterpret_cast<const char*>(name.data()), name.size());
  return out;
}

bool parse_address(std::span<const std::byte> in, ParsedAddress* out, std::string* why) {
  auto fail = [why](const char* m) {
    if (why != nullptr) *why = std::string("ofi address: ") + m;
    return false;
  };
  AddrHeader h;
  if (in.size() < sizeof(h)) return fail("truncated header");
  std::memcpy(&h, in.data(), sizeof(h));
  if (h.magic != kAddrMagic) return fail("not an ofi address (bad magic)");
  if (h.version != kVersion) return fail("unsupported version");
  const size_t need = sizeof(h) + h.prov_len + h.fabric_len + h.name_len;
  if (in.size() != need || h.name_len == 0) return fail("length does not match its header");
  const char* p = reinterpret_cast<const char*>(in.data()) + sizeof(h);
  out->worker_uid = h.worker_uid;
  out->pid_ns = h.pid_ns;
  out->pid = h.pid;
  out->provider.assign(p, h.prov_len);
  out->fabric.assign(p + h.prov_len, h.fabric_len);
  out->name = in.subspan(sizeof(h) + h.prov_len + h.fabric_len, h.name_len);
  return true;
}

uint64_t rkey_check(const PackedRkey& k) noexcept {
  // splitmix64 over the fields: any single changed byte changes the result.
  auto mix = [](uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
  };
  uint64_t h = mix(k.key);
  h = mix(h ^ k.base);
  h = mix(h ^ k.length);
  return mix(h ^ (uint64_t{k.flags} << 32 | k.version));
}

}  // namespace torus::ofi
