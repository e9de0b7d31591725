// fabric.ipoib: every node reaches every other node's fabric (IPoIB)
// addresses at the configured MTU without fragmentation. Pure verdicts over
// the facts and `ping -M do` outputs, so they are tested without a fabric.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "controller/validate/check_result.h"
#include "controller/validate/tool_output.h"
#include "inventory/model.h"

namespace clusterctl {

// An IPoIB interface the inventory gives a host (ib0, ib0.8001), and what the
// node's facts show of it.
struct IpoibInterface {
  std::string name;              // "ib0"
  std::string address;           // the inventory's address
  int configured_mtu = 0;        // 0: none configured (the interface's own MTU is the one to test)
  bool exists = false;           // in the facts' interfaces
  bool up = false;
  bool has_address = false;      // the inventory's address is on it
  int mtu = 0;                   // live
  std::string link_type;         // "infiniband" on an HCA; "ether" on the testbed's simulated fabric
  int TestMtu() const { return configured_mtu > 0 ? configured_mtu : mtu; }
  // Worth pinging from: present, up and holding its address.
  bool Usable() const { return exists && up && has_address; }
};

// "ib0", "ib3", "ib0.8001": the kernel's names for IPoIB interfaces (ParseIpoibName).
bool IsIpoibName(std::string_view name);

// The host's IPoIB interfaces from the inventory, with their live state from
// `facts` (interfaces[]: name, up, mtu, addresses, link_type).
std::vector<IpoibInterface> IpoibInterfacesOf(const Host& host, const nlohmann::json& facts, int configured_mtu);

// One ping from an interface of the node to another host's address on the same interface name.
struct IpoibPing {
  std::string interface;  // "ib0"
  std::string peer;       // "node03"
  std::string address;    // the peer's fabric address
  int mtu = 0;            // the MTU tested: the payload is mtu - 28 (IPv4 + ICMP headers), DF set
  ToolOutput output;      // ping -M do -s (mtu-28) -c 2 -I IF ADDRESS
};

// The ping argv for one probe.
std::vector<std::string> IpoibPingArgv(const IpoibPing& ping);

// "2 packets transmitted, 2 received" -> {2, 2}; {-1, -1} without a summary line.
struct PingSummary {
  int transmitted = -1;
  int received = -1;
};
PingSummary ParsePingSummary(std::string_view text);

// The verdict: each interface exists, is up, holds its address at the
// configured MTU, and every ping came back whole. No interfaces: a skip that
// says so; no peers on an interface: nothing to reach (a skip).
CheckResult EvaluateIpoibReach(const std::string& host, const std::vector<IpoibInterface>& interfaces,
                               const std::vector<IpoibPing>& pings);

}  // namespace clusterctl
