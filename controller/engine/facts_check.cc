#include "controller/engine/facts_check.h"

#include <algorithm>

#include "common/json_text.h"
#include "common/strings.h"

namespace clusterctl {
namespace {

enum class FactType {
  kObject,      // a section (its own facts are checked when it is there)
  kCount,       // an integer >= 0
  kBool,
  kLine,        // a string without line breaks or other control characters
  kLineOrNull,  // a line, or null (the agent's "none")
  kLineList,    // a list of lines
};

struct FactSpec {
  const char* path;  // dotted, from the facts document's top
  FactType type;
  // A role reads it unguarded (not behind `defined(...)`): without it the
  // node cannot be planned, and a `when` that cannot be evaluated would end
  // the whole run. The agent always sends these (`os` whenever
  // /etc/os-release is readable).
  bool required;
};

// Parents come before their children.
constexpr FactSpec kFacts[] = {
    {"pci", FactType::kObject, true},
    {"pci.gpu_count", FactType::kCount, true},
    {"pci.hca_count", FactType::kCount, true},
    {"pci.ib_hca_count", FactType::kCount, true},
    {"pci.nvswitch_count", FactType::kCount, true},
    {"os", FactType::kObject, true},
    {"os.id", FactType::kLine, true},
    {"os.family", FactType::kLine, true},
    {"os.version_id", FactType::kLine, true},
    {"os.version_codename", FactType::kLine, true},
    {"systemd", FactType::kBool, false},
    {"network_stack", FactType::kLine, true},
    {"nvidia_driver", FactType::kLineOrNull, true},
    {"peer_memory", FactType::kLineOrNull, false},
    {"kernels", FactType::kObject, true},
    {"kernels.installed", FactType::kLineList, true},
    {"gpudirect", FactType::kObject, true},
    {"gpudirect.kernel_modules", FactType::kLineOrNull, true},
    {"gpudirect.recommended", FactType::kLineOrNull, true},
    {"gpudirect.dmabuf", FactType::kBool, true},
    {"nfs", FactType::kObject, true},
    {"nfs.kernel_client", FactType::kBool, true},
    {"nfs.kernel_cachefiles", FactType::kBool, false},  // facts gathered before it was a fact lack it
};

bool IsLine(const nlohmann::json& value) {
  if (!value.is_string()) return false;
  for (char c : value.get_ref<const std::string&>()) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) return false;
  }
  return true;
}

bool HasType(const nlohmann::json& value, FactType type) {
  switch (type) {
    case FactType::kObject: return value.is_object();
    case FactType::kCount: return value.is_number_unsigned() || (value.is_number_integer() && value.get<int64_t>() >= 0);
    case FactType::kBool: return value.is_boolean();
    case FactType::kLine: return IsLine(value);
    case FactType::kLineOrNull: return value.is_null() || IsLine(value);
    case FactType::kLineList:
      return value.is_array() && std::all_of(value.begin(), value.end(), [](const nlohmann::json& v) { return IsLine(v); });
  }
  return false;
}

const char* TypeName(FactType type) {
  switch (type) {
    case FactType::kObject: return "a section";
    case FactType::kCount: return "a count";
    case FactType::kBool: return "true or false";
    case FactType::kLine: return "one line of text";
    case FactType::kLineOrNull: return "one line of text or null";
    case FactType::kLineList: return "a list of lines";
  }
  return "?";
}

// The fact at `path`; nullptr when it, or a section on the way, is absent.
// REQUIRES: every section on the way was checked to be an object.
const nlohmann::json* Find(const nlohmann::json& facts, const std::string& path) {
  const nlohmann::json* at = &facts;
  for (const std::string& key : Split(path, '.')) {
    auto it = at->find(key);
    if (it == at->end()) return nullptr;
    at = &*it;
  }
  return at;
}

// The section that holds `path` is absent or was found broken.
bool ParentMissing(const std::string& path, const std::vector<std::string>& unusable) {
  const size_t dot = path.rfind('.');
  if (dot == std::string::npos) return false;
  const std::string parent = path.substr(0, dot);
  return std::find(unusable.begin(), unusable.end(), parent) != unusable.end();
}

}  // namespace

std::vector<std::string> FactsProblems(const nlohmann::json& facts) {
  if (!facts.is_object()) return {"the facts are " + Printable(JsonText(facts), 40) + ", not a document of facts"};
  std::vector<std::string> problems;
  std::vector<std::string> unusable;  // sections absent or broken: their facts are not looked at
  for (const FactSpec& spec : kFacts) {
    const std::string path = spec.path;
    if (ParentMissing(path, unusable)) {
      unusable.push_back(path);
      continue;
    }
    const nlohmann::json* value = Find(facts, path);
    if (!value) {
      if (spec.required) problems.push_back(path + " is missing");
      unusable.push_back(path);
    } else if (!HasType(*value, spec.type)) {
      problems.push_back(path + " is " + Printable(JsonText(*value), 40) + ", not " + TypeName(spec.type));
      unusable.push_back(path);
    }
  }
  return problems;
}

std::vector<std::string> CheckedFactPaths() {
  std::vector<std::string> paths;
  for (const FactSpec& spec : kFacts) paths.emplace_back(spec.path);
  return paths;
}

}  // namespace clusterctl
