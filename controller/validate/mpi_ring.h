// The output of clusterctl's MPI test program (templates/clusterctl-mpi-ring.c,
// built by the mpi role) and mpi.cluster's verdict on it. The program prints
//   ring: ok ranks=N nodes=HOST,HOST,...      (rank 0, when every rank was right)
//   ring: FAILED rank=R received=X expected=Y (each wrong rank)
//   pingpong: latency_us=L bandwidth_mbps=B between=HOST,HOST
// Every other line (Slurm's, Open MPI's warnings) is ignored; a line that
// starts like one of these but does not parse is a problem, not ignored.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "controller/validate/verdicts.h"
#include "controller/validate/tool_output.h"

namespace clusterctl {

// Where the mpi role builds the program on the submit host (roles/mpi.yaml).
inline constexpr const char* kMpiTestProgram = "/usr/local/lib/clusterctl/mpi-ring";

struct MpiRingReport {
  bool ring_ok = false;              // "ring: ok" seen and no "ring: FAILED"
  int ranks = 0;
  std::vector<std::string> nodes;    // one per rank, as MPI_Get_processor_name gave it
  std::vector<std::string> ring_failures;  // the FAILED lines, as printed
  std::optional<double> latency_us;  // one way, 8-byte messages
  std::optional<double> bandwidth_mbps;  // 4 MiB messages, MB/s (10^6 bytes)
  std::vector<std::string> between;  // the ping-pong's two nodes
};

// The report, or why the output cannot be read (a malformed ring or
// ping-pong line, or neither ring line at all).
Result<MpiRingReport> ParseMpiRing(std::string_view text);

// What mpi.cluster compares with: the latency ceiling and, when known, the
// bandwidth floor (from validate_mpi_bandwidth_min_mbps or the InfiniBand
// line rate; `bandwidth_floor_source` says which, or why there is none).
struct MpiLimits {
  double latency_max_us = 10;
  std::optional<double> bandwidth_min_mbps;
  std::string bandwidth_floor_source;
};

// mpi.cluster's verdict on one run across `nodes` (one task each): passes
// only when the program exited 0, the ring was right on as many ranks as
// nodes, ran on those nodes, and the ping-pong is within `limits`.
CheckResult EvaluateMpiRing(const std::string& subject, const std::vector<std::string>& nodes,
                            const ToolOutput& output, const MpiLimits& limits);

}  // namespace clusterctl
