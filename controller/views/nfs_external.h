// A client's mounts of NFS servers the cluster does not manage: a site's NAS
// or the NFS gateway of its parallel file system, named by address or DNS
// name (the client variable `nfs_external_mounts`, docs/inventory.md).
// clusterctl configures nothing on such a server; it writes the clients'
// fstab entries, optionally FS-Cache (cachefilesd), and validate proves the
// export from the clients as it does the cluster's own.
//
// Each entry: {server, export, path (default: export), options [...],
// fsc (bool)}. Every field is checked here, so nothing that reaches fstab,
// a unit name or validate's libnfs URL can break out of its place: server
// is an IPv4/IPv6 literal or a DNS name; paths are absolute words; options
// come from an allow-list with typed values (nconnect 1-16, rsize/wsize
// multiples of 4096 up to 1 MiB, vers 3/4/4.0/4.1/4.2, proto tcp or rdma,
// rdma only for a client with an IPoIB interface in the inventory). An
// error names the variable, the entry, the host and the option.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "common/status.h"
#include "inventory/model.h"

namespace clusterctl {

// The client's external mounts in host.nfs.mounts' shape (nfs_view.h), with
// network "external", external true, fsc, and vers (the NFS version the
// options ask for; empty when the client and server negotiate it).
// `has_ipoib`: the client has an IPoIB address (proto=rdma allowed).
Result<nlohmann::json> ExternalNfsMounts(const Host& client, bool has_ipoib);

// One mount option ("nconnect=8") checked against the allow-list: an
// explanation of what is wrong, or empty when it is allowed.
std::string ExternalOptionProblem(const std::string& option);

}  // namespace clusterctl
