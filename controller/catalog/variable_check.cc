#include "controller/catalog/variable_check.h"

#include <functional>
#include <map>
#include <set>
#include <tuple>

#include "agent/resources/schema.h"
#include "common/json_text.h"
#include "common/strings.h"
#include "inventory/inventory_file.h"

namespace clusterctl {
namespace {

using json = nlohmann::json;

// "an integer", "a string", ...: what a value is, for messages.
std::string KindOf(const json& value) {
  if (value.is_number_integer()) return "an integer";
  if (value.is_number()) return "a number";
  if (value.is_boolean()) return "true or false";
  if (value.is_string()) return "a string";
  if (value.is_array()) return "a list";
  if (value.is_object()) return "a map";
  return "nothing";
}

// Whether `value` may replace `default_value`.
bool SameKind(const json& default_value, const json& value) {
  if (default_value.is_number_integer()) return value.is_number_integer();
  if (default_value.is_number()) return value.is_number();
  return default_value.type() == value.type();
}

std::string Shown(const json& value) { return Printable(value.is_string() ? value.get<std::string>() : JsonText(value), 40); }

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

// Why `text` may not be where `use` puts it ("" when it may).
std::string Refusal(const Use& use, const std::string& text, const Inventory& inventory) {
  switch (use.kind) {
    case Use::Kind::kTemplate: return Template::UnsafeFor(use.format, text, use.place);
    case Use::Kind::kName: return use.refuses(text);
    case Use::Kind::kInventoryFile: {
      auto resolved = ResolveInventoryFile(inventory.base_dir, text);
      return resolved.ok() || resolved.status().code() != Status::Code::kInvalidArgument ? ""
                                                                                         : resolved.status().message();
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
        const bool content = step.kind == "file" && key == "content" && value.contains("path") && value["path"].is_string();
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

}  // namespace

void CheckInventoryVariables(const Catalog& catalog, const Inventory& inventory, Diagnostics& diagnostics) {
  std::map<const Role*, std::map<std::string, std::vector<Use>>> uses;
  std::set<std::tuple<std::string, std::string, int, int, std::string>> reported;  // var, origin, about
  auto report = [&](const std::string& name, const SourceLocation& at, const std::string& about,
                    const std::string& message) {
    if (reported.insert({name, at.file, at.line, at.column, about}).second) diagnostics.Error(at, message);
  };
  for (const Host& host : inventory.hosts) {
    for (const Role* role : catalog.RolesFor(host, inventory, {})) {
      if (!uses.count(role)) uses[role] = UsesOf(*role);
      for (const auto& [name, value] : host.vars.items()) {
        auto origin = host.var_origins.find(name);
        const SourceLocation at = origin != host.var_origins.end() ? origin->second
                                                                  : SourceLocation{inventory.source_file, 0, 0};
        const json* default_value = role->vars.contains(name) ? &role->vars[name] : nullptr;
        if (default_value && !default_value->is_null() && !SameKind(*default_value, value)) {
          report(name, at, "type",
                 "variable '" + name + "' must be " + KindOf(*default_value) + " (role " + role->name +
                     "'s default is " + Shown(*default_value) + "), not " + KindOf(value) + " (" + Shown(value) + ")");
        }
        if (auto syntax = role->syntax.find(name); syntax != role->syntax.end() && !value.is_null()) {
          const std::string text = value.is_string() ? value.get<std::string>() : JsonText(value);
          const std::string refused =
              value.is_array() || value.is_object() ? "is " + KindOf(value) + ", not one value" : syntax->second->refuses(text);
          if (!refused.empty()) {
            report(name, at, "syntax",
                   "variable '" + name + "' (" + Printable(text, 40) + ") " + refused + " (role " + role->name +
                       " declares it " + syntax->second->name + ")");
          }
        }
        auto used = uses[role].find(name);
        if (used == uses[role].end() || value.is_object() || value.is_null()) continue;
        for (const Use& use : used->second) {
          // A list is a whole value (a list of packages), not text for a template.
          if (value.is_array() && use.kind == Use::Kind::kTemplate) continue;
          for (const json& item : value.is_array() ? value : json::array({value})) {
            if (item.is_object() || item.is_array() || item.is_null()) continue;
            const std::string text = item.is_string() ? item.get<std::string>() : JsonText(item);
            const std::string unsafe = Refusal(use, text, inventory);
            if (unsafe.empty()) continue;
            report(name, at, use.where,
                   use.kind == Use::Kind::kTemplate
                       ? "variable '" + name + "' (" + Printable(text, 40) + ") " + unsafe + " (" + use.where + ")"
                       : "variable '" + name + "': " + unsafe + " (" + use.where + ")");
          }
        }
      }
    }
  }
}

}  // namespace clusterctl
