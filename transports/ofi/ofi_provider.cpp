// Provider discovery with fi_getinfo: hints, the default preference order, the "not viable"
// reasons. Duplicates of torus's own transports (tcp, sockets, udp, shm) open only when named.
#include "transports/ofi/ofi_provider.h"

#include "memory/memtype.h"

#include <rdma/fi_domain.h>
#include <rdma/fi_errno.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace torus::ofi {
namespace {

// Every MR mode bit torus honours (ofi_mr.cpp): offering them lets strict providers (EFA,
// verbs) say yes; lenient ones answer with the subset they need. FI_MR_RAW is not offered
// (keys wider than 64 bits need fi_mr_map_raw on the initiator, not written yet).
constexpr int kMrModes = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY |
                         FI_MR_ENDPOINT | FI_MR_HMEM;

bool in(const std::string& name, std::initializer_list<const char*> list) {
  for (const char* n : list)
    if (name == n) return true;
  return false;
}

std::string getinfo_error(int rc) {
  return "fi_getinfo " + std::to_string(rc) + " (" + ofi_strerror(-rc) + ")";
}

// fi_getinfo for `name` with hints; tagged messages (the tagged get, ofi_tagged.cpp) and
// multi-receive asked first and dropped if refused, so a provider without them is still
// usable (no get where RMA keys are unsafe; plain receive buffers). FI_HMEM (GPU memory
// registered with the NIC) is asked only when the process has loaded the CUDA driver: some
// providers take slower paths with it on, and without a loaded driver no buffer can be GPU
// memory (memory/memtype.h).
Result<InfoPtr> getinfo(const std::string& name) {
  int rc = 0;
  const bool want_hmem = mem::cuda_may_be_loaded();
  for (bool hmem : {true, false}) {
    if (hmem && !want_hmem) continue;
    for (bool tagged : {true, false}) {
      for (bool multi : {true, false}) {
        InfoPtr hints = make_hints(name);
        if (multi) hints->caps |= FI_MULTI_RECV;
        if (tagged) hints->caps |= FI_TAGGED;
        if (hmem) hints->caps |= FI_HMEM;
        fi_info* out = nullptr;
        rc = fabric_api()->getinfo(FI_VERSION(1, 9), nullptr, nullptr, 0, hints.get(), &out);
        if (rc == 0) return InfoPtr(out);
      }
    }
  }
  return make_error(Status::Unreachable, getinfo_error(rc));
}

}  // namespace

InfoPtr make_hints(const std::string& name) {
  const FabricApi* api = fabric_api();
  if (api == nullptr) return nullptr;
  InfoPtr h(api->dupinfo(nullptr));  // fi_allocinfo()
  if (!h) return h;
  h->caps = FI_MSG | FI_RMA;
  // Every op passes a context with room for fi_context2, so both modes are fine.
  h->mode = FI_CONTEXT | FI_CONTEXT2;
  h->ep_attr->type = FI_EP_RDM;
  h->domain_attr->mr_mode = kMrModes;
  h->domain_attr->threading = FI_THREAD_DOMAIN;  // one worker thread per iface
  // Endpoints promise in-order active messages (transport.h).
  h->tx_attr->msg_order = FI_ORDER_SAS;
  h->rx_attr->msg_order = FI_ORDER_SAS;
  if (!name.empty()) h->fabric_attr->prov_name = strdup(name.c_str());
  return h;
}

std::string core_name(const char* prov_name) {
  if (prov_name == nullptr) return {};
  const char* semi = std::strchr(prov_name, ';');
  return semi ? std::string(prov_name, semi) : std::string(prov_name);
}

std::string requested_provider(const std::string& config_value) {
  if (!config_value.empty() && config_value != "auto") return config_value;
  const char* fi = std::getenv("FI_PROVIDER");
  return fi != nullptr ? std::string(fi) : std::string();
}

bool rdma_devices_present(std::string* why) {
  // Every provider of the default order drives a device the kernel lists here: verbs, psm3
  // and EFA under infiniband, Slingshot under cxi. Loading libfabric costs ~0.2 s per
  // process (ofi_lib.h), and asking it more: paid by every rank of every job.
  static constexpr const char* kClasses[] = {"/sys/class/infiniband", "/sys/class/cxi"};
  for (const char* dir : kClasses) {
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
      (void)entry;
      return true;
    }
  }
  if (why != nullptr) *why = "/sys/class/infiniband and /sys/class/cxi list no device";
  return false;
}

Result<InfoPtr> choose_provider(const std::string& name) {
  // libfabric is loaded only past the device check (loading it costs ~0.2 s, ofi_lib.h).
  std::string no_lib;
  if (!name.empty()) {
    if (fabric_api(&no_lib) == nullptr) return make_error(Status::Unreachable, no_lib);
    auto r = getinfo(name);
    if (!r) return make_error(Status::Unreachable, name + ": " + r.error().message);
    // Several entries (one per domain/address): the first is libfabric's preferred one.
    fi_info* first = r.value().get();
    InfoPtr one(fabric_api()->dupinfo(first));
    return one;
  }
  std::string no_device;
  if (!rdma_devices_present(&no_device))
    return make_error(Status::Unreachable, "no RDMA device (" + no_device +
                                               "); libfabric not asked (name a provider with "
                                               "TORUS_OFI_PROVIDER to ask it anyway)");
  if (fabric_api(&no_lib) == nullptr) return make_error(Status::Unreachable, no_lib);
  std::string why;
  for (const char* p : kPreferred) {
    auto r = getinfo(p);
    if (r) return InfoPtr(fabric_api()->dupinfo(r.value().get()));
    why += std::string(why.empty() ? "" : "; ") + p + ": " + r.error().message;
  }
  std::string dups;
  for (const char* p : kDuplicates) {
    if (getinfo(p)) dups += std::string(dups.empty() ? "" : ", ") + p;
  }
  if (!dups.empty())
    why += "; present but duplicating torus's own transports, used only when named "
           "(TORUS_OFI_PROVIDER=" + dups.substr(0, dups.find(',')) + "): " + dups;
  return make_error(Status::Unreachable, "no RDMA provider (" + why + ")");
}

std::string mr_mode_string(int mode) {
  static constexpr struct { int bit; const char* name; } kBits[] = {
      {FI_MR_LOCAL, "FI_MR_LOCAL"},         {FI_MR_RAW, "FI_MR_RAW"},
      {FI_MR_VIRT_ADDR, "FI_MR_VIRT_ADDR"}, {FI_MR_ALLOCATED, "FI_MR_ALLOCATED"},
      {FI_MR_PROV_KEY, "FI_MR_PROV_KEY"},   {FI_MR_MMU_NOTIFY, "FI_MR_MMU_NOTIFY"},
      {FI_MR_RMA_EVENT, "FI_MR_RMA_EVENT"}, {FI_MR_ENDPOINT, "FI_MR_ENDPOINT"},
      {FI_MR_HMEM, "FI_MR_HMEM"},
  };
  std::string out;
  for (const auto& b : kBits)
    if ((mode & b.bit) != 0) out += std::string(out.empty() ? "" : "|") + b.name;
  return out.empty() ? "none" : out;
}

std::vector<std::string> describe_providers() {
  std::vector<std::string> out;
  std::string no_lib;
  const FabricApi* api = fabric_api(&no_lib);
  if (api == nullptr) return {no_lib};
  InfoPtr hints = make_hints("");
  fi_info* list = nullptr;
  if (api->getinfo(FI_VERSION(1, 9), nullptr, nullptr, 0, hints.get(), &list) != 0) return out;
  InfoPtr keep(list);
  std::string last;
  for (fi_info* i = list; i != nullptr; i = i->next) {
    std::string line = std::string(i->fabric_attr->prov_name) + " domain " +
                       i->domain_attr->name + ": mr_mode " +
                       mr_mode_string(i->domain_attr->mr_mode) + ", inject " +
                       std::to_string(i->tx_attr->inject_size) + ", max_msg " +
                       std::to_string(i->ep_attr->max_msg_size) +
                       (in(core_name(i->fabric_attr->prov_name),
                           {"tcp", "net", "sockets", "udp", "shm"})
                            ? " (only when named)"
                            : "");
    if (line != last) out.push_back(line);
    last = line;
  }
  return out;
}

}  // namespace torus::ofi
