// The pair phase of a validation run (see validator.h): ib_write_bw between
// ring neighbours.
#include <unistd.h>

#include <algorithm>
#include <atomic>

#include "common/strings.h"
#include "controller/validate/pair_schedule.h"
#include "controller/validate/remote_exec.h"
#include "controller/validate/checks/common.h"
#include "controller/validate/validator.h"

namespace clusterctl::validation_internal {

// The pair phase's nodes: selected nodes whose ib.ports passed and that
// have perftest, each with the port it tests; an unreachable one fails.
std::vector<const Host*> Validator::PairCandidates(std::map<std::string, IbPortStatus>& port_of) {
  std::vector<const Host*> nodes;
  for (const Host* h : in_.selected) {
    const NodeProbe& p = probes_.at(h->name);
    if (!p.reached) {  // its adapters are unknown: no reading, no pass
      Add(Fail("ib.write_bw", CheckScope::kPair, h->name, "not checked: " + h->name + " is unreachable (" + p.unreachable + ")",
               {}, "unknown"));
    }
    bool has_ib_write_bw = p.readings.Output(checks::IbWriteBwProbe().id).Succeeded();
    if (!p.reached || !has_ib_write_bw || !ib_ok_.count(h->name)) continue;
    std::vector<IbPortStatus> expected = ExpectedIbPorts(SysfsIbPorts(p.readings.facts), ThresholdsOf(h->name));
    if (expected.empty()) continue;
    port_of[h->name] = expected.front();
    nodes.push_back(h);
  }
  return nodes;
}

void Validator::Pairs() {
  if (!Want("ib.write_bw")) return;
  std::map<std::string, IbPortStatus> port_of;
  std::vector<const Host*> nodes = PairCandidates(port_of);
  const std::string cluster = in_.inventory->cluster_name;
  if (nodes.size() < 2) {
    Add(Skip("ib.write_bw", CheckScope::kPair, cluster,
             "needs two nodes with healthy InfiniBand ports and perftest's ib_write_bw (found " +
                 std::to_string(nodes.size()) + ")"));
    return;
  }
  // The server's address the client reaches it on: an ib* interface address, else the management address.
  auto address_of = [](const Host& h) {
    for (const Interface& i : h.interfaces) {
      if (i.name.rfind("ib", 0) == 0 && !i.address.empty()) return i.address;
    }
    return h.address;
  };
  std::atomic<int> unit_counter{0};
  for (const std::vector<NodePair>& round : ScheduleRounds(RingPairs(nodes.size()))) {
    if (SecondsLeft() <= 10) {
      for (const NodePair& pair : round) {
        DeadlinePassed("ib.write_bw", CheckScope::kPair, nodes[pair.first]->name + "+" + nodes[pair.second]->name);
      }
      continue;
    }
    std::map<std::string, const Host*> server_for;  // client name -> server
    std::map<std::string, std::string> unit_of;     // server name -> transient unit
    std::map<std::string, ToolOutput> client_output, server_start;  // entries made before the fan-outs
    std::vector<const Host*> servers, clients;
    for (const NodePair& pair : round) {
      servers.push_back(nodes[pair.first]);
      clients.push_back(nodes[pair.second]);
      server_for[nodes[pair.second]->name] = nodes[pair.first];
      unit_of[nodes[pair.first]->name] = "clusterctl-ib-write-bw-" + std::to_string(::getpid()) + "-" +
                                         std::to_string(unit_counter++);
      client_output[nodes[pair.second]->name];
      server_start[nodes[pair.first]->name];
    }
    const std::string none;
    // Servers: a transient unit that serves one test and ends, or is stopped
    // after 90 s whatever happens to this run.
    in_.run_on(servers, [&, this](AgentSession& agent, HostResult& result) -> Task<void> {
      const Host& host = *result.host;
      const IbPortStatus& port = port_of.at(host.name);
      std::vector<std::string> argv = {"systemd-run", "--unit=" + unit_of.at(host.name), "--collect", "-p",
                                       "RuntimeMaxSec=90", "/usr/bin/ib_write_bw", "-d", port.device, "-i",
                                       std::to_string(port.port), "-s",
                                       std::to_string(ThresholdsOf(host.name).ib_write_bw_message_bytes), "-D", "5", "-F"};
      server_start.at(host.name) = co_await ExecOnNode(agent, argv, none, Limit(30));
    });
    in_.run_on(clients, [&, this](AgentSession& agent, HostResult& result) -> Task<void> {
      const Host& host = *result.host;
      const Host& server = *server_for.at(host.name);
      const IbPortStatus& port = port_of.at(host.name);
      std::vector<std::string> wait = {"sleep", "1"};  // the server's listening socket
      ToolOutput waited = co_await ExecOnNode(agent, wait, none, Limit(5));
      (void)waited;
      std::vector<std::string> argv = {"/usr/bin/ib_write_bw", "-d", port.device, "-i", std::to_string(port.port), "-s",
                                       std::to_string(ThresholdsOf(host.name).ib_write_bw_message_bytes), "-D", "5",
                                       "-F", address_of(server)};
      client_output.at(host.name) = co_await ExecOnNode(agent, argv, none, Limit(60));
    });
    in_.run_on(servers, [&, this](AgentSession& agent, HostResult& result) -> Task<void> {
      std::vector<std::string> argv = {"systemctl", "stop", unit_of.at(result.host->name)};
      ToolOutput stopped = co_await ExecOnNode(agent, argv, none, Limit(15));
      (void)stopped;
    });
    for (const NodePair& pair : round) {
      const Host& server = *nodes[pair.first];
      const Host& client = *nodes[pair.second];
      std::string subject = server.name + "+" + client.name;
      double rate = std::min(port_of.at(server.name).rate_gbps, port_of.at(client.name).rate_gbps);
      const ToolOutput& started = server_start.at(server.name);
      if (started.exit_code != 0) {
        Add(Fail("ib.write_bw", CheckScope::kPair, subject, "could not start the ib_write_bw server on " + server.name,
                 TailLines(started.Both())));
        continue;
      }
      Add(EvaluateIbWriteBw(subject, client_output.at(client.name), rate, ThresholdsOf(client.name)));
    }
  }
}


}  // namespace clusterctl::validation_internal
