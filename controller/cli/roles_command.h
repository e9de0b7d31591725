// `clusterctl roles [list [INVENTORY]]` lists the roles; `clusterctl roles show NAME
// [INVENTORY]` shows one with every variable it reads (type, default,
// description). With an inventory: the admin's roles beside it too, and
// which hosts get each role.
#pragma once

#include <string>

#include "controller/cli/command_context.h"
#include "controller/cli/command_values.h"

namespace clusterctl {

struct RolesOptions {
  std::string name;            // show: the role
  std::string inventory_path;  // optional
  bool json = false;
};

int RunRolesList(const RolesOptions& options, const Services& services);
int RunRolesShow(const RolesOptions& options, const Services& services);

// `roles` with list and show (command_values.h).
void AddRolesCommand(CLI::App& app, CommandValues& values);

}  // namespace clusterctl
