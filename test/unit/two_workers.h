// Two workers of one process (they reach each other over shm), made while the given
// variables are set, so the context reads them; a sends to b through ep.
#pragma once

#include <doctest/doctest.h>

#include <cstdlib>
#include <initializer_list>
#include <memory>
#include <utility>

#include "core/api/torus.hpp"

namespace torus::test {

struct TwoWorkers {
  explicit TwoWorkers(std::initializer_list<std::pair<const char*, const char*>> env = {}) {
    for (const auto& [var, value] : env) setenv(var, value, 1);
    auto c = Context::create();
    for (const auto& [var, value] : env) unsetenv(var);
    REQUIRE(c.ok());
    ctx = std::move(c.value());
    auto wa = ctx->create_worker();
    auto wb = ctx->create_worker();
    REQUIRE(wa.ok());
    REQUIRE(wb.ok());
    a = std::move(wa.value());
    b = std::move(wb.value());
    auto e = a->connect(b->address());
    REQUIRE(e.ok());
    ep = e.value();
  }
  std::unique_ptr<Context> ctx;
  std::unique_ptr<Worker> a, b;
  Endpoint* ep = nullptr;
};

}  // namespace torus::test
