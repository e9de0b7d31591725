#include "controller/daemon/power_remediator.h"

#include <optional>
#include <set>
#include <utility>  // Boost.Asio coroutine headers use std::exchange without including it

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>

#include "controller/engine/alertmanager_silences.h"
#include "controller/power/power_run.h"

namespace clusterctl {
namespace {

constexpr auto kCloseWait = std::chrono::seconds(5);
constexpr size_t kBmcForks = 8;

// Opens a silence of `host`, the coroutine run to its end on a private
// io_context (the watch's thread): its id, or why there is none.
Result<std::string> OpenSilence(MaintenanceSilences& silences, const std::string& host, const std::string& comment,
                                int64_t ends_at_ms) {
  boost::asio::io_context io;
  Result<std::string> id = Status::Internal("the silence was not asked for");
  boost::asio::co_spawn(
      io, [&]() -> Task<void> { id = co_await silences.Open(host, comment, ends_at_ms); },
      [&](std::exception_ptr e) {
        if (e) id = Status::Internal("the silence's request failed");
      });
  io.run();
  return id;
}

// The nodes the reading has down (not only drained) that the inventory knows.
std::vector<const Host*> DownHosts(const Inventory& inventory, const SlurmNodesReading& reading,
                                   std::set<std::string>& names) {
  std::vector<const Host*> hosts;
  for (const SlurmUnavailableNode& node : reading.unavailable) {
    if (node.why.find("down") == std::string::npos) continue;
    names.insert(node.name);
    if (const Host* host = inventory.FindHost(node.name)) hosts.push_back(host);
  }
  return hosts;
}

}  // namespace

PowerRemediator::PowerRemediator(PowerRemediationPolicy policy, ProcessRunner& ipmitool, const Clock& clock,
                                 LogLine log)
    : policy_(policy), ipmitool_(ipmitool), clock_(clock), log_(std::move(log)) {}

std::vector<PastPowerCycle> PowerRemediator::Cycles() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return cycles_;
}

void PowerRemediator::Turn(const Inventory& inventory, const SlurmNodesReading& reading, SessionFactory& sessions,
                           MaintenanceSilences* silences) {
  if (!policy_.enabled || !reading.error.empty()) return;
  std::set<std::string> down_names;
  const std::vector<const Host*> down = DownHosts(inventory, reading, down_names);
  const std::vector<DownNode> nodes = Probe(down, sessions);
  const std::vector<PowerDecision> decisions =
      DecidePowerCycles(policy_, nodes, WithinTheHour(Cycles(), clock_.NowMs()), down_names, inventory, clock_.NowMs());
  for (const PowerDecision& d : decisions) {
    if (d.cycle) {
      told_.erase(d.host->name);
      Cycle(d, silences);
    } else if (told_[d.host->name] != d.why) {
      told_[d.host->name] = d.why;
      log_(LogLevel::kInfo, "power: " + d.host->name + " is down in Slurm, not power-cycled: " + d.why);
    }
  }
  for (auto it = told_.begin(); it != told_.end();) it = down_names.count(it->first) ? std::next(it) : told_.erase(it);
}

void PowerRemediator::TurnWithAlertmanager(const Site& site, const SlurmNodesReading& reading,
                                           SessionFactory& sessions) {
  std::unique_ptr<MaintenanceSilences> silences;
  if (std::optional<AlertmanagerSite> alertmanager = FindAlertmanager(*site.inventory, *site.catalog)) {
    silences = MakeAlertmanagerSilences(std::move(*alertmanager), clock_);
  }
  Turn(*site.inventory, reading, sessions, silences.get());
}

std::vector<DownNode> PowerRemediator::Probe(const std::vector<const Host*>& hosts, SessionFactory& sessions) {
  std::vector<DownNode> nodes;
  std::vector<const Host*> with_bmc;
  for (const Host* host : hosts) {
    nodes.push_back({host, false, std::nullopt, ""});
    if (host->bmc) with_bmc.push_back(host);
  }
  std::vector<PowerResult> states = RunPower(with_bmc, PowerAction::kStatus, ipmitool_, kBmcForks);
  for (DownNode& node : nodes) {
    for (const PowerResult& r : states) {
      if (r.host != node.host) continue;
      node.bmc = r.state;
      if (!r.ok) node.bmc_error = r.message;
    }
  }
  sessions.ForEach(nodes.size(), [&](size_t i) -> Task<void> {
    if (!nodes[i].host->bmc || nodes[i].bmc != PowerState::kOn) co_return;  // decided without SSH
    OpenedSession opened = co_await sessions.Open(*nodes[i].host, nullptr);
    nodes[i].answers_ssh = opened.session != nullptr;
    if (opened.session) co_await opened.session->Close(clock_.Monotonic() + kCloseWait);
  });
  return nodes;
}

void PowerRemediator::Cycle(const PowerDecision& decision, MaintenanceSilences* silences) {
  const Host& host = *decision.host;
  const int64_t now = clock_.NowMs();
  const std::string comment = "clusterctl serve: power cycle of " + host.name + " through its BMC (" + decision.why + ")";
  if (silences) {
    const int64_t ends = now + std::chrono::duration_cast<std::chrono::milliseconds>(policy_.settle).count();
    Result<std::string> id = OpenSilence(*silences, host.name, comment, ends);
    if (!id.ok()) log_(LogLevel::kWarning, "power: alerts of " + host.name + " are not silenced (" + id.status().message() + ")");
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    cycles_.push_back({host.name, now});
    cycles_ = WithinTheHour(std::move(cycles_), now);
  }
  log_(LogLevel::kWarning, "power: power cycle of " + host.name + " through its BMC " + host.bmc->address + ": " + decision.why);
  const PowerResult result = PowerCycleHost(host, ipmitool_);
  log_(result.ok ? LogLevel::kInfo : LogLevel::kError,
       "power: " + host.name + ": " + (result.ok ? "" : "the power cycle failed: ") + result.message);
}

}  // namespace clusterctl
