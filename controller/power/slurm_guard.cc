#include "controller/power/slurm_guard.h"

#include <algorithm>
#include <set>

#include "common/strings.h"
#include "inventory/hostlist.h"

namespace clusterctl {
namespace {

std::vector<std::string> NonEmptyLines(const std::string& text) {
  std::vector<std::string> lines;
  for (const std::string& line : Split(text, '\n')) {
    if (!Trim(line).empty()) lines.emplace_back(Trim(line));
  }
  return lines;
}

Result<std::vector<std::string>> ExpandSlurmHostList(const std::string& list) {
  std::vector<std::string> nodes;
  for (const std::string& term : SplitHostList(list)) {
    auto expanded = ExpandHostPattern(term);
    if (!expanded.ok()) return expanded.status();
    nodes.insert(nodes.end(), expanded->begin(), expanded->end());
  }
  return nodes;
}

}  // namespace

std::vector<std::string> SqueueArgv(const std::vector<std::string>& nodes) {
  return {"squeue", "-h", "-t", "running,suspended,completing", "-w", Join(nodes, ","), "-o", "%A|%u|%N|%j"};
}

std::vector<std::string> SinfoArgv(const std::vector<std::string>& nodes) {
  return {"sinfo", "-h", "-N", "-n", Join(nodes, ","), "-o", "%N|%t"};
}

Result<std::vector<SlurmJob>> ParseSqueueJobs(const std::string& out) {
  std::vector<SlurmJob> jobs;
  for (const std::string& line : NonEmptyLines(out)) {
    size_t a = line.find('|'), b = line.find('|', a + 1), c = line.find('|', b + 1);
    if (c == std::string::npos || a == 0) return Status::Corruption("unreadable squeue line '" + Printable(line, 120) + "'");
    SlurmJob job{line.substr(0, a), line.substr(a + 1, b - a - 1), line.substr(c + 1), {}};
    auto nodes = ExpandSlurmHostList(line.substr(b + 1, c - b - 1));
    if (!nodes.ok()) return Status::Corruption("unreadable squeue line '" + Printable(line, 120) + "'");
    job.nodes = std::move(nodes).value();
    jobs.push_back(std::move(job));
  }
  return jobs;
}

Result<std::vector<std::string>> ParseDrainedNodes(const std::string& out) {
  std::vector<std::string> drained;
  for (const std::string& line : NonEmptyLines(out)) {
    size_t bar = line.find('|');
    if (bar == std::string::npos || bar == 0) return Status::Corruption("unreadable sinfo line '" + Printable(line, 120) + "'");
    const std::string state = line.substr(bar + 1);
    if (state.rfind("drain", 0) == 0 || state.rfind("drng", 0) == 0) drained.push_back(line.substr(0, bar));
  }
  return drained;
}

std::map<std::string, std::string> PowerRefusals(const std::vector<std::string>& nodes,
                                                 const std::vector<SlurmJob>& jobs,
                                                 const std::vector<std::string>& drained) {
  const std::set<std::string> drained_set(drained.begin(), drained.end());
  std::map<std::string, std::string> refusals;
  for (const std::string& node : nodes) {
    if (drained_set.count(node)) continue;
    std::vector<std::string> running;
    for (const SlurmJob& job : jobs) {
      if (std::find(job.nodes.begin(), job.nodes.end(), node) == job.nodes.end()) continue;
      running.push_back(job.id + " (" + job.user + ": " + Printable(job.name, 60) + ")");
    }
    if (running.empty()) continue;
    refusals[node] = std::string("Slurm runs job") + (running.size() == 1 ? " " : "s ") + Join(running, ", ") +
                     " on " + node + ", which is not drained: drain it first or give --force";
  }
  return refusals;
}

}  // namespace clusterctl
