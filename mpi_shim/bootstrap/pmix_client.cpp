// The PMIx client: values are PMIx byte objects under their own key, scoped per rank by
// PMIx itself, so no hex or chunking is needed.
#include "mpi_shim/bootstrap/pmix_client.h"

#include <pmix.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <optional>

#include "mpi_shim/bootstrap/local_ranks.h"
#include "mpi_shim/bootstrap/outcome.h"

namespace torus::boot {
namespace {

Error pmix_error(const char* call, pmix_status_t rc, const std::string& detail = {}) {
  std::string msg = std::string(call) + " failed: " + PMIx_Error_string(rc);
  if (!detail.empty()) msg += " (" + detail + ")";
  return make_error(rc == PMIX_ERR_NOT_FOUND ? Status::NotFound : Status::IoError, msg);
}

// The integer in a PMIx value of any integer type; nullopt for other types.
std::optional<int64_t> as_integer(const pmix_value_t& v) {
  switch (v.type) {
    case PMIX_UINT8:
      return v.data.uint8;
    case PMIX_UINT16:
      return v.data.uint16;
    case PMIX_UINT32:
      return v.data.uint32;
    case PMIX_UINT64:
      return static_cast<int64_t>(v.data.uint64);
    case PMIX_INT:
      return v.data.integer;
    case PMIX_INT8:
      return v.data.int8;
    case PMIX_INT16:
      return v.data.int16;
    case PMIX_INT32:
      return v.data.int32;
    case PMIX_INT64:
      return v.data.int64;
    case PMIX_UINT:
      return v.data.uint;
    case PMIX_SIZE:
      return static_cast<int64_t>(v.data.size);
    default:
      return std::nullopt;
  }
}

class PmixClient final : public Bootstrap {
 public:
  ~PmixClient() override {
    // A rank that never called finalize() still detaches, or the server waits on it.
    if (!finalized_) (void)PMIx_Finalize(nullptr, 0);
  }

  Outcome init();

  std::string_view name() const override { return "pmix"; }

  Status put(std::string_view key, std::string_view value) override {
    std::string k(key);
    if (k.empty() || k.size() >= PMIX_MAX_KEYLEN)
      return report(make_error(Status::InvalidParam, "PMIx put: key '" + k +
                                                         "' is empty or "
                                                         "longer than PMIX_MAX_KEYLEN"),
                    "PMIx put");
    pmix_value_t v;
    PMIX_VALUE_CONSTRUCT(&v);
    v.type = PMIX_BYTE_OBJECT;
    // PMIx_Put copies the bytes; v does not own them, so it is not destructed.
    v.data.bo.bytes = const_cast<char*>(value.data());
    v.data.bo.size = value.size();
    pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, k.c_str(), &v);
    if (rc != PMIX_SUCCESS) return report(pmix_error("PMIx_Put", rc, "key " + k), "PMIx put");
    return Status::Ok;
  }

  Status fence() override {
    pmix_status_t rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS) return report(pmix_error("PMIx_Commit", rc), "PMIx fence");
    pmix_info_t info;
    bool collect = true;
    // Collect: every rank's data comes back with the fence, so later gets are local.
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    rc = PMIx_Fence(nullptr, 0, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    if (rc != PMIX_SUCCESS) return report(pmix_error("PMIx_Fence", rc), "PMIx fence");
    return Status::Ok;
  }

  Result<std::string> get(int rank, std::string_view key) override {
    if (rank < 0 || rank >= job_.size)
      return make_error(Status::InvalidParam, "PMIx get: rank " + std::to_string(rank) +
                                                  " is outside the job of " +
                                                  std::to_string(job_.size));
    std::string k(key);
    pmix_proc_t peer;
    PMIX_LOAD_PROCID(&peer, self_.nspace, static_cast<pmix_rank_t>(rank));
    pmix_value_t* v = nullptr;
    // After a collecting fence the data is local: a key still absent was never put, and
    // asking the server instead would block until someone puts it.
    pmix_info_t info;
    bool optional = true;
    PMIX_INFO_LOAD(&info, PMIX_OPTIONAL, &optional, PMIX_BOOL);
    pmix_status_t rc = PMIx_Get(&peer, k.c_str(), &info, 1, &v);
    PMIX_INFO_DESTRUCT(&info);
    if (rc != PMIX_SUCCESS)
      return pmix_error("PMIx_Get", rc, "key " + k + " of rank " + std::to_string(rank));
    Result<std::string> out = make_error(Status::ProtocolError,
                                         "PMIx_Get: key " + k + " of rank " + std::to_string(rank) +
                                             " is not a byte object (not put by torus)");
    if (v->type == PMIX_BYTE_OBJECT)
      out = std::string(v->data.bo.bytes ? v->data.bo.bytes : "", v->data.bo.size);
    PMIX_VALUE_RELEASE(v);
    return out;
  }

  Status finalize() override {
    if (finalized_) return Status::Ok;
    finalized_ = true;
    pmix_status_t rc = PMIx_Finalize(nullptr, 0);
    if (rc != PMIX_SUCCESS) return report(pmix_error("PMIx_Finalize", rc), "PMIx finalize");
    return Status::Ok;
  }

  [[noreturn]] void abort(int code, std::string_view message) override {
    std::string msg(message);
    std::fprintf(stderr, "torus: rank %d aborts the job with code %d: %s\n", job_.rank, code,
                 msg.c_str());
    std::fflush(stderr);
    // Returns once the server has the request (or failed to send it); the server then kills
    // the job, and exiting with the code covers a server that does not.
    (void)PMIx_Abort(code, msg.c_str(), nullptr, 0);
    ::_exit(code);
  }

 private:
  // A job-level (wildcard rank) or own value as an integer.
  Result<int64_t> get_integer(const char* key, bool job_level) {
    pmix_proc_t proc = self_;
    if (job_level) proc.rank = PMIX_RANK_WILDCARD;
    pmix_value_t* v = nullptr;
    pmix_status_t rc = PMIx_Get(&proc, key, nullptr, 0, &v);
    if (rc != PMIX_SUCCESS) return pmix_error("PMIx_Get", rc, key);
    std::optional<int64_t> n = as_integer(*v);
    PMIX_VALUE_RELEASE(v);
    if (!n)
      return make_error(Status::ProtocolError, std::string("PMIx: ") + key + " is not an integer");
    return *n;
  }

  pmix_proc_t self_{};
  bool finalized_ = true;  // until init succeeds there is nothing to finalize
};

Outcome PmixClient::init() {
  pmix_status_t rc = PMIx_Init(&self_, nullptr, 0);
  if (rc != PMIX_SUCCESS)
    return pmix_error("PMIx_Init", rc,
                      "is a PMIx server running (PMIX_SERVER_URI*, e.g. srun --mpi=pmix)?");
  finalized_ = false;
  auto size = get_integer(PMIX_JOB_SIZE, true);
  if (!size) return size.error();
  job_.rank = static_cast<int>(self_.rank);
  job_.size = static_cast<int>(*size);
  if (job_.size <= 0 || job_.rank < 0 || job_.rank >= job_.size)
    return make_error(Status::ProtocolError, "PMIx: rank " + std::to_string(job_.rank) + " of " +
                                                 std::to_string(job_.size) + " is not a valid job");
  job_.job_id = self_.nspace;
  if (auto appnum = get_integer(PMIX_APPNUM, false); appnum && *appnum > 0)
    job_.appnum = static_cast<int>(*appnum);
  auto local_rank = get_integer(PMIX_LOCAL_RANK, false);
  auto local_size = get_integer(PMIX_LOCAL_SIZE, true);
  if (local_rank && local_size && *local_rank >= 0 && *local_rank < *local_size) {
    job_.local_rank = static_cast<int>(*local_rank);
    job_.local_size = static_cast<int>(*local_size);
    return success();
  }
  auto l = local_ranks_by_hostname(*this);
  if (!l) return l.error();
  job_.local_rank = l->local_rank;
  job_.local_size = l->local_size;
  return success();
}

}  // namespace

Result<std::unique_ptr<Bootstrap>> open_pmix() {
  auto client = std::make_unique<PmixClient>();
  if (Outcome o = client->init(); !o) return o.error();
  return std::unique_ptr<Bootstrap>(std::move(client));
}

}  // namespace torus::boot
