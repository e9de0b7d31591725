// The agent's parsers of node files and tool output (facts). The first byte
// picks the parser; the rest is its input.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "agent/facts/pci.h"
#include "agent/facts/text_parsers.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace clusterctl::facts;
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 10) {
    case 0: (void)ParseOsRelease(text); break;
    case 1: (void)ParseCpuinfo(text); break;
    case 2: (void)ParseMeminfo(text); break;
    case 3: (void)ParseProcModules(text); break;
    case 4: (void)ParseNvidiaDriverVersion(text); break;
    case 5: (void)ParseDpkgStatus(text, {"slurm*", "nvidia-*"}); break;
    case 6: (void)ParseRpmList(text, {"slurm*"}); break;
    case 7: (void)ParsePartitions(text); break;
    case 8: (void)ParseUptime(text); break;
    default: (void)ClassifyPci(ParseLspci(text)); break;
  }
  return 0;
}
