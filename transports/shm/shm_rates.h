// The two numbers of the shm cost model that differ most between machines, measured on the
// one we run on instead of taken from one VM type:
//  - a CMA get's fixed cost: one process_vm_readv of a few KiB. 1.7-2.4 us for 4 KiB on the
//    AMD VMs the constants came from, 0.5 us on an Intel VM (floor_cma), where eager then
//    lost to a rendezvous from ~8 KiB while the model kept it to 256 KiB (64 KiB: 7.0 us
//    one way against 4.4). Timed at open, reading our own memory: the syscall, the page
//    walk and the copy are the same as for a peer's.
//  - eager's pipeline rate: the receiver's copy out of a segment the sender just filled is
//    its slower stage (every line crosses between the cores), so the rate of that copy
//    bounds the pipeline from above. The placement's constant (25 GB/s near) held on the
//    AMD VMs; the Intel VM's copy-out ran at 12-13 GB/s. Taking the lower of the two only
//    ever makes eager look slower where it is.
#pragma once

#include <cstdint>

namespace torus::shm {

// The least time of a 4 KiB process_vm_readv from this process (ns), or a negative value
// when the kernel refuses it.
double measure_cma_fixed_ns() noexcept;

// Copy-out rates of whole eager segments, as the receiver times them: one in kSampleEvery.
class CopyOutRate {
 public:
  static constexpr unsigned kSampleEvery = 16;
  static constexpr unsigned kWindow = 8;  // samples per estimate: the fastest one counts
  // A first fragment's copy shares its time with tag matching, a last one's with the
  // completion: the window's fastest sample is the copy's own rate.

  bool sample_next() noexcept { return (++count_ & (kSampleEvery - 1)) == 0; }
  // One timed copy of `bytes` in `ns`; true when the estimate moved by more than a tenth.
  bool record(double bytes, double ns) noexcept;
  // Bytes per second, 0 until a window has filled.
  double Bps() const noexcept { return estimate_; }

 private:
  uint32_t count_ = 0;
  unsigned samples_ = 0;
  double window_best_ = 0;
  double estimate_ = 0;
};

}  // namespace torus::shm
