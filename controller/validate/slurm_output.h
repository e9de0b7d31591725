// Parsers for Slurm's views of its nodes: `scontrol show node`, `sinfo -N`
// with a state column (any layout whose first field is the node and whose
// last is the state), the "nodes" array of Slurm's JSON, and `scontrol ping`.
// One state model:
// a node is usable when it can run jobs now (idle, mixed, allocated) and is
// not draining, drained, down, failing, not responding or powered down.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace clusterctl {

struct SlurmNodeState {
  std::string name;
  std::string state;       // as Slurm printed it: "IDLE+DRAIN", "drained*", "mixed"
  bool usable = false;
  std::string why_not;     // "drained", "not responding", ... (empty when usable)
  std::string reason;      // Slurm's Reason= (admin or slurmctld), may be empty
  std::optional<int> gpus; // GPUs in Gres (gpu:4, gpu:a100:4(S:0-3)); nullopt: not in this output
  std::vector<std::string> gpu_types;  // the types Gres names ("a100"), each once; empty when untyped
  std::string line;        // evidence
  std::string read_from;   // the output it came from: "scontrol show node --json (Slurm 24.11.5)"; set by the reader
};

// The text form. A record starts at a line "NodeName=..." and runs to the
// next one: blank and whitespace-only lines inside a record (Slurm 23.x and
// 24.x print one before Reason=) do not end it.
Result<std::vector<SlurmNodeState>> ParseScontrolShowNode(std::string_view text);
Result<std::vector<SlurmNodeState>> ParseSinfoNodes(std::string_view text);

// The "nodes" array of Slurm's data_parser JSON: `scontrol show node --json`
// (21.08 on), slurmrestd's /slurm/v0.0.XX/nodes, `sinfo --json` up to 23.02.
// "state" is a string with a "state_flags" array up to 22.05 (openapi
// v0.0.37/38) and an array of the base state and its flags from 23.02 on.
// Every field may be missing or of another type: a node without a readable
// name and state, a non-empty "errors" array or no "nodes" array is an error,
// never an exception.
struct SlurmNodesJson {
  std::vector<SlurmNodeState> nodes;
  std::string release;  // meta's Slurm release ("23.02.8"), "" when absent
};
Result<SlurmNodesJson> ParseSlurmNodesJson(std::string_view text);

// Classifies a state: base word (any case, short or long sinfo form), flags
// ("DRAIN", "NOT_RESPONDING") and sinfo's suffix characters (*~#!%$@^-).
// Sets usable/why_not; an unknown base word is an error.
Status ClassifySlurmState(std::string_view base, const std::vector<std::string>& flags, std::string_view suffixes,
                          SlurmNodeState& node);

// GPUs in a Gres string: "gpu:4", "gpu:a100:4(S:0-3),nsight:no_consume:1" -> 4; "(null)", "" -> 0.
int GresGpuCount(std::string_view gres);
// The GPU types a Gres string names, in order, each once: "gpu:h100:4,gpu:l40s:2" -> {h100, l40s};
// untyped entries ("gpu:4") name none.
std::vector<std::string> GresGpuTypes(std::string_view gres);

// The reason clusterctl-health (health/slurm_drain.h) drains a node with
// starts with this; a node with any other reason was drained by someone
// else (an admin, slurmctld) and is never the health check's to resume.
inline constexpr std::string_view kHealthDrainPrefix = "clusterctl: ";
bool DrainedByHealthCheck(std::string_view reason);

// scontrol ping: "Slurmctld(primary) at node01 is UP" lines -> (host, up).
Result<std::vector<std::pair<std::string, bool>>> ParseScontrolPing(std::string_view text);

}  // namespace clusterctl
