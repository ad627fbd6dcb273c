// Worker address wire format (little-endian):
//   u32 magic "TRSW" | u8 version | u8 iface count | u16 reserved | u64 uid
//   per iface: u8 name length, name | u8 device length, device | u16 address length, bytes
#include "core/worker_address.h"

#include <cstring>

namespace torus::core {
namespace {

constexpr uint32_t kMagic = 0x57535254;  // "TRSW"
constexpr uint8_t kVersion = 1;

template <typename T>
void put(std::vector<std::byte>& out, T v) {
  size_t at = out.size();
  out.resize(at + sizeof(T));
  std::memcpy(out.data() + at, &v, sizeof(T));
}

void put_bytes(std::vector<std::byte>& out, const void* p, size_t n) {
  if (n == 0) return;
  size_t at = out.size();
  out.resize(at + n);
  std::memcpy(out.data() + at, p, n);
}

class Reader {
 public:
  explicit Reader(std::span<const std::byte> b) : b_(b) {}
  template <typename T>
  bool get(T* v) {
    if (b_.size() - pos_ < sizeof(T)) return false;
    std::memcpy(v, b_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return true;
  }
  bool bytes(size_t n, std::span<const std::byte>* out) {
    if (b_.size() - pos_ < n) return false;
    *out = b_.subspan(pos_, n);
    pos_ += n;
    return true;
  }
  bool done() const { return pos_ == b_.size(); }

 private:
  std::span<const std::byte> b_;
  size_t pos_ = 0;
};

}  // namespace

std::vector<std::byte> pack_worker_address(const WorkerAddress& addr) {
  std::vector<std::byte> out;
  put<uint32_t>(out, kMagic);
  put<uint8_t>(out, kVersion);
  put<uint8_t>(out, static_cast<uint8_t>(addr.ifaces.size()));
  put<uint16_t>(out, 0);
  put<uint64_t>(out, addr.uid);
  for (const IfaceAddress& i : addr.ifaces) {
    put<uint8_t>(out, static_cast<uint8_t>(i.tl_name.size()));
    put_bytes(out, i.tl_name.data(), i.tl_name.size());
    put<uint8_t>(out, static_cast<uint8_t>(i.device.size()));
    put_bytes(out, i.device.data(), i.device.size());
    put<uint16_t>(out, static_cast<uint16_t>(i.address.size()));
    put_bytes(out, i.address.data(), i.address.size());
  }
  return out;
}

Result<WorkerAddress> unpack_worker_address(std::span<const std::byte> bytes) {
  Reader r(bytes);
  uint32_t magic = 0;
  uint8_t version = 0, count = 0;
  uint16_t reserved = 0;
  WorkerAddress addr;
  if (!r.get(&magic) || magic != kMagic)
    return make_error(Status::InvalidParam, "not a torus worker address (bad magic)");
  if (!r.get(&version) || version != kVersion)
    return make_error(Status::InvalidParam,
                      "worker address version " + std::to_string(version) + ", expected " +
                          std::to_string(kVersion));
  if (!r.get(&count) || !r.get(&reserved) || !r.get(&addr.uid))
    return make_error(Status::InvalidParam, "truncated worker address header");
  for (unsigned n = 0; n < count; ++n) {
    IfaceAddress ia;
    uint8_t len8 = 0;
    uint16_t len16 = 0;
    std::span<const std::byte> s;
    if (!r.get(&len8) || !r.bytes(len8, &s))
      return make_error(Status::InvalidParam, "truncated transport name in worker address");
    ia.tl_name.assign(reinterpret_cast<const char*>(s.data()), s.size());
    if (!r.get(&len8) || !r.bytes(len8, &s))
      return make_error(Status::InvalidParam, "truncated device name in worker address");
    ia.device.assign(reinterpret_cast<const char*>(s.data()), s.size());
    if (!r.get(&len16) || !r.bytes(len16, &s))
      return make_error(Status::InvalidParam, "truncated interface address in worker address");
    ia.address.assign(s.begin(), s.end());
    addr.ifaces.push_back(std::move(ia));
  }
  if (!r.done()) return make_error(Status::InvalidParam, "trailing bytes in worker address");
  return addr;
}

}  // namespace torus::core
