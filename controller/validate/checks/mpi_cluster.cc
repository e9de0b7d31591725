// mpi.cluster: the mpi role's test program across two compute nodes with
// srun --mpi=pmix, judged by validation_run's job phase (job_checks.cc,
// mpi_ring.h) on the first two usable compute nodes.
#include "controller/validate/checks/common.h"

namespace clusterctl::checks {
namespace {

const CheckRegistration kMpiCluster({.name = "mpi.cluster",
                                     .scope = kCluster,
                                     .summary = "an MPI ring and ping-pong across two nodes (srun --mpi=pmix): latency and bandwidth",
                                     .rank = 265,
                                     .prerequisites = {{"slurm.node"}},
                                     .probes = {&MpiTestProgramProbe()},
                                     .needs_controller = true});

}  // namespace
}  // namespace clusterctl::checks
