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

  // ECC mode ("ECC Mode / Current"): nullopt when absent or not a setting
  // ("N/A": the GPU has no ECC). `ecc_mode` is the value as printed.
  std::optional<bool> ecc_enabled;
  std::string ecc_mode;
  // ECC readings that should hold a number and do not: "Volatile: no
  // uncorrectable counter reads a number (N/A)", "Aggregate: DRAM
  // Uncorrectable : [Unknown Error]". A GPU with any is not judged healthy.
  std::vector<std::string> ecc_unreadable;

  // PCIe link (-q "GPU Link Info"): nullopt when absent or unreadable.
  std::optional<int> pcie_gen_max, pcie_gen_current;
  std::optional<int> pcie_width_max, pcie_width_current;
  std::string performance_state;  // "P0" (full clocks) .. "P12" (idle); "" when absent
  std::vector<std::string> pcie_lines;

  // Clock event (throttle) reasons as printed, in order: name (lower case,
  // e.g. "hw slowdown") and Active (true) / Not Active (false) / unreadable.
  struct ClockReason {
    std::string name;
    std::optional<bool> active;
    std::string line;
  };
  std::vector<ClockReason> clock_reasons;
  bool has_clock_reasons = false;  // the section was printed

  // NVSwitch fabric (driver 530 and later): "Completed"/"Success"; "" absent, "N/A" not an NVSwitch system.
  std::string fabric_state, fabric_status;
  std::string fabric_health;  // "Health / Summary" (multi-node NVLink, driver 550+): "Healthy", "Unhealthy"; "" absent
  std::vector<std::string> fabric_lines;
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

// nvidia-smi nvlink -s: each GPU's NVLink links and their speed.
struct NvlinkLink {
  int link = -1;
  std::optional<double> gbps;  // nullopt: "<inactive>" or unreadable
  bool inactive = false;
  std::string line;
};
struct NvlinkGpu {
  int index = -1;
  std::string name;
  std::vector<NvlinkLink> links;
  std::string line;
};
// GPUs without NVLink are listed with no links. An error for any other text.
Result<std::vector<NvlinkGpu>> ParseNvlinkStatus(std::string_view text);

// nvidia-smi nvlink -e: each GPU's error counters, one line per link and
// counter ("Link 0: Replay Errors: 0", "Link 0: Recovery Errors: 0",
// "Link 0: CRC Errors: 0"; drivers differ in which they print, so every
// counter is kept by its name). A counter printed "N/A" has no value.
struct NvlinkErrorCounter {
  int link = -1;
  std::string name;                // "CRC Errors"
  std::optional<long long> value;  // nullopt: N/A
  std::string line;                // "GPU 0: NVIDIA A100-SXM4-40GB: Link 0: CRC Errors: 0"
};
struct NvlinkErrorGpu {
  int index = -1;
  std::string name;
  std::vector<NvlinkErrorCounter> counters;
  std::string line;
};
// GPUs without NVLink are listed with no counters. An error for any other text.
Result<std::vector<NvlinkErrorGpu>> ParseNvlinkErrors(std::string_view text);

}  // namespace clusterctl
