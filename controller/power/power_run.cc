#include "controller/power/power_run.h"

#include <sys/stat.h>

#include <atomic>
#include <cstdio>
#include <thread>

#include "controller/output/terminal_text.h"

namespace clusterctl {
namespace {

std::string OctalMode(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

// What the BMC said, read for `action`.
void ReadAnswer(PowerAction action, const std::string& out, PowerResult& result) {
  if (action == PowerAction::kStatus) {
    Result<PowerState> state = ParsePowerStatus(out);
    result.ok = state.ok();
    result.message = state.ok() ? std::string("power is ") + ToString(*state) : state.status().message();
    if (state.ok()) result.state = *state;
  } else if (action == PowerAction::kSel) {
    Result<std::vector<SelEntry>> sel = ParseSelList(out);
    result.ok = sel.ok();
    result.message = sel.ok() ? std::to_string(sel->size()) + " SEL entr" + (sel->size() == 1 ? "y" : "ies")
                              : sel.status().message();
    if (sel.ok()) result.sel = std::move(sel).value();
  } else {
    Status taken = ParsePowerControl(out);
    result.ok = taken.ok();
    result.message = taken.ok() ? std::string("power ") + ToString(action) + " requested" : taken.message();
  }
}

PowerResult PowerOne(const Host& host, PowerAction action, ProcessRunner& runner) {
  PowerResult result;
  result.host = &host;
  if (!host.bmc) {
    result.message = "has no bmc in the inventory";
    return result;
  }
  if (std::string problem = PasswordFileProblem(host.bmc->password_file); !problem.empty()) {
    result.message = problem;
    return result;
  }
  ProcessOutput run = runner.Run(IpmitoolArgv(*host.bmc, action), kIpmitoolDeadline);
  if (!run.started) {
    result.message = run.err + " (install ipmitool on the controller: scripts/install-deps.sh)";
  } else if (run.timed_out) {
    result.message = "the BMC at " + host.bmc->address + " gave no answer within " +
                     std::to_string(kIpmitoolDeadline.count()) + " s";
  } else if (run.exit_code != 0) {
    result.message = ExplainIpmitoolFailure(run.err, *host.bmc);
  } else {
    ReadAnswer(action, run.out, result);
  }
  return result;
}

}  // namespace

std::string PasswordFileProblem(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return "bmc password file " + path + " cannot be read";
  if (!S_ISREG(st.st_mode)) return "bmc password file " + path + " is not a regular file";
  if ((st.st_mode & 077) != 0) {
    return "bmc password file " + path + " may be read by others (mode " + OctalMode(st.st_mode) +
           "): chmod 600 it";
  }
  return "";
}

PowerResult PowerCycleHost(const Host& host, ProcessRunner& runner) {
  PowerResult status = PowerOne(host, PowerAction::kStatus, runner);
  if (!status.ok) return status;
  const bool on = status.state == PowerState::kOn;
  PowerResult cycled = PowerOne(host, on ? PowerAction::kCycle : PowerAction::kOn, runner);
  cycled.message = std::string("power was ") + (on ? "on" : "off") + ": " + cycled.message;
  return cycled;
}

std::vector<PowerResult> RunPower(const std::vector<const Host*>& hosts, PowerAction action, ProcessRunner& runner,
                                  size_t forks) {
  std::vector<PowerResult> results(hosts.size());
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < hosts.size(); i = next++) results[i] = PowerOne(*hosts[i], action, runner);
  };
  std::vector<std::thread> threads;
  const size_t count = std::min(std::max<size_t>(forks, 1), hosts.size());
  for (size_t t = 1; t < count; ++t) threads.emplace_back(worker);
  worker();
  for (std::thread& t : threads) t.join();
  return results;
}

std::string PowerResultText(const PowerResult& result) {
  std::string text = result.host->name + ": " + (result.ok ? "" : "failed: ") +
                     TerminalText(result.message, TextShape::kOneLine) + "\n";
  for (const SelEntry& e : result.sel) {
    text += "  " + TerminalText(e.id + " | " + e.when + " | " + e.sensor + " | " + e.event +
                                    (e.direction.empty() ? "" : " | " + e.direction),
                                TextShape::kOneLine) +
            "\n";
  }
  return text;
}

nlohmann::json PowerResultsJson(PowerAction action, const std::vector<PowerResult>& results) {
  nlohmann::json hosts = nlohmann::json::object();
  for (const PowerResult& r : results) {
    nlohmann::json host = {{"ok", r.ok}, {"message", r.message}};
    if (r.state) host["state"] = ToString(*r.state);
    if (action == PowerAction::kSel && r.ok) {
      host["sel"] = nlohmann::json::array();
      for (const SelEntry& e : r.sel) {
        host["sel"].push_back({{"id", e.id}, {"when", e.when}, {"sensor", e.sensor}, {"event", e.event},
                               {"direction", e.direction}});
      }
    }
    hosts[r.host->name] = host;
  }
  return {{"action", ToString(action)}, {"hosts", hosts}};
}

}  // namespace clusterctl
