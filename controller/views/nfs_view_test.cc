#include "controller/views/nfs_view.h"

#include <doctest/doctest.h>

#include "controller/views/nfs_view_test_util.h"
#include "tests/unit/inventory_text.h"

namespace clusterctl {
namespace {

using testing::InventoryFromText;

// The testbed's shape: node01 serves, node02-03 mount; everyone on ib0.
std::string Cluster(const std::string& vars, const std::string& node03_interfaces = "{ib0: 10.1.0.13/24}") {
  return "cluster: c\nvars:\n" + vars +
         "\nhosts:\n"
         "  node01: {address: 10.0.0.11, interfaces: {ib0: 10.1.0.11/24}}\n"
         "  node02: {address: 10.0.0.12, interfaces: {ib0: 10.1.0.12/24}}\n"
         "  node03: {address: 10.0.0.13, interfaces: " +
         node03_interfaces +
         "}\n"
         "groups:\n  nfs_server: {hosts: node01}\n  compute: {hosts: [node02, node03]}\n"
         "  nfs_clients: {children: [compute]}\n";
}

const char* kHomeExport =
    "  nfs_exports: [{path: /home, clients: [compute]}]\n"
    "  nfs_mounts: [{export: /home}]\n";

using testing::NfsViewErrorOf;
using testing::NfsViewOf;

}  // namespace

TEST_CASE("nfs view: clients with IPoIB addresses get the export over the fabric, with safe defaults") {
  const nlohmann::json view = NfsViewOf(Cluster(kHomeExport));
  CHECK(view["server"] == "node01");
  CHECK(view["network"] == "fabric");
  const nlohmann::json& exported = view["per_host"]["node01"]["exports"][0];
  CHECK(exported["line"] == "/home 10.1.0.12(rw,sync,no_subtree_check,root_squash) 10.1.0.13(rw,sync,no_subtree_check,root_squash)");
  CHECK(exported["client_addresses"] == "10.1.0.12, 10.1.0.13");
  CHECK(exported["access_type"] == "RW");
  CHECK(exported["squash"] == "root_squash");
  CHECK(exported["listen_address"] == "10.1.0.11");
  CHECK(view["per_host"]["node01"]["bind_address"] == "10.1.0.11");
  const nlohmann::json& mount = view["per_host"]["node03"]["mounts"][0];
  CHECK(mount["source"] == "10.1.0.11:/home");
  CHECK(mount["options"] == "vers=4.2,hard,_netdev");
  CHECK(mount["unit"] == "home.mount");
  CHECK(view["mount_paths"] == nlohmann::json::array({"/home"}));
  CHECK(view["per_host"]["node01"]["protocols"] == "3, 4");
  CHECK(view["per_host"]["node01"]["minor_versions"] == "2");
}

TEST_CASE("nfs view: one client without a fabric address puts the export on the management network") {
  const nlohmann::json view = NfsViewOf(Cluster(kHomeExport, "{}"));
  CHECK(view["network"] == "management");
  CHECK(view["per_host"]["node01"]["exports"][0]["client_addresses"] == "10.0.0.12, 10.0.0.13");
  CHECK(view["per_host"]["node02"]["mounts"][0]["source"] == "10.0.0.11:/home");
  CHECK(NfsViewErrorOf(Cluster(std::string(kHomeExport) + "  nfs_network: fabric\n", "{}")).find("share no IPoIB") !=
        std::string::npos);
}

TEST_CASE("nfs view: networks, rdma, automount and a mount point of its own") {
  const nlohmann::json view = NfsViewOf(Cluster(
      "  nfs_exports: [{path: /srv/my-data, clients: [10.1.0.0/24], options: 'ro,sync,no_subtree_check'}]\n"
      "  nfs_mounts: [{export: /srv/my-data, path: /data}]\n  nfs_rdma: true\n  nfs_automount: true\n"
      "  nfs_versions: ['4.1']\n"));
  // A network client restricts no rail: served on the server's fabric address.
  CHECK(view["per_host"]["node01"]["exports"][0]["line"] == "/srv/my-data 10.1.0.0/24(ro,sync,no_subtree_check)");
  CHECK(view["per_host"]["node01"]["exports"][0]["access_type"] == "RO");
  const nlohmann::json& mount = view["per_host"]["node02"]["mounts"][0];
  CHECK(mount["unit"] == "data.mount");
  CHECK(mount["automount_unit"] == "data.automount");
  CHECK(mount["automount"] == true);
  CHECK(mount["source"] == "10.1.0.11:/srv/my-data");
  CHECK(mount["options"] == "vers=4.1,hard,_netdev,proto=rdma,port=20049");
  CHECK(MountUnitName("/srv/my-data") == "srv-my\\x2ddata.mount");
  CHECK(MountUnitName("/") == "-.mount");
}

TEST_CASE("nfs view: hostile or wrong entries are planning errors that name the entry") {
  CHECK(NfsViewErrorOf(Cluster("  nfs_exports: [{path: '/home x(rw) *', clients: [compute]}]\n")).find("nfs_exports[0]") !=
        std::string::npos);
  CHECK(NfsViewErrorOf(Cluster("  nfs_exports: [{path: /home, clients: [compute], options: \"rw\\nfoo\"}]\n"))
            .find("comma-separated") != std::string::npos);
  CHECK(NfsViewErrorOf(Cluster("  nfs_exports: [{path: /home, clients: [nosuch]}]\n")).find("client 'nosuch'") !=
        std::string::npos);
  CHECK(NfsViewErrorOf(Cluster("  nfs_exports: [{path: /home/../etc, clients: [compute]}]\n")).find("absolute path") !=
        std::string::npos);
  CHECK(NfsViewErrorOf(Cluster("  nfs_exports: [{path: /home, clients: [node02]}]\n  nfs_mounts: [{export: /home}]\n"))
            .find("does not list node03") != std::string::npos);
  CHECK(NfsViewErrorOf(Cluster("  nfs_exports: [{path: /home, clients: [compute]}]\n  nfs_mounts: [{export: /scratch}]\n"))
            .find("does not export /scratch") != std::string::npos);
  CHECK(NfsViewErrorOf(Cluster(std::string(kHomeExport) + "  nfs_versions: ['5']\n")).find("nfs_versions") != std::string::npos);
  // Wrong types are errors, not exceptions.
  CHECK(NfsViewErrorOf(Cluster("  nfs_exports: [{path: /home, clients: [compute], options: [rw]}]\n")).find("options must be a string") !=
        std::string::npos);
  CHECK(NfsViewErrorOf(Cluster("  nfs_exports: [{path: /home, clients: [compute]}]\n  nfs_mounts: [{export: /home, path: 5}]\n"))
            .find("path must be a string") != std::string::npos);
  CHECK(NfsViewErrorOf(Cluster("  nfs_exports: [{path: /home, clients: [compute]}]\n  nfs_mounts: [{export: /home, server: {a: 1}}]\n"))
            .find("server must be a string") != std::string::npos);
}

}  // namespace clusterctl
