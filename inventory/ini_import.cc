#include "inventory/ini_import.h"

#include <map>
#include <set>

#include "common/strings.h"
#include "common/yaml_doc.h"
#include "inventory/address.h"
#include "inventory/hostlist.h"

namespace clusterctl {
namespace {

using Vars = std::vector<std::pair<std::string, std::string>>;  // in file order

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

const std::map<std::string, std::string>& GroupRenames() {
  static const std::map<std::string, std::string> renames = {
      {"slurm-master", "controller"},   {"slurm-node", "compute"},
      {"slurm-login", "login"},         {"slurm-nfs", "nfs_server"},
      {"nfs-server", "nfs_server"},     {"slurm-nfs-client", "nfs_clients"},
      {"nfs-clients", "nfs_clients"},   {"slurm-metric", "monitoring"},
      {"slurm-monitoring", "monitoring"}};
  return renames;
}

bool IsOutOfScopeGroup(const std::string& name) {
  static const std::set<std::string> dropped = {"kube-master", "kube-node", "etcd", "k8s-cluster", "maas",
                                                "kube_control_plane", "kube_node", "calico_rr", "kube-control-plane"};
  return dropped.count(name) > 0;
}

// Splits on whitespace, honouring '...' and "..." (quotes removed) and \ escapes.
std::vector<std::string> Tokenize(std::string_view line) {
  std::vector<std::string> tokens;
  std::string current;
  bool in_token = false;
  char quote = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quote) {
      if (c == quote) {
        quote = 0;
      } else if (c == '\\' && quote == '"' && i + 1 < line.size()) {
        current += line[++i];
      } else {
        current += c;
      }
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_token = true;
    } else if (c == ' ' || c == '\t') {
      if (in_token) tokens.push_back(current);
      current.clear();
      in_token = false;
    } else {
      current += c;
      in_token = true;
    }
  }
  if (in_token) tokens.push_back(current);
  return tokens;
}

std::string Unquote(std::string_view value) {
  value = Trim(value);
  if (value.size() >= 2 && (value.front() == '\'' || value.front() == '"') && value.back() == value.front()) {
    return std::string(value.substr(1, value.size() - 2));
  }
  return std::string(value);
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

// Extracts the bastion from ssh options such as
//   -o ProxyCommand="ssh -W %h:%p -q ubuntu@10.0.0.1"   or   -o ProxyJump=user@host:2222  or -J host
std::optional<std::string> JumpHostFromSshArgs(const std::string& args, std::vector<std::string>& notes) {
  std::vector<std::string> tokens = Tokenize(args);
  std::optional<std::string> jump;
  for (size_t i = 0; i < tokens.size(); ++i) {
    std::string option = tokens[i];
    if (option == "-o" && i + 1 < tokens.size()) option = tokens[++i];
    if (option == "-J" && i + 1 < tokens.size()) {
      jump = tokens[++i];
    } else if (option.rfind("ProxyJump=", 0) == 0) {
      jump = option.substr(10);
    } else if (option.rfind("ProxyCommand=", 0) == 0) {
      std::vector<std::string> command = Tokenize(option.substr(13));
      std::string target, port;
      for (size_t k = 1; k < command.size(); ++k) {
        const std::string& t = command[k];
        if ((t == "-p" || t == "-W" || t == "-i" || t == "-o" || t == "-l") && k + 1 < command.size()) {
          if (t == "-p") port = command[k + 1];
          ++k;
        } else if (!t.empty() && t[0] != '-') {
          target = t;
        }
      }
      if (command.empty() || command[0] != "ssh" || target.empty()) {
        notes.push_back("ProxyCommand '" + option.substr(13) + "' is not 'ssh -W %h:%p HOST'; set connection.jump_host by hand");
      } else {
        jump = port.empty() ? target : target + ":" + port;
      }
    } else if (option.rfind("StrictHostKeyChecking=", 0) == 0) {
      notes.push_back("ssh option '" + option + "' not imported: clusterctl always verifies host keys "
                      "(policy accept-new records new keys and refuses changed ones)");
    }
  }
  return jump;
}

// Splits Ansible connection variables out of `vars` into a connection map;
// returns the remaining (ordinary) variables. Notes name what was dropped.
nlohmann::ordered_json ConvertVars(const Vars& vars, const std::string& where, nlohmann::ordered_json& connection,
                                   std::string* address, std::vector<std::string>& notes) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const auto& [key, raw] : vars) {
    std::string value = Unquote(raw);
    if (key == "ansible_host" || key == "ansible_ssh_host") {
      if (address) {
        *address = value;
      } else {
        notes.push_back(where + ": " + key + " is only meaningful per host; not imported");
      }
    } else if (key == "ansible_user" || key == "ansible_ssh_user") {
      connection["user"] = value;
    } else if (key == "ansible_port" || key == "ansible_ssh_port") {
      connection["port"] = std::atoi(value.c_str());
    } else if (key == "ansible_ssh_private_key_file" || key == "ansible_private_key_file") {
      connection["key_file"] = value;
    } else if (key == "ansible_become") {
      std::optional<bool> on = ParseYamlBool(value);
      connection["become"] = (on && *on) ? "sudo" : "none";
    } else if (key == "ansible_become_method") {
      if (value != "sudo") notes.push_back(where + ": become method '" + value + "' is not supported (only sudo)");
    } else if (key == "ansible_ssh_common_args" || key == "ansible_ssh_extra_args") {
      if (std::optional<std::string> jump = JumpHostFromSshArgs(value, notes)) connection["jump_host"] = *jump;
    } else if (key.find("pass") != std::string::npos && key.rfind("ansible_", 0) == 0) {
      notes.push_back(where + ": " + key + " not imported: passwords do not belong in the inventory "
                      "(give the sudo password through CLUSTERCTL_SUDO_PASSWORD or the prompt)");
    } else if (key.rfind("ansible_", 0) == 0) {
      notes.push_back(where + ": " + key + " has no clusterctl equivalent; not imported");
    } else {
      YamlNode scalar;
      scalar.kind = YamlNode::Kind::kScalar;
      scalar.scalar = value;
      scalar.quoted = Trim(raw) != value;  // quoted in the INI: keep as a string
      out[key] = YamlToJson(scalar);
    }
  }
  return out;
}

bool ParseIni(std::string_view text, const std::string& file_name, IniInventory& ini, Diagnostics& diagnostics) {
  std::vector<std::string> lines = Split(text, '\n');
  std::string section = "ungrouped";
  std::string kind = "hosts";
  for (size_t n = 0; n < lines.size(); ++n) {
    std::string_view line = Trim(lines[n]);
    const int line_number = static_cast<int>(n + 1);
    if (line.empty() || line[0] == '#' || line[0] == ';') continue;
    if (line[0] == '[') {
      if (line.back() != ']') {
        diagnostics.Error({file_name, line_number, 1}, "section header without closing ']'");
        return false;
      }
      std::string header(Trim(line.substr(1, line.size() - 2)));
      size_t colon = header.find(':');
      section = header.substr(0, colon);
      kind = colon == std::string::npos ? "hosts" : header.substr(colon + 1);
      if (kind != "hosts" && kind != "children" && kind != "vars") {
        diagnostics.Error({file_name, line_number, static_cast<int>(colon + 3)},
                          "unknown section kind ':" + kind + "' (expected :children or :vars)");
        return false;
      }
      if (section.empty()) {
        diagnostics.Error({file_name, line_number, 2}, "empty section name");
        return false;
      }
      if (section != "all") ini.Group(section);
      continue;
    }
    if (kind == "vars") {
      size_t equals = line.find('=');
      if (equals == std::string_view::npos) {
        diagnostics.Error({file_name, line_number, 1}, "expected key=value in [" + section + ":vars]");
        return false;
      }
      std::pair<std::string, std::string> entry{std::string(Trim(line.substr(0, equals))),
                                                std::string(Trim(line.substr(equals + 1)))};
      (section == "all" ? ini.all_vars : ini.Group(section).vars).push_back(entry);
      continue;
    }
    std::vector<std::string> tokens = Tokenize(line);
    if (tokens.empty()) continue;
    if (kind == "children") {
      if (section != "all") ini.Group(section).children.push_back(tokens[0]);
      continue;
    }
    std::string pattern = ConvertAnsibleRange(tokens[0]);
    auto names = ExpandHostPattern(pattern);
    if (!names.ok()) {
      diagnostics.Error({file_name, line_number, 1}, names.status().message());
      return false;
    }
    for (const std::string& name : *names) {
      // Refused here, not in the inventory written later: a bad line can
      // expand to thousands of names (found by fuzzing).
      if (std::optional<std::string> problem = CheckHostName(name)) {
        diagnostics.Error({file_name, line_number, 1}, "host '" + Printable(name) + "': " + *problem);
        return false;
      }
      ini.AddHost(name);
      if (ini.host_order.size() > kMaxPatternExpansion) {
        diagnostics.Error({file_name, line_number, 1},
                          "more than " + std::to_string(kMaxPatternExpansion) + " hosts; split the inventory");
        return false;
      }
      for (size_t t = 1; t < tokens.size(); ++t) {
        size_t equals = tokens[t].find('=');
        if (equals == std::string::npos) {
          diagnostics.Error({file_name, line_number, 1}, "expected key=value after host '" + name + "', got '" +
                                                             Printable(tokens[t]) + "'");
          return false;
        }
        ini.host_vars[name].emplace_back(tokens[t].substr(0, equals), tokens[t].substr(equals + 1));
      }
      if (section != "all" && section != "ungrouped") ini.Group(section).hosts.push_back(name);
    }
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

}  // namespace

std::optional<IniImport> ImportAnsibleIni(std::string_view text, const std::string& file_name,
                                          const std::string& cluster_name, Diagnostics& diagnostics) {
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

  IniImport result;
  std::vector<std::string>& notes = result.notes;
  nlohmann::ordered_json& doc = result.inventory;
  doc["version"] = 1;
  doc["cluster"] = cluster_name;

  nlohmann::ordered_json cluster_connection = nlohmann::ordered_json::object();
  nlohmann::ordered_json cluster_vars = ConvertVars(ini.all_vars, "[all:vars]", cluster_connection, nullptr, notes);
  if (!cluster_connection.empty()) doc["connection"] = cluster_connection;
  if (!cluster_vars.empty()) doc["vars"] = cluster_vars;

  std::vector<HostEntry> hosts;
  for (const std::string& name : ini.host_order) {
    HostEntry entry{name, "", nlohmann::ordered_json::object()};
    nlohmann::ordered_json connection = nlohmann::ordered_json::object();
    nlohmann::ordered_json vars = ConvertVars(ini.host_vars[name], "host " + name, connection, &entry.address, notes);
    if (!connection.empty()) entry.body["connection"] = connection;
    if (!vars.empty()) entry.body["vars"] = vars;
    hosts.push_back(std::move(entry));
  }
  doc["hosts"] = CollapseHosts(hosts);

  auto renamed = [](const std::string& name) {
    auto it = GroupRenames().find(name);
    return it == GroupRenames().end() ? name : it->second;
  };
  nlohmann::ordered_json groups = nlohmann::ordered_json::object();
  for (const std::string& name : ini.group_order) {
    const IniGroup& group = ini.groups[name];
    if (IsOutOfScopeGroup(name)) {
      notes.push_back("group '" + name + "' (" + std::to_string(group.hosts.size()) +
                      " hosts) not imported: the Kubernetes and MAAS paths are out of scope");
      continue;
    }
    if (name == "ungrouped") continue;
    std::string target = renamed(name);
    if (target != name) notes.push_back("group '" + name + "' imported as '" + target + "'");
    nlohmann::ordered_json body = nlohmann::ordered_json::object();
    if (!group.hosts.empty()) body["hosts"] = CollapseHostPatterns(group.hosts);
    std::vector<std::string> children;
    for (const std::string& child : group.children) {
      if (!IsOutOfScopeGroup(child)) children.push_back(renamed(child));
    }
    if (!children.empty()) body["children"] = children;
    nlohmann::ordered_json connection = nlohmann::ordered_json::object();
    nlohmann::ordered_json vars = ConvertVars(group.vars, "[" + name + ":vars]", connection, nullptr, notes);
    if (!connection.empty()) body["connection"] = connection;
    if (!vars.empty()) body["vars"] = vars;
    if (groups.contains(target)) {
      // Two DeepOps groups that map to one name (slurm-nfs and nfs-server): merge.
      nlohmann::ordered_json& existing = groups[target];
      for (const auto& [k, v] : body.items()) {
        if (!existing.contains(k)) {
          existing[k] = v;
        } else if (existing[k].is_array()) {
          for (const auto& item : v) existing[k].push_back(item);
        }
      }
      continue;
    }
    groups[target] = body.empty() ? nlohmann::ordered_json(nullptr) : body;
  }
  if (!groups.empty()) doc["groups"] = groups;
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
