// nfs.export and nfs.mounts: each NFS client among the selected nodes that
// answered writes a file and the next client of the same export (a ring)
// reads it back, through each export the client mounts, the cluster's and
// those of servers outside the inventory (libnfs, user space: nfs.export),
// and through the kernel mount, its first (nfs.mounts, with findmnt of every
// mount). One run judges both, in nfs.export's phase, or in nfs.mounts' when
// only that one is selected: the round trips serve both. The mounts come
// from the inventory's NFS view (ClusterRun::NfsView), the verdicts from
// service_checks.h. An unreachable node already failed every node check
// (node_verdicts.cc).
#include <cstdio>
#include <map>
#include <random>
#include <set>

#include "common/strings.h"
#include "controller/validate/checks/common.h"
#include "controller/validate/checks/nfs_url.h"
#include "controller/validate/cluster_run.h"
#include "controller/validate/service_checks.h"

namespace clusterctl::checks {
namespace {

std::string RandomHex() {
  std::random_device random;
  char text[17];
  std::snprintf(text, sizeof text, "%08x%08x", random(), random());
  return text;
}

// One client's part of the round trips: what it writes, and what it reads
// for the clients before it in each export's ring.
struct NfsClientWork {
  std::vector<NfsMountProbe> mounts;
  bool kernel_client = false;
  std::vector<NfsRoundTrip> export_trips;  // one per export it mounts (server and path), written by this client
  ToolOutput kernel_write, kernel_read;    // through its first mount; read for the previous client
  std::string kernel_path;                 // the file it writes through its mount
};

// One client's work: its mounts, and a token it writes through each export
// it mounts (to be read back by the next client of that export in the ring).
NfsClientWork PlanNfsClient(const std::string& host, const nlohmann::json& per_host, const nlohmann::json& facts) {
  NfsClientWork w;
  const nlohmann::json* nfs = facts.is_object() && facts.contains("nfs") && facts["nfs"].is_object() ? &facts["nfs"] : nullptr;
  w.kernel_client = nfs && nfs->contains("kernel_client") && (*nfs)["kernel_client"].is_boolean() &&
                    (*nfs)["kernel_client"].get<bool>();
  const std::string nonce = RandomHex();
  const std::string token = "clusterctl validate " + host + " " + nonce;
  std::set<std::string> sources;
  for (const nlohmann::json& m : per_host[host]["mounts"]) {
    w.mounts.push_back({m["path"], m["source"], {}});
    if (!sources.insert(m["source"].get<std::string>()).second) continue;
    // nfs-cp never overwrites: a new name each run (the cluster's servers expire them).
    w.export_trips.push_back({host, "", NfsValidateUrl(m, per_host, host + "-" + nonce), token, {}, {},
                              m["source"].get<std::string>(), m.value("external", false)});
  }
  w.kernel_path = per_host[host]["mounts"][0]["path"].get<std::string>() + "/" + kNfsValidateDir + "/" + host + ".mount";
  return w;
}

// Each trip's reader: the next client in the ring that mounts the same
// export (none: the trip is only written).
void ChooseReaders(const std::vector<std::string>& clients, std::map<std::string, NfsClientWork>& work) {
  for (size_t k = 0; k < clients.size(); ++k) {
    for (NfsRoundTrip& trip : work[clients[k]].export_trips) {
      for (size_t step = 1; step < clients.size() && trip.reader.empty(); ++step) {
        const std::string& next = clients[(k + step) % clients.size()];
        for (const NfsRoundTrip& theirs : work[next].export_trips) {
          if (theirs.source == trip.source) trip.reader = next;
        }
      }
    }
  }
}

std::vector<std::string> FindmntArgv(const std::string& path) {
  return {"findmnt", "-n", "-o", "SOURCE,FSTYPE", "--mountpoint", path};
}

// The token goes through a local file: nfs-cp copies files.
std::vector<std::string> NfsWriteArgv(const std::string& token, const std::string& url) {
  return {"sh", "-c", "f=$(mktemp) && printf '%s\\n' \"$1\" >\"$f\" && nfs-cp \"$f\" \"$2\"; s=$?; rm -f \"$f\"; exit $s",
          "sh", token, url};
}

std::vector<std::string> KernelWriteArgv(const std::string& token, const std::string& path) {
  return {"sh", "-c", "printf '%s\\n' \"$1\" >\"$2\"", "sh", token, path};
}


// A command that did not run (the deadline, the node lost): no exit status, with why as its output.
ToolOutput NotRun(const Result<ToolOutput>& output) {
  if (output.ok()) return *output;
  ToolOutput not_run;
  not_run.exit_code = -1;
  not_run.err = output.status().message();
  return not_run;
}

// The clients (selected, reached, with mounts) and their work; the others
// get their results here: a skip without mounts, a failure when the
// inventory's NFS settings are wrong (deploy and plan say where).
std::vector<std::string> PlanClients(ClusterRun& run, std::map<std::string, NfsClientWork>& work) {
  const Result<nlohmann::json> view = run.NfsView();
  std::vector<std::string> clients;
  for (const ClusterRun::ProbedHost& h : run.ProbedHosts()) {
    if (!h.selected || !h.reached) continue;
    if (!view.ok()) {
      for (const char* check : {"nfs.export", "nfs.mounts"}) {
        run.Add(Fail(check, kNode, h.name, "not checked: the inventory's NFS settings: " + view.status().message(), {}, "unknown"));
      }
      continue;
    }
    const nlohmann::json& per_host = (*view)["per_host"];
    if (!per_host.contains(h.name) || !per_host[h.name].contains("mounts") || per_host[h.name]["mounts"].empty()) {
      for (const char* check : {"nfs.export", "nfs.mounts"}) {
        run.Add(Skip(check, kNode, h.name, h.name + " has no nfs_mounts or nfs_external_mounts"));
      }
      continue;
    }
    work[h.name] = PlanNfsClient(h.name, per_host, run.View(h.name).node.facts);
    clients.push_back(h.name);
  }
  ChooseReaders(clients, work);
  return clients;
}

// Step 1: each client checks its mounts and writes.
void WriteAll(ClusterRun& run, const std::vector<std::string>& clients, std::map<std::string, NfsClientWork>& work) {
  std::vector<HostCommand> commands;
  for (const std::string& host : clients) {
    const NfsClientWork& w = work.at(host);
    for (const NfsMountProbe& m : w.mounts) commands.push_back({.host = host, .argv = FindmntArgv(m.path), .timeout_s = 10});
    for (const NfsRoundTrip& trip : w.export_trips) {
      commands.push_back({.host = host, .argv = NfsWriteArgv(trip.token, trip.url), .timeout_s = 30});
    }
    if (w.kernel_client) {
      commands.push_back({.host = host, .argv = KernelWriteArgv(w.export_trips[0].token, w.kernel_path), .timeout_s = 30});
    }
  }
  std::vector<Result<ToolOutput>> outputs = run.RunCommands(commands);
  size_t next = 0;
  for (const std::string& host : clients) {
    NfsClientWork& w = work.at(host);
    for (NfsMountProbe& m : w.mounts) m.findmnt = NotRun(outputs[next++]);
    for (NfsRoundTrip& trip : w.export_trips) trip.write = NotRun(outputs[next++]);
    if (w.kernel_client) w.kernel_write = NotRun(outputs[next++]);
  }
}

// Step 2: each client reads what the one before it in the ring wrote.
void ReadAll(ClusterRun& run, std::map<std::string, NfsClientWork>& work) {
  std::vector<HostCommand> commands;
  std::vector<ToolOutput*> into;  // where each command's output goes
  for (auto& [writer, w] : work) {
    for (NfsRoundTrip& trip : w.export_trips) {
      if (trip.reader.empty()) continue;
      commands.push_back({.host = trip.reader, .argv = {"nfs-cat", trip.url}, .timeout_s = 30});
      into.push_back(&trip.read);
    }
    if (w.kernel_client && !w.export_trips[0].reader.empty()) {
      commands.push_back({.host = w.export_trips[0].reader, .argv = {"cat", w.kernel_path}, .timeout_s = 30});
      into.push_back(&w.kernel_read);
    }
  }
  std::vector<Result<ToolOutput>> outputs = run.RunCommands(commands);
  for (size_t k = 0; k < outputs.size(); ++k) *into[k] = NotRun(outputs[k]);
}

void Judge(ClusterRun& run, const std::string& host, const NfsClientWork& w) {
  run.Add(EvaluateNfsExports(host, w.export_trips));
  std::string round_trip_problem;
  const std::string& kernel_reader = w.export_trips[0].reader;
  const bool tried = w.kernel_client && !kernel_reader.empty();
  if (tried && !w.kernel_write.Succeeded()) {
    round_trip_problem = "cannot write " + w.kernel_path + " (" + ExitDescription(w.kernel_write) + ")";
  } else if (tried && std::string(Trim(w.kernel_read.out)) != w.export_trips[0].token) {
    round_trip_problem = kernel_reader + " did not read back " + w.kernel_path;
  }
  run.Add(EvaluateNfsMounts(host, w.kernel_client, w.mounts, round_trip_problem, tried));
}

void RunPhase(ClusterRun& run) {
  std::map<std::string, NfsClientWork> work;
  const std::vector<std::string> clients = PlanClients(run, work);
  if (clients.empty()) return;
  WriteAll(run, clients, work);
  ReadAll(run, work);
  for (const std::string& host : clients) Judge(run, host, work.at(host));
}

// nfs.mounts' phase: the same one, unless nfs.export's judged both.
void RunMountsPhase(ClusterRun& run) {
  if (!run.Reports("nfs.export")) RunPhase(run);
}

const CheckRegistration kNfsExport(
    {.name = "nfs.export",
     .scope = kNode,
     .summary = "the client's NFS export answers: a file written from here reads back on another client",
     .rank = 230,
     .cluster_phase = {.run = RunPhase}});

const CheckRegistration kNfsMounts(
    {.name = "nfs.mounts",
     .scope = kNode,
     .summary = "every nfs_mounts entry mounted from its server and export, written and read back",
     .rank = 240,
     .cluster_phase = {.run = RunMountsPhase}});

}  // namespace
}  // namespace clusterctl::checks
