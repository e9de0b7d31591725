// Parsers for nvidia-smi's outputs: `-q` (text), `-q -x` (XML), `--query-gpu
// ... --format=csv`, the default table and `-L`. Pure functions; each returns
// an error (never an empty report) for text it does not understand, so a
// check fed something unexpected fails with that text as evidence.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace clusterctl {

// One GPU's health as nvidia-smi reports it. nullopt: not reported by this
// format or "N/A" (ECC off, a counter the generation does not have).
struct GpuStatus {
  int index = -1;
  std::string bus_id;  // "00000000:DD:00.0"
  std::string name;
  std::optional<bool> persistence;
  std::optional<long long> volatile_uncorrectable;   // ECC errors since the driver loaded
  std::optional<long long> aggregate_uncorrectable;  // ECC errors over the GPU's lifetime
  std::optional<long long> retired_pages;            // single + double bit (page retirement, up to Volta)
  std::optional<bool> retirement_pending;            // a page waits for retirement (needs a reset)
  std::optional<long long> remapped_uncorrectable;   // rows remapped after uncorrectable errors (Ampere+)
  std::optional<bool> remap_pending;                 // a remap waits for a GPU reset
  std::optional<bool> remap_failure;                 // the GPU ran out of spare rows
  std::vector<std::string> problems;                 // e.g. "ERR! in the fan/temperature line"
  std::vector<std::string> lines;                    // the source lines that describe this GPU's health
};

struct NvidiaSmiReport {
  std::string driver_version;
  int attached = -1;  // "Attached GPUs" (-q, -q -x); -1 when the format has no such line.
                      // May exceed gpus.size() in an edited capture; GpuCount() prefers it.
  int GpuCount() const { return attached >= 0 ? attached : static_cast<int>(gpus.size()); }
  std::vector<GpuStatus> gpus;
};

Result<NvidiaSmiReport> ParseNvidiaSmiQuery(std::string_view text);  // nvidia-smi -q
Result<NvidiaSmiReport> ParseNvidiaSmiXml(std::string_view text);    // nvidia-smi -q -x
Result<NvidiaSmiReport> ParseNvidiaSmiCsv(std::string_view text);    // --query-gpu=... --format=csv
Result<NvidiaSmiReport> ParseNvidiaSmiTable(std::string_view text);  // nvidia-smi

// nvidia-smi -L: "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-...)" lines (MIG
// device lines below a GPU are not GPUs). Returns the GPU lines.
Result<std::vector<std::string>> ParseNvidiaSmiList(std::string_view text);

}  // namespace clusterctl
