#include "agent/resources/schema.h"

#include <algorithm>

#include "common/json_text.h"
#include "common/strings.h"

namespace clusterctl::resources {
const char* ParamTypeName(ParamType type) {
  switch (type) {
    case ParamType::kString: return "a string";
    case ParamType::kInt: return "an integer";
    case ParamType::kBool: return "true or false";
    case ParamType::kStringList: return "a list of strings";
    case ParamType::kMode: return "an octal mode like \"0644\"";
    case ParamType::kStringMap: return "a map of strings";
    case ParamType::kMapList: return "a list of maps";
  }
  return "?";
}

const ParamSpec* ParamWithUse(const std::string& kind, const std::string& name, ParamUse use) {
  const ResourceSpec* spec = FindResourceSpec(kind);
  if (!spec) return nullptr;
  for (const ParamSpec& p : spec->params) {
    if (p.name == name && p.use == use) return &p;
  }
  return nullptr;
}

int ParseMode(const nlohmann::json& value) {
  std::string text;
  if (value.is_string()) {
    text = value.get<std::string>();
  } else if (value.is_number_integer()) {
    // YAML 1.1 reads 0644 as octal 420, YAML 1.2 as decimal 644: accept
    // digits that are valid octal as written.
    text = std::to_string(value.get<long long>());
  } else {
    return -1;
  }
  if (text.empty() || text.size() > 4 || text.find_first_not_of("01234567") != std::string::npos) return -1;
  return static_cast<int>(std::strtol(text.c_str(), nullptr, 8));
}

std::vector<std::string> ValidateParams(const ResourceSpec& spec, const nlohmann::json& params,
                                        std::vector<std::string>* param_of_message) {
  std::vector<std::string> problems;
  auto report = [&](const std::string& param, std::string message) {
    problems.push_back(std::move(message));
    if (param_of_message) param_of_message->push_back(param);
  };
  if (!params.is_object()) {
    report("", spec.kind + " parameters must be a map");
    return problems;
  }
  std::vector<std::string> names;
  for (const ParamSpec& p : spec.params) names.push_back(p.name);
  for (const auto& [name, value] : params.items()) {
    const ParamSpec* found = nullptr;
    for (const ParamSpec& p : spec.params) {
      if (p.name == name) found = &p;
    }
    if (!found) {
      report(name, "unknown parameter '" + name + "' for " + spec.kind + DidYouMean(name, names) +
                       "; allowed: " + Join(names, ", "));
      continue;
    }
    bool ok = true;
    switch (found->type) {
      case ParamType::kString: ok = value.is_string() || value.is_number() || value.is_boolean(); break;
      case ParamType::kInt: ok = value.is_number_integer(); break;
      case ParamType::kBool: ok = value.is_boolean(); break;
      case ParamType::kStringList:
        ok = value.is_string() || (value.is_array() && std::all_of(value.begin(), value.end(), [](const auto& v) {
                                     return v.is_string() || v.is_number();
                                   }));
        break;
      case ParamType::kMode: ok = ParseMode(value) >= 0; break;
      case ParamType::kStringMap: ok = value.is_object(); break;
      case ParamType::kMapList:
        ok = value.is_array() && std::all_of(value.begin(), value.end(), [](const auto& v) { return v.is_object(); });
        break;
    }
    if (!ok) {
      report(name, spec.kind + " parameter '" + name + "' must be " + ParamTypeName(found->type) + ", got " +
                       JsonText(value));
      continue;
    }
    if (found->refuses) {
      for (const auto& item : value.is_array() ? value : nlohmann::json::array({value})) {
        const std::string refused = item.is_string() ? found->refuses(item.get_ref<const std::string&>()) : "";
        if (!refused.empty()) report(name, spec.kind + " parameter '" + name + "': " + refused);
      }
    }
    if (!found->choices.empty() && value.is_string()) {
      const std::string text = value.get<std::string>();
      if (std::find(found->choices.begin(), found->choices.end(), text) == found->choices.end()) {
        report(name, spec.kind + " parameter '" + name + "' must be one of " + Join(found->choices, ", ") +
                         ", got '" + text + "'" + DidYouMean(text, found->choices));
      }
    }
  }
  for (const ParamSpec& p : spec.params) {
    if (p.required && !params.contains(p.name)) report("", spec.kind + " needs parameter '" + p.name + "'");
  }
  if (!spec.one_of.empty() && params.value("state", std::string("present")) != "absent") {
    int given = 0;
    for (const std::string& name : spec.one_of) given += params.contains(name) ? 1 : 0;
    if (given != 1) report("", spec.kind + " needs exactly one of " + Join(spec.one_of, ", "));
  }
  return problems;
}

}  // namespace clusterctl::resources
