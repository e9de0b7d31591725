// Planning tests of the GPU roles (nvidia-driver, cuda-toolkit, dcgm) on
// fake facts: the role follows the facts (GPUs, NVSwitches), each source
// installs its own packages at the pinned version, and the reboot follows
// only the steps that change the driver.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "agent/exec/run_command.h"
#include "common/strings.h"
#include "controller/state/test_util.h"
#include "tests/roles/role_harness.h"

namespace clusterctl {
namespace {

using testing::Planned;

std::string Inventory(const std::string& vars) {
  return R"(cluster: lab
connection: {user: root}
vars:
)" + vars + R"(
hosts:
  head: {address: 10.0.0.1}
  gpu01: {address: 10.0.0.11}
  cpu01: {address: 10.0.0.21}
groups:
  controller: {hosts: [head]}
  compute: {hosts: [gpu01, cpu01]}
)";
}

nlohmann::json Facts(int gpus, int nvswitches = 0) {
  return testing::DebianNodeFacts(gpus, nvswitches);
}

bool Has(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

// Files the inventory names beside it: a repository key and a bundle.
void WriteBeside(const testing::RoleHarness& h) {
  std::ofstream(h.dir() + "/cuda.asc") << "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nmQINBGJYmlEBEAC6\n-----END PGP PUBLIC KEY BLOCK-----\n";
  std::ofstream(h.dir() + "/nvidia-550.tar") << "a tar of a flat repository";
}

const std::vector<std::string> kGpuRoles = {"nvidia-driver", "cuda-toolkit", "dcgm"};

TEST_CASE("nvidia-driver follows the facts: hosts with NVIDIA GPUs, whatever their group") {
  testing::RoleHarness h(Inventory("  nvidia_driver_branch: '535'"), kGpuRoles);
  CHECK(Has(h.Plan("gpu01", Facts(8)).roles, "nvidia-driver"));
  CHECK_FALSE(Has(h.Plan("cpu01", Facts(0)).roles, "nvidia-driver"));
  CHECK(Has(h.Plan("head", Facts(2)).roles, "nvidia-driver"));  // a GPU in the head node counts too
}

TEST_CASE("nvidia-driver, distro: Debian's non-free components, the DKMS module, nvidia-smi and libcuda1 pinned") {
  testing::RoleHarness h(Inventory("  nvidia_driver_branch: '535'\n  nvidia_driver_version: 535.261.03-1"), kGpuRoles);
  Planned p = h.Plan("gpu01", Facts(8));
  REQUIRE(Has(p.steps, "nvidia-driver/debian non-free"));
  const nlohmann::json& repo = p.params["nvidia-driver/debian non-free"];
  CHECK(repo["suite"] == "bookworm");
  CHECK(repo["keyring"] == "/usr/share/keyrings/debian-archive-keyring.gpg");
  CHECK(repo["components"] == nlohmann::json({"contrib", "non-free", "non-free-firmware"}));
  const nlohmann::json& driver = p.params["nvidia-driver/driver (debian)"];
  CHECK(driver["name"] == nlohmann::json({"nvidia-kernel-dkms", "nvidia-smi", "libcuda1"}));
  CHECK(driver["version"] == "535.261.03-1");
  CHECK_FALSE(Has(p.steps, "nvidia-driver/driver (nvidia)"));
  CHECK_FALSE(Has(p.steps, "nvidia-driver/nvidia repository"));
  CHECK(p.files["/etc/apt/preferences.d/clusterctl-nvidia-driver"].find("Pin: version 535.261.03-1\n") !=
        std::string::npos);
  CHECK(Has(p.steps, "nvidia-driver/kernel headers[0]"));
  CHECK(p.params["nvidia-driver/kernel headers[0]"]["name"] == "linux-headers-6.1.0-28-amd64");
  CHECK(p.params["nvidia-driver/nouveau blacklisted"]["state"] == "blacklisted");
  // No NVSwitch: no fabric manager.
  for (const std::string& step : p.steps) CHECK(step.find("fabric") == std::string::npos);
  // DCGM is NVIDIA's: not from Debian.
  CHECK_FALSE(Has(p.roles, "dcgm"));
}

TEST_CASE("nvidia-driver, distro on Ubuntu: nvidia-driver-BRANCH-server, no Debian components") {
  testing::RoleHarness h(Inventory("  nvidia_driver_branch: '535'"), kGpuRoles);
  nlohmann::json facts = Facts(8);
  facts["os"] = {{"id", "ubuntu"}, {"family", "debian"}, {"version_id", "22.04"}, {"version_codename", "jammy"}};
  Planned p = h.Plan("gpu01", facts);
  CHECK(p.params["nvidia-driver/driver (ubuntu)"]["name"] == "nvidia-driver-535-server");
  CHECK_FALSE(Has(p.steps, "nvidia-driver/driver (debian)"));
  CHECK_FALSE(Has(p.steps, "nvidia-driver/debian non-free"));
}

TEST_CASE("nvidia-driver, cuda-repo with open modules: nvidia-open-BRANCH, the branch pinned when no version is") {
  testing::RoleHarness h(Inventory("  nvidia_driver_source: cuda-repo\n  nvidia_driver_modules: open\n"
                                   "  nvidia_driver_branch: '550'\n  nvidia_driver_repository_key_file: cuda.asc"),
                         kGpuRoles);
  WriteBeside(h);
  Planned p = h.Plan("gpu01", Facts(8));
  CHECK(p.params["nvidia-driver/nvidia repository"]["uri"] ==
        "https://developer.download.nvidia.com/compute/cuda/repos/debian12/x86_64/");
  CHECK(p.params["nvidia-driver/driver (nvidia, open modules)"]["name"] == "nvidia-open-550");
  CHECK_FALSE(p.params["nvidia-driver/driver (nvidia, open modules)"].contains("version"));
  CHECK(p.files["/etc/apt/preferences.d/clusterctl-nvidia-driver"].find("Pin: version 550.*\n") != std::string::npos);
  CHECK(Has(p.roles, "dcgm"));
}

TEST_CASE("nvidia-driver on an NVSwitch system: the fabric manager checked first, stopped, pinned with the driver, checked after") {
  testing::RoleHarness h(Inventory("  nvidia_driver_source: site\n  nvidia_driver_branch: '550'\n"
                                   "  nvidia_driver_version: 550.144.03-1\n"
                                   "  nvidia_driver_repository: http://mirror.example/nvidia/\n"
                                   "  nvidia_driver_repository_trusted: true"),
                         kGpuRoles);
  Planned p = h.Plan("gpu01", Facts(8, 4));
  const std::vector<std::string> order = {"nvidia-driver/fabric manager at the driver's version",
                                          "nvidia-driver/drain",
                                          "nvidia-driver/fabric manager stopped for the upgrade",
                                          "nvidia-driver/driver (nvidia)",
                                          "nvidia-driver/fabric manager packages",
                                          "nvidia-driver/reboot",
                                          "nvidia-driver/driver loaded",
                                          "nvidia-driver/fabric manager",
                                          "nvidia-driver/nvlink fabric",
                                          "nvidia-driver/resume"};
  size_t at = 0;
  for (const std::string& step : order) {
    auto it = std::find(p.steps.begin() + static_cast<long>(at), p.steps.end(), step);
    REQUIRE_MESSAGE(it != p.steps.end(), (step + " missing or out of order"));
    at = static_cast<size_t>(it - p.steps.begin());
  }
  CHECK(p.params["nvidia-driver/fabric manager packages"]["name"] ==
        nlohmann::json({"nvidia-fabricmanager-550", "libnvidia-nscq-550"}));
  CHECK(p.params["nvidia-driver/fabric manager packages"]["version"] == "550.144.03-1");
  CHECK(p.params["nvidia-driver/fabric manager at the driver's version"]["argv"] ==
        nlohmann::json({"/usr/local/lib/clusterctl/nvidia-driver-state", "fabric-manager-fits", "site", "proprietary", "550",
                        "550.144.03-1", ""}));
  // The reboot follows the driver's changes, not the helper files or the fabric manager's packages.
  const nlohmann::json after = p.params["nvidia-driver/reboot"]["after"];
  CHECK(std::find(after.begin(), after.end(), "driver (nvidia)") != after.end());
  CHECK(std::find(after.begin(), after.end(), "driver state probe") == after.end());
  CHECK(std::find(after.begin(), after.end(), "fabric manager packages") == after.end());
}

TEST_CASE("nvidia-driver, site bundle: copied from the controller and used as a node-local repository") {
  testing::RoleHarness h(Inventory("  nvidia_driver_source: site\n  nvidia_driver_branch: '550'\n"
                                   "  nvidia_driver_bundle: nvidia-550.tar"),
                         kGpuRoles);
  WriteBeside(h);
  Planned p = h.Plan("gpu01", Facts(8));
  CHECK(p.params["nvidia-driver/bundle"]["path"] == "/var/lib/clusterctl/nvidia-driver/bundle.tar");
  CHECK(p.params["nvidia-driver/bundle repository"]["uri"] == "file:/var/lib/clusterctl/nvidia-driver/repo");
  CHECK(p.params["nvidia-driver/bundle repository"]["trusted"] == true);
  CHECK_FALSE(Has(p.steps, "nvidia-driver/nvidia repository"));
}

// The planned "unpack bundle" command run for real (sh, tar, dpkg) in a
// scratch directory standing for /var/lib/clusterctl/nvidia-driver: a bundle
// of this machine's architecture becomes the repository; one of another
// architecture (an amd64 bundle for a Grace node), or one without an index,
// fails naming what it holds, and the repository stays as it was.
TEST_CASE("nvidia-driver, site bundle: unpacked only when its Packages index has the node's architecture") {
  testing::RoleHarness h(Inventory("  nvidia_driver_source: site\n  nvidia_driver_branch: '550'\n"
                                   "  nvidia_driver_bundle: nvidia-550.tar"),
                         kGpuRoles);
  WriteBeside(h);
  const nlohmann::json argv = h.Plan("gpu01", Facts(8)).params.at("nvidia-driver/unpack bundle").at("argv");
  REQUIRE(argv[4] == "/var/lib/clusterctl/nvidia-driver");
  agent::CommandSpec arch_query;
  arch_query.argv = {"dpkg", "--print-architecture"};
  const std::string own(Trim(agent::RunCommand(arch_query).stdout_data));
  REQUIRE_FALSE(own.empty());
  const std::string other = own == "arm64" ? "amd64" : "arm64";
  testing::TempDir scratch;
  const auto unpack = [&](const std::string& index) {  // the bundle: one Packages index (none when "")
    const std::string content = scratch.path() + "/content";
    std::filesystem::remove_all(content);
    std::filesystem::create_directories(content);
    if (!index.empty()) std::ofstream(content + "/Packages") << index;
    std::ofstream(content + "/nvidia-open-550.deb") << "a package";
    agent::CommandSpec tar;
    tar.argv = {"tar", "-cf", scratch.path() + "/bundle.tar", "-C", content, "."};
    REQUIRE(agent::RunCommand(tar).exit_code == 0);
    agent::CommandSpec spec;
    spec.argv = argv.get<std::vector<std::string>>();
    spec.argv[4] = scratch.path();
    return agent::RunCommand(spec);
  };
  const auto stanza = [](const std::string& arch) {
    return "Package: nvidia-open-550\nVersion: 550.144.03-1\nArchitecture: " + arch + "\n\n"
           "Package: nvidia-firmware-550\nVersion: 550.144.03-1\nArchitecture: all\n";
  };
  CHECK(unpack(stanza(own)).exit_code == 0);
  CHECK(std::filesystem::exists(scratch.path() + "/repo/Packages"));
  const agent::CommandResult foreign = unpack(stanza(other));
  CHECK(foreign.exit_code == 1);
  CHECK(foreign.stderr_data.find("nvidia_driver_bundle holds no " + own + " packages") != std::string::npos);
  CHECK(foreign.stderr_data.find(other) != std::string::npos);
  const agent::CommandResult unindexed = unpack("");
  CHECK(unindexed.exit_code == 1);
  CHECK(unindexed.stderr_data.find("nvidia_driver_bundle has no Packages index") != std::string::npos);
  std::ifstream kept(scratch.path() + "/repo/Packages");  // the first bundle's repository is untouched
  CHECK(std::string(std::istreambuf_iterator<char>(kept), {}).find("Architecture: " + own) != std::string::npos);
}

TEST_CASE("cuda-toolkit: each version side by side, /usr/local/cuda at the default") {
  testing::RoleHarness h(Inventory("  nvidia_driver_source: cuda-repo\n  nvidia_driver_branch: '550'\n"
                                   "  nvidia_driver_repository_key_file: cuda.asc\n"
                                   "  cuda_toolkit_versions: ['12-4', '12-6']\n  cuda_toolkit_default: '12-4'"),
                         kGpuRoles);
  WriteBeside(h);
  Planned p = h.Plan("gpu01", Facts(8));
  CHECK(p.params["cuda-toolkit/toolkit[0]"]["name"] == "cuda-toolkit-12-4");
  CHECK(p.params["cuda-toolkit/toolkit[1]"]["name"] == "cuda-toolkit-12-6");
  const nlohmann::json argv = p.params["cuda-toolkit/default"]["argv"];
  CHECK(argv[4] == "12-4");
  CHECK(argv[5] == "12-4 12-6 ");
  CHECK_FALSE(Has(h.Plan("cpu01", Facts(0)).roles, "cuda-toolkit"));
}

}  // namespace
}  // namespace clusterctl
