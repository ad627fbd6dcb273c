// PMI-1 command handling: init, maxes, appnum, kvsname, universe size, put, get, barrier,
// finalize, abort; the PMI_PORT handshake; the built-in PMI_process_mapping key.
#include "mpi_shim/launcher/pmi_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "core/base/log.h"
#include "mpi_shim/launcher/pmi_wire.h"
#include "mpi_shim/launcher/report.h"

namespace torus::launcher {

struct PmiServer::Conn {
  int rank = -1;  // -1: a TCP connection before its initack
  std::string in;
  std::unique_ptr<FdChannel> ch;
};

PmiServer::PmiServer(boost::asio::io_context& io, const Layout& layout, std::string kvsname,
                     Handlers handlers)
    : io_(io),
      layout_(layout),
      kvsname_(std::move(kvsname)),
      handlers_(std::move(handlers)),
      state_(layout.ranks.size()) {}

PmiServer::~PmiServer() = default;

Result<int> PmiServer::open_local(int rank) {
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    return make_error(Status::IoError, std::string("socketpair: ") + std::strerror(errno));
  auto c = std::make_unique<Conn>();
  c->rank = rank;
  Conn* raw = c.get();
  c->ch = std::make_unique<FdChannel>(
      io_, sv[0], [this, raw](std::string_view d) { on_bytes(*raw, d); }, nullptr);
  c->ch->start();
  state_[rank].conn = raw;
  conns_.push_back(std::move(c));
  return sv[1];
}

Result<int> PmiServer::listen(const std::string& bind_addr) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return make_error(Status::IoError, std::string("socket: ") + std::strerror(errno));
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = htonl(INADDR_ANY);
  if (!bind_addr.empty() && ::inet_pton(AF_INET, bind_addr.c_str(), &sa.sin_addr) != 1) {
    ::close(fd);
    return make_error(Status::InvalidParam, "not an IPv4 address: " + bind_addr);
  }
  socklen_t len = sizeof(sa);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) != 0 || ::listen(fd, 1024) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&sa), &len) != 0) {
    std::string err = "bind/listen on " + (bind_addr.empty() ? "*" : bind_addr) + ": " +
                      std::strerror(errno);
    ::close(fd);
    return make_error(Status::IoError, err);
  }
  // A listening socket is readable when a connection waits: on_accept() waits for that and
  // accepts itself, so the channel's own read path is never started.
  listener_ = std::make_unique<FdChannel>(io_, fd, nullptr, nullptr);
  on_accept();
  return static_cast<int>(ntohs(sa.sin_port));
}

void PmiServer::on_accept() {
  if (!listener_ || !listener_->is_open()) return;
  listener_->wait_readable([this] {
    while (true) {
      int fd = ::accept4(listener_->native_handle(), nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) break;
      int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
      auto c = std::make_unique<Conn>();
      Conn* raw = c.get();
      c->ch = std::make_unique<FdChannel>(
          io_, fd, [this, raw](std::string_view d) { on_bytes(*raw, d); }, nullptr);
      c->ch->start();
      conns_.push_back(std::move(c));
    }
    on_accept();
  });
}

void PmiServer::drain(int rank) {
  if (Conn* c = state_[rank].conn; c != nullptr && c->ch) c->ch->drain();
}

void PmiServer::close() {
  for (auto& c : conns_) c->ch->close();
  if (listener_) listener_->close();
}

void PmiServer::fail(Conn& c, const std::string& why) {
  c.ch->close();
  if (c.rank >= 0) {
    handlers_.on_error(c.rank, why);
  } else {
    say("closed a PMI_PORT connection: %s", why.c_str());
  }
}

void PmiServer::on_bytes(Conn& c, std::string_view data) {
  c.in.append(data);
  size_t start = 0;
  while (c.ch->is_open()) {
    size_t nl = c.in.find('\n', start);
    if (nl == std::string::npos) break;
    std::string_view line(c.in.data() + start, nl - start);
    start = nl + 1;
    on_line(c, line);
  }
  c.in.erase(0, start);
  if (c.ch->is_open() && c.in.size() > pmi::kLineMax)
    fail(c, "sent a PMI line longer than " + std::to_string(pmi::kLineMax) + " bytes");
}

void PmiServer::on_line(Conn& c, std::string_view line) {
  if (c.rank < 0) {
    on_initack(c, line);
    return;
  }
  handle(c, c.rank, line);
}

void PmiServer::on_initack(Conn& c, std::string_view line) {
  Result<pmi::Command> cmd = pmi::parse_line(line);
  const std::string* id = cmd.ok() ? cmd->find("pmiid") : nullptr;
  if (!cmd.ok() || cmd->cmd != "initack" || id == nullptr) {
    fail(c, "expected 'cmd=initack pmiid=N' first, got '" + std::string(line) + "'");
    return;
  }
  char* end = nullptr;
  long r = std::strtol(id->c_str(), &end, 10);
  if (id->empty() || *end != '\0' || r < 0 || r >= static_cast<long>(state_.size()) ||
      !layout_.hosts[layout_.ranks[r].host].via_agent || state_[r].conn != nullptr) {
    fail(c, "initack for a rank that is not a remote rank waiting to connect: pmiid=" + *id);
    return;
  }
  c.rank = static_cast<int>(r);
  state_[r].conn = &c;
  c.ch->write("cmd=initack\ncmd=set size=" + std::to_string(state_.size()) + "\ncmd=set rank=" +
              std::to_string(r) + "\ncmd=set debug=0\n");
}

void PmiServer::handle(Conn& c, int rank, std::string_view line) {
  TORUS_DEBUG("pmi: rank %d: %.*s", rank, static_cast<int>(std::min<size_t>(line.size(), 300)),
              line.data());
  Result<pmi::Command> parsed = pmi::parse_line(line);
  if (!parsed.ok()) {
    fail(c, "sent a malformed PMI command (" + parsed.error().message + "): '" +
                std::string(line.substr(0, 200)) + "'");
    return;
  }
  const pmi::Command& cmd = *parsed;
  RankState& st = state_[rank];
  const std::string& name = cmd.cmd;
  if (name == "init") {
    const std::string* v = cmd.find("pmi_version");
    if (v == nullptr || *v != "1") {
      c.ch->write("cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=-1\n");
      fail(c, "asked for PMI version " + (v ? *v : std::string("?")) +
                  "; this mpirun serves PMI-1 only (set TORUS_BOOTSTRAP=pmi1, or use "
                  "mpiexec.hydra or srun for PMI-2)");
      return;
    }
    st.initialized = true;
    c.ch->write("cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n");
  } else if (name == "get_maxes") {
    c.ch->write("cmd=maxes kvsname_max=" + std::to_string(pmi::kKvsNameMax) +
                " keylen_max=" + std::to_string(pmi::kKeyMax) +
                " vallen_max=" + std::to_string(pmi::kValMax) + "\n");
  } else if (name == "get_appnum") {
    c.ch->write("cmd=appnum appnum=" + std::to_string(layout_.ranks[rank].app) + "\n");
  } else if (name == "get_my_kvsname") {
    c.ch->write("cmd=my_kvsname kvsname=" + kvsname_ + "\n");
  } else if (name == "get_universe_size") {
    c.ch->write("cmd=universe_size size=" + std::to_string(state_.size()) + "\n");
  } else if (name == "put") {
    const std::string* kvs = cmd.find("kvsname");
    const std::string* key = cmd.find("key");
    const std::string* value = cmd.find("value");
    if (key == nullptr || key->empty()) {
      fail(c, "sent put without a key: '" + std::string(line.substr(0, 200)) + "'");
      return;
    }
    const std::string empty;
    if (value == nullptr) value = &empty;
    if (kvs != nullptr && *kvs != kvsname_) {
      c.ch->write("cmd=put_result rc=-1 msg=unknown_kvsname\n");
    } else if (key->size() > pmi::kKeyMax || value->size() > pmi::kValMax) {
      c.ch->write("cmd=put_result rc=-1 msg=key_or_value_too_long\n");
    } else {
      kvs_[*key] = *value;
      c.ch->write("cmd=put_result rc=0 msg=success\n");
    }
  } else if (name == "get") {
    const std::string* kvs = cmd.find("kvsname");
    const std::string* key = cmd.find("key");
    if (key == nullptr) {
      fail(c, "sent get without a key: '" + std::string(line.substr(0, 200)) + "'");
      return;
    }
    auto it = kvs_.find(*key);
    if (kvs != nullptr && *kvs != kvsname_) {
      c.ch->write("cmd=get_result rc=-1 msg=unknown_kvsname\n");
    } else if (it != kvs_.end()) {
      c.ch->write("cmd=get_result rc=0 msg=success value=" + it->second + "\n");
    } else if (*key == "PMI_process_mapping") {
      c.ch->write("cmd=get_result rc=0 msg=success value=" + layout_.process_mapping + "\n");
    } else {
      c.ch->write("cmd=get_result rc=-1 msg=key_" + *key + "_not_found\n");
    }
  } else if (name == "barrier_in") {
    if (st.in_barrier) {
      fail(c, "entered the barrier twice");
      return;
    }
    st.in_barrier = true;
    if (++in_barrier_ == static_cast<int>(state_.size())) {
      in_barrier_ = 0;
      for (RankState& s : state_) {
        s.in_barrier = false;
        if (s.conn != nullptr) s.conn->ch->write("cmd=barrier_out\n");
      }
    }
  } else if (name == "finalize") {
    st.finalized = true;
    c.ch->write("cmd=finalize_ack\n");
  } else if (name == "abort") {
    const std::string* code = cmd.find("exitcode");
    const std::string* msg = cmd.find("message");
    if (msg == nullptr) msg = cmd.find("error_msg");
    int n = code != nullptr ? std::atoi(code->c_str()) : 1;
    handlers_.on_abort(rank, n, msg != nullptr ? *msg : std::string());
  } else {
    say("rank %d sent an unknown PMI command '%s'; answering rc=-1", rank, name.c_str());
    c.ch->write("cmd=" + name + "_result rc=-1 msg=unknown_command\n");
  }
}

}  // namespace torus::launcher
