#include "controller/validate/checks.h"

#include <algorithm>
#include <cmath>

#include "common/strings.h"
#include "controller/validate/nccl_tests.h"
#include "controller/validate/system_tools.h"

namespace clusterctl {
namespace {

constexpr CheckScope kNode = CheckScope::kNode;

std::string Plural(long long n, const char* word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

// A tool that did not run or failed: why, in one line, and its output.
CheckResult ToolFailed(const std::string& check, CheckScope scope, const std::string& subject, const char* tool,
                       const ToolOutput& output) {
  if (!output.started) return Fail(check, scope, subject, std::string(tool) + " is not installed", {});
  if (output.timed_out) return Fail(check, scope, subject, std::string(tool) + " did not finish in time", TailLines(output.Both()));
  return Fail(check, scope, subject, std::string(tool) + " failed (exit " + std::to_string(output.exit_code) + ")",
              TailLines(output.Both()));
}

}  // namespace

const std::vector<std::string>& AllCheckNames() {
  static const std::vector<std::string> names = {
      "reachable",     "clock.offset",    "munge.decode",   "slurm.controller", "slurm.node",
      "slurm.conf",    "slurm.gres",      "slurm.srun",     "slurm.gpu_job",    "gpu.driver",
      "gpu.count",     "gpu.persistence", "gpu.ecc",        "gpu.xid",          "ib.ports",
      "ib.peermem",    "ib.write_bw",     "nccl.node",      "nccl.cluster"};
  return names;
}

CheckResult EvaluateClock(const std::string& host, const ToolOutput& output, const Thresholds& t) {
  const std::string check = "clock.offset";
  std::string threshold = "<= " + FormatNumber(t.clock_offset_max_ms) + " ms";
  if (!output.started) return Fail(check, kNode, host, "chronyc is not installed: time synchronisation is not set up");
  auto tracking = ParseChronyTracking(output.out);
  if (!tracking.ok()) {
    std::string why = output.Both().find("Cannot talk to daemon") != std::string::npos
                          ? "chronyd is not running (chronyc cannot talk to it)"
                          : "chronyc tracking: " + tracking.status().message();
    return Fail(check, kNode, host, why, TailLines(output.Both()), "", threshold);
  }
  double offset_ms = std::fabs(tracking->offset_s) * 1000.0;
  std::string measured = FormatNumber(offset_ms) + " ms";
  if (offset_ms < 0.01) measured = FormatNumber(offset_ms * 1000.0) + " us";
  if (tracking->leap_status != "Normal") {
    return Fail(check, kNode, host, "clock not synchronised (Leap status: " + tracking->leap_status + ")",
                tracking->lines, measured, threshold);
  }
  if (offset_ms > t.clock_offset_max_ms) {
    return Fail(check, kNode, host, "clock offset " + measured + " above " + FormatNumber(t.clock_offset_max_ms) + " ms",
                tracking->lines, measured, threshold);
  }
  return Pass(check, kNode, host, measured, threshold, "synchronised to " + tracking->reference);
}

CheckResult EvaluateGpuDriver(const std::string& host, int pci_gpus, const std::vector<std::string>& modules,
                              const std::string& driver_version) {
  const std::string check = "gpu.driver";
  if (pci_gpus == 0) return Skip(check, kNode, host, "no NVIDIA GPUs on the PCI bus of " + host);
  bool loaded = std::find(modules.begin(), modules.end(), "nvidia") != modules.end();
  std::string found = Plural(pci_gpus, "NVIDIA GPU") + " on the PCI bus";
  if (!loaded || driver_version.empty()) {
    return Fail(check, kNode, host, "driver not loaded: " + found + ", but " +
                (loaded ? "no /proc/driver/nvidia/version" : "the nvidia kernel module is not loaded"),
                {loaded ? "/proc/driver/nvidia/version: missing" : "/proc/modules: no line for nvidia"}, "not loaded", "loaded");
  }
  return Pass(check, kNode, host, driver_version, "loaded", found);
}

std::vector<CheckResult> EvaluateGpuHealth(const std::string& host, const Result<NvidiaSmiReport>& report,
                                           const std::string& raw_output, int expected_gpus, const Thresholds& t) {
  std::vector<CheckResult> results;
  if (!report.ok()) {
    for (const char* check : {"gpu.count", "gpu.persistence", "gpu.ecc"}) {
      results.push_back(Fail(check, kNode, host, "nvidia-smi: " + report.status().message(), TailLines(raw_output)));
    }
    return results;
  }
  const std::vector<GpuStatus>& gpus = report->gpus;
  int count = report->GpuCount();
  std::string expected = "== " + std::to_string(expected_gpus) + (t.gpus_expected ? " (inventory)" : " (PCI)");
  if (count != expected_gpus) {
    std::vector<std::string> evidence;
    for (const GpuStatus& g : gpus) evidence.push_back("GPU " + g.bus_id + ": " + g.name);
    results.push_back(Fail("gpu.count", kNode, host,
                           "nvidia-smi sees " + Plural(count, "GPU") + ", expected " + std::to_string(expected_gpus),
                           evidence, std::to_string(count), expected));
  } else {
    results.push_back(Pass("gpu.count", kNode, host, std::to_string(count), expected,
                           count > 0 ? gpus.front().name : ""));
  }

  int described = static_cast<int>(gpus.size());
  std::vector<std::string> off;
  std::vector<std::string> off_lines;
  for (const GpuStatus& g : gpus) {
    if (g.persistence.value_or(false)) continue;
    off.push_back(g.bus_id);
    off_lines.push_back("GPU " + g.bus_id + ": Persistence Mode " +
                        (g.persistence ? "Disabled" : "not reported"));
  }
  if (!off.empty()) {
    results.push_back(Fail("gpu.persistence", kNode, host, "persistence mode off on " + Plural(static_cast<long long>(off.size()), "GPU"),
                           off_lines, std::to_string(described - static_cast<int>(off.size())) + "/" + std::to_string(described) + " on",
                           "all on"));
  } else {
    results.push_back(Pass("gpu.persistence", kNode, host, std::to_string(described) + "/" + std::to_string(described) + " on", "all on"));
  }

  std::vector<std::string> problems;
  std::vector<std::string> evidence;
  std::string ecc_threshold = "volatile uncorrectable == 0, aggregate <= " +
                              std::to_string(t.gpu_aggregate_uncorrectable_max) + ", no pending retirement/remap";
  for (const GpuStatus& g : gpus) {
    std::vector<std::string> why;
    if (g.volatile_uncorrectable.value_or(0) > 0) why.push_back(std::to_string(*g.volatile_uncorrectable) + " volatile uncorrectable ECC errors");
    if (g.aggregate_uncorrectable.value_or(0) > t.gpu_aggregate_uncorrectable_max) {
      why.push_back(std::to_string(*g.aggregate_uncorrectable) + " aggregate uncorrectable ECC errors");
    }
    if (g.retirement_pending.value_or(false)) why.push_back("a retired page is pending (reset the GPU)");
    if (g.remap_pending.value_or(false)) why.push_back("a row remap is pending (reset the GPU)");
    if (g.remap_failure.value_or(false)) why.push_back("row remapping failed (no spare rows left)");
    for (const std::string& p : g.problems) why.push_back(p);
    if (why.empty()) continue;
    problems.push_back("GPU " + g.bus_id + ": " + Join(why, ", "));
    for (const std::string& line : g.lines) evidence.push_back("GPU " + g.bus_id + ": " + std::string(Trim(line)));
  }
  if (!problems.empty()) {
    results.push_back(Fail("gpu.ecc", kNode, host, Join(problems, "; "), evidence,
                           Plural(static_cast<long long>(problems.size()), "GPU") + " with errors", ecc_threshold));
  } else {
    long long retired = 0;
    for (const GpuStatus& g : gpus) retired += g.retired_pages.value_or(0);
    results.push_back(Pass("gpu.ecc", kNode, host, "0 uncorrectable", ecc_threshold,
                           retired > 0 ? Plural(retired, "retired page") + " (already retired, not pending)" : ""));
  }
  return results;
}

CheckResult EvaluateXid(const std::string& host, const ToolOutput& log, const Thresholds& t) {
  const std::string check = "gpu.xid";
  // journalctl --grep exits 1 when nothing matched.
  bool nothing = log.exit_code == 1 && (Trim(log.out).empty() || Trim(log.out) == "-- No entries --");
  if (!log.started || (log.exit_code != 0 && !nothing)) return ToolFailed(check, kNode, host, "journalctl -k", log);
  std::vector<std::string> lines;
  for (const XidEvent& e : ParseXidLines(log.out)) {
    if (!t.gpu_xid_ignore.count(e.xid)) lines.push_back(e.line);
  }
  if (!lines.empty()) {
    return Fail(check, kNode, host, Plural(static_cast<long long>(lines.size()), "Xid error") + " in the kernel log since boot",
                TailLines(Join(lines, "\n")), std::to_string(lines.size()), "0");
  }
  return Pass(check, kNode, host, "0", "0", "no Xid errors since boot");
}

std::vector<IbPortStatus> ExpectedIbPorts(const std::vector<IbPortStatus>& ports, const Thresholds& t) {
  std::vector<IbPortStatus> expected;
  if (t.ib_ports.empty()) {
    for (const IbPortStatus& p : ports) {
      if (p.link_layer == "InfiniBand") expected.push_back(p);
    }
    return expected;
  }
  for (const std::string& name : t.ib_ports) {
    auto it = std::find_if(ports.begin(), ports.end(), [&](const IbPortStatus& p) {
      return p.device + "/" + std::to_string(p.port) == name;
    });
    IbPortStatus missing;
    missing.device = name.substr(0, name.find('/'));
    missing.port = std::atoi(name.substr(name.find('/') + 1).c_str());
    missing.line = name + ": not present";
    expected.push_back(it != ports.end() ? *it : missing);
  }
  return expected;
}

CheckResult EvaluateIbPorts(const std::string& host, const Result<std::vector<IbPortStatus>>& ports,
                            const std::string& raw_output, const std::string& source, const Thresholds& t) {
  const std::string check = "ib.ports";
  if (!ports.ok()) return Fail(check, kNode, host, source + ": " + ports.status().message(), TailLines(raw_output));
  std::vector<IbPortStatus> expected = ExpectedIbPorts(*ports, t);
  if (expected.empty()) return Skip(check, kNode, host, "no InfiniBand ports on " + host);
  double rate = t.ib_rate_gbps.value_or(0);
  if (!t.ib_rate_gbps) {
    for (const IbPortStatus& p : expected) rate = std::max(rate, p.rate_gbps);
  }
  std::string threshold = "Active, LinkUp" + (rate > 0 ? ", " + FormatNumber(rate) + " Gb/s" : std::string());
  std::vector<std::string> bad;
  std::vector<std::string> evidence;
  for (const IbPortStatus& p : expected) {
    std::string name = p.device + "/" + std::to_string(p.port);
    std::vector<std::string> why;
    if (p.state.empty()) why.push_back("not present");
    else if (p.state != "ACTIVE") why.push_back("state " + p.state);
    if (!p.state.empty() && !p.phys_state.empty() && p.phys_state != "LINKUP") why.push_back("physical state " + p.phys_state);
    if (p.state == "ACTIVE" && rate > 0 && p.rate_gbps > 0 && p.rate_gbps + 0.5 < rate) {
      why.push_back("rate " + FormatNumber(p.rate_gbps) + " Gb/s");
    }
    if (why.empty()) continue;
    bad.push_back(name + " " + Join(why, ", "));
    evidence.push_back(p.line);
  }
  size_t good = expected.size() - bad.size();
  std::string measured = std::to_string(good) + "/" + std::to_string(expected.size()) + " ports up";
  if (!bad.empty()) return Fail(check, kNode, host, Join(bad, "; "), evidence, measured, threshold);
  return Pass(check, kNode, host, measured, threshold, "from " + source);
}

CheckResult EvaluatePeerMemory(const std::string& host, const std::vector<std::string>& modules) {
  for (const char* name : {"nvidia_peermem", "nv_peer_mem"}) {
    if (std::find(modules.begin(), modules.end(), name) != modules.end()) {
      return Pass("ib.peermem", kNode, host, name, "nvidia_peermem or nv_peer_mem loaded");
    }
  }
  return Fail("ib.peermem", kNode, host, "GPUDirect RDMA peer memory module not loaded (nvidia_peermem / nv_peer_mem)",
              {"/proc/modules: no line for nvidia_peermem or nv_peer_mem"}, "not loaded", "loaded");
}

CheckResult EvaluateIbWriteBw(const std::string& pair, const ToolOutput& client, double line_rate_gbps,
                              const Thresholds& t) {
  const std::string check = "ib.write_bw";
  double floor = t.ib_write_bw_min_mbps.value_or(DefaultIbWriteBwFloorMbps(line_rate_gbps));
  std::string threshold = ">= " + FormatNumber(floor) + " MB/s at " + std::to_string(t.ib_write_bw_message_bytes) + " B";
  if (!client.started || client.timed_out) return ToolFailed(check, CheckScope::kPair, pair, "ib_write_bw", client);
  auto rows = ParseIbWriteBw(client.out);
  if (!rows.ok()) {
    return Fail(check, CheckScope::kPair, pair, "ib_write_bw: " + rows.status().message(), TailLines(client.Both()), "", threshold);
  }
  const IbBandwidthRow* row = nullptr;
  for (const IbBandwidthRow& r : *rows) {
    if (r.bytes == t.ib_write_bw_message_bytes) row = &r;
  }
  if (row == nullptr) row = &rows->back();
  std::string measured = FormatNumber(row->average_mbps) + " MB/s";
  if (row->bytes != t.ib_write_bw_message_bytes) measured += " at " + std::to_string(row->bytes) + " B";
  if (row->average_mbps < floor) {
    return Fail(check, CheckScope::kPair, pair, "bandwidth " + measured + " below the floor", TailLines(client.out, 4),
                measured, threshold);
  }
  return Pass(check, CheckScope::kPair, pair, measured, threshold);
}

CheckResult EvaluateNccl(const std::string& check, CheckScope scope, const std::string& subject, const ToolOutput& output,
                         double busbw_floor_gbps, bool cross_node, const Thresholds& t) {
  std::string threshold = "0 wrong, busbw >= " + FormatNumber(busbw_floor_gbps) + " GB/s" +
                          (cross_node ? ", small messages <= " + FormatNumber(t.nccl_small_message_max_us) + " us" : "");
  if (!output.started || output.timed_out) return ToolFailed(check, scope, subject, "all_reduce_perf", output);
  auto result = ParseNcclTests(output.out);
  if (!result.ok()) {
    return Fail(check, scope, subject, "all_reduce_perf: " + result.status().message(), TailLines(output.Both()), "", threshold);
  }
  std::vector<std::string> why;
  std::vector<std::string> evidence;
  if (!result->out_of_bounds_ok || result->out_of_bounds.value_or(0) > 0) {
    why.push_back(std::to_string(result->out_of_bounds.value_or(0)) + " out-of-bounds values");
  }
  bool counted_wrong = false;
  for (const NcclRow& row : result->rows) {
    if (!RowHasWrongValues(row)) continue;
    // "#wrong" counts wrong elements: any is a failure. The old "error"
    // column is a relative error (1e-06 is float rounding); its rows are
    // evidence when the out-of-bounds count failed.
    if (row.wrong_is_count && !counted_wrong) {
      why.push_back("wrong values in the results");
      counted_wrong = true;
    }
    if ((row.wrong_is_count || !why.empty()) && evidence.size() < 5) evidence.push_back(row.line);
  }
  const NcclRow& largest = result->rows.back();
  std::string measured = FormatNumber(largest.busbw_gbps) + " GB/s at " + std::to_string(largest.bytes) + " B";
  if (largest.busbw_gbps < busbw_floor_gbps) {
    why.push_back("bus bandwidth " + FormatNumber(largest.busbw_gbps) + " GB/s below " + FormatNumber(busbw_floor_gbps));
    evidence.push_back(largest.line);
  }
  if (cross_node) {
    auto small = std::find_if(result->rows.begin(), result->rows.end(), [](const NcclRow& r) { return r.bytes >= 8; });
    if (small != result->rows.end()) {
      measured += ", " + FormatNumber(small->time_us) + " us at " + std::to_string(small->bytes) + " B";
      if (small->time_us > t.nccl_small_message_max_us) {
        why.push_back("small-message latency " + FormatNumber(small->time_us) + " us" +
                      (small->time_us >= 1000 ? " (NCCL fell back to TCP sockets?)" : ""));
        evidence.push_back(small->line);
      }
    }
  }
  for (const std::string& line : result->summary_lines) evidence.push_back(line);
  if (!why.empty()) return Fail(check, scope, subject, Join(why, "; "), evidence, measured, threshold);
  return Pass(check, scope, subject, measured, threshold);
}

CheckResult EvaluateSlurmNode(const std::string& host, const SlurmNodeState* state, const ToolOutput& slurmd_active) {
  const std::string check = "slurm.node";
  std::string active(Trim(slurmd_active.out));
  if (active != "active") {
    return Fail(check, kNode, host, "slurmd is not running on " + host + " (systemctl is-active: " +
                (active.empty() ? "no answer" : active) + ")",
                {"systemctl is-active slurmd: " + (active.empty() ? std::string(Trim(slurmd_active.err)) : active)},
                active.empty() ? "?" : active, "active, and idle/mixed/allocated");
  }
  if (state == nullptr) {
    return Fail(check, kNode, host, host + " is not registered with slurmctld (scontrol show node does not list it)", {},
                "not registered", "idle/mixed/allocated");
  }
  if (!state->usable) {
    return Fail(check, kNode, host, host + " is " + state->why_not + (state->reason.empty() ? "" : ": " + state->reason),
                {state->line}, state->state, "idle/mixed/allocated");
  }
  return Pass(check, kNode, host, state->state, "idle/mixed/allocated");
}

CheckResult EvaluateGres(const std::string& host, const SlurmNodeState& state, int detected_gpus) {
  const std::string check = "slurm.gres";
  int gres = state.gpus.value_or(0);
  std::string threshold = "== " + std::to_string(detected_gpus) + " (detected)";
  if (gres != detected_gpus) {
    return Fail(check, kNode, host, "Slurm has " + Plural(gres, "GPU") + " for " + host + ", the node has " +
                std::to_string(detected_gpus), {state.line}, std::to_string(gres), threshold);
  }
  return Pass(check, kNode, host, std::to_string(gres), threshold);
}

CheckResult EvaluateGpuJob(const std::string& host, const ToolOutput& job, int expected_gpus) {
  const std::string check = "slurm.gpu_job";
  std::string threshold = std::to_string(expected_gpus) + " GPUs listed";
  if (job.timed_out || job.exit_code != 0) return ToolFailed(check, kNode, host, "srun --gres nvidia-smi -L", job);
  auto gpus = ParseNvidiaSmiList(job.out);
  if (!gpus.ok()) return Fail(check, kNode, host, gpus.status().message(), TailLines(job.Both()), "", threshold);
  int seen = static_cast<int>(gpus->size());
  if (seen != expected_gpus) {
    return Fail(check, kNode, host, "a job given all GPUs of " + host + " sees " + std::to_string(seen),
                TailLines(job.out), std::to_string(seen), threshold);
  }
  return Pass(check, kNode, host, std::to_string(seen), threshold);
}

}  // namespace clusterctl
