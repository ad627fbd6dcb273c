// A peer as one iface sees it: the peer's segment mapped here (its FIFO and region table), its
// wake-up socket address and a pidfd for liveness. Shared by every endpoint to that peer and
// by the bounce replies this iface sends it; cached by segment name for the iface's lifetime.
#pragma once

#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/base/status.h"
#include "transports/shm/shm_fifo.h"
#include "transports/shm/shm_lanes.h"
#include "transports/shm/shm_segment.h"
#include "transports/shm/shm_wire.h"

namespace torus::shm {

class ShmEndpoint;

// Owns a file descriptor.
class Fd final {
 public:
  Fd() = default;
  explicit Fd(int fd) noexcept : fd_(fd) {}
  Fd(Fd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  Fd& operator=(Fd&& o) noexcept {
    if (this != &o) {
      reset();
      fd_ = std::exchange(o.fd_, -1);
    }
    return *this;
  }
  ~Fd() { reset(); }
  int get() const noexcept { return fd_; }
  void reset() noexcept {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

// The abstract AF_UNIX name of the wake-up socket of the iface that owns `segment_name`.
socklen_t wake_address(const std::string& segment_name, sockaddr_un* out) noexcept;

// A bounce reply waiting for room in the peer's FIFO (see shm_bounce.h).
struct Reply {
  InternalType type = InternalType::GetData;
  Status status = Status::Ok;
  uint32_t length = 0;
  uint64_t op_id = 0;
  uint64_t offset = 0;
  uint64_t remote_addr = 0;  // in this (the target) process
  PackedRkey rkey{};
};

struct Peer {
  std::string name;
  pid_t pid = 0;
  std::unique_ptr<Segment> segment;  // null for our own segment (loopback)
  LaneClaim lane;  // in `segment`, declared after it: released before it is unmapped
  FifoWriter fifo;  // on our lane, or on the shared ring when no lane was free
  const RegionSlot* regions = nullptr;
  uint32_t region_slots = 0;
  sockaddr_un wake_addr{};
  socklen_t wake_len = 0;
  Fd pidfd;            // -1 where pidfd_open is unavailable: then kill(pid, 0) is polled
  bool dead = false;   // died or dropped; its segment is unmapped
  bool reply_queued = false;
  bool no_coop_writes = false;  // process_vm_writev to it failed: stop helping its gets
  std::deque<Reply> replies;
  std::vector<ShmEndpoint*> endpoints;
};

}  // namespace torus::shm
