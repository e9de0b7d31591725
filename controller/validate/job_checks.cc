// The job and pair phases of a validation run (see validator.h): srun
// across nodes, a directory user's job, a GPU job per node and nccl-tests from the submit host, then ib_write_bw
// between ring neighbours.
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

bool NameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-'; }

// Candidates named as whole words in srun's error lines ("... failed on node
// node03: ...", "srun: error: node03: task 1: ...").
std::vector<std::string> NodesNamedIn(const std::string& text, const std::set<std::string>& candidates) {
  std::vector<std::string> named;
  for (const std::string& line : Split(text, '\n')) {
    if (line.find("error") == std::string::npos) continue;
    for (const std::string& c : candidates) {
      for (size_t at = line.find(c); at != std::string::npos; at = line.find(c, at + 1)) {
        bool whole = (at == 0 || !NameChar(line[at - 1])) && (at + c.size() >= line.size() || !NameChar(line[at + c.size()]));
        if (whole) {
          if (std::find(named.begin(), named.end(), c) == named.end()) named.push_back(c);
          break;
        }
      }
    }
  }
  return named;
}

bool HasNcclTests(const NodeReadings& node) { return node.Output(checks::NcclTestsProbe().id).Succeeded(); }

// The job phase's own cluster checks: each gets a result even when no job runs.
const char* const kClusterJobChecks[] = {"slurm.srun", "nccl.cluster", "users.job"};

}  // namespace

std::vector<std::string> Validator::JobCheckNames() {
  std::vector<std::string> names(std::begin(kClusterJobChecks), std::end(kClusterJobChecks));
  for (const CheckSpec* spec : CheckSpecs()) {
    if (spec->cluster_phase.slurm_jobs) names.push_back(spec->name);
  }
  return names;
}

// One compute node's GPU job and all_reduce_perf run, planned before the fan-out.
struct Validator::GpuJob {
  std::string host;
  int gpus = 0;
  bool nccl = false;
  bool listed = false, nccl_ran = false;  // false: the deadline came first
  ToolOutput list, nccl_output;
};

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
  for (const Host* h : in_.selected) {
    if (!HasGroup(*h, kGroupCompute) || !probes_.at(h->name).reached) continue;
    Add(Blocked("slurm.gpu_job", kNode, h->name, cause, slurm_.problem));
    Add(Blocked("nccl.node", kNode, h->name, cause, slurm_.problem));
  }
  return true;
}

std::vector<Validator::GpuJob> Validator::PlanGpuJobs() {
  std::vector<GpuJob> gpu_jobs;
  for (const Host* h : in_.selected) {
    if (!HasGroup(*h, kGroupCompute) || !probes_.at(h->name).reached) continue;
    const NodeReadings& node = probes_.at(h->name).readings;
    std::string why, cause;  // cause: the failed check that keeps the job off the node ("": nothing failed)
    if (node.pci_gpus == 0) {
      why = "no GPUs on " + h->name;
    } else if (!usable_compute_.count(h->name)) {
      auto reason = not_usable_.find(h->name);
      cause = reason != not_usable_.end() ? reason->second.substr(0, reason->second.find(' ')) : "slurm.node";
      why = h->name + " cannot run jobs (" + (reason != not_usable_.end() ? reason->second : "not usable") + ")";
    } else if (!gpu_ok_.count(h->name)) {
      cause = FailureReported("gpu.driver", h->name) ? "gpu.driver" : "gpu.count";
      why = "the GPUs of " + h->name + " are not usable (gpu.driver or gpu.count failed)";
    }
    if (!why.empty()) {
      Add(Blocked("slurm.gpu_job", kNode, h->name, cause, why));
      Add(Blocked("nccl.node", kNode, h->name, cause, why));
      continue;
    }
    bool nccl_tests = HasNcclTests(node);
    if (node.pci_gpus < 2) {
      Add(Skip("nccl.node", kNode, h->name, "one GPU on " + h->name + ": there is no all_reduce within the node "
               "(nccl.cluster measures it across nodes)"));
    } else if (!nccl_tests) {
      Add(Skip("nccl.node", kNode, h->name, "nccl-tests not installed on " + h->name + " (" +
               ThresholdsOf(h->name).nccl_tests_dir + "/all_reduce_perf)"));
    }
    gpu_jobs.push_back({h->name, node.pci_gpus, nccl_tests && node.pci_gpus >= 2 && Want("nccl.node")});
  }
  return gpu_jobs;
}

void Validator::Jobs() {
  if (JobsCannotRun()) return;
  const std::string cluster = in_.inventory->cluster_name;
  std::vector<std::string> usable(usable_compute_.begin(), usable_compute_.end());
  std::vector<GpuJob> gpu_jobs = PlanGpuJobs();
  std::vector<std::string> nccl_nodes;
  for (const GpuJob& j : gpu_jobs) {
    if (HasNcclTests(probes_.at(j.host).readings)) nccl_nodes.push_back(j.host);
  }
  if (!probes_.at(submit_host_->name).reached) {
    std::string why = "the submit host " + submit_host_->name + " is unreachable";
    for (const std::string& check : JobCheckNames()) {
      if (check != "nccl.cluster" || nccl_nodes.size() >= 2) Add(Fail(check, kCluster, cluster, why));
    }
    for (const GpuJob& j : gpu_jobs) Add(Fail("slurm.gpu_job", kNode, j.host, why));
    return;
  }
  jobs_can_run_ = true;
  DirectoryUserJob user_job = PlanDirectoryUserJob(usable);
  ToolOutput srun, nccl_cluster;
  bool srun_ran = false, nccl_cluster_ran = false;
  int srun_limit = 0;
  const std::string none;
  std::vector<const Host*> submit_only = {submit_host_};
  in_.run_on(submit_only, [&, this](AgentSession& agent, HostResult&) -> Task<void> {
    if (Want("slurm.srun") && !usable.empty() && SecondsLeft() > 0) {
      std::vector<std::string> argv = {"srun", "-N", std::to_string(usable.size()), "-w", Join(usable, ","),
                                       "--ntasks-per-node=1", "--immediate=60", "--time=5", "-J", "clusterctl-validate",
                                       "-l", "hostname"};
      srun_limit = Limit(180);
      srun = co_await ExecOnNode(agent, argv, none, srun_limit);
      srun_ran = true;
    }
    if (!user_job.user.empty() && SecondsLeft() > 0) {
      // As the user (runuser: the agent is root), on one usable node.
      std::vector<std::string> argv = {"runuser", "-u", user_job.user, "--", "srun", "-N", "1", "-w", user_job.node,
                                       "--immediate=60", "--time=5", "-J", "clusterctl-validate", "id", "-u"};
      user_job.output = co_await ExecOnNode(agent, argv, none, Limit(180));
      user_job.ran = true;
    }
    for (GpuJob& job : gpu_jobs) {
      if (SecondsLeft() <= 0) break;
      if (Want("slurm.gpu_job")) {
        std::vector<std::string> argv = {"srun", "-N", "1", "-w", job.host, "--gres=gpu:" + std::to_string(job.gpus),
                                         "--immediate=60", "--time=5", "-J", "clusterctl-validate", "nvidia-smi", "-L"};
        job.list = co_await ExecOnNode(agent, argv, none, Limit(180));
        job.listed = true;
      }
      if (job.nccl) {
        const Thresholds& t = ThresholdsOf(job.host);
        std::vector<std::string> argv = {"srun", "-N", "1", "-w", job.host, "--gres=gpu:" + std::to_string(job.gpus),
                                         "--immediate=60", "--time=15", "-J", "clusterctl-validate",
                                         t.nccl_tests_dir + "/all_reduce_perf", "-b", "8", "-e", t.nccl_max_bytes, "-f",
                                         "2", "-g", std::to_string(job.gpus)};
        job.nccl_output = co_await ExecOnNode(agent, argv, none, Limit(900));
        job.nccl_ran = true;
      }
    }
    if (Want("nccl.cluster") && nccl_nodes.size() >= 2 && SecondsLeft() > 0) {
      const Thresholds& t = ThresholdsOf(nccl_nodes.front());
      int gpus = probes_.at(nccl_nodes.front()).readings.pci_gpus;
      std::vector<std::string> argv = {"srun", "-N", std::to_string(nccl_nodes.size()), "-w", Join(nccl_nodes, ","),
                                       "--ntasks-per-node=" + std::to_string(gpus), "--gres=gpu:" + std::to_string(gpus),
                                       "--mpi=pmix", "--immediate=60", "--time=15", "-J", "clusterctl-validate",
                                       t.nccl_tests_dir + "/all_reduce_perf", "-b", "8", "-e", t.nccl_max_bytes, "-f",
                                       "2", "-g", "1"};
      nccl_cluster = co_await ExecOnNode(agent, argv, none, Limit(900));
      nccl_cluster_ran = true;
    }
  });
  JudgeSrun(usable, srun, srun_ran, srun_limit);
  JudgeDirectoryUserJob(user_job);
  JudgeGpuJobs(gpu_jobs);
  JudgeNcclCluster(nccl_nodes, nccl_cluster, nccl_cluster_ran);
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

void Validator::JudgeSrun(const std::vector<std::string>& usable, const ToolOutput& srun, bool ran, int limit) {
  const std::string cluster = in_.inventory->cluster_name;
  if (usable.empty()) {
    Add(Fail("slurm.srun", kCluster, cluster, kNoUsableComputeNode));
    return;
  }
  if (!ran) {
    DeadlinePassed("slurm.srun", kCluster, cluster);
    return;
  }
  std::set<std::string> answered;
  static const std::regex kTaskLine(R"(^\d+:\s*(\S+)\s*$)");
  std::smatch m;
  for (const std::string& line : Split(srun.out, '\n')) {
    if (std::regex_match(line, m, kTaskLine)) answered.insert(m[1]);
  }
  std::vector<std::string> missing;
  for (const std::string& n : usable) {
    if (!answered.count(n)) missing.push_back(n);
  }
  std::string measured = std::to_string(usable.size() - missing.size()) + "/" + std::to_string(usable.size()) + " nodes";
  std::string threshold = "all " + std::to_string(usable.size());
  bool queued = srun.Both().find("queued and waiting for resources") != std::string::npos && answered.empty();
  if (queued && srun.timed_out) {
    Add(Fail("slurm.srun", kCluster, cluster,
             "srun across " + CollapseHostList(usable) + " never started: its job waited for resources until srun " +
                 "was stopped after " + std::to_string(limit) + " s (the nodes are busy?)",
             TailLines(srun.Both()), measured, threshold));
  } else if (srun.exit_code != 0 || !missing.empty()) {
    std::set<std::string> candidates(usable.begin(), usable.end());
    std::vector<std::string> named = NodesNamedIn(srun.Both(), candidates);
    std::string who = !named.empty() ? CollapseHostList(named) : CollapseHostList(missing);
    Add(Fail("slurm.srun", kCluster, cluster,
             "srun across " + CollapseHostList(usable) + " failed" + (who.empty() ? "" : " on " + who) +
                 (srun.timed_out ? " (timed out)" : " (exit " + std::to_string(srun.exit_code) + ")"),
             TailLines(srun.Both()), measured, threshold));
  } else {
    std::vector<std::string> left_out;
    for (const auto& [node, why] : not_usable_) left_out.push_back(node + " (" + why + ")");
    Add(Pass("slurm.srun", kCluster, cluster, measured, threshold,
             "srun -N" + std::to_string(usable.size()) + " hostname on " + CollapseHostList(usable) +
                 (left_out.empty() ? "" : "; left out: " + Join(left_out, ", "))));
  }
}

void Validator::JudgeGpuJobs(const std::vector<GpuJob>& jobs) {
  for (const GpuJob& job : jobs) {
    if (Want("slurm.gpu_job")) {
      if (!job.listed) DeadlinePassed("slurm.gpu_job", kNode, job.host);
      else Add(EvaluateGpuJob(job.host, job.list, job.gpus));
    }
    if (job.nccl && !job.nccl_ran) {
      DeadlinePassed("nccl.node", kNode, job.host);
    } else if (job.nccl) {
      const Thresholds& t = ThresholdsOf(job.host);
      const Result<NvidiaSmiReport>& report = checks::GpuReport(probes_.at(job.host).readings);
      std::string model = report.ok() && !report->gpus.empty() ? report->gpus.front().name : "";
      double floor = t.nccl_busbw_min_gbps.value_or(DefaultNodeBusbwFloorGbps(model));
      Add(EvaluateNccl("nccl.node", kNode, job.host, job.nccl_output, floor, false, t));
    }
  }
}

void Validator::JudgeNcclCluster(const std::vector<std::string>& nodes, const ToolOutput& output, bool ran) {
  const std::string cluster = in_.inventory->cluster_name;
  if (nodes.size() < 2) {
    Add(Skip("nccl.cluster", kCluster, cluster, nodes.empty() ? "nccl-tests not installed on any usable GPU node"
                                                              : "nccl-tests on only one usable GPU node"));
    return;
  }
  if (!ran) {
    DeadlinePassed("nccl.cluster", kCluster, cluster);
    return;
  }
  const Thresholds& t = ThresholdsOf(nodes.front());
  double ib_gbps = 0;
  for (const IbPortStatus& p : ExpectedIbPorts(SysfsIbPorts(probes_.at(nodes.front()).readings.facts), check_vars_.at(nodes.front()))) {
    if (p.state == "ACTIVE") ib_gbps += p.rate_gbps;
  }
  double floor = t.nccl_busbw_min_gbps.value_or(DefaultClusterBusbwFloorGbps(ib_gbps));
  Add(EvaluateNccl("nccl.cluster", kCluster, cluster, output, floor, true, t));
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
    std::vector<IbPortStatus> expected = ExpectedIbPorts(SysfsIbPorts(p.readings.facts), check_vars_.at(h->name));
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
