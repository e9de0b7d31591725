#include "controller/views/gpu_type.h"

#include <doctest/doctest.h>

#include <map>

#include "agent/facts/pci.h"
#include "common/strings.h"
#include "tests/unit/fixture.h"

namespace clusterctl {
namespace {

// The model names a captured nvidia-smi -q (text or XML) prints.
std::vector<std::string> ProductNames(const std::string& fixture) {
  std::vector<std::string> names;
  for (const std::string& line : Split(testing::CapturedFixture(fixture), '\n')) {
    const size_t colon = line.find(':');
    if (line.find("Product Name") != std::string::npos && colon != std::string::npos) {
      names.emplace_back(Trim(line.substr(colon + 1)));
    }
    const size_t tag = line.find("<product_name>");
    if (tag != std::string::npos) {
      const size_t start = tag + 14;
      names.push_back(line.substr(start, line.find('<', start) - start));
    }
  }
  return names;
}

// The name as Slurm's AutoDetect=nvml reports it: lower case, '_' for spaces.
std::string NvmlTypeName(std::string name) {
  for (char& c : name) c = c == ' ' ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return name;
}

TEST_CASE("gpu type: the model names nvidia-smi printed on real nodes") {
  const std::map<std::string, std::string> expected = {
      {"nvidia-smi-q--8xH100-SXM5-80GB--1.txt", "h100"},
      {"nvidia-smi-q--8xV100-SXM2-16GB--1.txt", "v100"},
      {"nvidia-smi-q--H200-141GB--1.txt", "h200"},
      {"nvidia-smi-q--GH200-480GB--ecc-dram-uncorrectable--1.txt", "gh200"},
      {"nvidia-smi-q--L40S--1.txt", "l40s"},
      {"nvidia-smi-q--L4--pcie-x8-of-x16--1.txt", "l4"},
      {"nvidia-smi-q--9xRTX-A6000--sw-power-cap--1.txt", "a6000"},
      {"nvidia-smi-q--RTX-5090--ecc-NA-swpowercap-pcie-x8--1.txt", "geforce_rtx_5090"},
      {"nvidia-smi-q--2xRTX-4060Ti--pcie-x4-of-x8--1.txt", "geforce_rtx_4060_ti"},
      {"nvidia-smi-q-x--A100-SXM4-80GB-MIG--1.xml", "a100"},
      {"nvidia-smi-q-x--A10G--1.xml", "a10g"},
  };
  for (const auto& [fixture, type] : expected) {
    const std::vector<std::string> names = ProductNames(fixture);
    REQUIRE_MESSAGE(!names.empty(), fixture);
    for (const std::string& name : names) {
      CHECK_MESSAGE(GpuTypeOf(name) == type, fixture << ": " << name);
      // AutoDetect=nvml accepts a configured type within the detected name.
      CHECK_MESSAGE(NvmlTypeName(name).find(type) != std::string::npos, name);
    }
  }
}

TEST_CASE("gpu type: the agent's PCI names give the type nvidia-smi's names give") {
  // Given the PCI table's name and nvidia-smi's for the same card,
  // then both are one type (the type must not change when the driver loads).
  const std::vector<std::pair<std::string, std::string>> same = {
      {"H100-SXM5-80GB", "NVIDIA H100 80GB HBM3"}, {"H100-PCIE-80GB", "NVIDIA H100 PCIe"},
      {"A100-SXM4-80GB", "NVIDIA A100-SXM4-80GB"}, {"A100-PCIE-40GB", "NVIDIA A100-PCIE-40GB"},
      {"H200-SXM5-141GB", "NVIDIA H200"},          {"V100-SXM2-16GB", "Tesla V100-SXM2-16GB"},
      {"L40S", "NVIDIA L40S"},                     {"RTX-A6000", "NVIDIA RTX A6000"},
      {"T4", "Tesla T4"},                          {"GH200", "NVIDIA GH200 480GB"}};
  for (const auto& [pci, smi] : same) CHECK_MESSAGE(GpuTypeOf(pci) == GpuTypeOf(smi), pci << " / " << smi);
  CHECK(GpuTypeOf("B200 (GB200)") == "b200");  // within NVML's "nvidia_gb200"
}

TEST_CASE("gpu type: names it cannot read give no type, and no name breaks a line") {
  CHECK(GpuTypeOf("") == "");
  CHECK(GpuTypeOf("NVIDIA 2b85") == "");  // the agent's name for a device its table lacks
  CHECK(GpuTypeOf("???") == "");
  CHECK(GpuTypeOf("NVIDIA") == "");
  CHECK(GpuTypeOf("NVIDIA RTX 6000 Ada Generation") == "rtx_6000_ada_generation");
  CHECK(GpuTypeOf("NVIDIA RTX PRO 6000 Blackwell Server Edition") == "rtx_pro_6000_blackwell_server");
  CHECK(GpuTypeOf("h100\nNodeName=evil Gres=gpu:99") == "h100");
  CHECK(GpuTypeOf("GPU #1 $(reboot)\n") == "gpu_1_reboot");
  CHECK(GpuTypeOf(std::string(100, 'x') + "1") == std::string(32, 'x'));
  for (const std::string& name : {std::string("\xff\xfe H\xc3\xa9 100 \"x\" #y =z"), std::string("a b\tc\rd")}) {
    const std::string type = GpuTypeOf(name);
    CHECK_MESSAGE((type.empty() || IsAlnumOr(type, "_")), type);
    CHECK(type == AsciiLower(type));
  }
}

nlohmann::json PciFacts(const std::vector<std::string>& models) {
  nlohmann::json gpus = nlohmann::json::array();
  for (const std::string& m : models) gpus.push_back({{"model", m}});
  return {{"pci", {{"gpus", gpus}, {"gpu_count", models.size()}}}};
}

TEST_CASE("node gpu type: from the PCI names a captured lspci gives") {
  auto facts = [](const std::string& fixture) {
    return nlohmann::json{{"pci", facts::ClassifyPci(facts::ParseLspci(testing::CapturedFixture(fixture)))}};
  };
  CHECK(NodeGpuType(facts("lspci-nn--Azure-ND96amsr-A100-v4--1.txt")) == "a100");
  CHECK(NodeGpuType(facts("lspci--GB200--1.txt")) == "b200");
}

TEST_CASE("node gpu type: one type per node, else untyped") {
  CHECK(NodeGpuType(PciFacts({"H100-SXM5-80GB", "H100-SXM5-80GB"})) == "h100");
  CHECK(NodeGpuType(PciFacts({"H100-SXM5-80GB", "L40S"})) == "");  // two models: one untyped pool
  CHECK(NodeGpuType(PciFacts({})) == "");
  CHECK(NodeGpuType(nlohmann::json::object()) == "");
  CHECK(NodeGpuType(nlohmann::json{{"pci", {{"gpus", "many"}}}}) == "");
  CHECK(NodeGpuType(nlohmann::json{{"pci", {{"gpus", {{{"model", 7}}}}}}}) == "");
  // A device the PCI table lacks: the loaded driver's names, when it names all of them.
  nlohmann::json unknown = PciFacts({"NVIDIA 2b85", "NVIDIA 2b85"});
  CHECK(NodeGpuType(unknown) == "");
  unknown["nvidia"] = {{"gpus", {{{"model", "NVIDIA B300"}}, {{"model", "NVIDIA B300"}}}}};
  CHECK(NodeGpuType(unknown) == "b300");
  unknown["nvidia"]["gpus"].erase(1);
  CHECK(NodeGpuType(unknown) == "");  // the driver sees fewer GPUs than the bus
}

}  // namespace
}  // namespace clusterctl
