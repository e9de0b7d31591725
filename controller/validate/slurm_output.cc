#include "controller/validate/slurm_output.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <regex>
#include <set>

#include <nlohmann/json.hpp>

#include "common/json_text.h"
#include "common/json_fields.h"
#include "common/strings.h"

namespace clusterctl {
namespace {

void SetGres(const std::string& gres, SlurmNodeState& node) {
  node.gpus = GresGpuCount(gres);
  node.gpu_types = GresGpuTypes(gres);
}

// Base states by every name sinfo and scontrol use, to a canonical word and
// whether a node in it can take jobs.
const std::map<std::string, std::pair<std::string, bool>>& BaseStates() {
  static const std::map<std::string, std::pair<std::string, bool>> states = {
      {"idle", {"idle", true}},           {"mixed", {"mixed", true}},         {"mix", {"mixed", true}},
      {"allocated", {"allocated", true}}, {"alloc", {"allocated", true}},     {"completing", {"completing", true}},
      {"comp", {"completing", true}},     {"planned", {"planned", true}},     {"plnd", {"planned", true}},
      {"reserved", {"reserved", true}},   {"resv", {"reserved", true}},       {"down", {"down", false}},
      {"drained", {"drained", false}},    {"drain", {"drained", false}},      {"draining", {"draining", false}},
      {"drng", {"draining", false}},      {"fail", {"failed", false}},        {"failing", {"failing", false}},
      {"failg", {"failing", false}},      {"future", {"future", false}},      {"futr", {"future", false}},
      {"maint", {"maintenance", false}},  {"unknown", {"unknown", false}},    {"unk", {"unknown", false}},
      {"inval", {"invalid registration", false}}, {"invalid", {"invalid registration", false}},
      {"power_down", {"powered down", false}},   {"powered_down", {"powered down", false}},
      {"powering_down", {"powering down", false}}, {"powering_up", {"powering up", false}},
      {"pow_up", {"powering up", false}},  {"reboot_issued", {"rebooting", false}},
      {"reboot_requested", {"reboot requested", true}}, {"blocked", {"blocked", false}},
      {"perfctrs", {"perfctrs", false}}, {"npc", {"perfctrs", false}},    {"cloud", {"cloud", false}}};
  return states;
}

// scontrol flags that make a node unusable, with how to say it.
const std::map<std::string, std::string>& BlockingFlags() {
  static const std::map<std::string, std::string> flags = {
      {"DRAIN", "drained"},          {"DRAINED", "drained"},           {"DRAINING", "draining"},
      {"NOT_RESPONDING", "not responding"}, {"NO_RESPOND", "not responding"}, {"FAIL", "failed"},
      {"FAILING", "failing"},        {"MAINTENANCE", "in maintenance"}, {"MAINT", "in maintenance"},
      {"POWERED_DOWN", "powered down"}, {"POWER_DOWN", "powering down"}, {"POWERING_DOWN", "powering down"},
      {"POWERING_UP", "powering up"}, {"REBOOT_ISSUED", "rebooting"},  {"INVALID_REG", "invalid registration"}};
  return flags;
}

// sinfo state suffixes that make a node unusable.
const std::map<char, std::string>& BlockingSuffixes() {
  static const std::map<char, std::string> suffixes = {
      {'*', "not responding"}, {'~', "powered down"}, {'#', "powering up"}, {'!', "powering down"},
      {'%', "powering down"},  {'$', "in a maintenance reservation"}, {'^', "rebooting"}};
  return suffixes;
}

// "IDLE+DRAIN", "down*", "mixed-", "DOWN*+NOT_RESPONDING" -> classified node.
Status ClassifyStateText(std::string_view text, SlurmNodeState& node) {
  std::vector<std::string> parts = Split(text, '+');
  std::string base = parts.empty() ? std::string() : parts[0];
  std::string suffixes;
  while (!base.empty() && std::string_view("*~#!%$@^-").find(base.back()) != std::string_view::npos) {
    suffixes += base.back();
    base.pop_back();
  }
  std::vector<std::string> flags;
  for (size_t i = 1; i < parts.size(); ++i) flags.push_back(AsciiUpper(parts[i]));
  node.state = std::string(text);
  return ClassifySlurmState(base, flags, suffixes, node);
}


// One element of the "nodes" array: name, state words (base first, then
// flags, from "state" and "state_flags"), reason and Gres.
Status ReadJsonNode(const nlohmann::json& n, SlurmNodeState& node) {
  node.name = TextAt(n, "name");
  std::vector<std::string> words;
  const nlohmann::json* state = MemberOf(n, "state");
  if (state != nullptr && state->is_string()) words.push_back(state->get<std::string>());
  if (state != nullptr && state->is_array()) {
    for (const nlohmann::json& w : *state) {
      if (!w.is_string()) return Status::InvalidArgument("Slurm JSON: node " + Printable(node.name) + ": a state that is not text");
      words.push_back(w.get<std::string>());
    }
  }
  if (const nlohmann::json* flags = MemberOf(n, "state_flags"); flags != nullptr && flags->is_array()) {
    for (const nlohmann::json& f : *flags) {
      if (f.is_string()) words.push_back(f.get<std::string>());
    }
  }
  if (node.name.empty() || words.empty()) return Status::InvalidArgument("Slurm JSON: a node without a name or a state");
  std::vector<std::string> flags;
  for (size_t i = 1; i < words.size(); ++i) flags.push_back(AsciiUpper(words[i]));
  node.state = words[0] + (flags.empty() ? "" : "+" + Join(flags, "+"));
  CLUSTERCTL_RETURN_IF_ERROR(
      ClassifySlurmState(words[0], flags, "", node).WithContext("Slurm JSON node " + Printable(node.name)));
  node.reason = TextAt(n, "reason");
  if (const nlohmann::json* gres = MemberOf(n, "gres"); gres != nullptr && gres->is_string()) {
    SetGres(gres->get<std::string>(), node);
  }
  node.line = "\"name\": \"" + node.name + "\", \"state\": \"" + node.state + "\"" +
              (node.reason.empty() ? "" : ", \"reason\": \"" + node.reason + "\"");
  return Status::Ok();
}

}  // namespace

Status ClassifySlurmState(std::string_view base, const std::vector<std::string>& flags, std::string_view suffixes,
                          SlurmNodeState& node) {
  auto it = BaseStates().find(AsciiLower(base));
  if (it == BaseStates().end()) return Status::InvalidArgument("unknown Slurm node state '" + std::string(base) + "'");
  std::vector<std::string> why;
  if (!it->second.second) why.push_back(it->second.first);
  for (const std::string& flag : flags) {
    auto f = BlockingFlags().find(flag);
    if (f != BlockingFlags().end() && std::find(why.begin(), why.end(), f->second) == why.end()) why.push_back(f->second);
  }
  for (char c : suffixes) {
    auto s = BlockingSuffixes().find(c);
    if (s != BlockingSuffixes().end() && std::find(why.begin(), why.end(), s->second) == why.end()) why.push_back(s->second);
  }
  node.usable = why.empty();
  node.why_not = Join(why, ", ");
  return Status::Ok();
}

bool DrainedByHealthCheck(std::string_view reason) { return reason.substr(0, kHealthDrainPrefix.size()) == kHealthDrainPrefix; }

namespace {

// Each "gpu[:TYPE]:COUNT" entry of a Gres string: [1] the type (unmatched
// when untyped), [2] the count. Entries are comma separated, but a socket
// list "(S:0,1)" may contain commas.
std::vector<std::smatch> GpuEntries(const std::string& text) {
  static const std::regex kGpu(R"((?:^|,)gpu(?::([^:,()]+))?:(\d+))");
  return {std::sregex_iterator(text.begin(), text.end(), kGpu), std::sregex_iterator()};
}

}  // namespace

int GresGpuCount(std::string_view gres) {
  int total = 0;
  const std::string text(gres);
  for (const std::smatch& entry : GpuEntries(text)) total += std::atoi(entry[2].str().c_str());
  return total;
}

std::vector<std::string> GresGpuTypes(std::string_view gres) {
  std::vector<std::string> types;
  const std::string text(gres);
  for (const std::smatch& entry : GpuEntries(text)) {
    if (entry[1].matched && std::find(types.begin(), types.end(), entry[1].str()) == types.end()) {
      types.push_back(entry[1].str());
    }
  }
  return types;
}

Result<std::vector<SlurmNodeState>> ParseScontrolShowNode(std::string_view text) {
  std::vector<SlurmNodeState> nodes;
  std::map<std::string, std::string> fields;
  std::string first_line;
  auto flush = [&]() -> Status {
    if (fields.empty()) return Status::Ok();
    SlurmNodeState node;
    node.name = fields["NodeName"];
    if (node.name.empty() || !fields.count("State")) {
      return Status::InvalidArgument("scontrol show node: a record without NodeName= and State=: " +
                                     Printable(first_line, 200));
    }
    CLUSTERCTL_RETURN_IF_ERROR(ClassifyStateText(fields["State"], node).WithContext("scontrol show node " + node.name));
    node.reason = fields.count("Reason") ? fields["Reason"] : "";
    if (fields.count("Gres")) SetGres(fields["Gres"], node);
    node.line = "NodeName=" + node.name + " State=" + fields["State"] +
                (node.reason.empty() ? "" : " Reason=" + node.reason) + (fields.count("Gres") ? " Gres=" + fields["Gres"] : "");
    nodes.push_back(std::move(node));
    fields.clear();
    return Status::Ok();
  };
  for (const std::string& raw : Split(text, '\n')) {
    std::string_view line = Trim(raw);
    if (line.empty()) continue;  // Slurm 23.x/24.x print a whitespace-only line inside a record, before Reason=
    if (line.rfind("NodeName=", 0) == 0) {
      CLUSTERCTL_RETURN_IF_ERROR(flush());
      first_line = std::string(line);
    } else if (first_line.empty()) {
      return Status::InvalidArgument("not scontrol show node output: " + Printable(line, 200));
    }
    // Tokens are key=value; a token without '=' continues the previous value
    // ("OS=Linux 4.14 #1 SMP", "Reason=memory issues? [root@...]").
    std::string last;
    for (const std::string& token : Split(std::string(line), ' ')) {
      if (token.empty()) continue;
      size_t eq = token.find('=');
      if (eq == std::string::npos || eq == 0) {
        if (last.empty()) return Status::InvalidArgument("not scontrol show node output: " + Printable(line, 200));
        fields[last] += " " + token;
        continue;
      }
      last = token.substr(0, eq);
      fields[last] = token.substr(eq + 1);
    }
  }
  CLUSTERCTL_RETURN_IF_ERROR(flush());
  if (nodes.empty()) return Status::InvalidArgument("scontrol show node printed no nodes");
  return nodes;
}

Result<std::vector<SlurmNodeState>> ParseSinfoNodes(std::string_view text) {
  std::vector<SlurmNodeState> nodes;
  for (const std::string& raw : Split(text, '\n')) {
    std::string line(Trim(raw));
    if (line.empty()) continue;
    std::vector<std::string> fields;
    std::string current;
    for (char c : line) {
      if (c == ' ' || c == '\t' || c == ',' || c == '|') {
        if (!current.empty()) fields.push_back(std::move(current));
        current.clear();
      } else {
        current += c;
      }
    }
    if (!current.empty()) fields.push_back(std::move(current));
    if (fields.size() < 2) return Status::InvalidArgument("sinfo line without a node and a state: " + Printable(line, 200));
    if (fields[0] == "NODELIST" || fields[0] == "HOSTNAMES") continue;  // header
    SlurmNodeState node;
    node.name = fields[0];
    Status classified = ClassifyStateText(fields.back(), node);
    if (!classified.ok()) return Status::InvalidArgument("sinfo: " + classified.message() + " in: " + Printable(line, 200));
    for (size_t i = 1; i + 1 < fields.size(); ++i) {
      if (fields[i].rfind("gpu", 0) == 0) {
        SetGres(fields[i], node);
        break;
      }
    }
    node.line = line.size() > 160 ? node.name + " ... " + node.state : line;
    nodes.push_back(std::move(node));
  }
  if (nodes.empty()) return Status::InvalidArgument("sinfo printed no nodes");
  return nodes;
}

Result<SlurmNodesJson> ParseSlurmNodesJson(std::string_view text) {
  const nlohmann::json doc = nlohmann::json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) {
    std::string_view trimmed = Trim(text);
    return Status::InvalidArgument("not JSON: " + Printable(trimmed.substr(0, trimmed.find('\n')), 200));
  }
  const nlohmann::json* errors = MemberOf(doc, "errors");
  if (errors != nullptr && errors->is_array() && !errors->empty()) {
    const nlohmann::json& first = (*errors)[0];
    std::string why = TextAt(first, "description");
    if (why.empty()) why = TextAt(first, "error");
    return Status::InvalidArgument("Slurm reported an error: " + Printable(why.empty() ? JsonText(first) : why, 200));
  }
  const nlohmann::json* list = MemberOf(doc, "nodes");
  if (list == nullptr || !list->is_array()) return Status::InvalidArgument("Slurm JSON without a \"nodes\" array");
  SlurmNodesJson result;
  if (const nlohmann::json* meta = MemberOf(doc, "meta")) {
    const nlohmann::json* slurm = MemberOf(*meta, "slurm");  // 23.11 on; "Slurm" before
    if (slurm == nullptr) slurm = MemberOf(*meta, "Slurm");
    if (slurm != nullptr) result.release = TextAt(*slurm, "release");
  }
  for (const nlohmann::json& n : *list) {
    SlurmNodeState node;
    CLUSTERCTL_RETURN_IF_ERROR(ReadJsonNode(n, node));
    result.nodes.push_back(std::move(node));
  }
  if (result.nodes.empty()) return Status::InvalidArgument("Slurm JSON lists no nodes");
  return result;
}

Result<std::vector<std::pair<std::string, bool>>> ParseScontrolPing(std::string_view text) {
  static const std::regex kLine(R"(Slurmctld\((\w+)\) at (\S+) is (UP|DOWN))");
  std::vector<std::pair<std::string, bool>> controllers;
  std::smatch m;
  for (const std::string& line : Split(text, '\n')) {
    if (std::regex_search(line, m, kLine)) controllers.emplace_back(m[2], m[3] == "UP");
  }
  if (controllers.empty()) return Status::InvalidArgument("not scontrol ping output: " + Printable(Trim(text), 200));
  return controllers;
}

}  // namespace clusterctl
