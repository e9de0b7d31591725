#include "controller/validate/dcgm_diag.h"

#include <map>
#include <optional>
#include <regex>
#include <set>

#include <nlohmann/json.hpp>

#include "common/strings.h"

namespace clusterctl {

Result<std::vector<DcgmTest>> ParseDcgmDiag(std::string_view text) {
  static const std::regex kSection(R"(^[|+]-+\s+(.*?)\s+-+\+)");
  static const std::regex kRow(R"(^\|([^|]*)\|([^|]*)\|\s*$)");
  static const std::regex kResult(R"(^(Pass|Fail|Skip|Warn)\b)");
  std::vector<DcgmTest> tests;
  std::string section;
  bool header = false;
  DcgmTest* current = nullptr;  // the test that Info/Warning/continuation rows belong to
  std::smatch m;
  for (std::string line : Split(text, '\n')) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (std::regex_search(line, m, kSection)) {
      section = m[1];
      current = nullptr;
      continue;
    }
    if (!std::regex_match(line, m, kRow)) continue;
    std::string name(Trim(m[1].str()));
    std::string value(Trim(m[2].str()));
    if (name == "Diagnostic" && value == "Result") {
      header = true;
      continue;
    }
    if (!header || section == "Metadata") continue;
    std::smatch result;
    if (!name.empty() && name != "Info" && name != "Warning" && name != "Error" &&
        std::regex_search(value, result, kResult)) {
      tests.push_back({section, name, result[1], value, {line}});
      current = &tests.back();
    } else if (current != nullptr) {
      current->lines.push_back(line);
    }
  }
  if (!header) {
    std::string first;
    for (const std::string& line : Split(text, '\n')) {
      if (!Trim(line).empty()) {
        first = std::string(Trim(line));
        break;
      }
    }
    return Status::InvalidArgument("not dcgmi diag output: " + (first.empty() ? "(empty output)" : Printable(first, 200)));
  }
  if (tests.empty()) return Status::InvalidArgument("dcgmi diag printed its table but no test result");
  return tests;
}

namespace {

using nlohmann::json;

// "Pass", "Fail", "Warn" or "Skip" from any case; other words as printed.
std::string StatusWord(const json& result) {
  const json* status = result.is_object() && result.contains("status") ? &result["status"] : nullptr;
  if (status == nullptr || !status->is_string()) return "";
  const std::string word = AsciiLower(status->get<std::string>());
  for (const char* known : {"Pass", "Fail", "Warn", "Skip"}) {
    if (word == AsciiLower(known)) return known;
  }
  return status->get<std::string>();
}

// Worse first: a test's result is the worst of its GPUs'.
int Severity(const std::string& word) {
  static const std::map<std::string, int> kOrder = {{"Skip", 0}, {"Pass", 1}, {"Warn", 2}, {"Fail", 3}};
  auto it = kOrder.find(word);
  return it == kOrder.end() ? 4 : it->second;  // a word DCGM does not print is judged worst
}

// The GPU a result is of: 3.x's "gpu_id" ("0") or nvvs's "gpu_ids" ("0,1" or 0), 4.x's "entity_id".
std::string GpuOf(const json& result) {
  for (const char* key : {"gpu_id", "gpu_ids", "entity_id"}) {
    if (!result.contains(key)) continue;
    const json& id = result[key];
    if (id.is_string()) return id.get<std::string>();
    if (id.is_number_integer()) return std::to_string(id.get<long long>());
  }
  return "";
}

// A result's warnings and info, as printed ("info: " before an info).
std::vector<std::string> MessagesOf(const json& result) {
  std::vector<std::string> messages;
  if (result.contains("warnings") && result["warnings"].is_array()) {
    for (const json& w : result["warnings"]) {
      if (w.is_object() && w.contains("warning") && w["warning"].is_string()) {
        messages.push_back(w["warning"].get<std::string>());
      }
    }
  }
  const json* info = result.contains("info") ? &result["info"] : nullptr;
  if (info != nullptr && info->is_string()) messages.push_back("info: " + info->get<std::string>());
  if (info != nullptr && info->is_array()) {
    for (const json& i : *info) {
      if (i.is_string()) messages.push_back("info: " + i.get<std::string>());
    }
  }
  return messages;
}

// One test of the JSON report, or nullopt for a null or nameless entry.
std::optional<DcgmTest> TestOf(const std::string& category, const json& test) {
  if (!test.is_object() || !test.contains("name") || !test["name"].is_string()) return std::nullopt;
  DcgmTest out{.section = category, .name = test["name"].get<std::string>(), .result = "Skip", .result_text = "", .lines = {}};
  std::map<std::string, std::vector<std::string>> gpus_by_word;
  std::set<std::string> said;  // the messages of the GPUs' results
  bool any = false;
  if (test.contains("results") && test["results"].is_array()) {
    for (const json& r : test["results"]) {
      const std::string word = StatusWord(r);
      if (word.empty()) continue;
      const std::string gpu = GpuOf(r);
      if (!any || Severity(word) > Severity(out.result)) out.result = word;
      any = true;
      if (!gpu.empty()) gpus_by_word[word].push_back(gpu);
      for (const std::string& m : MessagesOf(r)) {
        out.lines.push_back(gpu.empty() ? m : "GPU " + gpu + ": " + m);
        said.insert(m);
      }
    }
  }
  // DCGM 4: the test's own verdict, with the messages of no GPU (4.5 repeats the GPUs' there too).
  if (test.contains("test_summary") && test["test_summary"].is_object()) {
    const std::string word = StatusWord(test["test_summary"]);
    if (!word.empty() && (!any || Severity(word) > Severity(out.result))) out.result = word;
    any = any || !word.empty();
    for (const std::string& m : MessagesOf(test["test_summary"])) {
      if (said.insert(m).second) out.lines.push_back(m);
    }
  }
  out.result_text = out.result;
  const auto& gpus = gpus_by_word[out.result];
  if (any && Severity(out.result) >= 2 && !gpus.empty()) out.result_text += " - GPU: " + Join(gpus, ", ");
  return out;
}

}  // namespace

Result<std::vector<DcgmTest>> ParseDcgmDiagJson(std::string_view text) {
  const size_t start = text.find('{');
  const json doc = start == std::string_view::npos ? json() : json::parse(std::string(text.substr(start)), nullptr, false);
  if (!doc.is_object()) {
    return Status::InvalidArgument("dcgmi diag printed no JSON report: " + Printable(Trim(text), 200));
  }
  const char* root_key = doc.contains("DCGM GPU Diagnostic") ? "DCGM GPU Diagnostic" : "DCGM Diagnostic";
  if (!doc.contains(root_key) || !doc[root_key].is_object()) {
    return Status::InvalidArgument("not dcgmi diag's JSON (no \"DCGM GPU Diagnostic\" or \"DCGM Diagnostic\")");
  }
  const json& root = doc[root_key];
  if (root.contains("runtime_error") && root["runtime_error"].is_string() && !root["runtime_error"].get<std::string>().empty()) {
    return Status::InvalidArgument("the diagnostic did not run: " + Printable(root["runtime_error"].get<std::string>(), 300));
  }
  std::vector<DcgmTest> tests;
  if (root.contains("test_categories") && root["test_categories"].is_array()) {
    for (const json& category : root["test_categories"]) {
      if (!category.is_object() || !category.contains("tests") || !category["tests"].is_array()) continue;
      const std::string name = category.contains("category") && category["category"].is_string()
                                   ? category["category"].get<std::string>() : "";
      for (const json& test : category["tests"]) {
        if (auto t = TestOf(name, test)) tests.push_back(std::move(*t));
      }
    }
  }
  if (tests.empty()) return Status::InvalidArgument("dcgmi diag's JSON has no test result");
  return tests;
}

}  // namespace clusterctl
