// What the checks that run Slurm jobs on GPUs share (slurm.gpu_job,
// nccl.node, nccl.cluster): which compute nodes can take a GPU job, and why
// not, and the all_reduce_perf command nccl-tests runs in one.
#pragma once

#include <string>
#include <vector>

#include "controller/validate/check_spec.h"
#include "controller/validate/cluster_run.h"

namespace clusterctl::checks {

// A selected compute node that answered, for the GPU jobs.
struct GpuJobNode {
  std::string host;
  int gpus = 0;         // NVIDIA GPUs on its PCI bus
  std::string why_not;  // why no GPU job runs there ("": one can)
  std::string cause;    // the failed check behind `why_not` ("": none failed: a skip)
};

// Every selected compute node that answered, in the selection's order: no
// GPUs, cannot run jobs (slurm.node or munge.decode failed), GPUs not usable
// (gpu.driver or gpu.count failed), or ready for a GPU job.
std::vector<GpuJobNode> GpuJobNodes(const ClusterRun& run);

// test -x <validate_nccl_tests_dir>/all_reduce_perf (nccl.node, nccl.cluster).
const ProbeSpec& NcclTestsProbe();
// Whether the probe phase found nccl-tests' all_reduce_perf on the node.
bool HasNcclTests(const NodeReadings& node);

// validate_nccl_tests_dir's all_reduce_perf from `vars`, 8 B to
// validate_nccl_max_bytes doubling, `gpus` GPUs a task.
Argv AllReducePerf(const nlohmann::json& vars, int gpus);
// Where all_reduce_perf is looked for (validate_nccl_tests_dir).
std::string NcclTestsDir(const nlohmann::json& vars);

}  // namespace clusterctl::checks
