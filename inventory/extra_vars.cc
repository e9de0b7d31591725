#include "inventory/extra_vars.h"

#include "common/strings.h"
#include "common/yaml_doc.h"

namespace clusterctl {
namespace {

constexpr const char* kOrigin = "-e";

bool IsVariableName(const std::string& key) {
  return !key.empty() && !(key[0] >= '0' && key[0] <= '9') && IsAlnumOr(key, "_");
}

// One KEY=VALUE argument into `extra`.
void ReadAssignment(const std::string& argument, ExtraVars& extra, Diagnostics& diagnostics) {
  const size_t equals = argument.find('=');
  const std::string key = argument.substr(0, equals);
  if (equals == std::string::npos || !IsVariableName(key)) {
    diagnostics.Error({kOrigin, 0, 0}, "'" + argument + "' is not KEY=VALUE (a variable name, '=', a value) or @FILE");
    return;
  }
  const SourceLocation origin{"command line (-e " + argument + ")", 0, 0};
  std::optional<YamlNode> value = ParseYaml(argument.substr(equals + 1), origin.file, YamlLimits{}, diagnostics);
  if (!value) return;
  extra.values[key] = YamlToJson(*value);
  extra.origins[key] = origin;
}

// One @FILE argument (a YAML map of variables) into `extra`.
void ReadFile(const std::string& path, ExtraVars& extra, Diagnostics& diagnostics) {
  std::optional<std::string> text = ReadUserFile(path, YamlLimits{}, diagnostics);
  if (!text) return;
  std::optional<YamlNode> root = ParseYaml(*text, path, YamlLimits{}, diagnostics);
  if (!root) return;
  if (!root->is_map()) {
    diagnostics.Error({path, 0, 0}, std::string("-e @") + path + ": expected a map of variables, got a " + root->KindName());
    return;
  }
  for (size_t i = 0; i < root->entries.size(); ++i) {
    const auto& [key, node] = root->entries[i];
    if (!IsVariableName(key)) {
      diagnostics.Error(root->key_locations[i], "'" + key + "' is not a variable name");
      continue;
    }
    extra.values[key] = YamlToJson(node);
    extra.origins[key] = root->key_locations[i];
  }
}

}  // namespace

std::optional<ExtraVars> ParseExtraVars(const std::vector<std::string>& arguments, Diagnostics& diagnostics) {
  const int errors_before = diagnostics.error_count();
  ExtraVars extra;
  for (const std::string& argument : arguments) {
    if (!argument.empty() && argument[0] == '@') {
      ReadFile(argument.substr(1), extra, diagnostics);
    } else {
      ReadAssignment(argument, extra, diagnostics);
    }
  }
  if (diagnostics.error_count() > errors_before) return std::nullopt;
  return extra;
}

void ApplyExtraVars(const ExtraVars& extra, Inventory& inventory) {
  for (const auto& [key, value] : extra.values.items()) {
    const SourceLocation& origin = extra.origins.at(key);
    inventory.cluster_vars[key] = value;
    inventory.cluster_var_locations[key] = origin;
    for (Host& host : inventory.hosts) {
      host.vars[key] = value;
      host.var_origins[key] = origin;
    }
  }
  inventory.extra_vars = extra.values;
}

}  // namespace clusterctl
