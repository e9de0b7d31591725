#include "controller/catalog/variable_check.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <tuple>

#include "agent/resources/schema.h"
#include "common/json_text.h"
#include "common/strings.h"
#include "controller/catalog/builtin_variables.h"
#include "inventory/inventory_file.h"
#include "inventory/sensitive_file.h"

namespace clusterctl {
namespace {

using json = nlohmann::json;

// Where a role puts a variable, and what its value must be there.
struct Use {
  enum class Kind {
    kTemplate,       // inserted as text into a template of `format`
    kName,           // the whole value of a parameter whose syntax `refuses` checks (a package name)
    kInventoryFile,  // the whole value of a parameter naming a file sent to nodes
  };
  Kind kind = Kind::kTemplate;
  Template::Format format = Template::Format::kLines;
  ValuePlace place = ValuePlace::kBare;
  std::string (*refuses)(std::string_view) = nullptr;
  std::string where;  // the template or step, for messages
};

// Why `text` may not be where `use` puts it ("" when it may). A file the
// declaration (`file: true`) checks is not checked again here for what it
// holds (variable_spec.cc refuses a connection key, the state, a private key).
std::string Refusal(const Use& use, const std::string& text, const ValueCheckContext& context, bool declared_file) {
  switch (use.kind) {
    case Use::Kind::kTemplate: return Template::UnsafeFor(use.format, text, use.place);
    case Use::Kind::kName: return use.refuses(text);
    case Use::Kind::kInventoryFile: {
      auto resolved = ResolveInventoryFile(context.inventory_dir, text);
      if (!resolved.ok()) {
        return resolved.status().code() != Status::Code::kInvalidArgument ? "" : resolved.status().message();
      }
      if (declared_file) return "";
      const std::string refused = SensitiveFileRefusal(*resolved, context.inventory_dir, context.connection_keys, false);
      return refused.empty() ? "" : "'" + Printable(text, 80) + "' is not sent to nodes: " + refused;
    }
  }
  return "";
}

// The uses of a step parameter that is one tag: "{{grafana_repository_key_file}}",
// ["{{mariadb_package}}", slurmdbd].
void AddWholeValueUses(const RoleStep& step, const std::string& where, std::map<std::string, std::vector<Use>>& uses) {
  const resources::ResourceSpec* spec = resources::FindResourceSpec(step.kind);
  if (!spec || !step.params.is_object()) return;
  for (const resources::ParamSpec& param : spec->params) {
    if (!param.refuses && !param.inventory_file) continue;
    auto value = step.params.find(param.name);
    if (value == step.params.end()) continue;
    for (const json& item : value->is_array() ? *value : json::array({*value})) {
      auto name = item.is_string() ? SingleTagName(item.get<std::string>()) : std::nullopt;
      if (!name) continue;
      Use use;
      use.kind = param.inventory_file ? Use::Kind::kInventoryFile : Use::Kind::kName;
      use.refuses = param.refuses;
      use.where = step.kind + " parameter '" + param.name + "' of " + where;
      uses[name->substr(0, name->find('.'))].push_back(use);
    }
  }
}

// Every checked use in a role, by the variable's top-level name. Templates
// are parsed once per role, not once per host.
std::map<std::string, std::vector<Use>> UsesOf(const Role& role) {
  std::map<std::string, std::vector<Use>> uses;
  auto add = [&](const Template& t, const std::string& where) {
    for (const Template::Slot& slot : t.CheckedSlots()) {
      uses[slot.name].push_back({Use::Kind::kTemplate, t.format(), slot.place, nullptr, where});
    }
  };
  // A file step's inline content has the format of the file it writes (its
  // path's); every other parameter is one line.
  std::function<void(const json&, const RoleStep&, Template::Format)> params = [&](const json& value, const RoleStep& step,
                                                                                   Template::Format format) {
    if (value.is_string() && value.get_ref<const std::string&>().find("{{") != std::string::npos &&
        !IsSingleTag(value.get<std::string>())) {
      Diagnostics ignored;  // the role loader reported parse errors already
      if (auto t = Template::Parse(value.get<std::string>(), step.where.file, ignored, 1, 1, format)) {
        add(*t, "step '" + step.name + "' of role " + role.name);
      }
    } else if (value.is_object()) {
      for (const auto& [key, item] : value.items()) {
        const bool content = resources::ParamWithUse(step.kind, key, resources::ParamUse::kPathContent) &&
                             value.contains("path") && value["path"].is_string();
        params(item, step, content ? Template::FormatOf(value["path"].get<std::string>()) : Template::Format::kLines);
      }
    } else if (value.is_array()) {
      for (const auto& item : value) params(item, step, Template::Format::kLines);
    }
  };
  for (const auto* steps : {&role.steps, &role.handlers}) {
    for (const RoleStep& step : *steps) {
      if (step.content_template) add(*step.content_template, step.template_name);
      params(step.params, step, Template::Format::kLines);
      AddWholeValueUses(step, "step '" + step.name + "' of role " + role.name, uses);
    }
  }
  return uses;
}

// One place the inventory sets a variable: the cluster's, a group's or a
// host's `vars` (a host pattern's vars once for all its hosts).
struct Definition {
  std::string name;
  const json* value;
  SourceLocation at;
};

std::vector<Definition> DefinitionsOf(const Inventory& inventory) {
  std::vector<Definition> definitions;
  std::set<std::tuple<std::string, std::string, int, int>> seen;
  auto add = [&](const std::string& name, const json& value, const SourceLocation& at) {
    if (seen.insert({name, at.file, at.line, at.column}).second) definitions.push_back({name, &value, at});
  };
  auto located = [&](const json& vars, const std::map<std::string, SourceLocation>& locations) {
    for (const auto& [name, value] : vars.items()) {
      auto at = locations.find(name);
      add(name, value, at != locations.end() ? at->second : SourceLocation{inventory.source_file, 0, 0});
    }
  };
  located(inventory.cluster_vars, inventory.cluster_var_locations);
  for (const Group& group : inventory.groups) located(group.vars, group.var_locations);
  for (const Host& host : inventory.hosts) located(host.vars, host.var_origins);
  return definitions;
}

// " (did you mean 'X'?)": a close spelling, or a declared name that ends in
// this one (ib_rate_gbps: validate_ib_rate_gbps).
std::string SuggestVariable(const std::string& name, const std::vector<std::string>& known) {
  std::string close = DidYouMean(name, known);
  if (!close.empty()) return close;
  for (const std::string& candidate : known) {
    if (candidate.size() > name.size() && candidate.compare(candidate.size() - name.size(), name.size(), name) == 0 &&
        candidate[candidate.size() - name.size() - 1] == '_') {
      return " (did you mean '" + candidate + "'?)";
    }
  }
  return "";
}

// The role that declares `name` a secret; "" when none does.
std::string SecretOwner(const Catalog& catalog, const std::string& name) {
  for (const auto& [role_name, role] : catalog.roles()) {
    if (role.secrets.count(name) != 0) return role_name;
  }
  return "";
}

// The declaration's own rules: known name, type, allowed values, syntax, bounds, files.
void CheckDeclared(const Catalog& catalog, const ValueCheckContext& context, const Definition& d,
                   const std::vector<std::string>& known, bool catalog_complete, Diagnostics& diagnostics) {
  const VariableSpec* spec = catalog.FindVariable(d.name);
  if (!spec) {
    if (std::string role = SecretOwner(catalog, d.name); !role.empty()) {
      diagnostics.Error(d.at, "'" + d.name + "' is a secret (role " + role +
                                  "): secrets are generated and kept in the state, not set; use deploy --rotate-secret " +
                                  d.name + " to replace it");
      return;
    }
  }
  if (!spec && !catalog_complete) return;
  if (!spec) {
    diagnostics.Error(d.at, "unknown variable '" + Printable(d.name, 60) + "': no role and no check reads it" +
                                SuggestVariable(d.name, known) + " (clusterctl vars lists the variables)");
    return;
  }
  const std::string owner = DeclaredByText(*spec);
  for (const std::string& problem : CheckVariableValue(*spec, *d.value, d.name, context)) {
    diagnostics.Error(d.at, "variable " + problem + " (" + owner + ")");
  }
}

// Where roles put it: templates' formats, names, files sent to nodes.
void CheckUses(const std::vector<Use>& uses, const ValueCheckContext& context, bool declared_file, const Definition& d,
               Diagnostics& diagnostics) {
  const json& value = *d.value;
  if (value.is_object() || value.is_null()) return;
  std::set<std::string> reported;
  for (const Use& use : uses) {
    // A list is a whole value (a list of packages), not text for a template.
    if (value.is_array() && use.kind == Use::Kind::kTemplate) continue;
    for (const json& item : value.is_array() ? value : json::array({value})) {
      if (item.is_object() || item.is_array() || item.is_null()) continue;
      const std::string text = item.is_string() ? item.get<std::string>() : JsonText(item);
      const std::string unsafe = Refusal(use, text, context, declared_file);
      if (unsafe.empty() || !reported.insert(use.where).second) continue;
      diagnostics.Error(d.at, use.kind == Use::Kind::kTemplate
                                  ? "variable '" + d.name + "' (" + Printable(text, 40) + ") " + unsafe + " (" + use.where + ")"
                                  : "variable '" + d.name + "': " + unsafe + " (" + use.where + ")");
    }
  }
}

}  // namespace

void CheckInventoryVariables(const Catalog& catalog, const Inventory& inventory, Diagnostics& diagnostics,
                             bool catalog_complete) {
  std::map<std::string, std::vector<Use>> uses;  // every role's, by variable
  for (const auto& [name, role] : catalog.roles()) {
    for (auto& [variable, role_uses] : UsesOf(role)) {
      uses[variable].insert(uses[variable].end(), role_uses.begin(), role_uses.end());
    }
  }
  std::vector<std::string> known;
  for (const auto& [name, spec] : catalog.variables()) known.push_back(name);
  ValueCheckContext context{inventory.base_dir, false, ConnectionKeysOf(inventory)};
  for (const Definition& d : DefinitionsOf(inventory)) {
    auto used = uses.find(d.name);
    context.containment_checked_by_step =
        used != uses.end() && std::any_of(used->second.begin(), used->second.end(), [](const Use& u) {
          return u.kind == Use::Kind::kInventoryFile;
        });
    CheckDeclared(catalog, context, d, known, catalog_complete, diagnostics);
    const VariableSpec* spec = catalog.FindVariable(d.name);
    if (used != uses.end()) CheckUses(used->second, context, spec && spec->file, d, diagnostics);
  }
}

}  // namespace clusterctl
