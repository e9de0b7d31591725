// Cross-cutting work around every host's run that belongs to no resource
// kind, e.g. the maintenance silence of a node that goes down on purpose.
// Each is a HostRunPhase in one file under engine/phases/, registered at
// start-up the way kinds register (kinds/step_kind.h), and linked in the
// same object library so that no registration is dropped. Every host run
// makes one instance of each registered phase (in the order of their
// names); HostRun calls them at the points below and names none of them.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "controller/engine/executor.h"
#include "controller/engine/kinds/step_kind.h"

namespace clusterctl {

class HostRunPhase {
 public:
  virtual ~HostRunPhase() = default;

  // The node is about to go down on purpose, for up to `down_for`: a
  // maintenance step's change is about to be applied, or a reboot asked
  // for (KindHost::NodeGoingDown). Deploy only: a plan changes nothing.
  virtual Task<void> NodeGoingDown(KindHost& /*host*/, const std::string& /*why*/, std::chrono::seconds /*down_for*/) {
    co_return;
  }
  // The host's roles and handlers are over, whatever their outcome; its
  // session, if one is open, is still open.
  virtual Task<void> HostDone(KindHost& /*host*/) { co_return; }
};

// What a phase is made from: the host's name and the run's context.
struct HostRunPhaseInputs {
  const std::string& host;
  const DeployContext& context;
};
// Null: the phase has nothing to do in this run (e.g. no Alertmanager).
using HostRunPhaseFactory = std::unique_ptr<HostRunPhase> (*)(const HostRunPhaseInputs& inputs);

class HostRunPhaseRegistration {
 public:
  // REQUIRES: no phase is registered under `name` yet (aborts otherwise).
  HostRunPhaseRegistration(const std::string& name, HostRunPhaseFactory make);
};

// One instance of each registered phase that has work in this run, by name.
std::vector<std::unique_ptr<HostRunPhase>> MakeHostRunPhases(const HostRunPhaseInputs& inputs);
// The registered phases' names (for tests).
std::vector<std::string> HostRunPhaseNames();

}  // namespace clusterctl
