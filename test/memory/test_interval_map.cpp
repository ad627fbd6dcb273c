// IntervalMap against a linear-scan reference model under thousands of random operations.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "memory/interval_map.h"

using torus::mem::IntervalMap;

namespace {

struct Model {
  struct Iv {
    uintptr_t start, end;
    int value;
  };
  std::vector<Iv> ivs;

  const Iv* covering(uintptr_t s, uintptr_t e) const {
    for (const Iv& iv : ivs)
      if (iv.start <= s && e <= iv.end) return &iv;
    return nullptr;
  }
  std::vector<int> remove_overlapping(uintptr_t s, uintptr_t e) {
    std::vector<int> out;
    std::vector<Iv> keep;
    for (const Iv& iv : ivs) {
      if (iv.start < e && s < iv.end) out.push_back(iv.value);
      else keep.push_back(iv);
    }
    ivs = keep;
    std::sort(out.begin(), out.end());
    return out;
  }
};

std::vector<int> erase_overlapping(IntervalMap<int>& m, uintptr_t s, uintptr_t e) {
  std::vector<int> out;
  m.for_each_overlapping(s, e, [&](IntervalMap<int>::iterator it) {
    out.push_back(it->second.value);
    m.erase(it);
  });
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("interval map: covering lookup at the edges") {
  IntervalMap<int> m;
  m.insert(100, 200, 1);
  m.insert(200, 300, 2);
  CHECK(m.find_covering(100, 200)->second.value == 1);
  CHECK(m.find_covering(199, 200)->second.value == 1);
  CHECK(m.find_covering(200, 201)->second.value == 2);
  CHECK(m.find_covering(150, 250) == m.end());  // spans two: no single covering interval
  CHECK(m.find_covering(99, 101) == m.end());
  CHECK(m.find_covering(300, 301) == m.end());
  CHECK(m.find_covering(0, 1) == m.end());
  CHECK(m.overlaps(299, 400));
  CHECK_FALSE(m.overlaps(300, 400));
  CHECK_FALSE(m.overlaps(0, 100));
}

TEST_CASE("interval map: a found interval erased or replaced is never found again") {
  IntervalMap<int> m;
  const uintptr_t page = 4096;
  m.insert(10 * page, 12 * page, 1);
  CHECK(m.find_covering(10 * page + 8, 10 * page + 64)->second.value == 1);  // now hinted
  m.erase(m.find(10 * page));
  CHECK(m.find_covering(10 * page + 8, 10 * page + 64) == m.end());
  m.insert(10 * page, 11 * page, 2);  // same start, shorter
  CHECK(m.find_covering(10 * page + 8, 10 * page + 64)->second.value == 2);
  CHECK(m.find_covering(10 * page + 8, 11 * page + 1) == m.end());
  IntervalMap<int> moved(std::move(m));
  CHECK(moved.find_covering(10 * page + 8, 10 * page + 64)->second.value == 2);
  moved.clear();
  CHECK(moved.find_covering(10 * page + 8, 10 * page + 64) == moved.end());
}

TEST_CASE("interval map: randomized against a reference model") {
  std::mt19937_64 rng(12345);
  IntervalMap<int> m;
  Model model;
  constexpr uintptr_t kSpace = 1 << 16;
  auto rand_range = [&](uintptr_t max_len) {
    const uintptr_t s = rng() % kSpace;
    const uintptr_t len = 1 + rng() % max_len;
    return std::pair<uintptr_t, uintptr_t>(s, std::min<uintptr_t>(s + len, kSpace + 1));
  };
  int next_value = 0;
  for (int op = 0; op < 20000; ++op) {
    const unsigned kind = rng() % 10;
    if (kind < 4) {  // register: merge away what overlaps, then insert, like the cache
      auto [s, e] = rand_range(2048);
      CHECK(erase_overlapping(m, s, e) == model.remove_overlapping(s, e));
      m.insert(s, e, next_value);
      model.ivs.push_back({s, e, next_value});
      ++next_value;
    } else if (kind < 8) {  // lookup
      auto [s, e] = rand_range(512);
      const Model::Iv* want = model.covering(s, e);
      auto got = m.find_covering(s, e);
      if (want == nullptr) {
        CHECK(got == m.end());
      } else {
        REQUIRE(got != m.end());
        CHECK(got->first == want->start);
        CHECK(got->second.end == want->end);
        CHECK(got->second.value == want->value);
      }
    } else {  // invalidate
      auto [s, e] = rand_range(4096);
      CHECK(erase_overlapping(m, s, e) == model.remove_overlapping(s, e));
    }
    REQUIRE(m.size() == model.ivs.size());
  }
  // Every interval in the map is exactly the model's, in order.
  std::sort(model.ivs.begin(), model.ivs.end(),
            [](const Model::Iv& a, const Model::Iv& b) { return a.start < b.start; });
  size_t i = 0;
  for (auto it = m.begin(); it != m.end(); ++it, ++i) {
    CHECK(it->first == model.ivs[i].start);
    CHECK(it->second.end == model.ivs[i].end);
  }
}
