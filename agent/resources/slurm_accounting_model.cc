#include "agent/resources/slurm_accounting_model.h"

#include <algorithm>
#include <set>

#include "common/json_text.h"
#include "common/strings.h"

namespace clusterctl::agent::slurm_accounting {

const Field kParentField{"parent", "Parent", "ParentName", ValueKind::kName};
const Field kDescriptionField{"description", "Description", "Description", ValueKind::kText};

namespace {

using K = ValueKind;

// The settings this kind manages; adding one is a row (and its doc line).
const Field kQosFields[] = {
    {"priority", "Priority", "Priority", K::kCount},
    {"max_wall", "MaxWall", "MaxWall", K::kTime},
    {"grp_tres", "GrpTRES", "GrpTRES", K::kTres},
    {"max_tres_per_user", "MaxTRESPerUser", "MaxTRESPU", K::kTres},
    {"max_tres_per_job", "MaxTRESPerJob", "MaxTRES", K::kTres},
    {"max_jobs_per_user", "MaxJobsPerUser", "MaxJobsPU", K::kCount},
    {"flags", "Flags", "Flags", K::kFlags},
};
// sacctmgr(1), "SPECIFICATIONS FOR QOS", Flags (Slurm 22.05 to 24.x).
const std::set<std::string> kQosFlags = {
    "DenyOnLimit", "EnforceUsageThreshold", "NoDecay", "NoReserve", "OverPartQOS", "PartitionMaxNodes",
    "PartitionMinNodes", "PartitionTimeLimit", "RequiresReservation", "UsageFactorSafe"};
const Field kAssociationFields[] = {
    {"fairshare", "Fairshare", "Fairshare", K::kShare},
    {"qos", "QOS", "QOS", K::kNames},
    {"default_qos", "DefaultQOS", "DefaultQOS", K::kName},
};
const Field& kParent = kParentField;
const Field& kDescription = kDescriptionField;

bool Digits(std::string_view text, size_t most = 15) {
  return !text.empty() && text.size() <= most && text.find_first_not_of("0123456789") == std::string_view::npos;
}

std::string WithoutLeadingZeros(std::string_view digits) {
  const size_t first = digits.find_first_not_of('0');
  return first == std::string_view::npos ? "0" : std::string(digits.substr(first));
}

bool MemoryLike(std::string_view tres) {
  return tres == "mem" || tres == "vmem" || tres == "fs/disk" || tres.substr(0, 3) == "bb/";
}

// Minutes of a Slurm time (time_str2mins: seconds round up); "" unlimited.
std::optional<std::string> Minutes(std::string_view text) {
  if (text == "UNLIMITED" || text == "INFINITE" || text == "-1") return "";
  long long days = 0;
  std::string_view rest = text;
  const size_t dash = text.find('-');
  if (dash != std::string_view::npos) {
    if (!Digits(text.substr(0, dash), 6)) return std::nullopt;
    days = std::stoll(std::string(text.substr(0, dash)));
    rest = text.substr(dash + 1);
  }
  std::vector<std::string> parts = Split(rest, ':');
  if (parts.empty() || parts.size() > 3) return std::nullopt;
  for (const std::string& part : parts) {
    if (!Digits(part, 6)) return std::nullopt;
  }
  std::vector<long long> n;
  for (const std::string& part : parts) n.push_back(std::stoll(part));
  long long seconds = 0;
  if (dash != std::string_view::npos) {  // D-H, D-H:M, D-H:M:S
    seconds = n[0] * 3600 + (n.size() > 1 ? n[1] * 60 : 0) + (n.size() > 2 ? n[2] : 0);
  } else if (n.size() == 1) {
    seconds = n[0] * 60;  // minutes
  } else if (n.size() == 2) {
    seconds = n[0] * 60 + n[1];  // MM:SS
  } else {
    seconds = n[0] * 3600 + n[1] * 60 + n[2];
  }
  return std::to_string(days * 1440 + (seconds + 59) / 60);
}

// NAME=COUNT pairs sorted by name, memory-like counts in MiB.
std::optional<std::string> TresCanonical(std::string_view text) {
  if (text.empty()) return "";
  std::map<std::string, std::string> counts;
  for (const std::string& item : Split(text, ',')) {
    const size_t eq = item.find('=');
    if (eq == std::string::npos) return std::nullopt;
    const std::string name = item.substr(0, eq);
    std::string count = item.substr(eq + 1);
    const size_t slash = name.find('/');
    const std::string kind = name.substr(0, slash);
    if (kind.empty() || !IsAlnumOr(kind, "") || kind.find_first_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") != std::string::npos ||
        (slash != std::string::npos && (slash + 1 == name.size() || !IsAlnumOr(name.substr(slash + 1), "_.:-")))) {
      return std::nullopt;
    }
    long long scale = 1;
    const std::string units = "KMGTP";
    if (!count.empty() && units.find(count.back()) != std::string::npos) {
      if (!MemoryLike(name)) return std::nullopt;
      const size_t power = units.find(count.back());
      count.pop_back();
      scale = power == 0 ? -1024 : 1LL << (10 * (power - 1));  // K: divided, rounded up
    }
    if (!Digits(count, 12) || counts.count(name)) return std::nullopt;
    long long value = std::stoll(count);
    value = scale < 0 ? (value + 1023) / 1024 : value * scale;
    counts[name] = std::to_string(value);
  }
  std::vector<std::string> pairs;
  for (const auto& [name, count] : counts) pairs.push_back(name + "=" + count);
  return Join(pairs, ",");
}

// A set of names (or of flags), sorted.
std::optional<std::string> NamesCanonical(std::string_view text, bool flags) {
  std::set<std::string> names;
  for (const std::string& name : Split(text, ',')) {
    if (name.empty()) continue;
    if (flags ? !kQosFlags.count(name) : !NameRefusal(name).empty()) return std::nullopt;
    names.insert(name);
  }
  return Join(std::vector<std::string>(names.begin(), names.end()), ",");
}

}  // namespace

std::string NameRefusal(std::string_view name) {
  const bool first_ok = !name.empty() && IsAlnumOr(name.substr(0, 1), "_");
  if (first_ok && name.size() <= 64 && IsAlnumOr(name, "_.-") &&
      name.find_first_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ") == std::string_view::npos) {
    return "";
  }
  return "'" + Printable(name, 80) +
         "' is not a Slurm name (at most 64 lower-case letters, digits and _ . -, the first a letter, digit or _)";
}

std::string TresRefusal(std::string_view tres) {
  if (!tres.empty() && TresCanonical(tres)) return "";
  return "'" + Printable(tres, 80) +
         "' is not a TRES list (NAME=COUNT,...: cpu=64,mem=256G,gres/gpu=8; a K M G T P suffix only for mem, vmem, "
         "fs/disk, bb/...)";
}

std::string TimeRefusal(std::string_view time) {
  if (Minutes(time)) return "";
  return "'" + Printable(time, 80) +
         "' is not a Slurm time (MINUTES, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS or UNLIMITED)";
}

std::optional<std::string> Canonical(ValueKind kind, std::string_view text) {
  if (text.empty()) return "";
  switch (kind) {
    case K::kCount:
      return Digits(text) ? std::optional(WithoutLeadingZeros(text)) : std::nullopt;
    case K::kTime: return Minutes(text);
    case K::kTres: return TresCanonical(text);
    case K::kShare:
      if (text == "parent") return "parent";
      return Digits(text) ? std::optional(WithoutLeadingZeros(text)) : std::nullopt;
    case K::kNames: return NamesCanonical(text, false);
    case K::kFlags: return NamesCanonical(text, true);
    case K::kName: return NameRefusal(text).empty() ? std::optional(std::string(text)) : std::nullopt;
    case K::kText: return std::string(text);
  }
  return std::nullopt;
}

// ---- What sacctmgr shows ----

namespace {

std::string Columns(const std::vector<std::string>& leading, const Field* begin, const Field* end) {
  std::vector<std::string> columns = leading;
  for (const Field* f = begin; f != end; ++f) columns.push_back(f->column);
  return "format=" + Join(columns, ",");
}

const std::vector<std::string> kQosLead = {"Name"};
const std::vector<std::string> kAssociationLead = {"Account", "User", "Partition", kParent.column};

// Rows of `--parsable2 --noheader` output with exactly `count` columns;
// with `free_last`, the last column takes any further '|' (a description).
Result<std::vector<std::vector<std::string>>> Rows(const std::string& output, size_t count, const char* what,
                                                   bool free_last = false) {
  std::vector<std::vector<std::string>> rows;
  for (const std::string& line : Split(output, '\n')) {
    if (Trim(line).empty()) continue;
    std::vector<std::string> f = Split(line, '|');
    if (free_last && f.size() > count) {
      std::vector<std::string> rest(f.begin() + static_cast<long>(count) - 1, f.end());
      f.resize(count - 1);
      f.push_back(Join(rest, "|"));
    }
    if (f.size() != count) {
      return Status::Corruption(std::string("sacctmgr's ") + what + " line has " + std::to_string(f.size()) +
                                " columns, not " + std::to_string(count) + ": '" + Printable(line, 120) + "'");
    }
    rows.push_back(std::move(f));
  }
  return rows;
}

}  // namespace

std::vector<std::vector<std::string>> CurrentQueries(const std::string& cluster) {
  const std::vector<std::string> show = {"sacctmgr", "--parsable2", "--noheader", "show"};
  auto query = [&](std::vector<std::string> rest) {
    std::vector<std::string> argv = show;
    argv.insert(argv.end(), rest.begin(), rest.end());
    return argv;
  };
  return {
      query({"qos", Columns(kQosLead, std::begin(kQosFields), std::end(kQosFields))}),
      query({"account", "format=Account,Description"}),
      query({"association", "where", "Cluster=" + cluster,
             Columns(kAssociationLead, std::begin(kAssociationFields), std::end(kAssociationFields))}),
      query({"user", "format=User,DefaultAccount"}),
  };
}

Result<Current> ParseCurrent(const std::vector<std::string>& outputs) {
  if (outputs.size() != 4) return Status::Internal("ParseCurrent needs the outputs of the 4 queries");
  Current current;
  auto keyed = [](const std::vector<std::string>& lead, const Field* begin, const Field* end,
                  const std::vector<std::string>& row) {
    std::map<std::string, std::string> columns;
    size_t i = 0;
    for (const std::string& name : lead) columns[name] = row[i++];
    for (const Field* f = begin; f != end; ++f) columns[f->column] = row[i++];
    return columns;
  };
  const size_t qos_count = kQosLead.size() + std::size(kQosFields);
  auto qos_rows = Rows(outputs[0], qos_count, "QoS");
  if (!qos_rows.ok()) return qos_rows.status();
  for (const auto& row : *qos_rows) {
    current.qos[row[0]] = keyed(kQosLead, std::begin(kQosFields), std::end(kQosFields), row);
  }
  auto account_rows = Rows(outputs[1], 2, "account", true);
  if (!account_rows.ok()) return account_rows.status();
  for (const auto& row : *account_rows) current.account_descriptions[row[0]] = row[1];
  const size_t association_count = kAssociationLead.size() + std::size(kAssociationFields);
  auto association_rows = Rows(outputs[2], association_count, "association");
  if (!association_rows.ok()) return association_rows.status();
  for (const auto& row : *association_rows) {
    if (!row[2].empty()) continue;  // a partition's association: not managed here
    current.associations[{row[0], row[1]}] =
        keyed(kAssociationLead, std::begin(kAssociationFields), std::end(kAssociationFields), row);
  }
  auto user_rows = Rows(outputs[3], 2, "user");
  if (!user_rows.ok()) return user_rows.status();
  for (const auto& row : *user_rows) current.default_accounts[row[0]] = row[1];
  return current;
}

// ---- What the inventory names ----

namespace {

class DesiredParser {
 public:
  std::vector<std::string> problems;

  // One setting of `field` from `value`, or nothing after a problem.
  std::optional<Setting> ParseSetting(const Field& field, const nlohmann::json& value, const std::string& where) {
    std::string text;
    if (field.kind == K::kNames || field.kind == K::kFlags) {
      if (!value.is_array() || (value.empty() && field.kind == K::kNames)) {
        return Problem(where, field, field.kind == K::kNames ? "must be a non-empty list of QoS names"
                                                             : "must be a list of QoS flags");
      }
      std::vector<std::string> names;
      for (const auto& item : value) names.push_back(item.is_string() ? item.get<std::string>() : JsonText(item));
      text = Join(names, ",");
    } else if (value.is_string()) {
      text = value.get<std::string>();
    } else if (value.is_number_integer() && field.kind != K::kTres && field.kind != K::kText) {
      text = std::to_string(value.get<long long>());
    } else {
      return Problem(where, field, "must be " + std::string(field.kind == K::kTres ? "a string" : "a string or a number"));
    }
    std::string refused;
    if (field.kind == K::kText) {
      if (text.empty() || text.size() > 200 || text.find_first_of("|'\"\n\r\t\\") != std::string::npos) {
        refused = "'" + Printable(text, 80) + "' is not a description (1-200 characters, no | ' \" \\ or control characters)";
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
        if (refused.empty() && !flag.empty() && !kQosFlags.count(flag)) {
          refused = "'" + Printable(flag, 40) + "' is not a QoS flag (" +
                    Join(std::vector<std::string>(kQosFlags.begin(), kQosFlags.end()), ", ") + ")";
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
  std::vector<Setting> Settings(const nlohmann::json& item, const Field* begin, const Field* end,
                                const std::vector<std::string>& extra, const std::string& where) {
    std::vector<Setting> settings;  // in the table's order: commands and messages are stable
    for (const Field* field = begin; field != end; ++field) {
      if (!item.contains(field->key)) continue;
      if (auto setting = ParseSetting(*field, item[field->key], where)) settings.push_back(*setting);
    }
    for (const auto& [key, value] : item.items()) {
      const bool known = std::find_if(begin, end, [&](const Field& f) { return key == f.key; }) != end;
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
      problems.push_back(where + ": " + key + ": " + NameRefusal(item[key].is_string() ? item[key].get<std::string>()
                                                                                      : JsonText(item[key])));
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

}  // namespace

Result<Desired> ParseDesired(const nlohmann::json& params) {
  DesiredParser parser;
  Desired desired;
  if (!params.is_object()) return Status::InvalidArgument("slurm_accounting parameters must be a map");
  // Slurm keeps the cluster's name (slurm.conf's ClusterName) in lower case.
  const std::string cluster = params.contains("cluster") && params["cluster"].is_string()
                                  ? AsciiLower(params["cluster"].get<std::string>())
                                  : "";
  if (!NameRefusal(cluster).empty()) parser.problems.push_back("cluster: " + NameRefusal(cluster));
  desired.cluster = cluster;
  desired.prune = params.value("prune", false);
  std::set<std::string> qos_names, account_names = {kRoot};
  for (const auto& [where, name, item] : parser.Items(params, "qos")) {
    desired.qos.push_back({name, parser.Settings(item, std::begin(kQosFields), std::end(kQosFields), {}, where)});
    qos_names.insert(name);
  }
  std::vector<Account> accounts;
  for (const auto& [where, name, item] : parser.Items(params, "accounts")) {
    Account account{name, kRoot, std::nullopt, {}};
    account.settings = parser.Settings(item, std::begin(kAssociationFields), std::end(kAssociationFields),
                                       {"parent", "description"}, where);
    if (name == kRoot) parser.problems.push_back(where + ": root is Slurm's own account");
    if (item.contains("parent")) account.parent = parser.Text(item, "parent", where);
    if (item.contains("description")) {
      if (auto d = parser.ParseSetting(kDescription, item["description"], where)) account.description = d->text;
    }
    CheckQosReferences(account.settings, qos_names, where, parser.problems);
    account_names.insert(name);
    accounts.push_back(std::move(account));
  }
  desired.accounts = ParentsFirst(std::move(accounts), parser.problems);
  for (const auto& [where, name, item] : parser.Items(params, "users")) {
    User user{name, parser.Text(item, "account", where), {}, {}};
    user.settings = parser.Settings(item, std::begin(kAssociationFields), std::end(kAssociationFields),
                                    {"account", "accounts"}, where);
    if (user.default_account.empty() && !item.contains("account")) parser.problems.push_back(where + ": needs account");
    user.accounts.push_back(user.default_account);
    if (item.contains("accounts")) {
      if (!item["accounts"].is_array()) parser.problems.push_back(where + ": accounts: must be a list");
      for (const auto& a : item["accounts"].is_array() ? item["accounts"] : nlohmann::json::array()) {
        const std::string account = a.is_string() ? a.get<std::string>() : JsonText(a);
        if (const std::string refused = NameRefusal(account); !refused.empty()) {
          parser.problems.push_back(where + ": accounts: " + refused);
        } else if (std::find(user.accounts.begin(), user.accounts.end(), account) == user.accounts.end()) {
          user.accounts.push_back(account);
        }
      }
    }
    for (const std::string& account : user.accounts) {
      if (!account.empty() && !account_names.count(account)) {
        parser.problems.push_back(where + ": account '" + account + "' is neither root nor in accounts");
      }
    }
    CheckQosReferences(user.settings, qos_names, where, parser.problems);
    desired.users.push_back(std::move(user));
  }
  if (!parser.problems.empty()) return Status::InvalidArgument(Join(parser.problems, "; "));
  return desired;
}

}  // namespace clusterctl::agent::slurm_accounting
