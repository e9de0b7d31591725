#include "inventory/ansible_variables.h"

#include <optional>

#include "common/json_text.h"
#include "common/yaml_doc.h"
#include "inventory/deepops_variables.h"

namespace clusterctl {
namespace {

// Splits ssh options on whitespace, honouring '...' and "..." (quotes
// removed) and \ escapes inside "...".
std::vector<std::string> SplitShellWords(std::string_view line) {
  std::vector<std::string> words;
  std::string current;
  bool in_word = false;
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
      in_word = true;
    } else if (c == ' ' || c == '\t') {
      if (in_word) words.push_back(current);
      current.clear();
      in_word = false;
    } else {
      current += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(current);
  return words;
}

// The bastion of `ProxyCommand=ssh -W %h:%p [-p PORT] [user@]host`, or nullopt (noted).
std::optional<std::string> JumpHostFromProxyCommand(const std::string& command_text,
                                                    std::vector<std::string>& notes) {
  std::vector<std::string> command = SplitShellWords(command_text);
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
    notes.push_back("ProxyCommand '" + command_text + "' is not 'ssh -W %h:%p HOST'; set connection.jump_host by hand");
    return std::nullopt;
  }
  return port.empty() ? target : target + ":" + port;
}

// The bastion in ssh options: -o ProxyCommand="ssh -W %h:%p user@host", -o ProxyJump=user@host:2222, -J host.
std::optional<std::string> JumpHostFromSshArgs(const std::string& args, std::vector<std::string>& notes) {
  std::vector<std::string> words = SplitShellWords(args);
  std::optional<std::string> jump;
  for (size_t i = 0; i < words.size(); ++i) {
    std::string option = words[i];
    if (option == "-o" && i + 1 < words.size()) option = words[++i];
    if (option == "-J" && i + 1 < words.size()) {
      jump = words[++i];
    } else if (option.rfind("ProxyJump=", 0) == 0) {
      jump = option.substr(10);
    } else if (option.rfind("ProxyCommand=", 0) == 0) {
      if (auto from_command = JumpHostFromProxyCommand(option.substr(13), notes)) jump = from_command;
    } else if (option.rfind("StrictHostKeyChecking=", 0) == 0) {
      notes.push_back("ssh option '" + option + "' not imported: clusterctl always verifies host keys "
                      "(policy accept-new records new keys and refuses changed ones)");
    }
  }
  return jump;
}

// A scalar as the text Ansible would template it into (yes -> "true", 22 -> "22").
std::string TextOf(const nlohmann::json& value) {
  return value.is_string() ? value.get<std::string>() : JsonText(value);
}

bool NamesSecret(const std::string& name) {
  return name.find("pass") != std::string::npos || name.find("secret") != std::string::npos;
}

bool HoldsSecret(const nlohmann::json& value) {
  if (value.is_array()) {
    for (const auto& item : value) {
      if (HoldsSecret(item)) return true;
    }
  } else if (value.is_object()) {
    for (const auto& [key, item] : value.items()) {
      if (NamesSecret(key) || HoldsSecret(item)) return true;
    }
  }
  return false;
}

}  // namespace

// Returns whether `variable` is one of Ansible's connection variables (then handled).
bool VariableImporter::AddConnection(const AnsibleVariable& variable, ImportedLevel& level, bool is_host) const {
  const std::string& key = variable.name;
  const std::string value = TextOf(variable.value);
  const std::string where = variable.where + ": ";
  if (key == "ansible_host" || key == "ansible_ssh_host") {
    if (is_host) level.address = value;
    if (!is_host) notes_.push_back(where + key + " is only meaningful per host; not imported");
  } else if (key == "ansible_user" || key == "ansible_ssh_user") {
    level.connection["user"] = value;
  } else if (key == "ansible_port" || key == "ansible_ssh_port") {
    level.connection["port"] = std::atoi(value.c_str());
  } else if (key == "ansible_ssh_private_key_file" || key == "ansible_private_key_file") {
    level.connection["key_file"] = value;
  } else if (key == "ansible_become") {
    std::optional<bool> on = ParseYamlBool(value);
    level.connection["become"] = (on && *on) ? "sudo" : "none";
  } else if (key == "ansible_become_method") {
    if (value != "sudo") notes_.push_back(where + "become method '" + value + "' is not supported (only sudo)");
  } else if (key == "ansible_ssh_common_args" || key == "ansible_ssh_extra_args") {
    if (std::optional<std::string> jump = JumpHostFromSshArgs(value, notes_)) level.connection["jump_host"] = *jump;
  } else if (key.rfind("ansible_", 0) == 0 && NamesSecret(key)) {
    notes_.push_back(where + key + " not imported: passwords do not belong in the inventory "
                     "(give the sudo password through CLUSTERCTL_SUDO_PASSWORD or the prompt)");
  } else if (key.rfind("ansible_", 0) == 0) {
    notes_.push_back(where + key + " has no clusterctl equivalent; not imported");
  } else {
    return false;
  }
  return true;
}

void VariableImporter::Leave(const AnsibleVariable& variable, ImportedLevel& level, const std::string& why) const {
  level.vars.erase(variable.name);  // a lower level's value must not stand in for it
  notes_.push_back(variable.where + ": " + variable.name + " not imported: " + why);
}

void VariableImporter::Add(const AnsibleVariable& variable, ImportedLevel& level, bool is_host) const {
  if (AddConnection(variable, level, is_host)) return;
  if (variable.vault || NamesSecret(variable.name) || HoldsSecret(variable.value)) {
    return Leave(variable, level, "it holds a password or secret, never written to an inventory "
                                  "(clusterctl generates the secrets its roles need)");
  }
  if (const DeepOpsVariable* deepops = FindDeepOpsVariable(variable.name)) {
    if (deepops->clusterctl.empty()) return Leave(variable, level, std::string(deepops->note));
    std::optional<nlohmann::json> value = deepops->convert ? deepops->convert(variable.value) : variable.value;
    const std::string target(deepops->clusterctl);
    if (!value) return Leave(variable, level, "its value does not fit clusterctl's " + target);
    level.vars[target] = *value;
    if (target != variable.name) {
      notes_.push_back(variable.where + ": " + variable.name + " imported as " + target +
                       (deepops->note.empty() ? "" : " (" + std::string(deepops->note) + ")"));
    }
    return;
  }
  if (known_.count(variable.name)) {
    level.vars[variable.name] = variable.value;
    return;
  }
  Leave(variable, level, "no clusterctl role declares it (no equivalent)");
}

}  // namespace clusterctl
