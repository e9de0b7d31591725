// What ib.write_bw (functional) and ib.write_bw_peers (acceptance) share:
// a node's part in a perftest pair (its first expected port, the address a
// client reaches it on, its limits) and one round of pairs run as server
// unit, client, stop. Each check judges the outputs its own way.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "controller/validate/check_spec.h"
#include "controller/validate/cluster_run.h"
#include "controller/validate/pair_schedule.h"
#include "controller/validate/verdicts.h"

namespace clusterctl::checks {

// /usr/bin/ib_write_bw exists (asked only of nodes with InfiniBand ports).
extern const ProbeSpec kIbWriteBwInstalled;

// A node of a pair: the port it tests, the address its client reaches it on, its variables' limits.
struct IbPairNode {
  std::string name;
  IbPortStatus port;
  std::string address;
  IbWriteBwLimits limits;
};

// `host` as a pair node when its ib.ports passed and it has perftest; nullopt otherwise.
std::optional<IbPairNode> IbPairNodeOf(ClusterRun& run, const std::string& host);

// One pair's outputs: the server unit's start and the client's run.
struct IbPairOutputs {
  Result<ToolOutput> started;
  Result<ToolOutput> measured;
};

// One round: every server started (a transient unit ending after `seconds`
// and a margin whatever happens to this run), then every client after a
// second, then every server's unit stopped; each step concurrently. Both
// sides run `ib_write_bw -D seconds` at the client's message size.
std::vector<IbPairOutputs> RunIbWriteBwRound(ClusterRun& run, const std::vector<IbPairNode>& nodes,
                                             const std::vector<NodePair>& round, int seconds, int& units);

}  // namespace clusterctl::checks
