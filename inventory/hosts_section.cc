// Parses the `hosts:` map: host names or range patterns -> HostDrafts.
#include <map>

#include "inventory/address.h"
#include "inventory/hostlist.h"
#include "inventory/loader_internal.h"

namespace clusterctl::inventory_internal {
namespace {

const std::vector<std::string> kHostKeys = {"address", "interfaces", "connection", "bmc", "vars"};

// Expands an address pattern to exactly `count` values, or reports why not.
std::optional<std::vector<std::string>> ExpandAddresses(const YamlNode& node, const std::string& what,
                                                        const std::string& host_pattern, size_t count,
                                                        YamlFields& fields) {
  std::optional<std::string> text = fields.String(node, what);
  if (!text) return std::nullopt;
  auto expanded = ExpandHostPattern(*text);
  if (!expanded.ok()) {
    fields.Error(node.location, what + ": " + expanded.status().message());
    return std::nullopt;
  }
  if (expanded->size() != count) {
    if (expanded->size() == 1 && count > 1) {
      fields.Error(node.location, what + " '" + *text + "' is a single address but '" + host_pattern +
                                      "' names " + std::to_string(count) +
                                      " hosts; give a range of the same length, e.g. 10.0.2.[1-" +
                                      std::to_string(count) + "]");
    } else {
      fields.Error(node.location, what + " '" + *text + "' gives " + std::to_string(expanded->size()) +
                                      " addresses but '" + host_pattern + "' names " + std::to_string(count) +
                                      " hosts; the range lengths must match");
    }
    return std::nullopt;
  }
  return std::move(expanded).value();
}

// A host pattern's `bmc`: the settings every host it names shares, and
// each host's own address from the (expanded) `address`.
void ParseHostBmc(const YamlNode& node, const std::string& context, const std::string& base_dir,
                  const InventoryLoadOptions& options, std::vector<HostDraft>& hosts, YamlFields& fields) {
  std::optional<BmcOverrides> shared = ParseBmc(node, context, base_dir, options, fields, true);
  if (!shared) return;
  std::optional<std::vector<std::string>> addresses;
  if (const YamlNode* address = node.Find("address")) {
    addresses = ExpandAddresses(*address, "bmc address", hosts.front().pattern, hosts.size(), fields);
    if (!addresses) return;
    for (size_t h = 0; h < hosts.size(); ++h) {
      if (std::optional<std::string> problem = CheckHostAddress((*addresses)[h])) {
        fields.Error(address->location, "bmc address '" + (*addresses)[h] + "' of host " + hosts[h].host.name +
                                            " is invalid: " + *problem);
        return;
      }
    }
  }
  for (size_t h = 0; h < hosts.size(); ++h) {
    hosts[h].bmc = *shared;
    if (addresses) hosts[h].bmc.address = (*addresses)[h];
    hosts[h].bmc_at = node.location;
  }
}

bool IsInterfaceName(const std::string& name) {
  if (name.empty() || name.size() > 15) return false;
  for (char c : name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) return false;
  }
  return true;
}

void ParseInterfaces(const YamlNode& node, const std::string& pattern, std::vector<HostDraft>& hosts,
                     YamlFields& fields) {
  if (!fields.ExpectMap(node, "'interfaces' of '" + pattern + "'")) return;
  for (size_t i = 0; i < node.entries.size(); ++i) {
    const auto& [name, value] = node.entries[i];
    if (!IsInterfaceName(name)) {
      fields.Error(node.key_locations[i], "interface name '" + name +
                                              "' must be 1-15 letters, digits, '_', '-' or '.'");
      continue;
    }
    auto addresses = ExpandAddresses(value, "interface " + name + " address", pattern, hosts.size(), fields);
    if (!addresses) continue;
    for (size_t h = 0; h < hosts.size(); ++h) {
      const std::string& text = (*addresses)[h];
      if (std::optional<std::string> problem = CheckInterfaceAddress(text)) {
        fields.Error(value.location, "interface " + name + " address '" + text + "' of host " +
                                         hosts[h].host.name + ": " + *problem);
        break;
      }
      Interface interface{name, text.substr(0, text.find('/')), -1};
      if (size_t slash = text.find('/'); slash != std::string::npos) {
        interface.prefix_length = std::stoi(text.substr(slash + 1));
      }
      hosts[h].host.interfaces.push_back(interface);
    }
  }
}

}  // namespace

void ParseHosts(const YamlNode& node, InventoryDraft& draft, const InventoryLoadOptions& options,
                YamlFields& fields) {
  if (!fields.ExpectMap(node, "'hosts'", false)) {
    draft.incomplete = true;
    return;
  }
  std::map<std::string, std::pair<std::string, SourceLocation>> defined;  // name -> pattern, where
  size_t expanded_names = 0;  // bounds the work below, valid patterns or not

  for (size_t i = 0; i < node.entries.size(); ++i) {
    const auto& [pattern, body] = node.entries[i];
    const SourceLocation& where = node.key_locations[i];
    auto names = ExpandHostPattern(pattern);
    if (!names.ok()) {
      fields.Error(where, "host " + names.status().message());
      draft.incomplete = true;
      continue;
    }
    expanded_names += names->size();
    if (expanded_names > options.size.max_hosts) {
      fields.Error(where, "host '" + pattern + "' takes the inventory past " +
                              std::to_string(options.size.max_hosts) +
                              " hosts, the most one inventory may define; the hosts after it were not read");
      draft.incomplete = true;
      return;
    }
    bool names_ok = true;
    for (const std::string& name : *names) {
      if (std::optional<std::string> problem = CheckHostName(name)) {
        fields.Error(where, "host name '" + name + "' is invalid: " + *problem);
        names_ok = false;
        break;
      }
    }
    if (!names_ok) {
      draft.incomplete = true;
      continue;
    }

    std::vector<HostDraft> hosts;
    for (const std::string& name : *names) {
      auto [previous, inserted] = defined.emplace(name, std::make_pair(pattern, where));
      if (!inserted) {
        const auto& [previous_pattern, previous_where] = previous->second;
        std::string why = previous_pattern == name && pattern == name
                              ? "duplicate host"
                              : "overlapping ranges: '" + pattern + "' and '" + previous_pattern + "'";
        fields.Error(where, "host '" + name + "' is defined twice (" + why + "; first at line " +
                                std::to_string(previous_where.line) + ")");
        continue;
      }
      HostDraft h;
      h.host.name = name;
      h.host.address = name;
      h.host.defined_at = where;
      h.pattern = pattern;
      hosts.push_back(std::move(h));
    }
    const std::string context = "host '" + pattern + "'";
    if (hosts.size() != names->size() || !fields.ExpectMap(body, context)) {
      draft.incomplete = true;
      continue;
    }
    fields.CheckKnownKeys(body, kHostKeys, context);
    if (const YamlNode* address = body.Find("address")) {
      if (auto addresses = ExpandAddresses(*address, "address", pattern, hosts.size(), fields)) {
        for (size_t h = 0; h < hosts.size(); ++h) {
          if (std::optional<std::string> problem = CheckHostAddress((*addresses)[h])) {
            fields.Error(address->location, "address '" + (*addresses)[h] + "' of host " + hosts[h].host.name +
                                                " is invalid: " + *problem);
            break;
          }
          hosts[h].host.address = (*addresses)[h];
        }
      }
    }
    if (const YamlNode* interfaces = body.Find("interfaces")) ParseInterfaces(*interfaces, pattern, hosts, fields);
    if (const YamlNode* connection = body.Find("connection")) {
      if (auto c = ParseConnection(*connection, context, draft.inventory.base_dir, options, fields)) {
        for (HostDraft& h : hosts) h.connection = *c;
      }
    }
    if (const YamlNode* bmc = body.Find("bmc")) {
      ParseHostBmc(*bmc, context, draft.inventory.base_dir, options, hosts, fields);
    }
    if (const YamlNode* vars = body.Find("vars")) {
      auto own = std::make_shared<PatternVars>();
      if (auto v = ParseVars(*vars, context, fields, own->locations)) {
        own->values = std::move(*v);
        for (HostDraft& h : hosts) h.own_vars = own;
      }
    }
    for (HostDraft& h : hosts) draft.hosts.push_back(std::move(h));
  }
}

}  // namespace clusterctl::inventory_internal
