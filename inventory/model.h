// The resolved inventory: what `inventory show` prints and every command uses.
//
// Produced only by LoadInventory/ParseInventory (loader.h), which guarantees
// the invariants stated here; nothing else constructs it from user input.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/diagnostics.h"
#include "inventory/bmc.h"
#include "inventory/connection.h"

namespace clusterctl {

inline constexpr int kInventoryFormatVersion = 1;

// The groups the built-in roles apply to. An inventory may leave any of them
// empty; docs/inventory.md says what each one means.
inline constexpr const char* kGroupController = "controller";
// At most one host, not in `controller`: slurmctld's backup, which takes over
// when the primary stops answering (slurm.conf's second SlurmctldHost).
inline constexpr const char* kGroupControllerBackup = "controller_backup";
inline constexpr const char* kGroupLogin = "login";
inline constexpr const char* kGroupCompute = "compute";
inline constexpr const char* kGroupNfsServer = "nfs_server";
inline constexpr const char* kGroupNfsClients = "nfs_clients";
inline constexpr const char* kGroupMonitoring = "monitoring";
// The ldap-server role's host (its first: the directory the sssd role reads).
inline constexpr const char* kGroupDirectory = "directory";
// The log host (at most one): every other host's rsyslog forwards to it,
// unless a host's log_server names a site's own (the logs view).
inline constexpr const char* kGroupLogs = "logs";
inline constexpr const char* kGroupAll = "all";  // implicit: every host
const std::vector<std::string>& WellKnownGroups();

struct Interface {
  std::string name;     // "ib0"
  std::string address;  // "10.10.0.1"
  int prefix_length = -1;  // -1: not given
};

struct Host {
  std::string name;     // unique
  std::string address;  // management address: IP literal or DNS name
  std::vector<Interface> interfaces;  // sorted by name
  std::vector<std::string> groups;    // every group containing the host (directly or via children), sorted
  ConnectionSettings connection;      // resolved: cluster < group < host
  std::optional<BmcSettings> bmc;     // resolved: cluster < group < host; none without an address
  nlohmann::json vars = nlohmann::json::object();  // resolved: cluster < groups by depth < host
  std::map<std::string, SourceLocation> var_origins;  // where each resolved variable's value was written
  SourceLocation defined_at;          // the hosts entry (pattern) it came from
};

struct Group {
  std::string name;
  std::vector<std::string> hosts;     // listed directly, expanded, in listed order
  std::vector<std::string> children;  // child groups
  std::vector<std::string> roles;     // roles the inventory assigns to this group
  nlohmann::json vars = nlohmann::json::object();
  std::map<std::string, SourceLocation> var_locations;
  ConnectionOverrides connection;
  BmcOverrides bmc;                   // defaults for its members' BMCs (never an address)
  int depth = 0;                      // 0 for groups no other group contains
  std::vector<std::string> members;   // every host, through children too, in inventory order
  SourceLocation defined_at;
};

struct Inventory {
  int format_version = kInventoryFormatVersion;
  std::string cluster_name;
  std::string source_file;  // absolute path
  std::string base_dir;     // directory of source_file; relative paths resolve here
  nlohmann::json cluster_vars = nlohmann::json::object();
  std::map<std::string, SourceLocation> cluster_var_locations;
  // What -e/--extra-vars set (extra_vars.h), already in every host's vars
  // and in cluster_vars; kept to record with the run.
  nlohmann::json extra_vars = nlohmann::json::object();
  std::vector<Host> hosts;  // in file order, ranges expanded
  std::vector<Group> groups;  // in file order
  std::map<std::string, size_t> host_index;
  std::map<std::string, size_t> group_index;

  const Host* FindHost(const std::string& name) const;
  const Group* FindGroup(const std::string& name) const;
  // Members of a group (empty when the group does not exist); "all" is every host.
  std::vector<std::string> MembersOf(const std::string& group) const;
};

}  // namespace clusterctl
