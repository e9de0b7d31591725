// nccl.node: all_reduce_perf in a Slurm job on one node, judged by
// validation_run's job phase (job_checks.cc) on the nodes where slurm.node
// and gpu.count passed and nccl-tests is installed.
#include "controller/validate/checks/common.h"
#include "controller/validate/checks/gpu_jobs.h"

namespace clusterctl::checks {
namespace {

const CheckRegistration kNcclNode({.name = "nccl.node",
                                   .scope = kNode,
                                   .summary = "all_reduce_perf within a node: correct, bandwidth above the floor",
                                   .rank = 260,
                                   .requirements = {ComputeNodeOfSlurm()},
                                      .prerequisites = {{"slurm.node"}, {"gpu.count"}},
                                   .probes = {&NcclTestsProbe()},
                                   .needs_controller = true});

}  // namespace
}  // namespace clusterctl::checks
