// Unit tests of mpirun's pure parts: PMI-1 line parsing, host lists and hostfiles, the
// command line, placement and PMI_process_mapping, shell quoting for the remote agent.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "mpi_shim/launcher/hostfile.h"
#include "mpi_shim/launcher/job_env.h"
#include "mpi_shim/launcher/layout.h"
#include "mpi_shim/launcher/options.h"
#include "mpi_shim/launcher/output.h"
#include "mpi_shim/launcher/pmi_wire.h"

using namespace torus;
using namespace torus::launcher;

namespace {

Result<Options> parse(std::vector<const char*> args) {
  args.insert(args.begin(), "mpirun");
  return parse_options(static_cast<int>(args.size()), args.data());
}

std::string write_file(const std::string& text) {
  char name[] = "/tmp/torus-hostfile-XXXXXX";
  int fd = mkstemp(name);
  REQUIRE(fd >= 0);
  close(fd);
  std::ofstream(name) << text;
  return name;
}

}  // namespace

TEST_CASE("pmi wire: commands, keys in any order, malformed lines") {
  auto c = pmi::parse_line("cmd=put kvsname=k key=a value=b");
  REQUIRE(c.ok());
  CHECK(c->cmd == "put");
  CHECK(*c->find("value") == "b");
  CHECK(*c->find("kvsname") == "k");
  CHECK(c->find("nope") == nullptr);
  auto spaced = pmi::parse_line("cmd=abort  exitcode=7 message=rank 1 gave up\r");
  REQUIRE(spaced.ok());
  CHECK(*spaced->find("exitcode") == "7");
  CHECK(*spaced->find("message") == "rank 1 gave up");
  CHECK(pmi::parse_line("cmd=barrier_in").ok());
  CHECK(pmi::parse_line("value=1 cmd=put").status() == Status::ProtocolError);
  CHECK(!pmi::parse_line("this is not pmi").ok());
  CHECK(!pmi::parse_line("").ok());
  CHECK(!pmi::parse_line("cmd=").ok());
  CHECK(!pmi::parse_line("cmd=put =x").ok());
  CHECK(!pmi::parse_line(std::string("cmd=put key=a\x01")).ok());
  CHECK(!pmi::parse_line("cmd=put value=" + std::string(pmi::kLineMax, 'x')).ok());
}

TEST_CASE("host lists") {
  std::vector<HostSlots> h;
  std::string err;
  CHECK(parse_host_list("a:2,b,a", h, &err) == Status::Ok);
  REQUIRE(h.size() == 2);
  CHECK(h[0].name == "a");
  CHECK(h[0].slots == 3);
  CHECK(h[1].slots == 1);
  CHECK(parse_host_list("a:0", h, &err) != Status::Ok);
  CHECK(parse_host_list("a,,b", h, &err) != Status::Ok);
  CHECK(err.find("HOST:SLOTS") != std::string::npos);
}

TEST_CASE("hostfiles: both spellings, comments, errors name file and line") {
  std::string f = write_file("# cluster\n\nn1 slots=4 max_slots=8\nn2:2  # mpich\nn3\n");
  auto h = read_hostfile(f);
  REQUIRE(h.ok());
  REQUIRE(h->size() == 3);
  CHECK((*h)[0].slots == 4);
  CHECK((*h)[1].slots == 2);
  CHECK((*h)[2].slots == 1);
  std::remove(f.c_str());
  f = write_file("n1 slots=2\nn2 slots=x\n");
  auto bad = read_hostfile(f);
  REQUIRE(!bad.ok());
  CHECK(bad.error().message.find(f + ":2:") == 0);
  CHECK(bad.error().message.find("'n2 slots=x'") != std::string::npos);
  std::remove(f.c_str());
  CHECK(!read_hostfile("/nonexistent/hosts").ok());
}

TEST_CASE("command line: options, program words, MPMD, --") {
  auto o = parse({"-np", "4", "--tag-output", "-x", "A", "--env=B=1", "--timeout", "2.5",
                  "prog", "-n", "7", "--weird"});
  REQUIRE(o.ok());
  REQUIRE(o->apps.size() == 1);
  CHECK(o->apps[0].nranks == 4);
  CHECK(o->apps[0].argv == std::vector<std::string>{"prog", "-n", "7", "--weird"});
  CHECK(o->tag_output);
  CHECK(o->timeout_s == 2.5);
  CHECK(o->env_sets[0].first == "B");
  auto m = parse({"-n", "1", "a", "x", ":", "-n", "2", "--", "-b-"});
  REQUIRE(m.ok());
  REQUIRE(m->apps.size() == 2);
  CHECK(m->apps[1].argv[0] == "-b-");
  CHECK(!parse({"-n", "1", "a", ":", "b"}).ok());  // MPMD program without -n
  CHECK(!parse({"-n", "1", "a", ":"}).ok());
  CHECK(!parse({"--nope", "a"}).ok());
  CHECK(!parse({"-n", "x", "a"}).ok());
  CHECK(!parse({"--env", "NOEQUALS", "a"}).ok());
  CHECK(!parse({}).ok());
  CHECK(parse({"--help"})->show_help);
}

TEST_CASE("layout: slots, oversubscription, local ranks, process mapping") {
  auto o = parse({"-n", "3", "p"});
  REQUIRE(o.ok());
  std::vector<HostSlots> hosts = {{"localhost", 2}};
  auto refused = make_layout(*o, hosts, true);
  REQUIRE(!refused.ok());
  CHECK(refused.error().message.find("--oversubscribe") != std::string::npos);
  o->oversubscribe = true;
  auto lay = make_layout(*o, hosts, true);
  REQUIRE(lay.ok());
  CHECK(lay->ranks.size() == 3);
  CHECK(lay->ranks[2].local_rank == 2);
  CHECK(lay->ranks[2].local_size == 3);
  CHECK(lay->process_mapping == "(vector,(0,1,3))");
  // Two remote hosts (documentation addresses, never this machine): one node each.
  auto o2 = parse({"-n", "3", "p"});
  std::vector<HostSlots> two = {{"192.0.2.1", 2}, {"192.0.2.2", 1}};
  auto lay2 = make_layout(*o2, two, true);
  REQUIRE(lay2.ok());
  CHECK(lay2->ranks[2].node == 1);
  CHECK(lay2->ranks[2].local_rank == 0);
  CHECK(lay2->ranks[1].local_size == 2);
  CHECK(lay2->process_mapping == "(vector,(0,1,2),(1,1,1))");
}

TEST_CASE("shell quoting for the remote shell") {
  CHECK(shell_quote("plain/path-1.x") == "plain/path-1.x");
  CHECK(shell_quote("") == "''");
  CHECK(shell_quote("a b") == "'a b'");
  CHECK(shell_quote("it's") == "'it'\\''s'");
  CHECK(shell_quote("$HOME;rm") == "'$HOME;rm'");
}
