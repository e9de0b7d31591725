// kernel_module and sysctl.
#include <sys/stat.h>

#include "agent/resources/names.h"
#include "agent/resources/registry.h"
#include "agent/resources/node_files.h"
#include "common/json_text.h"
#include "common/strings.h"

namespace clusterctl::agent {
namespace {

// A sysctl name (modules' names are checked by their parameter table).
bool ValidName(const std::string& name) {
  return !name.empty() && name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") ==
                              std::string::npos && name[0] != '.';
}

std::string Normalize(const std::string& value) {
  std::string out;
  for (const std::string& word : Split(std::string(Trim(value)), ' ')) {
    for (const std::string& part : Split(word, '\t')) {
      if (part.empty()) continue;
      if (!out.empty()) out += ' ';
      out += part;
    }
  }
  return out;
}

}  // namespace

ResourceOutcome KernelModuleResource(const ResourceRequest& request, ResourceHost& host) {
  ResourceOutcome outcome;
  const nlohmann::json& p = request.params;
  const std::string name = p["name"].get<std::string>();
  const std::string state = p.value("state", std::string("loaded"));
  std::string sys_name = name;
  for (char& c : sys_name) c = c == '-' ? '_' : c;
  const bool loaded = StatPath("/sys/module/" + sys_name).exists;

  const std::string boot_file = "/etc/modules-load.d/clusterctl-" + name + ".conf";
  const std::string options_file = "/etc/modprobe.d/clusterctl-" + name + "-options.conf";
  const std::string blacklist_file = "/etc/modprobe.d/clusterctl-blacklist-" + name + ".conf";

  if (state == "blacklisted") {
    EnsureFileContent(blacklist_file, "blacklist " + name + "\ninstall " + name + " /bin/false\n", 0644, request.apply,
                      outcome);
    EnsureFileContent(boot_file, std::nullopt, 0644, request.apply, outcome);
    return outcome;  // unloading a blacklisted driver in use is the role's decision (reboot)
  }
  EnsureFileContent(blacklist_file, std::nullopt, 0644, request.apply, outcome);
  if (state == "absent") {
    EnsureFileContent(boot_file, std::nullopt, 0644, request.apply, outcome);
    if (loaded) {
      outcome.Differs("module " + name + " loaded");
      if (request.apply) RunOrFail(host, outcome, {"modprobe", "-r", "--", name}, true);
    }
    return outcome;
  }
  if (p.contains("options")) {
    EnsureFileContent(options_file, "options " + name + " " + p["options"].get<std::string>() + "\n", 0644,
                      request.apply, outcome);
  }
  if (p.contains("at_boot")) {
    EnsureFileContent(boot_file, p["at_boot"].get<bool>() ? std::optional<std::string>(name + "\n") : std::nullopt,
                      0644, request.apply, outcome);
  }
  if (outcome.failed) return outcome;
  if (!loaded) {
    outcome.Differs("module " + name + " not loaded");
    if (request.apply) RunOrFail(host, outcome, {"modprobe", "--", name}, true);
  }
  return outcome;
}

ResourceOutcome SysctlResource(const ResourceRequest& request, ResourceHost&) {
  ResourceOutcome outcome;
  const nlohmann::json& p = request.params;
  const std::string name = p["name"].get<std::string>();
  if (!ValidName(name) || name.find("..") != std::string::npos) return outcome.Fail("invalid sysctl name '" + name + "'");
  const std::string value = p["value"].is_string() ? p["value"].get<std::string>() : JsonText(p["value"]);
  std::string proc = "/proc/sys/" + name;
  for (size_t i = 10; i < proc.size(); ++i) {
    if (proc[i] == '.') proc[i] = '/';
  }
  std::optional<std::string> current = ReadWholeFile(proc);
  if (!current) return outcome.Fail("no such kernel parameter: " + name);
  if (Normalize(*current) != Normalize(value)) {
    outcome.Differs(name + " = " + Normalize(*current) + " -> " + Normalize(value));
    if (request.apply) {
      FILE* f = std::fopen(proc.c_str(), "w");
      bool ok = f && std::fputs(value.c_str(), f) >= 0;
      ok = (f && std::fclose(f) == 0) && ok;
      if (!ok) return outcome.Fail("cannot set " + name + " (read-only here?)");
    }
  }
  if (p.value("persist", true)) {
    EnsureFileContent("/etc/sysctl.d/90-clusterctl-" + name + ".conf", name + " = " + value + "\n", 0644,
                      request.apply, outcome);
  }
  return outcome;
}

// The kinds this file implements, registered with its parameters.
namespace {
using resources::P;
using resources::Refusing;
using T = resources::ParamType;

const ResourceKindRegistration kKernelModuleKind(
    {"kernel_module", "a kernel module: loaded, blacklisted, loaded at boot, options",
     {Refusing(P("name", T::kString, true), ModuleNameRefusal),
      P("state", T::kString, false, {"loaded", "absent", "blacklisted"}),
      P("at_boot", T::kBool), P("options", T::kString)},
     {}},
    KernelModuleResource);

const ResourceKindRegistration kSysctlKind(
    {"sysctl", "a kernel parameter, at runtime and persisted in /etc/sysctl.d",
     {P("name", T::kString, true), P("value", T::kString, true), P("persist", T::kBool)},
     {}},
    SysctlResource);

}  // namespace

}  // namespace clusterctl::agent
