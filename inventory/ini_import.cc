#include "inventory/ini_import.h"

#include <algorithm>
#include <map>
#include <set>

#include "common/strings.h"
#include "common/yaml_doc.h"
#include "inventory/address.h"
#include "inventory/ansible_groups.h"
#include "inventory/ansible_vars_files.h"
#include "inventory/hostlist.h"
#include "inventory/ini_value.h"

namespace clusterctl {
namespace {

using Vars = std::vector<AnsibleVariable>;  // in file order

struct IniGroup {
  std::vector<std::string> hosts;
  std::vector<std::string> children;
  Vars vars;
};

struct IniInventory {
  std::vector<std::string> host_order;
  std::map<std::string, Vars> host_vars;
  std::vector<std::string> group_order;
  std::map<std::string, IniGroup> groups;
  Vars all_vars;

  IniGroup& Group(const std::string& name) {
    if (!groups.count(name)) group_order.push_back(name);
    return groups[name];
  }
  void AddHost(const std::string& name) {
    if (!host_vars.count(name)) {
      host_order.push_back(name);
      host_vars[name];
    }
  }
};

// Splits a host line on whitespace outside '...' and "...", keeping the
// quotes: a quoted value stays a string (IniValue).
std::vector<std::string> SplitHostLine(std::string_view line) {
  std::vector<std::string> tokens;
  std::string current;
  char quote = 0;
  for (char c : line) {
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == ' ' || c == '\t') {
      if (!current.empty()) tokens.push_back(current);
      current.clear();
      continue;
    }
    current += c;
  }
  if (!current.empty()) tokens.push_back(current);
  return tokens;
}

// Ansible writes host ranges as gpu[01:16]; ours is gpu[01-16].
std::string ConvertAnsibleRange(const std::string& pattern) {
  std::string out = pattern;
  bool in_bracket = false;
  for (char& c : out) {
    if (c == '[') in_bracket = true;
    if (c == ']') in_bracket = false;
    if (in_bracket && c == ':') c = '-';
  }
  return out;
}

AnsibleVariable IniVariable(std::string_view key, std::string_view raw, const std::string& where) {
  return {std::string(Trim(key)), IniValue(raw), where, false};
}

// Reads the INI line by line into `ini`; stops at the first error (reported).
class IniParser {
 public:
  IniParser(const std::string& file_name, IniInventory& ini, Diagnostics& diagnostics)
      : file_name_(file_name), ini_(ini), diagnostics_(diagnostics) {}

  bool Line(std::string_view line, int line_number) {
    line_ = line_number;
    if (line.empty() || line[0] == '#' || line[0] == ';') return true;
    if (line[0] == '[') return Header(line);
    if (kind_ == "vars") return VarsLine(line);
    std::vector<std::string> tokens = SplitHostLine(line);
    if (kind_ == "children") {
      if (section_ != "all") ini_.Group(section_).children.push_back(tokens[0]);
      return true;
    }
    return HostLine(tokens);
  }

 private:
  bool Fail(int column, const std::string& message) {
    diagnostics_.Error({file_name_, line_, column}, message);
    return false;
  }

  bool Header(std::string_view line) {
    if (line.back() != ']') return Fail(1, "section header without closing ']'");
    std::string header(Trim(line.substr(1, line.size() - 2)));
    size_t colon = header.find(':');
    section_ = header.substr(0, colon);
    kind_ = colon == std::string::npos ? "hosts" : header.substr(colon + 1);
    if (kind_ != "hosts" && kind_ != "children" && kind_ != "vars") {
      return Fail(static_cast<int>(colon + 3), "unknown section kind ':" + kind_ + "' (expected :children or :vars)");
    }
    if (section_.empty()) return Fail(2, "empty section name");
    if (section_ != "all") ini_.Group(section_);
    return true;
  }

  bool VarsLine(std::string_view line) {
    size_t equals = line.find('=');
    if (equals == std::string_view::npos) return Fail(1, "expected key=value in [" + section_ + ":vars]");
    AnsibleVariable variable = IniVariable(line.substr(0, equals), line.substr(equals + 1), "[" + section_ + ":vars]");
    (section_ == "all" ? ini_.all_vars : ini_.Group(section_).vars).push_back(std::move(variable));
    return true;
  }

  bool HostLine(const std::vector<std::string>& tokens) {
    auto names = ExpandHostPattern(ConvertAnsibleRange(tokens[0]));
    if (!names.ok()) return Fail(1, names.status().message());
    for (const std::string& name : *names) {
      // Refused here, not in the inventory written later: a bad line can
      // expand to thousands of names (found by fuzzing).
      if (std::optional<std::string> problem = CheckHostName(name)) {
        return Fail(1, "host '" + Printable(name) + "': " + *problem);
      }
      ini_.AddHost(name);
      if (ini_.host_order.size() > kMaxPatternExpansion) {
        return Fail(1, "more than " + std::to_string(kMaxPatternExpansion) + " hosts; split the inventory");
      }
      for (size_t t = 1; t < tokens.size(); ++t) {
        size_t equals = tokens[t].find('=');
        if (equals == std::string::npos) {
          return Fail(1, "expected key=value after host '" + name + "', got '" + Printable(tokens[t]) + "'");
        }
        std::string_view token = tokens[t];
        ini_.host_vars[name].push_back(IniVariable(token.substr(0, equals), token.substr(equals + 1), "host " + name));
      }
      if (section_ != "all" && section_ != "ungrouped") ini_.Group(section_).hosts.push_back(name);
    }
    return true;
  }

  const std::string& file_name_;
  IniInventory& ini_;
  Diagnostics& diagnostics_;
  std::string section_ = "ungrouped";
  std::string kind_ = "hosts";
  int line_ = 0;
};

bool ParseIni(std::string_view text, const std::string& file_name, IniInventory& ini, Diagnostics& diagnostics) {
  IniParser parser(file_name, ini, diagnostics);
  std::vector<std::string> lines = Split(text, '\n');
  for (size_t n = 0; n < lines.size(); ++n) {
    if (!parser.Line(Trim(lines[n]), static_cast<int>(n + 1))) return false;
  }
  return true;
}

struct HostEntry {
  std::string name, address;
  nlohmann::ordered_json body;  // connection + vars, for equality when collapsing
};

struct NumberedText {
  std::string prefix, digits, suffix;
};

NumberedText SplitLastNumber(const std::string& text) {
  size_t end = text.find_last_of("0123456789");
  if (end == std::string::npos) return {text, "", ""};
  size_t begin = end;
  while (begin > 0 && std::isdigit(static_cast<unsigned char>(text[begin - 1]))) --begin;
  return {text.substr(0, begin), text.substr(begin, end - begin + 1), text.substr(end + 1)};
}

bool Follows(const NumberedText& previous, const NumberedText& next, size_t width) {
  if (previous.digits.empty() || next.digits.empty() || previous.digits.size() > 9 || next.digits.size() > 9) return false;
  if (previous.prefix != next.prefix || previous.suffix != next.suffix) return false;
  std::string expected = std::to_string(std::stoul(previous.digits) + 1);
  if (expected.size() < width) expected.insert(0, width - expected.size(), '0');
  return expected == next.digits;
}

// Folds runs like gpu01..gpu16 at 10.0.2.1..10.0.2.16 with equal settings into one range entry.
// The keys are unique (each host once, in order): the entries are collected
// in a vector, since an ordered_json object looks each key up linearly (an
// import that expands to 16384 hosts took 28 s that way; found by fuzzing).
nlohmann::ordered_json CollapseHosts(const std::vector<HostEntry>& hosts) {
  std::vector<std::pair<const std::string, nlohmann::ordered_json>> out;
  for (size_t i = 0; i < hosts.size();) {
    NumberedText first_name = SplitLastNumber(hosts[i].name);
    NumberedText first_address = SplitLastNumber(hosts[i].address);
    size_t name_width = first_name.digits.size() > 1 && first_name.digits[0] == '0' ? first_name.digits.size() : 0;
    size_t address_width =
        first_address.digits.size() > 1 && first_address.digits[0] == '0' ? first_address.digits.size() : 0;
    size_t j = i;
    while (j + 1 < hosts.size() && hosts[j + 1].body == hosts[i].body &&
           Follows(SplitLastNumber(hosts[j].name), SplitLastNumber(hosts[j + 1].name), name_width) &&
           hosts[i].address.empty() == hosts[j + 1].address.empty() &&
           (hosts[i].address.empty() ||
            Follows(SplitLastNumber(hosts[j].address), SplitLastNumber(hosts[j + 1].address), address_width))) {
      ++j;
    }
    nlohmann::ordered_json entry = nlohmann::ordered_json::object();
    std::string key = hosts[i].name;
    if (j > i) {
      NumberedText last_name = SplitLastNumber(hosts[j].name);
      key = first_name.prefix + "[" + first_name.digits + "-" + last_name.digits + "]" + first_name.suffix;
      if (!hosts[i].address.empty()) {
        NumberedText last_address = SplitLastNumber(hosts[j].address);
        entry["address"] = first_address.prefix + "[" + first_address.digits + "-" + last_address.digits + "]" +
                           first_address.suffix;
      }
    } else if (!hosts[i].address.empty()) {
      entry["address"] = hosts[i].address;
    }
    for (const auto& [k, v] : hosts[i].body.items()) entry[k] = v;
    out.emplace_back(key, entry.empty() ? nlohmann::ordered_json(nullptr) : entry);
    i = j + 1;
  }
  return nlohmann::ordered_json::object_t(out.begin(), out.end());
}

bool IsOutOfScopeGroup(const std::string& name) {
  const AnsibleGroup* entry = FindAnsibleGroup(name);
  return entry && entry->kind != AnsibleGroup::Kind::kWellKnown;
}

std::string RenamedGroup(const std::string& name) {
  const AnsibleGroup* entry = FindAnsibleGroup(name);
  return entry && entry->kind == AnsibleGroup::Kind::kWellKnown ? std::string(entry->clusterctl) : name;
}

// Adds a level's connection settings and variables to an inventory entry.
void AddLevel(const ImportedLevel& level, nlohmann::ordered_json& body) {
  if (!level.connection.empty()) body["connection"] = level.connection;
  if (!level.vars.empty()) body["vars"] = level.vars;
}

// Two DeepOps groups that map to one name (slurm-nfs and nfs-server): lists
// are joined, anything else the first group's.
void MergeGroup(nlohmann::ordered_json& existing, const nlohmann::ordered_json& body) {
  if (existing.is_null()) existing = nlohmann::ordered_json::object();
  for (const auto& [key, value] : body.items()) {
    if (!existing.contains(key)) {
      existing[key] = value;
    } else if (existing[key].is_array()) {
      for (const auto& item : value) existing[key].push_back(item);
    }
  }
}

// One INI inventory and its group_vars/host_vars, converted level by level in
// Ansible's precedence: at each level the INI's variables, then the files'.
// Among group levels, group_vars/all is above every INI [group:vars] section.
class Importer {
 public:
  Importer(IniInventory& ini, const AnsibleVarsFiles& files, const IniImportOptions& options, IniImport& result)
      : ini_(ini), files_(files), result_(result), variables_(options.known_variables, result.notes) {}

  void Run() {
    ImportedLevel cluster = Level(ini_.all_vars, "all", files_.groups, false);
    AddLevel(cluster, result_.inventory);
    result_.inventory["hosts"] = Hosts();
    nlohmann::ordered_json groups = Groups();
    if (!groups.empty()) result_.inventory["groups"] = groups;
  }

 private:
  ImportedLevel Level(const Vars& ini_vars, const std::string& name,
                      const std::map<std::string, std::vector<AnsibleVariable>>& files, bool is_host) {
    ImportedLevel level;
    for (const AnsibleVariable& variable : ini_vars) {
      if (!is_host && name != "all" && SetByGroupVarsAll(variable.name)) {
        result_.notes.push_back(variable.where + ": " + variable.name +
                                " not imported: group_vars/all sets it, and Ansible reads group_vars files "
                                "over the INI's group variables");
        continue;
      }
      variables_.Add(variable, level, is_host);
    }
    if (auto it = files.find(name); it != files.end()) {
      for (const AnsibleVariable& variable : it->second) variables_.Add(variable, level, is_host);
    }
    return level;
  }

  bool SetByGroupVarsAll(const std::string& variable) const {
    auto it = files_.groups.find("all");
    if (it == files_.groups.end()) return false;
    return std::any_of(it->second.begin(), it->second.end(),
                       [&](const AnsibleVariable& v) { return v.name == variable; });
  }

  nlohmann::ordered_json Hosts() {
    std::vector<HostEntry> hosts;
    for (const std::string& name : ini_.host_order) {
      ImportedLevel level = Level(ini_.host_vars[name], name, files_.hosts, true);
      HostEntry entry{name, level.address, nlohmann::ordered_json::object()};
      AddLevel(level, entry.body);
      hosts.push_back(std::move(entry));
    }
    return CollapseHosts(hosts);
  }

  nlohmann::ordered_json Groups() {
    nlohmann::ordered_json groups = nlohmann::ordered_json::object();
    for (const std::string& name : ini_.group_order) {
      const IniGroup& group = ini_.groups[name];
      if (IsOutOfScopeGroup(name)) {
        result_.notes.push_back("group '" + name + "' (" + std::to_string(group.hosts.size()) +
                                " hosts) not imported, nor its variables: the Kubernetes and MAAS paths are "
                                "out of scope");
        continue;
      }
      if (name == "ungrouped") continue;
      const std::string target = RenamedGroup(name);
      if (target != name) result_.notes.push_back("group '" + name + "' imported as '" + target + "'");
      nlohmann::ordered_json body = GroupBody(name, group);
      if (groups.contains(target)) {
        MergeGroup(groups[target], body);
      } else {
        groups[target] = body.empty() ? nlohmann::ordered_json(nullptr) : body;
      }
    }
    return groups;
  }

  nlohmann::ordered_json GroupBody(const std::string& name, const IniGroup& group) {
    nlohmann::ordered_json body = nlohmann::ordered_json::object();
    if (!group.hosts.empty()) body["hosts"] = CollapseHostPatterns(group.hosts);
    std::vector<std::string> children;
    for (const std::string& child : group.children) {
      if (!IsOutOfScopeGroup(child)) children.push_back(RenamedGroup(child));
    }
    if (!children.empty()) body["children"] = children;
    AddLevel(Level(group.vars, name, files_.groups, false), body);
    return body;
  }

  IniInventory& ini_;
  const AnsibleVarsFiles& files_;
  IniImport& result_;
  VariableImporter variables_;
};

std::optional<AnsibleVarsFiles> ReadVarsFiles(const IniInventory& ini, const IniImportOptions& options,
                                              Diagnostics& diagnostics) {
  if (!options.vars_dir) return AnsibleVarsFiles{};
  std::set<std::string> groups(ini.group_order.begin(), ini.group_order.end());
  std::set<std::string> hosts(ini.host_order.begin(), ini.host_order.end());
  return ReadAnsibleVarsFiles(*options.vars_dir, groups, hosts, options.limits, diagnostics);
}

}  // namespace

std::optional<IniImport> ImportAnsibleIni(std::string_view text, const std::string& file_name,
                                          const IniImportOptions& options, Diagnostics& diagnostics) {
  if (std::optional<size_t> bad = FindInvalidUtf8(text)) {
    LineColumn lc = LineColumnAt(text, *bad);
    diagnostics.Error({file_name, lc.line, lc.column}, "invalid UTF-8; expected an INI text file");
    return std::nullopt;
  }
  IniInventory ini;
  if (!ParseIni(text, file_name, ini, diagnostics)) return std::nullopt;
  if (ini.host_order.empty()) {
    diagnostics.Error({file_name, 0, 0}, "no hosts found (expected lines like 'gpu01 ansible_host=10.0.2.1')");
    return std::nullopt;
  }
  std::optional<AnsibleVarsFiles> files = ReadVarsFiles(ini, options, diagnostics);
  if (!files) return std::nullopt;

  IniImport result;
  result.notes = files->notes;
  result.inventory["version"] = 1;
  result.inventory["cluster"] = options.cluster_name;
  Importer(ini, *files, options, result).Run();
  return result;
}

std::string RenderImport(const IniImport& import, const std::string& source_name) {
  std::string out = "# Imported from " + source_name + " by 'clusterctl inventory import'.\n";
  if (!import.notes.empty()) {
    out += "# Review these notes (what was renamed or could not be mapped):\n";
    for (const std::string& note : import.notes) out += "#   - " + note + "\n";
  }
  out += JsonToYaml(import.inventory);
  return out;
}

}  // namespace clusterctl
