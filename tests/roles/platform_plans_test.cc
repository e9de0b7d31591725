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
// A golden plan proves what would run, not that it works: Ubuntu's package
// names come from platforms.yaml and were never checked against an Ubuntu
// archive (none is reachable here), nor deployed (docs/platforms.md).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

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

// The facts of a node of the release whose os-release `fixture` holds.
nlohmann::json NodeFacts(const std::string& fixture, const std::string& host, int gpus) {
  nlohmann::json node = testing::FakeFacts(host, gpus);
  node["os"] = facts::ParseOsRelease(testing::ReadFixture(testing::FixturesDir() + "/facts/" + fixture));
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
  // What the driver's state probe takes for the distribution's archive.
  auto probe = plan.files.find("/usr/local/lib/clusterctl/nvidia-driver-state");
  if (probe != plan.files.end()) {
    const size_t at = probe->second.find("\ndistro_archive=");
    if (at != std::string::npos) {
      out += host + " nvidia-driver-state:" + probe->second.substr(at + 1, probe->second.find('\n', at + 1) - at - 1) + "\n";
    }
  }
  return out;
}

// The whole cluster's plan on `fixture`'s release, compared with (or, with
// CLUSTERCTL_UPDATE_GOLDEN, written to) tests/fixtures/plans/`golden`.
std::map<std::string, Planned> GoldenPlan(const std::string& fixture, const std::string& golden) {
  testing::RoleHarness harness(kReadmeStack, testing::BuiltInRolesButHealth());
  harness.UseSecrets();
  const std::map<std::string, nlohmann::json> facts = {{"head01", NodeFacts(fixture, "head01", 0)},
                                                       {"gpu01", NodeFacts(fixture, "gpu01", 2)},
                                                       {"gpu02", NodeFacts(fixture, "gpu02", 2)}};
  std::map<std::string, Planned> plans;
  std::string text = "# Golden plan: the README's stack on " + fixture + " (tests/roles/platform_plans_test.cc)\n";
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

}  // namespace
}  // namespace clusterctl
