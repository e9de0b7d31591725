// The kernels a node can boot and what was built for them: the installed
// kernel images, the headers present for each, and the DKMS builds per
// module, version and kernel. A driver that has no DKMS build for the
// kernel the node boots next is a dead GPU after the next reboot; roles and
// plan read this to refuse that before it happens.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace clusterctl::facts {

// {"installed": [release...] (/boot/vmlinuz-*), "headers": [release...]
//  (/lib/modules/R/build present), "newest": the highest installed release
//  (what GRUB boots by default on Debian/Ubuntu), "dkms": [{module, version,
//  kernel, arch, built}] (/var/lib/dkms/M/V/R/A; built: a module file under
//  its module/ directory)}. Releases sorted by version, oldest first.
nlohmann::json ReadKernels(const std::string& root);

// Orders kernel releases the way dpkg orders versions for digits and
// letters ("6.1.0-9-amd64" < "6.1.0-26-amd64"): true when a < b.
bool KernelReleaseLess(const std::string& a, const std::string& b);

// What the running kernel can do for NFS: {"kernel_client": bool,
// "kernel_server": bool, "kernel_cachefiles": bool}. A filesystem
// registered in /proc/filesystems (nfs4, nfsd) or a module the running
// kernel can load (modules.dep lists fs/nfs/nfsv4.ko or fs/nfsd/nfsd.ko,
// any compression suffix) counts. FS-Cache's cachefiles backend counts when
// `cachefiles_device` (/dev/cachefiles, which systemd's kmod-static-nodes
// makes at boot for a loadable module) or modules.dep has
// fs/cachefiles/cachefiles.ko. A container sharing a kernel without them
// (the testbed) has none: the NFS roles then say so instead of failing at
// mount time, and cachefilesd is configured but not started.
nlohmann::json NfsKernelSupportOf(const std::string& proc_filesystems, const std::string& modules_dep,
                                  bool cachefiles_device = false);

}  // namespace clusterctl::facts
