// Platforms: the OS releases clusterctl knows, as data (platforms.yaml,
// docs/platforms.md). One entry per release says whether clusterctl plans and
// deploys onto it, why, and the role variables whose values differ there
// from the roles' defaults (which are Debian 12's, the reference release):
// package names, versions, repository paths, configuration switches. The
// planner layers a host's release values between the role defaults and the
// inventory's variables, so a role reads `{{mpi_packages}}` and never
// `facts.os.version_id`; a release added is an entry here, not a condition
// in every role.
//
// The CPU architectures are data too (format 2, `architectures:`): per
// architecture, the variables whose values differ from the roles' defaults
// (which are x86_64's): NVIDIA's repository directory (sbsa), Debian's
// multiarch library directory. A variable is per release or per
// architecture, never both (the loader refuses one set by both), so the two
// layers never compete; the inventory wins over either.
//
// What a node's facts say decides before anything changes: a host whose
// os-release matches no entry, or an entry marked refused, is refused at
// plan time (its own host alone) with the supported releases listed; so is
// a host whose architecture (facts kernel.arch) has no entry.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/diagnostics.h"

namespace clusterctl {

class Catalog;

// 2: `architectures:`; files of format 1 (no architectures) still load.
inline constexpr int kPlatformsFormatVersion = 2;

enum class ReleaseSupport {
  kSupported,  // deployed and validated here (the e2e suite on the testbed)
  kPlanned,    // plans checked on captured facts (golden plan tests); never deployed here
  kRefused,    // never planned: the host is refused with the entry's reason
};

const char* ReleaseSupportWord(ReleaseSupport support);  // "supported", "planned", "refused"

struct Release {
  std::string name;        // "debian-12": the entry's key
  std::string id;          // os-release ID ("debian")
  std::string version_id;  // os-release VERSION_ID ("12"); empty: every version of `id`
  std::string codename;    // VERSION_CODENAME, for messages and docs ("bookworm")
  ReleaseSupport support = ReleaseSupport::kRefused;
  std::string why;  // one sentence: what was proven, or why it is refused
  // How the repository resource writes an apt source on this release:
  // "one-line" (a .list file, the default) or "deb822" (a .sources stanza,
  // apt 3's format). The step's own `format` parameter wins.
  std::string apt_sources = "one-line";
  // The release's own series of the components whose versions must agree
  // across a cluster (release_mix.h): "slurm" "24.11", "openmpi" "5.0",
  // "pmix" "5.0", "munge" "0.5". Absent: not compared.
  std::map<std::string, std::string> versions;
  // Role variables set for hosts of this release (an object): each one a
  // variable some role declares, with a value its declaration accepts.
  nlohmann::json vars = nlohmann::json::object();
  std::map<std::string, SourceLocation> var_where;  // each variable's line
  SourceLocation where;

  // "debian 12 (bookworm)", "rocky (every version)".
  std::string Title() const;
};

// A CPU architecture nodes may have (format 2): its name as `uname -m` and
// the facts' kernel.arch say it.
struct Architecture {
  std::string name;  // "aarch64"
  ReleaseSupport support = ReleaseSupport::kPlanned;  // supported or planned; never refused
  std::string why;
  // Role variables set for hosts of this architecture, as Release::vars.
  nlohmann::json vars = nlohmann::json::object();
  std::map<std::string, SourceLocation> var_where;
  SourceLocation where;
};

class Platforms {
 public:
  // Parses platforms.yaml; nothing is returned when any problem was found
  // (all reported with file:line). Variables are checked against the
  // catalog's declarations separately (CheckVariables), once roles are loaded.
  static std::optional<Platforms> Parse(std::string_view text, const std::string& path, Diagnostics& diagnostics);

  // Every release and architecture variable is declared by a role of
  // `catalog` and has a value its declaration accepts (file:line of the
  // variable otherwise).
  void CheckVariables(const Catalog& catalog, Diagnostics& diagnostics) const;

  // The entry for a node's `os` facts (id, version_id): an exact version's
  // entry first, else an entry for every version of the id; nullptr when none.
  const Release* Find(const nlohmann::json& os_facts) const;

  // Why a host with these `os` facts is not planned, naming its release and
  // the releases that are ("debian 11 (bullseye) is refused: ...; clusterctl
  // plans debian 12 (bookworm), ..."); empty when it is planned, and for
  // a catalog without platforms.yaml (test roles: nothing is refused).
  std::string Refusal(const nlohmann::json& os_facts) const;

  // The entry for a node's `kernel` facts (arch); nullptr when none.
  const Architecture* FindArchitecture(const nlohmann::json& kernel_facts) const;

  // Why a host with these `kernel` facts is not planned: its architecture
  // has no entry ("riscv64 is not an architecture clusterctl knows ...").
  // Empty when it has one, when the facts name none, and when the file has
  // no architectures (format 1, test catalogs).
  std::string ArchitectureRefusal(const nlohmann::json& kernel_facts) const;

  // The releases that are planned, supported ones first: "debian 12
  // (bookworm, supported), ubuntu 22.04 (jammy, planned only)".
  std::string PlannedList() const;

  const std::vector<Release>& releases() const { return releases_; }
  const std::vector<Architecture>& architectures() const { return architectures_; }
  bool empty() const { return releases_.empty(); }

 private:
  std::vector<Release> releases_;
  std::vector<Architecture> architectures_;
};

}  // namespace clusterctl
