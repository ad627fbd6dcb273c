// The PMI-1 client: MPICH Hydra's and torus mpirun's line protocol, over PMI_FD or PMI_PORT.
#include "mpi_shim/bootstrap/pmi1_client.h"

#include <unistd.h>

#include <cstdio>

#include "mpi_shim/bootstrap/kv_encoding.h"
#include "mpi_shim/bootstrap/local_ranks.h"
#include "mpi_shim/bootstrap/pmi_conn.h"
#include "mpi_shim/bootstrap/pmi_wire.h"

namespace torus::boot {
namespace {

Error missing_env(const char* what) {
  return make_error(Status::NotFound, std::string("PMI-1: ") + what);
}

class Pmi1Client final : public Bootstrap {
 public:
  explicit Pmi1Client(std::unique_ptr<PmiConn> conn) : conn_(std::move(conn)) {}

  // fd mode: rank and size come from the environment; port mode: from the server.
  Outcome init(const EnvFn& env, bool port_mode, std::string_view pmi_id, int rank, int size);

  std::string_view name() const override { return "pmi1"; }

  Status put(std::string_view key, std::string_view value) override {
    auto raw = [this](const std::string& k, const std::string& v) { return raw_put(k, v); };
    return report(put_chunked(raw, job_.rank, key, value, limits_), "PMI-1 put");
  }

  Status fence() override {
    auto r = call(pmi1_line("barrier_in"), "barrier_out");
    return report(r ? success() : Outcome(r.error()), "PMI-1 fence");
  }

  Result<std::string> get(int rank, std::string_view key) override {
    if (rank < 0 || rank >= job_.size)
      return make_error(Status::InvalidParam, "PMI-1 get: rank " + std::to_string(rank) +
                                                  " is outside the job of " +
                                                  std::to_string(job_.size));
    auto raw = [this](const std::string& k) { return raw_get(k); };
    return get_chunked(raw, rank, key);
  }

  Status finalize() override {
    if (finalized_) return Status::Ok;
    finalized_ = true;
    auto r = call(pmi1_line("finalize"), "finalize_ack");
    return report(r ? success() : Outcome(r.error()), "PMI-1 finalize");
  }

  [[noreturn]] void abort(int code, std::string_view message) override {
    std::fprintf(stderr, "torus: rank %d aborts the job with code %d: %.*s\n", job_.rank, code,
                 static_cast<int>(message.size()), message.data());
    std::fflush(stderr);
    if (conn_->write_all(pmi1_line("abort", {{"exitcode", std::to_string(code)}})))
      conn_->wait_for_close(kAbortGraceSeconds);  // the launcher kills the job meanwhile
    ::_exit(code);
  }

 private:
  // How long an aborting rank waits for the launcher to end the job before exiting itself.
  static constexpr int kAbortGraceSeconds = 5;

  // Sends a request and reads its one-line response, which must be `expected`.
  Result<Fields> call(const std::string& request, std::string_view expected) {
    if (Outcome o = conn_->write_all(request); !o) return o.error();
    return read_response(expected);
  }

  Result<Fields> read_response(std::string_view expected) {
    auto line = conn_->read_line();
    if (!line) return line.error();
    auto f = parse_pmi1_line(*line);
    if (!f) return f.error();
    if (Outcome o = expect_cmd(*f, expected); !o) return o.error();
    return f;
  }

  Outcome raw_put(const std::string& key, const std::string& value) {
    auto r = call(pmi1_line("put", {{"kvsname", job_.job_id}, {"key", key}, {"value", value}}),
                  "put_result");
    if (!r) return r.error();
    return expect_rc_zero(*r, "put of " + key);
  }

  Result<std::string> raw_get(const std::string& key) {
    auto r = call(pmi1_line("get", {{"kvsname", job_.job_id}, {"key", key}}), "get_result");
    if (!r) return r.error();
    // Hydra answers an unknown key with rc=-1; nothing else distinguishes it from a failure.
    if (Outcome o = expect_rc_zero(*r, "get of " + key); !o)
      return make_error(Status::NotFound, o.error().message);
    const std::string* v = r->find("value");
    if (!v)
      return make_error(Status::ProtocolError, "PMI-1 get_result for " + key + " has no value");
    return *v;
  }

  Result<int64_t> get_max(const Fields& f, const char* key) {
    auto v = f.get_int(key);
    if (v && *v <= 0)
      return make_error(Status::ProtocolError,
                        std::string("PMI-1 get_maxes: ") + key + " is not positive");
    return v;
  }

  std::unique_ptr<PmiConn> conn_;
  WireLimits limits_;
  bool finalized_ = false;
};

Outcome Pmi1Client::init(const EnvFn& env, bool port_mode, std::string_view pmi_id, int rank,
                         int size) {
  job_.rank = rank;
  job_.size = size;
  if (port_mode) {
    // Hydra's -pmi-port handshake: we say who we are, it tells us our rank and the size.
    auto ack = call(pmi1_line("initack", {{"pmiid", pmi_id}}), "initack");
    if (!ack) return ack.error();
    bool have_rank = false, have_size = false;
    while (!have_rank || !have_size) {
      auto set = read_response("set");
      if (!set) return set.error();
      if (set->find("rank")) {
        auto v = set->get_int("rank");
        if (!v) return v.error();
        job_.rank = static_cast<int>(*v);
        have_rank = true;
      }
      if (set->find("size")) {
        auto v = set->get_int("size");
        if (!v) return v.error();
        job_.size = static_cast<int>(*v);
        have_size = true;
      }
    }
  }
  if (Outcome o =
          conn_->write_all(pmi1_line("init", {{"pmi_version", "1"}, {"pmi_subversion", "1"}}));
      !o)
    return o;
  // The port handshake may still have `cmd=set ...` lines (debug=) in flight.
  Result<Fields> init = make_error(Status::ProtocolError, "");
  do {
    auto line = conn_->read_line();
    if (!line) return line.error();
    init = parse_pmi1_line(*line);
    if (!init) return init.error();
  } while (port_mode && init->cmd() == "set");
  if (Outcome o = expect_cmd(*init, "response_to_init"); !o) return o;
  if (Outcome o = expect_rc_zero(*init, "init (pmi_version=1)"); !o) return o;

  auto maxes = call(pmi1_line("get_maxes"), "maxes");
  if (!maxes) return maxes.error();
  auto keylen = get_max(*maxes, "keylen_max");
  if (!keylen) return keylen.error();
  auto vallen = get_max(*maxes, "vallen_max");
  if (!vallen) return vallen.error();
  limits_.keylen_max = static_cast<size_t>(*keylen);
  limits_.vallen_max = static_cast<size_t>(*vallen);

  auto appnum = call(pmi1_line("get_appnum"), "appnum");
  if (!appnum) return appnum.error();
  auto an = appnum->get_int("appnum");
  if (!an) return an.error();
  job_.appnum = *an < 0 ? 0 : static_cast<int>(*an);

  auto kvs = call(pmi1_line("get_my_kvsname"), "my_kvsname");
  if (!kvs) return kvs.error();
  const std::string* kvsname = kvs->find("kvsname");
  if (!kvsname || kvsname->empty())
    return make_error(Status::ProtocolError, "PMI-1 my_kvsname response has no kvsname");
  job_.job_id = *kvsname;

  if (job_.size <= 0 || job_.rank < 0 || job_.rank >= job_.size)
    return make_error(Status::ProtocolError, "PMI-1: rank " + std::to_string(job_.rank) + " of " +
                                                 std::to_string(job_.size) + " is not a valid job");
  std::optional<LocalRanks> local = local_ranks_from_env(env, false);
  if (!local) {
    if (auto mapping = raw_get("PMI_process_mapping")) {
      auto l = local_ranks_from_mapping(*mapping, job_.rank, job_.size);
      if (!l) return l.error();
      local = *l;
    }
  }
  if (!local) {
    auto l = local_ranks_by_hostname(*this);
    if (!l) return l.error();
    local = *l;
  }
  job_.local_rank = local->local_rank;
  job_.local_size = local->local_size;
  return success();
}

}  // namespace

Result<std::unique_ptr<Bootstrap>> open_pmi1(const EnvFn& env) {
  const char* fd = env("PMI_FD");
  const char* port = env("PMI_PORT");
  std::unique_ptr<PmiConn> conn;
  std::string pmi_id;
  std::optional<int> rank = 0, size = 1;
  if (fd) {
    rank = env_count(env, "PMI_RANK");
    size = env_count(env, "PMI_SIZE");
    if (!rank || !size)
      return missing_env("PMI_FD is set but PMI_RANK or PMI_SIZE is not (a number)");
    auto c = PmiConn::adopt_fd(fd, std::string("PMI_FD=") + fd);
    if (!c) return c.error();
    conn = std::move(*c);
  } else if (port) {
    const char* id = env("PMI_ID");
    if (!id) return missing_env("PMI_PORT is set but PMI_ID (this process's id) is not");
    pmi_id = id;
    auto c = PmiConn::connect_port(port);
    if (!c) return c.error();
    conn = std::move(*c);
  } else {
    return missing_env(
        "neither PMI_FD nor PMI_PORT is set (not started by a PMI-1 launcher "
        "such as mpiexec.hydra or torus mpirun)");
  }
  auto client = std::make_unique<Pmi1Client>(std::move(conn));
  if (Outcome o = client->init(env, !fd, pmi_id, *rank, *size); !o) return o.error();
  return std::unique_ptr<Bootstrap>(std::move(client));
}

}  // namespace torus::boot
