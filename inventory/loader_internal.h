// Internal to the inventory loader: the pieces loader.cc stitches together.
// Each section parser adds what it finds to `InventoryDraft` and reports
// problems through the shared YamlFields; resolution runs only when parsing
// found no errors.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/yaml_fields.h"
#include "inventory/bmc.h"
#include "inventory/loader.h"
#include "inventory/model.h"

namespace clusterctl::inventory_internal {

// The `vars` written under one host pattern, shared by every host it
// expands to: resolution makes each host's own copy, within the size limit.
struct PatternVars {
  nlohmann::json values = nlohmann::json::object();
  std::map<std::string, SourceLocation> locations;
};

struct HostDraft {
  Host host;  // host.vars is empty until ResolveVariables
  std::shared_ptr<const PatternVars> own_vars;  // null when the pattern has none
  ConnectionOverrides connection;
  std::string pattern;  // the hosts key it was expanded from
  BmcOverrides bmc;     // the host's own `bmc`, its address expanded
  SourceLocation bmc_at;  // where the host's `bmc` is written; unset when none
};

struct GroupDraft {
  Group group;
  std::vector<SourceLocation> host_locations;   // parallel to group.hosts
  std::vector<SourceLocation> child_locations;  // parallel to group.children
};

struct InventoryDraft {
  Inventory inventory;
  ConnectionOverrides cluster_connection;
  BmcOverrides cluster_bmc;
  std::vector<HostDraft> hosts;
  std::vector<GroupDraft> groups;
  // A host or group definition was skipped for an error: resolving the
  // groups' references would then report hosts and groups as undefined that
  // are only unread. Without it, resolution runs despite other errors, so one
  // pass reports them all.
  bool incomplete = false;
};

// connection_section.cc
std::optional<ConnectionOverrides> ParseConnection(const YamlNode& node, const std::string& context,
                                                   const std::string& base_dir,
                                                   const InventoryLoadOptions& options, YamlFields& fields);

// A path the controller itself reads (a key, a password file): `~` is
// `home`, a relative path is relative to the inventory's directory.
std::string ResolveUserPath(const std::string& path, const std::string& base_dir, const std::string& home);

// bmc_section.cc: a `bmc` map; `host_level`: it may set `address`, which the
// caller expands (the result has none). nullopt on error.
std::optional<BmcOverrides> ParseBmc(const YamlNode& node, const std::string& context, const std::string& base_dir,
                                     const InventoryLoadOptions& options, YamlFields& fields, bool host_level);
// Resolves every host's BMC (cluster < groups < host): a host with an
// address gets its settings, and must then have a user and a password file;
// two hosts may not share a BMC address and port.
void ResolveBmcs(InventoryDraft& draft, Diagnostics& diagnostics);

// variables_section.cc: a `vars` map, names checked; JSON object on success.
// `locations` gets where each variable's value is written.
std::optional<nlohmann::json> ParseVars(const YamlNode& node, const std::string& context, YamlFields& fields,
                                        std::map<std::string, SourceLocation>& locations);
// Resolves every host's vars: cluster < groups (shallow to deep, then by name) < host.
// Refuses (an error, nothing resolved) when the hosts' resolved variables
// would add up to more than `max_bytes`: each host holds its own copy.
void ResolveVariables(InventoryDraft& draft, size_t max_bytes, Diagnostics& diagnostics);

// hosts_section.cc
void ParseHosts(const YamlNode& node, InventoryDraft& draft, const InventoryLoadOptions& options,
                YamlFields& fields);

// groups_section.cc
void ParseGroups(const YamlNode& node, InventoryDraft& draft, const InventoryLoadOptions& options,
                 YamlFields& fields);
// Checks references and cycles, computes depth and members. False on error,
// and when the groups expand to more than `max_memberships` (group, host) pairs.
bool ResolveGroups(InventoryDraft& draft, size_t max_memberships, Diagnostics& diagnostics);
// The groups `host` belongs to, in the order their settings apply: shallow
// to deep, then by name. Needs inventory.groups and group_index filled.
std::vector<const Group*> GroupsInApplicationOrder(const Inventory& inventory, const Host& host);

}  // namespace clusterctl::inventory_internal
