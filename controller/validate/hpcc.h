// HPC Challenge (`hpcc`, Debian's package of it) for node.hpcc: the input
// file it reads from its working directory (hpccinf.txt, HPL.dat's format
// and four PTRANS lines) and the summary it appends to hpccoutf.txt:
//   Begin of Summary section.
//   Success=1
//   HPL_Tflops=0.00539834
//   HPL_N=2560
//   StarSTREAM_Triad=76.5802
//   End of Summary section.
// Pure functions; hpcc appends every run to the same file, so the last
// summary is the run's.
#pragma once

#include <string>
#include <string_view>

#include "common/status.h"

namespace clusterctl {

struct HpccSummary {
  long long hpl_n = 0;         // HPL's problem size (HPL_N)
  double hpl_gflops = 0;       // HPL_Tflops x 1000
  double stream_triad_gbs = 0; // StarSTREAM_Triad: GB/s of each process
};

// hpccinf.txt for one process (P = Q = 1) solving HPL of order `n` in blocks of `nb`.
// REQUIRES: n >= nb > 0.
std::string HpccInput(long long n, int nb);

// HPL's order for a node with `memory_mib` of which HPL's matrix may take
// `percent`: the largest multiple of `nb` whose n x n doubles fit, at least `nb`.
long long HpccOrderFor(double memory_mib, double percent, int nb);

// The last summary in hpccoutf.txt. An error where there is none (hpcc did
// not finish: "hpccoutf.txt has no summary"), where it says Success=0 or
// HPL's last run failed its residual check, or where a reading is missing.
Result<HpccSummary> ParseHpccSummary(std::string_view text);

}  // namespace clusterctl
