// What several check specs share (check_spec.h): the requirements and
// prerequisites most node checks state, the probes more than one check reads,
// and the reading of nvidia-smi -q that the GPU checks judge.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "controller/validate/check_spec.h"
#include "controller/validate/cluster_run.h"
#include "controller/validate/verdicts.h"
#include "controller/validate/nvidia_smi.h"

namespace clusterctl::checks {

constexpr CheckScope kNode = CheckScope::kNode;
constexpr CheckScope kCluster = CheckScope::kCluster;

// Requirements.
Requirement GpusOnPciBus();        // "no NVIDIA GPUs on the PCI bus of X"
Requirement InfinibandPorts();     // "no InfiniBand ports on X"
Requirement SlurmHost();           // "X is not in the controller, login or compute group"
Requirement ComputeNodeOfSlurm();  // "X is not a compute node" / "no Slurm cluster in the inventory"

// gpu.driver passed: "the NVIDIA driver is not loaded on X (gpu.driver failed)".
Prerequisite DriverLoaded();

// Probes read by more than one check, or by validation_run's cross phase.
const ProbeSpec& NvidiaSmiQueryProbe();    // nvidia-smi -q, on nodes with GPUs and the nvidia module
const ProbeSpec& MungeCredentialProbe();   // munge -n (munge.decode; the controller's is decoded on the nodes)
const ProbeSpec& SlurmConfDigestProbe();   // sha256sum /etc/slurm/slurm.conf (slurm.conf; the controller's is the reference)

// nvidia-smi -q read into a report (once per node); the exit status as the error when it failed.
const Result<NvidiaSmiReport>& GpuReport(const NodeReadings& node);
// The GPUs nvidia-smi must see: validate_gpus_expected (gpu.count declares
// it), else the PCI count; whether the inventory sets it.
int ExpectedGpus(const NodeView& view);
bool GpusExpectedSet(const NodeView& view);
// A check that reads nvidia-smi fails when nvidia-smi is missing although the
// driver is loaded; nullopt when it ran.
std::optional<CheckResult> NvidiaSmiMissing(const std::string& check, const NodeView& view);
// gpu.count, gpu.persistence or gpu.ecc: its result of EvaluateGpuHealth
// over nvidia-smi -q (`ecc`: gpu.ecc's limits; the others judge no ECC).
CheckResult GpuHealth(const std::string& check, const NodeView& view, const EccPolicy& ecc = {});
// A check that needs the report fails with nvidia-smi's problem when there is none.
CheckResult ReportUnreadable(const std::string& check, const NodeView& view, const Status& problem);
// A verdict over nvidia-smi -q's report: nvidia-smi missing or unreadable fails `check` first.
using ReportVerdict = CheckResult (*)(const NodeView& view, const NvidiaSmiReport& report);
CheckResult JudgeReport(const std::string& check, const NodeView& view, ReportVerdict verdict);

// A check variable's value as the check's own declaration (`.variables`)
// typed it: the host's variables already hold every check variable, its
// default filled in, and were checked against the declaration before any
// check ran. nullopt where the variable is null (its default is computed
// from the node) or absent (a unit test's view that sets none).
std::optional<double> NumberVariable(const nlohmann::json& vars, const char* name);
std::optional<long long> IntegerVariable(const nlohmann::json& vars, const char* name);
std::optional<std::string> StringVariable(const nlohmann::json& vars, const char* name);
std::optional<bool> BoolVariable(const nlohmann::json& vars, const char* name);
// A list of integers (`items: {type: integer}`); empty where null or absent.
std::vector<long long> IntegersVariable(const nlohmann::json& vars, const char* name);
// The selected hosts an out-of-band check (bmc.*) reads through their BMCs,
// whether or not they answered over SSH; a selected host without a bmc is
// skipped ("no bmc in the inventory for X"), so every selected host has a
// result.
std::vector<const Host*> HostsWithBmc(ClusterRun& run, const std::string& check);

// The spec of a GPU check that reads nvidia-smi -q (and `more_probes`): on
// nodes with GPUs on the PCI bus, after gpu.driver.
CheckSpec NvidiaSmiCheck(std::string name, std::string summary, int rank, NodeVerdict verdict,
                         std::vector<const ProbeSpec*> more_probes = {});

}  // namespace clusterctl::checks
