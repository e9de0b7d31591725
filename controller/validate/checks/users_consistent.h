// The inventory's directory users as validate's users checks read them
// (users.consistent, checks/users_consistent.cc; users.job, checks/users_job.cc).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace clusterctl::checks {

struct DirectoryUser {
  std::string name;
  long long uid = -1, gid = -1;  // -1: not an integer in the inventory
};

// directory_users' entries that have a name, in the inventory's order.
std::vector<DirectoryUser> DirectoryUsers(const nlohmann::json& vars);

}  // namespace clusterctl::checks
