#include "controller/validate/verdicts.h"

#include <algorithm>

#include "common/json_fields.h"
#include "common/strings.h"
#include "controller/validate/nccl_tests.h"
#include "controller/validate/system_tools.h"

namespace clusterctl {
namespace {

constexpr CheckScope kNode = CheckScope::kNode;

}  // namespace

std::string Plural(long long n, const char* word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

// A tool that did not run or failed: why, in one line (with the line of its
// output that says why, when one does and `problem` does not quote it
// already), and the lines that show it.
CheckResult ToolFailed(const std::string& check, CheckScope scope, const std::string& subject, const char* tool,
                       const ToolOutput& output, const std::string& problem, const std::string& threshold) {
  if (!output.started) return Fail(check, scope, subject, std::string(tool) + " is not installed", {}, "", threshold);
  std::string cause = FirstCause(output.Both());
  std::vector<std::string> evidence = CauseEvidence(output.Both());
  evidence.push_back(std::string(tool) + ": " + ExitDescription(output));
  std::string detail = !problem.empty()   ? std::string(tool) + ": " + problem + " (" + ExitDescription(output) + ")"
                       : output.timed_out ? std::string(tool) + " did not finish in time"
                                          : std::string(tool) + " failed (" + ExitDescription(output) + ")";
  if (!cause.empty() && problem.find(Trim(cause)) == std::string::npos) detail += ": " + Printable(cause, 160);
  return Fail(check, scope, subject, detail, evidence, "", threshold);
}

std::vector<IbPortStatus> ExpectedIbPorts(const std::vector<IbPortStatus>& ports, const nlohmann::json& vars) {
  std::vector<IbPortStatus> expected;
  const std::vector<std::string> configured = StringsAt(vars, "validate_ib_ports");
  if (configured.empty()) {
    for (const IbPortStatus& p : ports) {
      if (p.link_layer == "InfiniBand") expected.push_back(p);
    }
    return expected;
  }
  for (const std::string& name : configured) {
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

Result<std::vector<IbPortStatus>> AgainstSysfs(Result<std::vector<IbPortStatus>> ports,
                                               const std::vector<IbPortStatus>& sysfs_ports) {
  if (!ports.ok() || !ports->empty()) return ports;
  std::vector<std::string> in_sysfs;
  for (const IbPortStatus& p : sysfs_ports) {
    if (p.link_layer == "InfiniBand") in_sysfs.push_back(p.device + "/" + std::to_string(p.port));
  }
  if (in_sysfs.empty()) return ports;
  return Status::Unavailable("no adapter listed, but sysfs shows " + Plural(static_cast<long long>(in_sysfs.size()), "InfiniBand port") +
                             " (" + Join(in_sysfs, ", ") + "): the RDMA stack does not see the adapter (its driver is not loaded)");
}

CheckResult EvaluateIbPorts(const std::string& host, const Result<std::vector<IbPortStatus>>& ports,
                            const std::string& raw_output, const std::string& source, const nlohmann::json& vars) {
  const std::string check = "ib.ports";
  if (!ports.ok()) return Fail(check, kNode, host, source + ": " + ports.status().message(), TailLines(raw_output));
  std::vector<IbPortStatus> expected = ExpectedIbPorts(*ports, vars);
  if (expected.empty()) return Skip(check, kNode, host, "no InfiniBand ports on " + host);
  const nlohmann::json* configured_rate = MemberOf(vars, "validate_ib_rate_gbps");
  const bool rate_set = configured_rate != nullptr && configured_rate->is_number();
  double rate = rate_set ? configured_rate->get<double>() : 0;
  if (!rate_set) {
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

std::vector<std::string> PeerMemoryErrors(std::string_view log) {
  constexpr size_t kKept = 8;  // lines; a module that fails at every load attempt repeats itself
  std::vector<std::string> errors;
  for (const std::string& raw : Split(log, '\n')) {
    std::string line = AsciiLower(Trim(raw));
    if (line.find("peermem") == std::string::npos && line.find("peer_mem") == std::string::npos) continue;
    bool error = line.find("error") != std::string::npos || line.find("unknown symbol") != std::string::npos ||
                 line.find("disagrees about version") != std::string::npos || line.find("fail") != std::string::npos;
    if (error && errors.size() < kKept) errors.push_back(Printable(Trim(raw), 300));
  }
  return errors;
}

CheckResult EvaluatePeerMemory(const std::string& host, const std::vector<std::string>& modules,
                               const nlohmann::json& gpudirect, const std::vector<std::string>& log_errors) {
  const std::string threshold = "nvidia_peermem or nv_peer_mem loaded, or DMA-BUF";
  // The kernel log's peer-memory errors: why a module is not loaded, or a note beside a pass.
  std::string logged = log_errors.empty() ? ""
                                          : "; the kernel log since boot has " + Plural(static_cast<long long>(log_errors.size()),
                                                                                         "peer-memory error line") +
                                                ", first: " + log_errors.front();
  for (const char* name : {"nvidia_peermem", "nv_peer_mem"}) {
    if (std::find(modules.begin(), modules.end(), name) != modules.end()) {
      return Pass("ib.peermem", kNode, host, name, threshold, logged.empty() ? "" : logged.substr(2));
    }
  }
  if (gpudirect.is_object() && gpudirect.value("dmabuf", false) == true) {
    return Pass("ib.peermem", kNode, host, "DMA-BUF (" + gpudirect.value("kernel_modules", std::string("open")) +
                                               " kernel modules; no peer-memory module needed)",
                threshold, logged.empty() ? "" : logged.substr(2));
  }
  std::vector<std::string> evidence = {"/proc/modules: no line for nvidia_peermem or nv_peer_mem"};
  evidence.insert(evidence.end(), log_errors.begin(), log_errors.end());
  return Fail("ib.peermem", kNode, host, "GPUDirect RDMA peer memory module not loaded (nvidia_peermem / nv_peer_mem)" + logged,
              evidence, "not loaded", "loaded");
}

CheckResult EvaluateIbWriteBw(const std::string& pair, const ToolOutput& client, double line_rate_gbps,
                              const IbWriteBwLimits& limits) {
  const std::string check = "ib.write_bw";
  double floor = limits.min_mbps.value_or(DefaultIbWriteBwFloorMbps(line_rate_gbps));
  std::string threshold = ">= " + FormatNumber(floor) + " MB/s at " + std::to_string(limits.message_bytes) + " B";
  if (!client.started || client.timed_out) return ToolFailed(check, CheckScope::kPair, pair, "ib_write_bw", client);
  auto rows = ParseIbWriteBw(client.out);
  if (!rows.ok()) return ToolFailed(check, CheckScope::kPair, pair, "ib_write_bw", client, rows.status().message(), threshold);
  if (!client.Succeeded()) {
    CheckResult failed = ToolFailed(check, CheckScope::kPair, pair, "ib_write_bw", client, "", threshold);
    std::string cause = FirstCause(client.Both());
    failed.detail = "ib_write_bw " + ExitDescription(client) + " after printing its results" +
                    (cause.empty() ? "" : ": " + Printable(cause, 160));
    return failed;
  }
  const IbBandwidthRow* row = nullptr;
  for (const IbBandwidthRow& r : *rows) {
    if (r.bytes == limits.message_bytes) row = &r;
  }
  if (row == nullptr) row = &rows->back();
  std::string measured = FormatNumber(row->average_mbps) + " MB/s";
  if (row->bytes != limits.message_bytes) measured += " at " + std::to_string(row->bytes) + " B";
  if (row->average_mbps < floor) {
    return Fail(check, CheckScope::kPair, pair, "bandwidth " + measured + " below the floor", TailLines(client.out, 4),
                measured, threshold);
  }
  return Pass(check, CheckScope::kPair, pair, measured, threshold);
}

CheckResult EvaluateNccl(const std::string& check, CheckScope scope, const std::string& subject, const ToolOutput& output,
                         double busbw_floor_gbps, std::optional<double> small_message_max_us) {
  const bool cross_node = small_message_max_us.has_value();
  std::string threshold = "0 wrong, busbw >= " + FormatNumber(busbw_floor_gbps) + " GB/s" +
                          (cross_node ? ", median " + std::to_string(kSmallMessageMin) + " B-" +
                                            std::to_string(kSmallMessageMax / 1024) + " KiB <= " +
                                            FormatNumber(*small_message_max_us) + " us"
                                      : "") + ", exit 0";
  if (!output.started || output.timed_out) return ToolFailed(check, scope, subject, "all_reduce_perf", output);
  auto result = ParseNcclTests(output.out);
  // Failed before a complete table: say why from the lines that do.
  if (!result.ok()) return ToolFailed(check, scope, subject, "all_reduce_perf", output, result.status().message(), threshold);
  std::vector<std::string> why;
  std::vector<std::string> evidence;
  if (!output.Succeeded()) {
    why.push_back("all_reduce_perf " + ExitDescription(output) + " after printing its results");
    for (std::string& line : CauseEvidence(output.Both(), 6)) evidence.push_back(std::move(line));
    evidence.push_back("all_reduce_perf: " + ExitDescription(output));
  }
  if (!result->trailing_failures.empty()) {
    why.push_back("failure after the results: " + Printable(result->trailing_failures.front(), 160));
    for (size_t i = 0; i < result->trailing_failures.size() && i < 3; ++i) evidence.push_back(result->trailing_failures[i]);
  }
  if (!result->out_of_bounds_ok || result->out_of_bounds.value_or(0) > 0) {
    why.push_back(std::to_string(result->out_of_bounds.value_or(0)) + " out-of-bounds values");
  }
  // No reading, no pass: with validation off (-c 0) the wrong-value column
  // reads N/A and nothing says the results are right.
  auto unchecked = std::find_if(result->rows.begin(), result->rows.end(),
                                [](const NcclRow& row) { return row.wrong.empty() || row.wrong == "N/A"; });
  if (unchecked != result->rows.end()) {
    why.push_back("results not checked for correctness (wrong-value column " +
                  (unchecked->wrong.empty() ? std::string("missing") : "N/A") + ": validation off, run with -c 1)");
    evidence.push_back(unchecked->line);
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
    if ((row.wrong_is_count || !why.empty()) && evidence.size() < 8) evidence.push_back(row.line);
  }
  const NcclRow& largest = result->rows.back();
  std::string measured = FormatNumber(largest.busbw_gbps) + " GB/s at " + std::to_string(largest.bytes) + " B";
  if (largest.busbw_gbps < busbw_floor_gbps) {
    why.push_back("bus bandwidth " + FormatNumber(largest.busbw_gbps) + " GB/s below " + FormatNumber(busbw_floor_gbps));
    evidence.push_back(largest.line);
  }
  if (cross_node) {
    std::optional<SmallMessageLatency> band = SmallMessageBand(*result);
    if (!band) {
      why.push_back("no small-message rows (" + std::to_string(kSmallMessageMin) + " B to " +
                    std::to_string(kSmallMessageMax) + " B): no latency reading");
    } else {
      measured += ", median " + FormatNumber(band->median_us) + " us over " + std::to_string(band->rows.size()) +
                  " sizes " + std::to_string(band->smallest) + "-" + std::to_string(band->largest) + " B";
      if (band->median_us > *small_message_max_us) {
        why.push_back("small-message latency: median " + FormatNumber(band->median_us) + " us over " +
                      std::to_string(band->smallest) + "-" + std::to_string(band->largest) + " B" +
                      (band->median_us >= 1000 ? " (NCCL fell back to TCP sockets?)" : ""));
        for (const NcclRow* row : band->rows) {
          if (evidence.size() < 10) evidence.push_back(row->line);
        }
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
  std::string from = state->read_from.empty() ? "" : "read from " + state->read_from;
  if (!state->usable) {
    std::vector<std::string> evidence = {state->line};
    if (!from.empty()) evidence.push_back(from);
    return Fail(check, kNode, host, host + " is " + state->why_not + (state->reason.empty() ? "" : ": " + state->reason),
                evidence, state->state, "idle/mixed/allocated");
  }
  return Pass(check, kNode, host, state->state, "idle/mixed/allocated", from);
}

CheckResult EvaluateGres(const std::string& host, const SlurmNodeState& state, int detected_gpus,
                         const std::string& expected_type) {
  const std::string check = "slurm.gres";
  int gres = state.gpus.value_or(0);
  const std::string types = Join(state.gpu_types, ",");
  const std::string measured = (types.empty() ? "" : types + ":") + std::to_string(gres);
  std::string threshold = "== " + (expected_type.empty() ? "" : expected_type + ":") + std::to_string(detected_gpus) +
                          " (detected)";
  if (gres != detected_gpus) {
    return Fail(check, kNode, host, "Slurm has " + Plural(gres, "GPU") + " for " + host + ", the node has " +
                std::to_string(detected_gpus), {state.line}, measured, threshold);
  }
  if (!expected_type.empty() && !state.gpu_types.empty() && state.gpu_types != std::vector<std::string>{expected_type}) {
    return Fail(check, kNode, host, "Slurm types the GPUs of " + host + " " + types + ", the node's are " + expected_type,
                {state.line}, measured, threshold);
  }
  return Pass(check, kNode, host, measured, threshold);
}

CheckResult EvaluateGpuJob(const std::string& host, const ToolOutput& job, int expected_gpus) {
  const std::string check = "slurm.gpu_job";
  std::string threshold = std::to_string(expected_gpus) + " GPUs listed";
  if (!job.Succeeded()) return ToolFailed(check, kNode, host, "srun --gres nvidia-smi -L", job);
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
