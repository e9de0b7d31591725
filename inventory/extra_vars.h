// -e/--extra-vars, as Ansible has it: KEY=VALUE (repeatable) or @FILE.yaml
// (a map of variables). They take precedence over every inventory level
// (cluster < group < host < -e) and are applied to the loaded Inventory, so
// everything downstream (variable checks, planning, validate's thresholds)
// sees them as if the inventory had them, with the command line as origin.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/diagnostics.h"
#include "inventory/model.h"

namespace clusterctl {

struct ExtraVars {
  nlohmann::json values = nlohmann::json::object();  // later arguments win
  // KEY=VALUE: file "command line (-e KEY=VALUE)"; @FILE: the file's line.
  std::map<std::string, SourceLocation> origins;
};

// Reads the -e arguments. A VALUE is typed as the inventory types a YAML
// scalar (true/false/yes/no, integers, numbers, null; quote it to keep a
// string: -e "version='12.0'"), and may be a YAML flow list or map. Every
// problem (no '=', a bad key, a FILE that cannot be read or is not a map)
// goes to `diagnostics` located at "-e"; nullopt when there was one.
std::optional<ExtraVars> ParseExtraVars(const std::vector<std::string>& arguments, Diagnostics& diagnostics);

// Every host's vars and var_origins, and the cluster's variables, take the
// extra vars' values.
void ApplyExtraVars(const ExtraVars& extra, Inventory& inventory);

}  // namespace clusterctl
