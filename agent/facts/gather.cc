#include "agent/facts/gather.h"

#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "agent/exec/run_command.h"
#include "agent/facts/cpu_topology.h"
#include "agent/facts/fabric.h"
#include "agent/facts/kernels.h"
#include "agent/facts/nvidia.h"
#include "agent/facts/pci.h"
#include "agent/facts/slurm.h"
#include "agent/facts/text_parsers.h"
#include "common/strings.h"

namespace clusterctl::facts {
namespace {

bool ReadFile(const std::string& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return true;
}

// The file's text; "" when it cannot be read.
std::string FileText(const std::string& path) {
  std::string text;
  return ReadFile(path, text) ? text : std::string();
}

int PrefixLength(const sockaddr* mask) {
  if (!mask) return -1;
  const unsigned char* bytes;
  size_t length;
  if (mask->sa_family == AF_INET) {
    bytes = reinterpret_cast<const unsigned char*>(&reinterpret_cast<const sockaddr_in*>(mask)->sin_addr);
    length = 4;
  } else if (mask->sa_family == AF_INET6) {
    bytes = reinterpret_cast<const unsigned char*>(&reinterpret_cast<const sockaddr_in6*>(mask)->sin6_addr);
    length = 16;
  } else {
    return -1;
  }
  int bits = 0;
  for (size_t i = 0; i < length; ++i) bits += __builtin_popcount(bytes[i]);
  return bits;
}

// ARPHRD_* (if_arp.h) as facts name it.
nlohmann::json LinkTypeName(unsigned short hardware_type) {
  switch (hardware_type) {
    case 1: return "ether";         // ARPHRD_ETHER
    case 32: return "infiniband";   // ARPHRD_INFINIBAND
    case 772: return "loopback";    // ARPHRD_LOOPBACK
    default: return std::to_string(hardware_type);
  }
}

// Network interfaces of this node's network namespace (getifaddrs uses
// netlink, so it sees the namespace; /sys/class/net may show the host's).
nlohmann::json ReadInterfaces() {
  std::map<std::string, nlohmann::json> by_name;
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return nlohmann::json::array();
  int sock = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  for (ifaddrs* a = list; a; a = a->ifa_next) {
    nlohmann::json& entry = by_name[a->ifa_name];
    if (entry.is_null()) {
      entry = {{"name", a->ifa_name}, {"up", (a->ifa_flags & IFF_UP) != 0}, {"addresses", nlohmann::json::array()}};
      ifreq request{};
      std::snprintf(request.ifr_name, IFNAMSIZ, "%s", a->ifa_name);
      if (sock >= 0 && ::ioctl(sock, SIOCGIFMTU, &request) == 0) entry["mtu"] = request.ifr_mtu;
    }
    if (!a->ifa_addr) continue;
    char text[INET6_ADDRSTRLEN] = {};
    if (a->ifa_addr->sa_family == AF_INET) {
      ::inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(a->ifa_addr)->sin_addr, text, sizeof text);
      entry["addresses"].push_back({{"family", "inet"}, {"address", text}, {"prefix", PrefixLength(a->ifa_netmask)}});
    } else if (a->ifa_addr->sa_family == AF_INET6) {
      ::inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(a->ifa_addr)->sin6_addr, text, sizeof text);
      entry["addresses"].push_back({{"family", "inet6"}, {"address", text}, {"prefix", PrefixLength(a->ifa_netmask)}});
    } else if (a->ifa_addr->sa_family == AF_PACKET) {
      auto* ll = reinterpret_cast<sockaddr_ll*>(a->ifa_addr);
      std::string mac;
      for (int i = 0; i < ll->sll_halen; ++i) {
        char part[4];
        std::snprintf(part, sizeof part, i ? ":%02x" : "%02x", ll->sll_addr[i]);
        mac += part;
      }
      entry["mac"] = mac;
      entry["link_type"] = LinkTypeName(ll->sll_hatype);
    }
  }
  if (sock >= 0) ::close(sock);
  ::freeifaddrs(list);
  nlohmann::json out = nlohmann::json::array();
  for (auto& [name, entry] : by_name) out.push_back(entry);
  return out;
}

// Fills gpus[].serial from nvidia-smi (the driver does not expose serials
// in /proc); a failure is reported under errors["nvidia.gpus"].
void AddGpuSerials(nlohmann::json& gpus, nlohmann::json& errors) {
  agent::CommandSpec smi;
  smi.argv = {"nvidia-smi", "--query-gpu=pci.bus_id,serial,uuid", "--format=csv,noheader"};
  smi.timeout = std::chrono::seconds(10);
  agent::CommandResult listed = agent::RunCommand(smi);
  std::string problem;
  if (listed.timed_out) {
    problem = "nvidia-smi timed out after 10 s";
  } else if (listed.exit_code != 0) {
    problem = "nvidia-smi exited " + std::to_string(listed.exit_code) + ": " + Printable(Trim(listed.stdout_data + listed.stderr_data));
  } else {
    problem = MergeGpuSerials(gpus, listed.stdout_data);
  }
  if (!problem.empty()) errors["nvidia.gpus"] = problem;
}

}  // namespace

const std::vector<std::string>& DefaultPackagePatterns() {
  static const std::vector<std::string> patterns = {
      "slurm*", "munge", "libmunge*", "chrony", "sudo", "openssh-server", "nfs-*", "rdma-core", "ibverbs*",
      "infiniband-diags", "perftest", "opensm", "mlnx*", "doca-ofed*", "ofed-scripts", "nvidia*", "cuda*", "libnvidia*", "datacenter-gpu-manager*",
      "nccl*", "libnccl*", "prometheus*", "grafana*", "mariadb-server", "systemd"};
  return patterns;
}

nlohmann::json GatherFacts(const GatherOptions& options) {
  nlohmann::json facts = nlohmann::json::object();
  nlohmann::json errors = nlohmann::json::object();
  const std::string& root = options.root;
  std::string text;
  auto file = [&](const std::string& path, const char* fact) -> bool {
    if (ReadFile(root + path, text)) return true;
    errors[fact] = "cannot read " + path;
    return false;
  };

  if (file("/etc/os-release", "os")) facts["os"] = ParseOsRelease(text);
  if (file("/proc/cpuinfo", "cpu")) {
    facts["cpu"] = ParseCpuinfo(text);
    AddSysfsTopology(facts["cpu"], root, text.find("physical id") != std::string::npos);
  }
  if (file("/proc/meminfo", "memory")) facts["memory"] = ParseMeminfo(text);
  if (file("/proc/sys/kernel/random/boot_id", "boot_id")) facts["boot_id"] = std::string(Trim(text));
  if (file("/proc/uptime", "uptime")) facts["uptime_s"] = ParseUptime(text);
  // A kernel built without loadable modules has no /proc/modules: none loaded.
  facts["modules"] = ReadFile(root + "/proc/modules", text) ? ParseProcModules(text) : std::vector<std::string>{};
  if (file("/proc/partitions", "disks")) facts["disks"] = ParsePartitions(text);

  std::vector<PciDevice> pci = ReadPciDevices(root);
  facts["pci"] = ClassifyPci(pci);
  facts["ib_ports"] = IbPortsToJson(ReadIbPorts(root));
  facts["ib_devices"] = ReadIbDevices(root);
  facts["peer_memory"] = PeerMemoryOf(facts["modules"].get<std::vector<std::string>>());

  // The loaded module, real or the testbed's simulated one (facts.nvidia.
  // simulated tells them apart): also gpudirect's open or proprietary modules.
  const LoadedNvidiaModule loaded = LoadedNvidiaModuleOf(FileText(root + "/proc/driver/nvidia/version"),
                                                         FileText(root + "/sys/module/nvidia/version"),
                                                         FileText(root + "/sys/module/nvidia/taint"));
  facts["nvidia_driver"] = loaded.version.empty() ? nlohmann::json(nullptr) : nlohmann::json(loaded.version);

  const std::vector<std::string>& patterns = options.packages.empty() ? DefaultPackagePatterns() : options.packages;
  std::error_code ec;
  if (ReadFile(root + "/var/lib/dpkg/status", text)) {
    facts["package_manager"] = "apt";
    facts["packages"] = ParseDpkgStatus(text, patterns);
  } else if (options.live_system && std::filesystem::exists("/usr/bin/rpm", ec)) {
    facts["package_manager"] = "dnf";
    agent::CommandSpec rpm;
    rpm.argv = {"rpm", "-qa", "--qf", "%{NAME}\t%{VERSION}-%{RELEASE}\n"};
    agent::CommandResult listed = agent::RunCommand(rpm);
    facts["packages"] = ParseRpmList(listed.stdout_data, patterns);
    if (listed.exit_code != 0) errors["packages"] = "rpm -qa exited " + std::to_string(listed.exit_code);
  } else {
    facts["package_manager"] = "unknown";
    facts["packages"] = nlohmann::json::object();
  }
  facts["systemd"] = std::filesystem::is_directory(root + "/run/systemd/system", ec);
  facts["kernels"] = ReadKernels(root);
  facts["rdma_stack"] = RdmaStackOf(facts["packages"]);
  facts["network_stack"] = DetectNetworkStack(root);

  if (options.live_system) {
    utsname u{};
    if (::uname(&u) == 0) {
      facts["kernel"] = {{"release", u.release}, {"version", u.version}, {"arch", u.machine}};
      facts["hostname"] = u.nodename;
    }
    facts["interfaces"] = ReadInterfaces();
    AddIpoibModes(facts["interfaces"], root);
  }
  const std::string release = facts.contains("kernel") ? facts["kernel"].value("release", std::string()) : "";
  std::string modules_dep;
  if (release.empty() || !ReadFile(root + "/lib/modules/" + release + "/modules.dep", modules_dep)) modules_dep.clear();
  facts["gpudirect"] = GpudirectOf(loaded, release, facts["packages"], facts["rdma_stack"], modules_dep);
  std::string proc_filesystems;
  if (!ReadFile(root + "/proc/filesystems", proc_filesystems)) proc_filesystems.clear();
  std::error_code no_device;
  facts["nfs"] = NfsKernelSupportOf(proc_filesystems, modules_dep, std::filesystem::exists(root + "/dev/cachefiles", no_device));
  nlohmann::json& nvidia = facts["nvidia"] =
      ReadNvidia(root, facts["nvidia_driver"], facts["gpudirect"]["kernel_modules"], facts["packages"]);
  nvidia["nvml_library"] = FindNvmlLibrary(root);
  facts["slurm"] = ReadSlurmPlugins(root);
  if (options.live_system && !nvidia["gpus"].empty() && std::filesystem::exists("/usr/bin/nvidia-smi", ec)) {
    AddGpuSerials(nvidia["gpus"], errors);
  }
  facts["errors"] = errors;
  return facts;
}

}  // namespace clusterctl::facts
