// What a deploy or plan shows the admin: a listener of the engine's events.
//
// Three forms: a live view on a terminal (hosts done/total, what each
// running host is doing: connecting, gathering facts, its step; elapsed
// time), plain lines when not a terminal, and --json (one JSON event per
// line, EventToJson). Each host's block (host_block.h: a failure with its
// role, step, command and the tail of its output; in plain lines every
// host's outcome and changes) is printed once, when the host is done, in
// the order hosts finish. At the end a plan lists, per group of hosts with
// the same changes, the steps that would change and why (and the diff with
// --diff; never for secrets); then the recap: totals, and the hosts per
// outcome in range notation.
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "common/clock.h"
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
  void HostPhaseChanged(const std::string& host, HostPhase phase);
  void StepStarted(const std::string& host, const std::string& identity);
  void HostFinished(const HostReport& report);
  void Note(const std::string& host, const std::string& message);
  void Waited(const WaitEvent& wait);
  // The final summary (the plan itself in check mode).
  void Recap(const std::vector<HostReport>& reports, std::chrono::milliseconds elapsed, bool stopped);
  void PrintPlan(const std::vector<HostReport>& reports, size_t hosts_with_changes, int changed);
  // Blocks of hosts that ended without a HostFinishedEvent. REQUIRES: mutex_ held
  void PrintUnfinished(const std::vector<HostReport>& reports);

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
  SystemClock clock_;  // the live view's elapsed time is the terminal's: the machine's own
  std::chrono::steady_clock::time_point start_ = clock_.Monotonic();
  std::chrono::steady_clock::time_point last_draw_{};
  std::map<std::string, std::string> running_;  // host -> what it is doing
  std::set<std::string> finished_;              // hosts whose block was printed (or had none)
  bool live_line_ = false;
  bool wrote_ = false;  // a block or a note is on the output
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
