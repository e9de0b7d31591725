#include "controller/views/nfs_external.h"

#include <doctest/doctest.h>

#include "controller/views/nfs_view.h"
#include "controller/views/nfs_view_test_util.h"
#include "tests/unit/inventory_text.h"

namespace clusterctl {
namespace {

using testing::InventoryFromText;

// node01 serves the cluster's /home; node02 and node03 mount it and the
// site's NAS; node03 has no IPoIB interface unless told.
std::string Cluster(const std::string& external, const std::string& node03_interfaces = "{}") {
  return "cluster: c\nvars:\n"
         "  nfs_exports: [{path: /home, clients: [compute]}]\n"
         "  nfs_mounts: [{export: /home}]\n"
         "  nfs_external_mounts:\n" +
         external +
         "\nhosts:\n"
         "  node01: {address: 10.0.0.11, interfaces: {ib0: 10.1.0.11/24}}\n"
         "  node02: {address: 10.0.0.12, interfaces: {ib0: 10.1.0.12/24}}\n"
         "  node03: {address: 10.0.0.13, interfaces: " +
         node03_interfaces +
         "}\n"
         "groups:\n  nfs_server: {hosts: node01}\n  compute: {hosts: [node02, node03]}\n"
         "  nfs_clients: {children: [compute]}\n";
}

using testing::NfsViewErrorOf;
using testing::NfsViewOf;

bool Says(const std::string& error, const std::string& words) {
  INFO(error);
  return error.find(words) != std::string::npos;
}

}  // namespace

TEST_CASE("nfs external: a NAS by address and by name, several mounts per server, after the cluster's own") {
  const nlohmann::json view = NfsViewOf(Cluster(
      "    - {server: 10.0.9.5, export: /vol/projects, path: /projects, options: [hard, nconnect=8, rsize=1048576, "
      "wsize=1048576, vers=4.1], fsc: true}\n"
      "    - {server: 10.0.9.5, export: /vol/scratch, path: /scratch}\n"
      "    - {server: nas-2.example.org, export: /data}\n"
      "    - {server: '[fd00::5]', export: /archive, options: [ro, soft, timeo=600, retrans=2]}\n"));
  const nlohmann::json& mounts = view["per_host"]["node03"]["mounts"];
  REQUIRE(mounts.size() == 5);
  CHECK(mounts[0]["source"] == "10.0.0.11:/home");  // the cluster's own stays first, unchanged
  CHECK(mounts[0]["options"] == "vers=4.2,hard,_netdev");
  CHECK(mounts[1]["source"] == "10.0.9.5:/vol/projects");
  CHECK(mounts[1]["options"] == "hard,nconnect=8,rsize=1048576,wsize=1048576,vers=4.1,_netdev,fsc");
  CHECK(mounts[1]["network"] == "external");
  CHECK(mounts[1]["vers"] == "4.1");
  CHECK(mounts[1]["unit"] == "projects.mount");
  CHECK(mounts[2]["options"] == "hard,nosuid,nodev,_netdev");  // the default: hard, no set-user-ID or devices, version negotiated
  CHECK(mounts[2]["vers"] == "");
  CHECK(mounts[3]["path"] == "/data");  // the export's path by default
  CHECK(mounts[3]["server"] == "nas-2.example.org");
  CHECK(mounts[4]["source"] == "[fd00::5]:/archive");
  CHECK(view["per_host"]["node03"]["fsc"] == true);
  CHECK(view["per_host"]["node03"]["fscache_dir"] == "/var/cache/fscache");
  CHECK(view["mount_paths"] == nlohmann::json::array({"/archive", "/data", "/home", "/projects", "/scratch"}));
  // The cluster's server exports only its own.
  CHECK(view["per_host"]["node01"]["exports"].size() == 1);
}

TEST_CASE("nfs external: proto=rdma only where the client has the fabric, with the NFS/RDMA port") {
  const std::string rdma = "    - {server: 10.1.0.99, export: /fast, options: [proto=rdma, vers=4.2]}\n";
  CHECK(Says(NfsViewErrorOf(Cluster(rdma)), "nfs_external_mounts[0] of node03 (10.1.0.99:/fast on /fast): option 'proto=rdma' "
                                     "needs the fabric, and node03 has no IPoIB interface"));
  const nlohmann::json view = NfsViewOf(Cluster(rdma, "{ib0: 10.1.0.13/24}"));
  CHECK(view["per_host"]["node03"]["mounts"][1]["options"] == "proto=rdma,vers=4.2,_netdev,port=20049");
}

TEST_CASE("nfs external: hostile or wrong entries are planning errors naming the entry and the option") {
  auto error = [](const std::string& entry) { return NfsViewErrorOf(Cluster("    - " + entry + "\n")); };
  // Nothing that would break an fstab line or a unit name.
  CHECK(Says(error("{server: nas, export: /data, path: \"/data nfs defaults 0 0\\n/x\"}"), "nfs_external_mounts[0] of node02"));
  CHECK(Says(error("{server: nas, export: /data, path: \"/data nfs defaults 0 0\\n/x\"}"), "path: '/data nfs defaults 0 0"));
  CHECK(Says(error("{server: nas, export: '/data#x', path: /data}"), "export: '/data#x' is not an absolute path"));
  CHECK(Says(error("{server: 'nas /x', export: /data}"), "server 'nas /x' is not a valid host name"));
  CHECK(Says(error("{server: '-o evil', export: /data}"), "server '-o evil'"));
  CHECK(Says(error("{server: '10.0.0.300', export: /data}"), "not a valid IPv4 address"));
  CHECK(Says(error("{server: nas, export: relative}"), "not an absolute path"));
  // Options: an allow-list with typed values.
  CHECK(Says(error("{server: nas, export: /data, options: [nosuchopt]}"), "option 'nosuchopt': not an allowed NFS mount option"));
  CHECK(Says(error("{server: nas, export: /data, options: ['hard,nolock']}"), "option 'hard,nolock': not an allowed"));
  CHECK(Says(error("{server: nas, export: /data, options: ['rsize=4096,sec=none']}"), "rsize takes a number"));
  CHECK(Says(error("{server: nas, export: /data, options: [nconnect=17]}"), "nconnect=17 is outside 1-16"));
  CHECK(Says(error("{server: nas, export: /data, options: [nconnect=0]}"), "nconnect=0 is outside 1-16"));
  CHECK(Says(error("{server: nas, export: /data, options: [rsize=5000]}"), "a multiple of 4096"));
  CHECK(Says(error("{server: nas, export: /data, options: [wsize=2097152]}"), "wsize=2097152 is outside 4096-1048576"));
  CHECK(Says(error("{server: nas, export: /data, options: [vers=5]}"), "vers must be one of 3, 4, 4.0, 4.1, 4.2"));
  CHECK(Says(error("{server: nas, export: /data, options: [proto=udp]}"), "proto must be one of tcp, rdma"));
  CHECK(Says(error("{server: nas, export: /data, options: [nconnect]}"), "nconnect needs a value"));
  CHECK(Says(error("{server: nas, export: /data, options: [hard=1]}"), "hard takes no value"));
  CHECK(Says(error("{server: nas, export: /data, options: [vers=3, nfsvers=4.2]}"), "option vers given twice"));
  CHECK(Says(error("{server: nas, export: /data, options: [hard, soft]}"), "hard and soft contradict each other"));
  CHECK(Says(error("{server: nas, export: /data, options: [fsc]}"), "set fsc: true on the entry"));
  CHECK(Says(error("{server: nas, export: /data, options: 'hard,nconnect=4'}"), "options must be a list"));
  CHECK(Says(error("{server: nas, export: /data, fsc: yes please}"), "fsc must be true or false"));
  CHECK(Says(error("{server: nas, export: /data, mountpoint: /x}"), "unknown field 'mountpoint'"));
  CHECK(Says(error("{export: /data}"), "needs a server"));
  CHECK(Says(error("{server: nas, export: /data, path: /home}"), "/home is mounted twice"));
  CHECK(Says(NfsViewErrorOf(Cluster("    []\n  nfs_fscache_dir: 'cache dir'\n")), "nfs_fscache_dir of node02"));
}

TEST_CASE("nfs external: a server outside the inventory in nfs_mounts points at nfs_external_mounts") {
  const std::string text = Cluster("    []\n");
  std::string with_nas = text;
  with_nas.replace(with_nas.find("[{export: /home}]"), 17, "[{export: /data, server: nas01}]");
  CHECK(Says(NfsViewErrorOf(with_nas), "server 'nas01' is not a host of the inventory; a server outside it (a NAS) is mounted with "
                                "nfs_external_mounts"));
}

}  // namespace clusterctl
