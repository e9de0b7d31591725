#include "controller/catalog/variable_check.h"

#include <functional>
#include <map>
#include <set>
#include <tuple>

#include "common/json_text.h"
#include "common/strings.h"

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

// Where a template inserts a variable checked against its format.
struct Use {
  Template::Format format;
  std::string where;  // the template or step, for messages
};

// Every checked use in a role, by the variable's top-level name. Templates
// are parsed once per role, not once per host.
std::map<std::string, std::vector<Use>> UsesOf(const Role& role) {
  std::map<std::string, std::vector<Use>> uses;
  auto add = [&](const Template& t, const std::string& where) {
    for (const std::string& name : t.CheckedNames()) uses[name].push_back({t.format(), where});
  };
  std::function<void(const json&, const RoleStep&)> params = [&](const json& value, const RoleStep& step) {
    if (value.is_string() && value.get_ref<const std::string&>().find("{{") != std::string::npos &&
        !IsSingleTag(value.get<std::string>())) {
      Diagnostics ignored;  // the role loader reported parse errors already
      if (auto t = Template::Parse(value.get<std::string>(), step.where.file, ignored)) {
        add(*t, "step '" + step.name + "' of role " + role.name);
      }
    } else if (value.is_array() || value.is_object()) {
      for (const auto& item : value) params(item, step);
    }
  };
  for (const auto* steps : {&role.steps, &role.handlers}) {
    for (const RoleStep& step : *steps) {
      if (step.content_template) add(*step.content_template, step.template_name);
      params(step.params, step);
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
        auto used = uses[role].find(name);
        if (used == uses[role].end() || value.is_array() || value.is_object() || value.is_null()) continue;
        const std::string text = value.is_string() ? value.get<std::string>() : JsonText(value);
        for (const Use& use : used->second) {
          const std::string unsafe = Template::UnsafeFor(use.format, text);
          if (!unsafe.empty()) {
            report(name, at, use.where,
                   "variable '" + name + "' (" + Printable(text, 40) + ") " + unsafe + " (" + use.where + ")");
          }
        }
      }
    }
  }
}

}  // namespace clusterctl
