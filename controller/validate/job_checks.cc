// The job and pair phases of a validation run (see validator.h): a directory
// user's job from the submit host, then ib_write_bw between ring neighbours.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <regex>

#include "common/strings.h"
#include "controller/validate/pair_schedule.h"
#include "controller/validate/remote_exec.h"
#include "controller/validate/checks/common.h"
#include "controller/validate/checks/users_consistent.h"
#include "controller/validate/validator.h"
#include "inventory/hostlist.h"

namespace clusterctl::validation_internal {
namespace {

// The job phase's own cluster checks: each gets a result even when no job runs
// (the registered `slurm_jobs` phases get theirs from cluster_phases.cc).
const char* const kClusterJobChecks[] = {"users.job"};

}  // namespace

std::vector<std::string> Validator::JobCheckNames() {
  return {std::begin(kClusterJobChecks), std::end(kClusterJobChecks)};
}

// Whether the job phase cannot run at all; if so its checks are skipped or
// blocked here, naming why.
bool Validator::JobsCannotRun() {
  const std::string cluster = in_.inventory->cluster_name;
  bool any_compute_selected = std::any_of(in_.selected.begin(), in_.selected.end(),
                                          [](const Host* h) { return HasGroup(*h, kGroupCompute); });
  if (slurm_hosts_.empty() || !any_compute_selected) {
    std::string why = slurm_hosts_.empty() ? "no Slurm cluster in the inventory" : "no compute node selected";
    for (const std::string& check : JobCheckNames()) Add(Skip(check, kCluster, cluster, why));
    return true;
  }
  if (slurm_.problem.empty()) return false;
  const std::string& cause = slurm_.problem_check;
  for (const std::string& check : JobCheckNames()) Add(Blocked(check, kCluster, cluster, cause, slurm_.problem));
  return true;
}

void Validator::Jobs() {
  if (JobsCannotRun()) return;
  const std::string cluster = in_.inventory->cluster_name;
  std::vector<std::string> usable(usable_compute_.begin(), usable_compute_.end());
  if (!probes_.at(submit_host_->name).reached) {
    std::string why = "the submit host " + submit_host_->name + " is unreachable";
    for (const std::string& check : JobCheckNames()) Add(Fail(check, kCluster, cluster, why));
    return;
  }
  DirectoryUserJob user_job = PlanDirectoryUserJob(usable);
  const std::string none;
  std::vector<const Host*> submit_only = {submit_host_};
  in_.run_on(submit_only, [&, this](AgentSession& agent, HostResult&) -> Task<void> {
    if (!user_job.user.empty() && SecondsLeft() > 0) {
      // As the user (runuser: the agent is root), on one usable node.
      std::vector<std::string> argv = {"runuser", "-u", user_job.user, "--", "srun", "-N", "1", "-w", user_job.node,
                                       "--immediate=60", "--time=5", "-J", "clusterctl-validate", "id", "-u"};
      user_job.output = co_await ExecOnNode(agent, argv, none, Limit(180));
      user_job.ran = true;
    }
  });
  JudgeDirectoryUserJob(user_job);
}

// The first of the submit host's directory_users, on the first usable
// node; no user when the check is not wanted or cannot run (its result
// added here).
Validator::DirectoryUserJob Validator::PlanDirectoryUserJob(const std::vector<std::string>& usable) {
  DirectoryUserJob job;
  if (!Want("users.job")) return job;
  const std::string cluster = in_.inventory->cluster_name;
  const std::vector<checks::DirectoryUser> users = checks::DirectoryUsers(check_vars_.at(submit_host_->name));
  if (users.empty() || users.front().uid < 0) {
    Add(Skip("users.job", kCluster, cluster, "no directory_users in the inventory"));
    return job;
  }
  if (usable.empty()) {
    Add(Fail("users.job", kCluster, cluster, kNoUsableComputeNode));
    return job;
  }
  job.user = users.front().name;
  job.uid = users.front().uid;
  job.node = usable.front();
  return job;
}

// Passes when the job ran and `id -u` in it printed the directory's UID.
void Validator::JudgeDirectoryUserJob(const DirectoryUserJob& job) {
  if (job.user.empty()) return;
  const std::string cluster = in_.inventory->cluster_name;
  if (!job.ran) {
    DeadlinePassed("users.job", kCluster, cluster);
    return;
  }
  const std::string printed(Trim(job.output.out));
  const std::string expected = std::to_string(job.uid);
  const std::string what = "srun as " + job.user + " on " + job.node;
  if (job.output.exit_code != 0 || job.output.timed_out) {
    Add(Fail("users.job", kCluster, cluster,
             what + " failed" + (job.output.timed_out ? " (timed out)" : " (exit " + std::to_string(job.output.exit_code) + ")"),
             TailLines(job.output.Both()), "", "uid " + expected));
  } else if (printed != expected) {
    Add(Fail("users.job", kCluster, cluster, what + ": the job ran as uid " + Printable(printed, 40) + ", not the directory's " + expected,
             TailLines(job.output.Both()), Printable(printed, 40), "uid " + expected));
  } else {
    Add(Pass("users.job", kCluster, cluster, "uid " + printed, "uid " + expected,
             what + ": id -u in the job is the directory's UID"));
  }
}

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
