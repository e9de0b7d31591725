#include "controller/views/gpu_type.h"

#include <set>
#include <vector>

namespace clusterctl {
namespace {

constexpr size_t kMaxTypeLength = 32;

bool IsLower(char c) { return c >= 'a' && c <= 'z'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// The name's words, lower case; anything but an ASCII letter or digit
// separates them (spaces, '-', '(', bytes of other scripts).
std::vector<std::string> Words(std::string_view name) {
  std::vector<std::string> words(1);
  for (char c : name) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (IsLower(c) || IsDigit(c)) {
      words.back() += c;
    } else if (!words.back().empty()) {
      words.emplace_back();
    }
  }
  if (words.back().empty()) words.pop_back();
  return words;
}

// Letters then a digit, as model codes are ("h100", "a10g", "gb200"), and
// not one of the words for a form factor or memory that follow them.
bool IsModelCode(const std::string& word) {
  size_t letters = 0;
  while (letters < word.size() && IsLower(word[letters])) ++letters;
  if (letters == 0 || letters == word.size() || !IsDigit(word[letters])) return false;
  for (const char* other : {"sxm", "hbm", "pcie", "gddr", "gen"}) {
    if (word.compare(0, letters, other) == 0) return false;
  }
  return true;
}

// The words joined by '_' up to the length limit, cut at a word.
std::string JoinedWords(const std::vector<std::string>& words, size_t first) {
  std::string joined;
  for (size_t i = first; i < words.size(); ++i) {
    if (joined.empty() && words[i].size() > kMaxTypeLength) return words[i].substr(0, kMaxTypeLength);
    if (joined.size() + 1 + words[i].size() > kMaxTypeLength) break;
    joined += (joined.empty() ? "" : "_") + words[i];
  }
  return joined;
}

// The types of a facts list of GPUs ([{model: ...}]); empty when the list
// is not one or any GPU in it cannot be named.
std::vector<std::string> TypesOf(const nlohmann::json* gpus) {
  std::vector<std::string> types;
  if (gpus == nullptr || !gpus->is_array()) return {};
  for (const nlohmann::json& gpu : *gpus) {
    const nlohmann::json* model = gpu.is_object() && gpu.contains("model") ? &gpu["model"] : nullptr;
    std::string type = model != nullptr && model->is_string() ? GpuTypeOf(model->get<std::string>()) : "";
    if (type.empty()) return {};
    types.push_back(std::move(type));
  }
  return types;
}

const nlohmann::json* GpusAt(const nlohmann::json& facts, const char* section) {
  if (!facts.is_object() || !facts.contains(section) || !facts[section].is_object()) return nullptr;
  const nlohmann::json& s = facts[section];
  return s.contains("gpus") ? &s["gpus"] : nullptr;
}

}  // namespace

std::string GpuTypeOf(std::string_view model) {
  const std::vector<std::string> words = Words(model);
  for (const std::string& word : words) {
    if (IsModelCode(word)) return word.substr(0, kMaxTypeLength);
  }
  const size_t first = !words.empty() && words[0] == "nvidia" ? 1 : 0;
  std::string joined = JoinedWords(words, first);
  return !joined.empty() && IsLower(joined[0]) ? joined : "";
}

std::string NodeGpuType(const nlohmann::json& facts) {
  const nlohmann::json* pci = GpusAt(facts, "pci");
  std::vector<std::string> types = TypesOf(pci);
  if (types.empty()) {
    types = TypesOf(GpusAt(facts, "nvidia"));
    if (pci == nullptr || !pci->is_array() || types.size() != pci->size()) return "";
  }
  const std::set<std::string> distinct(types.begin(), types.end());
  return distinct.size() == 1 ? *distinct.begin() : "";
}

}  // namespace clusterctl
