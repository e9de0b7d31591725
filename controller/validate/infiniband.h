// Parsers for InfiniBand tools: ibstat, ibv_devinfo and ib_write_bw (perftest).
// Pure functions; text they do not understand is an error, never a pass.
#pragma once

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
  std::string line;        // a one-line description in the tool's words (evidence)
};

// ibstat: "CA 'mlx5_0'" blocks with "Port N:" sections. A line that is not
// part of a CA block (ibpanic, "ibstat: command not found") is an error.
Result<std::vector<IbPortStatus>> ParseIbstat(std::string_view text);
// ibv_devinfo [-v]: "hca_id:" blocks with "port:" sections; the rate only with -v.
Result<std::vector<IbPortStatus>> ParseIbvDevinfo(std::string_view text);

// "PORT_ACTIVE (4)", "Active", "4: ACTIVE" -> "ACTIVE"; "LinkUp", "LINK_UP (5)", "5: LinkUp" -> "LINKUP".
std::string NormalizePortState(std::string_view state);

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
