// Local rank and size from the environment, from PMI_process_mapping, or by hostname.
#include "mpi_shim/bootstrap/local_ranks.h"

#include <unistd.h>

#include <array>
#include <charconv>
#include <string>
#include <vector>

#include "mpi_shim/bootstrap/bootstrap.h"

namespace torus::boot {
namespace {

// Bounds on every number read here: far beyond any job, small enough never to overflow.
constexpr int kMaxCount = 1 << 24;

std::optional<int> parse_count(std::string_view s) {
  int v = -1;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size() || v < 0 || v > kMaxCount)
    return std::nullopt;
  return v;
}

std::optional<LocalRanks> pair(std::optional<int> rank, std::optional<int> size) {
  if (!rank || !size || *rank >= *size) return std::nullopt;
  return LocalRanks{*rank, *size};
}

Error bad_mapping(std::string_view mapping, const char* why) {
  return make_error(Status::ProtocolError,
                    "PMI_process_mapping '" + std::string(mapping.substr(0, 80)) + "': " + why);
}

// Reads "(a,b,c)" at the front of s.
std::optional<std::array<int, 3>> take_triple(std::string_view& s) {
  if (s.empty() || s.front() != '(') return std::nullopt;
  size_t close = s.find(')');
  if (close == std::string_view::npos) return std::nullopt;
  std::string_view in = s.substr(1, close - 1);
  std::array<int, 3> t{};
  for (int i = 0; i < 3; ++i) {
    size_t comma = in.find(',');
    if ((i < 2) != (comma != std::string_view::npos)) return std::nullopt;
    auto v = parse_count(in.substr(0, comma));
    if (!v) return std::nullopt;
    t[i] = *v;
    in = i < 2 ? in.substr(comma + 1) : std::string_view();
  }
  s.remove_prefix(close + 1);
  return t;
}

}  // namespace

std::optional<LocalRanks> local_ranks_from_env(const EnvFn& env, bool slurm) {
  if (auto l = pair(env_count(env, "TORUS_LOCAL_RANK"), env_count(env, "TORUS_LOCAL_SIZE")))
    return l;
  if (auto l = pair(env_count(env, "MPI_LOCALRANKID"), env_count(env, "MPI_LOCALNRANKS"))) return l;
  if (!slurm) return std::nullopt;
  auto node = env_count(env, "SLURM_NODEID");
  const char* tasks = env("SLURM_STEP_TASKS_PER_NODE");
  if (!tasks) tasks = env("SLURM_TASKS_PER_NODE");
  if (!node || !tasks) return std::nullopt;
  auto count = tasks_on_node(tasks, *node);
  if (!count) return std::nullopt;
  return pair(env_count(env, "SLURM_LOCALID"), *count);
}

Result<int> tasks_on_node(std::string_view tasks_per_node, int node) {
  auto bad = [&](const char* why) {
    return make_error(
        Status::InvalidParam,
        "SLURM_TASKS_PER_NODE '" + std::string(tasks_per_node.substr(0, 80)) + "': " + why);
  };
  std::string_view s = tasks_per_node;
  int first = 0;  // index of the first node the current entry covers
  std::optional<int> found;
  // The whole list is checked, so a corrupt variable is never half trusted.
  if (s.empty()) return bad("empty");
  while (!s.empty()) {
    size_t comma = s.find(',');
    std::string_view entry = s.substr(0, comma);
    s = comma == std::string_view::npos ? std::string_view() : s.substr(comma + 1);
    std::optional<int> repeat = 1;
    size_t paren = entry.find('(');
    if (paren != std::string_view::npos) {
      if (entry.size() < paren + 4 || entry.substr(paren, 2) != "(x" || entry.back() != ')')
        return bad("expected COUNT or COUNT(xREPEAT)");
      repeat = parse_count(entry.substr(paren + 2, entry.size() - paren - 3));
      entry = entry.substr(0, paren);
    }
    auto count = parse_count(entry);
    if (!count || !repeat || *repeat == 0) return bad("expected COUNT or COUNT(xREPEAT)");
    if (!found && node < first + *repeat) found = *count;
    first += *repeat;
    if (first > kMaxCount) return bad("too many nodes");
    if (comma != std::string_view::npos && s.empty()) return bad("ends with ','");
  }
  if (!found) return bad(("has no entry for node " + std::to_string(node)).c_str());
  return *found;
}

Result<LocalRanks> local_ranks_from_mapping(std::string_view mapping, int rank, int size) {
  if (size <= 0 || rank < 0 || rank >= size || size > kMaxCount)
    return make_error(Status::InvalidParam, "rank " + std::to_string(rank) + " of " +
                                                std::to_string(size) + " is not a valid job");
  std::string compact;
  for (char c : mapping)
    if (c != ' ' && c != '\t') compact += c;
  std::string_view s = compact;
  constexpr std::string_view kHead = "(vector,";
  if (s.substr(0, kHead.size()) != kHead || s.back() != ')')
    return bad_mapping(mapping, "expected (vector,(node,count,ranks),...)");
  s = s.substr(kHead.size(), s.size() - kHead.size() - 1);
  std::vector<std::array<int, 3>> blocks;
  while (!s.empty()) {
    auto t = take_triple(s);
    if (!t || (*t)[1] == 0 || (*t)[2] == 0)
      return bad_mapping(mapping, "a block is not (node,count,ranks) with count, ranks > 0");
    blocks.push_back(*t);
    if (!s.empty()) {
      if (s.front() != ',') return bad_mapping(mapping, "blocks must be separated by ','");
      s.remove_prefix(1);
    }
  }
  if (blocks.empty()) return bad_mapping(mapping, "no blocks");

  std::vector<int> node_of(static_cast<size_t>(size));
  int r = 0;
  while (r < size) {
    for (const auto& [first_node, nodes, per_node] : blocks)
      for (int n = 0; n < nodes && r < size; ++n)
        for (int k = 0; k < per_node && r < size; ++k) node_of[r++] = first_node + n;
  }
  LocalRanks l{0, 0};
  for (int i = 0; i < size; ++i) {
    if (node_of[i] != node_of[rank]) continue;
    if (i < rank) ++l.local_rank;
    ++l.local_size;
  }
  return l;
}

Result<LocalRanks> local_ranks_by_hostname(Bootstrap& boot) {
  char host[256] = {};
  if (::gethostname(host, sizeof(host) - 1) != 0) host[0] = '?';
  constexpr std::string_view kKey = "torus.host";
  if (Status s = boot.put(kKey, host); is_error(s))
    return make_error(s, "publishing this host's name for the local-rank exchange failed");
  if (Status s = boot.fence(); is_error(s))
    return make_error(s, "the fence of the local-rank exchange failed");
  const JobInfo& job = boot.job();
  LocalRanks l{0, 0};
  for (int i = 0; i < job.size; ++i) {
    std::string other = host;
    if (i != job.rank) {
      auto v = boot.get(i, kKey);
      if (!v) return v.error();
      other = std::move(*v);
    }
    if (other != host) continue;
    if (i < job.rank) ++l.local_rank;
    ++l.local_size;
  }
  return l;
}

}  // namespace torus::boot
