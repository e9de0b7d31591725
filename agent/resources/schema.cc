#include "agent/resources/schema.h"

#include <algorithm>

#include "common/strings.h"

namespace clusterctl::resources {
namespace {

using T = ParamType;

ParamSpec P(std::string name, ParamType type, bool required = false, std::vector<std::string> choices = {}) {
  return {std::move(name), type, required, std::move(choices), false};
}
ParamSpec ControllerSide(std::string name, ParamType type) { return {std::move(name), type, false, {}, true}; }
ParamSpec Internal(std::string name, ParamType type) { return {std::move(name), type, false, {}, false, true}; }

}  // namespace

const std::vector<ResourceSpec>& ResourceSpecs() {
  static const std::vector<ResourceSpec> specs = {
      {"file", "a file's content, owner, group and mode (atomic replace; old content kept in the state)",
       {P("path", T::kString, true), ControllerSide("content", T::kString), ControllerSide("template", T::kString),
        ControllerSide("source", T::kString), ControllerSide("secret_content", T::kString), P("owner", T::kString),
        P("group", T::kString), P("mode", T::kMode), P("state", T::kString, false, {"present", "absent"}),
        P("secret", T::kBool), P("validate", T::kStringList)},
       {"content", "template", "source", "secret_content"}},
      {"directory", "a directory with owner, group and mode",
       {P("path", T::kString, true), P("owner", T::kString), P("group", T::kString), P("mode", T::kMode),
        P("state", T::kString, false, {"present", "absent"})},
       {}},
      {"symlink", "a symbolic link",
       {P("path", T::kString, true), P("target", T::kString), P("state", T::kString, false, {"present", "absent"})},
       {}},
      {"line", "one line in a file (optionally replacing the line a regexp matches)",
       {P("path", T::kString, true), P("line", T::kString, true), P("regexp", T::kString),
        P("state", T::kString, false, {"present", "absent"}), P("create", T::kBool), P("mode", T::kMode)},
       {}},
      {"block", "a block of lines between markers in a file",
       {P("path", T::kString, true), P("block", T::kString), P("marker", T::kString),
        P("state", T::kString, false, {"present", "absent"}), P("create", T::kBool), P("mode", T::kMode)},
       {}},
      {"package", "distribution packages (apt or dnf): present, absent, pinned version, held",
       {P("name", T::kStringList, true), P("state", T::kString, false, {"present", "absent"}),
        P("version", T::kString), P("hold", T::kBool)},
       {}},
      {"repository", "a package repository (apt source + key, or dnf .repo)",
       {P("name", T::kString, true), P("uri", T::kString, true), P("suite", T::kString),
        P("components", T::kStringList), ControllerSide("key", T::kString), ControllerSide("key_file", T::kString),
        P("trusted", T::kBool),
        P("state", T::kString, false, {"present", "absent"})},
       {}},
      {"service", "a systemd unit: running/stopped, enabled/disabled, restarted/reloaded (handlers)",
       {P("name", T::kString, true), P("state", T::kString, false, {"running", "stopped", "restarted", "reloaded"}),
        P("enabled", T::kBool), P("daemon_reload", T::kBool)},
       {}},
      {"kernel_module", "a kernel module: loaded, blacklisted, loaded at boot, options",
       {P("name", T::kString, true), P("state", T::kString, false, {"loaded", "absent", "blacklisted"}),
        P("at_boot", T::kBool), P("options", T::kString)},
       {}},
      {"sysctl", "a kernel parameter, at runtime and persisted in /etc/sysctl.d",
       {P("name", T::kString, true), P("value", T::kString, true), P("persist", T::kBool)},
       {}},
      {"mount", "an /etc/fstab entry and the mount itself",
       {P("path", T::kString, true), P("source", T::kString), P("fstype", T::kString), P("options", T::kString),
        P("state", T::kString, false, {"mounted", "present", "unmounted", "absent"})},
       {}},
      {"user", "a local user account",
       {P("name", T::kString, true), P("uid", T::kInt), P("group", T::kString), P("groups", T::kStringList),
        P("home", T::kString), P("shell", T::kString), P("system", T::kBool), P("comment", T::kString),
        P("state", T::kString, false, {"present", "absent"})},
       {}},
      {"group", "a local group",
       {P("name", T::kString, true), P("gid", T::kInt), P("system", T::kBool),
        P("state", T::kString, false, {"present", "absent"})},
       {}},
      {"command", "a command (argument vector) for what no resource covers, guarded by creates/unless",
       {P("argv", T::kStringList, true), P("creates", T::kString), P("unless", T::kStringList),
        P("env", T::kStringMap), P("timeout", T::kInt)},
       {}},
      {"copy", "a (large) file from the controller: streamed, checksum-verified, resumable",
       {P("path", T::kString, true), ControllerSide("source", T::kString), P("owner", T::kString),
        P("group", T::kString), P("mode", T::kMode), Internal("sha256", T::kString), Internal("size", T::kInt)},
       {"source"}},
      {"reboot", "reboot the node and wait for it to come back (a new boot id)",
       {P("reason", T::kString), P("timeout", T::kInt)},
       {}},
  };
  return specs;
}

const ResourceSpec* FindResourceSpec(const std::string& kind) {
  for (const ResourceSpec& spec : ResourceSpecs()) {
    if (spec.kind == kind) return &spec;
  }
  return nullptr;
}

std::vector<std::string> ResourceKinds() {
  std::vector<std::string> kinds;
  for (const ResourceSpec& spec : ResourceSpecs()) kinds.push_back(spec.kind);
  return kinds;
}

const char* ParamTypeName(ParamType type) {
  switch (type) {
    case ParamType::kString: return "a string";
    case ParamType::kInt: return "an integer";
    case ParamType::kBool: return "true or false";
    case ParamType::kStringList: return "a list of strings";
    case ParamType::kMode: return "an octal mode like \"0644\"";
    case ParamType::kStringMap: return "a map of strings";
  }
  return "?";
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
    }
    if (!ok) {
      report(name, spec.kind + " parameter '" + name + "' must be " + ParamTypeName(found->type) + ", got " +
                       value.dump());
      continue;
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
