#include "agent/facts/arm_cpu.h"

#include <cstdlib>

namespace clusterctl::facts {
namespace {

struct Implementer {
  unsigned id;
  const char* name;
};

struct Core {
  unsigned implementer;
  unsigned part;
  const char* name;
};

constexpr Implementer kImplementers[] = {
    {0x41, "ARM"}, {0x42, "Broadcom"}, {0x43, "Cavium"}, {0x46, "Fujitsu"},
    {0x48, "HiSilicon"}, {0x4e, "NVIDIA"}, {0x51, "Qualcomm"}, {0xc0, "Ampere"},
};

constexpr Core kCores[] = {
    // Arm's server cores (Neoverse) and the Cortex cores of common boards.
    {0x41, 0xd03, "Cortex-A53"}, {0x41, 0xd05, "Cortex-A55"}, {0x41, 0xd07, "Cortex-A57"},
    {0x41, 0xd08, "Cortex-A72"}, {0x41, 0xd0b, "Cortex-A76"}, {0x41, 0xd0c, "Neoverse-N1"},
    {0x41, 0xd40, "Neoverse-V1"}, {0x41, 0xd49, "Neoverse-N2"}, {0x41, 0xd4f, "Neoverse-V2"},
    {0x41, 0xd84, "Neoverse-V3"}, {0x41, 0xd8e, "Neoverse-N3"},
    {0x42, 0x516, "ThunderX2"}, {0x43, 0x0af, "ThunderX2"},
    {0x46, 0x001, "A64FX"},
    {0x48, 0xd01, "TaiShan-v110"},
    {0x4e, 0x000, "Denver"}, {0x4e, 0x003, "Denver 2"}, {0x4e, 0x004, "Carmel"},
    {0xc0, 0xac3, "Ampere-1"}, {0xc0, 0xac4, "Ampere-1a"},
};

// "0x41" -> 0x41; nullopt-like -1 for a value that is not hex.
long ParseHex(std::string_view text) {
  const std::string value(text);
  char* end = nullptr;
  const long parsed = std::strtol(value.c_str(), &end, 16);
  return end == value.c_str() || *end != '\0' || parsed < 0 ? -1 : parsed;
}

}  // namespace

std::string ArmCpuName(std::string_view implementer, std::string_view part) {
  if (implementer.empty() || part.empty()) return "";
  const long implementer_id = ParseHex(implementer);
  const long part_id = ParseHex(part);
  for (const Core& core : kCores) {
    if (static_cast<long>(core.implementer) == implementer_id && static_cast<long>(core.part) == part_id) return core.name;
  }
  for (const Implementer& known : kImplementers) {
    if (static_cast<long>(known.id) == implementer_id) return std::string(known.name) + " part " + std::string(part);
  }
  return "implementer " + std::string(implementer) + " part " + std::string(part);
}

}  // namespace clusterctl::facts
