// IntervalMap: non-overlapping half-open address intervals [start, end), each with a value,
// ordered by start. Covering and overlap queries are O(log n) (+ the overlaps reported).
// Not thread-safe: the owner locks.
#pragma once

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

  // The interval that contains all of [start, end) (start < end), or end().
  iterator find_covering(uintptr_t start, uintptr_t end) {
    // Intervals never overlap, so the only candidate is the last one starting at or
    // before `start`.
    auto it = map_.upper_bound(start);
    if (it == map_.begin()) return map_.end();
    --it;
    return it->second.end >= end ? it : map_.end();
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
  void erase(iterator it) { map_.erase(it); }
  iterator end() { return map_.end(); }
  iterator begin() { return map_.begin(); }
  size_t size() const noexcept { return map_.size(); }
  bool empty() const noexcept { return map_.empty(); }
  void clear() { map_.clear(); }

  bool overlaps(uintptr_t start, uintptr_t end) {
    bool any = false;
    for_each_overlapping(start, end, [&](iterator) { any = true; });
    return any;
  }

 private:
  Map map_;
};

}  // namespace torus::mem
