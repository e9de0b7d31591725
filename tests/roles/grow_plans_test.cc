// Growing the README's cluster from 3 to 5 nodes, planned on each supported
// release (issue 49: "grow 3->5 touches only what it touches on Debian 12").
// The testbed's inventory (tests/testbed/lib/inventory.sh with --gpus 2
// --hcas 1 --services) before and after node04-05 join compute, planned on
// the os-release facts of real Debian 12 and 13 nodes: on node01-03 a
// deploy checks again exactly the steps whose input hash moved, plus the
// handlers those notify. That set is asserted here for Debian 12 and must
// be the same on Debian 13; bench/grow.sh measures the real grow on the
// testbed and docs/platforms.md compares the two.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>

#include "agent/facts/text_parsers.h"
#include "controller/engine/fake_fleet.h"
#include "tests/roles/role_harness.h"
#include "tests/unit/fixture.h"

namespace clusterctl {
namespace {

using testing::Planned;

// The testbed's inventory of `nodes` nodes (node01 the head, the others GPU
// compute nodes), in the shape tests/testbed/lib/inventory.sh writes it.
std::string TestbedInventory(int nodes) {
  const std::string last = std::to_string(nodes);
  return R"(cluster: testbed
connection: {user: root}
vars:
  chrony_no_clock_control: true
  nfs_implementation: ganesha
  nfs_exports:
    - {path: /export/home, clients: [compute]}
  nfs_mounts:
    - {export: /export/home, path: /home}
  grafana_repository: http://10.213.77.1:8099/
  grafana_repository_suite: ./
  nvidia_driver_source: site
  nvidia_driver_repository: http://10.213.77.1:8099/
  nvidia_driver_repository_trusted: true
  nvidia_driver_branch: '550'
  nvidia_driver_version: 550.127.05-1+simulated
hosts:
  node[01-0)" + last + R"(]:
    address: 10.213.77.[11-1)" + last + R"(]
    interfaces:
      ib0: 10.213.177.[11-1)" + last + R"(]/24
groups:
  controller: {hosts: node01}
  login: {hosts: node01}
  compute:
    hosts: node[02-0)" + last + R"(]
    vars:
      slurm_health_checks: [clock.offset, node.disk, node.resources, munge.decode]
  nfs_server: {hosts: node01}
  nfs_clients: {children: [compute]}
  monitoring: {hosts: node01}
)";
}

// A testbed node of the release whose os-release `fixture` holds: one HCA
// with ib0 on the fabric, GPUs on the compute nodes.
nlohmann::json NodeFacts(const std::string& fixture, const std::string& host) {
  nlohmann::json node = testing::FakeFacts(host, host == "node01" ? 0 : 2);
  node["os"] = facts::ParseOsRelease(testing::ReadFixture(testing::FixturesDir() + "/facts/" + fixture));
  node["pci"]["hca_count"] = 1;
  node["pci"]["ib_hca_count"] = 1;
  return node;
}

std::map<std::string, nlohmann::json> Facts(const std::string& fixture, int nodes) {
  std::map<std::string, nlohmann::json> facts;
  for (int i = 1; i <= nodes; ++i) {
    const std::string host = "node0" + std::to_string(i);
    facts[host] = NodeFacts(fixture, host);
  }
  return facts;
}

// What a deploy does again on a host whose plan went from `before` to
// `after`: every step that is new or whose input hash moved, and the
// host's handlers those notify (as role/handler, the deploy's own step names).
std::set<std::string> Touched(const Planned& before, const Planned& after) {
  std::set<std::string> touched;
  for (const std::string& step : after.steps) {
    auto was = before.hashes.find(step);
    if (was != before.hashes.end() && was->second == after.hashes.at(step)) continue;
    touched.insert(step);
    const std::string role = step.substr(0, step.find('/'));
    for (const std::string& notify : after.notify.at(step)) {
      const HandlerRef ref = ParseHandlerRef(notify, role);
      const std::string handler = ref.role + "/" + ref.handler;
      // A handler of a role the host does not run (or whose `when` is false) is not run.
      if (std::count(after.handlers.begin(), after.handlers.end(), handler)) touched.insert(handler);
    }
  }
  for (const std::string& step : before.steps) {
    if (!after.hashes.count(step)) touched.insert(step + " (gone)");
  }
  return touched;
}

// Per old host (node01-03), what growing 3 -> 5 touches on `fixture`'s release.
std::map<std::string, std::set<std::string>> Grow(const std::string& fixture) {
  testing::RoleHarness harness(TestbedInventory(3), testing::BuiltInRolesButHealth());
  harness.UseSecrets();
  std::map<std::string, Planned> before;
  for (const char* host : {"node01", "node02", "node03"}) before[host] = harness.Plan(host, Facts(fixture, 3));
  harness.UseInventory(TestbedInventory(5));
  std::map<std::string, std::set<std::string>> touched;
  for (const char* host : {"node01", "node02", "node03"}) {
    touched[host] = Touched(before[host], harness.Plan(host, Facts(fixture, 5)));
  }
  return touched;
}

std::string Lines(const std::map<std::string, std::set<std::string>>& touched) {
  std::string out;
  for (const auto& [host, steps] : touched) {
    for (const std::string& step : steps) out += host + " " + step + "\n";
  }
  return out;
}

TEST_CASE("grow 3 -> 5 on Debian 12: the old nodes get the new hosts in /etc/hosts, Slurm's files, the exports, the targets") {
  const auto touched = Grow("os-release--debian12.txt");
  INFO(Lines(touched));
  // The head: the new hosts' names, their NodeName lines (restarting
  // slurmctld), their ib0 addresses as NFS clients (ganesha reloaded, never
  // restarted) and their exporters (node, and DCGM on these GPU nodes) as Prometheus targets.
  CHECK(touched.at("node01") == std::set<std::string>{"hosts/cluster hosts", "monitoring/dcgm target[node04]",
                                                      "monitoring/dcgm target[node05]", "monitoring/node target[node04]",
                                                      "monitoring/node target[node05]", "nfs-server/ganesha exports",
                                                      "nfs-server/reload ganesha", "slurm-common/gres.conf",
                                                      "slurm-common/slurm.conf", "slurm-controller/restart slurmctld"});
  // The old compute nodes: the names and Slurm's files, slurmd restarted; no
  // package, driver, fabric, NFS mount or exporter step.
  CHECK(touched.at("node02") == std::set<std::string>{"hosts/cluster hosts", "slurm-common/gres.conf",
                                                      "slurm-common/slurm.conf", "slurm-node/restart slurmd"});
  CHECK(touched.at("node03") == touched.at("node02"));
}

TEST_CASE("grow 3 -> 5 on Debian 13 touches on the old nodes exactly what it touches on Debian 12") {
  const auto bookworm = Grow("os-release--debian12.txt");
  const auto trixie = Grow("os-release--debian-13.8--base-files.txt");
  CHECK_MESSAGE(Lines(trixie) == Lines(bookworm), "Debian 13:\n" << Lines(trixie) << "Debian 12:\n" << Lines(bookworm));
}

}  // namespace
}  // namespace clusterctl
