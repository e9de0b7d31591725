// Parser for nccl-tests output (all_reduce_perf, all_gather_perf, ...), both
// the old layout (error column, no root) and the current one (#wrong, root).
// Comment lines may have lost their '#' (output pasted elsewhere); a
// launcher's per-rank prefix ("[1,0]<stdout>:", "0: ") is removed first.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace clusterctl {

struct NcclRow {
  long long bytes = 0;
  double time_us = 0;       // out-of-place
  double busbw_gbps = 0;    // out-of-place bus bandwidth, GB/s
  double busbw_in_place = 0;
  double time_in_place_us = 0;  // 0 when the layout has no in-place columns
  std::string wrong;        // "#wrong"/"error" column, out-of-place: "0", "N/A", "1e+00"
  bool wrong_is_count = false;  // "#wrong" (a count of wrong elements), not "error" (a relative error)
  std::string line;
};

struct NcclResult {
  std::vector<NcclRow> rows;
  std::optional<long long> out_of_bounds;  // "Out of bounds values : N OK|FAILED"
  bool out_of_bounds_ok = false;
  std::optional<double> average_busbw;     // "Avg bus bandwidth : X"
  int ranks = 0;                           // "Rank N ... device" lines
  std::vector<std::string> summary_lines;  // the Out of bounds / Avg lines as printed
  // Failure lines printed after the last result row (a crash or an NCCL/CUDA
  // failure after a complete table): the run failed even though it printed.
  std::vector<std::string> trailing_failures;
};

// Cross-node latency judged on a band of small messages, not on one row (a
// warm-up outlier in the first row must not decide it): each size's time is
// the better of its out-of-place and in-place runs (the same operation
// measured twice), and the verdict reads the median over 8 B to 4 KiB.
struct SmallMessageLatency {
  double median_us = 0;
  std::vector<double> times_us;  // per size, in row order
  long long smallest = 0, largest = 0;  // the band's sizes present
  std::vector<const NcclRow*> rows;
};
constexpr long long kSmallMessageMin = 8;
constexpr long long kSmallMessageMax = 4096;
// nullopt when the output has no row in the band.
std::optional<SmallMessageLatency> SmallMessageBand(const NcclResult& result);

// An error when there are no result rows or no "Out of bounds values" line
// (the run ended early: its result cannot be trusted).
Result<NcclResult> ParseNcclTests(std::string_view text);

// A row whose wrong-value column is not zero (a count above 0, or a
// relative error above 0 such as "1e+00"); "N/A" (validation off) is not.
bool RowHasWrongValues(const NcclRow& row);

}  // namespace clusterctl
