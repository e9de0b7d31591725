// Difference (slurm_accounting_model.h): the sacctmgr commands that take
// what sacctmgr shows to what the inventory names, and only those.
#include <algorithm>
#include <set>

#include "agent/resources/slurm_accounting_model.h"
#include "common/strings.h"

namespace clusterctl::agent::slurm_accounting {
namespace {

const std::vector<std::string> kSacctmgr = {"sacctmgr", "-i"};

std::vector<std::string> Command(std::vector<std::string> words) {
  std::vector<std::string> argv = kSacctmgr;
  argv.insert(argv.end(), words.begin(), words.end());
  return argv;
}

// What `set NAME=VALUE` is for `wanted` over the current value `now` (a
// canonical value): a TRES list names the current TRES it drops with -1,
// no limit is -1.
std::string SetValue(const Setting& wanted, const std::string& now) {
  if (wanted.field->kind == ValueKind::kTres) {
    std::set<std::string> kept;
    for (const std::string& pair : Split(wanted.canonical, ',')) kept.insert(pair.substr(0, pair.find('=')));
    std::vector<std::string> pairs;
    if (!wanted.canonical.empty()) pairs.push_back(wanted.canonical);
    for (const std::string& pair : Split(now, ',')) {
      const std::string name = pair.substr(0, pair.find('='));
      if (!name.empty() && !kept.count(name)) pairs.push_back(name + "=-1");
    }
    return Join(pairs, ",");
  }
  return wanted.canonical.empty() ? "-1" : wanted.canonical;
}

// The settings of `wanted` that differ from the row `now` (columns by name):
// "NAME=VALUE" arguments and what they change ("MaxWall 00:01:00 -> 2").
struct Settings {
  std::vector<std::string> arguments, changes;
};
Settings Differing(const std::vector<Setting>& wanted, const std::map<std::string, std::string>* now) {
  Settings out;
  for (const Setting& s : wanted) {
    const std::string shown = now && now->count(s.field->column) ? now->at(s.field->column) : "";
    const std::string current = Canonical(s.field->kind, shown).value_or("?" + shown);
    if (now && current == s.canonical) continue;
    out.arguments.push_back(std::string(s.field->set_name) + "=" + SetValue(s, now ? current : ""));
    out.changes.push_back(now ? std::string(s.field->set_name) + " " + (shown.empty() ? "(none)" : shown) + " -> " +
                                    (s.text.empty() ? "(none)" : s.text)
                              : std::string(s.field->set_name) + "=" + s.text);
  }
  return out;
}

std::string Listed(const std::vector<std::string>& changes) {
  return changes.empty() ? "" : " (" + Join(changes, ", ") + ")";
}

void QosChanges(const Desired& desired, const Current& current, std::vector<Change>& changes) {
  for (const Qos& q : desired.qos) {
    auto found = current.qos.find(q.name);
    Settings s = Differing(q.settings, found == current.qos.end() ? nullptr : &found->second);
    std::vector<std::string> argv;
    if (found == current.qos.end()) {
      argv = Command({"add", "qos", "Name=" + q.name});
      argv.insert(argv.end(), s.arguments.begin(), s.arguments.end());
      changes.push_back({"qos " + q.name + ": add" + Listed(s.changes), argv});
    } else if (!s.arguments.empty()) {
      argv = Command({"modify", "qos", "where", "Name=" + q.name, "set"});
      argv.insert(argv.end(), s.arguments.begin(), s.arguments.end());
      changes.push_back({"qos " + q.name + ": " + Join(s.changes, ", "), argv});
    }
  }
}

void AccountChanges(const Desired& desired, const Current& current, std::vector<Change>& changes) {
  const std::string cluster = "Cluster=" + desired.cluster;
  for (const Account& a : desired.accounts) {
    std::vector<Setting> settings = a.settings;
    settings.insert(settings.begin(), Setting{&kParentField, a.parent, a.parent});
    auto found = current.associations.find({a.name, ""});
    auto described = current.account_descriptions.find(a.name);
    const bool exists = found != current.associations.end();
    Settings s = Differing(settings, exists ? &found->second : nullptr);
    if (!exists) {
      std::vector<std::string> argv = Command({"add", "account", "Name=" + a.name, cluster});
      argv.insert(argv.end(), s.arguments.begin(), s.arguments.end());
      if (a.description && described == current.account_descriptions.end()) {
        argv.push_back(std::string(kDescriptionField.set_name) + "=" + *a.description);
      }
      changes.push_back({"account " + a.name + ": add" + Listed(s.changes), argv});
    } else if (!s.arguments.empty()) {
      std::vector<std::string> argv = Command({"modify", "account", "where", "Name=" + a.name, cluster, "set"});
      argv.insert(argv.end(), s.arguments.begin(), s.arguments.end());
      changes.push_back({"account " + a.name + ": " + Join(s.changes, ", "), argv});
    }
    if (a.description && described != current.account_descriptions.end() && described->second != *a.description) {
      changes.push_back(
          {"account " + a.name + ": " + kDescriptionField.set_name + " '" + described->second + "' -> '" + *a.description + "'",
           Command({"modify", "account", "where", "Name=" + a.name, "set",
                    std::string(kDescriptionField.set_name) + "=" + *a.description})});
    }
  }
}

void UserChanges(const Desired& desired, const Current& current, std::vector<Change>& changes) {
  const std::string cluster = "Cluster=" + desired.cluster;
  for (const User& u : desired.users) {
    auto default_now = current.default_accounts.find(u.name);
    for (const std::string& account : u.accounts) {
      auto found = current.associations.find({account, u.name});
      Settings s = Differing(u.settings, found == current.associations.end() ? nullptr : &found->second);
      const std::string what = "user " + u.name + " in account " + account + ": ";
      if (found == current.associations.end()) {
        std::vector<std::string> argv = Command({"add", "user", "Name=" + u.name, "Account=" + account, cluster});
        if (default_now == current.default_accounts.end() && account == u.default_account) {
          argv.push_back("DefaultAccount=" + account);
        }
        argv.insert(argv.end(), s.arguments.begin(), s.arguments.end());
        changes.push_back({what + "add" + Listed(s.changes), argv});
      } else if (!s.arguments.empty()) {
        std::vector<std::string> argv =
            Command({"modify", "user", "where", "Name=" + u.name, "Account=" + account, cluster, "set"});
        argv.insert(argv.end(), s.arguments.begin(), s.arguments.end());
        changes.push_back({what + Join(s.changes, ", "), argv});
      }
    }
    if (default_now != current.default_accounts.end() && default_now->second != u.default_account) {
      changes.push_back(
          {"user " + u.name + ": DefaultAccount " + default_now->second + " -> " + u.default_account,
           Command({"modify", "user", "where", "Name=" + u.name, "set", "DefaultAccount=" + u.default_account})});
    }
  }
}

// How many accounts lie above `account` in the current tree (for deleting
// children first).
int Depth(const Current& current, std::string account) {
  int depth = 0;
  for (; depth < 64 && account != kRoot; ++depth) {
    auto found = current.associations.find({account, ""});
    if (found == current.associations.end()) break;
    account = found->second.at(kParentField.column);
  }
  return depth;
}

void Prunes(const Desired& desired, const Current& current, std::vector<Change>& changes) {
  const std::string cluster = "Cluster=" + desired.cluster;
  std::map<std::string, const User*> users;
  for (const User& u : desired.users) users[u.name] = &u;
  std::set<std::string> accounts = {kRoot}, qos = {kNormalQos}, whole_users;
  for (const Account& a : desired.accounts) accounts.insert(a.name);
  for (const Qos& q : desired.qos) qos.insert(q.name);
  for (const auto& [key, row] : current.associations) {
    const auto& [account, user] = key;
    if (user.empty() || user == kRoot) continue;
    auto named = users.find(user);
    if (named == users.end()) {
      if (whole_users.insert(user).second) {
        changes.push_back({"user " + user + ": delete (not in the inventory)",
                           Command({"delete", "user", "where", "Name=" + user, cluster})});
      }
    } else if (std::find(named->second->accounts.begin(), named->second->accounts.end(), account) ==
               named->second->accounts.end()) {
      changes.push_back({"user " + user + " in account " + account + ": delete (not in the inventory)",
                         Command({"delete", "user", "where", "Name=" + user, "Account=" + account, cluster})});
    }
  }
  std::vector<std::pair<int, std::string>> unnamed;
  for (const auto& [key, row] : current.associations) {
    if (key.second.empty() && !accounts.count(key.first)) unnamed.push_back({-Depth(current, key.first), key.first});
  }
  std::sort(unnamed.begin(), unnamed.end());
  for (const auto& [depth, account] : unnamed) {
    changes.push_back({"account " + account + ": delete (not in the inventory)",
                       Command({"delete", "account", "where", "Name=" + account, cluster})});
  }
  for (const auto& [name, row] : current.qos) {
    if (!qos.count(name)) {
      changes.push_back(
          {"qos " + name + ": delete (not in the inventory)", Command({"delete", "qos", "where", "Name=" + name})});
    }
  }
}

}  // namespace

std::vector<Change> Difference(const Desired& desired, const Current& current) {
  std::vector<Change> changes;
  QosChanges(desired, current, changes);
  AccountChanges(desired, current, changes);
  UserChanges(desired, current, changes);
  if (desired.prune) Prunes(desired, current, changes);
  return changes;
}

}  // namespace clusterctl::agent::slurm_accounting
