// Which of a host's package steps are installed up front, in one apt (or
// dnf) transaction before the roles they lead (kinds/package_kind.cc runs it).
//
// A package step joins when running it first cannot change what it does or
// what the steps before it do:
//   - it installs (state present) without a pinned version: a pinned family
//     moves in its own transaction, and may be a downgrade;
//   - every step of its role before it is a package step or a package
//     source (a repository) that joins too (a role that writes a directory,
//     an account or a preseed before its package keeps that order), and no
//     wait of its role for another host's role comes before it (a wait with
//     `before: STEP` lets the steps ahead of STEP lead);
//   - no step before it in the host's run that does not join changes where
//     packages come from (a repository after other steps of its role, a file
//     under /etc/apt).
// The sources that join are added first, in run order, then the packages
// are installed in one transaction (the issue's "a repository a role adds
// comes first"): a package of an earlier role then sees a repository a
// later role's leading steps add, where one transaction per step would not
// have (it matters only if that repository carries a newer version of it).
//   - no later step of the host removes one of its packages;
//   - it will be sent to the node in this run (not skipped, not recorded done).
// The step still runs in its place; it finds its packages installed and is
// credited with the change (KindHost::CreditUpFront), so its notifications, the recap and
// plan's prediction are what they would be one transaction per step.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "controller/engine/planner.h"

namespace clusterctl {

// The scan starts at the role `from` (the steps before it have run) and
// ends at a change of package sources that does not join; the next scan
// starts at the role after the one holding it (`next_scan`, null when none
// is left), once that role has run: so a host installs up front once per
// stretch of roles between such changes (on a GPU node: before
// nvidia-driver, whose CUDA repository follows its checks, and after it).
struct UpFrontSteps {
  std::vector<const PlannedStep*> sources;   // added first, in run order
  std::vector<const PlannedStep*> packages;  // then installed together
  const Role* next_scan = nullptr;
};
UpFrontSteps UpFrontPackageSteps(const HostPlan& plan, const std::function<bool(const PlannedStep&)>& will_run,
                                 const Role* from = nullptr);

// A run of package steps: `first` and the package steps right after it in
// its role (skipped steps between them do not count; any other step ends
// it), each installing (state present, pinned or not), sent in this run,
// no wait of the role before it and no maintenance step. The run is returned only when `first`
// starts it (the role's step before it that will run is not part of it)
// and it has two steps or more; else it is empty. Installed in one
// transaction when `first` is about to run (kinds/package_kind.cc): on a
// GPU node the kernel headers and the pinned driver. Nothing else runs
// between them one step at a time either, so only the transactions differ.
std::vector<const PlannedStep*> PackageRunFrom(const HostPlan& plan, const PlannedStep& first,
                                               const std::function<bool(const PlannedStep&)>& will_run);

// A package step's pinned version ("" when none).
std::string PinnedVersionOf(const PlannedStep& step);

// The package names of a package step's `name` parameter (a word or a list).
std::vector<std::string> PackageNamesOf(const PlannedStep& step);

// Each joined step's share of the packages found missing before the batch:
// a name missing is claimed by the first step (in run order) naming it,
// as it would have installed it; the others find it installed.
std::vector<std::set<std::string>> ClaimMissing(const std::vector<const PlannedStep*>& steps,
                                                const std::set<std::string>& missing);

}  // namespace clusterctl
