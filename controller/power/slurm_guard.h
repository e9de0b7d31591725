// The guard before a power action takes nodes down (off, cycle, reset): a
// node on which Slurm runs jobs is refused unless it is drained (the admin
// has taken it out of service) or the command says --force, and the refusal
// names the jobs. Pure: Slurm's answers come in as text, read here.
//
// What the controller runs on the Slurm controller (argument vectors):
//   squeue -h -t running,suspended,completing -w NODES -o %A|%u|%N|%j
//   sinfo -h -N -n NODES -o %N|%t
#pragma once

#include <map>
#include <string>
#include <vector>

#include "common/status.h"

namespace clusterctl {

struct SlurmJob {
  std::string id, user, name;
  std::vector<std::string> nodes;  // expanded
};

std::vector<std::string> SqueueArgv(const std::vector<std::string>& nodes);
std::vector<std::string> SinfoArgv(const std::vector<std::string>& nodes);

// squeue's lines "1234|alice|node[01-02]|train gpt" (the name last: it may
// hold '|'). A line it cannot read is an error naming it.
Result<std::vector<SlurmJob>> ParseSqueueJobs(const std::string& out);

// sinfo's lines "node03|drain" -> the nodes in a drain state (drain, drng,
// drained, with or without a trailing flag such as '*').
Result<std::vector<std::string>> ParseDrainedNodes(const std::string& out);

// For each of `nodes` that jobs run on and that is not drained: why it is
// refused ("Slurm runs jobs 1234 (alice: train gpt) on node03, which is not
// drained: drain it first or give --force").
std::map<std::string, std::string> PowerRefusals(const std::vector<std::string>& nodes,
                                                 const std::vector<SlurmJob>& jobs,
                                                 const std::vector<std::string>& drained);

}  // namespace clusterctl
