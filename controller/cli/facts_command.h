// `clusterctl facts INV [--limit P] [--json]`: gathers every selected host's
// facts through its agent, stores them in the state store, and prints a row
// per host (or one JSON document). Unreachable hosts are listed; exit 1 if any.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "controller/cli/remote_command.h"

namespace clusterctl {

int RunFacts(const RemoteCommandOptions& options, const GlobalOptions& global, const Services& services);

// The per-host body that asks the agent for facts (result.data = facts).
RemoteRunner::HostBody GatherFactsBody();

// Gathers facts of `hosts` and stores them; returns the results.
std::vector<HostResult> GatherAndStoreFacts(RemoteCommand& command, const std::vector<const Host*>& hosts);

// One table row summarising a host's facts (pure; tested).
std::vector<std::string> FactsRow(const std::string& host, const nlohmann::json& facts);

}  // namespace clusterctl
