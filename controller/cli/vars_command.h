// `clusterctl vars [NAME] [INVENTORY] [--role ROLE] [--json]`: the variables
// an inventory may set (every role's and validate's, catalog_variables.cc),
// each with its type, default, description and who declares it; with an
// inventory, also where the inventory sets it (file:line) and to what.
#pragma once

#include <string>

#include "controller/cli/command_context.h"
#include "controller/cli/command_values.h"

namespace clusterctl {

struct VarsOptions {
  std::string name;            // one variable, or "" for all
  std::string role;            // --role: only the variables this role (or "validate") reads
  std::string inventory_path;  // optional
  bool json = false;
};

// Exit 0; 2 for an unknown variable or role (with a suggestion), or an
// inventory that does not load.
int RunVars(const VarsOptions& options, const Services& services);

void AddVarsCommand(CLI::App& app, CommandValues& values);

}  // namespace clusterctl
