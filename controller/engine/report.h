// What a deploy or plan shows the admin: a listener of the engine's events.
//
// Three forms: a live view on a terminal (hosts done/total, the step each
// running host is on, elapsed time; failures printed as they happen), plain
// lines when not a terminal, and --json (one JSON event per line,
// EventToJson). At the end a recap per outcome with host lists in range
// notation, and for each failure the host, role, step, command and the tail
// of its output. A plan lists, per group of hosts with the same changes, the
// steps that would change and why (and the diff with --diff; never for
// secrets).
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <ostream>
#include <string>
#include <vector>

#include "controller/engine/deploy_events.h"

namespace clusterctl {

class Reporter final : public DeployListener {
 public:
  enum class Mode { kLive, kPlain, kJson };

  Reporter(Mode mode, std::ostream& out, bool show_diff) : mode_(mode), out_(out), show_diff_(show_diff) {}

  void OnEvent(const DeployEvent& event) override;
  // Colours the status words (ok, changed, failed, unreachable) of the text
  // output; never the JSON. The caller decides (status_colour.h: UseColour).
  void SetColour(bool enabled) { colour_ = enabled; }

 private:
  void HostStarted(const std::string& host);
  void StepStarted(const std::string& host, const std::string& identity);
  void StepFinished(const std::string& host, const StepReport& step);
  void HostFinished(const HostReport& report);
  void Note(const std::string& host, const std::string& message);
  // The final summary (the plan itself in check mode).
  void Recap(const std::vector<HostReport>& reports, std::chrono::milliseconds elapsed, bool stopped);
  void PrintPlan(const std::vector<HostReport>& reports, size_t hosts_with_changes, int changed);

  void Redraw();  // REQUIRES: mutex_ held
  void ClearLive();

  Mode mode_;
  std::ostream& out_;
  bool show_diff_;
  bool colour_ = false;
  bool check_ = false;
  size_t total_ = 0;
  size_t done_ = 0;
  size_t failed_ = 0;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_draw_{};
  std::map<std::string, std::string> running_;  // host -> current step
  bool live_line_ = false;
  std::mutex mutex_;
};

// Logs run-level messages (MessageEvent) at their level.
class MessagePrinter final : public DeployListener {
 public:
  explicit MessagePrinter(Logger& log) : log_(log) {}
  void OnEvent(const DeployEvent& event) override;

 private:
  Logger& log_;
};

}  // namespace clusterctl
