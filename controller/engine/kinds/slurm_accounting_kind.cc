// slurm_accounting: the planner checks the accounting objects whole (names,
// limits, every account and QoS they refer to) before any host is touched,
// with the same code the agent checks them with; each value's syntax was
// checked earlier at the inventory's file:line (the role's declarations).
#include "agent/resources/slurm_accounting_model.h"
#include "controller/engine/kinds/step_kind.h"

namespace clusterctl {
namespace {

class SlurmAccountingKind final : public StepKind {
 public:
  void Plan(KindPlanning& planning, nlohmann::json& params, PlannedStep& /*planned*/) const override {
    Result<agent::slurm_accounting::Desired> desired = agent::slurm_accounting::ParseDesired(params);
    if (!desired.ok()) {
      planning.diagnostics.Error(planning.step.where, "'" + planning.step.name + "': the Slurm accounting objects: " +
                                                          desired.status().message());
    }
  }
};

const StepKindRegistration kSlurmAccounting("slurm_accounting", std::make_unique<SlurmAccountingKind>());

}  // namespace
}  // namespace clusterctl
