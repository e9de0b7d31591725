// users.job: the first of the submit host's directory_users runs a job (as
// that user, runuser then srun -N 1 from the submit host) on the first
// usable compute node; `id -u` in it must print the directory's UID.
#include "common/strings.h"
#include "controller/validate/checks/common.h"
#include "controller/validate/checks/users_consistent.h"
#include "controller/validate/cluster_run.h"

namespace clusterctl::checks {
namespace {

constexpr const char* kCheck = "users.job";

// The verdict on the job `user` (UID `uid`) ran on `node`.
CheckResult Judge(const std::string& cluster, const DirectoryUser& user, const std::string& node, const ToolOutput& job) {
  const std::string printed(Trim(job.out));
  const std::string expected = std::to_string(user.uid);
  const std::string what = "srun as " + user.name + " on " + node;
  if (job.exit_code != 0 || job.timed_out) {
    return Fail(kCheck, kCluster, cluster,
                what + " failed" + (job.timed_out ? " (timed out)" : " (exit " + std::to_string(job.exit_code) + ")"),
                TailLines(job.Both()), "", "uid " + expected);
  }
  if (printed != expected) {
    return Fail(kCheck, kCluster, cluster,
                what + ": the job ran as uid " + Printable(printed, 40) + ", not the directory's " + expected,
                TailLines(job.Both()), Printable(printed, 40), "uid " + expected);
  }
  return Pass(kCheck, kCluster, cluster, "uid " + printed, "uid " + expected,
              what + ": id -u in the job is the directory's UID");
}

void RunPhase(ClusterRun& run) {
  const std::string& cluster = run.cluster();
  const std::string& submit = run.SubmitHost();
  const std::vector<DirectoryUser> users = DirectoryUsers(run.View(submit).vars);
  if (users.empty() || users.front().uid < 0) return run.Add(Skip(kCheck, kCluster, cluster, "no directory_users in the inventory"));
  const std::vector<std::string> usable = run.UsableComputeNodes();
  if (usable.empty()) return run.Add(Fail(kCheck, kCluster, cluster, kNoUsableComputeNode));
  const DirectoryUser& user = users.front();
  const std::string& node = usable.front();
  // As the user (runuser: the agent is root), on one usable node.
  const Argv argv = {"runuser", "-u", user.name, "--", "srun", "-N", "1", "-w", node, "--immediate=60", "--time=5",
                     "-J", "clusterctl-validate", "id", "-u"};
  Result<ToolOutput> job = std::move(run.RunCommands({{.host = submit, .argv = argv, .timeout_s = 180}}).front());
  if (!job.ok()) return run.Add(Fail(kCheck, kCluster, cluster, job.status().message()));
  run.Add(Judge(cluster, user, node, *job));
}

const CheckRegistration kUsersJob(
    {.name = kCheck,
     .scope = kCluster,
     .summary = "the first directory user runs a job (srun as that user on a usable node) with the directory's UID",
     .rank = 85,
     .prerequisites = {{"slurm.node"}, {"users.consistent"}},
     .cluster_phase = {.run = RunPhase, .slurm_jobs = true},
     .needs_controller = true});

}  // namespace
}  // namespace clusterctl::checks
