// The container roles (issue 37), planned for fake facts: pyxis (enroot and
// the pyxis SPANK plugin) on login and compute hosts and the NVIDIA
// Container Toolkit on GPU hosts, only when the inventory names their
// source; enroot.conf on the scratch it names, the credentials a secret
// file, plugstack through Debian's plugstack.conf.d.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>

#include "common/json_text.h"
#include "tests/roles/role_harness.h"

namespace clusterctl {
namespace {

using testing::Planned;

std::string Inventory(const std::string& vars) {
  return R"(cluster: lab
connection: {user: root}
vars:
  nvidia_driver_branch: '550'
)" + vars + R"(
hosts:
  head01: {address: 10.0.0.1}
  login01: {address: 10.0.0.2}
  gpu01: {address: 10.0.0.11}
  cpu01: {address: 10.0.0.21}
groups:
  controller: {hosts: [head01]}
  login: {hosts: [login01]}
  compute: {hosts: [gpu01, cpu01]}
)";
}

nlohmann::json Facts(int gpus) {
  return testing::DebianNodeFacts(gpus);
}

const std::map<std::string, nlohmann::json> kFacts = {
    {"head01", Facts(0)}, {"login01", Facts(0)}, {"gpu01", Facts(2)}, {"cpu01", Facts(0)}};

bool Has(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

class ContainerRoles : public testing::RoleHarness {
 public:
  explicit ContainerRoles(const std::string& vars)
      : testing::RoleHarness(Inventory(vars), {"slurm-common", "nvidia-driver", "pyxis", "nvidia-container-toolkit"}) {
    std::ofstream(dir() + "/ngc.netrc") << "machine nvcr.io login $oauthtoken password not-a-real-key\n";
    std::ofstream(dir() + "/containers.tar") << "a tar of a flat repository";
  }
  Planned PlanHost(const std::string& host) { return Plan(host, kFacts); }
};

const std::string kRepository = "  pyxis_repository: http://mirror.example.org/nvidia-containers/\n  pyxis_repository_trusted: true\n";

}  // namespace

TEST_CASE("pyxis and nvidia-container-toolkit: nothing of them without their source") {
  ContainerRoles h("");
  for (const std::string host : {"head01", "login01", "gpu01", "cpu01"}) {
    CAPTURE(host);
    Planned p = h.PlanHost(host);
    CHECK_FALSE(Has(p.roles, "pyxis"));
    CHECK_FALSE(Has(p.roles, "nvidia-container-toolkit"));
    for (const std::string& step : p.steps) CHECK(step.find("enroot") == std::string::npos);
  }
}

TEST_CASE("pyxis on login and compute hosts, the toolkit on GPU hosts after the driver, with the source set") {
  ContainerRoles h(kRepository);
  Planned login = h.PlanHost("login01"), gpu = h.PlanHost("gpu01"), cpu = h.PlanHost("cpu01"), head = h.PlanHost("head01");
  CHECK(Has(login.roles, "pyxis"));
  CHECK(Has(cpu.roles, "pyxis"));
  CHECK(Has(gpu.roles, "pyxis"));
  CHECK_FALSE(Has(head.roles, "pyxis"));  // srun runs on the login host; the controller runs no step
  CHECK_FALSE(Has(login.roles, "nvidia-container-toolkit"));
  CHECK_FALSE(Has(cpu.roles, "nvidia-container-toolkit"));
  REQUIRE(Has(gpu.roles, "nvidia-container-toolkit"));
  auto position = [&](const std::string& role) { return std::find(gpu.roles.begin(), gpu.roles.end(), role) - gpu.roles.begin(); };
  CHECK(position("nvidia-driver") < position("nvidia-container-toolkit"));
  CHECK(position("slurm-common") < position("pyxis"));

  CHECK(login.params.at("pyxis/repository")["uri"] == "http://mirror.example.org/nvidia-containers/");
  CHECK(login.params.at("pyxis/packages")["name"] == nlohmann::json::array({"enroot", "enroot+caps", "nvslurm-plugin-pyxis"}));
  CHECK(Has(login.steps, "pyxis/bundle repository not used"));
  CHECK_FALSE(Has(login.steps, "pyxis/bundle"));
  CHECK(login.params.at("pyxis/plugstack")["path"] == "/etc/slurm/plugstack.conf.d/pyxis.conf");
  CHECK(login.params.at("pyxis/plugstack")["target"] == "/usr/share/pyxis/pyxis.conf");
  CHECK(Has(login.steps, "pyxis/plugstack includes plugstack.conf.d"));

  CHECK(gpu.params.at("nvidia-container-toolkit/package")["name"] == "nvidia-container-toolkit");
  const nlohmann::json& cdi = gpu.params.at("nvidia-container-toolkit/cdi spec");
  CHECK(cdi["argv"][2].get<std::string>().find("nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml") != std::string::npos);
  CHECK(cdi["unless"][2].get<std::string>().find("/sys/module/nvidia/version") != std::string::npos);
}

TEST_CASE("pyxis: enroot.conf on the inventory's scratch; the size checked only when asked; no credentials by default") {
  ContainerRoles h(kRepository + "  enroot_scratch_dir: /raid/enroot\n");
  Planned p = h.PlanHost("cpu01");
  const std::string& conf = p.files.at("/etc/enroot/enroot.conf");
  CHECK(conf.find("ENROOT_RUNTIME_PATH /run/enroot/user-$(id -u)\n") != std::string::npos);
  CHECK(conf.find("ENROOT_CACHE_PATH /raid/enroot/cache/user-$(id -u)\n") != std::string::npos);
  CHECK(conf.find("ENROOT_DATA_PATH /raid/enroot/data/user-$(id -u)\n") != std::string::npos);
  CHECK(conf.find("ENROOT_TEMP_PATH /raid/enroot/tmp\n") != std::string::npos);
  CHECK(conf.find("ENROOT_CONFIG_PATH") == std::string::npos);
  CHECK(p.params.at("pyxis/layer cache")["path"] == "/raid/enroot/cache");
  CHECK_FALSE(Has(p.steps, "pyxis/scratch size"));
  CHECK(Has(p.steps, "pyxis/no credentials"));
  CHECK_FALSE(Has(p.steps, "pyxis/credentials"));

  ContainerRoles sized(kRepository + "  enroot_scratch_min_gib: 500\n");
  const Planned sized_plan = sized.PlanHost("cpu01");
  const nlohmann::json& size = sized_plan.params.at("pyxis/scratch size");
  CHECK(size["argv"][4] == "/var/lib/enroot");
  CHECK(JsonText(size["argv"][5]) == "500");
}

// Issue 47 (2): the runtime, cache and data parents were world-writable
// (1777) and enroot made each user's directory as the user, never checking
// who owns it, and reuses cached layers by name: another user could make
// one first and plant what runs. Only root writes the parents now, and the
// Slurm prolog (slurm-node) makes the three directories per user.
TEST_CASE("pyxis: only root writes enroot's parents; each user's directories are listed for the prolog; the cache is per user") {
  ContainerRoles h(kRepository + "  enroot_scratch_dir: /raid/enroot\n");
  Planned p = h.PlanHost("gpu01");
  for (const char* dir : {"pyxis/runtime directory", "pyxis/layer cache", "pyxis/container data"}) {
    CAPTURE(dir);
    CHECK(p.params.at(dir)["mode"] == "0755");
  }
  CHECK(p.params.at("pyxis/temporary files")["mode"] == "1777");  // mktemp's files, /tmp's rules
  const std::string& boot = p.files.at("/etc/tmpfiles.d/enroot.conf");
  CHECK(boot.find("\nd /run/enroot 0755 root root -\n") != std::string::npos);
  CHECK(boot.find("1777") == std::string::npos);
  const std::string& list = p.files.at("/etc/clusterctl/user-dirs.d/enroot.conf");
  CHECK(list.find("\n/run/enroot/user-%u\n/raid/enroot/cache/user-%u\n/raid/enroot/data/user-%u\n") != std::string::npos);
  // The three directories are the ones enroot.conf names (with $(id -u) for %u).
  const std::string& conf = p.files.at("/etc/enroot/enroot.conf");
  for (const char* path : {"/run/enroot/user-", "/raid/enroot/cache/user-", "/raid/enroot/data/user-"}) {
    CAPTURE(path);
    CHECK(conf.find(std::string(" ") + path + "$(id -u)\n") != std::string::npos);
    CHECK(list.find(std::string("\n") + path + "%u\n") != std::string::npos);
  }
  CHECK(conf.find("group-") == std::string::npos);
  CHECK(conf.find("$(id -g)") == std::string::npos);
  // The list is written after the parents it names.
  const auto at = [&](const std::string& step) { return std::find(p.steps.begin(), p.steps.end(), step); };
  CHECK(at("pyxis/container data") < at("pyxis/directories per user"));
  CHECK(at("pyxis/user directories list") < at("pyxis/directories per user"));
}

TEST_CASE("pyxis: the registry credentials are a secret file, readable by the group the inventory names") {
  ContainerRoles h(kRepository + "  enroot_credentials_file: ngc.netrc\n  enroot_credentials_group: ngc\n");
  Planned p = h.PlanHost("gpu01");
  const nlohmann::json& credentials = p.params.at("pyxis/credentials");
  CHECK(credentials["path"] == "/etc/enroot/config/.credentials");
  CHECK(credentials["secret"] == true);
  CHECK(credentials["mode"] == "0640");
  CHECK(credentials["group"] == "ngc");
  CHECK(p.files.at("/etc/enroot/enroot.conf").find("ENROOT_CONFIG_PATH /etc/enroot/config\n") != std::string::npos);
  CHECK_FALSE(Has(p.steps, "pyxis/no credentials"));
  // The key is in no parameter the plan shows.
  for (const auto& [step, params] : p.params) CHECK(JsonText(params).find("not-a-real-key") == std::string::npos);
}

TEST_CASE("pyxis: air-gapped from a bundle beside the inventory, a node-local repository") {
  ContainerRoles h("  pyxis_bundle: containers.tar\n");
  Planned p = h.PlanHost("cpu01");
  CHECK(Has(p.roles, "pyxis"));
  CHECK(p.params.at("pyxis/bundle")["path"] == "/var/lib/clusterctl/nvidia-containers/bundle.tar");
  CHECK(p.params.at("pyxis/bundle repository")["uri"] == "file:/var/lib/clusterctl/nvidia-containers/repo");
  CHECK(Has(p.steps, "pyxis/repository not used"));
  CHECK_FALSE(Has(p.steps, "pyxis/repository"));
  CHECK(Has(h.PlanHost("gpu01").roles, "nvidia-container-toolkit"));
}

}  // namespace clusterctl
