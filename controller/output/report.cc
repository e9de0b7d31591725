#include "controller/output/report.h"

#include <variant>

#include <cstdio>

#include "common/json_text.h"
#include "common/clock.h"
#include "common/strings.h"
#include "controller/engine/wait_report.h"
#include "controller/output/status_colour.h"
#include "controller/output/host_block.h"
#include "inventory/hostlist.h"

namespace clusterctl {

void Reporter::OnEvent(const DeployEvent& event) {
  if (mode_ == Mode::kJson) {
    const std::string line =
        JsonText(EventToJson(event, show_diff_));
    std::lock_guard<std::mutex> lock(mutex_);
    out_ << line << "\n" << std::flush;  // a pipe's reader (jq, a dashboard) sees each event as it happens
    return;
  }
  struct Dispatch {
    Reporter& r;
    void operator()(const RunStartedEvent& e) {
      std::lock_guard<std::mutex> lock(r.mutex_);
      r.check_ = e.check;
      r.total_ = e.hosts;
      r.start_ = r.clock_.Monotonic();
    }
    void operator()(const HostStartedEvent& e) { r.HostStarted(e.host); }
    void operator()(const HostPhaseEvent& e) { r.HostPhaseChanged(e.host, e.phase); }
    void operator()(const StepStartedEvent& e) { r.StepStarted(e.host, e.identity); }
    void operator()(const StepFinishedEvent&) {}  // the host's block says what failed or changed
    void operator()(const NoteEvent& e) { r.Note(e.host, e.message); }
    void operator()(const HostFinishedEvent& e) { r.HostFinished(*e.report); }
    void operator()(const RecapEvent& e) { r.Recap(*e.reports, e.elapsed, e.stopped); }
    void operator()(const WaitEvent& e) { r.Waited(e); }
    void operator()(const IntentEvent&) {}   // the recap and the steps say what was done
    void operator()(const MessageEvent&) {}  // MessagePrinter's
  };
  std::visit(Dispatch{*this}, event);
}

void MessagePrinter::OnEvent(const DeployEvent& event) {
  if (auto* e = std::get_if<MessageEvent>(&event)) {
    log_.Log(e->level, e->text);
  }
}

void Reporter::ClearLive() {
  if (live_line_) {
    out_ << "\r\033[K";
    live_line_ = false;
  }
}

void Reporter::Redraw() {
  if (mode_ != Mode::kLive) return;
  auto now = clock_.Monotonic();
  if (now - last_draw_ < std::chrono::milliseconds(100) && done_ < total_) return;
  last_draw_ = now;
  std::string line = (check_ ? "plan " : "deploy ") + std::to_string(done_) + "/" + std::to_string(total_) +
                     " hosts" + (failed_ ? ", " + std::to_string(failed_) + " failed" : "") + ", " +
                     FormatDuration(std::chrono::duration_cast<std::chrono::milliseconds>(now - start_).count());
  size_t shown = 0;
  for (const auto& [host, step] : running_) {
    if (shown++ == 3) {
      line += " ...";
      break;
    }
    line += " | " + host + ": " + step;
  }
  if (line.size() > 160) line = line.substr(0, 157) + "...";
  out_ << "\r\033[K" << line << std::flush;
  live_line_ = true;
}

void Reporter::HostStarted(const std::string& host) {
  std::lock_guard<std::mutex> lock(mutex_);
  running_[host] = "connecting";
  Redraw();
}

void Reporter::HostPhaseChanged(const std::string& host, HostPhase phase) {
  std::lock_guard<std::mutex> lock(mutex_);
  running_[host] = ToString(phase);
  Redraw();
}

void Reporter::StepStarted(const std::string& host, const std::string& identity) {
  std::lock_guard<std::mutex> lock(mutex_);
  running_[host] = identity;
  Redraw();
}

void Reporter::Note(const std::string& host, const std::string& message) {
  std::lock_guard<std::mutex> lock(mutex_);
  ClearLive();
  out_ << host << ": note: " << message << "\n";
  wrote_ = true;
  Redraw();
}

// A wait shows on the live line while it lasts; a line is printed for one
// that lasts (every "still", and its end after one), and a warning for one
// that gave up.
void Reporter::Waited(const WaitEvent& wait) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (wait.phase == WaitPhase::kStarted) {
    running_[wait.host] = "waiting for " + wait.what;
    Redraw();
    return;
  }
  const bool lasted = wait.elapsed_ms >= WaitReport::kEvery.count();
  if (wait.phase == WaitPhase::kEnded && !lasted) return;
  ClearLive();
  out_ << wait.host << ": " << (wait.phase == WaitPhase::kGaveUp ? "warning: " : "") << WaitText(wait) << "\n";
  wrote_ = true;
  Redraw();
}

void Reporter::HostFinished(const HostReport& report) {
  std::lock_guard<std::mutex> lock(mutex_);
  running_.erase(report.host);
  ++done_;
  if (FailedOrUnreachable(report)) ++failed_;
  finished_.insert(report.host);
  const std::string block = HostBlock(report, {check_, mode_ == Mode::kPlain, colour_});
  if (!block.empty()) {
    ClearLive();
    out_ << block << std::flush;  // a pipe sees it now, not at the end
    wrote_ = true;
  }
  Redraw();
}

void Reporter::PrintUnfinished(const std::vector<HostReport>& reports) {
  for (const HostReport& r : reports) {
    if (!finished_.insert(r.host).second) continue;
    const std::string block = HostBlock(r, {check_, mode_ == Mode::kPlain, colour_});
    out_ << block;
    wrote_ = wrote_ || !block.empty();
  }
}

void Reporter::PrintPlan(const std::vector<HostReport>& reports, size_t hosts_with_changes, int changed) {
  // Hosts with the same changes share one block.
  std::map<std::string, std::vector<std::string>> plans;
  std::vector<std::string> not_planned;
  for (const HostReport& r : reports) {
    if (FailedOrUnreachable(r)) {
      not_planned.push_back(r.host);  // its own block said why
      continue;
    }
    std::string text;
    for (const StepReport& s : r.steps) {
      if (s.status != StepStatus::kWouldChange) continue;
      text += "  " + std::string(s.handler ? "handler " : "") + s.identity + ": " + Join(s.differences, "; ") + "\n";
      if (show_diff_ && !s.diff.empty()) {
        for (const std::string& line : Split(s.diff, '\n')) {
          if (!line.empty()) text += "      " + line + "\n";
        }
      }
    }
    if (text.empty()) continue;
    plans[text].push_back(r.host);
  }
  // "Nothing to do" only when every host was planned: a host that could not
  // be reached may need anything.
  if (wrote_) out_ << "\n";  // after the blocks of hosts that failed
  out_ << "Plan: " << changed << " step" << (changed == 1 ? "" : "s") << " would change on " << hosts_with_changes
       << " of " << reports.size() << " hosts";
  if (!not_planned.empty()) {
    out_ << "; " << not_planned.size() << " host" << (not_planned.size() == 1 ? "" : "s")
         << " could not be planned (" << CollapseHostList(not_planned) << ")";
  } else if (hosts_with_changes == 0) {
    out_ << " (nothing to do)";
  }
  out_ << "\n";
  for (const auto& [text, hosts] : plans) out_ << "\n" << CollapseHostList(hosts) << ":\n" << text;
}

void Reporter::Recap(const std::vector<HostReport>& reports, std::chrono::milliseconds elapsed, bool stopped) {
  std::lock_guard<std::mutex> lock(mutex_);
  ClearLive();
  int ok = 0, changed = 0, failed = 0, skipped = 0;
  std::map<std::string, std::vector<std::string>> by_outcome;
  std::vector<std::string> with_changes;
  for (const HostReport& r : reports) {
    ok += r.ok;
    changed += r.changed;
    failed += r.failed;
    skipped += r.skipped;
    by_outcome[ToString(r.outcome)].push_back(r.host);
    if (r.changed > 0) with_changes.push_back(r.host);
  }
  PrintUnfinished(reports);
  if (check_) PrintPlan(reports, with_changes.size(), changed);
  // Steps are counted; an unreachable host has none, so it is counted apart
  // (a run of unreachable hosts must not read "failed=0" and nothing else).
  const size_t unreachable = by_outcome.count("unreachable") ? by_outcome["unreachable"].size() : 0;
  out_ << "\nRecap (" << FormatDuration(elapsed.count()) << "): ok=" << ok << " changed=" << changed
       << " failed=" << failed << " skipped=" << skipped;
  if (unreachable > 0) out_ << " unreachable=" << unreachable;
  out_ << "\n";
  for (const char* outcome : {"ok", "failed", "unreachable", "skipped", "stopped"}) {
    auto it = by_outcome.find(outcome);
    if (it != by_outcome.end()) out_ << "  " << ColourStatus(outcome, colour_) << ": " << CollapseHostList(it->second) << "\n";
  }
  if (!with_changes.empty() && !check_) out_ << "  " << ColourStatus("changed", colour_) << ": " << CollapseHostList(with_changes) << "\n";
  if (stopped) {
    out_ << "\nStopped before the end: " << (by_outcome.count("stopped") ? CollapseHostList(by_outcome["stopped"]) : "no host")
         << " did not finish. Follow-ups owed (restarts, reboots) stay recorded; deploy again to finish.\n";
  }
  out_ << std::flush;
}

}  // namespace clusterctl
