// SipHash-2-4 written from its specification (Aumasson & Bernstein, 2012).
#include "transports/tcp/tcp_auth.h"

#include <sys/random.h>

#include <cstring>
#include <random>

namespace torus::tcp {
namespace {

constexpr uint64_t rotl(uint64_t x, int b) { return (x << b) | (x >> (64 - b)); }

struct State {
  uint64_t v0, v1, v2, v3;
  void round() {
    v0 += v1; v1 = rotl(v1, 13); v1 ^= v0; v0 = rotl(v0, 32);
    v2 += v3; v3 = rotl(v3, 16); v3 ^= v2;
    v0 += v3; v3 = rotl(v3, 21); v3 ^= v0;
    v2 += v1; v1 = rotl(v1, 17); v1 ^= v2; v2 = rotl(v2, 32);
  }
};

uint64_t load_le64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

void store_le64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

// Domain-separated MAC input: a tag byte, then the words in order.
uint64_t mac_words(const MacKey& key, uint8_t tag, std::initializer_list<uint64_t> words) {
  uint8_t buf[1 + 8 * 5] = {tag};
  size_t n = 1;
  for (uint64_t w : words) {
    store_le64(buf + n, w);
    n += 8;
  }
  return siphash24(key, std::span<const uint8_t>(buf, n));
}

}  // namespace

uint64_t siphash24(const MacKey& key, std::span<const uint8_t> data) noexcept {
  State s{key.k0 ^ 0x736f6d6570736575ull, key.k1 ^ 0x646f72616e646f6dull,
          key.k0 ^ 0x6c7967656e657261ull, key.k1 ^ 0x7465646279746573ull};
  const size_t len = data.size();
  const uint8_t* p = data.data();
  const size_t full = len & ~size_t{7};
  for (size_t i = 0; i < full; i += 8) {
    const uint64_t m = load_le64(p + i);
    s.v3 ^= m;
    s.round();
    s.round();
    s.v0 ^= m;
  }
  uint8_t last[8] = {};
  if (len > full) std::memcpy(last, p + full, len - full);  // p may be null when empty
  uint64_t b = load_le64(last) | (static_cast<uint64_t>(len & 0xff) << 56);
  s.v3 ^= b;
  s.round();
  s.round();
  s.v0 ^= b;
  s.v2 ^= 0xff;
  for (int i = 0; i < 4; ++i) s.round();
  return s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
}

MacKey derive_key(std::string_view job_key) noexcept {
  const auto* p = reinterpret_cast<const uint8_t*>(job_key.data());
  const std::span<const uint8_t> text(p, job_key.size());
  // Two fixed, distinct keys stretch any text into 128 bits.
  return MacKey{siphash24(MacKey{0x746f727573206a6full, 0x62206b6579203031ull}, text),
                siphash24(MacKey{0x746f727573206a6full, 0x62206b6579203032ull}, text)};
}

uint64_t hello_mac(const MacKey& key, uint64_t acceptor_nonce, uint64_t connector_uid,
                   uint64_t target_uid, uint64_t connector_nonce, uint8_t lane) noexcept {
  return mac_words(key, 'H', {acceptor_nonce, connector_uid, target_uid, connector_nonce, lane});
}

uint64_t welcome_mac(const MacKey& key, uint64_t connector_nonce, uint64_t acceptor_nonce,
                     uint64_t acceptor_uid, uint8_t verdict) noexcept {
  return mac_words(key, 'W', {connector_nonce, acceptor_nonce, acceptor_uid, verdict});
}

uint64_t random_u64() noexcept {
  uint64_t v = 0;
  if (::getrandom(&v, sizeof(v), 0) == static_cast<ssize_t>(sizeof(v))) return v;
  // getrandom only fails before the pool is initialised or under seccomp; still unique.
  static thread_local std::mt19937_64 gen{std::random_device{}()};
  return gen();
}

}  // namespace torus::tcp
