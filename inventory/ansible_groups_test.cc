#include "inventory/ansible_groups.h"

#include <doctest/doctest.h>

#include "inventory/loader.h"

namespace clusterctl {
namespace {

std::string Warnings(const std::string& text) {
  Diagnostics diagnostics;
  std::optional<Inventory> inventory = ParseInventory(text, "inv.yaml", "/inv", diagnostics);
  REQUIRE(inventory);
  return diagnostics.ToString();
}

}  // namespace

TEST_CASE("the table maps DeepOps's groups to clusterctl's and knows the Kubernetes ones") {
  REQUIRE(FindAnsibleGroup("slurm-master"));
  CHECK(FindAnsibleGroup("slurm-master")->clusterctl == "controller");
  CHECK(FindAnsibleGroup("slurm-nfs-client")->clusterctl == "nfs_clients");
  CHECK(FindAnsibleGroup("k8s_cluster")->kind == AnsibleGroup::Kind::kKubernetes);
  CHECK(FindAnsibleGroup("maas")->kind == AnsibleGroup::Kind::kMaas);
  CHECK_FALSE(FindAnsibleGroup("controller"));
  CHECK_FALSE(FindAnsibleGroup("slurm-cluster"));
}

TEST_CASE("a hand-written inventory with DeepOps group names is warned, naming clusterctl's group") {
  std::string warnings = Warnings(
      "cluster: c\nhosts: {head: {address: 10.0.0.1}, gpu01: {address: 10.0.0.2}}\n"
      "groups:\n  slurm-master:\n    hosts: head\n  kube-node:\n    hosts: gpu01\n  slurm-login: {}\n");
  CHECK(warnings.find("inv.yaml:4:3: warning: group 'slurm-master' is DeepOps's name: clusterctl's roles apply "
                      "to 'controller'; its hosts get no Slurm controller role") != std::string::npos);
  CHECK(warnings.find("inv.yaml:6:3: warning: group 'kube-node' is a DeepOps/Kubespray Kubernetes group: "
                      "clusterctl does not deploy Kubernetes") != std::string::npos);
  CHECK(warnings.find("slurm-login") == std::string::npos);  // no hosts: nothing is lost
}

TEST_CASE("a DeepOps-named group with roles of its own is not warned") {
  std::string warnings = Warnings(
      "cluster: c\nhosts: {head: {address: 10.0.0.1}}\n"
      "groups:\n  controller: {hosts: head}\n  slurm-master:\n    hosts: head\n    roles: [chrony]\n");
  CHECK(warnings.find("DeepOps") == std::string::npos);
}

}  // namespace clusterctl
