#include "controller/views/health_view.h"

#include "common/json_fields.h"
#include "common/json_text.h"
#include "common/strings.h"

namespace clusterctl {

const std::vector<std::string>& DefaultHealthChecks() {
  static const std::vector<std::string> checks = {"clock.offset", "node.disk",       "node.resources", "munge.decode",
                                                  "gpu.driver",   "gpu.count",       "gpu.persistence", "gpu.ecc",
                                                  "gpu.xid",      "ib.ports"};  // report order
  return checks;
}

namespace {

constexpr const char* kTextfileDir = "/var/lib/prometheus/node-exporter";  // node-exporter's node_exporter_textfile_dir

// The checks slurm_health_checks selects, or the default ones.
Result<nlohmann::json> SelectedChecks(const Host& host, const ViewInputs& inputs) {
  std::vector<std::string> names = DefaultHealthChecks();
  if (host.vars.contains("slurm_health_checks") && !host.vars["slurm_health_checks"].is_null()) {
    names = StringsAt(host.vars, "slurm_health_checks");
  }
  if (!inputs.node_checks) return nlohmann::json(names);
  auto checks = inputs.node_checks(names);
  if (!checks.ok()) return Status::InvalidArgument("slurm_health_checks of " + host.name + ": " + checks.status().message());
  return nlohmann::json(*checks);
}

// The validate variables of the node, defaults filled in; node.resources'
// expectations from the facts where the inventory sets none.
nlohmann::json CheckVariables(const Host& host, const nlohmann::json& facts, const ViewInputs& inputs) {
  nlohmann::json vars = inputs.check_defaults;
  for (const auto& [name, value] : host.vars.items()) {
    if (name.rfind("validate_", 0) == 0) vars[name] = value;
  }
  // An integer count or nothing (0): a node's 1e300 CPUs is no integer to
  // convert (facts_check.h bounds what a deploy plans with; this view is
  // pure and takes no bound for granted).
  auto fact = [&](const char* section, const char* field) -> int64_t {
    const nlohmann::json* part = MemberOf(facts, section);
    return part != nullptr ? CountAt(*part, field) : 0;
  };
  if (vars.value("validate_cpus_expected", nlohmann::json()).is_null() && fact("cpu", "cpus") > 0) {
    vars["validate_cpus_expected"] = fact("cpu", "cpus");
  }
  if (vars.value("validate_memory_mib_expected", nlohmann::json()).is_null() && fact("memory", "total_mib") > 0) {
    vars["validate_memory_mib_expected"] = fact("memory", "total_mib");
  }
  // null is "unset" (validate reads the inventory's variables, where an
  // unset threshold is absent): a check variable's declaration refuses a null.
  for (auto it = vars.begin(); it != vars.end();) {
    it = it->is_null() ? vars.erase(it) : std::next(it);
  }
  return vars;
}

}  // namespace

Result<nlohmann::json> BuildHealthView(const Inventory& inventory, const std::map<std::string, nlohmann::json>& facts,
                                       const ViewInputs& inputs) {
  nlohmann::json per_host = nlohmann::json::object();
  const nlohmann::json& cluster = inventory.cluster_vars;
  const std::string node_group = cluster.value("slurm_node_group", std::string("compute"));
  for (const std::string& name : inventory.MembersOf(node_group)) {
    const Host* host = inventory.FindHost(name);
    if (host == nullptr || !host->vars.value("slurm_health_check", true)) continue;
    auto checks = SelectedChecks(*host, inputs);
    if (!checks.ok()) return checks.status();
    auto it = facts.find(name);
    const nlohmann::json host_facts = it == facts.end() ? nlohmann::json(nullptr) : it->second;
    const std::string textfile_dir = host->vars.value("node_exporter_textfile_dir", std::string(kTextfileDir));
    nlohmann::json config = {{"version", 1},
                             {"node", name},
                             {"checks", *checks},
                             {"vars", CheckVariables(*host, host_facts, inputs)},
                             {"textfile", textfile_dir + "/clusterctl_health.prom"}};
    per_host[name] = {{"config", JsonText(config, 2) + "\n"},
                      {"program", "node-program:clusterctl-health"}};
  }
  return nlohmann::json{{"per_host", per_host}};
}

}  // namespace clusterctl
