// validate's parsers of tool output (nvidia-smi, InfiniBand tools,
// nccl-tests, the MPI test program, Slurm, chrony, the kernel log, nvlink status, DCGM) and the
// evidence picker. The first byte picks the parser; the rest is its input.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "controller/validate/dcgm_diag.h"
#include "controller/validate/infiniband.h"
#include "controller/validate/mpi_ring.h"
#include "controller/validate/nccl_tests.h"
#include "controller/validate/nvidia_smi.h"
#include "controller/validate/nvrm_log.h"
#include "controller/validate/slurm_output.h"
#include "controller/validate/system_tools.h"
#include "controller/validate/tool_output.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace clusterctl;
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 21) {
    case 0: (void)ParseNvidiaSmiQuery(text); break;
    case 1: (void)ParseNvidiaSmiXml(text); break;
    case 2: (void)ParseNvidiaSmiCsv(text); break;
    case 3: (void)ParseNvidiaSmiTable(text); break;
    case 4: (void)ParseNvidiaSmiList(text); break;
    case 5: (void)ParseIbstat(text); break;
    case 6: (void)ParseIbvDevinfo(text); break;
    case 7: (void)ParseIbWriteBw(text); break;
    case 8: {
      auto nccl = ParseNcclTests(text);
      if (nccl.ok()) {
        for (const NcclRow& row : nccl->rows) (void)RowHasWrongValues(row);
        (void)SmallMessageBand(*nccl);
      }
      break;
    }
    case 9: (void)ParseScontrolShowNode(text); break;
    case 10: (void)ParseSinfoNodes(text); break;
    case 11: (void)ParseSlurmNodesJson(text); break;
    case 12: (void)ParseScontrolPing(text); break;
    case 13: (void)ParseChronyTracking(text); break;
    case 14: (void)ReadNvrmLog(text); break;
    case 15: (void)GresGpuCount(text); break;
    case 16: (void)ParseNvlinkStatus(text); break;
    case 17: (void)ParseDcgmDiag(text); break;
    case 18: (void)ParseMpiRing(text); break;
    case 19: (void)ParseNvlinkErrors(text); break;
    default: {
      std::string output(text);
      (void)CauseEvidence(output);
      (void)FirstCause(output);
      break;
    }
  }
  return 0;
}
