// Facts about the node's fabric software and networking, for the rdma,
// gpudirect and ipoib roles (docs/agent.md):
//   rdma_stack   which RDMA stack is installed (inbox rdma-core, MLNX_OFED or
//                DOCA-OFED) and its version, from the package facts;
//   peer_memory  the GPUDirect RDMA peer-memory module loaded, if any;
//   gpudirect    which GPUDirect RDMA methods this node can use, and the one
//                NVIDIA recommends of those;
//   network_stack which program owns the node's interface configuration;
//   interfaces[].ipoib_mode from /sys/class/net (link_type comes from
//                netlink with the interface list, which sees the node's own
//                namespace where a container's sysfs may not).
// The deciding functions are pure; the probes only read files under `root`.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/facts/nvidia.h"

namespace clusterctl::facts {

// {stack: "doca_ofed" | "mlnx_ofed" | "inbox" | null, version: string | null}
// from the installed packages ({name: version}). NVIDIA's stacks win over
// rdma-core, which their packages also provide.
nlohmann::json RdmaStackOf(const nlohmann::json& packages);

// "nvidia_peermem", "nv_peer_mem" or null, from the loaded modules.
nlohmann::json PeerMemoryOf(const std::vector<std::string>& modules);

// What the node can use for GPUDirect RDMA:
// {kernel_modules: "open" | "proprietary" | null (no driver loaded),
//  dmabuf: open kernel modules of R515 or later on a kernel >= 5.12 with an
//          RDMA stack that registers DMA-BUF memory (rdma-core >= 34, or
//          NVIDIA's stack): no extra module at all,
//  nvidia_peermem: the module ships for the running kernel (modules.dep)
//          built against a peer-memory ib_core (NVIDIA's RDMA stack): built
//          against the inbox stack it depends on no ib_core and refuses to
//          load (EINVAL), as Debian's nvidia-current-peermem.ko does,
//  nv_peer_mem: the legacy module is built for the running kernel,
//  recommended: "dmabuf", else "nvidia_peermem", else "nv_peer_mem", else null}.
// `loaded` is the nvidia module loaded (none: version ""), `modules_dep` the
// running kernel's modules.dep.
nlohmann::json GpudirectOf(const LoadedNvidiaModule& loaded, const std::string& kernel_release,
                           const nlohmann::json& packages, const nlohmann::json& rdma_stack,
                           const std::string& modules_dep);

// What configures interfaces on this node, in the order a node uses them:
// "netplan" (a YAML file in /etc/netplan), "NetworkManager" (its unit
// enabled), "systemd-networkd" (its unit enabled), "ifupdown"
// (/etc/network/interfaces with ifup installed), or "none".
std::string DetectNetworkStack(const std::string& root);

// Adds ipoib_mode ("datagram" | "connected") to each IPoIB interface of
// `interfaces` (the getifaddrs list), from /sys/class/net/NAME/mode.
void AddIpoibModes(nlohmann::json& interfaces, const std::string& root);

}  // namespace clusterctl::facts
