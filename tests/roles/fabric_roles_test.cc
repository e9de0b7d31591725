// The built-in fabric roles, rdma, ipoib and gpudirect (roles/, templates/),
// planned for fake facts: which hosts get them (the roles' own `when`), the
// MLNX_OFED bundle path of rdma, the GPUDirect method, and the files each
// network stack gets, including what the testbed cannot show: the IPoIB
// mode on an InfiniBand link, P_Key children, a loaded NVIDIA driver.
#include <doctest/doctest.h>

#include "tests/roles/role_harness.h"

namespace clusterctl {
namespace {

const char* kInventory = R"(cluster: lab
connection: {user: root}
vars:
  ipoib_mtu: 4092
  ipoib_mode: connected
hosts:
  head: {address: 10.0.0.1, interfaces: {ib0: 10.10.0.1/16}}
  gpu01:
    address: 10.0.0.11
    interfaces: {ib0: 10.10.0.11, ib0.8001: 10.11.0.11/24}
  cpu01: {address: 10.0.0.21}
groups:
  controller: {hosts: [head]}
  compute: {hosts: [gpu01, cpu01]}
)";

nlohmann::json Facts(const std::string& stack, int hcas, const std::string& ib0_link = "infiniband") {
  return {{"os", {{"id", "debian"}, {"family", "debian"}, {"version_id", "12"}}},
          {"pci", {{"gpu_count", 0}, {"hca_count", hcas}, {"ib_hca_count", hcas}}},
          {"network_stack", stack},
          {"systemd", true},
          {"interfaces", {{{"name", "ib0"}, {"link_type", ib0_link}}}}};
}

// The fabric roles alone (their dependencies are assumed done).
using testing::Planned;

class RoleHarness : public testing::RoleHarness {
 public:
  explicit RoleHarness(const std::string& inventory = kInventory)
      : testing::RoleHarness(inventory, {"rdma", "ipoib", "gpudirect"}) {}
};

bool Has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::vector<std::string> OfRole(const std::string& role, const std::vector<std::string>& identities) {
  std::vector<std::string> out;
  for (const std::string& id : identities) {
    if (id.rfind(role + "/", 0) == 0) out.push_back(id);
  }
  return out;
}
std::vector<std::string> OfRdma(const std::vector<std::string>& identities) { return OfRole("rdma", identities); }

// A GPU node with an adapter and a loaded driver whose facts recommend `method`.
nlohmann::json GpuFacts(const nlohmann::json& recommended, bool dmabuf = false) {
  nlohmann::json facts = Facts("none", 1);
  facts["pci"]["gpu_count"] = 8;
  facts["nvidia_driver"] = "550.54.14";
  facts["gpudirect"] = {{"kernel_modules", dmabuf ? "open" : "proprietary"}, {"dmabuf", dmabuf},
                        {"nvidia_peermem", true}, {"nv_peer_mem", false}, {"recommended", recommended}};
  return facts;
}

}  // namespace

TEST_CASE("rdma and ipoib run only where the facts show an adapter") {
  RoleHarness h;
  CHECK(h.Plan("cpu01", Facts("none", 0)).roles.empty());
  CHECK(h.Plan("gpu01", Facts("none", 1)).roles == std::vector<std::string>{"rdma", "ipoib"});
}

TEST_CASE("systemd-networkd: one .network per interface, the mode only on an InfiniBand link, a .netdev per P_Key child") {
  RoleHarness h;
  Planned p = h.Plan("gpu01", Facts("systemd-networkd", 1));
  const std::string& ib0 = p.files.at("/etc/systemd/network/60-clusterctl-ib0.network");
  CHECK(Has(ib0, "Name=ib0\n"));
  CHECK(Has(ib0, "MTUBytes=4092\n"));
  CHECK(Has(ib0, "Address=10.10.0.11/16\n"));  // no prefix in the inventory: ipoib_default_prefix
  CHECK(Has(ib0, "IPoIB=ib0.8001\n"));
  CHECK(Has(ib0, "[IPoIB]\nMode=connected\n"));
  const std::string& netdev = p.files.at("/etc/systemd/network/60-clusterctl-ib0.8001.netdev");
  CHECK(Has(netdev, "Kind=ipoib\n"));
  CHECK(Has(netdev, "PartitionKey=0x8001\n"));
  CHECK(Has(p.files.at("/etc/systemd/network/60-clusterctl-ib0.8001.network"), "Address=10.11.0.11/24\n"));
  CHECK(p.files.size() == 3);  // the management interface has no file

  // The testbed's veth ib0 (link type ether) gets no mode: there is no mode to set.
  Planned veth = h.Plan("head", Facts("none", 1, "ether"));
  const std::string& head = veth.files.at("/etc/systemd/network/60-clusterctl-ib0.network");
  CHECK_FALSE(Has(head, "[IPoIB]"));
  CHECK(Has(head, "Address=10.10.0.1/16\n"));
}

TEST_CASE("networkd's wait-online is turned off where networkd manages only the fabric links") {
  // Seen on the testbed: with wait-online on, munged's first start waited its
  // full two minutes for network-online.target on every node.
  RoleHarness h;
  const std::string step = "ipoib/networkd wait-online off";
  Planned none = h.Plan("gpu01", Facts("none", 1));
  REQUIRE(none.params.count(step) == 1);
  CHECK(none.params.at(step)["name"] == "systemd-networkd-wait-online");
  CHECK(none.params.at(step)["enabled"] == false);
  CHECK(none.params.at(step)["state"] == "stopped");
  // networkd configures the management network too: its wait-online is the
  // node's own, and stays as it is.
  CHECK(h.Plan("gpu01", Facts("systemd-networkd", 1)).params.count(step) == 0);
  CHECK(h.Plan("gpu01", Facts("ifupdown", 1)).params.count(step) == 0);
}

TEST_CASE("netplan, ifupdown and NetworkManager get their own files, the mode and the P_Key child in their words") {
  RoleHarness h;
  Planned netplan = h.Plan("gpu01", Facts("netplan", 1));
  const std::string& yaml = netplan.files.at("/etc/netplan/60-clusterctl-ipoib.yaml");
  CHECK(Has(yaml, "    ib0:\n      addresses: [\"10.10.0.11/16\"]\n      mtu: 4092\n      infiniband-mode: connected\n"));
  CHECK_FALSE(Has(yaml, "ib0.8001:"));  // netplan has no P_Key children
  CHECK(netplan.files.size() == 1);

  Planned ifupdown = h.Plan("gpu01", Facts("ifupdown", 1));
  const std::string& stanza = ifupdown.files.at("/etc/network/interfaces.d/clusterctl-ib0");
  CHECK(Has(stanza, "auto ib0\niface ib0 inet static\n    address 10.10.0.11/16\n    mtu 4092\n"));
  CHECK(Has(stanza, "pre-up echo connected > /sys/class/net/ib0/mode\n"));
  CHECK(Has(ifupdown.files.at("/etc/network/interfaces.d/clusterctl-ib0.8001"),
            "echo 0x8001 > /sys/class/net/ib0/create_child"));

  Planned nm = h.Plan("gpu01", Facts("NetworkManager", 1));
  const std::string& connection = nm.files.at("/etc/NetworkManager/system-connections/clusterctl-ib0.nmconnection");
  CHECK(Has(connection, "type=infiniband\ninterface-name=ib0\n"));
  CHECK(Has(connection, "mtu=4092\ntransport-mode=connected\n"));
  CHECK(Has(nm.files.at("/etc/NetworkManager/system-connections/clusterctl-ib0.8001.nmconnection"),
            "parent=ib0\np-key=0x8001\n"));
}

TEST_CASE("rdma: an MLNX_OFED bundle is checked by name, copied, unpacked, checked again, installed from itself, held") {
  const std::string bundle = "MLNX_OFED_LINUX-24.10-1.1.4.0-debian12.5-x86_64.tgz";
  std::string inventory = kInventory;
  inventory.replace(inventory.find("vars:\n"), 6, "vars:\n  rdma_stack: mlnx_ofed\n  rdma_ofed_bundle: " + bundle + "\n");
  RoleHarness h(inventory);
  std::ofstream(h.dir() + "/" + bundle) << "bundle bytes";
  Planned p = h.Plan("gpu01", Facts("none", 1));
  CHECK(OfRdma(p.steps) == std::vector<std::string>{"rdma/stack source chosen", "rdma/bundle fits the node",
                                                    "rdma/bundle directory", "rdma/bundle", "rdma/unpack bundle",
                                                    "rdma/bundle supports the kernel",
                                                    "rdma/bundle repository (Debian, Ubuntu)",
                                                    "rdma/MLNX_OFED packages", "rdma/openibd enabled"});
  // The bundle's name reaches the check as an argument, never inside the script.
  const nlohmann::json& check = p.params.at("rdma/bundle fits the node")["argv"];
  CHECK(check.back() == bundle);
  CHECK(check[2].get<std::string>().find(bundle) == std::string::npos);
  CHECK(p.params.at("rdma/bundle")["path"] == "/var/cache/clusterctl-ofed/" + bundle);
  const nlohmann::json& repository = p.params.at("rdma/bundle repository (Debian, Ubuntu)");
  CHECK(repository["uri"] == "file:///var/cache/clusterctl-ofed/" + bundle + ".d/DEBS");
  CHECK(repository["suite"] == "./");
  CHECK(repository["trusted"] == true);
  const nlohmann::json& packages = p.params.at("rdma/MLNX_OFED packages");
  CHECK(packages["name"] == nlohmann::json{"mlnx-ofed-basic"});
  CHECK(packages["hold"] == true);
  CHECK_FALSE(packages.contains("version"));
  // No peer-memory module loaded: openibd alone restarts.
  CHECK(OfRdma(p.handlers) == std::vector<std::string>{"rdma/restart openibd"});

  nlohmann::json gpudirect = Facts("none", 1);
  gpudirect["peer_memory"] = "nvidia_peermem";
  CHECK(OfRdma(h.Plan("gpu01", gpudirect).handlers) ==
        std::vector<std::string>{"rdma/unload peer memory", "rdma/restart openibd", "rdma/load peer memory"});
}

TEST_CASE("rdma: the inbox stack plans its packages alone") {
  RoleHarness h;
  CHECK(OfRdma(h.Plan("gpu01", Facts("none", 1)).steps) ==
        std::vector<std::string>{"rdma/inbox packages (Debian, Ubuntu)"});
}

TEST_CASE("gpudirect: only on GPU hosts with an adapter and a loaded driver; the others' modules go before the chosen one") {
  RoleHarness h;
  CHECK(OfRole("gpudirect", h.Plan("gpu01", Facts("none", 1)).steps).empty());  // no GPU
  nlohmann::json no_driver = GpuFacts("nvidia_peermem");
  no_driver["nvidia_driver"] = nullptr;
  CHECK(h.Plan("gpu01", no_driver).roles == std::vector<std::string>{"rdma", "ipoib"});

  Planned peermem = h.Plan("gpu01", GpuFacts("nvidia_peermem"));
  CHECK(OfRole("gpudirect", peermem.steps) == std::vector<std::string>{"gpudirect/legacy service stopped",
                                                                       "gpudirect/legacy module unloaded",
                                                                       "gpudirect/nvidia_peermem loaded at boot"});
  CHECK(peermem.params.at("gpudirect/nvidia_peermem loaded at boot")["at_boot"] == true);

  // DMA-BUF: no module at all, nvidia_peermem taken out if it was there.
  Planned dmabuf = h.Plan("gpu01", GpuFacts("dmabuf", true));
  CHECK(OfRole("gpudirect", dmabuf.steps) == std::vector<std::string>{"gpudirect/legacy service stopped",
                                                                      "gpudirect/legacy module unloaded",
                                                                      "gpudirect/nvidia_peermem unloaded"});
  // The testbed's simulated driver gives the same facts, marked: the same plan.
  nlohmann::json simulated = GpuFacts("dmabuf", true);
  simulated["nvidia"] = {{"simulated", true}, {"loaded_version", "550.54.14"}};
  CHECK(OfRole("gpudirect", h.Plan("gpu01", simulated).steps) == OfRole("gpudirect", dmabuf.steps));

  // Nothing usable under auto: a failing precondition naming the way out.
  Planned nothing = h.Plan("gpu01", GpuFacts(nullptr));
  CHECK(OfRole("gpudirect", nothing.steps).front() == "gpudirect/a method is available");
  CHECK(Has(nothing.params.at("gpudirect/a method is available")["message"].get<std::string>(),
            "gpudirect_method: none"));
}

TEST_CASE("gpudirect: an explicit method overrides the facts; the legacy module only when asked for") {
  std::string inventory = kInventory;
  inventory.replace(inventory.find("vars:\n"), 6, "vars:\n  gpudirect_method: nv_peer_mem\n");
  RoleHarness h(inventory);
  Planned legacy = h.Plan("gpu01", GpuFacts("dmabuf", true));
  CHECK(OfRole("gpudirect", legacy.steps) == std::vector<std::string>{"gpudirect/nvidia_peermem unloaded",
                                                                      "gpudirect/legacy packages",
                                                                      "gpudirect/legacy service"});
}

TEST_CASE("ipoib: a mode other than datagram or connected fails a precondition before any file is written") {
  std::string inventory = kInventory;
  inventory.replace(inventory.find("ipoib_mode: connected"), 21, "ipoib_mode: conected");
  RoleHarness h(inventory);
  Planned p = h.Plan("gpu01", Facts("systemd-networkd", 1));
  CHECK(OfRole("ipoib", p.steps).front() == "ipoib/mode known");
  CHECK(p.params.at("ipoib/mode known")["argv"].back() == "conected");
  CHECK(OfRole("ipoib", RoleHarness().Plan("gpu01", Facts("systemd-networkd", 1)).steps).front() ==
        "ipoib/ping (Debian, Ubuntu)");
}

}  // namespace clusterctl
