#include "controller/validate/reference_floors.h"

#include <regex>

#include "common/strings.h"

namespace clusterctl {

double DefaultIbWriteBwFloorMbps(double rate_gbps) { return rate_gbps * 1000.0 / 8.0 * 0.88; }

double DefaultNodeBusbwFloorGbps(const std::string& gpu_name) {
  // all_reduce_perf bus bandwidth within one node at 1 GiB, about 80% of
  // what healthy nodes of each model measure with NCCL's ring algorithm
  // (NVLS, where it applies, measures more). Sources per row in
  // docs/validation.md ("Bus-bandwidth floors").
  std::string name = AsciiLower(gpu_name);
  // PCIe cards first: some carry a data-centre model's name ("H100 NVL",
  // "A100-PCIE-40GB"); "H20 NVL16" is an NVLink board and is not one.
  static const std::regex kPcieCard(R"(pcie|\bnvl\b|fhhl|\bactive\b)");
  bool pcie = std::regex_search(name, kPcieCard);
  if (pcie) return name.find("v100") != std::string::npos ? 6 : 8;
  // Most specific first: "gh200" contains "h200", "gb200" contains "b200", "h200" contains "h20".
  struct Model {
    std::regex pattern;
    double floor;
  };
  static const Model kModels[] = {{std::regex("gb200|gb300"), 520}, {std::regex("gh200"), 200},
                                  {std::regex("b300|b200|b100"), 550}, {std::regex("h200"), 300},
                                  {std::regex("h20(?!\\d)"), 300},    {std::regex("h800"), 130},
                                  {std::regex("h100"), 300},         {std::regex("a800"), 120},
                                  {std::regex("a100|pg509"), 180},   {std::regex("v100.*sxm"), 90}};
  for (const Model& m : kModels) {
    if (std::regex_search(name, m.pattern)) return m.floor;
  }
  return 8;  // PCIe-attached GPUs (L40S, L4, A10, A40, RTX ...) and unknown models: only a broken P2P path fails
}

std::optional<int> FixedNvlinksPerGpu(const std::string& gpu_name) {
  // SXM parts on an HGX/DGX baseboard have every NVLink wired: V100 SXM2 6
  // (NVLink 2), A100 SXM4 12 (NVLink 3), H100 SXM5 and H200 SXM 18 (NVLink
  // 4, 18 x 50 GB/s = 900 GB/s). nvidia-smi names the H100 SXM5 "NVIDIA H100
  // 80GB HBM3" and the H200 SXM "NVIDIA H200". PCIe and NVL cards ("H100
  // PCIe", "H100 NVL", "H200 NVL") use as many links as their bridges wire
  // (an H100 PCIe pair with three bridges: 12 of 18): no fixed count.
  std::string name = AsciiLower(gpu_name);
  auto has = [&](const char* part) { return name.find(part) != std::string::npos; };
  if (has("pcie") || has(" nvl")) return std::nullopt;
  if (has("v100-sxm2") || has("v100 sxm2")) return 6;
  if (has("a100-sxm4") || has("a100 sxm4")) return 12;
  if (has("h100 80gb hbm3") || has("h100-sxm5") || has("h100 sxm5")) return 18;
  if (name == "nvidia h200" || has("h200 sxm")) return 18;
  return std::nullopt;
}

double DefaultClusterBusbwFloorGbps(double node_ib_gbps) { return node_ib_gbps / 8.0 * 0.75; }

}  // namespace clusterctl
