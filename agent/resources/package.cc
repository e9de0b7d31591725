// package: distribution packages through apt (Debian family) or dnf (RHEL
// family) behind one interface: present, absent, a pinned version, held.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>

#include <ctime>
#include <map>

#include "agent/resources/apt.h"
#include "agent/resources/names.h"
#include "agent/resources/registry.h"
#include "agent/resources/node_files.h"
#include "common/clock.h"
#include "common/package_differences.h"
#include "common/strings.h"

namespace clusterctl::agent {

// The node's own time.
const SystemClock kMachineClock;
namespace {

// The apt cache is refreshed before installing when it is older than this
// (a repository resource reads the source it changed by itself).
constexpr time_t kAptCacheMaxAge = 6 * 3600;
const char* kAptStamp = "/var/lib/clusterctl/apt-updated";

struct Installed {
  std::string version;  // empty when not installed
  bool held = false;
};

bool UsesApt() { return StatPath("/var/lib/dpkg/status").exists; }

// Another package manager run (an admin's, unattended-upgrades) holds the
// dpkg/apt locks: wait for it rather than fail, unless the controller goes
// away meanwhile. The locks are fcntl locks, so F_GETLK tells whether
// someone holds them without taking them.
void WaitForAptLocks(std::chrono::seconds limit, const HangupWatch& hangup) {
  static const char* kLocks[] = {"/var/lib/dpkg/lock-frontend", "/var/lib/dpkg/lock", "/var/lib/apt/lists/lock",
                                 "/var/cache/apt/archives/lock"};
  const auto deadline = kMachineClock.Monotonic() + limit;
  for (const char* path : kLocks) {
    while (kMachineClock.Monotonic() < deadline && !hangup.Reported()) {
      int fd = ::open(path, O_RDONLY | O_CLOEXEC);
      if (fd < 0) break;
      struct flock probe {};
      probe.l_type = F_WRLCK;
      probe.l_whence = SEEK_SET;
      bool held = ::fcntl(fd, F_GETLK, &probe) == 0 && probe.l_type != F_UNLCK;
      ::close(fd);
      if (!held) break;
      ::usleep(500'000);
    }
  }
}

// How apt shows progress: a line per file fetched, and the bytes growing in
// its partial directories while one large file downloads. A download with
// neither for kAptStallWindow has stalled. Once dpkg works (or the fetch is
// over) apt may rightly be silent for minutes (a maintainer script, an
// initramfs rebuild): only the time limit applies then.
constexpr std::chrono::seconds kAptStallWindow{30};

uint64_t BytesIn(const char* directory) {
  uint64_t total = 0;
  DIR* dir = ::opendir(directory);
  if (!dir) return 0;
  while (dirent* entry = ::readdir(dir)) {
    struct stat st {};
    if (::fstatat(::dirfd(dir), entry->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode)) {
      total += static_cast<uint64_t>(st.st_size);
    }
  }
  ::closedir(dir);
  return total;
}

StallWatch AptStallWatch() {
  StallWatch watch;
  watch.window = kAptStallWindow;
  watch.progress = [] { return BytesIn("/var/lib/apt/lists/partial") + BytesIn("/var/cache/apt/archives/partial"); };
  // Not "Reading package lists": apt-get install prints it before it fetches.
  watch.ends_at = {"Fetched ",   "(Reading database", "Selecting previously", "Preparing to unpack",
                   "Unpacking ", "Setting up ",       "Removing "};
  return watch;
}

// Runs apt-get (stopped after `limit`, or when it stalls), waiting first for
// another apt run's locks. Tried again:
// - a lock another apt took between our wait and its start (one a killed
//   controller left, still starting up; DPkg::Lock::Timeout does not cover
//   the lists lock of apt-get update), up to kLockedRetries times;
// - a run that stalled (AptStallWatch: apt's http method can hang on a
//   proxy connection the proxy dropped: seen on the testbed, the socket in
//   CLOSE-WAIT for 20 minutes; a retry then finishes in seconds), that ran
//   past `limit`, or that lost the race with another apt to rebuild
//   pkgcache.bin ("The package cache file is corrupted"), up to
//   kStalledTries runs in all.
// When dpkg was interrupted earlier (a power cut during an install), repairs
// it with dpkg --configure -a and tries once more.
constexpr int kLockedRetries = 20;
constexpr int kStalledTries = 3;

}  // namespace

bool RunApt(ResourceHost& host, ResourceOutcome& outcome, std::vector<std::string> argv, std::chrono::minutes limit) {
  argv.insert(argv.begin() + 1, {"-o", "DPkg::Lock::Timeout=600"});
  CommandSpec spec;
  spec.argv = std::move(argv);
  spec.timeout = limit;
  spec.stall = AptStallWatch();
  const ResourceOutcome before = outcome;
  int locked = 0, stalled = 1;
  while (true) {
    WaitForAptLocks(std::chrono::minutes(10), host.hangup());
    CommandResult ran;
    if (RunSpecOrFail(host, outcome, spec, true, &ran)) return true;
    bool lock = outcome.output.find("Could not get lock") != std::string::npos;
    bool stall = ran.stalled || ran.timed_out ||
                 outcome.output.find("The package cache file is corrupted") != std::string::npos;
    if (!(lock && ++locked <= kLockedRetries) && !(stall && ++stalled <= kStalledTries)) break;
    outcome = before;
    ::usleep(500'000);
  }
  if (outcome.output.find("dpkg was interrupted") == std::string::npos) return false;
  outcome = before;
  if (!RunOrFail(host, outcome, {"dpkg", "--configure", "-a"}, true)) return false;
  return RunSpecOrFail(host, outcome, spec, true);
}

namespace {

// One dpkg-query answers both questions: db:Status-Abbrev is the selection
// ('h' = hold, which is what apt-mark hold sets) then the state ('i' =
// installed), so "ii" is installed and "hi" installed and held. (apt-mark
// showhold would say the same after loading the whole apt cache: ~70 ms per
// call, most of a no-op package check.)
std::map<std::string, Installed> QueryApt(const std::vector<std::string>& names, ResourceHost& host) {
  std::map<std::string, Installed> out;
  CommandSpec query;
  query.argv = {"dpkg-query", "-W", "-f=${Package}\\t${db:Status-Abbrev}\\t${Version}\\n", "--"};
  for (const auto& n : names) query.argv.push_back(n);
  CommandResult r = host.Run(query, false);
  for (const std::string& line : Split(r.stdout_data, '\n')) {
    std::vector<std::string> f = Split(line, '\t');
    if (f.size() != 3 || f[1].size() < 2 || f[1][1] != 'i') continue;
    out[f[0]].version = f[2];
    out[f[0]].held = f[1][0] == 'h';
  }
  return out;
}

std::map<std::string, Installed> QueryRpm(const std::vector<std::string>& names, ResourceHost& host) {
  std::map<std::string, Installed> out;
  CommandSpec query;
  query.argv = {"rpm", "-q", "--qf", "%{NAME}\\t%{VERSION}-%{RELEASE}\\n", "--"};
  for (const auto& n : names) query.argv.push_back(n);
  CommandResult r = host.Run(query, false);
  for (const std::string& line : Split(r.stdout_data, '\n')) {
    std::vector<std::string> f = Split(line, '\t');
    if (f.size() == 2 && !f[0].empty()) out[f[0]].version = f[1];
  }
  return out;
}

bool AptCacheFresh() {
  struct stat st;
  return ::stat(kAptStamp, &st) == 0 && kMachineClock.NowMs() / 1000 - st.st_mtime < kAptCacheMaxAge;
}

bool AptUpdate(ResourceHost& host, ResourceOutcome& outcome) {
  // 5 minutes is ample for the indexes; a longer run has stalled (see RunApt).
  if (!RunApt(host, outcome, {"apt-get", "-o", "Acquire::http::Timeout=60", "update", "-q"}, std::chrono::minutes(5))) {
    return false;
  }
  ::mkdir("/var/lib/clusterctl", 0755);
  Status stamped = WriteFileAtomic(kAptStamp, std::to_string(kMachineClock.NowMs() / 1000) + "\n", 0644, 0, 0);
  if (!stamped.ok()) outcome.Fail(stamped.message());
  return !outcome.failed;
}

// What a package step changes: the arguments of each command.
struct PackageChanges {
  std::vector<std::string> install;  // name, or name=version (apt) / name-version (dnf)
  std::vector<std::string> remove;
  std::vector<std::string> hold;
  std::vector<std::string> unhold;
};

// The version `name` must be at: the step's `version`, or for a name the
// controller's batch pins (`versions`, several steps in one transaction)
// that one; "" for any.
std::string WantedVersion(const nlohmann::json& p, const std::string& name) {
  auto versions = p.find("versions");
  if (versions != p.end() && versions->contains(name)) return (*versions)[name].get<std::string>();
  return p.value("version", std::string());
}

// Compares `names` as installed with the step's parameters `p`, recording
// each difference in `outcome`.
PackageChanges FindPackageChanges(const nlohmann::json& p, const std::vector<std::string>& names,
                                  std::map<std::string, Installed>& installed, bool apt, ResourceOutcome& outcome) {
  const bool absent = p.value("state", std::string("present")) == "absent";
  PackageChanges changes;
  for (const std::string& name : names) {
    const Installed& i = installed[name];
    const std::string version = WantedVersion(p, name);
    if (absent) {
      if (!i.version.empty()) {
        outcome.Differs(name + " " + i.version + " installed (to be removed)");
        changes.remove.push_back(name);
      }
      continue;
    }
    if (i.version.empty()) {
      outcome.Differs(PackageMissingDifference(name));
      changes.install.push_back(version.empty() ? name : name + (apt ? "=" : "-") + version);
    } else if (!version.empty() && i.version != version) {
      outcome.Differs(name + " " + i.version + " -> " + version);
      changes.install.push_back(name + (apt ? "=" : "-") + version);
    }
    if (p.contains("hold")) {
      bool hold = p["hold"].get<bool>();
      if (hold && !i.held) {
        outcome.Differs(name + " not held");
        changes.hold.push_back(name);
      } else if (!hold && i.held) {
        outcome.Differs(name + " held");
        changes.unhold.push_back(name);
      }
    }
  }
  return changes;
}

void ApplyWithApt(const PackageChanges& changes, ResourceHost& host, ResourceOutcome& outcome) {
  if (!changes.install.empty()) {
    if (!AptCacheFresh() && !AptUpdate(host, outcome)) return;
    std::vector<std::string> argv = {"apt-get", "install", "-y", "-q", "--no-install-recommends",
                                     "-o", "Dpkg::Options::=--force-confold", "--allow-downgrades",
                                     "--allow-change-held-packages", "--"};
    argv.insert(argv.end(), changes.install.begin(), changes.install.end());
    if (!RunApt(host, outcome, argv)) return;
  }
  if (!changes.remove.empty()) {
    std::vector<std::string> argv = {"apt-get", "remove", "-y", "-q", "--"};
    argv.insert(argv.end(), changes.remove.begin(), changes.remove.end());
    if (!RunApt(host, outcome, argv)) return;
  }
  if (!changes.hold.empty()) {
    std::vector<std::string> argv = {"apt-mark", "hold", "--"};
    argv.insert(argv.end(), changes.hold.begin(), changes.hold.end());
    if (!RunOrFail(host, outcome, argv, true)) return;
  }
  if (!changes.unhold.empty()) {
    std::vector<std::string> argv = {"apt-mark", "unhold", "--"};
    argv.insert(argv.end(), changes.unhold.begin(), changes.unhold.end());
    RunOrFail(host, outcome, argv, true);
  }
}

void ApplyWithDnf(const PackageChanges& changes, ResourceHost& host, ResourceOutcome& outcome) {
  // No "--" for dnf: dnf5 before 5.4.3 refuses it; the names were checked.
  if (!changes.install.empty()) {
    std::vector<std::string> argv = {"dnf", "install", "-y", "-q"};
    argv.insert(argv.end(), changes.install.begin(), changes.install.end());
    if (!RunOrFail(host, outcome, argv, true)) return;
  }
  if (!changes.remove.empty()) {
    std::vector<std::string> argv = {"dnf", "remove", "-y", "-q"};
    argv.insert(argv.end(), changes.remove.begin(), changes.remove.end());
    if (!RunOrFail(host, outcome, argv, true)) return;
  }
  for (const auto& [list, verb] : {std::pair{&changes.hold, "add"}, std::pair{&changes.unhold, "delete"}}) {
    if (list->empty()) continue;
    std::vector<std::string> argv = {"dnf", "versionlock", verb};
    argv.insert(argv.end(), list->begin(), list->end());
    if (!RunOrFail(host, outcome, argv, true)) {
      outcome.error += " (holding packages on dnf needs the versionlock plugin: python3-dnf-plugin-versionlock)";
      return;
    }
  }
}

// A batch's `versions`: each a name of the request at a version of the
// versions' syntax ("" when they are).
std::string VersionsRefusal(const nlohmann::json& p, const std::vector<std::string>& names) {
  auto versions = p.find("versions");
  if (versions == p.end()) return "";
  for (const auto& [name, version] : versions->items()) {
    if (std::find(names.begin(), names.end(), name) == names.end()) {
      return "versions names '" + Printable(name) + "', which is not one of the names";
    }
    if (!version.is_string()) return "the version of " + Printable(name) + " is not a string";
    const std::string refused = PackageVersionRefusal(version.get<std::string>());
    if (!refused.empty()) return refused;
  }
  return "";
}

}  // namespace

ResourceOutcome PackageResource(const ResourceRequest& request, ResourceHost& host) {
  ResourceOutcome outcome;
  const nlohmann::json& p = request.params;
  std::vector<std::string> names = PackageNames(p["name"]);
  const std::string version = p.value("version", std::string());
  const bool apt = UsesApt();
  // The registered table refused what is no package name of either family
  // (an option above all); an apt node takes Debian's names only.
  for (const std::string& name : names) {
    const std::string refused = PackageNameRefusal(name, apt ? PackageFamily::kDebian : PackageFamily::kRpm);
    if (!refused.empty()) return outcome.Fail("package: " + refused);
  }
  const std::string versions_refused = VersionsRefusal(p, names);
  if (!versions_refused.empty()) return outcome.Fail("package: " + versions_refused);
  std::map<std::string, Installed> installed = apt ? QueryApt(names, host) : QueryRpm(names, host);
  PackageChanges changes = FindPackageChanges(p, names, installed, apt, outcome);
  if (!request.apply || !outcome.changed) return outcome;
  // A pinned version is one family at one version (NVIDIA's packages depend
  // on each other at `= version`): any of them moving moves all of them, in
  // one transaction.
  if (!version.empty() && !changes.install.empty()) {
    changes.install.clear();
    for (const std::string& name : names) changes.install.push_back(name + (apt ? "=" : "-") + version);
  }
  if (apt) {
    ApplyWithApt(changes, host, outcome);
  } else {
    ApplyWithDnf(changes, host, outcome);
  }
  return outcome;
}

// The kind this file implements, registered with its parameters.
namespace {
using resources::Internal;
using resources::P;
using resources::Refusing;
using T = resources::ParamType;

const ResourceKindRegistration kPackageKind(
    {"package", "distribution packages (apt or dnf): present, absent, pinned version, held",
     {Refusing(P("name", T::kStringList, true), AnyPackageNameRefusal),
      P("state", T::kString, false, {"present", "absent"}), Refusing(P("version", T::kString), PackageVersionRefusal),
      P("hold", T::kBool),
      // Set by the controller only, for several steps' packages installed in
      // one transaction: the pinned ones' versions, by name.
      Internal("versions", T::kStringMap)},
     {}},
    PackageResource);

}  // namespace

}  // namespace clusterctl::agent
