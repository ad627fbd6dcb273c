// The PMI-2 client: a PMI-1 style init line, then length-prefixed `key=value;` frames.
#include "mpi_shim/bootstrap/pmi2_client.h"

#include <unistd.h>

#include <cstdio>

#include "mpi_shim/bootstrap/kv_encoding.h"
#include "mpi_shim/bootstrap/local_ranks.h"
#include "mpi_shim/bootstrap/pmi_conn.h"
#include "mpi_shim/bootstrap/pmi_wire.h"

namespace torus::boot {
namespace {

// PMI-2 has no get_maxes; these are the limits of the PMI-2 standard (PMI2_MAX_KEYLEN,
// PMI2_MAX_VALLEN) that Hydra and Slurm both apply, NUL included (Hydra keeps 1023 characters
// of a value).
constexpr WireLimits kPmi2Limits{.keylen_max = 64, .vallen_max = 1024};

class Pmi2Client final : public Bootstrap {
 public:
  explicit Pmi2Client(std::unique_ptr<PmiConn> conn) : conn_(std::move(conn)) {}

  Outcome init(const EnvFn& env, int rank, const char* jobid);

  std::string_view name() const override { return "pmi2"; }

  Status put(std::string_view key, std::string_view value) override {
    auto raw = [this](const std::string& k, const std::string& v) { return raw_put(k, v); };
    return report(put_chunked(raw, job_.rank, key, value, kPmi2Limits), "PMI-2 put");
  }

  Status fence() override {
    auto r = call("kvs-fence", {});
    return report(r ? expect_rc_zero(*r, "kvs-fence") : Outcome(r.error()), "PMI-2 fence");
  }

  Result<std::string> get(int rank, std::string_view key) override {
    if (rank < 0 || rank >= job_.size)
      return make_error(Status::InvalidParam, "PMI-2 get: rank " + std::to_string(rank) +
                                                  " is outside the job of " +
                                                  std::to_string(job_.size));
    auto raw = [this](const std::string& k) { return raw_get(k); };
    return get_chunked(raw, rank, key);
  }

  Status finalize() override {
    if (finalized_) return Status::Ok;
    finalized_ = true;
    auto r = call("finalize", {});
    return report(r ? expect_rc_zero(*r, "finalize") : Outcome(r.error()), "PMI-2 finalize");
  }

  [[noreturn]] void abort(int code, std::string_view message) override {
    std::fprintf(stderr, "torus: rank %d aborts the job with code %d: %.*s\n", job_.rank, code,
                 static_cast<int>(message.size()), message.data());
    std::fflush(stderr);
    // PMI-2's abort carries no exit code; the launcher reports the rank's own exit, which
    // follows once the job is torn down (or the grace period passes).
    std::string msg(message);
    if (conn_->write_all(pmi2_frame("abort", {{"isworld", "TRUE"}, {"msg", msg}})))
      conn_->wait_for_close(kAbortGraceSeconds);
    ::_exit(code);
  }

 private:
  static constexpr int kAbortGraceSeconds = 5;

  // Sends one frame and reads one; the response's cmd must be "<cmd>-response".
  Result<Fields> call(std::string_view cmd, const FieldList& fields) {
    if (Outcome o = conn_->write_all(pmi2_frame(cmd, fields)); !o) return o.error();
    auto header = conn_->read_exact(kPmi2HeaderLen);
    if (!header) return header.error();
    auto len = parse_pmi2_length(*header);
    if (!len) return len.error();
    auto body = conn_->read_exact(*len);
    if (!body) return body.error();
    auto f = parse_pmi2_body(*body);
    if (!f) return f.error();
    if (Outcome o = expect_cmd(*f, std::string(cmd) + "-response"); !o) return o.error();
    return f;
  }

  Outcome raw_put(const std::string& key, const std::string& value) {
    auto r = call("kvs-put", {{"key", key}, {"value", value}});
    if (!r) return r.error();
    return expect_rc_zero(*r, "kvs-put of " + key);
  }

  // Both the job's key space (jobid empty) and any source (srcid=-1), as MPICH asks.
  Result<std::string> raw_get(const std::string& key) {
    auto r = call("kvs-get", {{"jobid", ""}, {"srcid", "-1"}, {"key", key}});
    if (!r) return r.error();
    if (Outcome o = expect_rc_zero(*r, "kvs-get of " + key); !o) return o.error();
    const std::string* found = r->find("found");
    if (!found || *found != "TRUE")
      return make_error(Status::NotFound, "PMI-2 server has no key " + key);
    const std::string* v = r->find("value");
    if (!v)
      return make_error(Status::ProtocolError,
                        "PMI-2 kvs-get-response for " + key + " says found but has no value");
    return *v;
  }

  std::unique_ptr<PmiConn> conn_;
  bool finalized_ = false;
};

Outcome Pmi2Client::init(const EnvFn& env, int rank, const char* jobid) {
  if (Outcome o =
          conn_->write_all(pmi1_line("init", {{"pmi_version", "2"}, {"pmi_subversion", "0"}}));
      !o)
    return o;
  auto line = conn_->read_line();
  if (!line) return line.error();
  auto hello = parse_pmi1_line(*line);
  if (!hello) return hello.error();
  if (Outcome o = expect_cmd(*hello, "response_to_init"); !o) return o;
  if (Outcome o = expect_rc_zero(*hello, "init (pmi_version=2)"); !o) return o;
  if (const std::string* v = hello->find("pmi_version"); v && *v != "2")
    return make_error(Status::Unsupported,
                      "the PMI server on PMI_FD does not speak PMI-2 (it answered pmi_version=" +
                          *v + "); try TORUS_BOOTSTRAP=pmi1");

  std::string rank_text = std::to_string(rank);
  FieldList fields{{"pmirank", rank_text}};
  // Slurm refuses fullinit (rc=3) unless it names the job it put in PMI_JOBID.
  if (jobid) fields.emplace_back("pmijobid", jobid);
  fields.emplace_back("threaded", "FALSE");
  auto full = call("fullinit", fields);
  if (!full) return full.error();
  if (Outcome o = expect_rc_zero(*full, "fullinit"); !o) return o;
  auto r = full->get_int("rank");
  if (!r) return r.error();
  auto s = full->get_int("size");
  if (!s) return s.error();
  if (*s <= 0 || *r < 0 || *r >= *s)
    return make_error(Status::ProtocolError, "PMI-2 fullinit: rank " + std::to_string(*r) + " of " +
                                                 std::to_string(*s) + " is not a valid job");
  job_.rank = static_cast<int>(*r);
  job_.size = static_cast<int>(*s);
  if (auto a = full->get_int("appnum"); a && *a > 0) job_.appnum = static_cast<int>(*a);

  auto id = call("job-getid", {});
  if (!id) return id.error();
  if (Outcome o = expect_rc_zero(*id, "job-getid"); !o) return o;
  const std::string* job_id = id->find("jobid");
  if (!job_id || job_id->empty())
    return make_error(Status::ProtocolError, "PMI-2 job-getid-response has no jobid");
  job_.job_id = *job_id;

  std::optional<LocalRanks> local = local_ranks_from_env(env, jobid != nullptr);
  if (!local) {
    auto m = call("info-getjobattr", {{"key", "PMI_process_mapping"}});
    const std::string* found = m ? m->find("found") : nullptr;
    const std::string* value = m ? m->find("value") : nullptr;
    if (found && *found == "TRUE" && value) {
      auto l = local_ranks_from_mapping(*value, job_.rank, job_.size);
      if (!l) return l.error();
      local = *l;
    } else if (!m) {
      return m.error();
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

Result<std::unique_ptr<Bootstrap>> open_pmi2(const EnvFn& env) {
  const char* fd = env("PMI_FD");
  if (!fd)
    return make_error(Status::NotFound,
                      "PMI-2: PMI_FD is not set (not started by a PMI-2 launcher such as "
                      "srun --mpi=pmi2)");
  auto rank = env_count(env, "PMI_RANK");
  if (!rank)
    return make_error(Status::NotFound, "PMI-2: PMI_FD is set but PMI_RANK is not (a number)");
  auto conn = PmiConn::adopt_fd(fd, std::string("PMI_FD=") + fd);
  if (!conn) return conn.error();
  auto client = std::make_unique<Pmi2Client>(std::move(*conn));
  if (Outcome o = client->init(env, *rank, env("PMI_JOBID")); !o) return o.error();
  return std::unique_ptr<Bootstrap>(std::move(client));
}

}  // namespace torus::boot
