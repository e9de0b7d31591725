// Mixed releases (docs/platforms.md#mixed-releases): whether the hosts of one
// cluster, each on its own OS release, can work together. The releases'
// component series (platforms.yaml `versions`: Slurm, Open MPI, munge) are
// compared with the cluster's references: the Slurm controller's for every
// Slurm daemon and command, the first MPI host's for Open MPI, the first
// munge host's for munge. A host that cannot join is refused at plan time,
// naming both hosts and versions; the others go on. Pure: tested on data.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "controller/catalog/platforms.h"

namespace clusterctl {

// What a host runs that the rules compare (from its roles).
struct MixHost {
  std::string name;
  const Release* release = nullptr;  // nullptr: no entry (refused elsewhere), not compared
  bool slurmctld = false;            // slurm-controller
  bool slurmdbd = false;             // slurm-accounting
  bool slurmd = false;               // slurm-node
  bool slurm_commands = false;       // slurm-common: sinfo, srun, sacctmgr on any Slurm host
  bool mpi = false;                  // mpi
  bool munge = false;                // munge
};

// A host's MixHost from the names of its roles (every role it gets, not a
// run's --roles selection): slurm-controller runs slurmctld, slurm-accounting
// slurmdbd, slurm-node slurmd, slurm-common the commands, mpi Open MPI,
// munge munged.
MixHost MixHostOf(const std::string& name, const Release* release, const std::vector<std::string>& roles);

// How many older major releases a Slurm daemon of `series` ("24.11")
// accepts RPCs from (Slurm's upgrade guide: two before 24.11, three from
// it on); -1 when `series` is not a Slurm major release this file knows.
int SlurmCompatibilityWindow(const std::string& series);

// How many major releases `older` is behind `newer` (negative when it is
// newer); nullopt when either is not a known Slurm major release.
std::optional<int> SlurmReleasesBehind(const std::string& newer, const std::string& older);

// Host name -> why it cannot join this cluster, for each host that cannot;
// empty when every host can (one release, or a mix that works). Hosts in
// `hosts` order; a host without a release entry or without the compared
// component's series is left alone.
std::map<std::string, std::string> MixedReleaseRefusals(const std::vector<MixHost>& hosts);

}  // namespace clusterctl
