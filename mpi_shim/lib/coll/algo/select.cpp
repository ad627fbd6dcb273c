// Algorithm choice for the collectives (select.h). Below each size threshold the
// algorithm with fewer steps wins on latency, above it the one that moves less data per rank
// wins on bandwidth. Between the two long-vector reductions the cost model decides: both move
// 2(n-1)/n of the vector per rank, Rabenseifner in 2 log2(n) steps against the ring's
// 2(n-1), but with n not a power of two its fold moves the whole vector twice more, which
// the ring avoids. Thresholds were checked on shared memory (MPI_FLOAT sums, 3 to 8 ranks);
// on oversubscribed cores fewer steps win longer than on dedicated ones.
#include "mpi_shim/lib/coll/algo/select.h"

#include <cstdio>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "core/base/config.h"
#include "mpi_shim/lib/coll/algo/placement.h"
#include "mpi_shim/lib/coll/algo/util.h"
#include "mpi_shim/lib/runtime/state.h"

namespace torus::mpi::coll {
namespace {

// Bcast: scatter + ring allgather from this many bytes (and 3 ranks: with 2 the tree is one
// message); its critical path is about 2 messages against the tree's log2(n).
constexpr size_t kBcastScatterBytes = 512u << 10;
// Reduce: Rabenseifner from this many bytes.
constexpr size_t kReduceRabenseifnerBytes = 256u << 10;
// Allreduce: recursive doubling below kAllreduceLongBytes; above, Rabenseifner, or the ring
// from kAllreduceRingBytes when n is not a power of two (commutative ops only). With 2 or 4
// ranks, doubling moves the vector only 1 or 2 times against Rabenseifner's 1 or 1.5, and
// Rabenseifner's allgather makes each rank write lines the partner has just read (a
// cross-core invalidation per line): doubling stays ahead until kAllreduceSmallLongBytes
// (2 ranks, shm, 64-256 KiB: 8-33 against 20-43 us; 4 ranks on 2 cores similar).
// With 2 ranks, doubling wins at any size wherever Rabenseifner's segments go by rendezvous
// (shm between far cores, tcp): its one step moves the whole vector in one rendezvous,
// landing in the receive buffer, where Rabenseifner pays one per segment. Between near
// cores the segments go eager and Rabenseifner wins. Interleaved, shm, far: 512 KiB 45-49
// against 88-93 us, 1 MiB 97-105 against 179-190, 4 MiB 420-459 against 771-939, 16 MiB
// 3.7-4.5 against 4.6-5.4 ms (Open MPI 82-84 us, 169-180, 667-702, 15.7-16.1 ms); near,
// 1 MiB 132-153 against 78-90 (before the landing in place). Over tcp, 2 MiB 660-675
// against 854-932. With 4 ranks on 2 cores doubling lost from 256 KiB far and won to 1 MiB
// near, the other way round, so they keep the size rule.
constexpr size_t kAllreduceLongBytes = 64u << 10;
constexpr size_t kAllreduceSmallLongBytes = 512u << 10;
constexpr size_t kAllreduceRingBytes = 1u << 20;
// Reduce_scatter: the ring from this many bytes in all when n is not a power of two
// (commutative ops only), recursive halving otherwise.
constexpr size_t kReduceScatterRingBytes = 256u << 10;
// Allgather: Bruck while the gathered vector is below this many bytes.
constexpr size_t kAllgatherBruckBytes = 64u << 10;

bool power_of_two(int n) { return (n & (n - 1)) == 0; }

constexpr struct {
  Algo algo;
  const char* name;
} kNames[] = {
    {Algo::Binomial, "binomial"},
    {Algo::ScatterAllgather, "scatter_allgather"},
    {Algo::RecursiveDoubling, "recursive_doubling"},
    {Algo::Ring, "ring"},
    {Algo::Rabenseifner, "rabenseifner"},
    {Algo::RecursiveHalving, "recursive_halving"},
    {Algo::Bruck, "bruck"},
};

struct Settings {
  std::optional<Algo> bcast, reduce, allreduce, reduce_scatter, allgather;
  bool info = false;
};

std::optional<Algo> forced(const config::Config& cfg, std::string_view var) {
  const std::string& v = cfg.get_string(var);
  for (const auto& e : kNames)
    if (v == e.name) return e.algo;
  return std::nullopt;  // auto (the registry refuses anything outside the choices)
}

// Read once, at the first collective: the values come from the context's configuration,
// which MPI_Init already validated (a bad value stops MPI_Init with a message naming it).
const Settings& settings() {
  static const Settings s = [] {
    Settings out;
    const Runtime* rt = runtime();
    if (!rt || !rt->context) return out;
    const config::Config& cfg = rt->context->config();
    out.bcast = forced(cfg, "TORUS_COLL_BCAST");
    out.reduce = forced(cfg, "TORUS_COLL_REDUCE");
    out.allreduce = forced(cfg, "TORUS_COLL_ALLREDUCE");
    out.reduce_scatter = forced(cfg, "TORUS_COLL_REDUCE_SCATTER");
    out.allgather = forced(cfg, "TORUS_COLL_ALLGATHER");
    out.info = cfg.get_bool("TORUS_COLL_INFO");
    return out;
  }();
  return s;
}

// TORUS_COLL_INFO: one line per distinct (collective, algorithm, size, ranks) per process.
Algo report(const Comm& c, const char* coll, Algo a, size_t count, size_t bytes) {
  if (!settings().info || c.rank != 0) return a;
  static std::mutex mutex;
  static std::set<std::string> seen;
  std::string key = std::string(coll) + ' ' + algo_name(a) + ' ' + std::to_string(count) + ' ' +
                    std::to_string(bytes) + ' ' + std::to_string(c.size);
  std::lock_guard lock(mutex);
  if (seen.insert(std::move(key)).second)
    std::fprintf(stderr, "torus coll: %s: %s (count %zu, %zu bytes, %d ranks)\n", coll,
                 algo_name(a), count, bytes, c.size);
  return a;
}

}  // namespace

const char* algo_name(Algo a) noexcept {
  for (const auto& e : kNames)
    if (e.algo == a) return e.name;
  return "?";
}

Algo select_bcast(const Comm& c, size_t bytes) {
  Algo a = settings().bcast.value_or(c.size > 2 && bytes >= kBcastScatterBytes
                                         ? Algo::ScatterAllgather
                                         : Algo::Binomial);
  return report(c, "bcast", a, bytes, bytes);
}

Algo select_reduce(const Comm& c, size_t count, size_t bytes, bool commutative) {
  (void)commutative;  // both algorithms combine in rank order
  const bool long_vector = bytes >= kReduceRabenseifnerBytes && count >= size_t(pow2_floor(c.size));
  Algo a = settings().reduce.value_or(long_vector ? Algo::Rabenseifner : Algo::Binomial);
  return report(c, "reduce", a, count, bytes);
}

Algo select_allreduce(Comm& c, size_t count, size_t bytes, bool commutative) {
  Algo a;
  const bool few = c.size <= 4 && power_of_two(c.size);
  if (settings().allreduce) {
    a = *settings().allreduce;
  } else if (bytes < (few ? kAllreduceSmallLongBytes : kAllreduceLongBytes) ||
             count < size_t(c.size)) {
    a = Algo::RecursiveDoubling;
  } else if (c.size == 2 && partners_rendezvous(c, kSegmentBytes)) {
    a = Algo::RecursiveDoubling;
  } else {
    a = !power_of_two(c.size) && bytes >= kAllreduceRingBytes ? Algo::Ring : Algo::Rabenseifner;
  }
  // The ring meets the ranks in ring order, not rank order.
  if (a == Algo::Ring && !commutative) a = Algo::Rabenseifner;
  return report(c, "allreduce", a, count, bytes);
}

Algo select_reduce_scatter(const Comm& c, size_t count, size_t bytes, bool commutative) {
  Algo a = settings().reduce_scatter.value_or(
      !power_of_two(c.size) && bytes >= kReduceScatterRingBytes ? Algo::Ring
                                                                : Algo::RecursiveHalving);
  if (a == Algo::Ring && !commutative) a = Algo::RecursiveHalving;
  return report(c, "reduce_scatter", a, count, bytes);
}

Algo select_allgather(const Comm& c, size_t block) {
  const size_t total = block * size_t(c.size);
  Algo a = settings().allgather.value_or(total < kAllgatherBruckBytes ? Algo::Bruck : Algo::Ring);
  return report(c, "allgather", a, total, total);
}

}  // namespace torus::mpi::coll
