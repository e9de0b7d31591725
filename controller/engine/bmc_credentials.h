// The BMCs' credentials as templates see them, `secrets.bmcs`: what the
// ipmi-exporter role writes into the exporter's own config (a file marked
// secret, readable by the exporter alone: docs/security.md, "BMC
// passwords"). Per host with a bmc, in the inventory's order: {name,
// target, user, driver} as the BMC view has them (views/bmc_view.h) and
// `password`, the first line of the host's password file (what ipmitool -f
// reads).
//
// Read only where the inventory has a monitoring host (the exporter's one
// reader); none otherwise. A password file that cannot be read, or that its
// group or others may read (power_run.h's PasswordFileProblem), is a
// problem naming it: the plan fails, nothing is written.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "inventory/model.h"

namespace clusterctl {

struct BmcCredentials {
  nlohmann::json list = nlohmann::json::array();  // `secrets.bmcs`
  std::map<std::string, std::string> passwords;   // "bmc password of HOST" -> the password: to mask and keep out of plans
  std::vector<std::string> problems;              // "bmc password file F of HOST: why"
};

BmcCredentials ReadBmcCredentials(const Inventory& inventory);

}  // namespace clusterctl
