#include "controller/validate/service_checks.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <sstream>
#include <set>

#include "common/strings.h"
#include "controller/validate/verdicts.h"

namespace clusterctl {
namespace {

constexpr CheckScope kNode = CheckScope::kNode;
constexpr CheckScope kCluster = CheckScope::kCluster;

std::string VarText(const Host& host, const char* name) {
  const nlohmann::json value = host.vars.value(name, nlohmann::json());
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number_integer()) return std::to_string(value.get<int64_t>());
  return "";
}

// NVIDIA's repository, where the dcgm and dcgm-exporter roles find their
// packages: the driver's cuda-repo or site source, dcgm_repository or
// dcgm_exporter_repository (the roles' defaults: distro, none, none).
bool NvidiaRepository(const Host& host) {
  const std::string source = VarText(host, "nvidia_driver_source");
  return (!source.empty() && source != "distro") || !VarText(host, "dcgm_repository").empty() ||
         !VarText(host, "dcgm_exporter_repository").empty();
}

// Where the dcgm-exporter role runs and the monitoring role writes its
// target: NVIDIA GPUs in the facts and NVIDIA's repository, by the
// monitoring host's variables as the monitoring role reads them.
bool RunsDcgmExporter(const nlohmann::json& facts, const Host& monitoring) {
  if (!facts.is_object() || !facts.contains("pci") || !facts["pci"].is_object()) return false;
  const nlohmann::json count = facts["pci"].value("gpu_count", nlohmann::json());
  return count.is_number_integer() && count.get<int64_t>() > 0 && NvidiaRepository(monitoring);
}

std::string Describe(const ExpectedTarget& t) { return t.node + " (" + t.job + ")"; }


}  // namespace

std::vector<ExpectedTarget> ExpectedTargets(const Inventory& inventory,
                                            const std::map<std::string, nlohmann::json>& facts_by_host) {
  std::set<ExpectedTarget> expected;
  const std::vector<std::string> monitoring = inventory.MembersOf(kGroupMonitoring);
  const Host* monitoring_host = monitoring.empty() ? nullptr : inventory.FindHost(monitoring.front());
  for (const Host& h : inventory.hosts) {
    expected.insert({"node", h.name});
    auto facts = facts_by_host.find(h.name);
    if (monitoring_host != nullptr && facts != facts_by_host.end() && RunsDcgmExporter(facts->second, *monitoring_host)) {
      expected.insert({"dcgm", h.name});
    }
  }
  for (const std::string& name : inventory.MembersOf(kGroupController)) expected.insert({"slurm", name});
  return {expected.begin(), expected.end()};
}

std::string PrometheusUrl(const Host& monitoring_host) {
  std::string listen = VarText(monitoring_host, "prometheus_listen");
  if (listen.empty()) {
    const std::string port = VarText(monitoring_host, "prometheus_port");
    const bool ipv6 = monitoring_host.address.find(':') != std::string::npos;
    listen = (ipv6 ? "[" + monitoring_host.address + "]" : monitoring_host.address) + ":" + (port.empty() ? "9090" : port);
  }
  return "http://" + listen;
}

int PrometheusScrapeSeconds(const Host& monitoring_host) {
  const std::string text = VarText(monitoring_host, "prometheus_scrape_interval");
  if (text.empty()) return 15;
  char* end = nullptr;
  const long value = std::strtol(text.c_str(), &end, 10);
  const std::string unit = end ? std::string(end) : "";
  const long seconds = unit == "s" ? value : unit == "m" ? value * 60 : -1;
  return seconds <= 0 ? 15 : static_cast<int>(std::min<long>(seconds, 120));
}

std::vector<std::string> PrometheusUpArgv(const std::string& url) {
  return {"promtool", "query", "instant", "-o", "json", url, "up"};
}

CheckResult EvaluatePrometheusTargets(const std::string& monitoring_host, const ToolOutput& up,
                                      const std::vector<ExpectedTarget>& expected) {
  const char* check = "monitoring.targets";
  if (!up.Succeeded()) return ToolFailed(check, kCluster, monitoring_host, "promtool", up);
  nlohmann::json series = nlohmann::json::parse(up.out, nullptr, false);
  if (!series.is_array()) {
    return ToolFailed(check, kCluster, monitoring_host, "promtool", up, "not the JSON vector of `up` it asks for");
  }
  std::map<ExpectedTarget, std::pair<std::string, std::string>> seen;  // -> value, instance
  for (const nlohmann::json& s : series) {
    if (!s.is_object() || !s.contains("metric") || !s["metric"].is_object() || !s.contains("value") ||
        !s["value"].is_array() || s["value"].size() != 2 || !s["value"][1].is_string()) {
      return ToolFailed(check, kCluster, monitoring_host, "promtool", up, "a sample without metric and value");
    }
    const nlohmann::json& labels = s["metric"];
    auto label = [&labels](const char* name) {
      return labels.contains(name) && labels[name].is_string() ? labels[name].get<std::string>() : std::string();
    };
    ExpectedTarget key{label("job"), label("node")};
    seen[key] = {s["value"][1].get<std::string>(), label("instance")};
  }
  std::vector<std::string> down, missing, evidence;
  for (const ExpectedTarget& t : expected) {
    auto it = seen.find(t);
    if (it == seen.end()) {
      missing.push_back(Describe(t));
    } else if (it->second.first != "1") {
      down.push_back(Describe(t) + " at " + it->second.second);
    }
  }
  const std::string threshold = "every expected target up (" + std::to_string(expected.size()) + ")";
  if (down.empty() && missing.empty()) {
    return Pass(check, kCluster, monitoring_host, std::to_string(expected.size()) + " targets up", threshold);
  }
  std::string detail;
  if (!down.empty()) detail = "down: " + Join(down, ", ");
  if (!missing.empty()) detail += std::string(detail.empty() ? "" : "; ") + "not scraped at all: " + Join(missing, ", ");
  for (const auto& [target, value] : seen) {
    evidence.push_back("up{job=\"" + target.job + "\", node=\"" + target.node + "\", instance=\"" + value.second +
                       "\"} " + value.first);
  }
  return Fail(check, kCluster, monitoring_host, detail, evidence,
              std::to_string(expected.size() - down.size() - missing.size()) + " of " + std::to_string(expected.size()) + " up",
              threshold);
}

// What the admin of an NFS server outside the inventory makes for nfs.export.
constexpr const char* kValidateDirHint =
    "its export's .clusterctl-validate/ directory, made by its admin and writable by this client's root as the server maps it";

CheckResult EvaluateNfsMounts(const std::string& host, bool kernel_client, const std::vector<NfsMountProbe>& mounts,
                              const std::string& round_trip_problem, bool round_trip_tried) {
  const char* check = "nfs.mounts";
  if (mounts.empty()) return Skip(check, kNode, host, "no NFS mounts configured (nfs_mounts)");
  if (!kernel_client) {
    return Fail(check, kNode, host,
                "not mounted: this node's kernel has no NFS client (facts nfs.kernel_client: no nfs4 in "
                "/proc/filesystems, no nfsv4 module for the running kernel); the export itself is nfs.export's",
                {}, "0 of " + std::to_string(mounts.size()) + " mounted");
  }
  std::vector<std::string> problems, evidence;
  for (const NfsMountProbe& m : mounts) {
    std::istringstream fields(m.findmnt.out);  // findmnt -o SOURCE,FSTYPE
    std::string source, fstype;
    fields >> source >> fstype;
    if (!m.findmnt.Succeeded() || fstype.empty()) {
      problems.push_back(m.path + " not mounted");
    } else if (fstype != "nfs" && fstype != "nfs4") {
      problems.push_back(m.path + " is " + fstype + ", not NFS");
    } else if (source != m.expected_source) {
      problems.push_back(m.path + " from " + source + ", not " + m.expected_source);
    }
    evidence.push_back(m.path + ": " + Printable(std::string(Trim(m.findmnt.out)), 120));
  }
  if (problems.empty() && round_trip_tried && !round_trip_problem.empty()) problems.push_back(round_trip_problem);
  if (!problems.empty()) return Fail(check, kNode, host, Join(problems, "; "), evidence);
  return Pass(check, kNode, host, std::to_string(mounts.size()) + " mounted",
              "every nfs_mounts entry mounted from its export", round_trip_tried ? "a file written here read back on another client" : "");
}

CheckResult EvaluateNfsExport(const std::string& host, const NfsRoundTrip& trip) {
  const char* check = "nfs.export";
  if (!trip.write.Succeeded()) {
    const std::string hint = trip.external ? " (a server outside the inventory needs " + std::string(kValidateDirHint) + ")" : "";
    return ToolFailed(check, kNode, host, "nfs-cp", trip.write, "cannot write " + trip.url + hint);
  }
  if (trip.reader.empty()) {
    return Pass(check, kNode, host, "written", "", "wrote " + trip.url + " (no other client to read it back)");
  }
  if (!trip.read.Succeeded()) {
    return ToolFailed(check, kNode, host, "nfs-cat", trip.read, trip.reader + " cannot read back " + trip.url);
  }
  if (Trim(trip.read.out) != trip.token) {
    return Fail(check, kNode, host, trip.reader + " read other bytes back from " + trip.url,
                {"wrote: " + trip.token, "read:  " + Printable(std::string(Trim(trip.read.out)), 120)});
  }
  return Pass(check, kNode, host, "round trip", "written here, the same bytes read back on another client",
              "wrote " + trip.url + ", read back on " + trip.reader);
}

CheckResult EvaluateNfsExports(const std::string& host, const std::vector<NfsRoundTrip>& trips) {
  if (trips.size() == 1) return EvaluateNfsExport(host, trips[0]);
  std::vector<std::string> sources;
  for (const NfsRoundTrip& trip : trips) {
    CheckResult one = EvaluateNfsExport(host, trip);
    if (one.outcome != CheckOutcome::kPass) return one;
    sources.push_back(trip.source + (trip.reader.empty() ? " (written)" : " (read back on " + trip.reader + ")"));
  }
  return Pass("nfs.export", kNode, host, std::to_string(trips.size()) + " exports",
              "each export: written here, the same bytes read back on another client", Join(sources, ", "));
}

}  // namespace clusterctl
