// The directory view (docs/roles.md, "The directory view"): where every
// host finds the cluster's LDAP directory, as `host.directory` (each host's
// own variables decide its part):
//   server:  the first host of the `directory` group (the ldap-server role's
//            slapd), or null;
//   uri:     ldap_uri, else ldaps://SERVER, else null (no directory: the
//            sssd role does nothing);
//   start_tls: whether the uri is ldap:// (sssd then demands StartTLS);
//   base_dn: ldap_base_dn, else dc=CLUSTER (the inventory's cluster name);
//   dc:      the base DN's first dc value (its entry's `dc` attribute);
//   bind_dn: cn=sssd,ou=services,BASE_DN (the read-only account the
//            ldap-server role makes for sssd, with a generated password).
// Values are checked here again with the variables' syntaxes (ldap-dn,
// ldap-uri), so a default built from the cluster name is checked too, and
// directory_users' names and UIDs, directory_groups' names and GIDs, are
// each unique. Pure.
#pragma once

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "common/status.h"
#include "controller/views/cluster_views.h"
#include "inventory/model.h"

namespace clusterctl {

Result<nlohmann::json> BuildDirectoryView(const Inventory& inventory, const std::map<std::string, nlohmann::json>& facts,
                                          const ViewInputs& inputs);

}  // namespace clusterctl
