#include "health/health_config.h"

#include "common/strings.h"
#include "controller/validate/check_spec.h"

namespace clusterctl::health {

namespace {

// A registered check a node judges alone (check_spec.h's RunsOnNodeAlone).
bool RunnableOnNode(const std::string& check) {
  const CheckSpec* spec = FindCheckSpec(check);
  return spec != nullptr && RunsOnNodeAlone(*spec);
}

// Node names reach scontrol as one argv word: a Slurm node name's characters only.
bool IsNodeName(const std::string& name) {
  return !name.empty() && name.size() <= 64 && name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") == std::string::npos;
}

void ReadChecks(const nlohmann::json& list, HealthConfig& config, std::vector<std::string>& problems) {
  if (!list.is_array()) {
    problems.push_back("checks: a list of check names is needed");
    return;
  }
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string where = "checks[" + std::to_string(i) + "]";
    if (!list[i].is_string()) {
      problems.push_back(where + ": a check name is needed");
    } else if (!RunnableOnNode(list[i].get<std::string>())) {
      problems.push_back(where + ": no node check '" + Printable(list[i].get<std::string>(), 60) + "' that runs on a node");
    } else {
      config.checks.push_back(list[i].get<std::string>());
    }
  }
}

}  // namespace

Result<HealthConfig> ParseHealthConfig(const std::string& text) {
  nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return Status::InvalidArgument("not a JSON object");
  std::vector<std::string> problems;
  HealthConfig config;
  if (!doc.contains("version") || doc["version"] != kConfigVersion) {
    problems.push_back("version: " + std::to_string(kConfigVersion) + " is needed (this clusterctl-health reads version " +
                       std::to_string(kConfigVersion) + ")");
  }
  if (doc.contains("node") && doc["node"].is_string() && IsNodeName(doc["node"].get<std::string>())) {
    config.node = doc["node"].get<std::string>();
  } else {
    problems.push_back("node: a Slurm node name is needed (letters, digits, '-', '_', '.')");
  }
  ReadChecks(doc.value("checks", nlohmann::json()), config, problems);
  if (doc.contains("vars") && !doc["vars"].is_object()) problems.push_back("vars: an object is needed");
  if (doc.contains("vars") && doc["vars"].is_object()) config.vars = doc["vars"];
  if (doc.contains("textfile")) {
    const nlohmann::json& path = doc["textfile"];
    if (!path.is_string() || (!path.get<std::string>().empty() && path.get<std::string>().front() != '/')) {
      problems.push_back("textfile: an absolute path or \"\" is needed");
    } else {
      config.textfile = path.get<std::string>();
    }
  }
  if (!problems.empty()) return Status::InvalidArgument(Join(problems, "; "));
  return config;
}

}  // namespace clusterctl::health
