// The roles for what users run (issue 37), planned for fake facts: the mpi
// role's runtime on every Slurm host and its test program built only on the
// submit host (the login hosts, else the controller); lmod on login and
// compute nodes, after the toolkits and MPI it writes modules for.
#include <doctest/doctest.h>

#include "tests/roles/role_harness.h"

namespace clusterctl {
namespace {

using testing::Planned;

std::string Inventory(bool login) {
  return std::string(R"(cluster: lab
connection: {user: root}
hosts:
  head01: {address: 10.0.0.1}
  login01: {address: 10.0.0.2}
  gpu01: {address: 10.0.0.11}
groups:
  controller: {hosts: [head01]}
  compute: {hosts: [gpu01]}
)") + (login ? "  login: {hosts: [login01]}\n" : "");
}

nlohmann::json Facts(int gpus) {
  return {{"os", {{"id", "debian"}, {"family", "debian"}}},
          {"systemd", true},
          {"pci", {{"gpu_count", gpus}, {"hca_count", 0}}}};
}

class UserSoftwareRoles : public testing::RoleHarness {
 public:
  explicit UserSoftwareRoles(bool login) : testing::RoleHarness(Inventory(login), {"mpi", "cuda-toolkit", "lmod"}) {}
  Planned PlanHost(const std::string& host) {
    return Plan(host, std::map<std::string, nlohmann::json>{{"head01", Facts(0)}, {"login01", Facts(0)}, {"gpu01", Facts(2)}});
  }
};

bool Has(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

}  // namespace

TEST_CASE("mpi: the runtime everywhere, the test program built on the login host, else on the controller") {
  UserSoftwareRoles with_login(true);
  Planned login = with_login.PlanHost("login01"), head = with_login.PlanHost("head01"), gpu = with_login.PlanHost("gpu01");
  for (const Planned* p : {&login, &head, &gpu}) CHECK(Has(p->steps, "mpi/packages"));
  CHECK(Has(login.steps, "mpi/test program"));
  CHECK(Has(login.steps, "mpi/build packages"));
  CHECK(login.files.at("/usr/local/src/clusterctl/mpi-ring.c").find("MPI_Sendrecv") != std::string::npos);
  CHECK_FALSE(Has(head.steps, "mpi/test program"));
  CHECK_FALSE(Has(gpu.steps, "mpi/build packages"));
  CHECK_FALSE(Has(gpu.steps, "mpi/test program"));

  UserSoftwareRoles without_login(false);
  CHECK(Has(without_login.PlanHost("head01").steps, "mpi/test program"));
  CHECK_FALSE(Has(without_login.PlanHost("gpu01").steps, "mpi/test program"));
}

TEST_CASE("lmod: on login and compute nodes, after the toolkits and MPI; its modules checked before written") {
  UserSoftwareRoles h(true);
  Planned gpu = h.PlanHost("gpu01");
  CHECK(Has(gpu.roles, "lmod"));
  CHECK_FALSE(Has(h.PlanHost("head01").roles, "lmod"));
  auto position = [&](const std::string& role) { return std::find(gpu.roles.begin(), gpu.roles.end(), role) - gpu.roles.begin(); };
  CHECK(position("mpi") < position("lmod"));
  const nlohmann::json& modules = gpu.params.at("lmod/modules");
  CHECK(modules["argv"] == nlohmann::json::array({"/usr/local/sbin/clusterctl-modules", "apply"}));
  CHECK(modules["unless"] == nlohmann::json::array({"/usr/local/sbin/clusterctl-modules", "check"}));
  CHECK(gpu.files.at("/usr/local/sbin/clusterctl-modules").find("/usr/local/cuda-[0-9]*") != std::string::npos);
}

}  // namespace clusterctl
