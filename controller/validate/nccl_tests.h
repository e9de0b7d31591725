// Parser for nccl-tests output (all_reduce_perf, all_gather_perf, ...), both
// the old layout (error column, no root) and the current one (#wrong, root).
// Comment lines may have lost their '#' (output pasted elsewhere).
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
};

// An error when there are no result rows or no "Out of bounds values" line
// (the run ended early: its result cannot be trusted).
Result<NcclResult> ParseNcclTests(std::string_view text);

// A row whose wrong-value column is not zero (a count above 0, or a
// relative error above 0 such as "1e+00"); "N/A" (validation off) is not.
bool RowHasWrongValues(const NcclRow& row);

}  // namespace clusterctl
