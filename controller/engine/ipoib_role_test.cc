// The built-in rdma and ipoib roles (roles/, templates/) planned for fake
// facts: which hosts get them (the roles' own `when`), and the files each
// network stack gets, including what the testbed cannot show: the IPoIB
// mode on an InfiniBand link and P_Key children.
#include <doctest/doctest.h>

#include <fstream>

#include "controller/engine/planner.h"
#include "controller/state/test_util.h"
#include "inventory/loader.h"

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

struct Planned {
  std::map<std::string, std::string> files;  // path -> body
  std::vector<std::string> roles;
  std::vector<std::string> handlers;  // identities
};

class RoleHarness {
 public:
  RoleHarness() {
    std::ofstream(dir_.path() + "/inventory.yaml") << kInventory;
    Diagnostics diagnostics;
    inventory_ = LoadInventory(dir_.path() + "/inventory.yaml", diagnostics);
    REQUIRE_MESSAGE(inventory_, diagnostics.ToString());
    catalog_ = Catalog::Load({{CLUSTERCTL_SOURCE_DIR "/roles"}, {CLUSTERCTL_SOURCE_DIR "/templates"}}, diagnostics);
    REQUIRE_MESSAGE(catalog_, diagnostics.ToString());
  }

  Planned Plan(const std::string& host, const nlohmann::json& facts) {
    std::map<std::string, nlohmann::json> all = {{host, facts}};
    Planner planner(PlanInputs{&*inventory_, &*catalog_, &all, nullptr, {"rdma", "ipoib"}});
    Diagnostics diagnostics;
    HostPlan plan = planner.Plan(*inventory_->FindHost(host), diagnostics);
    REQUIRE_MESSAGE(diagnostics.error_count() == 0, diagnostics.ToString());
    Planned out;
    for (const Role* r : plan.roles) out.roles.push_back(r->name);
    for (const PlannedStep& s : plan.steps) {
      if (!s.skipped && s.kind == "file") out.files[s.params["path"].get<std::string>()] = s.body;
    }
    for (const PlannedStep& s : plan.handlers) {
      if (!s.skipped) out.handlers.push_back(s.Identity());
    }
    return out;
  }

 private:
  testing::TempDir dir_;
  std::optional<Inventory> inventory_;
  std::optional<Catalog> catalog_;
};

bool Has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

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

}  // namespace clusterctl
