#include "controller/catalog/validate_variables.h"

#include <cstdio>
#include <cstdlib>

#include "common/yaml_doc.h"
#include "common/yaml_fields.h"
#include "controller/validate/check_spec.h"

namespace clusterctl {
namespace {

// In the role files' declaration format (variable_spec.h), so one parser and
// one documentation generator serve both. A null default: validate computes
// it from the node (docs/validation.md says how).
constexpr const char* kDeclarations = R"(
validate_clock_offset_max_ms:
  default: 100
  type: number
  minimum: 0
  description: largest |offset| from chrony's reference, in ms (clock.offset)
validate_gpus_expected:
  default: null
  type: integer
  minimum: 0
  description: GPUs every node must show (gpu.count); null, the PCI count
validate_gpu_aggregate_uncorrectable_max:
  default: 0
  minimum: 0
  description: lifetime uncorrectable ECC errors a GPU may have had (gpu.ecc)
validate_gpu_xid_ignore:
  default: []
  items: {type: integer, minimum: 0}
  description: Xid codes not counted by gpu.xid (e.g. [13, 31, 43], application faults)
validate_gpu_ecc_required:
  default: true
  description: ECC must be on (gpu.ecc); false makes ECC off or absent a skip
validate_gpu_pcie_gen_min:
  default: null
  type: integer
  minimum: 1
  description: PCIe generation every GPU must reach when not idle; null, each GPU's maximum
validate_gpu_pcie_width_min:
  default: null
  type: integer
  minimum: 1
  description: PCIe lanes every GPU must have trained; null, each GPU's maximum width
validate_gpu_nvlinks:
  default: null
  type: integer
  minimum: 0
  description: NVLink links every GPU must have up; null, the model's count or the most any GPU has
validate_gpu_nvlink_gbps:
  default: null
  type: number
  minimum: 0
  description: speed of each NVLink link in GB/s; null, the fastest link of the node
validate_ib_ports:
  default: []
  items: {type: string, syntax: ib-port}
  description: the InfiniBand ports every node must have up, DEVICE/PORT; empty, every InfiniBand port found
validate_ib_rate_gbps:
  default: null
  type: number
  minimum: 1
  description: rate each expected port must reach, Gb/s; null, the fastest expected port of the node
)";

std::map<std::string, VariableSpec> Parse() {
  Diagnostics diagnostics;
  YamlFields fields(diagnostics);
  std::map<std::string, VariableSpec> out;
  auto declare = [&](const std::string& text, const std::string& where) {
    std::optional<YamlNode> root = ParseYaml(text, where, YamlLimits{}, diagnostics);
    if (!root || !root->is_map()) return;
    for (const auto& [name, node] : root->entries) {
      auto spec = ParseVariableSpec(name, node, false, fields);
      if (!spec) continue;
      spec->declared_by = "validate";
      if (!out.emplace(name, std::move(*spec)).second) diagnostics.Error(SourceLocation{where}, "'" + name + "' is declared twice");
    }
  };
  declare(kDeclarations, "validate_variables.cc");
  for (const CheckSpec* check : CheckSpecs()) {
    if (!check->variables.empty()) declare(check->variables, "the " + check->name + " check's variables");
  }
  if (diagnostics.has_errors()) {  // a defect of this file, caught by its unit test
    std::fprintf(stderr, "%s", diagnostics.ToString().c_str());
    std::abort();
  }
  return out;
}

}  // namespace

const std::map<std::string, VariableSpec>& ValidateVariables() {
  static const std::map<std::string, VariableSpec> variables = Parse();
  return variables;
}

nlohmann::json WithValidateDefaults(const nlohmann::json& vars) {
  nlohmann::json resolved = vars.is_object() ? vars : nlohmann::json::object();
  for (const auto& [name, spec] : ValidateVariables()) {
    if (!resolved.contains(name) && spec.has_default) resolved[name] = spec.default_value;
  }
  return resolved;
}

}  // namespace clusterctl
