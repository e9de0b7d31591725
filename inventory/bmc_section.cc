// Parses a `bmc:` map at cluster, group or host level (inventory/bmc.h).
// The host level's `address` is expanded by hosts_section.cc, like the
// host's own address; the other levels may not set one.
#include <map>

#include "inventory/bmc.h"
#include "inventory/loader_internal.h"

namespace clusterctl::inventory_internal {
namespace {

const std::vector<std::string> kBmcKeys = {"address", "port", "user", "password_file", "interface", "cipher_suite"};

void ParsePasswordFile(const YamlNode& node, const std::string& base_dir, const InventoryLoadOptions& options,
                       YamlFields& fields, BmcOverrides& out) {
  std::optional<std::string> path = fields.String(node, "bmc password_file");
  if (!path) return;
  std::string resolved = ResolveUserPath(*path, base_dir, options.home_dir);
  if (!options.file_exists(resolved)) {
    fields.Error(node.location, "bmc password file '" + *path + "' not found (looked for " + resolved + ")");
    return;
  }
  out.password_file = resolved;
}

}  // namespace

std::optional<BmcOverrides> ParseBmc(const YamlNode& node, const std::string& context, const std::string& base_dir,
                                     const InventoryLoadOptions& options, YamlFields& fields, bool host_level) {
  BmcOverrides out;
  const std::string what = "'bmc' of " + context;
  if (!fields.ExpectMap(node, what)) return std::nullopt;
  fields.CheckKnownKeys(node, kBmcKeys, what);
  const int errors_before = fields.diagnostics().error_count();
  if (const YamlNode* n = node.Find("address"); n && !host_level) {
    fields.Error(n->location, "a bmc address is each host's own: set it under the host, not in " + context);
  }
  if (const YamlNode* n = node.Find("port")) {
    if (auto port = fields.Integer(*n, "bmc port", 1, 65535)) out.port = static_cast<int>(*port);
  }
  if (const YamlNode* n = node.Find("user")) {
    if (auto user = fields.String(*n, "bmc user")) {
      if (IsBmcUserName(*user)) {
        out.user = *user;
      } else {
        fields.Error(n->location, "bmc user '" + *user + "' is not a valid IPMI user name (letters, digits, '_', " +
                                      "'-', '.', at most " + std::to_string(kMaxBmcUserLength) + ", no leading '-')");
      }
    }
  }
  if (const YamlNode* n = node.Find("password_file")) ParsePasswordFile(*n, base_dir, options, fields, out);
  if (const YamlNode* n = node.Find("interface")) {
    if (auto interface = fields.Choice(*n, "bmc interface", {"lanplus", "lan"})) {
      out.interface = *interface == "lan" ? BmcInterface::kLan : BmcInterface::kLanplus;
    }
  }
  if (const YamlNode* n = node.Find("cipher_suite")) {
    if (auto suite = fields.Integer(*n, "bmc cipher_suite", 0, kMaxCipherSuite)) {
      out.cipher_suite = static_cast<int>(*suite);
    }
  }
  if (fields.diagnostics().error_count() > errors_before) return std::nullopt;
  return out;
}

namespace {

// The settings `h` resolves to: cluster < groups (shallow to deep) < host.
BmcSettings ResolvedBmc(const InventoryDraft& draft, const HostDraft& h) {
  BmcSettings settings;
  draft.cluster_bmc.ApplyTo(settings);
  for (const Group* g : GroupsInApplicationOrder(draft.inventory, h.host)) g->bmc.ApplyTo(settings);
  h.bmc.ApplyTo(settings);
  return settings;
}

}  // namespace

void ResolveBmcs(InventoryDraft& draft, Diagnostics& diagnostics) {
  std::map<std::pair<std::string, int>, const Host*> endpoints;
  for (HostDraft& h : draft.hosts) {
    BmcSettings settings = ResolvedBmc(draft, h);
    if (settings.address.empty()) continue;
    const SourceLocation& where = h.bmc_at.line > 0 ? h.bmc_at : h.host.defined_at;
    std::string missing = settings.user.empty() ? "user" : settings.password_file.empty() ? "password_file" : "";
    if (!missing.empty()) {
      diagnostics.Error(where, "the bmc of host " + h.host.name + " has an address but no " + missing +
                                   " (set it under the host's bmc, a group's or the inventory's)");
      continue;
    }
    auto [it, inserted] = endpoints.emplace(std::make_pair(settings.address, settings.port), &h.host);
    if (!inserted) {
      diagnostics.Error(where, "hosts '" + it->second->name + "' and '" + h.host.name + "' have the same bmc " +
                                   settings.address + " port " + std::to_string(settings.port));
      continue;
    }
    h.host.bmc = std::move(settings);
  }
}

}  // namespace clusterctl::inventory_internal
