// Arm CPUs' names: an Arm node's /proc/cpuinfo has no "model name" line,
// only the MIDR fields "CPU implementer" and "CPU part" (hex). The table
// maps the server and common cores to the names lscpu prints (from the
// Arm and vendor technical reference manuals' MIDR values, as Linux's
// arch/arm64/include/asm/cputype.h lists them).
#pragma once

#include <string>
#include <string_view>

namespace clusterctl::facts {

// "Neoverse-V2" for implementer "0x41", part "0xd4f" (NVIDIA Grace); a core
// the table lacks is named by its implementer and part ("ARM part 0xd99",
// "implementer 0x99 part 0x001"); "" when either field is empty.
std::string ArmCpuName(std::string_view implementer, std::string_view part);

}  // namespace clusterctl::facts
