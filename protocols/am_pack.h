// Packing a header and a slice of a buffer into a transport's AM send buffer: the frames of
// every protocol family (tag, rendezvous control, user AMs) are built this way.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

#include "core/base/copy.h"
#include "transports/transport.h"

namespace torus::proto {

template <typename H>
std::span<const std::byte> as_bytes_of(const H& h) {
  return {reinterpret_cast<const std::byte*>(&h), sizeof(H)};
}

struct BytesPack {
  const std::byte* data;
  size_t length;
};

// Packs write a transport's send buffer, which the peer reads next: copy_to_peer.
inline size_t pack_bytes(void* dest, void* arg) {
  auto* b = static_cast<BytesPack*>(arg);
  copy_to_peer(dest, b->data, b->length);
  return b->length;
}

// A header followed by a slice of the user's buffer.
struct FragPack {
  const void* hdr;
  size_t hdr_length;
  const std::byte* payload;
  size_t length;
};

inline size_t pack_frag(void* dest, void* arg) {
  auto* f = static_cast<FragPack*>(arg);
  std::memcpy(dest, f->hdr, f->hdr_length);
  if (f->length)
    copy_to_peer(static_cast<std::byte*>(dest) + f->hdr_length, f->payload, f->length);
  return f->hdr_length + f->length;
}

// The frame goes where its payload lines up with the source (tl::Endpoint::am_bcopy_aligned).
inline Status bcopy_frag(tl::Endpoint& ep, uint8_t id, FragPack& f) {
  return ep.am_bcopy_aligned(id, &pack_frag, &f,
                             reinterpret_cast<uintptr_t>(f.payload) - f.hdr_length);
}

}  // namespace torus::proto
