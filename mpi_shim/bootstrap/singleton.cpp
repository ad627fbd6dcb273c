// A one-rank job: put/get on a local map, fence and finalize do nothing, abort exits.
#include "mpi_shim/bootstrap/singleton.h"

#include <unistd.h>

#include <cstdio>
#include <map>

#include "mpi_shim/bootstrap/kv_encoding.h"

namespace torus::boot {
namespace {

class Singleton final : public Bootstrap {
 public:
  Singleton() {
    // Unique on this host while the process lives, like a launcher's job id.
    job_.job_id = "singleton-" + std::to_string(::getpid());
  }

  std::string_view name() const override { return "singleton"; }

  Status put(std::string_view key, std::string_view value) override {
    if (!is_valid_user_key(key)) return Status::InvalidParam;
    kv_[std::string(key)] = std::string(value);
    return Status::Ok;
  }

  Status fence() override { return Status::Ok; }

  Result<std::string> get(int rank, std::string_view key) override {
    if (rank != 0)
      return make_error(Status::InvalidParam, "singleton get: rank " + std::to_string(rank) +
                                                  " does not exist in a one-rank job");
    auto it = kv_.find(std::string(key));
    if (it == kv_.end())
      return make_error(Status::NotFound, "singleton get: no key '" + std::string(key) + "'");
    return it->second;
  }

  Status finalize() override { return Status::Ok; }

  [[noreturn]] void abort(int code, std::string_view message) override {
    std::fprintf(stderr, "torus: rank 0 aborts the job with code %d: %.*s\n", code,
                 static_cast<int>(message.size()), message.data());
    std::fflush(stderr);
    ::_exit(code);
  }

 private:
  std::map<std::string, std::string> kv_;
};

}  // namespace

std::unique_ptr<Bootstrap> open_singleton() { return std::make_unique<Singleton>(); }

}  // namespace torus::boot
