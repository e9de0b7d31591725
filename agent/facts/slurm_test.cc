#include "agent/facts/slurm.h"

#include <doctest/doctest.h>

#include <filesystem>

#include "agent/facts/gather.h"
#include "controller/state/test_util.h"

namespace clusterctl::facts {
namespace {

TEST_CASE("slurm plugins: Debian 12's plugin directory has no gpu_nvml; a build with it does") {
  // Given Debian 12's slurm-wlm-basic-plugins (gres_gpu.so and gpu_generic.so, no gpu_nvml.so),
  testing::TempDir debian;
  const std::string plugins = "/usr/lib/x86_64-linux-gnu/slurm-wlm";
  testing::WriteFileLine(debian.path() + plugins + "/gres_gpu.so", "");
  testing::WriteFileLine(debian.path() + plugins + "/gpu_generic.so", "");
  CHECK(ReadSlurmPlugins(debian.path()) == nlohmann::json({{"plugin_dir", plugins}, {"gpu_nvml", false}}));
  // when the plugin is there (a site's own build, a newer Debian's package),
  testing::WriteFileLine(debian.path() + plugins + "/gpu_nvml.so", "");
  CHECK(ReadSlurmPlugins(debian.path())["gpu_nvml"] == true);

  testing::TempDir rpm;  // SchedMD's RPMs
  testing::WriteFileLine(rpm.path() + "/usr/lib64/slurm/gpu_nvml.so", "");
  CHECK(ReadSlurmPlugins(rpm.path()) == nlohmann::json({{"plugin_dir", "/usr/lib64/slurm"}, {"gpu_nvml", true}}));

  testing::TempDir none;  // before Slurm is installed
  std::filesystem::create_directories(none.path() + "/usr/lib/x86_64-linux-gnu");
  CHECK(ReadSlurmPlugins(none.path()) == nlohmann::json({{"plugin_dir", nullptr}, {"gpu_nvml", false}}));
}

TEST_CASE("nvml library: NVIDIA's packages, Debian's nvidia/current, RPM's lib64; null without it") {
  testing::TempDir dir;
  CHECK(FindNvmlLibrary(dir.path()).is_null());
  testing::WriteFileLine(dir.path() + "/usr/lib/x86_64-linux-gnu/nvidia/current/libnvidia-ml.so.1", "");
  CHECK(FindNvmlLibrary(dir.path()) == "/usr/lib/x86_64-linux-gnu/nvidia/current/libnvidia-ml.so.1");
  testing::WriteFileLine(dir.path() + "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1", "");
  CHECK(FindNvmlLibrary(dir.path()) == "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1");
  testing::TempDir rpm;
  testing::WriteFileLine(rpm.path() + "/usr/lib64/libnvidia-ml.so.1", "");
  CHECK(FindNvmlLibrary(rpm.path()) == "/usr/lib64/libnvidia-ml.so.1");
}

TEST_CASE("GatherFacts: slurm and nvidia.nvml_library are gathered") {
  testing::TempDir dir;
  testing::WriteFileLine(dir.path() + "/usr/lib/aarch64-linux-gnu/slurm-wlm/gpu_nvml.so", "");
  testing::WriteFileLine(dir.path() + "/usr/lib/aarch64-linux-gnu/libnvidia-ml.so.1", "");
  const nlohmann::json facts = GatherFacts({dir.path(), {}, false});
  CHECK(facts["slurm"] == nlohmann::json({{"plugin_dir", "/usr/lib/aarch64-linux-gnu/slurm-wlm"}, {"gpu_nvml", true}}));
  CHECK(facts["nvidia"]["nvml_library"] == "/usr/lib/aarch64-linux-gnu/libnvidia-ml.so.1");
}

}  // namespace
}  // namespace clusterctl::facts
