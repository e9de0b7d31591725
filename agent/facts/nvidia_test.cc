#include "agent/facts/nvidia.h"

#include <doctest/doctest.h>

#include <filesystem>

#include "agent/facts/gather.h"
#include "controller/state/test_util.h"
#include "tests/unit/fixture.h"
#include "tests/unit/test_paths.h"

namespace clusterctl::facts {
namespace {

// /proc/driver/nvidia/gpus/BUS/information as the 535/550 drivers write it;
// UUIDs, bus ids and firmware from ../shared/fixtures/nvidia-smi-q--8xH100-SXM5-80GB--1.txt.
std::string Information(const std::string& uuid, const std::string& bus, int minor) {
  return "Model: \t\t NVIDIA H100 80GB HBM3\n"
         "IRQ:   \t\t 389\n"
         "GPU UUID: \t " + uuid + "\n"
         "Video BIOS: \t 96.00.74.00.0d\n"
         "Bus Type: \t PCIe\n"
         "DMA Size: \t 52 bits\n"
         "DMA Mask: \t 0xfffffffffffff\n"
         "Bus Location: \t " + bus + "\n"
         "Device Minor: \t " + std::to_string(minor) + "\n"
         "GPU Firmware: \t 535.161.08\n"
         "GPU Excluded:\t No\n";
}

const char kUuid19[] = "GPU-ee7954ec-da95-fd7a-ddfd-c6b32cc2f8aa";
const char kUuid3b[] = "GPU-47daa2ad-a218-6286-252b-af45f0dfaf00";

nlohmann::json Gpu(const std::string& bus, const std::string& uuid, int minor) {
  return {{"bus_id", bus}, {"model", "NVIDIA H100 80GB HBM3"}, {"uuid", uuid}, {"minor", minor}, {"serial", nullptr}};
}

}  // namespace

TEST_CASE("nvidia gpu information: bus id, model, uuid and minor; missing or broken lines leave null") {
  CHECK(ParseNvidiaGpuInformation(Information(kUuid3b, "0000:3B:00.0", 1)) == Gpu("0000:3b:00.0", kUuid3b, 1));
  const nlohmann::json none = {{"bus_id", nullptr}, {"model", nullptr}, {"uuid", nullptr}, {"minor", nullptr}, {"serial", nullptr}};
  CHECK(ParseNvidiaGpuInformation("") == none);
  CHECK(ParseNvidiaGpuInformation("Device Minor: \t ?\nModel: \t \n") == none);
}

TEST_CASE("nvidia pci bus ids: nvidia-smi's 8-digit domain and upper case compare equal to sysfs's") {
  CHECK(NormalizePciBusId("00000000:3B:00.0") == "0000:3b:00.0");
  CHECK(NormalizePciBusId("0000:18:00.0") == "0000:18:00.0");
  CHECK(NormalizePciBusId(" 18:00.0\n") == "0000:18:00.0");
  CHECK(NormalizePciBusId("00010000:01:00.0") == "10000:01:00.0");
}

TEST_CASE("nvidia upstream driver version: no epoch, no packaging revision") {
  CHECK(UpstreamDriverVersion("550.144.03-1") == "550.144.03");
  CHECK(UpstreamDriverVersion("535.183.01-0ubuntu0.22.04.1") == "535.183.01");
  CHECK(UpstreamDriverVersion("535.247.01-1~deb12u1") == "535.247.01");
  CHECK(UpstreamDriverVersion("3:560.35.03-1.el9") == "560.35.03");
  CHECK(UpstreamDriverVersion("1:550.54.14") == "550.54.14");
}

TEST_CASE("nvidia installed driver: the kernel-module package, in the documented order") {
  const nlohmann::json debian = {{"nvidia-driver", "550.144.03-1"},
                                 {"nvidia-kernel-open-dkms", "550.144.03-1"},
                                 {"nvidia-kernel-dkms", "1:550.144.03-1"}};
  CHECK(InstalledDriverOf(debian) ==
        nlohmann::json({{"package", "nvidia-kernel-dkms"}, {"version", "1:550.144.03-1"}, {"upstream", "550.144.03"}}));
  const nlohmann::json ubuntu = {{"nvidia-kernel-source-535-server", "535.183.01-0ubuntu0.22.04.1"},
                                 {"nvidia-dkms-535-server", "535.183.01-0ubuntu0.22.04.1"}};
  CHECK(InstalledDriverOf(ubuntu)["package"] == "nvidia-dkms-535-server");
  CHECK(InstalledDriverOf(ubuntu)["upstream"] == "535.183.01");
  const nlohmann::json rocky = {{"kmod-nvidia-open-dkms", "560.35.03-1.el9"}, {"kmod-nvidia-latest-dkms", "560.35.03-1.el9"}};
  CHECK(InstalledDriverOf(rocky)["package"] == "kmod-nvidia-latest-dkms");
  CHECK(InstalledDriverOf({{"nvidia-kmod-common", "560.35.03-1.el9"}})["package"] == "nvidia-kmod-common");
  CHECK(InstalledDriverOf({{"nvidia-driver", "550.144.03-1"}, {"libnvidia-ml1", "550.144.03-1"}}).is_null());
  CHECK(InstalledDriverOf(nlohmann::json::object()).is_null());
  CHECK(InstalledDriverOf(nullptr).is_null());
}

TEST_CASE("nvidia fabric manager: nvidia-fabricmanager or nvidia-fabricmanager-NNN, not its -dev package") {
  CHECK(FabricmanagerOf({{"nvidia-fabricmanager-dev-535", "535.161.08-1"}, {"nvidia-fabricmanager-535", "535.161.08-0ubuntu1"}}) ==
        "535.161.08-0ubuntu1");
  CHECK(FabricmanagerOf({{"nvidia-fabricmanager", "550.144.03-1"}}) == "550.144.03-1");
  CHECK(FabricmanagerOf({{"nvidia-fabricmanager-dev-535", "535.161.08-1"}}).is_null());
  CHECK(FabricmanagerOf(nullptr).is_null());
}

TEST_CASE("nvidia gpu serials: matched by bus id from nvidia-smi; odd output leaves null and says why") {
  nlohmann::json gpus = {Gpu("0000:19:00.0", kUuid19, 0), Gpu("0000:3b:00.0", kUuid3b, 1), Gpu("0000:4c:00.0", "GPU-x", 2)};
  const std::string csv = "00000000:3B:00.0, 1650124008135, GPU-47daa2ad-a218-6286-252b-af45f0dfaf00\n"
                          "00000000:19:00.0, 1650124031592, GPU-ee7954ec-da95-fd7a-ddfd-c6b32cc2f8aa\n"
                          "00000000:4C:00.0, [N/A], GPU-x\n";
  CHECK(MergeGpuSerials(gpus, csv) == "");
  CHECK(gpus[0]["serial"] == "1650124031592");
  CHECK(gpus[1]["serial"] == "1650124008135");
  CHECK(gpus[2]["serial"].is_null());

  nlohmann::json failed = {Gpu("0000:19:00.0", kUuid19, 0)};
  const std::string smi_error = "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n";
  CHECK(MergeGpuSerials(failed, smi_error) == "unexpected nvidia-smi output: NVIDIA-SMI has failed because it couldn't communicate with t...");
  CHECK(failed[0]["serial"].is_null());
  CHECK(MergeGpuSerials(failed, "\n") == "nvidia-smi listed no GPUs");
}

TEST_CASE("the loaded module: /proc/driver/nvidia/version names it; else /sys/module's version and its taint flags") {
  const std::string open = "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  550.54.14  Release Build  "
                           "(dvs-builder@U16-I3-B03-4-3)  Thu Feb 22 01:25:25 UTC 2024\n";
  const std::string proprietary = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.183.01  Sun May 12 19:39:15 UTC 2024\n";
  auto of = [](std::string_view proc, std::string_view version, std::string_view taint) {
    const LoadedNvidiaModule m = LoadedNvidiaModuleOf(proc, version, taint);
    return nlohmann::json({m.version, m.kernel_modules});
  };
  CHECK(of(open, "550.54.14\n", "PO\n") == nlohmann::json({"550.54.14", "open"}));  // /proc wins
  CHECK(of(proprietary, "", "") == nlohmann::json({"535.183.01", "proprietary"}));
  // Without /proc/driver/nvidia (the testbed's simulated module): the kernel
  // taints a proprietary-licence module P ("POE" for NVIDIA's), an open one not.
  CHECK(of("", "550.144.03\n", "POE\n") == nlohmann::json({"550.144.03", "proprietary"}));
  CHECK(of("", "550.144.03\n", "OE\n") == nlohmann::json({"550.144.03", "open"}));
  CHECK(of("", "550.144.03\n", "\n") == nlohmann::json({"550.144.03", "open"}));
  CHECK(of("", "550.144.03\n", "") == nlohmann::json({"550.144.03", nullptr}));  // taint unreadable: unknown
  CHECK(of("", "", "PO\n") == nlohmann::json({"", nullptr}));
  CHECK(of("garbage\n", "", "") == nlohmann::json({"", nullptr}));
}

TEST_CASE("GatherFacts nvidia: nouveau, the testbed's simulated module, installed packages and GPUs") {
  testing::TempDir dir;
  const std::string root = dir.path();
  std::filesystem::create_directories(root + "/sys/module/nouveau");
  testing::WriteFileLine(root + "/sys/module/nvidia/version", "550.144.03");
  testing::WriteFileLine(root + "/sys/module/nvidia/taint", "PO");
  testing::WriteFileLine(root + "/sys/module/nvidia/SIMULATED", "");
  testing::WriteFileLine(root + "/var/lib/dpkg/status",
                         "Package: nvidia-kernel-dkms\nStatus: install ok installed\nVersion: 550.144.03-1\n\n"
                         "Package: nvidia-fabricmanager-550\nStatus: install ok installed\nVersion: 550.144.03-1\n\n"
                         "Package: nvidia-kernel-open-dkms\nStatus: deinstall ok config-files\nVersion: 550.90.07-1\n");
  testing::WriteFileLine(root + "/proc/driver/nvidia/gpus/0000:3b:00.0/information", Information(kUuid3b, "0000:3b:00.0", 1));
  testing::WriteFileLine(root + "/proc/driver/nvidia/gpus/0000:19:00.0/information", Information(kUuid19, "0000:19:00.0", 0));

  const nlohmann::json facts = GatherFacts({root, {}, false});
  // Simulated: the facts a real driver gives, marked (facts.nvidia.simulated).
  CHECK(facts["nvidia_driver"] == "550.144.03");
  CHECK(facts["gpudirect"]["kernel_modules"] == "proprietary");
  CHECK(facts["nvidia"] ==
        nlohmann::json({{"loaded_version", "550.144.03"},
                        {"kernel_modules", "proprietary"},
                        {"nouveau_loaded", true},
                        {"installed_driver", {{"package", "nvidia-kernel-dkms"}, {"version", "550.144.03-1"}, {"upstream", "550.144.03"}}},
                        {"fabricmanager", "550.144.03-1"},
                        {"gpus", {Gpu("0000:19:00.0", kUuid19, 0), Gpu("0000:3b:00.0", kUuid3b, 1)}},
                        {"simulated", true},
                        {"nvml_library", nullptr}}));
  CHECK_FALSE(facts["errors"].contains("nvidia.gpus"));
}

TEST_CASE("GatherFacts nvidia: open kernel modules from /proc; no driver loaded means no GPUs listed") {
  testing::TempDir dir;
  const std::string root = dir.path();
  testing::WriteFileLine(root + "/proc/driver/nvidia/version",
                         testing::ReadFixture(testing::FixturesDir() + "/facts/nvidia-version--open-550.txt"));
  const nlohmann::json open = GatherFacts({root, {}, false})["nvidia"];
  CHECK(open["loaded_version"] == "550.54.15");
  CHECK(open["kernel_modules"] == "open");
  CHECK(open["simulated"] == false);

  testing::TempDir unloaded;  // GPU entries left behind, but no driver version: not loaded
  testing::WriteFileLine(unloaded.path() + "/proc/driver/nvidia/gpus/0000:19:00.0/information", Information(kUuid19, "0000:19:00.0", 0));
  const nlohmann::json none = GatherFacts({unloaded.path(), {}, false})["nvidia"];
  CHECK(none == nlohmann::json({{"loaded_version", nullptr},
                                {"kernel_modules", nullptr},
                                {"nouveau_loaded", false},
                                {"installed_driver", nullptr},
                                {"fabricmanager", nullptr},
                                {"gpus", nlohmann::json::array()},
                                {"simulated", false},
                                {"nvml_library", nullptr}}));
}

}  // namespace clusterctl::facts
