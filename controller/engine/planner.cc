#include "controller/engine/planner.h"

#include <optional>

#include "common/json_text.h"
#include "agent/resources/schema.h"
#include "common/sha256.h"
#include "common/strings.h"
#include "controller/catalog/check_variables.h"
#include "controller/engine/bmc_credentials.h"
#include "controller/engine/kinds/step_kind.h"
#include "controller/validate/check_selection.h"
#include "controller/views/cluster_views.h"
#include "inventory/address.h"
#include "inventory/inventory_json.h"

namespace clusterctl {
namespace {

// One of the host's interfaces as templates see it: the inventory's name and
// address; for IPoIB names, `ipoib`, the `parent` and `pkey` of a P_Key
// child and a parent's `children`; and from the facts, the live `link_type`
// ("infiniband" on a real HCA) and whether it is `infiniband`.
nlohmann::json InterfaceContext(const Interface& i, const Host& host, const nlohmann::json& facts) {
  nlohmann::json link_type = nullptr;
  if (facts.is_object() && facts.contains("interfaces") && facts["interfaces"].is_array()) {
    for (const nlohmann::json& live : facts["interfaces"]) {
      if (live.is_object() && live.value("name", "") == i.name && live.contains("link_type")) link_type = live["link_type"];
    }
  }
  std::optional<IpoibName> ipoib = ParseIpoibName(i.name);
  nlohmann::json children = nlohmann::json::array();
  if (ipoib && ipoib->pkey.empty()) {
    for (const Interface& other : host.interfaces) {
      std::optional<IpoibName> child = ParseIpoibName(other.name);
      if (child && !child->pkey.empty() && child->parent == i.name) children.push_back(other.name);
    }
  }
  const bool is_child = ipoib && !ipoib->pkey.empty();
  return {{"ifname", i.name},
          {"address", i.address},
          {"prefix_length", i.prefix_length < 0 ? nlohmann::json(nullptr) : nlohmann::json(i.prefix_length)},
          {"ipoib", ipoib.has_value()},
          {"parent", is_child ? nlohmann::json(ipoib->parent) : nlohmann::json(nullptr)},
          {"pkey", is_child ? nlohmann::json(ipoib->pkey) : nlohmann::json(nullptr)},
          {"children", children},
          {"link_type", link_type},
          {"infiniband", link_type == "infiniband"}};
}

// A host as templates see it. Interfaces use `ifname` (not `name`) so that
// inside {{#interfaces}} the host's {{name}} stays visible; `ip` is the
// management address when it is an IP literal (null for a DNS name);
// `connection.user` is the user clusterctl logs in as (a role that limits
// who may log in must keep it).
nlohmann::json HostContext(const Host& host, const nlohmann::json& facts, const Inventory& inventory) {
  nlohmann::json in_group = nlohmann::json::object();
  for (const std::string& g : WellKnownGroups()) in_group[g] = false;
  for (const Group& g : inventory.groups) in_group[g.name] = false;
  for (const std::string& g : host.groups) in_group[g] = true;
  nlohmann::json interfaces = nlohmann::json::array();
  for (const Interface& i : host.interfaces) interfaces.push_back(InterfaceContext(i, host, facts));
  const bool ipv6 = host.address.find(':') != std::string::npos;
  return {{"name", host.name},
          {"address", host.address},
          {"ip", IsIpLiteral(host.address) ? nlohmann::json(host.address) : nlohmann::json(nullptr)},
          {"url_host", ipv6 ? "[" + host.address + "]" : host.address},
          {"groups", host.groups},
          {"in_group", in_group},
          {"interfaces", interfaces},
          {"connection", {{"user", host.connection.user}}},
          {"facts", facts}};
}

}  // namespace

const PlannedStep* HostPlan::FindHandler(const std::string& role, const std::string& name) const {
  for (const PlannedStep& h : handlers) {
    if (h.role->name == role && h.step->name == name) return &h;
  }
  return nullptr;
}

nlohmann::json BuildClusterContext(const Inventory& inventory, const std::map<std::string, nlohmann::json>& facts) {
  nlohmann::json hosts = nlohmann::json::array();
  std::map<std::string, size_t> index;
  for (const Host& h : inventory.hosts) {
    auto it = facts.find(h.name);
    index[h.name] = hosts.size();
    hosts.push_back(HostContext(h, it == facts.end() ? nlohmann::json(nullptr) : it->second, inventory));
  }
  nlohmann::json groups = nlohmann::json::object();
  for (const std::string& name : WellKnownGroups()) groups[name] = nlohmann::json::array();
  for (const Group& g : inventory.groups) {
    nlohmann::json members = nlohmann::json::array();
    for (const std::string& m : g.members) members.push_back(hosts[index[m]]);
    groups[g.name] = members;
  }
  // The loader allows one host in each (inventory/loader.cc CheckControllers).
  auto first = [&](const char* group) { return groups[group].empty() ? nlohmann::json(nullptr) : groups[group][0]; };
  return {{"cluster",
           {{"name", inventory.cluster_name},
            {"hosts", hosts},
            {"groups", groups},
            {"controller", first(kGroupController)},
            {"backup_controller", first(kGroupControllerBackup)}}}};
}

ViewInputs ControllerViewInputs() {
  return ViewInputs{WithValidateDefaults(nlohmann::json::object()), NodeChecksSelected};
}

Planner::Planner(PlanInputs inputs)
    : inputs_(std::move(inputs)), cluster_context_(BuildClusterContext(*inputs_.inventory, *inputs_.facts)) {
  nlohmann::json secrets = nlohmann::json::object();
  if (inputs_.secrets) {
    for (const auto& [name, spec] : inputs_.secrets->specs()) {
      if (spec.kind == SecretSpec::Kind::kPassword) secrets[name] = inputs_.secrets->values().at(name);
    }
  }
  cluster_context_["secrets"] = secrets;
  cluster_context_["cluster"]["removed_hosts"] = inputs_.removed_hosts;
  const ViewInputs view_inputs = ControllerViewInputs();
  for (const ClusterView& view : ClusterViews()) {
    auto built = view.build(*inputs_.inventory, *inputs_.facts, view_inputs);
    if (built.ok()) {
      nlohmann::json whole = std::move(built).value();
      if (whole.is_object() && whole.contains("per_host")) {
        per_host_views_[view.name] = std::move(whole["per_host"]);
        whole.erase("per_host");
      }
      if (whole.is_object() && whole.contains(kViewHostProblems)) {
        for (const auto& [host, why] : whole[kViewHostProblems].items()) {
          host_problems_[host].push_back("cluster." + view.name + ": " + why.get<std::string>());
        }
        whole.erase(kViewHostProblems);
      }
      cluster_context_["cluster"][view.name] = std::move(whole);
    } else {
      view_errors_.push_back(built.status().message());
    }
  }
  AddBmcCredentials();
}

// `secrets.bmcs` (bmc_credentials.h): each password masked wherever the
// run's text goes, and kept out of parameters and non-secret files like the
// vault's own secrets.
void Planner::AddBmcCredentials() {
  BmcCredentials bmcs = ReadBmcCredentials(*inputs_.inventory);
  cluster_context_["secrets"]["bmcs"] = std::move(bmcs.list);
  view_errors_.insert(view_errors_.end(), bmcs.problems.begin(), bmcs.problems.end());
  for (const auto& [label, password] : bmcs.passwords) {
    if (inputs_.secrets) inputs_.secrets->AddToMask(label, password);
  }
  bmc_passwords_ = std::move(bmcs.passwords);
}

// Secret values may only travel as the content of a file marked secret:
// never in a parameter (an argv, a path, a line), never in a file whose
// diff would be shown or whose old content would be backed up.
void Planner::CheckNoSecretLeaks(const RoleStep& step, const PlannedStep& planned, const std::string& params,
                                 const Host& host, Diagnostics& diagnostics) const {
  std::map<std::string, std::string> secrets;
  for (const auto& [label, password] : bmc_passwords_) {
    if (password.size() >= kMinCheckedBmcPassword) secrets.emplace(label, password);
  }
  if (inputs_.secrets) secrets.insert(inputs_.secrets->values().begin(), inputs_.secrets->values().end());
  for (const auto& [name, value] : secrets) {
    if (value.empty()) continue;
    if (params.find(value) != std::string::npos) {
      diagnostics.Error(step.where, "'" + step.name + "' for " + host.name + " would put secret " + name +
                                        " in a parameter (shown in plans and command lines); use it only in file content with secret: true");
    } else if (!planned.secret && planned.body.find(value) != std::string::npos) {
      diagnostics.Error(step.where, "'" + step.name + "' for " + host.name + " writes secret " + name +
                                        " into a file not marked secret: true (its diff and backup would expose it)");
    }
  }
}

std::vector<std::string> Planner::HostProblems(const std::string& host) const {
  auto it = host_problems_.find(host);
  return it == host_problems_.end() ? std::vector<std::string>{} : it->second;
}

HostPlan Planner::Plan(const Host& host, Diagnostics& diagnostics) {
  for (const std::string& error : view_errors_) diagnostics.Error({inputs_.inventory->source_file, 0, 0}, error);
  view_errors_.clear();  // reported once
  HostPlan plan;
  plan.host = &host;
  plan.roles = inputs_.catalog->RolesFor(host, *inputs_.inventory, inputs_.only_roles);
  auto facts_it = inputs_.facts->find(host.name);
  const nlohmann::json facts = facts_it == inputs_.facts->end() ? nlohmann::json(nullptr) : facts_it->second;
  nlohmann::json host_context = {{"host", HostContext(host, facts, *inputs_.inventory)}, {"facts", facts}};
  for (const auto& [view, parts] : per_host_views_) {
    host_context["host"][view] = parts.contains(host.name) ? parts[host.name] : nlohmann::json(nullptr);
  }
  const Platforms& platforms = inputs_.catalog->platforms();
  const Release* release = facts.is_object() ? platforms.Find(facts.value("os", nlohmann::json())) : nullptr;
  const Architecture* architecture =
      facts.is_object() ? platforms.FindArchitecture(facts.value("kernel", nlohmann::json())) : nullptr;
  std::vector<const Role*> applicable;
  for (const Role* role : plan.roles) {
    // Role defaults < the host's OS release's values < its architecture's
    // (platforms.yaml; a variable is set by one of the two, never both) <
    // inventory variables (cluster < group < host). Each sets only what the
    // role declares.
    nlohmann::json vars = role->vars;
    for (const nlohmann::json* layer : {release ? &release->vars : nullptr, architecture ? &architecture->vars : nullptr}) {
      if (!layer) continue;
      for (const auto& [key, value] : layer->items()) {
        if (vars.contains(key)) vars[key] = value;
      }
    }
    for (const auto& [key, value] : host.vars.items()) vars[key] = value;
    const std::vector<const nlohmann::json*> stack = {&cluster_context_, &host_context, &vars};
    if (!RoleApplies(*role, stack, host, diagnostics)) continue;
    applicable.push_back(role);
    for (const RoleStep& step : role->steps) {
      if (inputs_.tags.Selects(*role, step)) PlanStep(*role, step, false, stack, plan, diagnostics);
    }
    for (const RoleStep& handler : role->handlers) PlanStep(*role, handler, true, stack, plan, diagnostics);
  }
  plan.roles = std::move(applicable);
  return plan;
}

bool Planner::RoleApplies(const Role& role, const std::vector<const nlohmann::json*>& stack, const Host& host,
                          Diagnostics& diagnostics) const {
  if (!role.when) return true;
  auto applies = role.when->Evaluate(stack);
  if (applies.ok()) return *applies;
  diagnostics.Error(role.where, "when of role " + role.name + " for " + host.name + ": " + applies.status().message());
  return false;
}

void Planner::PlanStep(const Role& role, const RoleStep& step, bool handler,
                       const std::vector<const nlohmann::json*>& stack, HostPlan& plan, Diagnostics& diagnostics) {
  if (step.loop.empty()) {
    PlanOne(role, step, handler, stack, "", plan, diagnostics);
    return;
  }
  const nlohmann::json* items = LookupName(stack, step.loop);
  if (!items || !items->is_array()) {
    diagnostics.Error(step.where, "loop of '" + step.name + "': '" + step.loop + "' " +
                                      (items ? "is not a list" : "is not defined") + " for " + plan.host->name);
    return;
  }
  for (size_t i = 0; i < items->size(); ++i) {
    const nlohmann::json& item = (*items)[i];
    std::string key = item.is_object() && item.contains("name") && item["name"].is_string() ? item["name"].get<std::string>()
                                                                                             : std::to_string(i);
    nlohmann::json item_context = {{"item", item}, {"item_index", i}};
    std::vector<const nlohmann::json*> inner = stack;
    inner.push_back(&item_context);
    PlanOne(role, step, handler, inner, key, plan, diagnostics);
  }
}

void Planner::PlanOne(const Role& role, const RoleStep& step, bool handler,
                      const std::vector<const nlohmann::json*>& stack, const std::string& loop_key, HostPlan& plan,
                      Diagnostics& diagnostics) {
  PlannedStep planned;
  planned.loop_key = loop_key;
  planned.role = &role;
  planned.step = &step;
  planned.handler = handler;
  planned.kind = step.kind;
  if (step.when) {
    auto enabled = step.when->Evaluate(stack);
    if (!enabled.ok()) {
      diagnostics.Error(step.where, "when of '" + step.name + "' for " + plan.host->name + ": " + enabled.status().message());
      return;
    }
    planned.skipped = !*enabled;
  }
  if (planned.skipped) {
    (handler ? plan.handlers : plan.steps).push_back(std::move(planned));
    return;
  }
  const int errors_before = diagnostics.error_count();
  nlohmann::json params = RenderStrings(step.params, stack, step.where, diagnostics);
  KindPlanning planning{step, *plan.host, stack, inputs_, diagnostics, file_digests_};
  FindStepKind(step.kind).Plan(planning, params, planned);
  if (diagnostics.error_count() > errors_before) return;
  {
    const resources::ResourceSpec& spec = *resources::FindResourceSpec(step.kind);
    resources::ResourceSpec rendered_spec = spec;
    rendered_spec.one_of.clear();  // content/template/source were consumed by the kind's Plan
    for (const std::string& problem : resources::ValidateParams(rendered_spec, params)) {
      diagnostics.Error(step.where, "'" + step.name + "' for " + plan.host->name + ": " + problem);
    }
    if (diagnostics.error_count() > errors_before) return;
  }
  for (const auto& spec : resources::FindResourceSpec(step.kind)->params) {
    if (spec.controller_side) params.erase(spec.name);
  }
  planned.params = std::move(params);
  const std::string params_text = JsonText(planned.params);  // once: the leak check and the input hash
  CheckNoSecretLeaks(step, planned, params_text, *plan.host, diagnostics);
  planned.input_hash = Sha256Hex(step.kind + "\n" + params_text + "\n" + Sha256Hex(planned.body));
  (handler ? plan.handlers : plan.steps).push_back(std::move(planned));
}

}  // namespace clusterctl
