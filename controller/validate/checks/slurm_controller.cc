// slurm.controller: judged by validation_run's cross phase (scontrol ping on the controller).
#include "controller/validate/checks/common.h"

namespace clusterctl::checks {
namespace {

const CheckRegistration kSlurmController({.name = "slurm.controller",
                                          .scope = kCluster,
                                          .summary = "slurmctld answers scontrol ping",
                                          .rank = 40,
                                          .needs_controller = true});

}  // namespace
}  // namespace clusterctl::checks
