// What a deploy or plan tells the admin while it runs and at the end.
//
// Three forms: a live view on a terminal (hosts done/total, the step each
// running host is on, elapsed time; failures printed as they happen), plain
// lines when not a terminal, and --json (one JSON event per line). At the end
// a recap per outcome with host lists in range notation, and for each
// failure the host, role, step, command and the tail of its output. A plan
// lists, per group of hosts with the same changes, the steps that would
// change and why (and the diff with --diff; never for secrets).
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace clusterctl {

struct StepReport {
  std::string identity;  // role/step
  std::string status;    // ok | changed | failed | skipped | would-change
  bool handler = false;
  bool checked = true;   // false: skipped because its recorded result is current
  std::vector<std::string> differences;
  std::string diff;
  std::string error, command, output;
  int mutating_commands = 0;  // commands the agent ran that change the node
};

struct HostReport {
  std::string host;
  std::string outcome = "ok";  // ok | failed | unreachable | skipped
  std::string error;
  bool contacted = false;
  int ok = 0, changed = 0, failed = 0, skipped = 0;
  std::vector<StepReport> steps;
  int64_t duration_ms = 0;
};

class Reporter {
 public:
  enum class Mode { kLive, kPlain, kJson };

  Reporter(Mode mode, std::ostream& out, bool check, bool show_diff, size_t hosts);

  void HostStarted(const std::string& host);
  void StepStarted(const std::string& host, const std::string& identity);
  void StepFinished(const std::string& host, const StepReport& step);
  void HostFinished(const HostReport& report);
  void Note(const std::string& host, const std::string& message);

  // The final summary (the plan itself in check mode).
  void Recap(const std::vector<HostReport>& reports, std::chrono::milliseconds elapsed);

 private:
  void Redraw();  // REQUIRES: mutex_ held
  void ClearLive();

  Mode mode_;
  std::ostream& out_;
  bool check_;
  bool show_diff_;
  size_t total_;
  size_t done_ = 0;
  size_t failed_ = 0;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_draw_{};
  std::map<std::string, std::string> running_;  // host -> current step
  bool live_line_ = false;
  std::mutex mutex_;
};

}  // namespace clusterctl
