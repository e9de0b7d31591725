// `run`'s part of the pipeline (run/run_pipeline.h): one argument vector on
// every selected host, and the outputs grouped so identical ones collapse
// (like clush -b / dshbak -c).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "controller/run/run_pipeline.h"

namespace clusterctl {

// Runs the request's command on each host: HostResult::data is
// {exit_code (127 when it could not start), output (stdout then stderr, with
// a line when it was killed at the timeout or cut at max_output_bytes)}.
// Each request's deadline is on `clock`.
std::vector<HostResult> RunCommand(const PreparedRun& run, SessionFactory& sessions, const Clock& clock);

struct OutputGroup {
  std::vector<std::string> hosts;
  std::string output;  // stdout then stderr
  int exit_code = 0;
};

// Groups hosts by identical (output, exit code); largest groups first.
std::vector<OutputGroup> GroupOutputs(const std::vector<std::pair<std::string, std::pair<std::string, int>>>& outputs);
// The groups of the hosts that ran the command.
std::vector<OutputGroup> GroupOutputs(const std::vector<HostResult>& results);

// Records the run: summary {hosts, groups}; failed when a host was not
// reached (a command's own exit code is the admin's to judge).
CompletedRun CompleteCommand(RunSession& session, const std::vector<HostResult>& results,
                             const std::vector<OutputGroup>& groups);

}  // namespace clusterctl
