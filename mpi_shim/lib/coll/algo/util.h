// What the collective algorithms share: splitting a vector into blocks, a set of in-flight
// requests that never outlives its buffers, the segment size of pipelined transfers, and the
// ordered combine that keeps non-commutative ops right.
#pragma once

#include <cstddef>
#include <vector>

#include "core/api/torus.hpp"
#include "mpi_shim/include/mpi.h"
#include "mpi_shim/lib/coll/algo/context.h"

namespace torus::mpi::coll {

// Large transfers move in segments of about this many bytes: a segment is combined while it
// is still in cache and forwarded while the next one travels. Large enough to keep each
// segment on the rendezvous path (one copy), small enough for a few to be in flight.
inline constexpr size_t kSegmentBytes = 256u << 10;

// Segment length for elements of `esize` bytes (a whole number of elements, at least one).
inline size_t segment_bytes(size_t esize) {
  const size_t n = kSegmentBytes / esize;
  return (n ? n : 1) * esize;
}

// `count` elements split into `parts` blocks as even as possible (the first count % parts
// get one more), as byte offsets: block i is [off[i], off[i+1]).
std::vector<size_t> even_blocks(size_t count, int parts, size_t esize);

// The largest power of two not above n.
inline int pow2_floor(int n) {
  int p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

// out = lower op higher over count elements, `lower` holding the lower ranks' contribution.
// A commutative user op whose result replaces `lower` gets its operands swapped, which
// spares the bounce buffer op_apply needs to write a user op's result over its first input;
// predefined ops always see the ranks in order, so every rank computes bitwise the same
// value even for MAX of a NaN.
void combine(MPI_Op op, MPI_Datatype type, bool commutative, const void* lower,
             const void* higher, void* out, size_t count);

// The requests a collective has in flight. Destruction (an early return on an error)
// cancels the receives not matched yet and waits for the rest, so no transfer reads or
// writes a buffer after the collective returned.
class InFlight {
 public:
  explicit InFlight(const CollContext& cc) : cc_(cc) {}
  InFlight(const InFlight&) = delete;
  InFlight& operator=(const InFlight&) = delete;
  ~InFlight();

  // Post and remember; the index names the request for wait().
  Status send(int peer, int phase, const void* buf, size_t len, size_t* index = nullptr);
  Status recv(int peer, int phase, void* buf, size_t len, size_t* index = nullptr);
  // Waits for one request (already waited: Ok) and releases it.
  Status wait(size_t index);
  // Waits for every request still in flight; the first error.
  Status wait_all();

 private:
  struct Entry {
    Request* req;
    bool is_recv;
  };
  const CollContext& cc_;
  std::vector<Entry> reqs_;
};

// Sends [sbuf, sbuf + slen) to send_peer and receives rlen bytes from recv_peer into rbuf,
// both in segments of `seg` bytes (the peer cuts the same range the same way), calling
// on_segment(offset, length) for each received segment in order as soon as it is in: a
// combine then works on data still in cache, while later segments travel. A zero length
// means no transfer in that direction.
template <typename F>
Status stream_exchange(const CollContext& cc, int phase, int send_peer, const void* sbuf,
                       size_t slen, int recv_peer, void* rbuf, size_t rlen, size_t seg,
                       F&& on_segment) {
  InFlight fl(cc);
  std::vector<size_t> ids;
  for (size_t at = 0; at < rlen; at += seg) {
    size_t id;
    Status s = fl.recv(recv_peer, phase, static_cast<std::byte*>(rbuf) + at,
                       rlen - at < seg ? rlen - at : seg, &id);
    if (is_error(s)) return s;
    ids.push_back(id);
  }
  for (size_t at = 0; at < slen; at += seg) {
    Status s = fl.send(send_peer, phase, static_cast<const std::byte*>(sbuf) + at,
                       slen - at < seg ? slen - at : seg);
    if (is_error(s)) return s;
  }
  size_t at = 0;
  for (size_t id : ids) {
    Status s = fl.wait(id);
    if (is_error(s)) return s;
    const size_t len = rlen - at < seg ? rlen - at : seg;
    on_segment(at, len);
    at += len;
  }
  return fl.wait_all();
}

}  // namespace torus::mpi::coll
