// Files beside the inventory that a `*_file` variable may not send to nodes
// (docs/security.md, "Files the inventory sends"), even though they lie
// inside the inventory's directory:
//  - a connection key: any host's or group's `connection.key_file` (the
//    cluster's reaches every host), the testbed's included: the cluster's
//    SSH private key would land on a node, readable there;
//  - anything under a state directory: `.clusterctl/`, or any directory
//    holding a `state.db` (a `--state` inside the inventory's directory),
//    with its secrets/ and database;
//  - a file that looks like a private key (a PEM, OpenSSH or PGP
//    "PRIVATE KEY" header in its first 64 KiB), unless the variable is
//    declared to take one (`private_key: true`, variable_spec.h), whose
//    steps then land it 0600 or 0400 (role_steps_test checks the roles).
#pragma once

#include <set>
#include <string>
#include <string_view>

#include "inventory/model.h"

namespace clusterctl {

// The connection keys the inventory names, resolved (links followed).
std::set<std::string> ConnectionKeysOf(const Inventory& inventory);

// True when `head` (a file's first bytes) holds a "-----BEGIN ... PRIVATE
// KEY" line: PEM (RSA, EC, PKCS#8, encrypted), OpenSSH, or a PGP private
// key block.
bool LooksLikePrivateKey(std::string_view head);

// Why `resolved` (a file ResolveInventoryFile returned, inside `base_dir`)
// may not be sent to nodes; "" when it may.
std::string SensitiveFileRefusal(const std::string& resolved, const std::string& base_dir,
                                 const std::set<std::string>& connection_keys, bool takes_private_key);

}  // namespace clusterctl
