// The NFS view of the cluster (`cluster.nfs`, and each host's own part as
// `host.nfs`), computed from the inventory so the server's exports and every
// client's mounts agree on addresses:
//
//   cluster.nfs: server (the first host of nfs_server, or null), network
//                ("fabric" or "management": where the exports are served),
//                mount_paths (every client mount point, for alert rules).
//   host.nfs on the server: exports [{name, path, export_id, options,
//                clients [{host, address}], line (one /etc/exports line),
//                access_type, squash (nfs-ganesha's words for the options)}],
//                versions, protocols (ganesha: "3, 4"), minor_versions,
//                bind_address (the exports' one listen address, or 0.0.0.0
//                when they are on different networks).
//   host.nfs on a client: mounts [{name, server, server_address, export,
//                path, source ("addr:/export"), options, network, unit
//                ("home.mount"), automount_unit}], the cluster's exports
//                first, then nfs_external_mounts' (network "external",
//                external, fsc, vers: nfs_external.h); fsc (some mount
//                asks for FS-Cache), fscache_dir (cachefilesd's cache).
//
// Variables (the server's): nfs_exports [{path, clients [host | group |
// network a.b.c.d/n], options}], nfs_network (auto | fabric | management),
// nfs_versions (["4.2", "3"]); (each client's): nfs_mounts [{export, path,
// server (an inventory host), options}], nfs_mount_options, nfs_rdma,
// nfs_automount, nfs_external_mounts (servers outside the inventory),
// nfs_fscache_dir.
//
// Fabric: with nfs_network auto, an export is served on the server's IPoIB
// address of a rail (interface name, as fabric.ipoib) every client of it
// has an address on; otherwise on the management network. Every path,
// option and address is checked here to be safe in /etc/exports, a
// ganesha.conf string and a unit file (docs/security.md): a planning error
// names the variable and the entry.
#pragma once

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "common/status.h"
#include "inventory/model.h"

namespace clusterctl {

Result<nlohmann::json> BuildNfsView(const Inventory& inventory, const std::map<std::string, nlohmann::json>& facts);

// An absolute path that is one word everywhere it goes: /etc/exports,
// ganesha.conf's quoted strings, fstab, a unit's Where=, a libnfs URL:
// letters, digits and / . _ - + @, no "..", no "//". The error starts
// with `what`.
Status CheckNfsPath(const std::string& path, const std::string& what);

// systemd's unit name for a mount point: "/home" -> "home.mount",
// "/shared/my-data" -> "shared-my\x2ddata.mount" (systemd-escape --path).
std::string MountUnitName(const std::string& path);

}  // namespace clusterctl
