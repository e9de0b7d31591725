#include "controller/catalog/builtin_variables.h"

#include <cstdio>
#include <cstdlib>

#include "common/yaml_doc.h"
#include "common/yaml_fields.h"

namespace clusterctl {

std::map<std::string, VariableSpec> BuiltInDeclarations(
    const std::vector<std::pair<std::string, std::string>>& texts, const std::string& declared_by) {
  Diagnostics diagnostics;
  YamlFields fields(diagnostics);
  std::map<std::string, VariableSpec> out;
  for (const auto& [text, where] : texts) {
    std::optional<YamlNode> root = ParseYaml(text, where, YamlLimits{}, diagnostics);
    if (!root || !root->is_map()) continue;
    for (const auto& [name, node] : root->entries) {
      auto spec = ParseVariableSpec(name, node, false, fields);
      if (!spec) continue;
      spec->declared_by = declared_by;
      if (!out.emplace(name, std::move(*spec)).second) diagnostics.Error(SourceLocation{where}, "'" + name + "' is declared twice");
    }
  }
  if (diagnostics.has_errors()) {  // a defect of a built-in declaration, caught by the unit tests
    std::fprintf(stderr, "%s", diagnostics.ToString().c_str());
    std::abort();
  }
  return out;
}

bool IsBuiltIn(const VariableSpec& spec) { return spec.declared_by == "validate" || spec.declared_by == "deploy"; }

std::string DeclaredByText(const VariableSpec& spec) {
  return IsBuiltIn(spec) ? spec.declared_by : "role " + spec.declared_by;
}

}  // namespace clusterctl
