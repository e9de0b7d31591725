// The parameters of a resource kind, declared by the kind's own file
// (registry.h) and shared by the controller (which validates role files
// against them with file:line before touching any host) and the agent
// (which trusts only what it validated itself).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace clusterctl::resources {

enum class ParamType { kString, kInt, kBool, kStringList, kMode, kStringMap, kMapList };

// What the role loader makes of a parameter beyond its type, so that it
// knows no kind by name: the kind's own file says it in its table.
enum class ParamUse {
  kPlain,
  kTemplateName,  // a template the loader loads as the step's content (file: template)
  kPathContent,   // text in the format of the file the step's `path` names (file: content)
  kSecretName,    // a secret its role must declare under secrets: (file: secret_content)
  kEarlierSteps,  // names of earlier steps of its role (reboot: after)
};

struct ParamSpec {
  std::string name;
  ParamType type;
  bool required = false;
  std::vector<std::string> choices;  // allowed values for strings
  bool controller_side = false;      // consumed by the controller (content, template, source), not sent
  bool internal = false;             // filled in by the controller; not allowed in role files
  // Why a string (or each string of a list) is refused, "" when it is not:
  // the syntax of a name the agent passes to a command (names.h). Null: any.
  std::string (*refuses)(std::string_view value) = nullptr;
  // A controller-side path of a file the controller reads and sends to the
  // node: it must lie inside the inventory's directory (inventory_file.h).
  bool inventory_file = false;
  ParamUse use = ParamUse::kPlain;
};

struct ResourceSpec {
  std::string kind;
  std::string summary;
  std::vector<ParamSpec> params;
  // Params of which at least one is required (e.g. file: content|template|source unless state=absent).
  std::vector<std::string> one_of;
};

// Building blocks of a parameter table.
inline ParamSpec P(std::string name, ParamType type, bool required = false, std::vector<std::string> choices = {}) {
  return {std::move(name), type, required, std::move(choices), false, false};
}
inline ParamSpec ControllerSide(std::string name, ParamType type) {
  return {std::move(name), type, false, {}, true, false};
}
inline ParamSpec Internal(std::string name, ParamType type) { return {std::move(name), type, false, {}, false, true}; }
inline ParamSpec InventoryFile(std::string name) {
  ParamSpec spec = ControllerSide(std::move(name), ParamType::kString);
  spec.inventory_file = true;
  return spec;
}
inline ParamSpec Used(ParamSpec spec, ParamUse use) {
  spec.use = use;
  return spec;
}
// `spec` whose values must pass `refuses` (a names.h syntax).
inline ParamSpec Refusing(ParamSpec spec, std::string (*refuses)(std::string_view)) {
  spec.refuses = refuses;
  return spec;
}

// Every registered kind's table, by kind name (registry.cc).
const std::vector<ResourceSpec>& ResourceSpecs();
const ResourceSpec* FindResourceSpec(const std::string& kind);
std::vector<std::string> ResourceKinds();
const char* ParamTypeName(ParamType type);
// The parameter `name` of `kind` when its use is `use`; null otherwise (an
// unknown kind or parameter included).
const ParamSpec* ParamWithUse(const std::string& kind, const std::string& name, ParamUse use);

// Checks `params` against the spec of `kind`: unknown names, missing required
// ones, wrong types, values outside the choices, values a parameter's
// `refuses` refuses. Returns one message per problem (empty when valid);
// `param_of_message[i]` names the parameter the i-th message is about (""
// for the whole resource).
std::vector<std::string> ValidateParams(const ResourceSpec& spec, const nlohmann::json& params,
                                        std::vector<std::string>* param_of_message = nullptr);

// "0644" / "644" / 420 -> 0644; -1 when not a valid mode.
int ParseMode(const nlohmann::json& value);

}  // namespace clusterctl::resources
