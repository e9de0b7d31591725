// ib.ports: every expected InfiniBand port Active at the expected rate, read
// with ibstat, else ibv_devinfo -v, else (neither installed) sysfs from the facts.
#include "common/json_text.h"
#include "controller/validate/checks/common.h"
#include "controller/validate/infiniband.h"

namespace clusterctl::checks {
namespace {

const ProbeSpec kIbTool{.id = "ibstat",
                        .commands = {{"ibstat"}, {"ibv_devinfo", "-v"}},
                        .timeout_s = 30,
                        .when = [](const NodeReadings& n) { return n.HasIbPorts(); }};

CheckResult Judge(const NodeView& v) {
  const ToolOutput& tool = v.node.Output(kIbTool.id);
  std::vector<IbPortStatus> sysfs = SysfsIbPorts(v.node.facts);
  if (!tool.started) return EvaluateIbPorts(v.host(), sysfs, JsonText(v.node.facts["ib_ports"]), "sysfs", v.vars);
  auto used = v.node.command_used.find(kIbTool.id);
  const bool ibstat = used == v.node.command_used.end() || used->second == 0;
  const std::string source = ibstat ? "ibstat" : "ibv_devinfo";
  Result<std::vector<IbPortStatus>> ports = ibstat ? ParseIbstat(tool.out) : ParseIbvDevinfo(tool.out);
  if (ports.ok() && tool.exit_code != 0) ports = Status::Unavailable(source + " exited " + std::to_string(tool.exit_code));
  return EvaluateIbPorts(v.host(), AgainstSysfs(std::move(ports), sysfs), tool.Both(), source, v.vars);
}

const CheckRegistration kIbPorts({.name = "ib.ports",
                                  .scope = kNode,
                                  .summary = "every expected InfiniBand port Active at the expected rate",
                                  .rank = 190,
                                  .requirements = {InfinibandPorts()},
                                  .probes = {&kIbTool},
                                  .verdict = Judge,
                                  .variables = R"(
validate_ib_ports:
  default: []
  items: {type: string, syntax: ib-port}
  description: the InfiniBand ports every node must have up, DEVICE/PORT; empty, every InfiniBand port found
validate_ib_rate_gbps:
  default: null
  type: number
  minimum: 1
  description: rate each expected port must reach, Gb/s; null, the fastest expected port of the node
)"});

}  // namespace
}  // namespace clusterctl::checks
