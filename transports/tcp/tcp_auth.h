// The job-key proof of the tcp handshake: a keyed MAC (SipHash-2-4) over both sides'
// nonces and worker ids, so the key itself never crosses the wire and a recorded handshake
// cannot be replayed (each side picks a fresh nonce).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace torus::tcp {

struct MacKey {
  uint64_t k0 = 0;
  uint64_t k1 = 0;
};

// SipHash-2-4 of `data` under `key`.
uint64_t siphash24(const MacKey& key, std::span<const uint8_t> data) noexcept;

// The MAC key of a job: derived from TORUS_JOB_KEY (any text; empty = the fixed "no key"
// key, which still checks that both ends are torus tcp peers of this version).
MacKey derive_key(std::string_view job_key) noexcept;

uint64_t hello_mac(const MacKey& key, uint64_t acceptor_nonce, uint64_t connector_uid,
                   uint64_t target_uid, uint64_t connector_nonce, uint8_t lane = 0) noexcept;
uint64_t welcome_mac(const MacKey& key, uint64_t connector_nonce, uint64_t acceptor_nonce,
                     uint64_t acceptor_uid, uint8_t verdict) noexcept;

// 64 random bits from the kernel (getrandom), for nonces and secrets.
uint64_t random_u64() noexcept;

}  // namespace torus::tcp
