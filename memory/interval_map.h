// IntervalMap: non-overlapping half-open address intervals [start, end), each with a value,
// ordered by start. Covering and overlap queries are O(log n) (+ the overlaps reported).
// Not thread-safe: the owner locks.
//
// find_covering() first tries a small direct-mapped table of the intervals it recently found,
// indexed by the page of the queried address: callers look up the same buffers again and
// again (a registration-cache hit is this lookup), and a tree walk with its pointer chasing
// and mispredicted branches costs ~20-30 ns here where the table costs a few. Erasing an
// interval clears the slots that name it, so a slot never outlives its interval.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <utility>

#include "core/base/log.h"

namespace torus::mem {

template <typename V>
class IntervalMap {
 public:
  struct Entry {
    uintptr_t end;
    V value;
  };
  using Map = std::map<uintptr_t, Entry>;  // key: start
  using iterator = typename Map::iterator;

  IntervalMap() = default;
  IntervalMap(IntervalMap&& o) noexcept : map_(std::move(o.map_)) { o.clear_hints(); }
  IntervalMap& operator=(IntervalMap&& o) noexcept {
    map_ = std::move(o.map_);
    clear_hints();
    o.clear_hints();
    return *this;
  }
  IntervalMap(const IntervalMap&) = delete;
  IntervalMap& operator=(const IntervalMap&) = delete;

  // The interval that contains all of [start, end) (start < end), or end().
  iterator find_covering(uintptr_t start, uintptr_t end) {
    Hint& h = hints_[slot(start)];
    if (h.valid && h.it->first <= start && h.it->second.end >= end) return h.it;
    // Intervals never overlap, so the only candidate is the last one starting at or
    // before `start`.
    auto it = map_.upper_bound(start);
    if (it == map_.begin()) return map_.end();
    --it;
    if (it->second.end < end) return map_.end();
    h = Hint{it, true};
    return it;
  }

  // Calls fn(iterator) for each interval intersecting [start, end), in address order. fn may
  // erase the interval it is given (through erase(iterator)), nothing else.
  template <typename Fn>
  void for_each_overlapping(uintptr_t start, uintptr_t end, Fn&& fn) {
    if (start >= end) return;
    auto it = map_.upper_bound(start);
    if (it != map_.begin()) {
      auto prev = std::prev(it);
      if (prev->second.end > start) it = prev;
    }
    while (it != map_.end() && it->first < end) {
      auto next = std::next(it);
      fn(it);
      it = next;
    }
  }

  // Inserts [start, end); the caller has removed every overlapping interval first.
  iterator insert(uintptr_t start, uintptr_t end, V value) {
    TORUS_ASSERT(start < end);
    TORUS_ASSERT(!overlaps(start, end));
    return map_.emplace(start, Entry{end, std::move(value)}).first;
  }

  // The interval starting exactly at `start`, or end().
  iterator find(uintptr_t start) { return map_.find(start); }
  void erase(iterator it) {
    for (Hint& h : hints_)
      if (h.valid && h.it == it) h.valid = false;
    map_.erase(it);
  }
  iterator end() { return map_.end(); }
  iterator begin() { return map_.begin(); }
  size_t size() const noexcept { return map_.size(); }
  bool empty() const noexcept { return map_.empty(); }
  void clear() {
    clear_hints();
    map_.clear();
  }

  bool overlaps(uintptr_t start, uintptr_t end) {
    bool any = false;
    for_each_overlapping(start, end, [&](iterator) { any = true; });
    return any;
  }

 private:
  struct Hint {
    iterator it{};
    bool valid = false;
  };
  // 256 slots: scanned on every erase (a few hundred ns), cheap next to the deregistration
  // that goes with it. Fibonacci hashing of the page number spreads buffers laid out at any
  // power-of-two stride.
  static constexpr size_t kHintSlots = 256;
  static size_t slot(uintptr_t addr) noexcept {
    return static_cast<size_t>(((addr >> 12) * 0x9E3779B97F4A7C15ull) >> 56);
  }
  void clear_hints() noexcept {
    for (Hint& h : hints_) h.valid = false;
  }

  Map map_;
  std::array<Hint, kHintSlots> hints_{};
};

}  // namespace torus::mem
