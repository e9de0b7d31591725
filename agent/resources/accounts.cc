// user and group: local accounts, read from /etc/passwd and /etc/group and
// changed with the distribution's useradd/usermod/userdel/groupadd tools.
#include <sys/stat.h>

#include <set>

#include "agent/resources/registry.h"
#include "agent/resources/node_files.h"
#include "common/strings.h"

namespace clusterctl::agent {
namespace {

struct PasswdEntry {
  std::string name, uid, gid, comment, home, shell;
};

std::optional<PasswdEntry> FindUser(const std::string& name) {
  for (const std::string& line : Split(ReadWholeFile("/etc/passwd").value_or(""), '\n')) {
    std::vector<std::string> f = Split(line, ':');
    if (f.size() >= 7 && f[0] == name) return PasswdEntry{f[0], f[2], f[3], f[4], f[5], f[6]};
  }
  return std::nullopt;
}

struct GroupEntry {
  std::string name, gid;
  std::set<std::string> members;
};

std::vector<GroupEntry> ReadGroups() {
  std::vector<GroupEntry> groups;
  for (const std::string& line : Split(ReadWholeFile("/etc/group").value_or(""), '\n')) {
    std::vector<std::string> f = Split(line, ':');
    if (f.size() < 4) continue;
    GroupEntry g{f[0], f[2], {}};
    for (const std::string& m : Split(f[3], ',')) {
      if (!m.empty()) g.members.insert(m);
    }
    groups.push_back(g);
  }
  return groups;
}

// A user that is not a system account has its home directory: useradd -m
// writes /etc/passwd before it makes the home, so a run killed between the two
// leaves an account without one. mkhomedir_helper (libpam-modules-bin, always
// installed) makes it as useradd would: /etc/skel copied, owned by the user.
// `home` is the one the account has once the step's usermod ran.
void EnsureHome(const ResourceRequest& request, ResourceHost& host, ResourceOutcome& outcome,
                const std::string& name, const std::string& home) {
  if (request.params.value("system", false) || home.empty() || home[0] != '/' || outcome.failed) return;
  struct stat info {};
  if (::stat(home.c_str(), &info) == 0) return;
  outcome.Differs("home " + home + " missing");
  if (request.apply) RunOrFail(host, outcome, {"mkhomedir_helper", name}, true);
}

bool ValidAccountName(const std::string& name) {
  return !name.empty() && name.size() <= 32 && name[0] != '-' &&
         name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") == std::string::npos;
}

}  // namespace

ResourceOutcome GroupResource(const ResourceRequest& request, ResourceHost& host) {
  ResourceOutcome outcome;
  const nlohmann::json& p = request.params;
  const std::string name = p["name"].get<std::string>();
  if (!ValidAccountName(name)) return outcome.Fail("invalid group name '" + name + "'");
  std::optional<GroupEntry> existing;
  for (const GroupEntry& g : ReadGroups()) {
    if (g.name == name) existing = g;
  }
  if (p.value("state", std::string("present")) == "absent") {
    if (existing) {
      outcome.Differs("group " + name + " exists");
      if (request.apply) RunOrFail(host, outcome, {"groupdel", name}, true);
    }
    return outcome;
  }
  if (!existing) {
    outcome.Differs("group " + name + " missing");
    if (request.apply) {
      std::vector<std::string> argv = {"groupadd"};
      if (p.contains("gid")) argv.insert(argv.end(), {"-g", std::to_string(p["gid"].get<int>())});
      if (p.value("system", false)) argv.push_back("-r");
      argv.push_back(name);
      RunOrFail(host, outcome, argv, true);
    }
    return outcome;
  }
  if (p.contains("gid") && existing->gid != std::to_string(p["gid"].get<int>())) {
    outcome.Differs("gid " + existing->gid + " -> " + std::to_string(p["gid"].get<int>()));
    if (request.apply) RunOrFail(host, outcome, {"groupmod", "-g", std::to_string(p["gid"].get<int>()), name}, true);
  }
  return outcome;
}

ResourceOutcome UserResource(const ResourceRequest& request, ResourceHost& host) {
  ResourceOutcome outcome;
  const nlohmann::json& p = request.params;
  const std::string name = p["name"].get<std::string>();
  if (!ValidAccountName(name)) return outcome.Fail("invalid user name '" + name + "'");
  std::optional<PasswdEntry> user = FindUser(name);
  if (p.value("state", std::string("present")) == "absent") {
    if (user) {
      outcome.Differs("user " + name + " exists");
      if (request.apply) RunOrFail(host, outcome, {"userdel", name}, true);
    }
    return outcome;
  }
  std::vector<std::string> wanted_groups;
  if (p.contains("groups")) {
    for (const auto& g : p["groups"]) wanted_groups.push_back(g.get<std::string>());
  }
  if (!user) {
    outcome.Differs("user " + name + " missing");
    if (!request.apply) return outcome;
    std::vector<std::string> argv = {"useradd", "-m"};
    if (p.contains("uid")) argv.insert(argv.end(), {"-u", std::to_string(p["uid"].get<int>())});
    if (p.contains("group")) argv.insert(argv.end(), {"-g", p["group"].get<std::string>()});
    if (!wanted_groups.empty()) argv.insert(argv.end(), {"-G", Join(wanted_groups, ",")});
    if (p.contains("home")) argv.insert(argv.end(), {"-d", p["home"].get<std::string>()});
    if (p.contains("shell")) argv.insert(argv.end(), {"-s", p["shell"].get<std::string>()});
    if (p.contains("comment")) argv.insert(argv.end(), {"-c", p["comment"].get<std::string>()});
    if (p.value("system", false)) argv.push_back("-r");
    argv.push_back(name);
    RunOrFail(host, outcome, argv, true);
    return outcome;
  }
  std::vector<std::string> usermod = {"usermod"};
  auto compare = [&](const char* param, const std::string& current, const char* flag, const char* label) {
    if (!p.contains(param)) return;
    std::string want = p[param].is_string() ? p[param].get<std::string>() : std::to_string(p[param].get<int>());
    if (std::string(param) == "group") {
      auto gid = LookupGid(want);
      if (gid && std::to_string(*gid) == current) return;
    }
    if (want == current) return;
    outcome.Differs(std::string(label) + " " + current + " -> " + want);
    usermod.insert(usermod.end(), {flag, want});
  };
  compare("uid", user->uid, "-u", "uid");
  compare("group", user->gid, "-g", "primary group");
  compare("home", user->home, "-d", "home");
  compare("shell", user->shell, "-s", "shell");
  compare("comment", user->comment, "-c", "comment");
  if (p.contains("groups")) {
    std::set<std::string> current;
    for (const GroupEntry& g : ReadGroups()) {
      if (g.members.count(name)) current.insert(g.name);
    }
    std::set<std::string> want(wanted_groups.begin(), wanted_groups.end());
    if (current != want) {
      outcome.Differs("groups " + Join(std::vector<std::string>(current.begin(), current.end()), ",") + " -> " +
                      Join(wanted_groups, ","));
      usermod.insert(usermod.end(), {"-G", Join(wanted_groups, ",")});
    }
  }
  if (request.apply && usermod.size() > 1) {
    usermod.push_back(name);
    RunOrFail(host, outcome, usermod, true);
  }
  EnsureHome(request, host, outcome, name, p.contains("home") ? p["home"].get<std::string>() : user->home);
  return outcome;
}

// The kinds this file implements, registered with its parameters.
namespace {
using resources::P;
using T = resources::ParamType;

const ResourceKindRegistration kUserKind(
    {"user", "a local user account",
     {P("name", T::kString, true), P("uid", T::kInt), P("group", T::kString), P("groups", T::kStringList),
      P("home", T::kString), P("shell", T::kString), P("system", T::kBool), P("comment", T::kString),
      P("state", T::kString, false, {"present", "absent"})},
     {}},
    UserResource);

const ResourceKindRegistration kGroupKind(
    {"group", "a local group",
     {P("name", T::kString, true), P("gid", T::kInt), P("system", T::kBool),
      P("state", T::kString, false, {"present", "absent"})},
     {}},
    GroupResource);

}  // namespace

}  // namespace clusterctl::agent
