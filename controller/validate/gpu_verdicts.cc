// The GPU checks' verdicts (see verdicts.h): driver, count, persistence, ECC,
// Xid, PCIe link, clock slowdowns, NVLink and fabric, DCGM diagnostics.
#include <algorithm>
#include <cctype>
#include <map>

#include "common/strings.h"
#include "controller/validate/verdicts.h"
#include "controller/validate/dcgm_diag.h"
#include "controller/validate/nvrm_log.h"

namespace clusterctl {
namespace {

constexpr CheckScope kNode = CheckScope::kNode;

// The GPUs' problems in one result: a fail listing each GPU, or nothing.
struct GpuFindings {
  std::vector<std::string> problems, evidence;
  int unknown_only = 0;  // GPUs that failed only for want of a reading
  void Add(const GpuStatus& g, const std::vector<std::string>& errors, const std::vector<std::string>& unknown,
           const std::vector<std::string>& lines) {
    if (errors.empty() && unknown.empty()) return;
    std::vector<std::string> why = errors;
    if (!unknown.empty()) why.push_back("unknown: " + Join(unknown, ", "));
    if (errors.empty()) ++unknown_only;
    problems.push_back("GPU " + g.bus_id + ": " + Join(why, ", "));
    for (const std::string& line : lines) evidence.push_back("GPU " + g.bus_id + ": " + line);
  }
  std::string Measured() const {
    return unknown_only == static_cast<int>(problems.size()) ? "unknown"
                                                            : Plural(static_cast<long long>(problems.size()), "GPU") + " failing";
  }
};

// One GPU's ECC verdict: errors found, and readings that could not be made
// (which keep the GPU from passing: no reading, no pass). Each finding is
// independent: ECC off does not hide a pending row remap, a remap failure,
// a page waiting for retirement or an uncorrectable count.
struct EccFindings {
  std::vector<std::string> errors;
  std::vector<std::string> unknown;
  bool judged = true;  // false: ECC off or absent, not required, and nothing else found
};

EccFindings JudgeEcc(const GpuStatus& g, const EccPolicy& t) {
  EccFindings f;
  bool on = g.ecc_enabled.value_or(false);
  std::string mode = g.ecc_mode.empty() ? "not printed" : g.ecc_mode;
  if (!on && t.required) {
    if (g.ecc_enabled.has_value()) f.errors.push_back("ECC is disabled (ECC Mode: " + mode + ")");
    else f.unknown.push_back("ECC mode unknown (ECC Mode: " + mode + ")");
  }
  if (on) {
    // The counters are a reading only with ECC on; off, nvidia-smi prints N/A.
    for (const std::string& u : g.ecc_unreadable) f.unknown.push_back(u);
    if (!g.volatile_uncorrectable && g.ecc_unreadable.empty()) f.unknown.push_back("volatile uncorrectable count not reported");
  }
  if (g.volatile_uncorrectable.value_or(0) > 0) {
    f.errors.push_back(std::to_string(*g.volatile_uncorrectable) + " volatile uncorrectable ECC errors");
  }
  if (g.aggregate_uncorrectable.value_or(0) > t.aggregate_uncorrectable_max) {
    f.errors.push_back(std::to_string(*g.aggregate_uncorrectable) + " aggregate uncorrectable ECC errors");
  }
  if (g.retirement_pending.value_or(false)) f.errors.push_back("a retired page is pending (reset the GPU)");
  if (g.remap_pending.value_or(false)) f.errors.push_back("a row remap is pending (reset the GPU)");
  if (g.remap_failure.value_or(false)) f.errors.push_back("row remapping failed (no spare rows left)");
  for (const std::string& p : g.problems) f.errors.push_back(p);
  f.judged = on || t.required || !f.errors.empty();
  return f;
}

CheckResult EvaluateGpuEcc(const std::string& host, const std::vector<GpuStatus>& gpus, const EccPolicy& t) {
  std::string threshold = std::string(t.required ? "ECC on, " : "") + "volatile uncorrectable == 0, aggregate <= " +
                          std::to_string(t.aggregate_uncorrectable_max) + ", no pending retirement/remap";
  GpuFindings findings;
  int judged = 0;
  for (const GpuStatus& g : gpus) {
    EccFindings f = JudgeEcc(g, t);
    if (!f.judged) continue;
    ++judged;
    std::vector<std::string> lines;
    for (const std::string& line : g.lines) lines.push_back(std::string(Trim(line)));
    lines.insert(lines.end(), f.unknown.begin(), f.unknown.end());
    findings.Add(g, f.errors, f.unknown, lines);
  }
  if (!findings.problems.empty()) {
    int with_errors = static_cast<int>(findings.problems.size()) - findings.unknown_only;
    std::string measured = with_errors > 0 ? Plural(with_errors, "GPU") + " with errors" : "unknown";
    return Fail("gpu.ecc", kNode, host, Join(findings.problems, "; "), findings.evidence, measured, threshold);
  }
  if (judged == 0) {
    return Skip("gpu.ecc", kNode, host, "ECC is off or absent on every GPU of " + host +
                                            " and validate_gpu_ecc_required is false");
  }
  long long retired = 0;
  for (const GpuStatus& g : gpus) retired += g.retired_pages.value_or(0);
  std::string detail = "ECC on " + std::to_string(judged) + "/" + std::to_string(gpus.size()) + " GPUs";
  if (retired > 0) detail += "; " + Plural(retired, "retired page") + " (already retired, not pending)";
  return Pass("gpu.ecc", kNode, host, "0 uncorrectable", threshold, detail);
}

}  // namespace

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
                                           const std::string& raw_output, int expected_gpus, const EccPolicy& ecc,
                                           bool expected_from_inventory) {
  std::vector<CheckResult> results;
  if (!report.ok()) {
    for (const char* check : {"gpu.count", "gpu.persistence", "gpu.ecc"}) {
      results.push_back(Fail(check, kNode, host, "nvidia-smi: " + report.status().message(), TailLines(raw_output)));
    }
    return results;
  }
  const std::vector<GpuStatus>& gpus = report->gpus;
  int count = report->GpuCount();
  std::string expected = "== " + std::to_string(expected_gpus) + (expected_from_inventory ? " (inventory)" : " (PCI)");
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

  results.push_back(EvaluateGpuEcc(host, gpus, ecc));
  return results;
}

bool JournalGrepRead(const ToolOutput& log) {
  // journalctl --grep exits 1 when nothing matched.
  const bool nothing = log.exit_code == 1 && log.signal == 0 && (Trim(log.out).empty() || Trim(log.out) == "-- No entries --");
  return log.started && !log.timed_out && (log.exit_code == 0 || nothing);
}

DriverErrors FindDriverErrors(const NvrmLog& nvrm, const std::set<int>& ignored_codes) {
  // One evidence line per Xid code and per fatal message, with its count
  // and first line: the first event stays visible however many follow it.
  constexpr size_t kShown = 16;  // codes named; a hostile log may print thousands of distinct ones
  DriverErrors e;
  size_t more = 0;
  auto add = [&](const std::string& what, long long lines, const std::string& first) {
    e.counted += lines;
    if (e.found.size() == kShown) {
      ++more;
      return;
    }
    e.found.push_back(what + " x" + std::to_string(lines));
    e.evidence.push_back(e.found.back() + ", first: " + first);
  };
  for (const NvrmLog::Fatal& f : nvrm.fatal) add(f.what, f.lines, f.first);
  for (const NvrmLog::Xid& x : nvrm.xids) {
    std::string what = "Xid " + std::to_string(x.code);
    if (!ignored_codes.count(x.code)) {
      add(what, x.lines, x.first);
      continue;
    }
    if (e.ignored.size() < kShown) e.ignored.push_back(what + " x" + std::to_string(x.lines));
    // An ignored Xid the driver says a counted one caused is judged by its
    // cause: ignoring 45 (a channel torn down) must not hide the NVLink Xid
    // (144-150) behind it, whose own line may be gone from the log.
    for (const NvrmLog::Cause& c : x.causes) {
      if (ignored_codes.count(c.code)) continue;
      add("Xid " + std::to_string(c.code) + " (named as the cause of " + what + ")", c.lines, c.first);
    }
  }
  if (more > 0) e.found.push_back(std::to_string(more) + " more");
  return e;
}

CheckResult EvaluateXid(const std::string& host, const ToolOutput& log, const ToolOutput& sample,
                        const std::set<int>& ignored_codes) {
  const std::string check = "gpu.xid";
  if (!JournalGrepRead(log)) return ToolFailed(check, kNode, host, "journalctl -k", log);
  const NvrmLog nvrm = ReadNvrmLog(log.out);
  const DriverErrors errors = FindDriverErrors(nvrm, ignored_codes);
  std::string ignored_note = errors.ignored.empty() ? "" : "; ignored (validate_gpu_xid_ignore): " + Join(errors.ignored, ", ");
  if (!errors.found.empty()) {
    return Fail(check, kNode, host, "the NVIDIA driver logged " + Join(errors.found, ", ") + " since boot" + ignored_note,
                errors.evidence, std::to_string(errors.counted), "0");
  }
  // No Xid line is a reading only if the whole log was read, and the kernel
  // log since boot has lines at all.
  if (log.truncated) {
    return Fail(check, kNode, host,
                "no reading: the driver's log since boot was cut at the agent's output limit on " + host +
                    ", so Xid errors after the cut cannot be ruled out",
                {}, "unknown", "0");
  }
  std::string last(Trim(sample.out));
  if (!sample.Succeeded() || last.empty() || last == "-- No entries --") {
    return Fail(check, kNode, host,
                "no reading: the kernel log since boot is empty or unreadable on " + host +
                    " (journald does not record kernel messages there), so Xid errors cannot be ruled out",
                {"journalctl -k -b 0 -n 1: " + (last.empty() ? ExitDescription(sample) + ", no lines" : Printable(last, 160))},
                "unknown", "0");
  }
  return Pass(check, kNode, host, "0", "0",
              "no Xid and no fatal driver message since boot (" + Plural(nvrm.nvrm_lines, "NVRM line") + " read)" + ignored_note);
}

namespace {

// The limit of a judged counter by its name; nullopt for a counter not judged.
std::optional<long long> NvlinkCounterLimit(const std::string& name, const NvlinkErrorLimits& limits) {
  if (StartsWith(name, "CRC")) return limits.crc_max;
  if (StartsWith(name, "Replay")) return limits.replay_max;
  if (StartsWith(name, "Recovery")) return limits.recovery_max;
  return std::nullopt;
}

}  // namespace

CheckResult EvaluateNvlinkErrors(const std::string& host, const ToolOutput& output, const NvlinkErrorLimits& limits) {
  const std::string check = "gpu.nvlink_errors";
  if (!output.Succeeded()) return ToolFailed(check, kNode, host, "nvidia-smi nvlink -e", output);
  auto gpus = ParseNvlinkErrors(output.out);
  if (!gpus.ok()) return Fail(check, kNode, host, gpus.status().message(), CauseEvidence(output.Both()), "unknown");
  const std::string threshold = "CRC <= " + std::to_string(limits.crc_max) + ", replay <= " +
                                std::to_string(limits.replay_max) + ", recovery <= " + std::to_string(limits.recovery_max);
  constexpr size_t kShown = 16;  // evidence lines; a node has up to 8 GPUs x 18 links x 3 counters
  std::vector<std::string> over;
  long long judged = 0, listed = 0, worst = 0, over_count = 0;
  for (const NvlinkErrorGpu& g : *gpus) {
    for (const NvlinkErrorCounter& c : g.counters) {
      ++listed;
      std::optional<long long> limit = NvlinkCounterLimit(c.name, limits);
      if (!limit || !c.value) continue;
      ++judged;
      worst = std::max(worst, *c.value);
      if (*c.value <= *limit) continue;
      if (++over_count <= static_cast<long long>(kShown)) over.push_back(c.line + " (limit " + std::to_string(*limit) + ")");
    }
  }
  if (listed == 0) return Skip(check, kNode, host, "no NVLink on the GPUs of " + host + " (nvidia-smi nvlink -e lists no link)");
  if (judged == 0) {
    return Fail(check, kNode, host,
                "no reading: nvidia-smi nvlink -e printed no CRC, replay or recovery counter with a value on " + host,
                CauseEvidence(output.out), "unknown", threshold);
  }
  if (!over.empty()) {
    return Fail(check, kNode, host, "NVLink error counters over their limits: " + over.front() +
                                        (over_count > 1 ? " and " + std::to_string(over_count - 1) + " more" : ""),
                over, std::to_string(worst), threshold);
  }
  return Pass(check, kNode, host, std::to_string(worst), threshold,
              std::to_string(judged) + " CRC, replay and recovery counters on " + Plural(static_cast<long long>(gpus->size()), "GPU") +
                  ", none over its limit");
}

namespace {

// "P8" -> 8; -1 when absent or unreadable.
int PerformanceLevel(const std::string& state) {
  if (state.size() < 2 || state[0] != 'P' || !std::isdigit(static_cast<unsigned char>(state[1]))) return -1;
  return std::atoi(state.c_str() + 1);
}


}  // namespace

CheckResult EvaluateGpuPcie(const std::string& host, const NvidiaSmiReport& report, const PcieFloor& floor) {
  const std::string check = "gpu.pcie";
  GpuFindings findings;
  std::vector<std::string> idle;
  std::string link;  // the first GPU's, for the pass
  for (const GpuStatus& g : report.gpus) {
    std::vector<std::string> errors, unknown;
    if (!g.pcie_width_max || !g.pcie_width_current) unknown.push_back("PCIe link width not readable");
    if (!g.pcie_gen_max || !g.pcie_gen_current) unknown.push_back("PCIe generation not readable");
    if (g.pcie_width_max && g.pcie_width_current) {
      int want = floor.width.value_or(*g.pcie_width_max);
      if (*g.pcie_width_current < want) {
        errors.push_back("link width x" + std::to_string(*g.pcie_width_current) + " of x" + std::to_string(want));
      }
    }
    if (g.pcie_gen_max && g.pcie_gen_current) {
      int want = floor.generation.value_or(*g.pcie_gen_max);
      if (*g.pcie_gen_current < want) {
        if (PerformanceLevel(g.performance_state) >= 8) {
          idle.push_back(g.bus_id + " Gen" + std::to_string(*g.pcie_gen_current) + " in " + g.performance_state);
        } else {
          errors.push_back("PCIe Gen" + std::to_string(*g.pcie_gen_current) + " of Gen" + std::to_string(want) +
                           (g.performance_state.empty() ? "" : " in " + g.performance_state));
        }
      }
      if (link.empty() && g.pcie_width_current) {
        link = "x" + std::to_string(*g.pcie_width_current) + " Gen" + std::to_string(*g.pcie_gen_current);
      }
    }
    std::vector<std::string> lines = g.pcie_lines;
    if (!g.performance_state.empty()) lines.push_back("Performance State: " + g.performance_state);
    findings.Add(g, errors, unknown, lines);
  }
  std::string threshold = "width " + (floor.width ? "x" + std::to_string(*floor.width) : std::string("max")) +
                          ", generation " + (floor.generation ? "Gen" + std::to_string(*floor.generation) : std::string("max"));
  if (report.gpus.empty()) return Fail(check, kNode, host, "no reading: nvidia-smi -q describes no GPU", {}, "unknown", threshold);
  if (!findings.problems.empty()) {
    return Fail(check, kNode, host, Join(findings.problems, "; "), findings.evidence, findings.Measured(), threshold);
  }
  std::string detail = std::to_string(report.gpus.size()) + " GPUs at full width";
  if (!idle.empty()) {
    detail += "; generation not judged on " + Plural(static_cast<long long>(idle.size()), "idle GPU") +
              " (an idle GPU lowers its link speed): " + Join(idle, ", ");
  }
  return Pass(check, kNode, host, link, threshold, detail);
}

GpuSlowdown SlowdownOf(const GpuStatus& g) {
  static const std::vector<std::string> kJudged = {"hw slowdown", "hw thermal slowdown", "hw power brake slowdown",
                                                   "sw thermal slowdown"};
  GpuSlowdown s;
  bool hw_read = false;
  for (const GpuStatus::ClockReason& r : g.clock_reasons) {
    if (std::find(kJudged.begin(), kJudged.end(), r.name) == kJudged.end()) continue;
    if (r.name == "hw slowdown" && r.active) hw_read = true;
    if (r.active.value_or(false)) {
      const size_t colon = r.line.find(':');
      s.active.push_back(colon == std::string::npos ? r.name : std::string(Trim(r.line.substr(0, colon))));
      s.active_lines.push_back(r.line);
      s.lines.push_back(r.line);
    } else if (!r.active) {
      s.lines.push_back(r.line);
    }
  }
  if (!g.has_clock_reasons) s.unknown.push_back("no Clocks Event Reasons section");
  else if (!hw_read) s.unknown.push_back("HW Slowdown not readable");
  return s;
}

CheckResult EvaluateGpuClocks(const std::string& host, const NvidiaSmiReport& report) {
  const std::string check = "gpu.clocks";
  GpuFindings findings;
  for (const GpuStatus& g : report.gpus) {
    const GpuSlowdown s = SlowdownOf(g);
    findings.Add(g, s.active_lines, s.unknown, s.lines);
  }
  std::string threshold = kSlowdownThreshold;
  if (report.gpus.empty()) return Fail(check, kNode, host, "no reading: nvidia-smi -q describes no GPU", {}, "unknown", threshold);
  if (!findings.problems.empty()) {
    return Fail(check, kNode, host, Join(findings.problems, "; "), findings.evidence, findings.Measured(), threshold);
  }
  return Pass(check, kNode, host, "no slowdown", threshold, Plural(static_cast<long long>(report.gpus.size()), "GPU") + " read");
}

CheckResult EvaluateGpuNvlink(const std::string& host, const ToolOutput& output, const NvidiaSmiReport& report,
                              int nvswitches, const NvlinkExpectation& t) {
  const std::string check = "gpu.nvlink";
  if (!output.Succeeded()) return ToolFailed(check, kNode, host, "nvidia-smi nvlink -s", output);
  auto gpus = ParseNvlinkStatus(output.out);
  if (!gpus.ok()) return Fail(check, kNode, host, gpus.status().message(), CauseEvidence(output.Both()), "unknown");
  // nvidia-smi lists every link the GPU has; how many are wired depends on
  // the board (an H100 PCIe pair with three bridges uses 12 of its 18, the
  // other 6 read <inactive>). So the expected count comes from the
  // inventory (validate_gpu_nvlinks), else from the GPU model where it fixes
  // it (SXM parts), else it is the most links any GPU of the node has up;
  // the threshold says which.
  auto active = [](const NvlinkLink& l) { return !l.inactive && l.gbps.has_value(); };
  size_t most = 0, listed = 0;
  double fastest = 0;
  for (const NvlinkGpu& g : *gpus) {
    most = std::max(most, static_cast<size_t>(std::count_if(g.links.begin(), g.links.end(), active)));
    listed = std::max(listed, g.links.size());
    for (const NvlinkLink& l : g.links) fastest = std::max(fastest, l.gbps.value_or(0));
  }
  std::optional<int> by_model;
  std::string model;
  for (const NvlinkGpu& g : *gpus) {
    std::optional<int> fixed = FixedNvlinksPerGpu(g.name);
    if (!fixed || (by_model && *by_model != *fixed)) {
      by_model.reset();  // a GPU without a fixed count, or models that disagree: no model expectation
      break;
    }
    by_model = fixed;
    model = g.name;
  }
  if (most == 0 && nvswitches == 0 && !t.links && !by_model) {
    return Skip(check, kNode, host, "no active NVLink on the GPUs of " + host +
                                        (listed > 0 ? " (" + std::to_string(listed) + " links listed, all inactive; set "
                                                      "validate_gpu_nvlinks if they should be up)" : ""));
  }
  size_t want_links = t.links ? static_cast<size_t>(*t.links) : by_model ? static_cast<size_t>(*by_model) : most;
  std::string source = t.links ? "validate_gpu_nvlinks"
                       : by_model    ? model + "'s NVLink count"
                                     : "the most any GPU of the node has up";
  double want_gbps = t.gbps.value_or(fastest);
  std::string threshold = std::to_string(want_links) + " links per GPU (" + source + ") up at " + FormatNumber(want_gbps) + " GB/s" +
                          (nvswitches > 0 ? ", fabric Completed/Success" : "");
  std::vector<std::string> problems, evidence;
  size_t up = 0;
  for (const NvlinkGpu& g : *gpus) {
    std::vector<std::string> inactive, slow;
    size_t good = 0;
    for (const NvlinkLink& l : g.links) {
      if (!active(l)) inactive.push_back(std::to_string(l.link));
      else if (*l.gbps + 0.01 < want_gbps) slow.push_back(std::to_string(l.link) + " (" + FormatNumber(*l.gbps) + " GB/s)");
      else ++good;
    }
    up += good;
    std::vector<std::string> why;
    if (good + slow.size() < want_links) {
      why.push_back(std::to_string(good + slow.size()) + " of " + std::to_string(want_links) + " links up" +
                    (inactive.empty() ? "" : " (inactive: " + Join(inactive, ", ") + ")"));
    }
    if (!slow.empty()) why.push_back("link " + Join(slow, ", ") + " below " + FormatNumber(want_gbps) + " GB/s");
    if (why.empty()) continue;
    problems.push_back("GPU " + std::to_string(g.index) + ": " + Join(why, ", "));
    evidence.push_back(g.line);
    for (const NvlinkLink& l : g.links) {
      if ((!active(l) || *l.gbps + 0.01 < want_gbps) && evidence.size() < 16) evidence.push_back(l.line);
    }
  }
  // The fabric manager's state, where the driver reports it (Hopper and later on NVSwitch systems).
  std::vector<std::string> fabric_unreported;
  for (const GpuStatus& g : report.gpus) {
    bool reported = !g.fabric_state.empty() && g.fabric_state != "N/A";
    if (!reported) {
      if (nvswitches > 0) fabric_unreported.push_back(g.bus_id);
      continue;
    }
    bool unhealthy = !g.fabric_health.empty() && g.fabric_health != "Healthy" && g.fabric_health != "N/A";
    if (g.fabric_state != "Completed" || g.fabric_status != "Success" || unhealthy) {
      problems.push_back("GPU " + g.bus_id + ": fabric State " + g.fabric_state + ", Status " +
                         (g.fabric_status.empty() ? "not printed" : g.fabric_status) +
                         (unhealthy ? ", Health " + g.fabric_health : "") +
                         (g.fabric_state != "Completed" ? " (is nvidia-fabricmanager running?)" : ""));
      for (const std::string& line : g.fabric_lines) evidence.push_back("GPU " + g.bus_id + ": " + line);
    }
  }
  if (most == 0 && nvswitches > 0) problems.push_back(Plural(nvswitches, "NVSwitch") + " on the PCI bus, but no GPU reports an NVLink link");
  std::string measured = std::to_string(up) + "/" + std::to_string(want_links * gpus->size()) + " links up";
  if (!problems.empty()) return Fail(check, kNode, host, Join(problems, "; "), evidence, measured, threshold);
  std::string detail = Plural(static_cast<long long>(gpus->size()), "GPU") + " x " + std::to_string(want_links) + " links";
  if (listed > want_links) detail += " (" + std::to_string(listed - want_links) + " more listed per GPU, inactive: not wired)";
  if (!fabric_unreported.empty()) detail += "; the driver does not report the fabric state (judged by the links)";
  return Pass(check, kNode, host, measured, threshold, detail);
}

CheckResult EvaluateDcgmDiag(const std::string& host, const ToolOutput& diag) {
  if (!diag.started || diag.timed_out) return ToolFailed("gpu.dcgm", kNode, host, "dcgmi diag -r 1", diag);
  return JudgeDcgmTests("gpu.dcgm", "dcgmi diag -r 1", host, diag, ParseDcgmDiag(diag.out));
}

CheckResult JudgeDcgmTests(const std::string& check, const std::string& command, const std::string& host,
                           const ToolOutput& diag, const Result<std::vector<DcgmTest>>& tests) {
  std::string threshold = "every test Pass or Skip, exit 0";
  if (!tests.ok()) {
    CheckResult failed = ToolFailed(check, kNode, host, command.c_str(), diag, tests.status().message(), threshold);
    failed.measured = "unknown";
    return failed;
  }
  std::vector<std::string> failing, evidence, skipped_beyond;  // beyond Deployment: the plugins that test the GPU
  int passed = 0, judged_beyond = 0;
  for (const DcgmTest& test : *tests) {
    const bool beyond = test.section != "Deployment";
    if (test.result == "Pass") ++passed;
    if (beyond && test.result == "Skip") skipped_beyond.push_back(test.name);
    if (beyond && test.result != "Skip") ++judged_beyond;
    if (test.result == "Pass" || test.result == "Skip") continue;
    failing.push_back(test.name + ": " + test.result_text);
    for (const std::string& line : test.lines) {
      if (evidence.size() < 12) evidence.push_back(line);
    }
  }
  if (passed == 0 && failing.empty()) {
    failing.push_back("no test passed (every test skipped)");
  } else if (judged_beyond == 0 && !skipped_beyond.empty()) {  // e.g. a GPU not on DCGM's list for its plugins
    failing.push_back("no test beyond Deployment ran (" + Join(skipped_beyond, ", ") + ": Skip)");
  }
  if (!diag.Succeeded()) {
    failing.push_back("dcgmi " + ExitDescription(diag));
    evidence.push_back(command + ": " + ExitDescription(diag));
  }
  std::string measured = std::to_string(passed) + "/" + std::to_string(tests->size()) + " pass";
  if (!failing.empty()) return Fail(check, kNode, host, Join(failing, "; "), evidence, measured, threshold);
  return Pass(check, kNode, host, measured, threshold);
}

}  // namespace clusterctl
