// monitoring.targets: Prometheus on the inventory's first monitoring host
// (promtool on that host) has every expected exporter target up. A target
// down in one reading is read again one scrape interval later: an exporter
// the deploy restarted just before is not down, and one that stays down is
// named from the second reading. The targets expected and the verdict on
// promtool's answer: service_checks.h.
#include <algorithm>
#include <map>

#include "controller/validate/checks/common.h"
#include "controller/validate/cluster_run.h"
#include "controller/validate/service_checks.h"

namespace clusterctl::checks {
namespace {

constexpr const char* kCheck = "monitoring.targets";
constexpr int kReadSeconds = 30;  // one promtool query

// The targets every host that took part should have, from their facts (GPUs: a DCGM exporter).
std::vector<ExpectedTarget> Expected(const ClusterRun& run, const std::vector<ClusterRun::ProbedHost>& probed) {
  std::map<std::string, nlohmann::json> facts;
  for (const ClusterRun::ProbedHost& h : probed) facts[h.name] = run.View(h.name).node.facts;
  return ExpectedTargets(run.inventory(), facts);
}

// Without a monitoring host, or with it outside the run (--limit), no result.
void RunPhase(ClusterRun& run) {
  const std::vector<std::string> members = run.inventory().MembersOf(kGroupMonitoring);
  if (members.empty()) return;
  const Host& host = *run.inventory().FindHost(members.front());
  const std::vector<ClusterRun::ProbedHost> probed = run.ProbedHosts();
  auto monitoring = std::find_if(probed.begin(), probed.end(), [&](const auto& h) { return h.name == host.name; });
  if (monitoring == probed.end()) return;
  if (!monitoring->reached) {  // no reading, no pass, even when `reachable` is not selected
    return run.Add(Fail(kCheck, kCluster, host.name, "not checked: the monitoring host " + host.name +
                        " is unreachable (" + monitoring->unreachable + ")", {}, "unknown"));
  }
  const std::vector<ExpectedTarget> expected = Expected(run, probed);
  const HostCommand read{.host = host.name, .argv = PrometheusUpArgv(PrometheusUrl(host)), .timeout_s = kReadSeconds};
  Result<ToolOutput> up = std::move(run.RunCommands({read}).front());
  if (!up.ok()) return run.Add(Fail(kCheck, kCluster, host.name, up.status().message()));
  CheckResult verdict = EvaluatePrometheusTargets(host.name, *up, expected);
  const int interval = PrometheusScrapeSeconds(host);
  if (verdict.outcome == CheckOutcome::kFail && up->Succeeded() && run.SecondsLeft() > interval + kReadSeconds) {
    const HostCommand wait{.host = host.name, .argv = {"sleep", std::to_string(interval + 1)}, .timeout_s = interval + 6};
    std::vector<Result<ToolOutput>> again = run.RunCommands({wait, read});
    if (again[1].ok()) verdict = EvaluatePrometheusTargets(host.name, *again[1], expected);
  }
  run.Add(verdict);
}

const CheckRegistration kMonitoringTargets({.name = kCheck,
                                            .scope = kCluster,
                                            .summary = "Prometheus has every expected exporter target up (named when not)",
                                            .rank = 250,
                                            .cluster_phase = {.run = RunPhase}});

}  // namespace
}  // namespace clusterctl::checks
