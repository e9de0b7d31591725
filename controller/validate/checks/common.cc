#include "controller/validate/checks/common.h"

#include "common/json_fields.h"

namespace clusterctl::checks {

std::optional<double> NumberVariable(const nlohmann::json& vars, const char* name) {
  const nlohmann::json* value = MemberOf(vars, name);
  if (value == nullptr || !value->is_number()) return std::nullopt;
  return value->get<double>();
}

std::optional<long long> IntegerVariable(const nlohmann::json& vars, const char* name) {
  const nlohmann::json* value = MemberOf(vars, name);
  if (value == nullptr || !value->is_number_integer()) return std::nullopt;
  return value->get<long long>();
}

std::optional<std::string> StringVariable(const nlohmann::json& vars, const char* name) {
  const nlohmann::json* value = MemberOf(vars, name);
  if (value == nullptr || !value->is_string()) return std::nullopt;
  return value->get<std::string>();
}

std::optional<bool> BoolVariable(const nlohmann::json& vars, const char* name) {
  const nlohmann::json* value = MemberOf(vars, name);
  if (value == nullptr || !value->is_boolean()) return std::nullopt;
  return value->get<bool>();
}

std::vector<long long> IntegersVariable(const nlohmann::json& vars, const char* name) {
  std::vector<long long> numbers;
  const nlohmann::json* value = MemberOf(vars, name);
  if (value == nullptr || !value->is_array()) return numbers;
  for (const nlohmann::json& item : *value) {
    if (item.is_number_integer()) numbers.push_back(item.get<long long>());
  }
  return numbers;
}

std::vector<const Host*> HostsWithBmc(ClusterRun& run, const std::string& check) {
  std::vector<const Host*> hosts;
  for (const ClusterRun::ProbedHost& probed : run.ProbedHosts()) {
    if (!probed.selected) continue;
    const Host* host = run.inventory().FindHost(probed.name);
    if (host != nullptr && host->bmc) {
      hosts.push_back(host);
    } else {
      run.Add(Skip(check, kNode, probed.name, "no bmc in the inventory for " + probed.name));
    }
  }
  return hosts;
}

Requirement GpusOnPciBus() {
  return {[](const NodeView& v) { return v.node.HasGpus(); },
          [](const NodeView& v) { return "no NVIDIA GPUs on the PCI bus of " + v.host(); }};
}

Requirement InfinibandPorts() {
  return {[](const NodeView& v) { return v.node.HasIbPorts(); },
          [](const NodeView& v) { return "no InfiniBand ports on " + v.host(); }};
}

Requirement SlurmHost() {
  return {[](const NodeView& v) { return v.role.slurm_host; },
          [](const NodeView& v) {
            return v.role.slurm_cluster ? v.host() + " is not in the controller, login or compute group"
                                        : std::string("no Slurm cluster in the inventory (no controller or compute group)");
          }};
}

Requirement ComputeNodeOfSlurm() {
  return {[](const NodeView& v) { return v.role.compute && v.role.slurm_host; },
          [](const NodeView& v) {
            return v.role.compute ? std::string("no Slurm cluster in the inventory") : v.host() + " is not a compute node";
          }};
}

Prerequisite DriverLoaded() {
  return {"gpu.driver",
          [](const NodeView& v) { return "the NVIDIA driver is not loaded on " + v.host() + " (gpu.driver failed)"; }};
}

const ProbeSpec& NvidiaSmiQueryProbe() {
  static const ProbeSpec probe{.id = "nvidia-smi -q",
                               .commands = {{"nvidia-smi", "-q"}},
                               .timeout_s = 60,
                               .when = [](const NodeReadings& n) { return n.HasGpus() && n.DriverModuleLoaded(); }};
  return probe;
}

const ProbeSpec& MungeCredentialProbe() {
  static const ProbeSpec probe{.id = "munge -n", .commands = {{"munge", "-n"}}, .timeout_s = 15};
  return probe;
}

const ProbeSpec& SlurmConfDigestProbe() {
  static const ProbeSpec probe{
      .id = "slurm.conf sha256", .commands = {{"sha256sum", "/etc/slurm/slurm.conf"}}, .timeout_s = 15};
  return probe;
}


const Result<NvidiaSmiReport>& GpuReport(const NodeReadings& node) {
  const std::string& id = NvidiaSmiQueryProbe().id;
  return node.Parsed<Result<NvidiaSmiReport>>(id, [&]() -> Result<NvidiaSmiReport> {
    const ToolOutput& smi = node.Output(id);
    if (!smi.Succeeded()) return Status::Unavailable(ExitDescription(smi));
    return ParseNvidiaSmiQuery(smi.out);
  });
}

bool GpusExpectedSet(const NodeView& view) { return IntegerVariable(view.vars, "validate_gpus_expected").has_value(); }

int ExpectedGpus(const NodeView& view) {
  return static_cast<int>(IntegerVariable(view.vars, "validate_gpus_expected").value_or(view.node.pci_gpus));
}

std::optional<CheckResult> NvidiaSmiMissing(const std::string& check, const NodeView& view) {
  if (view.node.Output(NvidiaSmiQueryProbe().id).started) return std::nullopt;
  return Fail(check, kNode, view.host(), "nvidia-smi is not installed on " + view.host() + " although the driver is loaded");
}

CheckResult GpuHealth(const std::string& check, const NodeView& view, const EccPolicy& ecc) {
  if (auto missing = NvidiaSmiMissing(check, view)) return *missing;
  // Over the report parsed once per node (GpuReport); the evaluation itself is cheap.
  const ToolOutput& smi = view.node.Output(NvidiaSmiQueryProbe().id);
  const std::vector<CheckResult> health =
      EvaluateGpuHealth(view.host(), GpuReport(view.node), smi.Both(), ExpectedGpus(view), ecc, GpusExpectedSet(view));
  for (const CheckResult& r : health) {
    if (r.check == check) return r;
  }
  return Fail(check, kNode, view.host(), "no verdict from nvidia-smi's report", {}, "unknown");
}

CheckResult ReportUnreadable(const std::string& check, const NodeView& view, const Status& problem) {
  return Fail(check, kNode, view.host(), "nvidia-smi: " + problem.message(),
              CauseEvidence(view.node.Output(NvidiaSmiQueryProbe().id).Both()), "unknown");
}

CheckResult JudgeReport(const std::string& check, const NodeView& view, ReportVerdict verdict) {
  if (auto missing = NvidiaSmiMissing(check, view)) return *missing;
  const Result<NvidiaSmiReport>& report = GpuReport(view.node);
  if (!report.ok()) return ReportUnreadable(check, view, report.status());
  return verdict(view, *report);
}

CheckSpec NvidiaSmiCheck(std::string name, std::string summary, int rank, NodeVerdict verdict,
                         std::vector<const ProbeSpec*> more_probes) {
  std::vector<const ProbeSpec*> probes = {&NvidiaSmiQueryProbe()};
  probes.insert(probes.end(), more_probes.begin(), more_probes.end());
  return {.name = std::move(name),
          .scope = kNode,
          .summary = std::move(summary),
          .rank = rank,
          .requirements = {GpusOnPciBus()},
          .prerequisites = {DriverLoaded()},
          .probes = std::move(probes),
          .verdict = verdict};
}

}  // namespace clusterctl::checks
