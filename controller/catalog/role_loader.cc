// Loading role files into the Catalog, with every problem reported as
// file:line before anything is touched.
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <set>

#include "agent/resources/schema.h"
#include "common/json_text.h"
#include "common/strings.h"
#include "common/yaml_fields.h"
#include "controller/catalog/role.h"

namespace clusterctl {
namespace {

const std::vector<std::string> kRoleKeys = {"version", "description", "applies_to", "when", "tags", "depends_on",
                                            "needs",     "waits_for", "vars", "syntax", "secrets", "steps", "handlers"};
const std::vector<std::string> kStepMetaKeys = {"name", "when", "notify", "tags", "loop", "waits_for", "maintenance"};

bool IsRoleName(const std::string& name) {
  return !name.empty() && std::isalpha(static_cast<unsigned char>(name[0])) &&
         name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-_") == std::string::npos;
}

class RoleParser {
 public:
  RoleParser(const std::string& file, const Catalog::Sources& sources, YamlFields& fields,
             std::map<std::string, std::shared_ptr<const Template>>& templates)
      : file_(file), sources_(sources), fields_(fields), templates_(templates) {}

  std::optional<Role> Parse(const YamlNode& root, const std::string& name) {
    Role role;
    role.name = name;
    role.file = file_;
    role.where = {file_, 1, 1};
    if (!fields_.ExpectMap(root, "role " + name, false)) return std::nullopt;
    fields_.CheckKnownKeys(root, kRoleKeys, "role '" + name + "'");
    if (const YamlNode* v = root.Find("version")) {
      if (auto version = fields_.Integer(*v, "version", 1, 1000)) {
        role.format_version = static_cast<int>(*version);
        if (*version > kRoleFormatVersion) {
          fields_.Error(v->location, "role format version " + std::to_string(*version) +
                                         " is not supported (this clusterctl reads 1 to " +
                                         std::to_string(kRoleFormatVersion) + ")");
        }
      }
    }
    if (const YamlNode* v = root.Find("description")) role.description = fields_.String(*v, "description").value_or("");
    if (const YamlNode* v = root.Find("applies_to")) role.applies_to = fields_.StringList(*v, "applies_to").value_or(std::vector<std::string>{});
    if (const YamlNode* v = root.Find("tags")) role.tags = fields_.StringList(*v, "tags").value_or(std::vector<std::string>{});
    if (const YamlNode* v = root.Find("depends_on")) role.depends_on = fields_.StringList(*v, "depends_on").value_or(std::vector<std::string>{});
    if (const YamlNode* v = root.Find("needs")) role.needs = fields_.StringList(*v, "needs").value_or(std::vector<std::string>{});
    if (const YamlNode* v = root.Find("waits_for")) role.waits_for = ParseWaits(*v);
    if (const YamlNode* v = root.Find("when")) role.when = ParseWhen(*v);
    if (const YamlNode* v = root.Find("vars")) ParseVars(*v, role);
    if (const YamlNode* v = root.Find("syntax")) ParseSyntax(*v, role);
    if (const YamlNode* v = root.Find("secrets")) ParseSecrets(*v, role);
    if (const YamlNode* v = root.Find("steps")) ParseSteps(*v, role.steps, "step");
    if (const YamlNode* v = root.Find("handlers")) ParseSteps(*v, role.handlers, "handler");
    CheckWaitsBefore(role);
    for (const RoleStep& step : role.steps) {
      for (const std::string& handler : step.notify) {
        if (ParseHandlerRef(handler, name).other_role) continue;  // checked once all roles are loaded
        if (!role.FindHandler(handler)) {
          std::vector<std::string> names;
          for (const RoleStep& h : role.handlers) names.push_back(h.name);
          fields_.Error(step.where, "step '" + step.name + "' notifies handler '" + handler +
                                        "', which role " + name + " does not define" + DidYouMean(handler, names));
        }
      }
    }
    return role;
  }

 private:
  // Each waits_for `before` names a step of the role.
  void CheckWaitsBefore(const Role& role) {
    std::vector<std::string> names;
    for (const RoleStep& step : role.steps) names.push_back(step.name);
    for (const RoleWait& wait : role.waits_for) {
      if (wait.before.empty() || std::find(names.begin(), names.end(), wait.before) != names.end()) continue;
      fields_.Error(wait.where, "waits_for before: '" + wait.before + "' is not a step of role " + role.name +
                                    DidYouMean(wait.before, names));
    }
  }

  // vars: declarations (format 3: variable_spec.h), or defaults alone
  // (formats 1 and 2: the declaration is inferred from the default).
  void ParseVars(const YamlNode& node, Role& role) {
    if (!fields_.ExpectMap(node, "vars")) return;
    for (size_t i = 0; i < node.entries.size(); ++i) {
      const auto& [name, value] = node.entries[i];
      if (role.format_version < 3) {
        role.vars[name] = YamlToJson(value);
        role.variables[name] = InferVariableSpec(name, role.vars[name]);
        role.variables[name].where = node.key_locations[i];
      } else if (value.is_map() && value.entries.size() == 1 && value.entries[0].first == "from") {
        if (auto owner = fields_.String(value.entries[0].second, "from of " + name)) role.variables_from[name] = *owner;
        role.vars[name] = nullptr;  // the owner's default, once every role is loaded
      } else if (auto spec = ParseVariableSpec(name, value, false, fields_)) {
        role.vars[name] = spec->default_value;
        role.variables[name] = std::move(*spec);
      }
    }
    for (auto& [name, spec] : role.variables) spec.declared_by = role.name;
  }

  // syntax: {prometheus_listen: address:port} (format 2 only; format 3
  // writes `syntax:` in the declaration). Each names a variable of `vars`.
  void ParseSyntax(const YamlNode& node, Role& role) {
    if (role.format_version >= 3) {
      fields_.Error(node.location, "role format 3 declares a variable's syntax in its declaration (vars: NAME: {syntax: ...})");
      return;
    }
    if (!fields_.ExpectMap(node, "syntax")) return;
    for (size_t i = 0; i < node.entries.size(); ++i) {
      const std::string& name = node.entries[i].first;
      const YamlNode& value = node.entries[i].second;
      if (!role.variables.count(name)) {
        fields_.Error(node.key_locations[i], "syntax of '" + name + "': not a variable of this role's vars");
        continue;
      }
      auto syntax_name = fields_.String(value, "syntax of " + name);
      if (!syntax_name) continue;
      const ValueSyntax* syntax = FindValueSyntax(*syntax_name);
      if (!syntax) {
        fields_.Error(value.location, "unknown syntax '" + *syntax_name + "' (one of: " + Join(ValueSyntaxNames(), ", ") +
                                          ")" + DidYouMean(*syntax_name, ValueSyntaxNames()));
        continue;
      }
      VariableSpec& spec = role.variables[name];
      spec.syntax = syntax;
      for (const std::string& problem : DefaultProblems(spec, "the default of '" + name + "'")) {
        fields_.Error(value.location, problem);
      }
    }
  }

  // secrets: {munge_key: {bytes: 1024}, slurmdbd_password: {password: 32}}
  void ParseSecrets(const YamlNode& node, Role& role) {
    if (!fields_.ExpectMap(node, "secrets")) return;
    for (size_t i = 0; i < node.entries.size(); ++i) {
      const std::string& name = node.entries[i].first;
      const YamlNode& spec_node = node.entries[i].second;
      if (name.empty() || name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") != std::string::npos) {
        fields_.Error(node.key_locations[i], "secret name '" + name + "' must be lowercase letters, digits or '_'");
        continue;
      }
      if (!fields_.ExpectMap(spec_node, "secret " + name, false)) continue;
      fields_.CheckKnownKeys(spec_node, {"bytes", "password"}, "secret " + name);
      SecretSpec spec;
      const YamlNode* bytes = spec_node.Find("bytes");
      const YamlNode* password = spec_node.Find("password");
      if ((bytes != nullptr) == (password != nullptr)) {
        fields_.Error(spec_node.location, "secret " + name + " needs exactly one of 'bytes: N' (random bytes) or 'password: N' (letters and digits)");
        continue;
      }
      spec.kind = bytes ? SecretSpec::Kind::kBytes : SecretSpec::Kind::kPassword;
      auto size = fields_.Integer(bytes ? *bytes : *password, "secret " + name + " size", 16, 1 << 20);
      if (!size) continue;
      spec.size = static_cast<size_t>(*size);
      role.secrets[name] = spec;
    }
  }

  std::optional<WhenExpression> ParseWhen(const YamlNode& node) {
    auto text = fields_.String(node, "when");
    if (!text) return std::nullopt;
    auto expression = WhenExpression::Parse(*text);
    if (expression.ok()) return std::move(expression).value();
    fields_.Error(node.location, "when: " + expression.status().message());
    return std::nullopt;
  }

  std::vector<RoleWait> ParseWaits(const YamlNode& node) {
    std::vector<RoleWait> waits;
    if (!fields_.ExpectSequence(node, "waits_for")) return waits;
    for (const YamlNode& item : node.items) {
      if (!fields_.ExpectMap(item, "each waits_for entry", false)) continue;
      fields_.CheckKnownKeys(item, {"role", "group", "before"}, "waits_for entry");
      RoleWait wait;
      wait.where = item.location;
      if (const YamlNode* r = item.Find("role")) wait.role = fields_.String(*r, "waits_for role").value_or("");
      if (const YamlNode* g = item.Find("group")) wait.group = fields_.String(*g, "waits_for group").value_or("");
      if (const YamlNode* b = item.Find("before")) wait.before = fields_.String(*b, "waits_for before").value_or("");
      if (wait.role.empty() || wait.group.empty()) {
        fields_.Error(item.location, "waits_for entries need 'role' and 'group'");
        continue;
      }
      waits.push_back(wait);
    }
    return waits;
  }

  void ParseSteps(const YamlNode& node, std::vector<RoleStep>& out, const std::string& what) {
    if (!fields_.ExpectSequence(node, what + "s")) return;
    std::set<std::string> names;
    for (const YamlNode& item : node.items) {
      if (!fields_.ExpectMap(item, "each " + what, false)) continue;
      RoleStep step;
      step.where = item.location;
      std::vector<std::string> kinds;
      for (size_t i = 0; i < item.entries.size(); ++i) {
        const std::string& key = item.entries[i].first;
        if (std::find(kStepMetaKeys.begin(), kStepMetaKeys.end(), key) != kStepMetaKeys.end()) continue;
        if (!resources::FindResourceSpec(key)) {
          std::vector<std::string> allowed = resources::ResourceKinds();
          allowed.insert(allowed.end(), kStepMetaKeys.begin(), kStepMetaKeys.end());
          fields_.Error(item.key_locations[i], "unknown resource '" + key + "'" + DidYouMean(key, allowed) +
                                                   "; resources: " + Join(resources::ResourceKinds(), ", "));
          continue;
        }
        kinds.push_back(key);
      }
      if (const YamlNode* n = item.Find("name")) step.name = fields_.String(*n, what + " name").value_or("");
      if (step.name.empty()) {
        fields_.Error(item.location, "every " + what + " needs a 'name' (its identity in the state store)");
        continue;
      }
      if (!names.insert(step.name).second) fields_.Error(item.location, "duplicate " + what + " name '" + step.name + "'");
      if (kinds.size() != 1) {
        if (kinds.size() > 1) fields_.Error(item.location, what + " '" + step.name + "' names several resources: " + Join(kinds, ", "));
        if (kinds.empty() && fields_.diagnostics().error_count() == 0) {
          fields_.Error(item.location, what + " '" + step.name + "' names no resource");
        }
        continue;
      }
      step.kind = kinds[0];
      const YamlNode& params = *item.Find(step.kind);
      ParseParams(params, step);
      if (const YamlNode* w = item.Find("when")) step.when = ParseWhen(*w);
      if (const YamlNode* n = item.Find("notify")) step.notify = fields_.StringList(*n, "notify").value_or(std::vector<std::string>{});
      if (const YamlNode* w = item.Find("waits_for")) {
        if (what == "handler") {
          step.waits_for = ParseWaits(*w);
          for (const RoleWait& wait : step.waits_for) {
            if (!wait.before.empty()) fields_.Error(wait.where, "before: is for a role's waits_for (a handler waits before it runs)");
          }
        } else {
          fields_.Error(w->location, "waits_for on a step: put it on the role, or on a handler");
        }
      }
      if (const YamlNode* m = item.Find("maintenance")) step.maintenance = fields_.Bool(*m, "maintenance").value_or(false);
      if (const YamlNode* t = item.Find("tags")) step.tags = fields_.StringList(*t, "tags").value_or(std::vector<std::string>{});
      if (const YamlNode* l = item.Find("loop")) {
        step.loop = fields_.String(*l, "loop").value_or("");
        if (step.loop.find("{{") != std::string::npos) {
          fields_.Error(l->location, "loop names a list variable (loop: admin_users), not a template");
        }
      }
      out.push_back(std::move(step));
    }
  }

  void ParseParams(const YamlNode& node, RoleStep& step) {
    const resources::ResourceSpec& spec = *resources::FindResourceSpec(step.kind);
    if (!fields_.ExpectMap(node, step.kind + " parameters", false)) return;
    step.params = YamlToJson(node);
    InlineScriptTemplates(spec, node, step.params);
    // A quoted mode stays a string; an unquoted 0644 keeps its octal digits.
    if (const YamlNode* mode = node.Find("mode"); mode && mode->is_scalar()) step.params["mode"] = mode->scalar;
    // Values that are templates are checked once rendered (by the planner);
    // here they stand in as a valid value of their parameter's type, and
    // their syntax (a package name: `name: ["{{db_package}}", slurmdbd]`)
    // is not checked.
    nlohmann::json checkable = step.params;
    resources::ResourceSpec checkable_spec = spec;
    for (auto& p : checkable_spec.params) {
      if (checkable.contains(p.name) && JsonText(checkable[p.name]).find("{{") != std::string::npos) p.refuses = nullptr;
    }
    for (const auto& p : spec.params) {
      if (!checkable.contains(p.name) || !checkable[p.name].is_string()) continue;
      if (checkable[p.name].get<std::string>().find("{{") == std::string::npos) continue;
      switch (p.type) {
        case resources::ParamType::kInt: checkable[p.name] = 0; break;
        case resources::ParamType::kBool: checkable[p.name] = true; break;
        case resources::ParamType::kMode: checkable[p.name] = "0644"; break;
        case resources::ParamType::kStringList:
        case resources::ParamType::kMapList: checkable[p.name] = nlohmann::json::array(); break;
        case resources::ParamType::kStringMap: checkable[p.name] = nlohmann::json::object(); break;
        case resources::ParamType::kString:
          if (!p.choices.empty()) checkable[p.name] = p.choices[0];
          break;
      }
    }
    std::vector<std::string> about;
    std::vector<std::string> problems = resources::ValidateParams(checkable_spec, checkable, &about);
    for (size_t i = 0; i < problems.size(); ++i) {
      SourceLocation where = node.location;
      for (size_t k = 0; k < node.entries.size(); ++k) {
        if (node.entries[k].first == about[i]) where = node.entries[k].second.location;
      }
      fields_.Error(where, problems[i]);
    }
    for (const auto& p : spec.params) {
      if (p.internal && step.params.contains(p.name)) {
        fields_.Error(node.location, step.kind + " parameter '" + p.name + "' is computed by clusterctl; remove it");
      }
    }
    // A template that is not a string was reported by ValidateParams above.
    for (const auto& p : spec.params) {
      if (p.use != resources::ParamUse::kTemplateName || !step.params.contains(p.name) || !step.params[p.name].is_string()) {
        continue;
      }
      step.template_name = step.params[p.name].get<std::string>();
      step.content_template = LoadTemplate(step.template_name, node.Find(p.name)->location);
    }
  }

  // An argument `{template: NAME.sh.mustache}` in a list parameter
  // (`argv: [sh, -c, {template: x.sh.mustache}, sh, "{{value}}"]`) is that
  // shell template's text, so a script longer than a line is a file of its
  // own that the unit tests lint (tests/roles/shell_scripts_test.cc), while
  // the node runs exactly the command it would run with the text inline. The
  // template holds no tags: values reach the script as its arguments.
  void InlineScriptTemplates(const resources::ResourceSpec& spec, const YamlNode& node, nlohmann::json& params) {
    for (const auto& p : spec.params) {
      const YamlNode* list = node.Find(p.name);
      if (p.type != resources::ParamType::kStringList || !list || !params[p.name].is_array()) continue;
      for (size_t i = 0; i < list->items.size() && i < params[p.name].size(); ++i) {
        const YamlNode& item = list->items[i];
        const YamlNode* name = item.kind == YamlNode::Kind::kMap ? item.Find("template") : nullptr;
        if (!name || item.entries.size() != 1) continue;
        if (std::optional<std::string> text = ScriptText(*name)) params[p.name][i] = *text;
      }
    }
  }

  std::optional<std::string> ScriptText(const YamlNode& name) {
    if (!name.is_scalar() || Template::FormatOf(name.scalar) != FileFormat::kShell) {
      fields_.Error(name.location, "an argument's template is a shell template: {template: NAME.sh.mustache}");
      return std::nullopt;
    }
    std::shared_ptr<const Template> script = LoadTemplate(name.scalar, name.location);
    if (!script) return std::nullopt;
    if (!script->is_literal()) {
      fields_.Error(name.location, "template '" + name.scalar +
                                       "' is an argument: it takes values as its arguments ($1, \"$@\"), not as tags");
      return std::nullopt;
    }
    Diagnostics none;
    return script->Render(nlohmann::json::object(), none);
  }

  std::shared_ptr<const Template> LoadTemplate(const std::string& name, const SourceLocation& where) {
    if (auto it = templates_.find(name); it != templates_.end()) return it->second;
    if (name.find("..") != std::string::npos || name.empty() || name[0] == '/') {
      fields_.Error(where, "template name '" + name + "' must be a relative path inside a templates directory");
      return nullptr;
    }
    for (const std::string& dir : sources_.template_dirs) {
      const std::string path = dir + "/" + name;
      if (!std::filesystem::is_regular_file(path)) continue;
      Diagnostics& d = fields_.diagnostics();
      std::optional<std::string> text = ReadUserFile(path, YamlLimits{}, d);
      if (!text) return nullptr;
      auto parsed = Template::Parse(*text, path, d, 1, 1, Template::FormatOf(name));
      if (!parsed) return nullptr;
      auto shared = std::make_shared<const Template>(std::move(*parsed));
      templates_[name] = shared;
      return shared;
    }
    fields_.Error(where, "template '" + name + "' not found in " + Join(sources_.template_dirs, ", "));
    return nullptr;
  }

  const std::string file_;  // a copy: callers pass temporaries (path.string())
  const Catalog::Sources& sources_;
  YamlFields& fields_;
  std::map<std::string, std::shared_ptr<const Template>>& templates_;
};

std::string ExecutableDirectory() {
  char self[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return ".";
  self[n] = '\0';
  return std::filesystem::path(self).parent_path().string();
}

// A parameter naming earlier steps (a reboot's `after`) names steps of its
// role that come before the step.
void CheckEarlierSteps(const Role& role, const RoleStep& step, Diagnostics& diagnostics) {
  for (const auto& [param, names] : step.params.items()) {
    if (!resources::ParamWithUse(step.kind, param, resources::ParamUse::kEarlierSteps) || !names.is_array()) continue;
    for (const nlohmann::json& name : names) {
      const std::string wanted = name.is_string() ? name.get<std::string>() : JsonText(name);
      bool earlier = false;
      for (const RoleStep& other : role.steps) {
        if (&other == &step) break;
        earlier = earlier || other.name == wanted;
      }
      if (!earlier) {
        diagnostics.Error(step.where, step.kind + " step '" + step.name + "' is after '" + wanted +
                                          "', which is not an earlier step of role " + role.name);
      }
    }
  }
}

// Every role file of the sources' role directories, each directory in name
// order, into `roles` (a later directory's role replaces an earlier one's).
void ReadRoleFiles(const Catalog::Sources& sources, std::map<std::string, Role>& roles, Diagnostics& diagnostics) {
  YamlFields fields(diagnostics);
  std::map<std::string, std::shared_ptr<const Template>> templates;
  for (const std::string& dir : sources.role_dirs) {
    std::error_code ec;
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
      if (entry.path().extension() == ".yaml" || entry.path().extension() == ".yml") files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    for (const auto& path : files) {
      const std::string name = path.stem().string();
      if (!IsRoleName(name)) {
        diagnostics.Error({path.string(), 0, 0}, "role file name '" + name + "' must be lowercase letters, digits, '-' or '_'");
        continue;
      }
      std::optional<std::string> text = ReadUserFile(path.string(), YamlLimits{}, diagnostics);
      if (!text) continue;
      std::optional<YamlNode> root = ParseYaml(*text, path.string(), YamlLimits{}, diagnostics);
      if (!root) continue;
      RoleParser parser(path.string(), sources, fields, templates);
      if (std::optional<Role> role = parser.Parse(*root, name)) roles[name] = std::move(*role);
    }
  }
}

// What roles name of each other: depends_on, waits_for (of the role and of
// its handlers), the handlers of other roles a step notifies; and each
// step's reboot `after`.
void CheckRoleReferences(const std::map<std::string, Role>& roles, Diagnostics& diagnostics) {
  std::vector<std::string> names;
  for (const auto& [name, role] : roles) names.push_back(name);
  for (const auto& [name, role] : roles) {
    for (const std::string& dependency : role.depends_on) {
      if (!roles.count(dependency)) {
        diagnostics.Error(role.where, "role " + name + " depends on unknown role '" + dependency + "'" + DidYouMean(dependency, names));
      }
    }
    std::vector<RoleWait> waits = role.waits_for;
    for (const RoleStep& handler : role.handlers) waits.insert(waits.end(), handler.waits_for.begin(), handler.waits_for.end());
    for (const RoleWait& wait : waits) {
      if (!roles.count(wait.role)) {
        diagnostics.Error(wait.where, "role " + name + " waits for unknown role '" + wait.role + "'" + DidYouMean(wait.role, names));
      }
    }
    for (const RoleStep& step : role.steps) {
      CheckEarlierSteps(role, step, diagnostics);
      for (const std::string& target : step.notify) {
        const HandlerRef ref = ParseHandlerRef(target, name);
        if (!ref.other_role) continue;
        auto other = roles.find(ref.role);
        if (other == roles.end() || !other->second.FindHandler(ref.handler)) {
          diagnostics.Error(step.where, "step '" + step.name + "' notifies '" + target + "': no such role/handler");
        }
      }
    }
  }
}

// A secret declared by two roles is declared the same; a file step's
// a parameter that names a secret (file's secret_content) names one its role declares.
void CheckSecretDeclarations(const std::map<std::string, Role>& roles, Diagnostics& diagnostics) {
  std::map<std::string, std::pair<SecretSpec, std::string>> secrets;  // name -> spec, declaring role
  for (const auto& [name, role] : roles) {
    for (const auto& [secret, spec] : role.secrets) {
      auto [it, inserted] = secrets.emplace(secret, std::make_pair(spec, name));
      if (!inserted && !(it->second.first == spec)) {
        diagnostics.Error(role.where, "role " + name + " declares secret " + secret + " differently from role " + it->second.second);
      }
    }
  }
  for (const auto& [name, role] : roles) {
    for (const RoleStep& step : role.steps) {
      for (const auto& [param, value] : step.params.items()) {
        if (!resources::ParamWithUse(step.kind, param, resources::ParamUse::kSecretName)) continue;
        const std::string secret = value.is_string() ? value.get<std::string>() : "";
        if (!role.secrets.count(secret)) {
          diagnostics.Error(step.where, "step '" + step.name + "' uses secret '" + secret + "', which role " + name +
                                            " does not declare under secrets:");
        }
      }
    }
  }
}

// Reports the first cycle of depends_on and waits_for together (a role's
// and its handlers'). REQUIRES: every role named exists (CheckRoleReferences
// found no error). Returns whether there is one.
bool ReportDependencyCycle(const std::map<std::string, Role>& roles, Diagnostics& diagnostics) {
  std::map<std::string, int> colour;
  std::vector<std::string> path;
  bool cyclic = false;
  std::function<void(const std::string&)> visit = [&](const std::string& name) {
    colour[name] = 1;
    path.push_back(name);
    const Role& role = roles.at(name);
    std::vector<std::string> next = role.depends_on;
    for (const RoleWait& w : role.waits_for) next.push_back(w.role);
    for (const RoleStep& h : role.handlers) {
      for (const RoleWait& w : h.waits_for) next.push_back(w.role);
    }
    for (const std::string& n : next) {
      if (cyclic) break;
      if (colour[n] == 1) {
        auto start = std::find(path.begin(), path.end(), n);
        std::vector<std::string> cycle(start, path.end());
        cycle.push_back(n);
        diagnostics.Error(role.where, "roles depend on each other in a cycle: " + Join(cycle, " -> "));
        cyclic = true;
      } else if (colour[n] == 0) {
        visit(n);
      }
    }
    path.pop_back();
    colour[name] = 2;
  };
  for (const auto& [name, role] : roles) {
    if (!cyclic && colour[name] == 0) visit(name);
  }
  return cyclic;
}

}  // namespace

HandlerRef ParseHandlerRef(const std::string& notify, const std::string& own_role) {
  const size_t slash = notify.find('/');
  if (slash == std::string::npos) return {own_role, notify, false};
  return {notify.substr(0, slash), notify.substr(slash + 1), true};
}

const RoleStep* Role::FindHandler(const std::string& handler) const {
  for (const RoleStep& h : handlers) {
    if (h.name == handler) return &h;
  }
  return nullptr;
}

std::vector<RoleWait> Role::WaitsBefore(const std::string& step_name) const {
  std::vector<RoleWait> waits;
  for (const RoleWait& wait : waits_for) {
    if (wait.before == step_name) waits.push_back(wait);
  }
  return waits;
}

Catalog::Sources Catalog::DefaultSources(const std::string& inventory_dir) {
  Sources sources;
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("CLUSTERCTL_DATA_DIR")) {
    candidates.push_back(env);
  } else {
    const std::string exe = ExecutableDirectory();
    candidates = {exe + "/../share/clusterctl", exe + "/.."};  // installed, then the build tree
  }
  for (const std::string& candidate : candidates) {
    std::error_code ec;
    const std::string dir = std::filesystem::weakly_canonical(candidate, ec).string();
    sources.data_dirs_searched.push_back(ec ? candidate : dir);
    if (std::filesystem::is_directory(candidate + "/roles", ec)) {
      sources.role_dirs.push_back(sources.data_dirs_searched.back() + "/roles");
      sources.template_dirs.push_back(sources.data_dirs_searched.back() + "/templates");
      sources.platforms_file = sources.data_dirs_searched.back() + "/platforms.yaml";
      sources.data_dir_found = true;
      break;
    }
  }
  if (inventory_dir.empty()) return sources;  // the built-in catalog alone
  sources.role_dirs.push_back(inventory_dir + "/roles");
  sources.template_dirs.insert(sources.template_dirs.begin(), inventory_dir + "/templates");
  return sources;
}

std::optional<Role> Catalog::ParseRole(std::string_view text, const std::string& path, const std::string& name,
                                       const Sources& sources, Diagnostics& diagnostics) {
  YamlFields fields(diagnostics);
  std::map<std::string, std::shared_ptr<const Template>> templates;
  std::optional<YamlNode> root = ParseYaml(text, path, YamlLimits{}, diagnostics);
  if (!root) return std::nullopt;
  RoleParser parser(path, sources, fields, templates);
  return parser.Parse(*root, name);
}

std::optional<Catalog> Catalog::Load(const Sources& sources, Diagnostics& diagnostics) {
  Catalog catalog;
  const int errors_before = diagnostics.error_count();
  ReadRoleFiles(sources, catalog.roles_, diagnostics);
  catalog.CollectVariables(diagnostics);
  catalog.LoadPlatforms(sources, diagnostics);
  CheckRoleReferences(catalog.roles_, diagnostics);
  CheckSecretDeclarations(catalog.roles_, diagnostics);
  if (diagnostics.error_count() > errors_before) return std::nullopt;
  if (ReportDependencyCycle(catalog.roles_, diagnostics)) return std::nullopt;
  return catalog;
}

void Catalog::LoadPlatforms(const Sources& sources, Diagnostics& diagnostics) {
  if (sources.platforms_file.empty()) return;
  std::optional<std::string> text = ReadUserFile(sources.platforms_file, YamlLimits{}, diagnostics);
  if (!text) return;
  std::optional<Platforms> platforms = Platforms::Parse(*text, sources.platforms_file, diagnostics);
  if (!platforms) return;
  platforms->CheckVariables(*this, diagnostics);
  platforms_ = std::move(*platforms);
}

std::map<std::string, SecretSpec> Catalog::SecretsOf(const std::vector<const Role*>& roles) {
  std::map<std::string, SecretSpec> secrets;
  for (const Role* role : roles) secrets.insert(role->secrets.begin(), role->secrets.end());
  return secrets;
}

const Role* Catalog::Find(const std::string& name) const {
  auto it = roles_.find(name);
  return it == roles_.end() ? nullptr : &it->second;
}

void Catalog::CheckInventoryRoles(const Inventory& inventory, Diagnostics& diagnostics) const {
  std::vector<std::string> names;
  for (const auto& [name, role] : roles_) names.push_back(name);
  bool unknown = false;
  for (const Group& group : inventory.groups) {
    for (const std::string& role : group.roles) {
      if (!roles_.count(role)) {
        unknown = true;
        diagnostics.Error(group.defined_at, "group '" + group.name + "' assigns unknown role '" + role + "'" + DidYouMean(role, names));
      }
    }
  }
  if (!unknown) CheckNeededGroups(inventory, diagnostics);
}

// A role's `needs`: groups that must hold a host wherever the role runs
// (slurm.conf names the controller). Reported once per role and group, at
// the group that brings the role to its first host, before any template
// could fail on the missing host. Hosts with the same groups get the same
// roles, so each set of groups is resolved once.
void Catalog::CheckNeededGroups(const Inventory& inventory, Diagnostics& diagnostics) const {
  std::set<std::vector<std::string>> group_sets_seen;
  std::set<std::pair<std::string, std::string>> reported;  // role, needed group
  for (const Host& host : inventory.hosts) {
    if (!group_sets_seen.insert(host.groups).second) continue;
    for (const Role* role : RolesFor(host, inventory, {})) {
      for (const std::string& needed : role->needs) {
        const Group* group = inventory.FindGroup(needed);
        if ((group && !group->members.empty()) || !reported.insert({role->name, needed}).second) continue;
        const Group* from = host.groups.empty() ? nullptr : inventory.FindGroup(host.groups.front());
        diagnostics.Error(from ? from->defined_at : host.defined_at,
                          "host '" + host.name + "'" + (from ? " (group '" + from->name + "')" : "") + " gets role " +
                              role->name + ", which needs a host in group '" + needed + "', and that group has none" +
                              (group ? "" : " (it is not defined)") + ": add one, or take the host out of the groups "
                              "that give it the role");
      }
    }
  }
}

std::vector<const Role*> Catalog::RolesFor(const Host& host, const Inventory& inventory,
                                          const std::vector<std::string>& only) const {
  std::set<std::string> wanted;
  for (const auto& [name, role] : roles_) {
    for (const std::string& group : role.applies_to) {
      if (group == kGroupAll || std::binary_search(host.groups.begin(), host.groups.end(), group)) wanted.insert(name);
    }
  }
  for (const std::string& group : host.groups) {
    if (const Group* g = inventory.FindGroup(group)) wanted.insert(g->roles.begin(), g->roles.end());
  }
  // Dependency closure, then a stable topological order.
  std::vector<std::string> stack(wanted.begin(), wanted.end());
  while (!stack.empty()) {
    std::string name = stack.back();
    stack.pop_back();
    const Role* role = Find(name);
    if (!role) continue;
    for (const std::string& d : role->depends_on) {
      if (wanted.insert(d).second) stack.push_back(d);
    }
  }
  std::vector<const Role*> ordered;
  std::set<std::string> placed;
  std::function<void(const std::string&)> place = [&](const std::string& name) {
    if (placed.count(name) || !wanted.count(name)) return;
    placed.insert(name);
    const Role* role = Find(name);
    if (!role) return;
    for (const std::string& d : role->depends_on) place(d);
    // A role that waits for a role this host also runs (sssd for ldap-server
    // on the directory host) comes after it: placed before, it would wait for
    // its own host forever (the plan hung once a new role pulled sssd ahead).
    for (const RoleWait& wait : role->waits_for) place(wait.role);
    ordered.push_back(role);
  };
  for (const std::string& name : wanted) place(name);
  if (only.empty()) return ordered;
  std::vector<const Role*> filtered;
  for (const Role* role : ordered) {
    if (std::find(only.begin(), only.end(), role->name) != only.end()) filtered.push_back(role);
  }
  return filtered;
}

}  // namespace clusterctl
