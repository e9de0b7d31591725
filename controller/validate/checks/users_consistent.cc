// users.consistent: every directory user (directory_users) resolves on the
// node (getent passwd, through nsswitch: sssd) with the directory's UID and
// GID. Each node is judged against the inventory's directory, so a node
// that resolves a user differently (or not at all) fails by name, and the
// nodes that pass all agree. getent's output is read strictly: a line that
// is not a passwd entry for a user asked about fails the node (no reading,
// no pass).
#include "controller/validate/checks/users_consistent.h"

#include <map>
#include <optional>
#include <set>

#include "common/json_fields.h"
#include "common/strings.h"
#include "controller/validate/checks/common.h"

namespace clusterctl::checks {

namespace {

constexpr size_t kMaxGetentOutput = 1 << 20;

std::optional<long long> Id(const std::string& text) {
  if (text.empty() || text.size() > 10 || text.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  return std::stoll(text);
}

struct PasswdEntry {
  long long uid = -1, gid = -1;
};

// getent's entries by user name. Every non-empty line must be a passwd
// entry (seven fields, numeric UID and GID) for one of `asked`, each once;
// anything else (or more than 1 MiB) is an error naming the line.
Result<std::map<std::string, PasswdEntry>> ParseGetentPasswd(const std::string& text,
                                                             const std::set<std::string>& asked) {
  if (text.size() > kMaxGetentOutput) {
    return Status::InvalidArgument("getent printed " + std::to_string(text.size()) + " bytes: not passwd entries");
  }
  std::map<std::string, PasswdEntry> entries;
  for (const std::string& line : Split(text, '\n')) {
    if (line.empty()) continue;
    const std::vector<std::string> f = Split(line, ':');
    std::optional<long long> uid = f.size() == 7 ? Id(f[2]) : std::nullopt, gid = f.size() == 7 ? Id(f[3]) : std::nullopt;
    if (!uid || !gid) return Status::InvalidArgument("not a passwd entry: " + Printable(line, 120));
    if (asked.count(f[0]) == 0) return Status::InvalidArgument("an entry for a user not asked about: " + Printable(line, 120));
    if (!entries.emplace(f[0], PasswdEntry{*uid, *gid}).second) {
      return Status::InvalidArgument("two entries for " + f[0]);
    }
  }
  return entries;
}

}  // namespace

std::vector<DirectoryUser> DirectoryUsers(const nlohmann::json& vars) {
  std::vector<DirectoryUser> users;
  const nlohmann::json* listed = MemberOf(vars, "directory_users");
  if (listed == nullptr || !listed->is_array()) return users;
  auto id = [](const nlohmann::json& u, const char* key) {
    const nlohmann::json* value = MemberOf(u, key);
    return value != nullptr && value->is_number_integer() ? value->get<long long>() : -1LL;
  };
  for (const nlohmann::json& u : *listed) {
    if (!TextAt(u, "name").empty()) users.push_back({TextAt(u, "name"), id(u, "uid"), id(u, "gid")});
  }
  return users;
}

namespace {

Argv GetentCommand(const NodeView& v) {
  Argv argv = {"getent", "passwd", "--"};
  for (const DirectoryUser& u : DirectoryUsers(v.vars)) argv.push_back(u.name);
  return argv;
}

const ProbeSpec kGetent{.id = "getent passwd (directory users)", .command_for = GetentCommand, .timeout_s = 30};

Requirement DirectoryClient() {
  return {[](const NodeView& v) { return v.role.directory_client; },
          [](const NodeView& v) { return v.host() + " is not in the controller, controller_backup, login or compute group (no sssd)"; }};
}

Requirement DirectoryUsersListed() {
  return {[](const NodeView& v) { return !DirectoryUsers(v.vars).empty(); },
          [](const NodeView&) { return std::string("no directory_users in the inventory"); }};
}

CheckResult Judge(const NodeView& v) {
  const std::vector<DirectoryUser> users = DirectoryUsers(v.vars);
  const ToolOutput& getent = v.node.Output(kGetent.id);
  std::set<std::string> asked;
  for (const DirectoryUser& u : users) asked.insert(u.name);
  // getent: 0 all found, 2 some not found; anything else is no reading.
  Result<std::map<std::string, PasswdEntry>> found = ParseGetentPasswd(getent.out, asked);
  if (!getent.started || (getent.exit_code != 0 && getent.exit_code != 2) || !found.ok()) {
    return ToolFailed("users.consistent", kNode, v.host(), "getent passwd", getent,
                      found.ok() ? "" : found.status().message(), "");
  }
  std::vector<std::string> wrong;
  for (const DirectoryUser& u : users) {
    auto e = found->find(u.name);
    if (e == found->end()) {
      wrong.push_back(u.name + " does not resolve");
    } else if (e->second.uid != u.uid || e->second.gid != u.gid) {
      wrong.push_back(u.name + " is " + std::to_string(e->second.uid) + ":" + std::to_string(e->second.gid) +
                      " here, " + std::to_string(u.uid) + ":" + std::to_string(u.gid) + " in the directory");
    }
  }
  const std::string measured = std::to_string(found->size()) + "/" + std::to_string(users.size()) + " users";
  if (!wrong.empty()) {
    return Fail("users.consistent", kNode, v.host(), Join(wrong, "; "), TailLines(getent.out), measured,
                "the directory's UID:GID");
  }
  return Pass("users.consistent", kNode, v.host(), measured, "the directory's UID:GID",
              "every directory user resolves with the directory's UID and GID");
}

const CheckRegistration kUsersConsistent({.name = "users.consistent",
                                          .scope = kNode,
                                          .summary = "every directory user resolves (getent passwd) with the directory's UID and GID",
                                          .rank = 35,
                                          .requirements = {DirectoryClient(), DirectoryUsersListed()},
                                          .probes = {&kGetent},
                                          .verdict = Judge});

}  // namespace
}  // namespace clusterctl::checks
