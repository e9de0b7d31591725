// Parsers for InfiniBand tools: ibstat, ibv_devinfo and ib_write_bw (perftest).
// Pure functions; text they do not understand is an error, never a pass.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace clusterctl {

// One HCA port, normalised across ibstat, ibv_devinfo and sysfs (facts).
struct IbPortStatus {
  std::string device;      // "mlx5_0"
  int port = 0;
  std::string state;       // "ACTIVE", "DOWN", "INIT", "ARMED"
  std::string phys_state;  // "LINKUP", "POLLING", "DISABLED" (upper case, no separators)
  double rate_gbps = 0;    // 0: not reported
  std::string link_layer;  // "InfiniBand" | "Ethernet"
  std::string port_guid;   // "0x946dae0300cde72c" (NormalizeGuid); empty when not shown
  int lid = -1;            // -1 when not shown
  std::string line;        // a one-line description in the tool's words (evidence)
};

// One adapter, with the fields the agent's ib_devices fact has (docs/agent.md).
struct IbDeviceStatus {
  std::string device;          // "mlx5_0"
  std::string model;           // ibstat "CA type" / sysfs hca_type ("MT4129"); ibv_devinfo: "vendor_part_id 4099"
  std::string firmware;        // "28.39.1002"
  std::string psid;            // ibv_devinfo board_id / sysfs board_id ("MT_1090120019"); ibstat does not show it
  std::string node_guid;       // NormalizeGuid form
  std::string sys_image_guid;  // NormalizeGuid form
};

// ibstat: "CA 'mlx5_0'" blocks with "Port N:" sections. A line that is not
// part of a CA block (ibpanic, "ibstat: command not found") is an error.
// With `devices`, also the adapters' own attributes.
Result<std::vector<IbPortStatus>> ParseIbstat(std::string_view text, std::vector<IbDeviceStatus>* devices = nullptr);
// ibv_devinfo [-v]: "hca_id:" blocks with "port:" sections; the rate only with -v.
Result<std::vector<IbPortStatus>> ParseIbvDevinfo(std::string_view text, std::vector<IbDeviceStatus>* devices = nullptr);

// "PORT_ACTIVE (4)", "Active", "4: ACTIVE" -> "ACTIVE"; "LinkUp", "LINK_UP (5)", "5: LinkUp" -> "LINKUP".
std::string NormalizePortState(std::string_view state);

// The ports of a node's facts (their sysfs reading, `ib_ports`): what
// ib.ports reads when neither ibstat nor ibv_devinfo is installed, and the
// adapters the pair and NCCL phases use. A field of another type reads as absent.
std::vector<IbPortStatus> SysfsIbPorts(const nlohmann::json& facts);

struct IbBandwidthRow {
  long long bytes = 0;
  long long iterations = 0;
  double peak_mbps = 0;
  double average_mbps = 0;
};

// ib_write_bw (server or client side, or both concatenated): the result rows,
// in MB/s (a --report_gbits run is converted). An error when there is none.
Result<std::vector<IbBandwidthRow>> ParseIbWriteBw(std::string_view text);

}  // namespace clusterctl
