// The nccl-tests role (issue 37) planned for fake facts: on GPU compute nodes
// only, and only with a source bundle; after the toolkit and MPI; the toolkit
// and GPU checked before NCCL's packages and the build; and the programs
// linked where validate's NCCL checks look for them.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>

#include "controller/catalog/check_variables.h"
#include "tests/roles/role_harness.h"
#include "controller/validate/checks/gpu_jobs.h"

namespace clusterctl {
namespace {

using testing::Planned;

std::string InventoryText(const std::string& vars) {
  return R"(cluster: lab
connection: {user: root}
vars:
  cuda_toolkit_versions: ["12-6"]
)" + vars + R"(
hosts:
  head01: {address: 10.0.0.1}
  gpu01: {address: 10.0.0.11}
  cpu01: {address: 10.0.0.21}
groups:
  controller: {hosts: [head01]}
  compute: {hosts: [gpu01, cpu01]}
)";
}

nlohmann::json Facts(int gpus) {
  return testing::DebianNodeFacts(gpus);
}

const std::vector<std::string> kRoles = {"mpi", "cuda-toolkit", "nccl-tests"};
constexpr const char* kBundle = "  nccl_tests_source: nccl-tests-2.13.9.tar.gz";

Planned PlanHost(testing::RoleHarness& h, const std::string& host) {
  return h.Plan(host, std::map<std::string, nlohmann::json>{{"head01", Facts(0)}, {"gpu01", Facts(2)}, {"cpu01", Facts(0)}});
}

// The harness with the bundle set and written beside its inventory.
struct WithBundle : testing::RoleHarness {
  WithBundle() : testing::RoleHarness(InventoryText(kBundle), kRoles) {
    std::ofstream(dir() + "/nccl-tests-2.13.9.tar.gz") << "a release tarball";
  }
};

long Position(const std::vector<std::string>& list, const std::string& item) {
  auto at = std::find(list.begin(), list.end(), item);
  REQUIRE_MESSAGE(at != list.end(), item);
  return at - list.begin();
}

bool Has(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

}  // namespace

TEST_CASE("nccl-tests: on GPU compute nodes with a source bundle only, after the toolkit and MPI") {
  WithBundle h;
  Planned gpu = PlanHost(h, "gpu01");
  CHECK(Has(gpu.roles, "nccl-tests"));
  CHECK(Position(gpu.roles, "cuda-toolkit") < Position(gpu.roles, "nccl-tests"));
  CHECK(Position(gpu.roles, "mpi") < Position(gpu.roles, "nccl-tests"));
  CHECK_FALSE(Has(PlanHost(h, "cpu01").roles, "nccl-tests"));   // no GPU
  CHECK_FALSE(Has(PlanHost(h, "head01").roles, "nccl-tests"));  // not a compute node

  testing::RoleHarness without(InventoryText(""), kRoles);
  CHECK_FALSE(Has(PlanHost(without, "gpu01").roles, "nccl-tests"));
}

TEST_CASE("nccl-tests: the toolkit and GPU checked before NCCL's packages and the build; rebuilt only when out of date") {
  WithBundle h;
  Planned gpu = PlanHost(h, "gpu01");
  CHECK(gpu.params.at("nccl-tests/bundle")["path"] == "/var/lib/clusterctl/nccl-tests/bundle.tar");
  long check = Position(gpu.steps, "nccl-tests/toolkit and GPU");
  CHECK(check < Position(gpu.steps, "nccl-tests/packages"));
  CHECK(Position(gpu.steps, "nccl-tests/libraries") < Position(gpu.steps, "nccl-tests/build"));
  CHECK(gpu.params.at("nccl-tests/packages")["name"] == nlohmann::json::array({"libnccl2", "libnccl-dev"}));
  const nlohmann::json& build = gpu.params.at("nccl-tests/build");
  CHECK(build["argv"] == nlohmann::json::array({"/usr/local/sbin/clusterctl-nccl-tests", "build"}));
  CHECK(build["unless"] == nlohmann::json::array({"/usr/local/sbin/clusterctl-nccl-tests", "current"}));
  const std::string& builder = gpu.files.at("/usr/local/sbin/clusterctl-nccl-tests");
  CHECK(builder.find("*SIMULATED*) problems=\"nvcc at $nvcc is SIMULATED") != std::string::npos);
  CHECK(builder.find("make -C \"$lib/.build/$top\" -j\"$(nproc)\" MPI=1 MPI_HOME=") != std::string::npos);
}

// One place for the path: the builder links into the directory validate's
// nccl.node and nccl.cluster probe by default, both in the variable's
// declared default and in the checks' built-in one (a view without it).
TEST_CASE("nccl-tests: the programs are linked where validate looks for all_reduce_perf") {
  WithBundle h;
  const std::string builder = PlanHost(h, "gpu01").files.at("/usr/local/sbin/clusterctl-nccl-tests");
  const std::string validate_dir = ValidateVariables().at("validate_nccl_tests_dir").default_value.get<std::string>();
  CHECK(validate_dir == checks::NcclTestsDir(nlohmann::json::object()));
  CHECK(builder.find("\nbin=" + validate_dir + "\n") != std::string::npos);
  CHECK(builder.find("ln -sfn \"$program\" \"$bin/$(basename \"$program\")\"") != std::string::npos);
}

// Issue 52: MPI_HOME and NCCL's libraries are in the node's architecture's
// multiarch directory (mpi_multiarch, platforms.yaml), x86_64's by default.
TEST_CASE("nccl-tests: the builder looks in the node's architecture's /usr/lib directory") {
  WithBundle h;
  nlohmann::json arm = Facts(2);
  arm["kernel"] = {{"release", "6.1.0-57-arm64"}, {"arch", "aarch64"}};
  const std::map<std::string, nlohmann::json> facts = {{"head01", Facts(0)}, {"gpu01", arm}, {"cpu01", Facts(0)}};
  const std::string on_arm = h.Plan("gpu01", facts).files.at("/usr/local/sbin/clusterctl-nccl-tests");
  CHECK(on_arm.find("\nmultiarch=aarch64-linux-gnu\nmpi_home=/usr/lib/$multiarch/openmpi\n") != std::string::npos);
  const std::string on_x86 = PlanHost(h, "gpu01").files.at("/usr/local/sbin/clusterctl-nccl-tests");
  CHECK(on_x86.find("\nmultiarch=x86_64-linux-gnu\n") != std::string::npos);
}

}  // namespace clusterctl
