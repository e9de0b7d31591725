#include "controller/catalog/check_variables.h"

#include "controller/catalog/builtin_variables.h"

#include "controller/validate/check_spec.h"
#include "controller/validate/peer_judgement.h"

namespace clusterctl {
namespace {

std::map<std::string, VariableSpec> Parse() {
  std::vector<std::pair<std::string, std::string>> texts = {
      {kAcceptanceVariables, "the acceptance checks' shared variables"}};  // validate/peer_judgement.h
  for (const CheckSpec* check : CheckSpecs()) {
    if (!check->variables.empty()) texts.emplace_back(check->variables, "the " + check->name + " check's variables");
  }
  return BuiltInDeclarations(texts, "validate");
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
