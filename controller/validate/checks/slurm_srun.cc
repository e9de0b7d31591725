// slurm.srun: one job across every usable compute node (srun -N<n> -l
// hostname from the submit host); passes when each node's task printed its
// name, and names the nodes srun's errors blame when it does not.
#include <algorithm>
#include <cctype>
#include <regex>
#include <set>

#include "common/strings.h"
#include "controller/validate/checks/common.h"
#include "controller/validate/cluster_run.h"
#include "inventory/hostlist.h"

namespace clusterctl::checks {
namespace {

constexpr const char* kCheck = "slurm.srun";

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

// The nodes whose task printed "<rank>: <name>" (srun -l).
std::set<std::string> Answered(const ToolOutput& srun) {
  std::set<std::string> answered;
  static const std::regex kTaskLine(R"(^\d+:\s*(\S+)\s*$)");
  std::smatch m;
  for (const std::string& line : Split(srun.out, '\n')) {
    if (std::regex_match(line, m, kTaskLine)) answered.insert(m[1]);
  }
  return answered;
}

// The verdict on srun's output over `usable`, stopped after `limit` seconds if it did not end.
CheckResult Judge(const ClusterRun& run, const std::vector<std::string>& usable, const ToolOutput& srun, int limit) {
  const std::string& cluster = run.cluster();
  const std::set<std::string> answered = Answered(srun);
  std::vector<std::string> missing;
  for (const std::string& n : usable) {
    if (!answered.count(n)) missing.push_back(n);
  }
  std::string measured = std::to_string(usable.size() - missing.size()) + "/" + std::to_string(usable.size()) + " nodes";
  std::string threshold = "all " + std::to_string(usable.size());
  bool queued = srun.Both().find("queued and waiting for resources") != std::string::npos && answered.empty();
  if (queued && srun.timed_out) {
    return Fail(kCheck, kCluster, cluster,
                "srun across " + CollapseHostList(usable) + " never started: its job waited for resources until srun " +
                    "was stopped after " + std::to_string(limit) + " s (the nodes are busy?)",
                TailLines(srun.Both()), measured, threshold);
  }
  if (srun.exit_code != 0 || !missing.empty()) {
    std::vector<std::string> named = NodesNamedIn(srun.Both(), std::set<std::string>(usable.begin(), usable.end()));
    std::string who = !named.empty() ? CollapseHostList(named) : CollapseHostList(missing);
    return Fail(kCheck, kCluster, cluster,
                "srun across " + CollapseHostList(usable) + " failed" + (who.empty() ? "" : " on " + who) +
                    (srun.timed_out ? " (timed out)" : " (exit " + std::to_string(srun.exit_code) + ")"),
                TailLines(srun.Both()), measured, threshold);
  }
  std::vector<std::string> left_out;
  for (const auto& [node, why] : run.UnusableComputeNodes()) left_out.push_back(node + " (" + why + ")");
  return Pass(kCheck, kCluster, cluster, measured, threshold,
              "srun -N" + std::to_string(usable.size()) + " hostname on " + CollapseHostList(usable) +
                  (left_out.empty() ? "" : "; left out: " + Join(left_out, ", ")));
}

void RunPhase(ClusterRun& run) {
  const std::vector<std::string> usable = run.UsableComputeNodes();
  if (usable.empty()) return run.Add(Fail(kCheck, kCluster, run.cluster(), kNoUsableComputeNode));
  const Argv argv = {"srun", "-N", std::to_string(usable.size()), "-w", Join(usable, ","), "--ntasks-per-node=1",
                     "--immediate=60", "--time=5", "-J", "clusterctl-validate", "-l", "hostname"};
  const int limit = run.Limit(180);
  Result<ToolOutput> srun = std::move(run.RunCommands({{.host = run.SubmitHost(), .argv = argv, .timeout_s = 180}}).front());
  if (!srun.ok()) return run.Add(Fail(kCheck, kCluster, run.cluster(), srun.status().message()));
  run.Add(Judge(run, usable, *srun, limit));
}

const CheckRegistration kSlurmSrun({.name = kCheck,
                                    .scope = kCluster,
                                    .summary = "srun runs on every usable compute node",
                                    .rank = 80,
                                    .prerequisites = {{"slurm.node"}},
                                    .cluster_phase = {.run = RunPhase, .slurm_jobs = true},
                                    .needs_controller = true});

}  // namespace
}  // namespace clusterctl::checks
