#include "controller/views/nfs_external.h"

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "common/json_text.h"
#include "common/strings.h"
#include "controller/views/nfs_view.h"
#include "inventory/address.h"

namespace clusterctl {
namespace {

// What an allowed option takes: nothing (a flag), an integer in a range
// (a multiple of `step`), or one of a few words.
struct OptionRule {
  long min = 0, max = 0, step = 0;  // step 0: a flag or words
  std::vector<std::string> words;
};

// nfs(5)'s options a site sets on a NAS mount; anything else is refused
// rather than passed to mount.nfs unread. `fsc` is the entry's own field
// (it also configures cachefilesd); vers and nfsvers are one option.
const std::map<std::string, OptionRule>& Rules() {
  static const std::map<std::string, OptionRule> rules = [] {
    std::map<std::string, OptionRule> r;
    for (const char* flag : {"hard", "soft", "ro", "rw", "noatime", "relatime", "nodiratime", "nosuid", "nodev", "noexec",
                             "ac", "noac", "cto", "nocto", "lock", "nolock", "sharecache", "nosharecache", "resvport",
                             "noresvport", "rdirplus", "nordirplus", "sync", "async", "_netdev", "nofail", "bg", "fg"}) {
      r[flag] = {};
    }
    r["nconnect"] = {1, 16, 1, {}};
    r["rsize"] = r["wsize"] = {4096, 1048576, 4096, {}};
    r["timeo"] = {1, 6000, 1, {}};  // tenths of a second
    r["retrans"] = {0, 100, 1, {}};
    r["retry"] = {0, 10000, 1, {}};  // minutes
    r["port"] = r["mountport"] = {1, 65535, 1, {}};
    for (const char* cache : {"actimeo", "acregmin", "acregmax", "acdirmin", "acdirmax"}) r[cache] = {0, 3600, 1, {}};
    r["vers"] = r["nfsvers"] = {0, 0, 0, {"3", "4", "4.0", "4.1", "4.2"}};
    r["proto"] = {0, 0, 0, {"tcp", "rdma"}};
    r["mountproto"] = {0, 0, 0, {"tcp"}};
    r["sec"] = {0, 0, 0, {"sys", "krb5", "krb5i", "krb5p"}};
    r["lookupcache"] = {0, 0, 0, {"all", "positive", "none"}};
    r["local_lock"] = {0, 0, 0, {"none", "all", "flock", "posix"}};
    return r;
  }();
  return rules;
}

std::string NumberProblem(const std::string& name, const std::string& value, const OptionRule& rule) {
  const std::string range = std::to_string(rule.min) + "-" + std::to_string(rule.max) +
                            (rule.step > 1 ? ", a multiple of " + std::to_string(rule.step) : "");
  if (value.empty() || value.size() > 9 || !std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return name + " takes a number (" + range + ")";
  }
  const long n = std::stol(value);
  if (n < rule.min || n > rule.max || n % rule.step != 0) return name + "=" + value + " is outside " + range;
  return "";
}

// Key of an option for duplicate and conflict checks (vers and nfsvers are one).
std::string KeyOf(const std::string& option) {
  const std::string name = option.substr(0, option.find('='));
  return name == "nfsvers" ? "vers" : name;
}

// Options that contradict each other, and the pair named in the error.
std::string ConflictProblem(const std::set<std::string>& keys) {
  for (const auto& [a, b] : {std::pair<const char*, const char*>{"hard", "soft"}, {"ro", "rw"}, {"ac", "noac"}, {"lock", "nolock"}}) {
    if (keys.count(a) && keys.count(b)) return std::string(a) + " and " + b + " contradict each other";
  }
  return "";
}

// The entry's options: the list given (default: hard, nosuid, nodev: a
// NAS outside the cluster is administered by others, so a set-user-ID
// program or a device node on it grants nothing on a node; a site that
// wants them lists its own options), checked, then what
// clusterctl adds: _netdev (a network file system at boot), port=20049 with
// proto=rdma (the NFS/RDMA port), fsc with the entry's fsc.
Result<std::vector<std::string>> OptionsOf(const nlohmann::json& entry, bool fsc, bool has_ipoib, const std::string& host,
                                           const std::string& what) {
  const nlohmann::json given = entry.contains("options") && !entry["options"].is_null() ? entry["options"]
                                                                                : nlohmann::json{"hard", "nosuid", "nodev"};
  if (!given.is_array()) return Status::InvalidArgument(what + ": options must be a list of mount options, e.g. [hard, nconnect=8]");
  std::vector<std::string> options;
  std::set<std::string> keys;
  for (const nlohmann::json& o : given) {
    const std::string text = o.is_string() ? o.get<std::string>() : JsonText(o);
    if (std::string problem = ExternalOptionProblem(text); !problem.empty()) {
      return Status::InvalidArgument(what + ": option '" + Printable(text) + "': " + problem);
    }
    if (!keys.insert(KeyOf(text)).second) return Status::InvalidArgument(what + ": option " + KeyOf(text) + " given twice");
    if (text == "proto=rdma" && !has_ipoib) {
      return Status::InvalidArgument(what + ": option 'proto=rdma' needs the fabric, and " + host +
                                     " has no IPoIB interface (ibN) in the inventory; use proto=tcp or leave proto out");
    }
    options.push_back(text);
  }
  if (std::string problem = ConflictProblem(keys); !problem.empty()) return Status::InvalidArgument(what + ": options " + problem);
  if (!keys.count("_netdev")) options.push_back("_netdev");
  if (std::find(options.begin(), options.end(), "proto=rdma") != options.end() && !keys.count("port")) {
    options.push_back("port=20049");
  }
  if (fsc) options.push_back("fsc");
  return options;
}

std::string VersionOf(const std::vector<std::string>& options) {
  for (const std::string& o : options) {
    if (KeyOf(o) == "vers") return o.substr(o.find('=') + 1);
  }
  return "";
}

Result<nlohmann::json> OneMount(const Host& client, const nlohmann::json& entry, bool has_ipoib, const std::string& where) {
  if (!entry.is_object()) return Status::InvalidArgument(where + ": must be a map {server, export, path, options, fsc}");
  for (const auto& [key, value] : entry.items()) {
    (void)value;
    if (key != "server" && key != "export" && key != "path" && key != "options" && key != "fsc") {
      return Status::InvalidArgument(where + ": unknown field '" + Printable(key) + "' (server, export, path, options, fsc)");
    }
  }
  if (!entry.contains("server") || !entry["server"].is_string()) return Status::InvalidArgument(where + ": needs a server (an address or DNS name)");
  if (!entry.contains("export") || !entry["export"].is_string()) return Status::InvalidArgument(where + ": needs an export (the server's path)");
  std::string server = entry["server"].get<std::string>();
  const std::string exported = entry["export"].get<std::string>();
  if (server.size() > 2 && server.front() == '[' && server.back() == ']') server = server.substr(1, server.size() - 2);
  if (auto problem = CheckHostAddress(server)) {
    return Status::InvalidArgument(where + ": server '" + Printable(server) + "' is " + *problem);
  }
  const nlohmann::json path_json = entry.value("path", nlohmann::json(exported));
  if (!path_json.is_string()) return Status::InvalidArgument(where + ": path must be a string");
  const std::string path = path_json.get<std::string>();
  const std::string what = where + " (" + Printable(server) + ":" + Printable(exported) + " on " + Printable(path) + ")";
  if (Status s = CheckNfsPath(exported, what + ": export"); !s.ok()) return s;
  if (Status s = CheckNfsPath(path, what + ": path"); !s.ok()) return s;
  const nlohmann::json fsc = entry.value("fsc", nlohmann::json(false));
  if (!fsc.is_boolean()) return Status::InvalidArgument(what + ": fsc must be true or false");
  auto options = OptionsOf(entry, fsc.get<bool>(), has_ipoib, client.name, what);
  if (!options.ok()) return options.status();
  const std::string bracketed = server.find(':') != std::string::npos ? "[" + server + "]" : server;
  const nlohmann::json automount = client.vars.value("nfs_automount", nlohmann::json(false));
  const std::string unit = MountUnitName(path);
  return nlohmann::json{{"name", path},
                        {"server", server},
                        {"server_address", server},
                        {"export", exported},
                        {"path", path},
                        {"source", bracketed + ":" + exported},
                        {"options", Join(*options, ",")},
                        {"network", "external"},
                        {"external", true},
                        {"fsc", fsc.get<bool>()},
                        {"vers", VersionOf(*options)},
                        {"unit", unit},
                        {"automount", automount.is_boolean() && automount.get<bool>()},
                        {"automount_unit", unit.substr(0, unit.size() - 5) + "automount"}};
}

}  // namespace

std::string ExternalOptionProblem(const std::string& option) {
  if (option == "fsc") return "set fsc: true on the entry instead (it also configures cachefilesd)";
  const size_t eq = option.find('=');
  const std::string name = option.substr(0, eq);
  auto rule = Rules().find(name);
  if (rule == Rules().end()) {
    std::vector<std::string> names;
    for (const auto& [known, r] : Rules()) names.push_back(known);
    return "not an allowed NFS mount option (" + Join(names, ", ") + ")";
  }
  const OptionRule& r = rule->second;
  const bool flag = r.step == 0 && r.words.empty();
  if (flag) return eq == std::string::npos ? "" : name + " takes no value";
  if (eq == std::string::npos) return name + " needs a value";
  const std::string value = option.substr(eq + 1);
  if (r.step > 0) return NumberProblem(name, value, r);
  if (std::find(r.words.begin(), r.words.end(), value) == r.words.end()) return name + " must be one of " + Join(r.words, ", ");
  return "";
}

Result<nlohmann::json> ExternalNfsMounts(const Host& client, bool has_ipoib) {
  const nlohmann::json mounts = client.vars.value("nfs_external_mounts", nlohmann::json::array());
  if (!mounts.is_array()) return Status::InvalidArgument("nfs_external_mounts of " + client.name + " must be a list");
  nlohmann::json out = nlohmann::json::array();
  for (size_t k = 0; k < mounts.size(); ++k) {
    auto mount = OneMount(client, mounts[k], has_ipoib, "nfs_external_mounts[" + std::to_string(k) + "] of " + client.name);
    if (!mount.ok()) return mount.status();
    out.push_back(std::move(mount).value());
  }
  return out;
}

}  // namespace clusterctl
