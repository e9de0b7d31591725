// `clusterctl facts INV [--limit P] [--json]`: gathers every selected host's
// facts through its agent, stores them in the state store, and prints a row
// per host (or one JSON document). Unreachable hosts are listed; exit 1 if any.
#pragma once

#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "controller/cli/command_values.h"
#include "controller/cli/remote_command.h"

namespace clusterctl {

int RunFacts(const RemoteCommandOptions& options, const GlobalOptions& global, const Services& services);

// One table row summarising a host's facts (pure; tested).
std::vector<std::string> FactsRow(const std::string& host, const nlohmann::json& facts);

// The table of hosts' facts (the human form; node text is shown as
// TerminalText, its control characters visible); nothing for no hosts.
void PrintFactsTable(const std::vector<std::pair<std::string, nlohmann::json>>& facts, std::ostream& out);

// `facts` (command_values.h).
void AddFactsCommand(CLI::App& app, CommandValues& values);

}  // namespace clusterctl
