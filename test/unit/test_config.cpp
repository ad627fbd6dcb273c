// Unit tests of the configuration registry: typed parsers, loading from an environment,
// error and warning messages, overrides and show().
#include <doctest/doctest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "core/base/config.h"

using namespace torus;
using namespace torus::config;

namespace {

// Builds a null-terminated envp from literal entries.
struct Env {
  std::vector<std::string> entries;
  std::vector<const char*> ptrs;
  Env(std::initializer_list<const char*> list) : entries(list.begin(), list.end()) {
    for (const std::string& e : entries) ptrs.push_back(e.c_str());
    ptrs.push_back(nullptr);
  }
  const char* const* envp() const { return ptrs.data(); }
};

bool contains(const std::string& s, std::string_view what) {
  return s.find(what) != std::string::npos;
}

}  // namespace

TEST_CASE("parse_size accepts suffixes, inf and auto") {
  CHECK(parse_size("0", false).value() == 0);
  CHECK(parse_size("100", false).value() == 100);
  CHECK(parse_size("100b", false).value() == 100);
  CHECK(parse_size("8k", false).value() == 8192);
  CHECK(parse_size("16K", false).value() == 16384);
  CHECK(parse_size("8kb", false).value() == 8192);
  CHECK(parse_size("4MiB", false).value() == 4ull << 20);
  CHECK(parse_size("4m", false).value() == 4ull << 20);
  CHECK(parse_size("1g", false).value() == 1ull << 30);
  CHECK(parse_size("2T", false).value() == 2ull << 40);
  CHECK(parse_size(" 8k ", false).value() == 8192);
  CHECK(parse_size("inf", false).value() == kSizeInf);
  CHECK(parse_size("INF", false).value() == kSizeInf);
  CHECK(parse_size("auto", true).value() == kSizeAuto);
  CHECK(parse_size("Auto", true).value() == kSizeAuto);
}

TEST_CASE("parse_size rejects negative, overflow, empty and garbage") {
  for (const char* bad : {"", "  ", "-1", "-8k", "12q", "k", "8kk", "8 k x", "1.5m", "0x10",
                          "8kib2", "99999999999999999999", "16777216t", "18446744073709551614"}) {
    CAPTURE(bad);
    auto r = parse_size(bad, true);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status() == Status::InvalidParam);
    CHECK(contains(r.error().message, "expected a size such as 8k, 4m, inf or auto"));
  }
  auto r = parse_size("auto", false);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message == "expected a size such as 8k, 4m or inf");
  CHECK(contains(parse_size("99999999999999999999", false).error().message, "too large"));
  // The largest representable size sits just below the sentinels.
  CHECK(parse_size("18446744073709551613", false).value() == kSizeAuto - 1);
  CHECK(parse_size("16777215t", false).value() == 16777215ull << 40);
}

TEST_CASE("parse_int") {
  CHECK(parse_int("256", false).value() == 256);
  CHECK(parse_int("-3", false).value() == -3);
  CHECK(parse_int("+7", false).value() == 7);
  CHECK(parse_int("auto", true).value() == kIntAuto);
  CHECK_FALSE(parse_int("auto", false).ok());
  CHECK_FALSE(parse_int("", false).ok());
  CHECK_FALSE(parse_int("12x", false).ok());
  CHECK_FALSE(parse_int("+-1", false).ok());
  CHECK_FALSE(parse_int("99999999999999999999", false).ok());
  CHECK_FALSE(parse_int("-9223372036854775808", false).ok());  // reserved for auto
}

TEST_CASE("parse_duration") {
  CHECK(parse_duration("2s", false).value() == doctest::Approx(2.0));
  CHECK(parse_duration("2", false).value() == doctest::Approx(2.0));
  CHECK(parse_duration("1ms", false).value() == doctest::Approx(1e-3));
  CHECK(parse_duration("1.5ms", false).value() == doctest::Approx(1.5e-3));
  CHECK(parse_duration("10us", false).value() == doctest::Approx(10e-6));
  CHECK(parse_duration("10US", false).value() == doctest::Approx(10e-6));
  CHECK(parse_duration("500ns", false).value() == doctest::Approx(500e-9));
  CHECK(parse_duration("0", false).value() == 0.0);
  CHECK(parse_duration("inf", false).value() == kDurationInf);
  CHECK(parse_duration("auto", true).value() == kDurationAuto);
  for (const char* bad : {"", "-1s", "10m", "10 xs", "s", "1e3s", "nan", "auto", "1.2.3s"}) {
    CAPTURE(bad);
    auto r = parse_duration(bad, false);
    REQUIRE_FALSE(r.ok());
    CHECK(contains(r.error().message, "expected a duration such as 10us"));
  }
}

TEST_CASE("parse_bool") {
  for (const char* yes : {"y", "Y", "yes", "1", "on", "ON", "true", "True"}) {
    CAPTURE(yes);
    CHECK(parse_bool(yes).value());
  }
  for (const char* no : {"n", "no", "NO", "0", "off", "false", "FALSE"}) {
    CAPTURE(no);
    CHECK_FALSE(parse_bool(no).value());
  }
  auto r = parse_bool("maybe");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message == "accepted values are y|n|yes|no|1|0|on|off|true|false");
  CHECK_FALSE(parse_bool("").ok());
  CHECK_FALSE(parse_bool("2").ok());
}

TEST_CASE("parse_enum returns the declared spelling") {
  CHECK(parse_enum("multi", "single|multi").value() == "multi");
  CHECK(parse_enum("MULTI", "single|multi").value() == "multi");
  CHECK(parse_enum("single", "single|multi").value() == "single");
  auto r = parse_enum("mult", "single|multi");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message == "accepted values are single|multi");
  CHECK_FALSE(parse_enum("", "single|multi").ok());
  CHECK_FALSE(parse_enum("single|multi", "single|multi").ok());
}

TEST_CASE("every declared variable has a parsable default and documentation") {
  for (const VarDecl& d : all_vars()) {
    CAPTURE(d.name);
    CHECK(d.name.starts_with("TORUS_"));
    CHECK_FALSE(d.doc.empty());
    CHECK(find_var(d.name) == &d);
    CHECK((d.type == Type::Enum) == !d.choices.empty());
  }
  auto c = Config::load(Env{}.envp());
  REQUIRE_MESSAGE(c.ok(), c.error().message);
  CHECK(c->warnings().empty());
  for (const VarDecl& d : all_vars()) {
    CAPTURE(d.name);
    CHECK(c->source(d.name) == Source::Default);
  }
  CHECK(find_var("TORUS_NOT_A_VARIABLE") == nullptr);
}

TEST_CASE("defaults") {
  auto c = Config::load(Env{"PATH=/bin", "HOME=/root"}.envp());
  REQUIRE(c.ok());
  CHECK(c->get_string("TORUS_LOG_LEVEL") == "warn");
  CHECK(c->get_string("TORUS_TLS") == "all");
  CHECK(c->get_string("TORUS_JOB_ID").empty());
  CHECK(c->get_size("TORUS_RNDV_THRESH") == kSizeAuto);
  CHECK(c->get_size("TORUS_RNDV_FRAG_SIZE") == 4u << 20);
  CHECK(c->get_size("TORUS_SHM_SEG_SIZE") == 8192);
  CHECK(c->get_int("TORUS_SHM_FIFO_SIZE") == 256);
  CHECK_FALSE(c->get_bool("TORUS_PROTO_INFO"));
  CHECK(c->get_duration("TORUS_SPIN_TIME") == kDurationAuto);
}

TEST_CASE("the environment overrides defaults") {
  Env env{"TORUS_RNDV_THRESH=16k", "TORUS_PROTO_INFO=yes", "TORUS_SHM_CMA=N",
          "TORUS_SPIN_TIME=1.5ms", "TORUS_TLS=shm,tcp", "TORUS_SHM_FIFO_SIZE=1024",
          "NOT_TORUS=1"};
  auto c = Config::load(env.envp());
  REQUIRE_MESSAGE(c.ok(), c.error().message);
  CHECK(c->get_size("TORUS_RNDV_THRESH") == 16384);
  CHECK(c->source("TORUS_RNDV_THRESH") == Source::Environment);
  CHECK(c->source("TORUS_ZCOPY_THRESH") == Source::Default);
  CHECK(c->get_bool("TORUS_PROTO_INFO"));
  CHECK(c->get_string("TORUS_SHM_CMA") == "n");
  CHECK(c->get_duration("TORUS_SPIN_TIME") == doctest::Approx(1.5e-3));
  CHECK(c->get_string("TORUS_TLS") == "shm,tcp");
  CHECK(c->get_int("TORUS_SHM_FIFO_SIZE") == 1024);
  CHECK(c->warnings().empty());
}

TEST_CASE("load() without envp reads the process environment") {
  REQUIRE(setenv("TORUS_SHM_BOUNCE_SIZE", "64k", 1) == 0);
  auto c = Config::load();
  unsetenv("TORUS_SHM_BOUNCE_SIZE");
  REQUIRE_MESSAGE(c.ok(), c.error().message);
  CHECK(c->get_size("TORUS_SHM_BOUNCE_SIZE") == 65536);
  CHECK(c->source("TORUS_SHM_BOUNCE_SIZE") == Source::Environment);
}

TEST_CASE("first duplicate wins and an empty value means unset") {
  Env env{"TORUS_RNDV_FRAG_SIZE=2m", "TORUS_RNDV_FRAG_SIZE=4m", "TORUS_SHM_SEG_SIZE="};
  auto c = Config::load(env.envp());
  REQUIRE(c.ok());
  CHECK(c->get_size("TORUS_RNDV_FRAG_SIZE") == 2u << 20);  // as getenv() would see it
  CHECK(c->get_size("TORUS_SHM_SEG_SIZE") == 8192);
  CHECK(c->source("TORUS_SHM_SEG_SIZE") == Source::Default);
}

TEST_CASE("a bad value names the variable, quotes the value and says what is accepted") {
  {
    auto c = Config::load(Env{"TORUS_SHM_CMA=maybe"}.envp());
    REQUIRE_FALSE(c.ok());
    CHECK(c.status() == Status::InvalidParam);
    CHECK(c.error().message ==
          "TORUS_SHM_CMA=\"maybe\" is invalid: accepted values are auto|y|n");
  }
  {
    auto c = Config::load(Env{"TORUS_RNDV_THRESH=12q"}.envp());
    REQUIRE_FALSE(c.ok());
    CHECK(c.error().message ==
          "TORUS_RNDV_THRESH=\"12q\" is invalid: expected a size such as 8k, 4m, inf or auto");
  }
  {
    auto c = Config::load(Env{"TORUS_RNDV_FRAG_SIZE=auto"}.envp());
    REQUIRE_FALSE(c.ok());
    CHECK(c.error().message ==
          "TORUS_RNDV_FRAG_SIZE=\"auto\" is invalid: expected a size such as 8k, 4m or inf");
  }
  {
    auto c = Config::load(Env{"TORUS_PROTO_INFO=2"}.envp());
    REQUIRE_FALSE(c.ok());
    CHECK(contains(c.error().message, "TORUS_PROTO_INFO=\"2\" is invalid: accepted values are y|n"));
  }
  {
    auto c = Config::load(Env{"TORUS_SPIN_TIME=10m"}.envp());
    REQUIRE_FALSE(c.ok());
    CHECK(contains(c.error().message, "TORUS_SPIN_TIME=\"10m\" is invalid: expected a duration"));
  }
  {
    auto c = Config::load(Env{"TORUS_LOG_LEVEL=verbose"}.envp());
    REQUIRE_FALSE(c.ok());
    CHECK(c.error().message == "TORUS_LOG_LEVEL=\"verbose\" is invalid: accepted values are "
                               "error|warn|info|debug|trace");
  }
}

TEST_CASE("unknown TORUS_ variables warn with the closest name") {
  Env env{"TORUS_RNDV_TRESH=8k", "TORUS_shm_cma=y", "TORUS_WIBBLE=1", "TORUS_RANK=3",
          "TORUS_LOCAL_SIZE=4"};
  auto c = Config::load(env.envp());
  REQUIRE(c.ok());
  const auto& w = c->warnings();
  REQUIRE(w.size() == 3);
  CHECK(w[0] == "unknown variable TORUS_RNDV_TRESH; did you mean TORUS_RNDV_THRESH?");
  CHECK(w[1] == "unknown variable TORUS_shm_cma; did you mean TORUS_SHM_CMA?");
  CHECK(contains(w[2], "unknown variable TORUS_WIBBLE"));
  CHECK_FALSE(contains(w[2], "did you mean"));
  CHECK(c->get_size("TORUS_RNDV_THRESH") == kSizeAuto);  // the misspelling changed nothing
}

TEST_CASE("closest_var") {
  CHECK(closest_var("TORUS_RNDV_TRESH") == "TORUS_RNDV_THRESH");
  CHECK(closest_var("TORUS_ZCOPY_THRES") == "TORUS_ZCOPY_THRESH");
  CHECK(closest_var("TORUS_SHM_FIFO_SZ") == "TORUS_SHM_FIFO_SIZE");
  CHECK(closest_var("torus_log_level") == "TORUS_LOG_LEVEL");
  CHECK_FALSE(closest_var("anything").empty());
}

TEST_CASE("set() parses like the environment and marks an override") {
  auto c = Config::load(Env{"TORUS_RNDV_THRESH=16k"}.envp());
  REQUIRE(c.ok());
  std::string err;
  CHECK(c->set("TORUS_RNDV_THRESH", "64K", &err) == Status::Ok);
  CHECK(c->get_size("TORUS_RNDV_THRESH") == 65536);
  CHECK(c->source("TORUS_RNDV_THRESH") == Source::Override);

  CHECK(c->set("TORUS_RNDV_THRESH", "lots", &err) == Status::InvalidParam);
  CHECK(err == "TORUS_RNDV_THRESH=\"lots\" is invalid: expected a size such as 8k, 4m, inf or auto");
  CHECK(c->get_size("TORUS_RNDV_THRESH") == 65536);  // a rejected value changes nothing
  CHECK(c->show("TORUS_RNDV_THRESH") == "64K");

  CHECK(c->set("TORUS_RNDV_TRESH", "1m", &err) == Status::NotFound);
  CHECK(contains(err, "did you mean TORUS_RNDV_THRESH?"));
  CHECK(c->set("TORUS_PROTO", "RNDV_GET") == Status::Ok);
  CHECK(c->get_string("TORUS_PROTO") == "rndv_get");
  CHECK(c->set("TORUS_PROTO", "rndv") == Status::InvalidParam);  // a null error is fine
  CHECK(c->get_string("TORUS_PROTO") == "rndv_get");
}

TEST_CASE("show() renders the effective value") {
  auto c = Config::load(Env{}.envp());
  REQUIRE(c.ok());
  CHECK(c->show("TORUS_SHM_SEG_SIZE") == "8K");
  CHECK(c->show("TORUS_RNDV_FRAG_SIZE") == "4M");
  CHECK(c->show("TORUS_RNDV_THRESH") == "auto");
  CHECK(c->show("TORUS_SPIN_TIME") == "auto");
  CHECK(c->show("TORUS_PROTO_INFO") == "n");
  CHECK(c->show("TORUS_SHM_FIFO_SIZE") == "256");
  CHECK(c->show("TORUS_THREAD_MODE") == "single");
  CHECK(c->show("TORUS_JOB_ID").empty());

  struct Case { const char* name; const char* text; const char* shown; };
  for (const Case& k : {Case{"TORUS_RNDV_THRESH", "inf", "inf"},
                        Case{"TORUS_RNDV_THRESH", "0", "0"},
                        Case{"TORUS_RNDV_THRESH", "1000", "1000"},
                        Case{"TORUS_RNDV_THRESH", "1536", "1536"},
                        Case{"TORUS_RNDV_THRESH", "3072", "3K"},
                        Case{"TORUS_RNDV_THRESH", "4mib", "4M"},
                        Case{"TORUS_RNDV_THRESH", "2048m", "2G"},
                        Case{"TORUS_RNDV_THRESH", "3t", "3T"},
                        Case{"TORUS_SPIN_TIME", "10us", "10us"},
                        Case{"TORUS_SPIN_TIME", "1.5ms", "1.5ms"},
                        Case{"TORUS_SPIN_TIME", "500ns", "500ns"},
                        Case{"TORUS_SPIN_TIME", "2", "2s"},
                        Case{"TORUS_SPIN_TIME", "0.25", "250ms"},
                        Case{"TORUS_SPIN_TIME", "1234567ns", "1.234567ms"},
                        Case{"TORUS_SPIN_TIME", "0", "0s"},
                        Case{"TORUS_SPIN_TIME", "inf", "inf"},
                        Case{"TORUS_PROTO_INFO", "on", "y"},
                        Case{"TORUS_PROTO_INFO", "off", "n"},
                        Case{"TORUS_SHM_CMA", "Y", "y"},
                        Case{"TORUS_TLS", "^tcp", "^tcp"}}) {
    CAPTURE(k.name);
    CAPTURE(k.text);
    REQUIRE(c->set(k.name, k.text) == Status::Ok);
    CHECK(c->show(k.name) == k.shown);
  }
}

TEST_CASE("tuning_markdown lists every variable") {
  const std::string md = tuning_markdown();
  CHECK(md.starts_with("# Tuning torus: every TORUS_* variable\n"));
  CHECK(contains(md, "| Variable | Default | Unit | Description |"));
  for (const VarDecl& d : all_vars()) {
    CAPTURE(d.name);
    CHECK(contains(md, "| `" + std::string(d.name) + "` |"));
  }
  // Pipes inside a cell must be escaped or they split the table.
  CHECK(contains(md, "`auto\\|y\\|n`"));
}
