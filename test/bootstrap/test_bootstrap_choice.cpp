// Unit tests of the client choice (TORUS_BOOTSTRAP and launcher variables), local ranks from
// every source, the singleton, and the PMI-1/PMI-2 clients against a scripted server on a
// socketpair: full conversations, refusals, malformed answers and EOF end in errors, not hangs.
#include <doctest/doctest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <map>
#include <string>
#include <thread>
#include <vector>

#include "mpi_shim/bootstrap/choose_client.h"
#include "mpi_shim/bootstrap/local_ranks.h"
#include "mpi_shim/bootstrap/pmi1_client.h"
#include "mpi_shim/bootstrap/pmi2_client.h"
#include "mpi_shim/bootstrap/singleton.h"

using namespace torus;
using namespace torus::boot;

namespace {

struct FakeEnv {
  std::map<std::string, std::string> vars;
  EnvFn fn() const {
    return [this](const char* name) -> const char* {
      auto it = vars.find(name);
      return it == vars.end() ? nullptr : it->second.c_str();
    };
  }
};

Result<ClientKind> choose(std::string_view setting, const FakeEnv& env, bool pmix = true) {
  return choose_client(setting, env.fn(), pmix);
}

bool mentions(const Error& e, std::string_view what) {
  return e.message.find(what) != std::string::npos;
}

// A PMI server that answers each request with the next scripted reply; an empty reply closes
// the connection. Requests are recorded (lines without "\n", frame bodies without header).
class ScriptedServer {
 public:
  explicit ScriptedServer(std::vector<std::string> replies) : replies_(std::move(replies)) {
    int sv[2];
    REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    client_fd_ = sv[0];
    server_fd_ = sv[1];
    thread_ = std::thread([this] { serve(); });
  }
  ~ScriptedServer() {
    if (thread_.joinable()) thread_.join();
    if (server_fd_ >= 0) close(server_fd_);
  }
  // The client side, as PMI_FD; the client closes it.
  std::string fd() const { return std::to_string(client_fd_); }
  // Valid once the client is done (the destructor joined) or the server closed.
  const std::vector<std::string>& requests() {
    if (thread_.joinable()) thread_.join();
    return requests_;
  }

 private:
  bool fill() {
    char b[4096];
    ssize_t n = read(server_fd_, b, sizeof(b));
    if (n <= 0) return false;
    buf_.append(b, static_cast<size_t>(n));
    return true;
  }
  bool next_request(std::string& req) {
    for (;;) {
      if (buf_.rfind("cmd=", 0) == 0) {
        size_t nl = buf_.find('\n');
        if (nl != std::string::npos) {
          req = buf_.substr(0, nl);
          buf_.erase(0, nl + 1);
          return true;
        }
      } else if (buf_.size() >= 6) {
        size_t len = std::stoul(buf_.substr(0, 6));
        if (buf_.size() >= 6 + len) {
          req = buf_.substr(6, len);
          buf_.erase(0, 6 + len);
          return true;
        }
      }
      if (!fill()) return false;
    }
  }
  void serve() {
    for (const std::string& reply : replies_) {
      std::string req;
      if (!next_request(req)) break;
      requests_.push_back(req);
      if (reply.empty()) break;
      if (write(server_fd_, reply.data(), reply.size()) != static_cast<ssize_t>(reply.size()))
        break;
    }
    close(server_fd_);
    server_fd_ = -1;
  }

  std::vector<std::string> replies_;
  std::vector<std::string> requests_;
  std::string buf_;
  int client_fd_ = -1;
  int server_fd_ = -1;
  std::thread thread_;
};

std::string frame(std::string_view body, bool left_aligned) {
  char h[8];
  std::snprintf(h, sizeof(h), left_aligned ? "%-6zu" : "%6zu", body.size());
  return std::string(h, 6) + std::string(body);
}

const std::vector<std::string> kPmi1Init = {
    "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n",
    "cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024\n",
    "cmd=appnum appnum=0\n",
    "cmd=my_kvsname kvsname=kvs_42_0\n",
};

}  // namespace

TEST_CASE("auto picks the client from the launcher's variables") {
  FakeEnv none;
  CHECK(choose("auto", none).value() == ClientKind::Singleton);

  FakeEnv hydra{{{"PMI_FD", "6"}, {"PMI_RANK", "0"}, {"PMI_SIZE", "2"}, {"MPI_LOCALRANKID", "0"}}};
  CHECK(choose("auto", hydra).value() == ClientKind::Pmi1);
  hydra.vars["PMI_VERSION"] = "2";
  CHECK(choose("auto", hydra).value() == ClientKind::Pmi2);

  FakeEnv port{{{"PMI_PORT", "vm:4000"}, {"PMI_ID", "1"}}};
  CHECK(choose("auto", port).value() == ClientKind::Pmi1);

  FakeEnv slurm_pmi2{{{"PMI_FD", "11"},
                      {"PMI_JOBID", "1.0"},
                      {"PMI_RANK", "0"},
                      {"SLURM_JOB_ID", "1"},
                      {"SLURM_STEP_ID", "0"}}};
  CHECK(choose("auto", slurm_pmi2).value() == ClientKind::Pmi2);
  // Hydra started inside a Slurm allocation: no PMI_JOBID, so still PMI-1.
  FakeEnv hydra_in_slurm{{{"PMI_FD", "6"}, {"SLURM_JOB_ID", "1"}}};
  CHECK(choose("auto", hydra_in_slurm).value() == ClientKind::Pmi1);

  FakeEnv pmix{{{"PMIX_RANK", "0"}, {"PMIX_NAMESPACE", "slurm.pmix.2.0"}}};
  CHECK(choose("auto", pmix).value() == ClientKind::Pmix);
  auto no_lib = choose("auto", pmix, false);
  REQUIRE_FALSE(no_lib.ok());
  CHECK(no_lib.status() == Status::Unsupported);
  CHECK(mentions(no_lib.error(), "libpmix"));
}

TEST_CASE("a forced client without its launcher says what is missing") {
  FakeEnv none;
  CHECK(choose("singleton", none).value() == ClientKind::Singleton);
  auto p1 = choose("pmi1", none);
  REQUIRE_FALSE(p1.ok());
  CHECK(mentions(p1.error(), "neither PMI_FD nor PMI_PORT"));
  auto p2 = choose("pmi2", none);
  REQUIRE_FALSE(p2.ok());
  CHECK(mentions(p2.error(), "PMI_FD is not set"));
  auto px = choose("pmix", none);
  REQUIRE_FALSE(px.ok());
  CHECK(mentions(px.error(), "PMIX_NAMESPACE"));
  CHECK(choose("pmix", FakeEnv{{{"PMIX_RANK", "0"}, {"PMIX_NAMESPACE", "n"}}}, false).status() ==
        Status::Unsupported);
  CHECK_FALSE(choose("pmi3", none).ok());

  FakeEnv hydra{{{"PMI_FD", "6"}}};
  CHECK(choose("pmi2", hydra).value() == ClientKind::Pmi2);  // Hydra serves both
  CHECK(choose("singleton", hydra).value() == ClientKind::Singleton);
}

TEST_CASE("local ranks from the environment, in order of trust") {
  CHECK_FALSE(local_ranks_from_env(FakeEnv{}.fn(), true).has_value());
  FakeEnv hydra{{{"MPI_LOCALRANKID", "1"}, {"MPI_LOCALNRANKS", "3"}}};
  auto h = local_ranks_from_env(hydra.fn(), false);
  REQUIRE(h.has_value());
  CHECK(h->local_rank == 1);
  CHECK(h->local_size == 3);
  hydra.vars["TORUS_LOCAL_RANK"] = "0";
  hydra.vars["TORUS_LOCAL_SIZE"] = "2";
  CHECK(local_ranks_from_env(hydra.fn(), false)->local_size == 2);

  FakeEnv slurm{{{"SLURM_LOCALID", "2"},
                 {"SLURM_NODEID", "1"},
                 {"SLURM_STEP_TASKS_PER_NODE", "2,3(x2)"},
                 {"SLURM_TASKS_PER_NODE", "9"}}};
  CHECK_FALSE(local_ranks_from_env(slurm.fn(), false).has_value());  // not a Slurm PMI job
  auto s = local_ranks_from_env(slurm.fn(), true);
  REQUIRE(s.has_value());
  CHECK(s->local_rank == 2);
  CHECK(s->local_size == 3);

  // Inconsistent or non-numeric values are ignored, not trusted.
  CHECK_FALSE(local_ranks_from_env(
                  FakeEnv{{{"MPI_LOCALRANKID", "3"}, {"MPI_LOCALNRANKS", "3"}}}.fn(), false)
                  .has_value());
  CHECK_FALSE(local_ranks_from_env(
                  FakeEnv{{{"MPI_LOCALRANKID", "x"}, {"MPI_LOCALNRANKS", "3"}}}.fn(), false)
                  .has_value());
}

TEST_CASE("SLURM_TASKS_PER_NODE") {
  CHECK(tasks_on_node("4", 0).value() == 4);
  CHECK(tasks_on_node("2(x3),1", 0).value() == 2);
  CHECK(tasks_on_node("2(x3),1", 2).value() == 2);
  CHECK(tasks_on_node("2(x3),1", 3).value() == 1);
  CHECK_FALSE(tasks_on_node("2(x3),1", 4).ok());
  for (const char* bad : {"", "x", "2(3)", "2(x)", "2(x0)", "2,,1", "2(x3"}) {
    CAPTURE(std::string(bad));
    CHECK_FALSE(tasks_on_node(bad, 0).ok());
  }
}

TEST_CASE("PMI_process_mapping") {
  // Hydra's one-host mapping: a block of one rank, repeated.
  auto a = local_ranks_from_mapping("(vector,(0,1,1))", 1, 4);
  REQUIRE(a.ok());
  CHECK(a->local_rank == 1);
  CHECK(a->local_size == 4);
  // Slurm's: two nodes, two ranks each: ranks 2, 3 on node 1.
  auto b = local_ranks_from_mapping("(vector, (0,2,2))", 3, 4);
  REQUIRE(b.ok());
  CHECK(b->local_rank == 1);
  CHECK(b->local_size == 2);
  // Uneven blocks: node 0 gets 3 ranks, nodes 1 and 2 get 1 each, then it repeats.
  auto c = local_ranks_from_mapping("(vector,(0,1,3),(1,2,1))", 6, 8);
  REQUIRE(c.ok());  // ranks 0-2 n0, 3 n1, 4 n2, 5-7 n0
  CHECK(c->local_rank == 4);
  CHECK(c->local_size == 6);
  for (const char* bad : {"", "(vector)", "(vector,)", "(vector,(0,1))", "(vector,(0,0,1))",
                          "(vector,(0,1,1)(1,1,1))", "(list,(0,1,1))", "(vector,(0,1,x))"}) {
    CAPTURE(std::string(bad));
    CHECK_FALSE(local_ranks_from_mapping(bad, 0, 2).ok());
  }
  CHECK_FALSE(local_ranks_from_mapping("(vector,(0,1,1))", 2, 2).ok());
}

TEST_CASE("the singleton: rank 0 of 1, local put/get, hostname fallback") {
  auto b = open_singleton();
  CHECK(b->name() == "singleton");
  CHECK(b->job().rank == 0);
  CHECK(b->job().size == 1);
  CHECK(b->job().local_size == 1);
  CHECK_FALSE(b->job().job_id.empty());
  std::string bin("\0\1\2=; \n", 8);
  CHECK(b->put("addr", bin) == Status::Ok);
  CHECK(b->fence() == Status::Ok);
  CHECK(b->get(0, "addr").value() == bin);
  CHECK(b->get(0, "other").status() == Status::NotFound);
  CHECK(b->get(1, "addr").status() == Status::InvalidParam);
  auto l = local_ranks_by_hostname(*b);
  REQUIRE(l.ok());
  CHECK(l->local_rank == 0);
  CHECK(l->local_size == 1);
  CHECK(b->finalize() == Status::Ok);
}

TEST_CASE("PMI-1 client: a whole conversation with a Hydra-like server") {
  std::vector<std::string> replies = kPmi1Init;
  replies.push_back("cmd=put_result rc=0 msg=success\n");
  replies.push_back("cmd=barrier_out\n");
  replies.push_back("cmd=get_result rc=0 msg=success value=1:0aff\n");
  replies.push_back("cmd=get_result rc=-1 msg=key_x-1_not_found value=unknown\n");
  replies.push_back("cmd=finalize_ack\n");
  ScriptedServer server(replies);
  FakeEnv env{{{"PMI_FD", server.fd()},
               {"PMI_RANK", "0"},
               {"PMI_SIZE", "2"},
               {"MPI_LOCALRANKID", "0"},
               {"MPI_LOCALNRANKS", "2"}}};
  {
    auto b = open_pmi1(env.fn());
    REQUIRE_MESSAGE(b.ok(), (b.ok() ? "" : b.error().message));
    Bootstrap& boot = **b;
    CHECK(boot.name() == "pmi1");
    CHECK(boot.job().rank == 0);
    CHECK(boot.job().size == 2);
    CHECK(boot.job().local_size == 2);
    CHECK(boot.job().job_id == "kvs_42_0");
    CHECK(boot.put("addr", "\x12\x34") == Status::Ok);
    CHECK(boot.fence() == Status::Ok);
    CHECK(boot.get(1, "addr").value() == "\x0a\xff");
    CHECK(boot.get(1, "x").status() == Status::NotFound);
    CHECK(boot.get(2, "x").status() == Status::InvalidParam);  // no round trip
    CHECK(boot.finalize() == Status::Ok);
  }
  const auto& req = server.requests();
  REQUIRE(req.size() == 9);
  CHECK(req[0] == "cmd=init pmi_version=1 pmi_subversion=1");
  CHECK(req[1] == "cmd=get_maxes");
  CHECK(req[4] == "cmd=put kvsname=kvs_42_0 key=addr-0 value=1:1234");
  CHECK(req[5] == "cmd=barrier_in");
  CHECK(req[6] == "cmd=get kvsname=kvs_42_0 key=addr-1");
  CHECK(req[8] == "cmd=finalize");
}

TEST_CASE("PMI-1 client: local ranks from PMI_process_mapping when the env lacks them") {
  std::vector<std::string> replies = kPmi1Init;
  replies.push_back("cmd=get_result rc=0 msg=success value=(vector,(0,1,1))\n");
  ScriptedServer server(replies);
  FakeEnv env{{{"PMI_FD", server.fd()}, {"PMI_RANK", "2"}, {"PMI_SIZE", "3"}}};
  auto b = open_pmi1(env.fn());
  REQUIRE_MESSAGE(b.ok(), (b.ok() ? "" : b.error().message));
  CHECK((*b)->job().local_rank == 2);
  CHECK((*b)->job().local_size == 3);
  b = make_error(Status::Canceled, "");  // closes the client's end; the server ends
  CHECK(server.requests().back() == "cmd=get kvsname=kvs_42_0 key=PMI_process_mapping");
}

TEST_CASE("PMI-1 client: refusals, garbage and EOF are errors, never hangs") {
  FakeEnv base{
      {{"PMI_RANK", "0"}, {"PMI_SIZE", "1"}, {"MPI_LOCALRANKID", "0"}, {"MPI_LOCALNRANKS", "1"}}};
  auto open_with = [&](std::vector<std::string> replies) {
    ScriptedServer server(std::move(replies));
    FakeEnv env = base;
    env.vars["PMI_FD"] = server.fd();
    auto b = open_pmi1(env.fn());
    return b.ok() ? Error{Status::Ok, ""} : b.error();
  };
  auto eof = open_with({""});
  CHECK(eof.status == Status::ConnectionReset);
  CHECK(mentions(eof, "closed the connection"));
  auto refused = open_with({"cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=-1\n"});
  CHECK(is_error(refused.status));
  CHECK(mentions(refused, "rc=-1"));
  auto garbage = open_with({"hello there\n"});
  CHECK(garbage.status == Status::ProtocolError);
  auto wrong = open_with({"cmd=barrier_out\n"});
  CHECK(mentions(wrong, "response_to_init"));
  auto bad_max = open_with({kPmi1Init[0], "cmd=maxes keylen_max=64 vallen_max=-5\n"});
  CHECK(mentions(bad_max, "vallen_max"));

  // Missing variables, before any I/O.
  auto no_size = open_pmi1(FakeEnv{{{"PMI_FD", "0"}, {"PMI_RANK", "0"}}}.fn());
  REQUIRE_FALSE(no_size.ok());
  CHECK(mentions(no_size.error(), "PMI_SIZE"));
  auto no_id = open_pmi1(FakeEnv{{{"PMI_PORT", "localhost:1"}}}.fn());
  REQUIRE_FALSE(no_id.ok());
  CHECK(mentions(no_id.error(), "PMI_ID"));
  auto bad_fd = open_pmi1(FakeEnv{{{"PMI_FD", "999"}, {"PMI_RANK", "0"}, {"PMI_SIZE", "1"}}}.fn());
  REQUIRE_FALSE(bad_fd.ok());
  CHECK(mentions(bad_fd.error(), "PMI_FD=999"));
}

TEST_CASE("PMI-2 client: Slurm's left-aligned frames, pmijobid, rc=3") {
  const std::string init = "cmd=response_to_init rc=0 pmi_version=2 pmi_subversion=0\n";
  const std::string full =
      "cmd=fullinit-response;rc=0;pmi-version=2;pmi-subversion=0;rank=1;size=2;appnum=-1;"
      "debugged=FALSE;pmiverbose=FALSE;";
  std::vector<std::string> replies = {
      init,
      frame(full, true),
      frame("cmd=job-getid-response;rc=0;jobid=7.0;", true),
      frame("cmd=kvs-put-response;rc=0;", true),
      frame("cmd=kvs-fence-response;rc=0;", true),
      frame("found=TRUE;value=1:ff00;rc=0;cmd=kvs-get-response;", true),
      frame("cmd=kvs-get-response;rc=0;found=FALSE;", false),
      frame("cmd=finalize-response;rc=0;", true),
  };
  ScriptedServer server(replies);
  FakeEnv env{{{"PMI_FD", server.fd()},
               {"PMI_RANK", "1"},
               {"PMI_JOBID", "7.0"},
               {"SLURM_JOB_ID", "7"},
               {"SLURM_LOCALID", "1"},
               {"SLURM_NODEID", "0"},
               {"SLURM_STEP_TASKS_PER_NODE", "2"}}};
  {
    auto b = open_pmi2(env.fn());
    REQUIRE_MESSAGE(b.ok(), (b.ok() ? "" : b.error().message));
    Bootstrap& boot = **b;
    CHECK(boot.name() == "pmi2");
    CHECK(boot.job().rank == 1);
    CHECK(boot.job().size == 2);
    CHECK(boot.job().appnum == 0);
    CHECK(boot.job().local_rank == 1);
    CHECK(boot.job().local_size == 2);
    CHECK(boot.job().job_id == "7.0");
    CHECK(boot.put("addr", "\x01") == Status::Ok);
    CHECK(boot.fence() == Status::Ok);
    CHECK(boot.get(0, "addr").value() == std::string("\xff\x00", 2));
    CHECK(boot.get(0, "nokey").status() == Status::NotFound);
    CHECK(boot.finalize() == Status::Ok);
  }
  const auto& req = server.requests();
  REQUIRE(req.size() == 8);
  CHECK(req[0] == "cmd=init pmi_version=2 pmi_subversion=0");
  CHECK(req[1] == "cmd=fullinit;pmirank=1;pmijobid=7.0;threaded=FALSE;");
  CHECK(req[3] == "cmd=kvs-put;key=addr-1;value=1:01;");
  CHECK(req[5] == "cmd=kvs-get;jobid=;srcid=-1;key=addr-0;");

  // Without pmijobid Slurm answers rc=3: the error says so.
  ScriptedServer refusing({init, frame("cmd=fullinit-response;rc=3;rank=1;size=2;", true)});
  FakeEnv no_jobid{{{"PMI_FD", refusing.fd()}, {"PMI_RANK", "1"}}};
  auto r = open_pmi2(no_jobid.fn());
  REQUIRE_FALSE(r.ok());
  CHECK(mentions(r.error(), "fullinit"));
  CHECK(mentions(r.error(), "rc=3"));
}

TEST_CASE("PMI-2 client: a PMI-1-only server, bad frames and EOF are errors") {
  auto open_with = [](std::vector<std::string> replies) {
    ScriptedServer server(std::move(replies));
    FakeEnv env{{{"PMI_FD", server.fd()},
                 {"PMI_RANK", "0"},
                 {"MPI_LOCALRANKID", "0"},
                 {"MPI_LOCALNRANKS", "1"}}};
    auto b = open_pmi2(env.fn());
    return b.ok() ? Error{Status::Ok, ""} : b.error();
  };
  const std::string init = "cmd=response_to_init pmi_version=2 pmi_subversion=0 rc=0\n";
  auto v1 = open_with({"cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n"});
  CHECK(mentions(v1, "pmi1"));
  auto bad_len = open_with({init, "  1x  cmd=fullinit-response;"});
  CHECK(bad_len.status == Status::ProtocolError);
  auto short_frame = open_with({init, "    90cmd=fullinit-response;"});
  CHECK(short_frame.status == Status::ConnectionReset);
  auto bad_rank = open_with({init, frame("cmd=fullinit-response;rc=0;rank=5;size=2;", false)});
  CHECK(mentions(bad_rank, "not a valid job"));
  auto eof = open_with({init, ""});
  CHECK(eof.status == Status::ConnectionReset);
}
