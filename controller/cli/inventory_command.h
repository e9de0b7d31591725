// `clusterctl inventory check|show|import`.
#pragma once

#include <string>

#include "controller/cli/command_context.h"

namespace clusterctl {

int RunInventoryCheck(const std::string& inventory_path, const Services& services);
int RunInventoryShow(const std::string& inventory_path, bool json, const Services& services);
// Writes to `output_path`, or stdout when empty. Refuses to overwrite an
// existing file unless `force`.
int RunInventoryImport(const std::string& ini_path, const std::string& cluster_name, const std::string& output_path,
                       bool force, const Services& services);

}  // namespace clusterctl
