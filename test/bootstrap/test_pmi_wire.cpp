// Unit tests of the PMI wire formats: PMI-1 lines, PMI-2 frames (both header alignments, any
// field order, escaped ';'), hex values, chunking round trips, and malformed input refused.
#include <doctest/doctest.h>

#include <map>
#include <string>

#include "mpi_shim/bootstrap/kv_encoding.h"
#include "mpi_shim/bootstrap/pmi_wire.h"

using namespace torus;
using namespace torus::boot;

namespace {

std::string all_bytes() {
  std::string s;
  for (int i = 0; i < 256; ++i) s += static_cast<char>(i);
  return s;
}

// An in-memory key space standing in for a PMI server, recording the raw traffic.
struct FakeKvs {
  std::map<std::string, std::string> kv;
  size_t puts = 0, gets = 0;
  RawPut put() {
    return [this](const std::string& k, const std::string& v) -> Outcome {
      ++puts;
      kv[k] = v;
      return success();
    };
  }
  RawGet get() {
    return [this](const std::string& k) -> Result<std::string> {
      ++gets;
      auto it = kv.find(k);
      if (it == kv.end()) return make_error(Status::NotFound, "no " + k);
      return it->second;
    };
  }
};

}  // namespace

TEST_CASE("PMI-1 lines are built and parsed") {
  CHECK(pmi1_line("barrier_in") == "cmd=barrier_in\n");
  CHECK(pmi1_line("put", {{"kvsname", "kvs_1"}, {"key", "addr-0"}, {"value", "1:ab"}}) ==
        "cmd=put kvsname=kvs_1 key=addr-0 value=1:ab\n");

  auto f = parse_pmi1_line("cmd=get_result rc=0 msg=success value=(vector,(0,1,1))");
  REQUIRE(f.ok());
  CHECK(f->cmd() == "get_result");
  CHECK(f->get_int("rc").value() == 0);
  CHECK(*f->find("value") == "(vector,(0,1,1))");
  CHECK(f->find("nothing") == nullptr);

  SUBCASE("fields in any order, extra spaces and a CR") {
    auto g = parse_pmi1_line("  rc=0   cmd=response_to_init pmi_version=1\r");
    REQUIRE(g.ok());
    CHECK(g->cmd() == "response_to_init");
    CHECK(g->get_int("pmi_version").value() == 1);
  }
  SUBCASE("a value may contain '=' and may be empty") {
    auto g = parse_pmi1_line("cmd=my_kvsname kvsname= x=a=b");
    REQUIRE(g.ok());
    CHECK(g->find("kvsname")->empty());
    CHECK(*g->find("x") == "a=b");
  }
  SUBCASE("malformed lines are refused") {
    for (const char* bad : {"", "   ", "cmd=put garbage", "rc=0 msg=no_cmd", "=x cmd=a", "cmd="}) {
      CAPTURE(bad);
      auto g = parse_pmi1_line(bad);
      CHECK_FALSE(g.ok());
      if (!g.ok()) CHECK(g.status() == Status::ProtocolError);
    }
  }
  SUBCASE("integers are checked") {
    auto g = parse_pmi1_line("cmd=maxes keylen_max=64x vallen_max=");
    REQUIRE(g.ok());
    CHECK_FALSE(g->get_int("keylen_max").ok());
    CHECK_FALSE(g->get_int("vallen_max").ok());
    auto missing = g->get_int("kvsname_max");
    CHECK_FALSE(missing.ok());
    CHECK(missing.error().message.find("kvsname_max") != std::string::npos);
  }
}

TEST_CASE("PMI-2 frames: right-aligned out, either alignment in") {
  std::string frame = pmi2_frame("kvs-fence");
  CHECK(frame == "    14cmd=kvs-fence;");
  CHECK(pmi2_frame("kvs-put", {{"key", "a-1"}, {"value", "x"}}) ==
        "    28cmd=kvs-put;key=a-1;value=x;");

  CHECK(parse_pmi2_length("    27").value() == 27);  // Hydra
  CHECK(parse_pmi2_length("27    ").value() == 27);  // Slurm
  CHECK(parse_pmi2_length("  27  ").value() == 27);
  CHECK(parse_pmi2_length("999999").value() == 999999);
  for (const char* bad : {"      ", "2 7   ", "-1    ", "abcdef", "12345", "1234567", "0x10  "}) {
    CAPTURE(bad);
    CHECK_FALSE(parse_pmi2_length(bad).ok());
  }
}

TEST_CASE("PMI-2 bodies: any field order, optional trailing ';', escaped ';'") {
  auto hydra = parse_pmi2_body(
      "cmd=fullinit-response;pmi-version=2;pmi-subversion=0;rank=1;size=2;appnum=0;"
      "debugged=FALSE;pmiverbose=FALSE;rc=0;");
  auto slurm = parse_pmi2_body(
      "cmd=fullinit-response;rc=0;pmi-version=2;pmi-subversion=0;rank=1;size=2;appnum=-1;"
      "debugged=FALSE;pmiverbose=FALSE;");
  for (auto* r : {&hydra, &slurm}) {
    REQUIRE(r->ok());
    CHECK((*r)->cmd() == "fullinit-response");
    CHECK((*r)->get_int("rank").value() == 1);
    CHECK((*r)->get_int("size").value() == 2);
    CHECK(expect_rc_zero(**r, "fullinit").ok());
  }
  CHECK(slurm->get_int("appnum").value() == -1);

  auto late_cmd = parse_pmi2_body("found=TRUE;value=v;rc=0;cmd=kvs-get-response");
  REQUIRE(late_cmd.ok());
  CHECK(late_cmd->cmd() == "kvs-get-response");
  CHECK(*late_cmd->find("value") == "v");

  auto empty_value = parse_pmi2_body("cmd=kvs-get;jobid=;srcid=-1;key=k;");
  REQUIRE(empty_value.ok());
  CHECK(empty_value->find("jobid")->empty());

  // A ';' inside a value is doubled on the wire, both ways.
  std::string frame = pmi2_frame("abort", {{"isworld", "TRUE"}, {"msg", "a;b"}});
  CHECK(frame.substr(kPmi2HeaderLen) == "cmd=abort;isworld=TRUE;msg=a;;b;");
  auto round = parse_pmi2_body(frame.substr(kPmi2HeaderLen));
  REQUIRE(round.ok());
  CHECK(*round->find("msg") == "a;b");
  CHECK(parse_pmi2_length(frame.substr(0, kPmi2HeaderLen)).value() ==
        frame.size() - kPmi2HeaderLen);

  for (const char* bad : {"", ";", "rc=0;", "cmd=x;novalue;", "=v;cmd=x;", "key;=v;cmd=x;"}) {
    CAPTURE(bad);
    auto r = parse_pmi2_body(bad);
    CHECK_FALSE(r.ok());
  }
}

TEST_CASE("expect_cmd and expect_rc_zero explain refusals") {
  auto f = parse_pmi2_body("cmd=fullinit-response;rc=3;errmsg=pmijobid missing;");
  REQUIRE(f.ok());
  CHECK(expect_cmd(*f, "fullinit-response").ok());
  auto wrong = expect_cmd(*f, "kvs-fence-response");
  REQUIRE_FALSE(wrong.ok());
  CHECK(wrong.error().message.find("kvs-fence-response") != std::string::npos);
  auto rc = expect_rc_zero(*f, "fullinit");
  REQUIRE_FALSE(rc.ok());
  CHECK(rc.error().message.find("rc=3") != std::string::npos);
  CHECK(rc.error().message.find("pmijobid missing") != std::string::npos);
  auto barrier = parse_pmi1_line("cmd=barrier_out");
  CHECK(expect_rc_zero(*barrier, "barrier").ok());  // no rc means success
}

TEST_CASE("hex encoding round-trips every byte and refuses bad input") {
  std::string bytes = all_bytes();
  std::string hex = hex_encode(bytes);
  CHECK(hex.size() == 512);
  CHECK(hex.substr(0, 8) == "00010203");
  CHECK(hex.substr(hex.size() - 4) == "feff");
  CHECK(hex_decode(hex).value() == bytes);
  CHECK(hex_decode("ABcd").value() == "\xab\xcd");
  CHECK(hex_decode("").value().empty());
  CHECK_FALSE(hex_decode("abc").ok());
  CHECK_FALSE(hex_decode("zz").ok());
  CHECK_FALSE(hex_decode("0g").ok());
}

TEST_CASE("wire keys are distinct per key, rank and chunk") {
  CHECK(wire_key("addr", 0) == "addr-0");
  CHECK(wire_key("addr", 12, 3) == "addr-12.3");
  CHECK(wire_key("addr-1", 2) != wire_key("addr", 12));
  CHECK(is_valid_user_key("torus.host"));
  for (const char* bad : {"", "a b", "a=b", "a;b", "a\nb"}) {
    CAPTURE(bad);
    CHECK_FALSE(is_valid_user_key(bad));
  }
}

TEST_CASE("values split under vallen_max and join back") {
  const WireLimits limits{.keylen_max = 64, .vallen_max = 32};  // 31 characters per chunk
  for (size_t n : {0, 1, 14, 15, 16, 29, 30, 31, 100, 1000}) {
    CAPTURE(n);
    std::string value;
    for (size_t i = 0; i < n; ++i) value += static_cast<char>(i * 7 + n);
    auto chunks = split_value(value, limits);
    REQUIRE(chunks.ok());
    for (const std::string& c : *chunks) CHECK(c.size() <= limits.vallen_max - 1);
    auto first = parse_first_chunk((*chunks)[0]);
    REQUIRE(first.ok());
    CHECK(first->count == chunks->size());

    FakeKvs kvs;
    REQUIRE(put_chunked(kvs.put(), 3, "addr", value, limits).ok());
    CHECK(kvs.puts == chunks->size());
    auto back = get_chunked(kvs.get(), 3, "addr");
    REQUIRE(back.ok());
    CHECK(*back == value);
    CHECK(kvs.gets == chunks->size());
  }
  // 14 bytes = 28 hex characters + "1:" fit one 31-character chunk; 15 do not.
  CHECK(split_value(std::string(14, 'x'), limits)->size() == 1);
  CHECK(split_value(std::string(15, 'x'), limits)->size() == 2);
}

TEST_CASE("a Hydra-sized worker address fits the real limits") {
  const WireLimits hydra{.keylen_max = 64, .vallen_max = 1024};
  FakeKvs kvs;
  std::string value = all_bytes() + all_bytes() + all_bytes();  // 768 bytes: 2 chunks
  REQUIRE(put_chunked(kvs.put(), 1234, "addr", value, hydra).ok());
  CHECK(kvs.kv.size() == 2);
  CHECK(kvs.kv.count("addr-1234") == 1);
  CHECK(kvs.kv.count("addr-1234.1") == 1);
  CHECK(get_chunked(kvs.get(), 1234, "addr").value() == value);
  CHECK(get_chunked(kvs.get(), 1233, "addr").status() == Status::NotFound);
}

TEST_CASE("chunking refuses what the server cannot hold, and corrupt chunks") {
  FakeKvs kvs;
  auto long_key = put_chunked(kvs.put(), 0, std::string(70, 'k'), "v", WireLimits{});
  REQUIRE_FALSE(long_key.ok());
  CHECK(long_key.error().message.find("keylen_max") != std::string::npos);
  CHECK_FALSE(put_chunked(kvs.put(), 0, "bad key", "v", WireLimits{}).ok());
  CHECK_FALSE(split_value("v", WireLimits{.keylen_max = 64, .vallen_max = 4}).ok());
  CHECK_FALSE(
      split_value(std::string(1 << 20, 'v'), WireLimits{.keylen_max = 64, .vallen_max = 64}).ok());
  CHECK(kvs.puts == 0);

  for (const char* bad : {"", "abcd", ":ab", "0:ab", "x:ab", "99999999999999999999:ab", "2ab"}) {
    CAPTURE(bad);
    CHECK_FALSE(parse_first_chunk(bad).ok());
  }
  // Chunk 0 announces three chunks but the server lost one; or the hex is corrupt.
  kvs.kv["addr-0"] = "3:00";
  kvs.kv["addr-0.1"] = "11";
  auto lost = get_chunked(kvs.get(), 0, "addr");
  REQUIRE_FALSE(lost.ok());
  CHECK(lost.status() == Status::ProtocolError);
  CHECK(lost.error().message.find("chunk 2 of 3") != std::string::npos);
  kvs.kv["addr-1"] = "1:0z";
  CHECK(get_chunked(kvs.get(), 1, "addr").status() == Status::ProtocolError);
}
