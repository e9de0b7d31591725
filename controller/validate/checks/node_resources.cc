// node.resources: the node still has the CPUs and memory it had when it was
// deployed (a DIMM or a socket lost at a reboot). slurmd registers what it
// finds, so a node short of slurm.conf's CPUs= or RealMemory= is drained by
// slurmctld itself only at its next registration; this check says so at the
// next health run, with the numbers. The expectations are variables: the
// Slurm health check's configuration sets them from the facts at deploy;
// in validate they are the admin's (unset: a skip).
#include "common/json_fields.h"
#include "common/strings.h"
#include "controller/validate/checks/common.h"

namespace clusterctl::checks {
namespace {

constexpr const char* kCpus = "validate_cpus_expected";
constexpr const char* kMemory = "validate_memory_mib_expected";

bool IsSet(const NodeView& v, const char* name) { return v.vars.contains(name) && v.vars[name].is_number(); }
bool Expected(const NodeView& v) { return IsSet(v, kCpus) || IsSet(v, kMemory); }

const Requirement kExpectations{
    Expected, [](const NodeView& v) {
      return std::string("no expected CPU or memory count for ") + v.host() + " (" + kCpus + ", " + kMemory +
             "; the Slurm health check sets them from the facts at deploy)";
    }};

double FactAt(const nlohmann::json& facts, const char* section, const char* field) {
  if (!facts.contains(section) || !facts[section].is_object()) return -1;
  return NumberAt(facts[section], field, -1);
}

CheckResult Judge(const NodeView& v) {
  const double cpus = FactAt(v.node.facts, "cpu", "cpus");
  const double memory = FactAt(v.node.facts, "memory", "total_mib");
  const double tolerance = NumberAt(v.vars, "validate_memory_tolerance_percent", 2);
  std::vector<std::string> short_of, measured, threshold;
  if (IsSet(v, kCpus)) {
    const double want = NumberAt(v.vars, kCpus, 0);
    measured.push_back(cpus < 0 ? "CPUs unknown" : FormatNumber(cpus) + " CPUs");
    threshold.push_back(">= " + FormatNumber(want) + " CPUs");
    if (cpus < want) short_of.push_back(cpus < 0 ? "the facts give no CPU count" : FormatNumber(cpus) + " CPUs, " + FormatNumber(want) + " expected");
  }
  if (IsSet(v, kMemory)) {
    const double want = NumberAt(v.vars, kMemory, 0);
    const double floor = want * (100 - tolerance) / 100;
    measured.push_back(memory < 0 ? "memory unknown" : FormatNumber(memory) + " MiB");
    threshold.push_back(">= " + FormatNumber(floor) + " MiB");
    if (memory < floor) {
      short_of.push_back(memory < 0 ? "the facts give no memory size" : FormatNumber(memory) + " MiB of memory, " + FormatNumber(want) + " expected");
    }
  }
  if (!short_of.empty()) {
    return Fail("node.resources", kNode, v.host(), Join(short_of, "; "), {}, Join(measured, ", "), Join(threshold, ", "));
  }
  return Pass("node.resources", kNode, v.host(), Join(measured, ", "), Join(threshold, ", "));
}

const CheckRegistration kNodeResources({.name = "node.resources",
                                        .scope = kNode,
                                        .summary = "the CPUs and memory the node had at deploy",
                                        .rank = 27,
                                        .requirements = {kExpectations},
                                        .verdict = Judge,
                                        .variables = R"(
validate_cpus_expected:
  default: null
  type: integer
  minimum: 1
  description: the CPUs node.resources expects (unset, not judged in validate; the Slurm health check sets it from the facts at deploy)
validate_memory_mib_expected:
  default: null
  type: integer
  minimum: 1
  description: the memory in MiB node.resources expects (unset, not judged in validate; the Slurm health check sets it from the facts at deploy)
validate_memory_tolerance_percent:
  default: 2
  type: number
  minimum: 0
  maximum: 50
  description: how far below validate_memory_mib_expected the memory may be, in percent (the kernel's own share varies slightly between boots)
)"});

}  // namespace
}  // namespace clusterctl::checks
