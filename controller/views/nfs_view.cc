#include "controller/views/nfs_view.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <set>
#include <string_view>
#include <vector>

#include "common/json_text.h"
#include "common/strings.h"
#include "controller/views/nfs_external.h"
#include "inventory/address.h"

namespace clusterctl {

Status CheckNfsPath(const std::string& path, const std::string& what) {
  if (path.empty() || path[0] != '/' || !IsAlnumOr(path, "/._-+@") || path.find("/../") != std::string::npos ||
      path.find("//") != std::string::npos || (path.size() > 3 && path.compare(path.size() - 3, 3, "/..") == 0)) {
    return Status::InvalidArgument(what + ": '" + Printable(path) +
                                   "' is not an absolute path of letters, digits and / . _ - + @");
  }
  return Status::Ok();
}

namespace {

// Comma-separated mount or export options: no space, quote or line break.
Status CheckOptions(const std::string& options, const std::string& what) {
  if (!IsAlnumOr(options, ",=_.:-/")) {
    return Status::InvalidArgument(what + ": options '" + Printable(options) +
                                   "' must be comma-separated words (letters, digits , = _ . : - /)");
  }
  return Status::Ok();
}

std::string StringVar(const Host& host, const char* name, const std::string& fallback) {
  const nlohmann::json value = host.vars.value(name, nlohmann::json());
  return value.is_string() ? value.get<std::string>() : fallback;
}

bool BoolVar(const Host& host, const char* name) {
  const nlohmann::json value = host.vars.value(name, nlohmann::json());
  return value.is_boolean() && value.get<bool>();
}

// An IPv4 address inside a network "a.b.c.d/n" (false for IPv6 or names).
bool InNetwork(const std::string& address, const std::string& network) {
  const size_t slash = network.find('/');
  in_addr a{}, n{};
  if (slash == std::string::npos || ::inet_pton(AF_INET, address.c_str(), &a) != 1 ||
      ::inet_pton(AF_INET, network.substr(0, slash).c_str(), &n) != 1) {
    return false;
  }
  const int prefix = std::atoi(network.c_str() + slash + 1);
  const uint32_t mask = prefix <= 0 ? 0 : prefix >= 32 ? 0xffffffffu : ~((1u << (32 - prefix)) - 1);
  return (ntohl(a.s_addr) & mask) == (ntohl(n.s_addr) & mask);
}

// An entry's string field: `fallback` when absent, an error when not a string.
Result<std::string> StringField(const nlohmann::json& entry, const char* key, const std::string& fallback,
                                const std::string& what) {
  if (!entry.contains(key) || entry[key].is_null()) return fallback;
  if (!entry[key].is_string()) return Status::InvalidArgument(what + ": " + key + " must be a string");
  return entry[key].get<std::string>();
}

std::string WithoutPrefix(const std::string& address) { return address.substr(0, address.find('/')); }

// The host's IPoIB interfaces with an address: interface name -> address.
std::map<std::string, std::string> FabricAddresses(const Host& host) {
  std::map<std::string, std::string> out;
  for (const Interface& i : host.interfaces) {
    if (ParseIpoibName(i.name) && !i.address.empty()) out[i.name] = WithoutPrefix(i.address);
  }
  return out;
}

// One export's client entry, resolved: hosts (by name) or a network.
struct ExportClient {
  std::string host;     // empty for a network
  std::string address;  // filled once the export's network is chosen
  std::string network;  // "10.0.0.0/16" for a network entry
};

struct ResolvedExport {
  nlohmann::json entry;
  std::string path, options;
  std::vector<ExportClient> clients;
  std::string rail;  // the IPoIB interface name it is served on; empty: management network
};

Result<std::vector<ExportClient>> ResolveClients(const Inventory& inventory, const nlohmann::json& clients,
                                                 const std::string& what) {
  if (!clients.is_array() || clients.empty()) {
    return Status::InvalidArgument(what + ": clients must be a non-empty list of hosts, groups or networks");
  }
  std::vector<ExportClient> out;
  std::set<std::string> seen;
  for (const nlohmann::json& c : clients) {
    const std::string name = c.is_string() ? c.get<std::string>() : JsonText(c);
    if (inventory.FindHost(name)) {
      if (seen.insert(name).second) out.push_back({name, "", ""});
    } else if (inventory.FindGroup(name) || name == kGroupAll) {
      for (const std::string& member : inventory.MembersOf(name)) {
        if (seen.insert(member).second) out.push_back({member, "", ""});
      }
    } else if (name.find('/') != std::string::npos && !CheckInterfaceAddress(name)) {
      out.push_back({"", "", name});
    } else {
      return Status::InvalidArgument(what + ": client '" + Printable(name) +
                                     "' is not a host, a group or a network (a.b.c.d/n)");
    }
  }
  return out;
}

// The rail an export is served on: with `auto` (or `fabric`), an IPoIB
// interface name where the server and every host client have an address.
Result<std::string> ChooseRail(const Inventory& inventory, const Host& server, const std::vector<ExportClient>& clients,
                               const std::string& network, const std::string& what) {
  if (network == "management") return std::string();
  for (const auto& [rail, address] : FabricAddresses(server)) {
    (void)address;
    bool everyone = true;
    for (const ExportClient& c : clients) {
      if (!c.host.empty() && c.host != server.name && !FabricAddresses(*inventory.FindHost(c.host)).count(rail)) everyone = false;
    }
    if (everyone) return rail;
  }
  if (network == "fabric") {
    return Status::InvalidArgument(what + ": nfs_network is fabric but " + server.name +
                                   " and its clients share no IPoIB interface with addresses");
  }
  return std::string();
}

std::string AddressOn(const Host& host, const std::string& rail) {
  if (!rail.empty()) {
    auto fabric = FabricAddresses(host);
    if (fabric.count(rail)) return fabric[rail];
  }
  return host.address;
}

// nfs-ganesha's words for an export's options.
std::pair<std::string, std::string> GaneshaAccess(const std::string& options) {
  std::string access = "RW", squash = "root_squash";
  for (const std::string& o : Split(options, ',')) {
    if (o == "ro") access = "RO";
    if (o == "rw") access = "RW";
    if (o == "root_squash" || o == "no_root_squash" || o == "all_squash") squash = o;
  }
  return {access, squash};
}

Result<std::vector<ResolvedExport>> ResolveExports(const Inventory& inventory, const Host& server) {
  const nlohmann::json exports = server.vars.value("nfs_exports", nlohmann::json::array());
  if (!exports.is_array()) return Status::InvalidArgument("nfs_exports of " + server.name + " must be a list");
  const std::string network = StringVar(server, "nfs_network", "auto");
  if (network != "auto" && network != "fabric" && network != "management") {
    return Status::InvalidArgument("nfs_network '" + Printable(network) + "' must be auto, fabric or management");
  }
  std::vector<ResolvedExport> out;
  std::set<std::string> paths;
  for (size_t k = 0; k < exports.size(); ++k) {
    const nlohmann::json& e = exports[k];
    std::string what = "nfs_exports[" + std::to_string(k) + "]";
    if (!e.is_object() || !e.contains("path") || !e["path"].is_string()) {
      return Status::InvalidArgument(what + ": needs a path");
    }
    ResolvedExport r;
    r.entry = e;
    r.path = e["path"].get<std::string>();
    what += " (" + Printable(r.path) + ")";
    if (Status s = CheckNfsPath(r.path, what); !s.ok()) return s;
    if (!paths.insert(r.path).second) return Status::InvalidArgument(what + ": exported twice");
    auto options = StringField(e, "options", "rw,sync,no_subtree_check,root_squash", what);
    if (!options.ok()) return options.status();
    r.options = *options;
    if (Status s = CheckOptions(r.options, what); !s.ok()) return s;
    auto clients = ResolveClients(inventory, e.value("clients", nlohmann::json()), what);
    if (!clients.ok()) return clients.status();
    r.clients = std::move(clients).value();
    auto rail = ChooseRail(inventory, server, r.clients, network, what);
    if (!rail.ok()) return rail.status();
    r.rail = *rail;
    for (ExportClient& c : r.clients) c.address = c.host.empty() ? c.network : AddressOn(*inventory.FindHost(c.host), r.rail);
    out.push_back(std::move(r));
  }
  return out;
}

nlohmann::json ServerPart(const Host& server, const std::vector<ResolvedExport>& exports) {
  nlohmann::json list = nlohmann::json::array();
  for (size_t k = 0; k < exports.size(); ++k) {
    const ResolvedExport& e = exports[k];
    nlohmann::json clients = nlohmann::json::array();
    std::string line = e.path;
    std::vector<std::string> addresses;
    for (const ExportClient& c : e.clients) {
      if (c.host == server.name) continue;  // the server reads its own disk
      clients.push_back({{"host", c.host.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.host)}, {"address", c.address}});
      line += " " + c.address + "(" + e.options + ")";
      addresses.push_back(c.address);
    }
    const auto [access, squash] = GaneshaAccess(e.options);
    list.push_back({{"name", e.path},
                    {"path", e.path},
                    {"export_id", static_cast<int>(k) + 1},
                    {"options", e.options},
                    {"clients", clients},
                    {"client_addresses", Join(addresses, ", ")},
                    {"line", line},
                    {"access_type", access},
                    {"squash", squash},
                    {"network", e.rail.empty() ? "management" : "fabric"},
                    {"listen_address", AddressOn(server, e.rail)}});
  }
  return list;
}

Result<nlohmann::json> VersionsOf(const Host& server) {
  const nlohmann::json versions = server.vars.value("nfs_versions", nlohmann::json::array({"4.2", "3"}));
  std::set<std::string> minor;
  bool v3 = false, v4 = false;
  std::string highest;
  if (!versions.is_array() || versions.empty()) return Status::InvalidArgument("nfs_versions must be a non-empty list");
  for (const nlohmann::json& v : versions) {
    const std::string text = v.is_string() ? v.get<std::string>() : v.is_number() ? JsonText(v) : "";
    if (text == "3") {
      v3 = true;
    } else if (text == "4" || text == "4.0" || text == "4.1" || text == "4.2") {
      v4 = true;
      minor.insert(text.size() == 3 ? text.substr(2) : "0");
    } else {
      return Status::InvalidArgument("nfs_versions: '" + Printable(text) + "' is not 3, 4.0, 4.1 or 4.2");
    }
    if (highest.empty() || (text != "3" && (highest == "3" || text > highest))) highest = text == "4" ? "4.0" : text;
  }
  std::vector<std::string> protocols;
  if (v3) protocols.push_back("3");
  if (v4) protocols.push_back("4");
  return nlohmann::json{{"versions", versions},
                        {"highest", highest},
                        {"protocols", Join(protocols, ", ")},
                        {"minor_versions", Join(std::vector<std::string>(minor.begin(), minor.end()), ", ")},
                        {"vers3", v3},
                        {"vers4_0", minor.count("0") > 0},
                        {"vers4_1", minor.count("1") > 0},
                        {"vers4_2", minor.count("2") > 0}};
}

// The client's default options: the server's highest version, hard, after the network.
std::string DefaultMountOptions(const Host& client, const std::string& highest, bool fabric) {
  std::string options = StringVar(client, "nfs_mount_options", "vers=" + highest + ",hard,_netdev");
  if (fabric && BoolVar(client, "nfs_rdma")) options += ",proto=rdma,port=20049";
  return options;
}

// The server's export a client mounts, which must list the client.
Result<const ResolvedExport*> ExportFor(const Host& server, const std::string& exported, const Host& client,
                                        const std::map<std::string, std::vector<ResolvedExport>>& exports_of,
                                        const std::string& what) {
  auto served = exports_of.find(server.name);
  const ResolvedExport* found = nullptr;
  if (served != exports_of.end()) {
    for (const ResolvedExport& e : served->second) {
      if (e.path == exported) found = &e;
    }
  }
  if (!found) return Status::InvalidArgument(what + ": " + server.name + " does not export " + Printable(exported) + " (nfs_exports)");
  for (const ExportClient& c : found->clients) {
    if (c.host == client.name || (c.host.empty() && InNetwork(AddressOn(client, found->rail), c.network))) return found;
  }
  return Status::InvalidArgument(what + ": " + server.name + "'s export " + exported + " does not list " + client.name);
}

Result<nlohmann::json> ClientPart(const Inventory& inventory, const Host& client, const Host* default_server,
                                  const std::map<std::string, std::vector<ResolvedExport>>& exports_of,
                                  const std::map<std::string, std::string>& highest_of) {
  const nlohmann::json mounts = client.vars.value("nfs_mounts", nlohmann::json::array());
  if (!mounts.is_array()) return Status::InvalidArgument("nfs_mounts of " + client.name + " must be a list");
  nlohmann::json out = nlohmann::json::array();
  for (size_t k = 0; k < mounts.size(); ++k) {
    const nlohmann::json& m = mounts[k];
    std::string what = "nfs_mounts[" + std::to_string(k) + "] of " + client.name;
    if (!m.is_object() || !m.contains("export") || !m["export"].is_string()) return Status::InvalidArgument(what + ": needs an export");
    const std::string exported = m["export"].get<std::string>();
    auto path_or = StringField(m, "path", exported, what);
    if (!path_or.ok()) return path_or.status();
    const std::string path = *path_or;
    what += " (" + Printable(path) + ")";
    if (Status s = CheckNfsPath(path, what); !s.ok()) return s;
    auto server_name_or = StringField(m, "server", default_server ? default_server->name : std::string(), what);
    if (!server_name_or.ok()) return server_name_or.status();
    const std::string server_name = *server_name_or;
    const Host* server = inventory.FindHost(server_name);
    if (!server) return Status::InvalidArgument(what + ": server '" + Printable(server_name) +
                                                 "' is not a host of the inventory; a server outside it (a NAS) is mounted with nfs_external_mounts");
    auto found_or = ExportFor(*server, exported, client, exports_of, what);
    if (!found_or.ok()) return found_or.status();
    const ResolvedExport* found = *found_or;
    const std::string server_address = AddressOn(*server, found->rail);
    auto options_or = StringField(m, "options", DefaultMountOptions(client, highest_of.at(server->name), !found->rail.empty()), what);
    if (!options_or.ok()) return options_or.status();
    const std::string options = *options_or;
    if (Status s = CheckOptions(options, what); !s.ok()) return s;
    const std::string bracketed = server_address.find(':') != std::string::npos ? "[" + server_address + "]" : server_address;
    const std::string unit = MountUnitName(path);
    out.push_back({{"name", path},
                   {"server", server->name},
                   {"server_address", server_address},
                   {"export", exported},
                   {"path", path},
                   {"source", bracketed + ":" + exported},
                   {"options", options},
                   {"network", found->rail.empty() ? "management" : "fabric"},
                   {"unit", unit},
                   {"automount", BoolVar(client, "nfs_automount")},
                   {"automount_unit", unit.substr(0, unit.size() - 5) + "automount"}});
  }
  return out;
}

// The client's part: its mounts of the cluster's exports, then the external
// ones (one mount point each across both), and FS-Cache when one asks for it.
Result<nlohmann::json> WithExternal(const Host& client, nlohmann::json mounts, const nlohmann::json& external) {
  std::set<std::string> paths;
  for (const nlohmann::json& m : mounts) paths.insert(m["path"].get<std::string>());
  bool fsc = false;
  for (const nlohmann::json& m : external) {
    if (!paths.insert(m["path"].get<std::string>()).second) {
      return Status::InvalidArgument("nfs_external_mounts of " + client.name + ": " + m["path"].get<std::string>() +
                                     " is mounted twice (nfs_mounts and nfs_external_mounts share mount points)");
    }
    fsc = fsc || m["fsc"].get<bool>();
    mounts.push_back(m);
  }
  const std::string cache_dir = StringVar(client, "nfs_fscache_dir", "/var/cache/fscache");
  if (Status s = CheckNfsPath(cache_dir, "nfs_fscache_dir of " + client.name); !s.ok()) return s;
  return nlohmann::json{{"mounts", std::move(mounts)}, {"fsc", fsc}, {"fscache_dir", cache_dir}};
}

}  // namespace

std::string MountUnitName(const std::string& path) {
  std::string trimmed = path;
  while (trimmed.size() > 1 && trimmed.back() == '/') trimmed.pop_back();
  if (trimmed == "/") return "-.mount";
  std::string out;
  for (size_t i = 1; i < trimmed.size(); ++i) {
    const char c = trimmed[i];
    if (c == '/') {
      out += '-';
    } else if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || (c == '.' && i != 1) || c == ':') {
      out += c;
    } else {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02x", static_cast<unsigned char>(c));
      out += hex;
    }
  }
  return out + ".mount";
}

Result<nlohmann::json> BuildNfsView(const Inventory& inventory, const std::map<std::string, nlohmann::json>& facts) {
  (void)facts;  // the inventory decides: addresses are the inventory's
  std::map<std::string, std::vector<ResolvedExport>> exports_of;
  std::map<std::string, std::string> highest_of;
  nlohmann::json per_host = nlohmann::json::object();
  const std::vector<std::string> servers = inventory.MembersOf(kGroupNfsServer);
  for (const std::string& name : servers) {
    const Host& server = *inventory.FindHost(name);
    auto exports = ResolveExports(inventory, server);
    if (!exports.ok()) return exports.status();
    auto versions = VersionsOf(server);
    if (!versions.ok()) return versions.status();
    highest_of[name] = (*versions)["highest"].get<std::string>();
    nlohmann::json part = *versions;
    part["exports"] = ServerPart(server, *exports);
    // ganesha binds one address: the exports' one, or every address (said so in its file) when they differ.
    std::set<std::string> listen;
    for (const nlohmann::json& e : part["exports"]) listen.insert(e["listen_address"].get<std::string>());
    part["bind_address"] = listen.size() == 1 ? *listen.begin() : std::string("0.0.0.0");
    per_host[name] = std::move(part);
    exports_of[name] = std::move(exports).value();
  }
  const Host* default_server = servers.empty() ? nullptr : inventory.FindHost(servers.front());
  std::set<std::string> mount_paths;
  for (const std::string& name : inventory.MembersOf(kGroupNfsClients)) {
    const Host& client = *inventory.FindHost(name);
    auto mounts = ClientPart(inventory, client, default_server, exports_of, highest_of);
    if (!mounts.ok()) return mounts.status();
    auto external = ExternalNfsMounts(client, !FabricAddresses(client).empty());
    if (!external.ok()) return external.status();
    auto part = WithExternal(client, std::move(mounts).value(), *external);
    if (!part.ok()) return part.status();
    for (const nlohmann::json& m : (*part)["mounts"]) mount_paths.insert(m["path"].get<std::string>());
    if (!per_host.contains(name)) per_host[name] = nlohmann::json::object();
    per_host[name].update(*part);
  }
  std::string network = "management";
  if (default_server) {
    for (const nlohmann::json& e : per_host[default_server->name]["exports"]) {
      if (e["network"] == "fabric") network = "fabric";
    }
  }
  return nlohmann::json{{"server", default_server ? nlohmann::json(default_server->name) : nlohmann::json(nullptr)},
                        {"network", network},
                        {"mount_paths", std::vector<std::string>(mount_paths.begin(), mount_paths.end())},
                        {"per_host", per_host}};
}

}  // namespace clusterctl
