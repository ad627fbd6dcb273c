// The shared-memory transport between processes of one host: a lock-free FIFO per receiver
// in POSIX shared memory, get/put by cross-memory attach (README.md has the whole picture).
#pragma once

#include <cstddef>
#include <memory>
#include <string_view>

#include "transports/transport.h"

namespace torus::shm {

// The registry's factory (transports/registry.cpp lists it as "shm"). One device, "memory".
std::unique_ptr<tl::Transport> make_transport();

// Removes the shm segments a crashed job left in /dev/shm (all named
// "/dev/shm/torus-<job_id>-<uid>-<n>"); returns how many it removed. Safe to run while no
// process of that job is alive; an empty job id removes nothing.
size_t remove_job_segments(std::string_view job_id);

}  // namespace torus::shm
