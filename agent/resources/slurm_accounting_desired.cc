// ParseDesired (slurm_accounting_model.h): the inventory's QoS, accounts
// and users, checked whole before anything is compared or run.
#include <algorithm>
#include <set>
#include <tuple>

#include "agent/resources/slurm_accounting_model.h"
#include "common/json_fields.h"
#include "common/json_text.h"
#include "common/strings.h"

namespace clusterctl::agent::slurm_accounting {
namespace {

using K = ValueKind;

class DesiredParser {
 public:
  std::vector<std::string> problems;

  // One setting of `field` from `value`, or nothing after a problem.
  std::optional<Setting> ParseSetting(const Field& field, const nlohmann::json& value, const std::string& where) {
    std::string text;
    if (field.kind == K::kNames || field.kind == K::kFlags) {
      if (!value.is_array() || (value.empty() && field.kind == K::kNames)) {
        return Problem(
            where, field,
            field.kind == K::kNames ? "must be a non-empty list of QoS names" : "must be a list of QoS flags");
      }
      std::vector<std::string> names;
      for (const auto& item : value) names.push_back(item.is_string() ? item.get<std::string>() : JsonText(item));
      text = Join(names, ",");
    } else if (value.is_string()) {
      text = value.get<std::string>();
    } else if (value.is_number_integer() && field.kind != K::kTres && field.kind != K::kText) {
      text = std::to_string(value.get<long long>());
    } else {
      return Problem(where, field,
                     "must be " + std::string(field.kind == K::kTres ? "a string" : "a string or a number"));
    }
    std::string refused;
    if (field.kind == K::kText) {
      if (text.empty() || text.size() > 200 || text.find_first_of("|'\"\n\r\t\\") != std::string::npos) {
        refused =
            "'" + Printable(text, 80) + "' is not a description (1-200 characters, no | ' \" \\ or control characters)";
      }
    } else if (field.kind == K::kTres) {
      refused = TresRefusal(text);
    } else if (field.kind == K::kTime) {
      refused = TimeRefusal(text);
    } else if (field.kind == K::kName || field.kind == K::kNames) {
      for (const std::string& name : Split(text, ',')) {
        if (refused.empty()) refused = NameRefusal(name);
      }
    } else if (field.kind == K::kFlags) {
      for (const std::string& flag : Split(text, ',')) {
        if (refused.empty() && !flag.empty() && !QosFlags().count(flag)) {
          refused = "'" + Printable(flag, 40) + "' is not a QoS flag (" +
                    Join(std::vector<std::string>(QosFlags().begin(), QosFlags().end()), ", ") + ")";
        }
      }
    }
    std::optional<std::string> canonical = Canonical(field.kind, text);
    if (refused.empty() && (!canonical || canonical->empty()) && field.kind != K::kTime && field.kind != K::kFlags) {
      refused = "'" + Printable(text, 80) + "' is not " +
                (field.kind == K::kShare ? "a share (a number or parent)" : "a count (digits)");
    }
    if (!refused.empty()) return Problem(where, field, refused);
    return Setting{&field, text, *canonical};
  }

  // Every key of `item` is its name, a field of `fields`, or one of `extra`.
  std::vector<Setting> Settings(const nlohmann::json& item, const std::vector<Field>& fields,
                                const std::vector<std::string>& extra, const std::string& where) {
    std::vector<Setting> settings;  // in the table's order: commands and messages are stable
    for (const Field& field : fields) {
      if (!item.contains(field.key)) continue;
      if (auto setting = ParseSetting(field, item[field.key], where)) settings.push_back(*setting);
    }
    for (const auto& entry : item.items()) {
      const std::string& key = entry.key();  // not a structured binding: clang before 16 cannot capture one
      const bool known = std::any_of(fields.begin(), fields.end(), [&](const Field& f) { return key == f.key; });
      if (!known && key != "name" && std::find(extra.begin(), extra.end(), key) == extra.end()) {
        problems.push_back(where + ": unknown key '" + Printable(key, 40) + "'");
      }
    }
    return settings;
  }

  // The items of list `key` of `params`, each a map with a valid unique
  // name: (where, name, item) for the caller.
  std::vector<std::tuple<std::string, std::string, nlohmann::json>> Items(const nlohmann::json& params,
                                                                          const std::string& key) {
    std::vector<std::tuple<std::string, std::string, nlohmann::json>> items;
    if (!params.contains(key)) return items;
    if (!params[key].is_array()) {
      problems.push_back(key + ": must be a list");
      return items;
    }
    std::set<std::string> seen;
    for (size_t i = 0; i < params[key].size(); ++i) {
      const nlohmann::json& item = params[key][i];
      std::string where = key + "[" + std::to_string(i) + "]";
      if (!item.is_object() || !item.contains("name") || !item["name"].is_string()) {
        problems.push_back(where + ": must be a map with a name");
        continue;
      }
      const std::string name = item["name"].get<std::string>();
      where += " (" + Printable(name, 40) + ")";
      if (const std::string refused = NameRefusal(name); !refused.empty()) {
        problems.push_back(where + ": " + refused);
        continue;
      }
      if (!seen.insert(name).second) problems.push_back(where + ": named twice");
      items.emplace_back(where, name, item);
    }
    return items;
  }

  std::string Text(const nlohmann::json& item, const std::string& key, const std::string& where) {
    if (!item.contains(key)) return "";
    if (!item[key].is_string() || !NameRefusal(item[key].get<std::string>()).empty()) {
      problems.push_back(where + ": " + key + ": " +
                         NameRefusal(item[key].is_string() ? item[key].get<std::string>() : JsonText(item[key])));
      return "";
    }
    return item[key].get<std::string>();
  }

 private:
  std::optional<Setting> Problem(const std::string& where, const Field& field, const std::string& what) {
    problems.push_back(where + ": " + field.key + ": " + what);
    return std::nullopt;
  }
};

// Accounts ordered parents first; a parent that is neither root nor named,
// or a cycle, is a problem.
std::vector<Account> ParentsFirst(std::vector<Account> accounts, std::vector<std::string>& problems) {
  std::vector<Account> ordered;
  std::set<std::string> placed = {kRoot}, named;
  for (const Account& a : accounts) named.insert(a.name);
  for (const Account& a : accounts) {
    if (!named.count(a.parent) && a.parent != kRoot) {
      problems.push_back("accounts (" + a.name + "): parent '" + a.parent + "' is neither root nor in accounts");
      placed.insert(a.parent);  // reported once; its children still get ordered
    }
  }
  while (!accounts.empty()) {
    auto ready = std::stable_partition(accounts.begin(), accounts.end(),
                                       [&](const Account& a) { return placed.count(a.parent) > 0; });
    if (ready == accounts.begin()) {
      problems.push_back("accounts: the parents of " + accounts.front().name + " form a cycle");
      break;
    }
    for (auto it = accounts.begin(); it != ready; ++it) {
      placed.insert(it->name);
      ordered.push_back(*it);
    }
    accounts.erase(accounts.begin(), ready);
  }
  return ordered;
}

// A QoS an account or user names must be in qos (or be Slurm's normal);
// default_qos must be one of its own qos when it sets both.
void CheckQosReferences(const std::vector<Setting>& settings, const std::set<std::string>& qos_names,
                        const std::string& where, std::vector<std::string>& problems) {
  std::optional<std::string> list, fallback;
  for (const Setting& s : settings) {
    if (s.field->kind == K::kNames) list = s.canonical;
    if (s.field->kind == K::kName) fallback = s.canonical;
    for (const std::string& name : Split(s.canonical, ',')) {
      if ((s.field->kind == K::kNames || s.field->kind == K::kName) && !qos_names.count(name) && name != kNormalQos) {
        problems.push_back(where + ": " + s.field->key + ": QoS '" + name + "' is not in qos");
      }
    }
  }
  if (list && fallback) {
    std::vector<std::string> in_list = Split(*list, ',');
    if (std::find(in_list.begin(), in_list.end(), *fallback) == in_list.end()) {
      problems.push_back(where + ": default_qos '" + *fallback + "' is not one of its qos");
    }
  }
}

// An account: its association's settings, parent and description.
Account ParseAccount(DesiredParser& parser, const std::string& where, const std::string& name,
                     const nlohmann::json& item, const std::set<std::string>& qos_names) {
  Account account{name, kRoot, std::nullopt,
                  parser.Settings(item, AssociationFields(), {"parent", "description"}, where)};
  if (name == kRoot) parser.problems.push_back(where + ": root is Slurm's own account");
  if (item.contains("parent")) account.parent = parser.Text(item, "parent", where);
  if (item.contains("description")) {
    if (auto d = parser.ParseSetting(kDescriptionField, item["description"], where)) account.description = d->text;
  }
  CheckQosReferences(account.settings, qos_names, where, parser.problems);
  return account;
}

// A user: the default account first, then the further ones, each named.
User ParseUser(DesiredParser& parser, const std::string& where, const std::string& name, const nlohmann::json& item,
               const std::set<std::string>& qos_names, const std::set<std::string>& account_names) {
  User user{name,
            parser.Text(item, "account", where),
            {},
            parser.Settings(item, AssociationFields(), {"account", "accounts"}, where)};
  if (!item.contains("account")) parser.problems.push_back(where + ": needs account");
  user.accounts.push_back(user.default_account);
  if (item.contains("accounts") && !item["accounts"].is_array()) {
    parser.problems.push_back(where + ": accounts: must be a list");
  }
  for (const auto& a :
       item.contains("accounts") && item["accounts"].is_array() ? item["accounts"] : nlohmann::json::array()) {
    const std::string account = a.is_string() ? a.get<std::string>() : JsonText(a);
    if (const std::string refused = NameRefusal(account); !refused.empty()) {
      parser.problems.push_back(where + ": accounts: " + refused);
    } else if (std::find(user.accounts.begin(), user.accounts.end(), account) == user.accounts.end()) {
      user.accounts.push_back(account);
    }
  }
  for (const std::string& account : user.accounts) {
    if (!account.empty() && !account_names.count(account)) {
      parser.problems.push_back(where + ": account '" + account + "' is neither root nor in accounts");
    }
  }
  CheckQosReferences(user.settings, qos_names, where, parser.problems);
  return user;
}

}  // namespace

Result<Desired> ParseDesired(const nlohmann::json& params) {
  if (!params.is_object()) return Status::InvalidArgument("slurm_accounting parameters must be a map");
  DesiredParser parser;
  Desired desired;
  // Slurm keeps the cluster's name (slurm.conf's ClusterName) in lower case.
  desired.cluster = AsciiLower(TextAt(params, "cluster"));
  if (!NameRefusal(desired.cluster).empty()) parser.problems.push_back("cluster: " + NameRefusal(desired.cluster));
  desired.prune = FlagAt(params, "prune");
  std::set<std::string> qos_names, account_names = {kRoot};
  for (const auto& [where, name, item] : parser.Items(params, "qos")) {
    desired.qos.push_back({name, parser.Settings(item, QosFields(), {}, where)});
    qos_names.insert(name);
  }
  std::vector<Account> accounts;
  for (const auto& [where, name, item] : parser.Items(params, "accounts")) {
    accounts.push_back(ParseAccount(parser, where, name, item, qos_names));
    account_names.insert(name);
  }
  desired.accounts = ParentsFirst(std::move(accounts), parser.problems);
  for (const auto& [where, name, item] : parser.Items(params, "users")) {
    desired.users.push_back(ParseUser(parser, where, name, item, qos_names, account_names));
  }
  if (!parser.problems.empty()) return Status::InvalidArgument(Join(parser.problems, "; "));
  return desired;
}

}  // namespace clusterctl::agent::slurm_accounting
