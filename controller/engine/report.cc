#include "controller/engine/report.h"

#include <cstdio>

#include "common/clock.h"
#include "common/strings.h"
#include "inventory/hostlist.h"

namespace clusterctl {
namespace {

std::string Tail(const std::string& text, size_t lines) {
  std::vector<std::string> all = Split(text, '\n');
  while (!all.empty() && all.back().empty()) all.pop_back();
  std::string out;
  for (size_t i = all.size() > lines ? all.size() - lines : 0; i < all.size(); ++i) out += "      | " + all[i] + "\n";
  return out;
}

}  // namespace

Reporter::Reporter(Mode mode, std::ostream& out, bool check, bool show_diff, size_t hosts)
    : mode_(mode), out_(out), check_(check), show_diff_(show_diff), total_(hosts) {}

void Reporter::ClearLive() {
  if (live_line_) {
    out_ << "\r\033[K";
    live_line_ = false;
  }
}

void Reporter::Redraw() {
  if (mode_ != Mode::kLive) return;
  auto now = std::chrono::steady_clock::now();
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
  if (mode_ == Mode::kJson) out_ << nlohmann::json{{"event", "host_started"}, {"host", host}}.dump() << "\n";
  Redraw();
}

void Reporter::StepStarted(const std::string& host, const std::string& identity) {
  std::lock_guard<std::mutex> lock(mutex_);
  running_[host] = identity;
  Redraw();
}

void Reporter::StepFinished(const std::string& host, const StepReport& step) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (mode_ == Mode::kJson) {
    nlohmann::json event = {{"event", "step"}, {"host", host}, {"step", step.identity}, {"status", step.status},
                            {"handler", step.handler}, {"checked", step.checked}, {"differences", step.differences},
                            {"mutating_commands", step.mutating_commands}};
    if (show_diff_ && !step.diff.empty()) event["diff"] = step.diff;
    if (step.status == "failed") {
      event["error"] = step.error;
      event["command"] = step.command;
      event["output"] = step.output;
    }
    out_ << event.dump() << "\n";
    return;
  }
  if (step.status == "failed") {
    ClearLive();
    out_ << host << ": FAILED " << step.identity << ": " << step.error << "\n";
    if (!step.command.empty()) out_ << "      command: " << step.command << "\n";
    out_ << Tail(step.output, 10);
  } else if (mode_ == Mode::kPlain && step.status == "changed" && !check_) {
    out_ << host << ": changed " << step.identity << " (" << Join(step.differences, "; ") << ")\n";
  }
  Redraw();
}

void Reporter::Note(const std::string& host, const std::string& message) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (mode_ == Mode::kJson) {
    out_ << nlohmann::json{{"event", "note"}, {"host", host}, {"message", message}}.dump() << "\n";
    return;
  }
  ClearLive();
  out_ << host << ": note: " << message << "\n";
  Redraw();
}

void Reporter::HostFinished(const HostReport& report) {
  std::lock_guard<std::mutex> lock(mutex_);
  running_.erase(report.host);
  ++done_;
  if (report.outcome == "failed" || report.outcome == "unreachable") ++failed_;
  if (mode_ == Mode::kJson) {
    out_ << nlohmann::json{{"event", "host_finished"}, {"host", report.host}, {"outcome", report.outcome},
                           {"error", report.error}, {"contacted", report.contacted}, {"ok", report.ok},
                           {"changed", report.changed}, {"failed", report.failed}, {"skipped", report.skipped},
                           {"duration_ms", report.duration_ms}}
                .dump()
         << "\n";
    return;
  }
  if (report.outcome == "unreachable") {
    ClearLive();
    out_ << report.host << ": UNREACHABLE: " << report.error << "\n";
  } else if (mode_ == Mode::kPlain && !check_) {
    out_ << report.host << ": " << report.outcome << " (changed=" << report.changed << ", failed=" << report.failed
         << (report.contacted ? "" : ", not contacted: nothing to do") << ")\n";
  }
  Redraw();
}

void Reporter::Recap(const std::vector<HostReport>& reports, std::chrono::milliseconds elapsed) {
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
    by_outcome[r.outcome].push_back(r.host);
    if (r.changed > 0) with_changes.push_back(r.host);
  }
  if (mode_ == Mode::kJson) {
    nlohmann::json hosts = nlohmann::json::object();
    for (const auto& [outcome, names] : by_outcome) hosts[outcome] = CollapseHostList(names);
    out_ << nlohmann::json{{"event", "recap"}, {"check", check_}, {"ok", ok}, {"changed", changed},
                           {"failed", failed}, {"skipped", skipped}, {"hosts", hosts},
                           {"elapsed_ms", elapsed.count()}}
                .dump()
         << "\n";
    return;
  }
  if (check_) {
    // Hosts with the same changes share one block.
    std::map<std::string, std::vector<std::string>> plans;
    std::map<std::string, std::string> text_of;
    for (const HostReport& r : reports) {
      std::string text;
      for (const StepReport& s : r.steps) {
        if (s.status != "would-change") continue;
        text += "  " + std::string(s.handler ? "handler " : "") + s.identity + ": " + Join(s.differences, "; ") + "\n";
        if (show_diff_ && !s.diff.empty()) {
          for (const std::string& line : Split(s.diff, '\n')) {
            if (!line.empty()) text += "      " + line + "\n";
          }
        }
      }
      if (r.outcome == "failed" || r.outcome == "unreachable") text = "  cannot plan: " + r.error + "\n";
      if (text.empty()) continue;
      plans[text].push_back(r.host);
      text_of[text] = text;
    }
    out_ << "Plan: " << changed << " step" << (changed == 1 ? "" : "s") << " would change on "
         << with_changes.size() << " of " << reports.size() << " hosts";
    out_ << (with_changes.empty() ? " (nothing to do)" : "") << "\n";
    for (const auto& [text, hosts] : plans) out_ << "\n" << CollapseHostList(hosts) << ":\n" << text;
  }
  out_ << "\nRecap (" << FormatDuration(elapsed.count()) << "): ok=" << ok << " changed=" << changed
       << " failed=" << failed << " skipped=" << skipped << "\n";
  for (const char* outcome : {"ok", "failed", "unreachable", "skipped"}) {
    auto it = by_outcome.find(outcome);
    if (it != by_outcome.end()) out_ << "  " << outcome << ": " << CollapseHostList(it->second) << "\n";
  }
  if (!with_changes.empty() && !check_) out_ << "  changed: " << CollapseHostList(with_changes) << "\n";
  for (const HostReport& r : reports) {
    if (r.outcome == "unreachable") {
      out_ << "\n" << r.host << " UNREACHABLE: " << r.error << "\n";
      continue;
    }
    for (const StepReport& s : r.steps) {
      if (s.status != "failed") continue;
      out_ << "\n" << r.host << " FAILED " << s.identity << ": " << s.error << "\n";
      if (!s.command.empty()) out_ << "    command: " << s.command << "\n";
      out_ << Tail(s.output, 20);
    }
    if (r.outcome == "failed" && r.failed == 0 && !r.error.empty()) out_ << "\n" << r.host << " FAILED: " << r.error << "\n";
  }
}

}  // namespace clusterctl
