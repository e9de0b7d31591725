#include "controller/views/directory_view.h"

#include <set>

#include "common/json_fields.h"
#include "common/json_text.h"
#include "common/strings.h"
#include "controller/catalog/value_syntax.h"

namespace clusterctl {
namespace {

Status Checked(const Host& host, const char* variable, const char* syntax, const std::string& value) {
  const std::string why = FindValueSyntax(syntax)->refuses(value);
  if (why.empty()) return Status::Ok();
  return Status::InvalidArgument(host.name + "'s " + variable + " '" + Printable(value, 80) + "' " + why);
}

// Two entries of `list` (directory_users or directory_groups) with the same
// `field` would be one LDAP entry written twice, or two names for one id.
Status Unique(const Host& host, const char* list, const char* field) {
  auto it = host.vars.find(list);
  if (it == host.vars.end() || !it->is_array()) return Status::Ok();
  std::set<std::string> seen;
  for (const nlohmann::json& item : *it) {
    if (!item.is_object() || !item.contains(field)) continue;
    const std::string value = item[field].is_string() ? item[field].get<std::string>() : JsonText(item[field]);
    if (!seen.insert(value).second) {
      return Status::InvalidArgument(host.name + "'s " + list + " has two entries with " + field + " " + Printable(value, 40));
    }
  }
  return Status::Ok();
}

Result<nlohmann::json> HostPart(const Host& host, const std::string& cluster_name, const nlohmann::json& server) {
  std::string base_dn = TextAt(host.vars, "ldap_base_dn");
  if (base_dn.empty()) base_dn = "dc=" + cluster_name;
  std::string uri = TextAt(host.vars, "ldap_uri");
  if (uri.empty() && server.is_string()) uri = "ldaps://" + server.get<std::string>();
  for (Status s : {Unique(host, "directory_users", "name"), Unique(host, "directory_users", "uid"),
                   Unique(host, "directory_groups", "name"), Unique(host, "directory_groups", "gid"),
                   Checked(host, "ldap_base_dn", "ldap-dn", base_dn), uri.empty() ? Status::Ok() : Checked(host, "ldap_uri", "ldap-uri", uri)}) {
    if (!s.ok()) return s;
  }
  const size_t comma = base_dn.find(',');
  return nlohmann::json{{"server", server},
                        {"uri", uri.empty() ? nlohmann::json() : nlohmann::json(uri)},
                        {"start_tls", uri.rfind("ldap://", 0) == 0},
                        {"base_dn", base_dn},
                        {"dc", base_dn.substr(3, comma == std::string::npos ? std::string::npos : comma - 3)},
                        {"bind_dn", "cn=sssd,ou=services," + base_dn}};
}

}  // namespace

Result<nlohmann::json> BuildDirectoryView(const Inventory& inventory, const std::map<std::string, nlohmann::json>&,
                                          const ViewInputs&) {
  const std::vector<std::string> servers = inventory.MembersOf(kGroupDirectory);
  const nlohmann::json server = servers.empty() ? nlohmann::json() : nlohmann::json(servers.front());
  nlohmann::json per_host = nlohmann::json::object();
  for (const Host& host : inventory.hosts) {
    auto part = HostPart(host, inventory.cluster_name, server);
    if (!part.ok()) return part.status();
    per_host[host.name] = *part;
  }
  return nlohmann::json{{"server", server}, {"per_host", per_host}};
}

}  // namespace clusterctl
