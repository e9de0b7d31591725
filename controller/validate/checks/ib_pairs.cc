#include "controller/validate/checks/ib_pairs.h"

#include <unistd.h>

#include "controller/validate/checks/common.h"
#include "controller/validate/infiniband.h"

namespace clusterctl::checks {

const ProbeSpec kIbWriteBwInstalled{.id = "ib_write_bw installed",
                                    .commands = {{"test", "-x", "/usr/bin/ib_write_bw"}},
                                    .timeout_s = 10,
                                    .when = [](const NodeReadings& n) { return n.HasIbPorts(); }};

namespace {

// The address a client reaches `host` on: an ib* interface's, else the management address.
std::string ServerAddress(const Inventory& inventory, const std::string& host) {
  const Host* h = inventory.FindHost(host);
  for (const Interface& i : h->interfaces) {
    if (i.name.rfind("ib", 0) == 0 && !i.address.empty()) return i.address;
  }
  return h->address;
}

IbWriteBwLimits LimitsOf(const nlohmann::json& vars) {
  return {NumberVariable(vars, "validate_ib_write_bw_min_mbps"),
          IntegerVariable(vars, "validate_ib_write_bw_message_bytes").value_or(65536)};
}

Argv ServerArgv(const std::string& unit, const IbPairNode& server, const IbPairNode& client, int seconds) {
  return {"systemd-run", "--unit=" + unit, "--collect", "-p", "RuntimeMaxSec=" + std::to_string(seconds + 85),
          "/usr/bin/ib_write_bw", "-d", server.port.device, "-i", std::to_string(server.port.port), "-s",
          std::to_string(client.limits.message_bytes), "-D", std::to_string(seconds), "-F"};
}

Argv ClientArgv(const IbPairNode& client, const std::string& server_address, int seconds) {
  return {"/usr/bin/ib_write_bw", "-d", client.port.device, "-i", std::to_string(client.port.port), "-s",
          std::to_string(client.limits.message_bytes), "-D", std::to_string(seconds), "-F", server_address};
}

}  // namespace

std::optional<IbPairNode> IbPairNodeOf(ClusterRun& run, const std::string& host) {
  const NodeView view = run.View(host);
  if (!view.node.Output(kIbWriteBwInstalled.id).Succeeded() || run.NodeOutcome("ib.ports", host) != CheckOutcome::kPass) {
    return std::nullopt;
  }
  std::vector<IbPortStatus> expected = ExpectedIbPorts(SysfsIbPorts(view.node.facts), view.vars);
  if (expected.empty()) return std::nullopt;
  return IbPairNode{host, expected.front(), ServerAddress(run.inventory(), host), LimitsOf(view.vars)};
}

std::vector<IbPairOutputs> RunIbWriteBwRound(ClusterRun& run, const std::vector<IbPairNode>& nodes,
                                             const std::vector<NodePair>& round, int seconds, int& units) {
  std::vector<HostCommand> starts, clients, stops;
  for (const NodePair& pair : round) {
    const IbPairNode& server = nodes[pair.first];
    const IbPairNode& client = nodes[pair.second];
    const std::string unit = "clusterctl-ib-write-bw-" + std::to_string(::getpid()) + "-" + std::to_string(units++);
    starts.push_back({.host = server.name, .argv = ServerArgv(unit, server, client, seconds), .timeout_s = 30});
    clients.push_back({.host = client.name, .argv = {"sleep", "1"}, .timeout_s = 5});
    clients.push_back({.host = client.name, .argv = ClientArgv(client, server.address, seconds), .timeout_s = seconds + 55});
    stops.push_back({.host = server.name, .argv = {"systemctl", "stop", unit}, .timeout_s = 15});
  }
  const std::vector<Result<ToolOutput>> started = run.RunCommands(starts);
  const std::vector<Result<ToolOutput>> measured = run.RunCommands(clients);
  run.RunCommands(stops);
  std::vector<IbPairOutputs> outputs;
  for (size_t k = 0; k < round.size(); ++k) outputs.push_back({started[k], measured[2 * k + 1]});
  return outputs;
}

}  // namespace clusterctl::checks
