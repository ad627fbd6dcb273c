// userfaultfd-based unmap monitor: the monitor thread, the event log, watch() and the
// process-wide instance.
#include "memory/unmap_monitor.h"

#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/base/log.h"
#include "memory/fork_guard.h"
#include "memory/hook_check.h"

// Debian 12's kernel headers predate these; the values are kernel ABI.
#ifndef UFFD_USER_MODE_ONLY
#define UFFD_USER_MODE_ONLY 1
#endif

namespace torus::mem {
namespace {

constexpr uint64_t kFeatures =
    UFFD_FEATURE_EVENT_UNMAP | UFFD_FEATURE_EVENT_REMOVE | UFFD_FEATURE_EVENT_REMAP;

uintptr_t page_size() noexcept {
  static const uintptr_t size = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  return size;
}

std::string errno_text(const char* what, int err) {
  return std::string(what) + ": " + std::strerror(err);
}

// Opens a userfaultfd with the events we need, or says why not. Kernel-mode faults are never
// needed (we take no faults at all), and without UFFD_USER_MODE_ONLY unprivileged processes
// get EPERM whenever vm.unprivileged_userfaultfd is 0.
int open_uffd(std::string* why) {
  const int fd = static_cast<int>(
      syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK | UFFD_USER_MODE_ONLY));
  if (fd < 0) {
    *why = errno_text("userfaultfd(UFFD_USER_MODE_ONLY)", errno) +
           (errno == EPERM ? " (vm.unprivileged_userfaultfd=0 and the kernel lacks "
                             "UFFD_USER_MODE_ONLY, or a seccomp filter)"
                           : "");
    return -1;
  }
  uffdio_api api{};
  api.api = UFFD_API;
  api.features = kFeatures;
  if (ioctl(fd, UFFDIO_API, &api) != 0 || (api.features & kFeatures) != kFeatures) {
    *why = errno_text("UFFDIO_API with EVENT_UNMAP|EVENT_REMOVE|EVENT_REMAP", errno);
    close(fd);
    return -1;
  }
  // Write-protect mode is what lets us watch without taking faults: nothing is ever write-
  // protected. Kernels before 5.7 lack it for anonymous memory; find out now, not per watch.
  // The page is unregistered before munmap so the probe produces no event nobody reads yet.
  void* page = mmap(nullptr, page_size(), PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED) {
    *why = errno_text("mmap of a probe page", errno);
    close(fd);
    return -1;
  }
  uffdio_register reg{};
  reg.range.start = reinterpret_cast<uintptr_t>(page);
  reg.range.len = page_size();
  reg.mode = UFFDIO_REGISTER_MODE_WP;
  const bool ok = ioctl(fd, UFFDIO_REGISTER, &reg) == 0;
  const int err = errno;
  if (ok) ioctl(fd, UFFDIO_UNREGISTER, &reg.range);
  munmap(page, page_size());
  if (!ok) {
    *why = errno_text("UFFDIO_REGISTER_MODE_WP on anonymous memory", err);
    close(fd);
    return -1;
  }
  return fd;
}

std::mutex g_instance_mutex;
std::atomic<UnmapMonitor*> g_instance{nullptr};

}  // namespace

// In the child the monitor thread does not exist and the parent's watches were dropped by the
// kernel (no UFFD_FEATURE_EVENT_FORK), so the instance is dead there; its descriptor is closed
// so the child does not keep the parent's userfaultfd context alive. close() is
// async-signal-safe, as an atfork child handler requires.
void monitor_fork_child() noexcept {
  UnmapMonitor* m = g_instance.load(std::memory_order_relaxed);
  if (m == nullptr) return;
  m->thread_alive_.store(false, std::memory_order_relaxed);
  if (m->uffd_ >= 0) close(m->uffd_);
  if (m->stop_fd_ >= 0) close(m->stop_fd_);
  m->uffd_ = -1;
  m->stop_fd_ = -1;
}

UnmapMonitor& UnmapMonitor::instance() {
  UnmapMonitor* m = g_instance.load(std::memory_order_acquire);
  if (m != nullptr && m->generation_ == fork_generation()) return *m;
  std::lock_guard<std::mutex> lock(g_instance_mutex);
  m = g_instance.load(std::memory_order_acquire);
  if (m != nullptr && m->generation_ == fork_generation()) return *m;
  // Never destroyed: unmaps can happen during static destruction and at exit, and a
  // subscriber may outlive any destruction order we could pick. A parent's instance in a
  // child is abandoned the same way (its lock may be held by a thread that no longer exists).
  auto* fresh = new UnmapMonitor();
  fresh->start();
  g_instance.store(fresh, std::memory_order_release);
  return *fresh;
}

std::unique_ptr<UnmapMonitor> UnmapMonitor::make_unavailable(std::string why) {
  return std::unique_ptr<UnmapMonitor>(new UnmapMonitor(Unavailable{}, std::move(why)));
}

UnmapMonitor::UnmapMonitor(Unavailable, std::string why)
    : generation_(fork_generation()), why_(std::move(why)) {}

UnmapMonitor::UnmapMonitor() : generation_((install_fork_handler(), fork_generation())) {}

void UnmapMonitor::start() {
  static std::once_flag once;
  std::call_once(once, [] { pthread_atfork(nullptr, nullptr, monitor_fork_child); });

  uffd_ = open_uffd(&why_);
  if (uffd_ >= 0) {
    stop_fd_ = eventfd(0, EFD_CLOEXEC);
    if (stop_fd_ < 0) {
      why_ = errno_text("eventfd", errno);
      close(uffd_);
      uffd_ = -1;
    }
  }
  if (uffd_ >= 0) {
    thread_alive_.store(true);
    thread_ = std::thread([this] { run(); });
    TORUS_INFO("unmap monitor: userfaultfd (unmap, remove and remap events; a monitor thread "
               "drains them); registration caches are enabled");
  } else {
    TORUS_INFO("unmap monitor: none (%s); registration caches register and deregister per "
               "operation (TORUS_RCACHE=y makes this an error)",
               why_.c_str());
  }

  // Once per process image: a fork()ed child starting its own monitor would only repeat it.
  static std::atomic<bool> hooks_checked{false};
  if (hooks_checked.exchange(true)) return;
  const std::vector<Interposition> hooks = find_memory_hooks();
  bool dangerous = false;
  for (const Interposition& h : hooks) dangerous |= !h.sanitizer;
  if (dangerous) {
    TORUS_WARN("another library intercepts memory-release functions: %s. torus does not rely "
               "on them (userfaultfd sees the kernel's unmaps), but hooks of several libraries "
               "have corrupted RDMA registrations before: check that library's memory hooks",
               describe(hooks).c_str());
  } else if (!hooks.empty()) {
    TORUS_DEBUG("memory-release functions intercepted: %s", describe(hooks).c_str());
  }
}

UnmapMonitor::~UnmapMonitor() {
  // Only unavailable monitors are ever destroyed (the process-wide one is not), but stop the
  // thread properly in case that changes: wake it, let it drain and close the descriptor
  // (which releases any thread still blocked on an event), then join.
  if (thread_.joinable()) {
    const uint64_t one = 1;
    if (write(stop_fd_, &one, sizeof(one)) == sizeof(one)) thread_.join();
    else thread_.detach();
  }
  if (stop_fd_ >= 0) close(stop_fd_);
}

bool UnmapMonitor::active() const noexcept {
  return thread_alive_.load(std::memory_order_relaxed) && generation_ == fork_generation();
}

std::string UnmapMonitor::why_unavailable() const {
  if (generation_ != fork_generation())
    return "the monitor belongs to the parent process; this is a fork()ed child";
  std::lock_guard<std::mutex> lock(log_mutex_);  // the monitor thread rewrites why_ on failure
  if (!thread_alive_.load()) return why_.empty() ? "the monitor thread stopped" : why_;
  return {};
}

void UnmapMonitor::run() noexcept {
  uffd_msg msgs[32];
  pollfd fds[2] = {{uffd_, POLLIN, 0}, {stop_fd_, POLLIN, 0}};
  bool stop = false;
  while (!stop) {
    fds[0].revents = fds[1].revents = 0;
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    stop = (fds[1].revents & POLLIN) != 0;
    if ((fds[0].revents & (POLLERR | POLLHUP | POLLNVAL)) != 0) break;
    // Drain even when stopping, so no unmapping thread stays blocked.
    std::lock_guard<std::mutex> lock(log_mutex_);
    seq_.fetch_add(1, std::memory_order_seq_cst);  // odd: events being read
    for (;;) {
      const ssize_t n = read(uffd_, msgs, sizeof(msgs));
      if (n <= 0) break;  // EAGAIN: nothing left
      for (size_t i = 0; i < static_cast<size_t>(n) / sizeof(uffd_msg); ++i) {
        const uffd_msg& m = msgs[i];
        switch (m.event) {
          case UFFD_EVENT_UNMAP:
            ++counters_.unmap;
            append_locked({m.arg.remove.start, m.arg.remove.end});
            break;
          case UFFD_EVENT_REMOVE:
            ++counters_.remove;
            append_locked({m.arg.remove.start, m.arg.remove.end});
            break;
          case UFFD_EVENT_REMAP:
            ++counters_.remap;
            append_locked({m.arg.remap.from, m.arg.remap.from + m.arg.remap.len});
            break;
          default:
            // Page faults cannot happen (nothing is write-protected) and no other event
            // was asked for.
            break;
        }
      }
    }
    seq_.fetch_add(1, std::memory_order_seq_cst);  // even: the log is complete
  }
  // Closing the descriptor detaches it from every watched mapping and wakes any thread still
  // waiting on an event, so nothing can block on a monitor that no longer reads.
  {
    std::lock_guard<std::mutex> lock(log_mutex_);
    if (!stop) {
      TORUS_ERROR("unmap monitor: userfaultfd failed (%s); registration caches are flushed and "
                  "stop caching",
                  std::strerror(errno));
      why_ = "the userfaultfd monitor thread failed";
      seq_.fetch_add(1);
      head_ += kLogSize + 1;  // every subscriber is now too far behind: it flushes
      seq_.fetch_add(1);
    }
    thread_alive_.store(false);
    close(uffd_);
    uffd_ = -1;
  }
}

void UnmapMonitor::append_locked(Range r) noexcept {
  log_[head_ % kLogSize] = r;
  ++head_;
}

Status UnmapMonitor::watch(const void* addr, size_t len, std::string* why) {
  auto refuse = [&](std::string reason) {
    std::lock_guard<std::mutex> lock(log_mutex_);
    ++counters_.watch_refused;
    if (why != nullptr) *why = std::move(reason);
    return Status::Unsupported;
  };
  if (!active()) return refuse("no unmap monitor: " + why_unavailable());
  if (len == 0) return refuse("empty range");
  const uintptr_t ps = page_size();
  const uintptr_t start = reinterpret_cast<uintptr_t>(addr) & ~(ps - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(addr) + len + ps - 1) & ~(ps - 1);
  // userfaultfd skips holes silently, and a page later mapped into a hole would never be
  // reported. msync(MS_ASYNC) does no I/O since Linux 2.6.19 but fails with ENOMEM on holes.
  if (msync(reinterpret_cast<void*>(start), end - start, MS_ASYNC) != 0 && errno == ENOMEM)
    return refuse("the range is not fully mapped");
  uffdio_register reg{};
  reg.range.start = start;
  reg.range.len = end - start;
  reg.mode = UFFDIO_REGISTER_MODE_WP;
  if (ioctl(uffd_, UFFDIO_REGISTER, &reg) != 0) {
    const int err = errno;
    switch (err) {
      case EINVAL:
        return refuse("userfaultfd refuses this mapping (file-backed or special memory)");
      case EBUSY:
        return refuse("another userfaultfd already watches this memory");
      case EPERM:
        return refuse("userfaultfd refuses a read-only shared mapping");
      default:
        return refuse(errno_text("UFFDIO_REGISTER", err));
    }
  }
  std::lock_guard<std::mutex> lock(log_mutex_);
  ++counters_.watched;
  return Status::Ok;
}

void UnmapMonitor::report(Range r) {
  std::lock_guard<std::mutex> lock(log_mutex_);
  seq_.fetch_add(1, std::memory_order_seq_cst);
  ++counters_.reported;
  append_locked(r);
  seq_.fetch_add(1, std::memory_order_seq_cst);
}

UnmapMonitor::Subscription UnmapMonitor::subscribe() {
  std::lock_guard<std::mutex> lock(log_mutex_);
  Subscription s;
  s.seen_seq_ = seq_.load();
  s.cursor_ = head_;
  return s;
}

size_t UnmapMonitor::fetch(Subscription& s, Range* out, size_t max) {
  std::lock_guard<std::mutex> lock(log_mutex_);
  size_t n = 0;
  if (head_ - s.cursor_ > kLogSize) {
    out[n++] = kEverything;
    s.cursor_ = head_;
  }
  while (n < max && s.cursor_ < head_) out[n++] = log_[s.cursor_++ % kLogSize];
  if (s.cursor_ == head_) s.seen_seq_ = seq_.load();
  return n;
}

UnmapMonitor::Counters UnmapMonitor::counters() const {
  std::lock_guard<std::mutex> lock(log_mutex_);
  return counters_;
}

std::string UnmapMonitor::status_text() const {
  const Counters c = counters();
  std::string s = std::string("unmap monitor: ") + name();
  if (!active()) s += " (" + why_unavailable() + ")";
  s += "\n  events: unmap " + std::to_string(c.unmap) + ", remove " + std::to_string(c.remove) +
       ", remap " + std::to_string(c.remap) + ", reported " + std::to_string(c.reported) +
       "\n  watches: " + std::to_string(c.watched) + " set, " +
       std::to_string(c.watch_refused) + " refused";
  const std::vector<Interposition> hooks = find_memory_hooks();
  if (!hooks.empty()) s += "\n  hooks: " + describe(hooks);
  return s;
}

}  // namespace torus::mem
