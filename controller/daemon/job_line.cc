#include "controller/daemon/job_line.h"

#include <map>

#include "common/json_fields.h"
#include "common/strings.h"
#include "controller/output/terminal_text.h"
#include "inventory/hostlist.h"

namespace clusterctl {
namespace {

constexpr size_t kMaxDetail = 120;

// A cut at a character boundary of valid UTF-8, marked "...".
std::string Cut(std::string text, size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  if (max_bytes <= 3) return std::string(max_bytes, '.');
  return std::string(Utf8Prefix(text, max_bytes - 3)) + "...";
}

// Summaries are the daemon's own documents; a field of another type than
// expected reads as absent rather than throwing (common/json_fields.h).
std::vector<std::string> Strings(const nlohmann::json& summary, const char* key) {
  std::vector<std::string> out;
  auto it = summary.find(key);
  if (it == summary.end() || !it->is_array()) return out;
  for (const nlohmann::json& item : *it) {
    if (item.is_string()) out.push_back(item.get<std::string>());
  }
  return out;
}

std::string DeployCounts(const nlohmann::json& s) {
  const bool check = FlagAt(s, "check");
  std::string line = std::to_string(CountAt(s, "hosts")) + " hosts, " + std::to_string(CountAt(s, "changed")) +
                     (check ? " would change, " : " changed, ") + std::to_string(CountAt(s, "failed")) + " failed";
  if (CountAt(s, "unreachable") > 0) line += ", " + std::to_string(CountAt(s, "unreachable")) + " unreachable";
  if (FlagAt(s, "stopped")) line += ", stopped";
  const std::vector<std::string> drifted = Strings(s, "drifted");
  if (s.contains("drifted")) {
    line += drifted.empty() ? "; no drift" : "; drifted: " + BoundedHostList(drifted, kMaxJobLine);
  }
  return line;
}

// Failed checks with their subjects collapsed, and the first failure's
// detail: "reachable on node[01-02], clock.offset on node03 (node01:
// connection refused)".
std::string ValidateCounts(const nlohmann::json& s) {
  std::string line = std::to_string(CountAt(s, "pass")) + " pass, " + std::to_string(CountAt(s, "fail")) + " fail, " +
                     std::to_string(CountAt(s, "skip")) + " skip";
  auto failed = s.find("failed");
  if (failed == s.end() || !failed->is_array() || failed->empty()) return line;
  std::map<std::string, std::vector<std::string>> subjects;  // check -> subjects
  std::vector<std::string> order;
  for (const nlohmann::json& f : *failed) {
    if (!f.is_object()) continue;
    const std::string check = TerminalText(TextAt(f, "check"), TextShape::kOneLine);
    if (!subjects.count(check)) order.push_back(check);
    subjects[check].push_back(TextAt(f, "subject"));
  }
  std::vector<std::string> parts;
  for (const std::string& check : order) parts.push_back(check + " on " + BoundedHostList(subjects[check], kMaxJobLine));
  if (parts.empty()) return line;
  line += "; failed: " + Join(parts, ", ");
  const nlohmann::json& first = failed->front();
  if (first.is_object() && !TextAt(first, "detail").empty()) {
    line += " (" + BoundedText(TextAt(first, "subject"), kMaxDetail) + ": " + BoundedText(TextAt(first, "detail"), kMaxDetail) +
            ")";
  }
  return line;
}

}  // namespace

// Collapsed before it is made printable, so "\xe9" in a name is not read
// as the digit 9 of a range.
std::string BoundedHostList(const std::vector<std::string>& names, size_t max_bytes) {
  return BoundedText(CollapseHostList(names), max_bytes);
}

std::string BoundedText(const std::string& text, size_t max_bytes) {
  return Cut(TerminalText(text, TextShape::kOneLine), max_bytes);
}

std::string JobEndLine(const JobInfo& job) {
  const nlohmann::json& s = job.summary;
  std::string line = "job " + std::to_string(job.job) + ": " + ToString(job.kind) + " " + ToString(job.status);
  if (!s.is_object()) return line;
  if (!TextAt(s, "error").empty() && !s.contains("pass")) {
    line += ": " + BoundedText(TextAt(s, "error"), kMaxJobLine);
  } else if (s.contains("pass")) {
    line += ": " + ValidateCounts(s);
    if (!TextAt(s, "error").empty()) line += "; " + BoundedText(TextAt(s, "error"), kMaxDetail);
  } else {
    line += ": " + DeployCounts(s);
  }
  return Cut(std::move(line), kMaxJobLine);
}

LogLevel JobEndLevel(const JobInfo& job) {
  if (job.status == JobStatus::kFailed) return LogLevel::kError;
  if (job.status == JobStatus::kStopped) return LogLevel::kWarning;
  auto drifted = job.summary.is_object() ? job.summary.find("drifted") : job.summary.end();
  if (drifted != job.summary.end() && drifted->is_array() && !drifted->empty()) return LogLevel::kWarning;
  return LogLevel::kInfo;
}

}  // namespace clusterctl
