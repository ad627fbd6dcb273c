// Conformance: get_zcopy/put_zcopy data, remote-key enforcement (forged, out of range, past
// the end, missing right, stale) with untouched destinations, and flush.
#include <algorithm>
#include <cstring>
#include <limits>
#include <string>

#include "test/transport/harness.h"

namespace torus::tltest {
namespace {

constexpr std::byte kRemoteFill{0xEE};
constexpr std::byte kLocalFill{0xDD};
constexpr size_t kGuard = 65;  // odd, so transfers start unaligned

// Memory on the target side (b), registered there, with its packed key.
struct Target {
  std::vector<std::byte> mem;
  std::unique_ptr<tl::MemRegion> region;
  std::vector<std::byte> rkey;
  uint64_t base() const { return addr_of(mem.data()); }
};

bool make_target(tl::Iface& iface, size_t size, uint32_t access, Target* t) {
  t->mem.assign(size, kRemoteFill);
  auto r = iface.mem_register(t->mem.data(), size, access);
  if (!r) {
    FAIL_CHECK("mem_register(" << size << " bytes, access " << access
                               << "): " << r.error().message);
    return false;
  }
  t->region = std::move(r.value());
  t->rkey.assign(iface.attributes().rkey_size, std::byte{0});
  t->region->pack_rkey(t->rkey);
  return true;
}

const std::vector<size_t> kSizes = {0, 1, 4095, 4096, (size_t{1} << 20) + 3};

TEST_CASE("put_zcopy/get_zcopy: sizes 0, 1, 4095, 4096, 1 MiB+3, data and guards checked") {
  for_each_variant([](const Variant& v) {
    Pair p;
    TL_REQUIRE(open_pair(v, &p));
    const tl::Caps caps = p.attr().caps;
    if (!caps.get_zcopy && !caps.put_zcopy) return;
    for (size_t size : kSizes) {
      INFO("size " << size);
      Target t;
      TL_REQUIRE(make_target(*p.b, size + 2 * kGuard, tl::kAccessRead | tl::kAccessWrite, &t));
      std::vector<std::byte> local(size + 2 * kGuard, kLocalFill);
      const std::span<std::byte> remote_mid = std::span(t.mem).subspan(kGuard, size);
      const std::span<std::byte> local_mid = std::span(local).subspan(kGuard, size);
      if (caps.put_zcopy) {
        fill_pattern(local_mid, 2 * size + 1);
        CHECK(do_put(p, *p.ab, local_mid, t.base() + kGuard, t.rkey) == Status::Ok);
        CHECK(do_flush(p, *p.ab) == Status::Ok);
        CHECK(find_mismatch(remote_mid, 2 * size + 1) == size);
        CHECK(find_not_byte(std::span(t.mem).first(kGuard), kRemoteFill) == kGuard);
        CHECK(find_not_byte(std::span(t.mem).last(kGuard), kRemoteFill) == kGuard);
      }
      if (caps.get_zcopy) {
        fill_pattern(remote_mid, 2 * size + 2);
        std::fill(local.begin(), local.end(), kLocalFill);
        CHECK(do_get(p, *p.ab, local_mid, t.base() + kGuard, t.rkey) == Status::Ok);
        CHECK(find_mismatch(local_mid, 2 * size + 2) == size);
        CHECK(find_not_byte(std::span(local).first(kGuard), kLocalFill) == kGuard);
        CHECK(find_not_byte(std::span(local).last(kGuard), kLocalFill) == kGuard);
      }
    }
  });
}

// Runs get and put (as far as advertised) with `key` on [addr, addr+len) and expects both
// refused with AccessDenied, the local buffer of a get and all of `t` untouched by a put.
void expect_refused(const Pair& p, const std::string& what, const Target& t,
                    std::span<const std::byte> key, uint64_t addr, size_t len,
                    bool try_get = true, bool try_put = true) {
  INFO(what);
  const tl::Caps caps = p.attr().caps;
  if (try_get && caps.get_zcopy) {
    std::vector<std::byte> local(len, kLocalFill);
    const Status st = do_get(p, *p.ab, local, addr, key);
    CHECK_MESSAGE(st == Status::AccessDenied, "get returned " << str(st));
    CHECK_MESSAGE(find_not_byte(local, kLocalFill) == len, "a refused get wrote local bytes");
  }
  if (try_put && caps.put_zcopy) {
    const std::vector<std::byte> before = t.mem;
    std::vector<std::byte> local(len);
    fill_pattern(local, 99);
    const Status st = do_put(p, *p.ab, local, addr, key);
    if (st == Status::Ok) (void)do_flush(p, *p.ab);
    CHECK_MESSAGE(st == Status::AccessDenied, "put returned " << str(st));
    CHECK_MESSAGE(t.mem == before, "a refused put changed the target region");
  }
}

TEST_CASE("rkey: out of range, past the end, wrapping, missing rights") {
  for_each_variant([](const Variant& v) {
    Pair p;
    TL_REQUIRE(open_pair(v, &p));
    const tl::Caps caps = p.attr().caps;
    if (!caps.get_zcopy && !caps.put_zcopy) return;
    constexpr size_t kLen = 4096;
    Target t;
    TL_REQUIRE(make_target(*p.b, kLen, tl::kAccessRead | tl::kAccessWrite, &t));
    fill_pattern(t.mem, 5);
    const uint64_t base = t.base();
    expect_refused(p, "one byte before the region", t, t.rkey, base - 1, 1);
    expect_refused(p, "straddling the start", t, t.rkey, base - 8, 16);
    expect_refused(p, "one byte after the region", t, t.rkey, base + kLen, 1);
    expect_refused(p, "length past the end", t, t.rkey, base + kLen - 10, 11);
    expect_refused(p, "whole region plus one", t, t.rkey, base, kLen + 1);
    expect_refused(p, "address + length wraps", t, t.rkey,
                   std::numeric_limits<uint64_t>::max() - 7, 16);
    expect_refused(p, "address 0", t, t.rkey, 0, 1);

    Target ro, wo;
    TL_REQUIRE(make_target(*p.b, kLen, tl::kAccessRead, &ro));
    TL_REQUIRE(make_target(*p.b, kLen, tl::kAccessWrite, &wo));
    expect_refused(p, "put to a read-only region", ro, ro.rkey, ro.base(), 64, false, true);
    expect_refused(p, "get from a write-only region", wo, wo.rkey, wo.base(), 64, true, false);
    // The rights that were granted still work.
    std::vector<std::byte> buf(64);
    if (caps.get_zcopy) CHECK(do_get(p, *p.ab, buf, ro.base(), ro.rkey) == Status::Ok);
    if (caps.put_zcopy) CHECK(do_put(p, *p.ab, buf, wo.base(), wo.rkey) == Status::Ok);
  });
}

TEST_CASE("rkey: forged keys (random, altered identity or secret) are refused") {
  for_each_variant([](const Variant& v) {
    Pair p;
    TL_REQUIRE(open_pair(v, &p));
    const tl::Caps caps = p.attr().caps;
    if (!caps.get_zcopy && !caps.put_zcopy) return;
    const size_t rkey_size = p.attr().rkey_size;
    CHECK_MESSAGE(rkey_size >= 8, "an rkey of " << rkey_size << " bytes has no 64-bit secret");
    constexpr size_t kLen = 256;
    Target t;
    TL_REQUIRE(make_target(*p.b, kLen, tl::kAccessRead | tl::kAccessWrite, &t));
    fill_pattern(t.mem, 6);

    std::vector<std::byte> key(rkey_size);
    for (uint64_t i = 0; i < 32; ++i) {
      fill_pattern(key, mix(i + 12345));
      expect_refused(p, "random key #" + std::to_string(i), t, key, t.base(), 64);
    }
    // Bytes that differ between keys of the same memory are the registration's identity and
    // secret: altering any of them must be refused. The secret alone makes 8 bytes vary.
    std::vector<std::vector<std::byte>> samples;
    {
      std::vector<std::unique_ptr<tl::MemRegion>> regs;
      for (int i = 0; i < 16; ++i) {
        auto r = p.b->mem_register(t.mem.data(), kLen, tl::kAccessRead | tl::kAccessWrite);
        TL_REQUIRE(r.ok());
        samples.emplace_back(rkey_size);
        r.value()->pack_rkey(samples.back());
        regs.push_back(std::move(r.value()));
      }
    }
    std::vector<bool> varies(rkey_size, false);
    for (const auto& k : samples)
      for (size_t i = 0; i < rkey_size; ++i) varies[i] = varies[i] || k[i] != t.rkey[i];
    const auto n_varying = std::count(varies.begin(), varies.end(), true);
    CHECK_MESSAGE(n_varying >= 8, "only " << n_varying << " rkey bytes differ between 17 "
                                          "registrations of the same memory: no 64-bit secret");

    // Every single-byte alteration: refused, or (a byte the transport ignores, such as
    // padding) the access hits exactly the right bytes. Varying bytes must be refused.
    for (size_t i = 0; i < rkey_size; ++i) {
      INFO("rkey byte " << i << " altered" << std::string(varies[i] ? " (varies between keys)" : ""));
      key = t.rkey;
      key[i] ^= std::byte{0xA5};
      std::vector<std::byte> local(64, kLocalFill);
      if (caps.get_zcopy) {
        const Status st = do_get(p, *p.ab, local, t.base(), key);
        if (st == Status::Ok) {
          CHECK_MESSAGE(!varies[i], "get: an altered identity/secret byte was honoured");
          CHECK(find_mismatch(local, 6) == local.size());
        } else {
          CHECK_MESSAGE(st == Status::AccessDenied, "get returned " << str(st));
          CHECK(find_not_byte(local, kLocalFill) == local.size());
        }
      }
      if (caps.put_zcopy) {
        const std::vector<std::byte> before = t.mem;
        const Status st = do_put(p, *p.ab, std::span(before).first(64), t.base(), key);
        if (st == Status::Ok) {
          CHECK_MESSAGE(!varies[i], "put: an altered identity/secret byte was honoured");
          (void)do_flush(p, *p.ab);
        } else {
          CHECK_MESSAGE(st == Status::AccessDenied, "put returned " << str(st));
        }
        CHECK(t.mem == before);  // refused, or the same bytes written in place
      }
    }
  });
}

TEST_CASE("rkey: stale after deregistration, even when the range is registered again") {
  for_each_variant([](const Variant& v) {
    Pair p;
    TL_REQUIRE(open_pair(v, &p));
    const tl::Caps caps = p.attr().caps;
    if (!caps.get_zcopy && !caps.put_zcopy) return;
    constexpr size_t kLen = 4096;
    Target t;  // stays registered: the range remains valid under another key
    TL_REQUIRE(make_target(*p.b, kLen, tl::kAccessRead | tl::kAccessWrite, &t));
    fill_pattern(t.mem, 8);

    std::vector<std::byte> stale(p.attr().rkey_size);
    {
      auto r = p.b->mem_register(t.mem.data(), kLen, tl::kAccessRead | tl::kAccessWrite);
      TL_REQUIRE(r.ok());
      r.value()->pack_rkey(stale);
    }
    expect_refused(p, "key of a destroyed registration (range still registered)", t, stale,
                   t.base(), 64);

    // Register the same memory again: the old key must stay dead, the new one must work.
    auto again = p.b->mem_register(t.mem.data(), kLen, tl::kAccessRead | tl::kAccessWrite);
    TL_REQUIRE(again.ok());
    std::vector<std::byte> fresh(p.attr().rkey_size);
    again.value()->pack_rkey(fresh);
    expect_refused(p, "old key after the range was registered again", t, stale, t.base(), 64);
    std::vector<std::byte> local(64);
    if (caps.get_zcopy) {
      CHECK(do_get(p, *p.ab, local, t.base(), fresh) == Status::Ok);
      CHECK(find_mismatch(local, 8) == local.size());
    }

    // Destroy every registration of the memory: now no key reaches it.
    again.value().reset();
    const std::vector<std::byte> live = t.rkey;
    t.region.reset();
    expect_refused(p, "key after its region was destroyed", t, live, t.base(), 64);
    expect_refused(p, "zero-length access with a stale key", t, live, t.base(), 0);
  });
}

TEST_CASE("rkey: a key registered on another iface is refused") {
  for_each_variant([](const Variant& v) {
    Pair p;
    TL_REQUIRE(open_pair(v, &p));
    const tl::Caps caps = p.attr().caps;
    if ((!caps.get_zcopy && !caps.put_zcopy) || p.a == p.b) return;
    // Registered on a, used on a's endpoint to b: b never issued this key.
    Target t;
    TL_REQUIRE(make_target(*p.a, 4096, tl::kAccessRead | tl::kAccessWrite, &t));
    expect_refused(p, "key issued by the initiator's own iface", t, t.rkey, t.base(), 64);
  });
}

TEST_CASE("flush: completes, and completed puts are visible") {
  for_each_variant([](const Variant& v) {
    Pair p;
    TL_REQUIRE(open_pair(v, &p));
    CHECK(do_flush(p, *p.ab) == Status::Ok);  // nothing outstanding
    CHECK(do_flush(p, *p.ba) == Status::Ok);
    if (p.attr().caps.am_short) {
      const std::byte x[4] = {};
      for (int i = 0; i < 100; ++i) CHECK(send_short(p, *p.ab, 9, {}, x) == Status::Ok);
      CHECK(do_flush(p, *p.ab) == Status::Ok);
    }
    if (!p.attr().caps.put_zcopy) return;
    constexpr size_t kChunk = 4096, kChunks = 64;
    Target t;
    TL_REQUIRE(make_target(*p.b, kChunk * kChunks, tl::kAccessWrite, &t));
    std::vector<std::byte> local(kChunk * kChunks);
    fill_pattern(local, 77);
    // Issue all puts before waiting, so several can be in flight when flush is called.
    std::vector<TestCompletion> comps(kChunks);
    size_t issued = 0;
    const auto deadline = std::chrono::steady_clock::now() + kWait;
    while (issued < kChunks && std::chrono::steady_clock::now() < deadline) {
      const Status st =
          p.ab->put_zcopy(std::span(local).subspan(issued * kChunk, kChunk),
                          t.base() + issued * kChunk, t.rkey, &comps[issued]);
      if (st == Status::NoResource) {
        p.progress();
        continue;
      }
      if (st == Status::Ok) comps[issued].done = true;
      CHECK_MESSAGE((st == Status::Ok || st == Status::InProgress), str(st));
      ++issued;
    }
    CHECK(issued == kChunks);
    CHECK(do_flush(p, *p.ab) == Status::Ok);
    // After flush every put has completed, with Ok.
    for (size_t i = 0; i < issued; ++i) {
      CHECK_MESSAGE(comps[i].done, "put " << i << " still pending after flush");
      CHECK(comps[i].status == Status::Ok);
    }
    CHECK(find_mismatch(t.mem, 77) == t.mem.size());
  });
}

}  // namespace
}  // namespace torus::tltest
