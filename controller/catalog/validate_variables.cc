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
validate_ib_write_bw_min_mbps:
  default: null
  type: number
  minimum: 0
  description: ib_write_bw floor in MB/s; null, 88% of the port's line rate
validate_ib_write_bw_message_bytes:
  default: 65536
  minimum: 1
  description: message size the ib_write_bw floor applies to
validate_nccl_busbw_min_gbps:
  default: null
  type: number
  minimum: 0
  description: all_reduce bus bandwidth floor in GB/s; null, by GPU model (node) or IB line rate (cluster)
validate_nccl_small_message_max_us:
  default: 100
  type: number
  minimum: 1
  description: cross-node all_reduce latency of the smallest messages, in microseconds
validate_nccl_tests_dir:
  default: /usr/local/bin
  syntax: path
  description: where all_reduce_perf is looked for (then PATH)
validate_nccl_max_bytes:
  default: 1G
  syntax: size
  description: the largest all_reduce size (all_reduce_perf -e)
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
