#include "controller/validate/tool_output.h"

#include <string.h>

#include <algorithm>
#include <cctype>
#include <regex>
#include <set>

#include "common/strings.h"

namespace clusterctl {
namespace {

bool Contains(std::string_view line, std::string_view needle) { return line.find(needle) != std::string_view::npos; }

bool ContainsAnyLower(const std::string& lower, std::initializer_list<const char*> needles) {
  return std::any_of(needles.begin(), needles.end(), [&](const char* n) { return Contains(lower, n); });
}

// Launcher lines that accompany every failure and explain none.
bool IsBoilerplate(const std::string& lower) {
  return ContainsAnyLower(lower, {"primary job", "thus causing", "job step aborted", "waiting up to",
                                  "force terminated", "see the mpirun man page", "exit code: "}) ||
         Contains(lower, " nccl info ");
}

// The same failure printed by several ranks: digits (pids, ranks, lines) do not make it new.
std::string DedupKey(std::string_view line) {
  std::string key;
  bool in_digits = false;
  for (char c : StripRankPrefix(line)) {
    bool digit = std::isdigit(static_cast<unsigned char>(c)) != 0;
    if (!digit) key += c;
    else if (!in_digits) key += '#';
    in_digits = digit;
  }
  return key;
}

// A cause is told within a line's first bytes; the rest of a longer line
// (a node's output may be one line of 16 MiB) is not searched by the
// regular expressions.
constexpr size_t kCauseLineBytes = 4096;

// Causes are looked for in the output's last 256 KiB, from a line's start
// where there is one: a tool that fails says so near its end, and a node's
// 16 MiB of output, read line by line through the regular expressions, kept
// a validation busy for more than 20 s.
std::string_view ScannedTail(const std::string& output) {
  constexpr size_t kScanBytes = 256 * 1024;
  std::string_view tail = output;
  if (tail.size() <= kScanBytes) return tail;
  tail.remove_prefix(tail.size() - kScanBytes);
  const size_t line_start = tail.find('\n');
  return line_start == std::string_view::npos ? tail : tail.substr(line_start + 1);
}

}  // namespace

std::string ExitDescription(const ToolOutput& output) {
  if (!output.started) return "not installed";
  if (output.timed_out) return "timed out";
  if (output.signal != 0) {
    const char* name = sigabbrev_np(output.signal);
    return "killed by signal " + std::to_string(output.signal) + (name != nullptr ? std::string(" (SIG") + name + ")" : "");
  }
  if (output.exit_code == -1) return "no exit status";
  return "exit " + std::to_string(output.exit_code);
}

bool IsSpecificCauseLine(std::string_view raw) {
  static const std::regex kNcclError(R"(\bnccl[A-Z][A-Za-z]*Error\b)");
  std::string line(StripRankPrefix(raw.substr(0, kCauseLineBytes)));
  std::string lower = AsciiLower(line);
  if (IsBoilerplate(lower) && !Contains(line, "signal")) return false;
  for (const char* s : {"Test CUDA failure", "Test NCCL failure", "NCCL WARN", "Segmentation fault", "Bus error",
                        "core dumped", "Floating point exception", "Illegal instruction", "Aborted"}) {
    if (Contains(line, s)) return true;
  }
  if (std::regex_search(line, kNcclError)) return true;
  return ContainsAnyLower(lower, {"cuda failure", "cuda error", "cudaerror", "nccl error", "out of memory",
                                  "cuda-capable", "exited on signal", "killed by signal", "terminated with signal",
                                  "out of bounds values"}) &&
         !Contains(line, " OK");
}

bool IsCauseLine(std::string_view raw) {
  if (IsSpecificCauseLine(raw)) return true;
  std::string lower = AsciiLower(StripRankPrefix(raw.substr(0, kCauseLineBytes)));
  if (IsBoilerplate(lower)) return false;
  return ContainsAnyLower(lower, {"error", "fail", "fatal", "couldn't", "could not", "unable to", "cannot",
                                  "denied", "refused", "timed out", "killed"});
}

std::string FirstCause(const std::string& output) {
  std::string generic;
  for (const std::string& line : Split(ScannedTail(output), '\n')) {
    if (Trim(line).empty()) continue;
    if (IsSpecificCauseLine(line)) return std::string(Trim(line));
    if (generic.empty() && IsCauseLine(line)) generic = std::string(Trim(line));
  }
  return generic;
}

std::vector<std::string> CauseEvidence(const std::string& output, size_t max_lines) {
  std::vector<std::string> lines;
  for (std::string& line : Split(ScannedTail(output), '\n')) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!Trim(line).empty()) lines.push_back(std::move(line));
  }
  std::vector<size_t> causes;
  std::set<std::string> seen;
  for (bool specific : {true, false}) {
    for (size_t i = 0; i < lines.size() && causes.size() < 6; ++i) {
      bool is_cause = specific ? IsSpecificCauseLine(lines[i]) : IsCauseLine(lines[i]);
      if (is_cause && seen.insert(DedupKey(lines[i])).second) causes.push_back(i);
    }
    if (!causes.empty()) break;
  }
  size_t tail_lines = causes.empty() ? max_lines : std::min<size_t>(3, max_lines);
  size_t budget = max_lines - tail_lines;
  std::set<size_t> chosen;
  for (bool with_context : {true, false}) {
    chosen.clear();
    for (size_t i : causes) {
      if (with_context && i > 0) chosen.insert(i - 1);
      chosen.insert(i);
      if (with_context && i + 1 < lines.size()) chosen.insert(i + 1);
    }
    if (chosen.size() <= budget) break;
  }
  while (chosen.size() > budget) chosen.erase(std::prev(chosen.end()));
  size_t tail_from = lines.size() > tail_lines ? lines.size() - tail_lines : 0;
  std::vector<std::string> evidence;
  for (size_t i : chosen) {
    if (i < tail_from) evidence.push_back(lines[i]);
  }
  for (size_t i = tail_from; i < lines.size(); ++i) evidence.push_back(lines[i]);
  return evidence;
}

std::string_view StripRankPrefix(std::string_view line) {
  // A job launcher's own prefix first: SkyPilot/Ray "(head, rank=0, pid=3808) ".
  static const std::regex kLauncher(R"(^\([^()]*\brank=\d+[^()]*\) )");
  // mpirun --tag-output: "[1,0]<stdout>:" (jobid,rank); srun --label: "0: ".
  static const std::regex kTagged(R"(^\[\d+,\d+\]<(stdout|stderr|stddiag)>:)");
  static const std::regex kLabel(R"(^ *\d+: )");
  std::match_results<std::string_view::const_iterator> m;
  if (std::regex_search(line.begin(), line.end(), m, kLauncher)) line.remove_prefix(static_cast<size_t>(m.length(0)));
  if (std::regex_search(line.begin(), line.end(), m, kTagged) || std::regex_search(line.begin(), line.end(), m, kLabel)) {
    line.remove_prefix(static_cast<size_t>(m.length(0)));
  }
  return line;
}

const ToolOutput& NotRunOutput() {
  static const ToolOutput not_run = [] {
    ToolOutput none;
    none.started = false;
    return none;
  }();
  return not_run;
}

}  // namespace clusterctl
