// The validation run's NFS phase: nfs.mounts and nfs.export write a file
// from each NFS client and read it back on the next client of the same
// export (a ring), through the kernel mount (the first mount) and through
// each export the client mounts, the cluster's and those of servers outside
// the inventory (libnfs, user space), respectively.
#include <random>
#include <set>

#include "common/strings.h"
#include "controller/views/nfs_view.h"
#include "controller/validate/remote_exec.h"
#include "controller/validate/service_checks.h"
#include "controller/validate/validator.h"

namespace clusterctl::validation_internal {
namespace {

// The directory every export has for these round trips (nfs-server makes
// it, owned by the anonymous user root is squashed to).
constexpr const char* kRoundTripDir = ".clusterctl-validate";

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

// The libnfs URL of a new round-trip file in a mount's export. NFSv3 where
// the server offers it (the cluster's: its versions; a server outside the
// inventory: unless the mount asks for 4): libnfs's v4 writes are limited,
// and v3 without locking needs no grace period after a server start.
std::string RoundTripUrl(const nlohmann::json& mount, const nlohmann::json& per_host, const std::string& file) {
  bool v3;
  if (mount.value("external", false)) {
    v3 = mount.value("vers", std::string()).rfind('4', 0) != 0;
  } else {
    const std::string server = mount["server"].get<std::string>();
    v3 = per_host.contains(server) && per_host[server].value("vers3", false);
  }
  const std::string address = mount["server_address"].get<std::string>();
  const std::string host = address.find(':') != std::string::npos ? "[" + address + "]" : address;
  return "nfs://" + host + mount["export"].get<std::string>() + "/" + kRoundTripDir + "/" + file + (v3 ? "" : "?version=4");
}

// One client's work: its mounts, and a token it writes through each export
// it mounts (to be read back by the next client of that export in the ring).
NfsClientWork PlanNfsClient(const Host& host, const nlohmann::json& per_host, const nlohmann::json& facts) {
  NfsClientWork w;
  const nlohmann::json* nfs = facts.is_object() && facts.contains("nfs") && facts["nfs"].is_object() ? &facts["nfs"] : nullptr;
  w.kernel_client = nfs && nfs->contains("kernel_client") && (*nfs)["kernel_client"].is_boolean() &&
                    (*nfs)["kernel_client"].get<bool>();
  const std::string nonce = RandomHex();
  const std::string token = "clusterctl validate " + host.name + " " + nonce;
  std::set<std::string> sources;
  for (const nlohmann::json& m : per_host[host.name]["mounts"]) {
    w.mounts.push_back({m["path"], m["source"], {}});
    if (!sources.insert(m["source"].get<std::string>()).second) continue;
    // nfs-cp never overwrites: a new name each run (the cluster's servers expire them).
    w.export_trips.push_back({host.name, "", RoundTripUrl(m, per_host, host.name + "-" + nonce), token, {}, {},
                              m["source"].get<std::string>(), m.value("external", false)});
  }
  w.kernel_path = per_host[host.name]["mounts"][0]["path"].get<std::string>() + "/" + kRoundTripDir + "/" + host.name + ".mount";
  return w;
}

// Each trip's reader: the next client in the ring that mounts the same
// export (none: the trip is only written).
void ChooseReaders(const std::vector<const Host*>& clients, std::map<std::string, NfsClientWork>& work) {
  for (size_t k = 0; k < clients.size(); ++k) {
    for (NfsRoundTrip& trip : work[clients[k]->name].export_trips) {
      for (size_t step = 1; step < clients.size() && trip.reader.empty(); ++step) {
        const std::string& next = clients[(k + step) % clients.size()]->name;
        for (const NfsRoundTrip& theirs : work[next].export_trips) {
          if (theirs.source == trip.source) trip.reader = next;
        }
      }
    }
  }
}

// Argv built outside the coroutines (g++ 12 rejects braced lists of
// literals and strings inside a co_await expression).
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

}  // namespace

void Validator::Nfs() {
  if (!Want("nfs.mounts") && !Want("nfs.export")) return;
  auto view = BuildNfsView(*in_.inventory, {});
  std::map<std::string, NfsClientWork> work;  // entries made before any fan-out
  std::vector<const Host*> clients;
  for (const Host* h : in_.selected) {
    if (!probes_.at(h->name).reached) continue;  // failed as unreachable
    if (!view.ok()) {  // the inventory's NFS variables are wrong: deploy and plan say where
      for (const char* check : {"nfs.export", "nfs.mounts"}) {
        Add(Fail(check, kNode, h->name, "not checked: the inventory's NFS settings: " + view.status().message(), {}, "unknown"));
      }
      continue;
    }
    const nlohmann::json& per_host = (*view)["per_host"];
    if (!per_host.contains(h->name) || !per_host[h->name].contains("mounts") || per_host[h->name]["mounts"].empty()) {
      for (const char* check : {"nfs.export", "nfs.mounts"}) {
        Add(Skip(check, kNode, h->name, h->name + " has no nfs_mounts or nfs_external_mounts"));
      }
      continue;
    }
    work[h->name] = PlanNfsClient(*h, per_host, probes_.at(h->name).readings.facts);
    clients.push_back(h);
  }
  if (clients.empty()) return;
  ChooseReaders(clients, work);
  // Phase 1: each client checks its mounts and writes.
  in_.run_on(clients, [&, this](AgentSession& agent, HostResult& result) -> Task<void> {
    NfsClientWork& w = work.at(result.host->name);
    for (NfsMountProbe& m : w.mounts) {
      std::vector<std::string> findmnt = FindmntArgv(m.path);
      m.findmnt = co_await ExecOnNode(agent, findmnt, "", Limit(10));
    }
    for (NfsRoundTrip& trip : w.export_trips) {
      std::vector<std::string> write = NfsWriteArgv(trip.token, trip.url);
      trip.write = co_await ExecOnNode(agent, write, "", Limit(30));
    }
    if (w.kernel_client) {
      std::vector<std::string> kernel_write = KernelWriteArgv(w.export_trips[0].token, w.kernel_path);
      w.kernel_write = co_await ExecOnNode(agent, kernel_write, "", Limit(30));
    }
  });
  // Phase 2: each client reads what the one before it in the ring wrote.
  in_.run_on(clients, [&, this](AgentSession& agent, HostResult& result) -> Task<void> {
    for (auto it = work.begin(); it != work.end(); ++it) {
      NfsClientWork& w = it->second;
      for (NfsRoundTrip& trip : w.export_trips) {
        if (trip.reader != result.host->name) continue;
        std::vector<std::string> read = {"nfs-cat", trip.url};
        trip.read = co_await ExecOnNode(agent, read, "", Limit(30));
      }
      if (w.kernel_client && w.export_trips[0].reader == result.host->name) {
        std::vector<std::string> kernel_read = {"cat", w.kernel_path};
        w.kernel_read = co_await ExecOnNode(agent, kernel_read, "", Limit(30));
      }
    }
  });
  for (const Host* h : clients) {
    const NfsClientWork& w = work.at(h->name);
    if (Want("nfs.export")) Add(EvaluateNfsExports(h->name, w.export_trips));
    std::string round_trip_problem;
    const std::string& kernel_reader = w.export_trips[0].reader;
    const bool tried = w.kernel_client && !kernel_reader.empty();
    if (tried && !w.kernel_write.Succeeded()) {
      round_trip_problem = "cannot write " + w.kernel_path + " (" + ExitDescription(w.kernel_write) + ")";
    } else if (tried && std::string(Trim(w.kernel_read.out)) != w.export_trips[0].token) {
      round_trip_problem = kernel_reader + " did not read back " + w.kernel_path;
    }
    if (Want("nfs.mounts")) Add(EvaluateNfsMounts(h->name, w.kernel_client, w.mounts, round_trip_problem, tried));
  }
}

}  // namespace clusterctl::validation_internal
