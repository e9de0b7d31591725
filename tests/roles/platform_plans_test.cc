// Golden plans per OS release (issue 49): the README's stack (a head node
// that is controller, login, NFS server and monitoring host; two GPU compute
// nodes) planned on the os-release facts of real nodes of each release
// (tests/fixtures/facts/SOURCES-os-release.md), every role of the catalog.
// The golden file lists, per host, the roles it gets and every package and
// repository step with its names, version and source: what a deploy would
// install, from which archive. A change to the roles or to platforms.yaml
// that moves any of it shows as a diff of tests/fixtures/plans/RELEASE.txt;
// to accept one:
//   CLUSTERCTL_UPDATE_GOLDEN=1 build/tests/unit_tests -tc='golden plan*'
// and review the diff. The CHECKs below hold what each release must get
// whatever the golden file says.
//
// Architectures the same way (issue 52): the README's stack with its GPU
// nodes on an arm64 Debian 12 node's facts, built from real pieces (below),
// beside an x86_64 head node, as Grace clusters usually are.
//
// A golden plan proves what would run, not that it works: Ubuntu's package
// names come from platforms.yaml and were never checked against an Ubuntu
// archive (none is reachable here), nor deployed (docs/platforms.md).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <tuple>

#include "agent/facts/text_parsers.h"
#include "controller/engine/fake_fleet.h"
#include "tests/roles/role_harness.h"
#include "tests/unit/fixture.h"

namespace clusterctl {
namespace {

using testing::Planned;

constexpr const char* kReadmeStack = R"(cluster: lab
connection: {user: root}
vars:
  nvidia_driver_branch: '550'
  nfs_exports:
    - {path: /export/home, clients: [compute]}
  nfs_mounts:
    - {export: /export/home, path: /home}
hosts:
  head01: {address: 10.0.0.1}
  gpu01: {address: 10.0.0.11}
  gpu02:
    address: 10.0.0.12
    vars: {nvidia_driver_source: cuda-repo, nvidia_driver_repository_trusted: true}
groups:
  controller: {hosts: [head01]}
  login: {hosts: [head01]}
  compute: {hosts: [gpu01, gpu02]}
  nfs_server: {hosts: [head01]}
  nfs_clients: {children: [compute]}
  monitoring: {hosts: [head01]}
)";

// The README's stack for Grace GPU nodes: the open kernel modules, the only
// ones NVIDIA supports there (the nvidia-driver role refuses the others).
std::string GraceStack() {
  std::string text = kReadmeStack;
  const std::string branch = "  nvidia_driver_branch: '550'\n";
  text.replace(text.find(branch), branch.size(), branch + "  nvidia_driver_modules: open\n");
  return text;
}

// The facts of a node of the release whose os-release `fixture` holds.
nlohmann::json NodeFacts(const std::string& fixture, const std::string& host, int gpus) {
  nlohmann::json node = testing::FakeFacts(host, gpus);
  node["os"] = facts::ParseOsRelease(testing::ReadFixture(testing::FixturesDir() + "/facts/" + fixture));
  return node;
}

// The arm64 kernel release of a Debian suite's arm64 archive (captured:
// `apt-cache depends linux-image-arm64`, "Depends: linux-image-6.1.0-57-arm64").
std::string ArmKernelRelease(const std::string& suite = "bookworm") {
  const std::string text = testing::CapturedFixture("apt-cache-depends--linux-image-arm64--" + suite + "-arm64--1.txt");
  const std::string mark = "Depends: linux-image-";
  const size_t at = text.find(mark);
  REQUIRE(at != std::string::npos);
  return text.substr(at + mark.size(), text.find('\n', at) - at - mark.size());
}

// The GPUs of a GB200 compute tray: lspci's NVIDIA 3D controllers (captured).
int Gb200GpuCount() {
  const std::string text = testing::CapturedFixture("lspci--GB200--1.txt");
  int count = 0;
  for (size_t at = 0; (at = text.find("3D controller: NVIDIA", at)) != std::string::npos; ++at) ++count;
  return count;
}

// An arm64 Debian 12 GPU node, each part from a capture: Debian 12's
// os-release, the kernel of Debian 12's arm64 archive (`uname -m` aarch64, as
// the agent reports it), a Grace CPU (/proc/cpuinfo's record; 72 cores on one
// socket as lscpu said in the same message, SOURCES.md), a GB200 tray's GPUs.
nlohmann::json ArmNodeFacts(const std::string& host, const std::string& os_release = "os-release--debian12.txt",
                            const std::string& suite = "bookworm") {
  nlohmann::json node = NodeFacts(os_release, host, Gb200GpuCount());
  const std::string kernel = ArmKernelRelease(suite);
  node["kernel"] = {{"release", kernel}, {"arch", "aarch64"}};
  node["kernels"] = {{"installed", {kernel}}};
  node["cpu"] = facts::ParseCpuinfo(testing::CapturedFixture("cpuinfo--Grace-Neoverse-V2--last-record--1.txt"));
  node["cpu"]["cpus"] = 72;
  node["cpu"]["cores_per_socket"] = 72;
  return node;
}

std::string Words(const nlohmann::json& value) {
  if (value.is_null()) return "-";
  if (!value.is_array()) return value.is_string() ? value.get<std::string>() : value.dump();
  std::string out;
  for (const nlohmann::json& item : value) out += (out.empty() ? "" : " ") + Words(item);
  return out;
}

// One host's lines of the golden file.
std::string HostLines(const std::string& host, const Planned& plan) {
  std::string out = host + " roles: " + Words(plan.roles) + "\n";
  for (const std::string& step : plan.steps) {
    const std::string& kind = plan.kinds.at(step);
    const nlohmann::json& p = plan.params.at(step);
    if (kind == "package") {
      out += host + " " + step + ": package " + Words(p.at("name")) +
             (p.contains("version") ? " version " + Words(p["version"]) : "") +
             (p.value("state", "present") == "absent" ? " absent" : "") + "\n";
    } else if (kind == "repository") {
      out += host + " " + step + ": repository " + Words(p.value("uri", nlohmann::json())) + " " +
             Words(p.value("suite", nlohmann::json())) + " " + Words(p.value("components", nlohmann::json())) +
             (p.value("state", "present") == "absent" ? " absent" : "") +
             (p.contains("format") ? " format " + Words(p["format"]) : "") + "\n";
    }
  }
  // What the driver's state probe takes for the distribution's archive, and
  // where Lmod's module writer looks for Open MPI (the architecture's).
  for (const auto& [name, path, line] :
       {std::tuple{"nvidia-driver-state", "/usr/local/lib/clusterctl/nvidia-driver-state", "\ndistro_archive="},
        std::tuple{"lmod module writer", "/usr/local/sbin/clusterctl-modules", "\nmpi_dir=/usr/lib/"}}) {
    auto file = plan.files.find(path);
    if (file == plan.files.end()) continue;
    const size_t at = file->second.find(line);
    if (at != std::string::npos) {
      out += host + " " + name + ":" + file->second.substr(at + 1, file->second.find('\n', at + 1) - at - 1) + "\n";
    }
  }
  return out;
}

std::map<std::string, Planned> GoldenPlanOf(const std::map<std::string, nlohmann::json>& facts, const std::string& what,
                                            const std::string& golden, const std::string& inventory = kReadmeStack);

// The whole cluster's plan on `fixture`'s release, compared with (or, with
// CLUSTERCTL_UPDATE_GOLDEN, written to) tests/fixtures/plans/`golden`.
std::map<std::string, Planned> GoldenPlan(const std::string& fixture, const std::string& golden) {
  return GoldenPlanOf({{"head01", NodeFacts(fixture, "head01", 0)},
                       {"gpu01", NodeFacts(fixture, "gpu01", 2)},
                       {"gpu02", NodeFacts(fixture, "gpu02", 2)}},
                      fixture, golden);
}

// The same with each host's facts given; `what` names them in the file's title.
std::map<std::string, Planned> GoldenPlanOf(const std::map<std::string, nlohmann::json>& facts, const std::string& what,
                                            const std::string& golden, const std::string& inventory) {
  testing::RoleHarness harness(inventory, testing::BuiltInRolesButHealth());
  harness.UseSecrets();
  std::map<std::string, Planned> plans;
  std::string text = "# Golden plan: the README's stack on " + what + " (tests/roles/platform_plans_test.cc)\n";
  for (const char* host : {"head01", "gpu01", "gpu02"}) {
    plans[host] = harness.Plan(host, facts);
    text += HostLines(host, plans[host]);
  }
  const std::string path = testing::FixturesDir() + "/plans/" + golden;
  if (std::getenv("CLUSTERCTL_UPDATE_GOLDEN")) {
    std::filesystem::create_directories(testing::FixturesDir() + "/plans");
    std::ofstream(path) << text;
  }
  std::ifstream in(path);
  const std::string want((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK_MESSAGE(text == want, path << " differs from the plan (CLUSTERCTL_UPDATE_GOLDEN=1 to accept); the plan:\n"
                                   << text);
  return plans;
}

const nlohmann::json& Params(const Planned& plan, const std::string& step) {
  REQUIRE_MESSAGE(plan.params.count(step), step << " is not planned");
  return plan.params.at(step);
}

bool Has(const Planned& plan, const std::string& step) {
  return std::find(plan.steps.begin(), plan.steps.end(), step) != plan.steps.end();
}

TEST_CASE("golden plan: Debian 12 (the reference release) gets the roles' defaults") {
  auto plans = GoldenPlan("os-release--debian12.txt", "debian-12.txt");
  CHECK(Params(plans["head01"], "mpi/packages")["name"] == nlohmann::json({"openmpi-bin", "libopenmpi3", "libpmix2"}));
  CHECK(Params(plans["gpu01"], "nvidia-driver/debian non-free")["suite"] == "bookworm");
  CHECK(Has(plans["gpu01"], "nvidia-driver/driver (debian)"));
  CHECK(plans["head01"].files.at("/etc/slurm/slurm.conf").find("\nCryptoType=crypto/munge\nSlurmUser=slurm\n") !=
        std::string::npos);
  CHECK(Params(plans["gpu02"], "nvidia-driver/nvidia repository")["uri"] ==
        "https://developer.download.nvidia.com/compute/cuda/repos/debian12/x86_64/");
  CHECK_FALSE(Params(plans["gpu01"], "nvidia-driver/debian non-free").contains("format"));  // one-line .list
}

TEST_CASE("golden plan: Debian 13 gets trixie's library names and NVIDIA's debian13 repository") {
  auto plans = GoldenPlan("os-release--debian-13.8--base-files.txt", "debian-13.txt");
  for (const char* host : {"head01", "gpu01"}) {
    CAPTURE(host);
    CHECK(Params(plans[host], "mpi/packages")["name"] == nlohmann::json({"openmpi-bin", "libopenmpi40", "libpmix2t64"}));
    CHECK(Params(plans[host], "slurm-common/packages")["name"] ==
          nlohmann::json({"slurm-client", "libpmix2t64", "libpmix-dev"}));
  }
  // Slurm 24.11's dialect (trixie's packaged units: slurmctld and slurmdbd run as slurm).
  const std::string& conf = plans["head01"].files.at("/etc/slurm/slurm.conf");
  CHECK(conf.find("\nCredType=cred/munge\n") != std::string::npos);
  CHECK(conf.find("CryptoType") == std::string::npos);
  CHECK(conf.find("\nSlurmctldPidFile=/run/slurmctld/slurmctld.pid\n") != std::string::npos);
  CHECK(conf.find("\nSlurmdPidFile=/run/slurm/slurmd.pid\n") != std::string::npos);
  CHECK(plans["gpu01"].files.at("/etc/slurm/slurm.conf") == conf);
  CHECK(Params(plans["gpu01"], "nvidia-driver/debian non-free")["suite"] == "trixie");
  CHECK(Params(plans["gpu01"], "nvidia-driver/debian non-free security")["suite"] == "trixie-security");
  CHECK(Params(plans["gpu02"], "nvidia-driver/nvidia repository")["uri"] ==
        "https://developer.download.nvidia.com/compute/cuda/repos/debian13/x86_64/");
  // apt 3's own source format (platforms.yaml apt_sources: deb822), on every repository step.
  CHECK(Params(plans["gpu01"], "nvidia-driver/debian non-free")["format"] == "deb822");
  CHECK(Params(plans["gpu02"], "nvidia-driver/nvidia repository")["format"] == "deb822");
}

TEST_CASE("golden plan: Ubuntu 22.04 takes the driver from Ubuntu's archive, not Debian's components") {
  auto plans = GoldenPlan("os-release--ubuntu-22.04.2--captured.txt", "ubuntu-22.04.txt");
  const Planned& gpu = plans["gpu01"];
  CHECK_FALSE(Has(gpu, "nvidia-driver/debian non-free"));
  CHECK_FALSE(Has(gpu, "nvidia-driver/driver (debian)"));
  CHECK(Params(gpu, "nvidia-driver/driver (ubuntu)")["name"] == "nvidia-driver-550-server");
  CHECK(gpu.files.at("/usr/local/lib/clusterctl/nvidia-driver-state").find("\ndistro_archive=ubuntu\n") !=
        std::string::npos);
  CHECK(Params(plans["gpu02"], "nvidia-driver/nvidia repository")["uri"] ==
        "https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2204/x86_64/");
  CHECK(Params(plans["head01"], "mpi/packages")["name"] == nlohmann::json({"openmpi-bin", "libopenmpi3", "libpmix2"}));
}

TEST_CASE("golden plan: Ubuntu 24.04 gets noble's 64-bit time_t library names") {
  auto plans = GoldenPlan("os-release--ubuntu-24.04.2--captured.txt", "ubuntu-24.04.txt");
  CHECK(Params(plans["head01"], "mpi/packages")["name"] ==
        nlohmann::json({"openmpi-bin", "libopenmpi3t64", "libpmix2t64"}));
  CHECK(Params(plans["gpu01"], "nvidia-driver/driver (ubuntu)")["name"] == "nvidia-driver-550-server");
  CHECK(Params(plans["gpu02"], "nvidia-driver/nvidia repository")["uri"] ==
        "https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2404/x86_64/");
}

TEST_CASE("golden plan: arm64 Debian 12 GPU nodes beside an x86_64 head get NVIDIA's sbsa repository and aarch64 paths") {
  auto plans = GoldenPlanOf({{"head01", NodeFacts("os-release--debian12.txt", "head01", 0)},
                             {"gpu01", ArmNodeFacts("gpu01")},
                             {"gpu02", ArmNodeFacts("gpu02")}},
                            "os-release--debian12.txt, gpu01 and gpu02 aarch64 (Grace, GB200 tray, Debian 12 arm64 kernel), "
                            "the open kernel modules",
                            "debian-12-aarch64.txt", GraceStack());
  // The driver's CUDA repository: sbsa/ on the Arm nodes (x86_64/ on the x86 head, had it a GPU).
  CHECK(Params(plans["gpu02"], "nvidia-driver/nvidia repository")["uri"] ==
        "https://developer.download.nvidia.com/compute/cuda/repos/debian12/sbsa/");
  // Package names are the same as on x86_64 (Debian names a package the same on every architecture).
  CHECK(Params(plans["gpu01"], "nvidia-driver/driver (debian, open modules)")["name"] ==
        nlohmann::json({"nvidia-open-kernel-dkms", "nvidia-smi", "libcuda1"}));
  CHECK(Params(plans["gpu02"], "nvidia-driver/driver (nvidia, open modules)")["name"] == "nvidia-open-550");
  CHECK_FALSE(Has(plans["gpu01"], "nvidia-driver/open modules on Grace"));
  CHECK(Params(plans["gpu01"], "mpi/packages")["name"] == Params(plans["head01"], "mpi/packages")["name"]);
  // The kernel headers of the arm64 kernel.
  CHECK(Params(plans["gpu01"], "nvidia-driver/kernel headers[0]")["name"] == "linux-headers-" + ArmKernelRelease());
  // Open MPI's home for Lmod: the node's multiarch directory.
  CHECK(plans["gpu01"].files.at("/usr/local/sbin/clusterctl-modules").find("/usr/lib/aarch64-linux-gnu/openmpi") !=
        std::string::npos);
  CHECK(plans["head01"].files.at("/usr/local/sbin/clusterctl-modules").find("/usr/lib/x86_64-linux-gnu/openmpi") !=
        std::string::npos);
  CHECK(plans["gpu01"].files.at("/usr/local/sbin/clusterctl-modules").find("x86_64") == std::string::npos);
}

// Every Debian package the arm64 nodes' plan installs is in the release's
// arm64 archive under that name (captures of `apt-cache madison` there,
// SOURCES.md); the driver's and DCGM's from NVIDIA's repositories are not
// Debian's and are left out.
TEST_CASE("golden plan: every Debian package an arm64 Debian 12 or 13 node gets is in that release's arm64 archive") {
  for (const auto& [os_release, suite] : {std::pair{"os-release--debian12.txt", "bookworm"},
                                          std::pair{"os-release--debian-13.8--base-files.txt", "trixie"}}) {
    CAPTURE(suite);
    testing::RoleHarness harness(GraceStack(), testing::BuiltInRolesButHealth());
    harness.UseSecrets();
    const std::map<std::string, nlohmann::json> facts = {{"head01", NodeFacts(os_release, "head01", 0)},
                                                         {"gpu01", ArmNodeFacts("gpu01", os_release, suite)},
                                                         {"gpu02", ArmNodeFacts("gpu02", os_release, suite)}};
    // madison's lines: "   chrony | 4.3-2+deb12u3 | http://deb.debian.org/debian bookworm/main arm64 Packages".
    std::set<std::string> archive;
    std::istringstream lines(
        testing::CapturedFixture(std::string("apt-cache-madison--role-packages--") + suite + "-arm64--1.txt"));
    for (std::string line; std::getline(lines, line);) {
      if (line.find(" arm64 Packages") == std::string::npos) continue;
      const std::string name = line.substr(0, line.find(" | "));
      archive.insert(name.substr(name.find_first_not_of(' ')));
    }
    REQUIRE(archive.size() == 57);
    int checked = 0;
    for (const char* host : {"gpu01", "gpu02"}) {
      const Planned plan = harness.Plan(host, facts);
      for (const std::string& step : plan.steps) {
        if (plan.kinds.at(step) != "package") continue;
        const nlohmann::json names = plan.params.at(step).at("name");
        for (const nlohmann::json& name : names.is_array() ? names : nlohmann::json::array({names})) {
          const std::string package = name.get<std::string>();
          if (package.rfind("cuda-drivers-", 0) == 0 || package.rfind("nvidia-open-", 0) == 0 ||
              package.rfind("datacenter-gpu-manager", 0) == 0) {
            continue;  // NVIDIA's repository's, not Debian's
          }
          CAPTURE(host);
          CAPTURE(package);
          CHECK(archive.count(package) == 1);
          ++checked;
        }
      }
    }
    CHECK(checked > 20);
  }
}
// NVIDIA supports only the open kernel modules on Grace: a Grace node whose
// inventory keeps the proprietary default is refused before anything
// changes (the assert runs first of the driver's steps that change a node),
// an x86 GPU node is not, nor a Grace node with the open modules.
TEST_CASE("plan: a Grace GPU node with the proprietary kernel modules is refused by an assert naming the fix") {
  const std::string step = "nvidia-driver/open modules on Grace";
  const std::map<std::string, nlohmann::json> arm = {{"head01", NodeFacts("os-release--debian12.txt", "head01", 0)},
                                                     {"gpu01", ArmNodeFacts("gpu01")}};
  testing::RoleHarness proprietary(kReadmeStack, testing::BuiltInRolesButHealth());
  proprietary.UseSecrets();
  const Planned refused = proprietary.Plan("gpu01", arm);
  REQUIRE(Has(refused, step));
  CHECK(refused.kinds.at(step) == "assert");
  const std::vector<std::string>& steps = refused.steps;
  CHECK(std::find(steps.begin(), steps.end(), step) < std::find(steps.begin(), steps.end(), "nvidia-driver/drain"));
  CHECK_FALSE(Has(proprietary.Plan("gpu01", NodeFacts("os-release--debian12.txt", "gpu01", 2)), step));
  testing::RoleHarness open(GraceStack(), testing::BuiltInRolesButHealth());
  open.UseSecrets();
  CHECK_FALSE(Has(open.Plan("gpu01", arm), step));
}
}  // namespace
}  // namespace clusterctl
