// users.job: judged by validation_run's job phase
// (job_checks.cc) on the submit host, over the node checks listed here.
#include "controller/validate/checks/common.h"

namespace clusterctl::checks {
namespace {

const CheckRegistration kUsersJob(
    {.name = "users.job",
     .scope = kCluster,
     .summary = "the first directory user runs a job (srun as that user on a usable node) with the directory's UID",
     .rank = 85,
     .prerequisites = {{"slurm.node"}, {"users.consistent"}},
     .needs_controller = true});

}  // namespace
}  // namespace clusterctl::checks
