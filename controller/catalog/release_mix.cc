#include "controller/catalog/release_mix.h"

#include <algorithm>
#include <array>

namespace clusterctl {
namespace {

// Slurm's major releases in order (YY.MM). A release's daemons accept RPCs
// from a window of older ones (SlurmCompatibilityWindow); never from newer.
constexpr std::array<const char*, 15> kSlurmReleases = {"17.02", "17.11", "18.08", "19.05", "20.02",
                                                        "20.11", "21.08", "22.05", "23.02", "23.11",
                                                        "24.05", "24.11", "25.05", "25.11", "26.05"};

int SlurmIndex(const std::string& series) {
  auto it = std::find(kSlurmReleases.begin(), kSlurmReleases.end(), series);
  return it == kSlurmReleases.end() ? -1 : static_cast<int>(it - kSlurmReleases.begin());
}

std::string Series(const MixHost& host, const char* component) {
  auto it = host.release->versions.find(component);
  return it == host.release->versions.end() ? "" : it->second;
}

std::string Named(const MixHost& host, const char* component, const char* what) {
  return host.name + " (" + host.release->Title() + ", " + what + " " + Series(host, component) + ")";
}

// The first host with `runs` and a series of `component`; nullptr when none.
const MixHost* Reference(const std::vector<MixHost>& hosts, bool MixHost::*runs, const char* component) {
  for (const MixHost& host : hosts) {
    if (host.release && host.*runs && !Series(host, component).empty()) return &host;
  }
  return nullptr;
}

// Why `host`'s Slurm (slurmd, slurmdbd or commands) cannot talk to the
// controller's; empty when it can. Slurm refuses a daemon or command newer
// than slurmctld, and one older than slurmctld's compatibility window; a
// slurmdbd is the opposite: no older than slurmctld, within its own window.
std::string SlurmProblem(const MixHost& host, const MixHost& controller) {
  const std::string mine = Series(host, "slurm");
  const std::string theirs = Series(controller, "slurm");
  if (mine.empty() || mine == theirs) return "";
  const std::string both = Named(host, "slurm", "Slurm") + " and slurmctld on " + Named(controller, "slurm", "Slurm");
  const std::optional<int> behind = SlurmReleasesBehind(theirs, mine);
  if (!behind) return both + ": not Slurm major releases clusterctl knows the compatibility of";
  if (host.slurmctld) return both + ": a backup slurmctld must run the primary's Slurm release";
  if (host.slurmdbd && !host.slurmctld) {
    if (*behind > 0) return both + ": slurmdbd must be no older than slurmctld";
    if (-*behind > SlurmCompatibilityWindow(mine)) {
      return both + ": slurmdbd " + mine + " accepts slurmctld from its " +
             std::to_string(SlurmCompatibilityWindow(mine)) + " previous major releases only";
    }
    return "";
  }
  if (*behind < 0) return both + ": slurmctld refuses a newer slurmd or command";
  if (*behind > SlurmCompatibilityWindow(theirs)) {
    return both + ": slurmctld " + theirs + " accepts its " + std::to_string(SlurmCompatibilityWindow(theirs)) +
           " previous major releases only";
  }
  return "";
}

// Why `host`'s `component` series differs from the reference's where it must
// be the same (Open MPI: ranks of one job run one series; munge: one
// credential format); empty when it is the same.
std::string SameSeriesProblem(const MixHost& host, const MixHost& reference, const char* component, const char* what,
                              const char* why) {
  const std::string mine = Series(host, component);
  if (mine.empty() || mine == Series(reference, component)) return "";
  return Named(host, component, what) + " and " + Named(reference, component, what) + ": " + why;
}

}  // namespace

MixHost MixHostOf(const std::string& name, const Release* release, const std::vector<std::string>& roles) {
  MixHost host{.name = name, .release = release};
  const std::vector<std::pair<const char*, bool MixHost::*>> runs = {
      {"slurm-controller", &MixHost::slurmctld}, {"slurm-accounting", &MixHost::slurmdbd},
      {"slurm-node", &MixHost::slurmd},          {"slurm-common", &MixHost::slurm_commands},
      {"mpi", &MixHost::mpi},                    {"munge", &MixHost::munge}};
  for (const auto& [role, flag] : runs) {
    host.*flag = std::find(roles.begin(), roles.end(), role) != roles.end();
  }
  return host;
}

int SlurmCompatibilityWindow(const std::string& series) {
  const int index = SlurmIndex(series);
  if (index < 0) return -1;
  return index >= SlurmIndex("24.11") ? 3 : 2;
}

std::optional<int> SlurmReleasesBehind(const std::string& newer, const std::string& older) {
  const int a = SlurmIndex(newer);
  const int b = SlurmIndex(older);
  if (a < 0 || b < 0) return std::nullopt;
  return a - b;
}

std::map<std::string, std::string> MixedReleaseRefusals(const std::vector<MixHost>& hosts) {
  std::map<std::string, std::string> refusals;
  const MixHost* controller = Reference(hosts, &MixHost::slurmctld, "slurm");
  const MixHost* mpi = Reference(hosts, &MixHost::mpi, "openmpi");
  const MixHost* munge = Reference(hosts, &MixHost::munge, "munge");
  for (const MixHost& host : hosts) {
    if (!host.release) continue;
    std::vector<std::string> problems;
    const bool slurm = host.slurmctld || host.slurmdbd || host.slurmd || host.slurm_commands;
    if (controller && slurm && &host != controller) problems.push_back(SlurmProblem(host, *controller));
    if (mpi && host.mpi) {
      problems.push_back(SameSeriesProblem(host, *mpi, "openmpi", "Open MPI",
                                           "the ranks of one MPI job must run one Open MPI series"));
    }
    if (munge && host.munge) {
      problems.push_back(SameSeriesProblem(host, *munge, "munge", "munge", "munge credentials are one format per series"));
    }
    problems.erase(std::remove(problems.begin(), problems.end(), ""), problems.end());
    if (problems.empty()) continue;
    std::string why = "its release cannot join this cluster's: ";
    for (size_t i = 0; i < problems.size(); ++i) why += (i ? "; " : "") + problems[i];
    refusals[host.name] = why + " (docs/platforms.md#mixed-releases)";
  }
  return refusals;
}

}  // namespace clusterctl
