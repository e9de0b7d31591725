#include "agent/facts/kernels.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "controller/state/test_util.h"

namespace clusterctl::facts {
namespace {

void Touch(const std::filesystem::path& path) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path) << "x\n";
}

}  // namespace

TEST_CASE("kernel releases sort by version: 6.1.0-9 before 6.1.0-26, 6.1.0-26 before 6.12.0") {
  CHECK(KernelReleaseLess("6.1.0-9-amd64", "6.1.0-26-amd64"));
  CHECK_FALSE(KernelReleaseLess("6.1.0-26-amd64", "6.1.0-9-amd64"));
  CHECK(KernelReleaseLess("6.1.0-26-amd64", "6.12.0-1-amd64"));
  CHECK(KernelReleaseLess("5.15.0-101-generic", "6.8.0-31-generic"));
  CHECK_FALSE(KernelReleaseLess("6.1.0-26-amd64", "6.1.0-26-amd64"));
}

TEST_CASE("kernels: installed images, headers per kernel, and DKMS builds per kernel (a missing one shows)") {
  testing::TempDir dir;
  const std::string root = dir.path();
  for (const char* release : {"6.1.0-26-amd64", "6.1.0-9-amd64", "6.1.0-28-amd64"}) {
    Touch(root + "/boot/vmlinuz-" + release);
  }
  Touch(root + "/boot/config-6.1.0-28-amd64");
  Touch(root + "/lib/modules/6.1.0-26-amd64/build/Makefile");  // headers for 26 only
  std::filesystem::create_directories(root + "/lib/modules/6.1.0-28-amd64");
  const std::string dkms = root + "/var/lib/dkms/nvidia-current/535.216.01";
  Touch(dkms + "/6.1.0-26-amd64/x86_64/module/nvidia-current.ko.xz");
  std::filesystem::create_directories(dkms + "/6.1.0-28-amd64/x86_64/log");  // a build that failed
  std::filesystem::create_directories(dkms + "/source");
  std::filesystem::create_directory_symlink("535.216.01/6.1.0-26-amd64",
                                            root + "/var/lib/dkms/nvidia-current/kernel-6.1.0-26-amd64-x86_64");

  nlohmann::json k = ReadKernels(root);
  CHECK(k["installed"] == nlohmann::json({"6.1.0-9-amd64", "6.1.0-26-amd64", "6.1.0-28-amd64"}));
  CHECK(k["newest"] == "6.1.0-28-amd64");
  CHECK(k["headers"] == nlohmann::json({"6.1.0-26-amd64"}));
  REQUIRE(k["dkms"].size() == 2);
  CHECK(k["dkms"][0] == nlohmann::json({{"module", "nvidia-current"}, {"version", "535.216.01"},
                                        {"kernel", "6.1.0-26-amd64"}, {"arch", "x86_64"}, {"built", true}}));
  CHECK(k["dkms"][1]["kernel"] == "6.1.0-28-amd64");
  CHECK(k["dkms"][1]["built"] == false);

  nlohmann::json none = ReadKernels(root + "/nothing");
  CHECK(none["installed"].empty());
  CHECK(none["newest"].is_null());
  CHECK(none["dkms"].empty());
}

TEST_CASE("nfs kernel support: registered filesystems or loadable modules; a kernel without either has neither") {
  const std::string filesystems = "nodev\tsysfs\nnodev\ttmpfs\n\text4\nnodev\tnfs4\n";
  const nlohmann::json registered = NfsKernelSupportOf(filesystems, "");
  CHECK(registered["kernel_client"] == true);
  CHECK(registered["kernel_server"] == false);
  const std::string dep = "kernel/fs/nfs/nfsv4.ko.xz: kernel/fs/nfs/nfs.ko.xz\nkernel/fs/nfsd/nfsd.ko.xz: kernel/fs/lockd/lockd.ko.xz\n";
  const nlohmann::json loadable = NfsKernelSupportOf("\text4\n", dep);
  CHECK(loadable["kernel_client"] == true);
  CHECK(loadable["kernel_server"] == true);
  CHECK(loadable["kernel_cachefiles"] == false);
  const nlohmann::json none = NfsKernelSupportOf("nodev\tsysfs\n\text4\n", "kernel/fs/nfs_common/grace.ko: \n");
  CHECK(none["kernel_client"] == false);
  CHECK(none["kernel_server"] == false);
  CHECK(none["kernel_cachefiles"] == false);
  CHECK(NfsKernelSupportOf("", "kernel/fs/cachefiles/cachefiles.ko.xz: kernel/fs/netfs/netfs.ko.xz\n")["kernel_cachefiles"] == true);
  CHECK(NfsKernelSupportOf("", "kernel/fs/cachefiles/cachefiles.ko_x: \n")["kernel_cachefiles"] == false);
  CHECK(NfsKernelSupportOf("", "", true)["kernel_cachefiles"] == true);
}

}  // namespace clusterctl::facts
