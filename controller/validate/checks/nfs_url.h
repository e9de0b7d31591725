// Where validate writes through an NFS export with libnfs (user space, no
// kernel mount): nfs.export's round-trip files and storage.nfs_fio's file,
// all in the export's .clusterctl-validate/ (nfs-server makes it, owned by
// the anonymous user root is squashed to; an outside server's admin makes
// it), at the address and NFS version the client mounts the export with
// (the inventory's NFS view, views/nfs_view.h).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace clusterctl::checks {

inline constexpr const char* kNfsValidateDir = ".clusterctl-validate";

// The libnfs URL of `file` in the validation directory of `mount`'s export
// (`file` empty: the directory itself). NFSv3 where the server offers it
// (the cluster's: its versions in `per_host`; a server outside the
// inventory: unless the mount asks for 4): libnfs's v4 writes are limited,
// and v3 without locking needs no grace period after a server start.
std::string NfsValidateUrl(const nlohmann::json& mount, const nlohmann::json& per_host, const std::string& file);

}  // namespace clusterctl::checks
