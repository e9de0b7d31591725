#include "controller/catalog/check_variables.h"

#include <cstdio>
#include <cstdlib>

#include "common/yaml_doc.h"
#include "common/yaml_fields.h"
#include "controller/validate/check_spec.h"
#include "controller/validate/peer_judgement.h"

namespace clusterctl {
namespace {

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
  declare(kAcceptanceVariables, "the acceptance checks' shared variables");  // validate/peer_judgement.h
  for (const CheckSpec* check : CheckSpecs()) {
    if (!check->variables.empty()) declare(check->variables, "the " + check->name + " check's variables");
  }
  if (diagnostics.has_errors()) {  // a defect of a check spec, caught by the unit tests
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
