#include "controller/engine/facts_check.h"

#include <algorithm>
#include <cstdint>

#include "common/json_text.h"
#include "common/strings.h"

namespace clusterctl {
namespace {

// What a text fact may hold: its characters, and how long it may be.
struct Syntax {
  const char* name;  // "a kernel name"
  const char* rule;  // what it may hold, for the message
  // Besides ASCII letters and digits: what may start it and what may follow
  // (nullptr: any UTF-8 text without control characters, `line` below).
  const char* first_extra;
  const char* rest_extra;
  bool lower_case;  // no upper-case letters
  size_t min_length, max_length;
  char filler;  // a character valid anywhere, for generated values
};

// os-release's ID, VERSION_ID and VERSION_CODENAME: "A lower-case string ...
// containing only 0–9, a–z, '.', '_' and '-'" (os-release(5)).
constexpr Syntax kOsWord{"an os-release word", "lower-case letters, digits, '.', '_' and '-'", "", "._-", true, 1, 64, 'a'};
constexpr Syntax kOsOptionalWord{"an os-release word", "lower-case letters, digits, '.', '_' and '-' (or nothing)", "", "._-",
                                 true, 0, 64, 'a'};
// /boot/vmlinuz-* names, written after a package prefix (linux-headers-):
// a package name of either family from there on.
constexpr Syntax kKernelName{"a kernel name", "letters, digits, '.', '_', '+' and '-', the first a letter, digit or '_'", "_",
                             "._+-", false, 1, 128, 'a'};
constexpr Syntax kDriverVersion{"a driver version", "digits and '.', the first a digit", nullptr, ".", false, 1, 32, '1'};
// Kernel module, link type and network stack names.
constexpr Syntax kWord{"a word", "letters, digits, '_' and '-', the first a letter or digit", "", "_-", false, 1, 64, 'a'};
// Linux refuses names longer than 15 bytes (IFNAMSIZ), '/' and white space;
// what udev, networkd, Docker, CNI and IPoIB children name stays within
// these (`ib0.8001`, `br-1a2b`, `flannel.1`, an alias's `eth0:1`).
constexpr Syntax kInterfaceName{"an interface name", "letters, digits, '_', '.', ':', '+' and '-', at most 15", "_",
                                "_.:+-", false, 1, 15, 'a'};
constexpr Syntax kLine{"one line of text", "UTF-8 without control characters", nullptr, nullptr, false, 0, 256, 'a'};

enum class FactType {
  kObject,      // a section (its own facts are checked when it is there)
  kObjectList,  // a list of sections (its elements' facts are `path[].x`)
  kCount,       // an integer within [min, max]
  kBool,
  kText,        // a string of its syntax
  kTextOrNull,  // that, or null (the agent's "none")
  kTextList,    // a list of strings of its syntax
};

struct FactSpec {
  const char* path;  // dotted, from the facts document's top; a list's element as `list[]`
  FactType type;
  // A role reads it unguarded (not behind `defined(...)`): without it the
  // node cannot be planned, and a `when` that cannot be evaluated would end
  // the whole run. The agent always sends these (`os` whenever
  // /etc/os-release is readable).
  bool required;
  const Syntax* syntax = nullptr;  // texts
  int64_t min = 0, max = 0;        // counts
};

// Parents come before their children. The counts' bounds are wide of any
// machine built (a node with 16384 CPUs, 64 TiB, 64 GPUs) and narrow enough
// that the views' arithmetic and the files written from them stay sane.
const FactSpec kFacts[] = {
    {"pci", FactType::kObject, true},
    {"pci.gpu_count", FactType::kCount, true, nullptr, 0, 64},
    {"pci.hca_count", FactType::kCount, true, nullptr, 0, 64},
    {"pci.ib_hca_count", FactType::kCount, true, nullptr, 0, 64},
    {"pci.nvswitch_count", FactType::kCount, true, nullptr, 0, 64},
    {"pci.gpus", FactType::kObjectList, false},
    {"pci.gpus[].model", FactType::kText, false, &kLine},
    {"os", FactType::kObject, true},
    {"os.id", FactType::kText, true, &kOsWord},
    {"os.family", FactType::kText, true, &kOsWord},
    {"os.version_id", FactType::kText, true, &kOsOptionalWord},
    {"os.version_codename", FactType::kText, true, &kOsOptionalWord},
    {"systemd", FactType::kBool, false},
    {"network_stack", FactType::kText, true, &kWord},
    {"nvidia_driver", FactType::kTextOrNull, true, &kDriverVersion},
    {"nvidia", FactType::kObject, false},
    {"nvidia.gpus", FactType::kObjectList, false},
    {"nvidia.gpus[].model", FactType::kText, false, &kLine},
    {"nvidia.nvml_library", FactType::kTextOrNull, false, &kLine},
    {"nvidia.simulated", FactType::kBool, false},  // RealNvidiaDriver (common/nvidia_facts.h)
    {"slurm", FactType::kObject, false},
    {"slurm.gpu_nvml", FactType::kBool, false},
    {"peer_memory", FactType::kTextOrNull, false, &kWord},
    {"kernels", FactType::kObject, true},
    {"kernels.installed", FactType::kTextList, true, &kKernelName},
    {"gpudirect", FactType::kObject, true},
    {"gpudirect.kernel_modules", FactType::kTextOrNull, true, &kWord},
    {"gpudirect.recommended", FactType::kTextOrNull, true, &kWord},
    {"gpudirect.dmabuf", FactType::kBool, true},
    {"nfs", FactType::kObject, true},
    {"nfs.kernel_client", FactType::kBool, true},
    {"nfs.kernel_cachefiles", FactType::kBool, false},  // facts gathered before it was a fact lack it
    // The Slurm view's node shape and the health view's expectations: a
    // node without them is known to neither (cluster.slurm.unknown).
    {"cpu", FactType::kObject, false},
    {"cpu.model", FactType::kText, false, &kLine},  // nvidia-driver: "Neoverse-V2" is Grace (agent/facts/arm_cpu.h)
    {"cpu.cpus", FactType::kCount, false, nullptr, 1, 16384},
    {"cpu.sockets", FactType::kCount, false, nullptr, 1, 64},
    {"cpu.cores_per_socket", FactType::kCount, false, nullptr, 1, 1024},
    {"cpu.threads_per_core", FactType::kCount, false, nullptr, 1, 8},
    {"memory", FactType::kObject, false},
    {"memory.total_mib", FactType::kCount, false, nullptr, 1024, int64_t{1} << 26},
    // The planner's host.interfaces: each one's live link type.
    {"interfaces", FactType::kObjectList, false},
    {"interfaces[].name", FactType::kText, false, &kInterfaceName},
    {"interfaces[].link_type", FactType::kTextOrNull, false, &kWord},
};

bool Allowed(char c, const char* extra) {
  const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  return alnum || std::string_view(extra).find(c) != std::string_view::npos;
}

// Why `text` is not of `syntax`; empty when it is.
std::string SyntaxProblem(const std::string& text, const Syntax& syntax) {
  if (text.size() < syntax.min_length) return "empty";
  if (text.size() > syntax.max_length) return "longer than " + std::to_string(syntax.max_length) + " bytes";
  if (FindInvalidUtf8(text)) return "not UTF-8";
  if (!syntax.rest_extra) {  // a line
    for (char c : text) {
      const auto byte = static_cast<unsigned char>(c);
      if (byte < 0x20 || byte == 0x7f) return "more than one line";
    }
    return "";
  }
  const char* first_extra = syntax.first_extra ? syntax.first_extra : "";
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (!Allowed(c, i == 0 ? first_extra : syntax.rest_extra) || (syntax.lower_case && c >= 'A' && c <= 'Z')) {
      return "not " + std::string(syntax.name) + " (" + syntax.rule + ")";
    }
  }
  return "";
}

bool IsCount(const nlohmann::json& value) {
  return value.is_number_unsigned() || (value.is_number_integer() && value.get<int64_t>() >= 0);
}

const char* TypeName(const FactSpec& spec) {
  switch (spec.type) {
    case FactType::kObject: return "a section";
    case FactType::kObjectList: return "a list of sections";
    case FactType::kCount: return "a count";
    case FactType::kBool: return "true or false";
    case FactType::kText: return spec.syntax == &kLine ? "one line of text" : "text";
    case FactType::kTextOrNull: return "text or null";
    case FactType::kTextList: return "a list of texts";
  }
  return "?";
}

bool HasType(const nlohmann::json& value, const FactSpec& spec) {
  switch (spec.type) {
    case FactType::kObject: return value.is_object();
    case FactType::kObjectList:
      return value.is_array() && std::all_of(value.begin(), value.end(), [](const auto& v) { return v.is_object(); });
    case FactType::kCount: return IsCount(value);
    case FactType::kBool: return value.is_boolean();
    case FactType::kText: return value.is_string();
    case FactType::kTextOrNull: return value.is_null() || value.is_string();
    case FactType::kTextList:
      return value.is_array() && std::all_of(value.begin(), value.end(), [](const auto& v) { return v.is_string(); });
  }
  return false;
}

std::string Shown(const nlohmann::json& value) { return Printable(JsonText(value), 60); }

// What is wrong with a value of the right type: outside its count's bounds,
// or text (each text of a list) not of its syntax. Empty when nothing.
std::string ValueProblem(const std::string& path, const nlohmann::json& value, const FactSpec& spec) {
  if (spec.type == FactType::kCount) {
    const bool too_big = value.is_number_unsigned() && value.get<uint64_t>() > static_cast<uint64_t>(spec.max);
    if (too_big || value.get<int64_t>() > spec.max) {
      return path + " is " + Shown(value) + ", more than a node has (at most " + std::to_string(spec.max) + ")";
    }
    if (value.get<int64_t>() < spec.min) {
      return path + " is " + Shown(value) + ", less than a node has (at least " + std::to_string(spec.min) + ")";
    }
    return "";
  }
  if (!spec.syntax) return "";
  if (value.is_string()) {
    const std::string why = SyntaxProblem(value.get<std::string>(), *spec.syntax);
    return why.empty() ? "" : path + " is " + Shown(value) + ": " + why;
  }
  for (size_t i = 0; value.is_array() && i < value.size(); ++i) {
    const std::string why = SyntaxProblem(value[i].get<std::string>(), *spec.syntax);
    if (!why.empty()) return path + "[" + std::to_string(i) + "] is " + Shown(value[i]) + ": " + why;
  }
  return "";
}

// Each value at `path` with the path it is shown by: one, none (absent), or
// one per element of a list on the way (`interfaces[].name` ->
// `interfaces[0].name`, ...). REQUIRES: every section and list on the way
// was checked to be of its type.
void Collect(const nlohmann::json& at, const std::vector<std::string>& keys, size_t k, const std::string& shown,
             std::vector<std::pair<std::string, const nlohmann::json*>>& out) {
  if (k == keys.size()) {
    out.emplace_back(shown, &at);
    return;
  }
  const bool each = EndsWith(keys[k], "[]");
  const std::string key = each ? keys[k].substr(0, keys[k].size() - 2) : keys[k];
  auto it = at.find(key);
  if (it == at.end()) return;
  const std::string here = shown.empty() ? key : shown + "." + key;
  if (!each) return Collect(*it, keys, k + 1, here, out);
  for (size_t i = 0; i < it->size(); ++i) Collect((*it)[i], keys, k + 1, here + "[" + std::to_string(i) + "]", out);
}

// The section or list that holds `path` is absent or was found broken.
bool ParentUnusable(const std::string& path, const std::vector<std::string>& unusable) {
  const size_t dot = path.rfind('.');
  if (dot == std::string::npos) return false;
  std::string parent = path.substr(0, dot);
  if (EndsWith(parent, "[]")) parent.resize(parent.size() - 2);
  return std::find(unusable.begin(), unusable.end(), parent) != unusable.end();
}

}  // namespace

std::vector<std::string> FactsProblems(const nlohmann::json& facts) {
  if (!facts.is_object()) return {"the facts are " + Printable(JsonText(facts), 40) + ", not a document of facts"};
  std::vector<std::string> problems;
  std::vector<std::string> unusable;  // sections absent or broken: their facts are not looked at
  for (const FactSpec& spec : kFacts) {
    const std::string path = spec.path;
    if (ParentUnusable(path, unusable)) {
      unusable.push_back(path);
      continue;
    }
    std::vector<std::pair<std::string, const nlohmann::json*>> values;
    Collect(facts, Split(path, '.'), 0, "", values);
    if (values.empty() && spec.required) problems.push_back(path + " is missing");
    if (values.empty()) unusable.push_back(path);
    for (const auto& [shown, value] : values) {
      std::string problem = HasType(*value, spec) ? ValueProblem(shown, *value, spec)
                                                  : shown + " is " + Shown(*value) + ", not " + TypeName(spec);
      if (problem.empty()) continue;
      problems.push_back(std::move(problem));
      unusable.push_back(path);
      break;  // one problem per fact
    }
  }
  return problems;
}

std::vector<std::string> CheckedFactPaths() {
  std::vector<std::string> paths;
  for (const FactSpec& spec : kFacts) paths.emplace_back(spec.path);
  return paths;
}

namespace {

void AddTextCases(const FactSpec& spec, std::vector<FactValueCase>& cases) {
  const Syntax& s = *spec.syntax;
  auto add = [&](std::string text, bool allowed, const char* what) {
    nlohmann::json value = spec.type == FactType::kTextList ? nlohmann::json::array({text}) : nlohmann::json(text);
    cases.push_back({spec.path, std::move(value), allowed, what});
  };
  const std::string word(2, s.filler);
  add(std::string(s.max_length, s.filler), true, "the longest");
  add(std::string(s.max_length + 1, s.filler), false, "one byte longer than the longest");
  if (s.min_length > 0) add("", false, "empty");
  add(word + "\xe9" + word, false, "not UTF-8");
  add(word + "\n" + word, false, "a line break");
  if (!s.rest_extra) return;  // a line holds anything else
  add(word + " " + word, false, "a space");
  add(word + "~", false, "a '~'");
  add(word + "$(id)", false, "shell syntax");
  if (s.lower_case) add(word + "A", false, "an upper-case letter");
}

}  // namespace

std::vector<FactValueCase> FactValueCases() {
  std::vector<FactValueCase> cases;
  for (const FactSpec& spec : kFacts) {
    if (spec.type == FactType::kCount) {
      cases.push_back({spec.path, spec.min, true, "the least"});
      cases.push_back({spec.path, spec.max, true, "the most"});
      cases.push_back({spec.path, spec.max + 1, false, "one more than the most"});
      if (spec.min > 0) cases.push_back({spec.path, spec.min - 1, false, "one less than the least"});
    } else if (spec.syntax) {
      AddTextCases(spec, cases);
    }
  }
  return cases;
}

}  // namespace clusterctl
