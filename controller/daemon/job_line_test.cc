#include "controller/daemon/job_line.h"

#include <doctest/doctest.h>

#include "common/strings.h"

namespace clusterctl {
namespace {

JobInfo Job(RunKind kind, JobStatus status, nlohmann::json summary) {
  JobInfo job;
  job.job = 7;
  job.kind = kind;
  job.status = status;
  job.summary = std::move(summary);
  return job;
}

// Names that do not collapse into ranges: the number spelled in letters.
std::vector<std::string> Hosts(const std::string& prefix, int count) {
  std::vector<std::string> names;
  for (int i = 0; i < count; ++i) {
    std::string name = prefix;
    for (int n = i; n > 0 || name.size() == prefix.size(); n /= 26) name += static_cast<char>('a' + n % 26);
    names.push_back(name);
  }
  return names;
}

}  // namespace

TEST_CASE("job line: a deploy's counts, a plan's would-change, a drift check's drifted hosts collapsed") {
  JobInfo deploy = Job(RunKind::kDeploy, JobStatus::kOk, {{"hosts", 12}, {"changed", 42}, {"failed", 0}, {"check", false}});
  CHECK(JobEndLine(deploy) == "job 7: deploy ok: 12 hosts, 42 changed, 0 failed");
  CHECK(JobEndLevel(deploy) == LogLevel::kInfo);

  JobInfo plan = Job(RunKind::kPlan, JobStatus::kOk, {{"hosts", 3}, {"changed", 2}, {"failed", 0}, {"check", true}});
  CHECK(JobEndLine(plan) == "job 7: plan ok: 3 hosts, 2 would change, 0 failed");

  JobInfo drift = Job(RunKind::kDrift, JobStatus::kOk, {{"hosts", 900}, {"changed", 3}, {"failed", 0}, {"check", true},
                                     {"drifted", {"gpu003", "gpu001", "gpu002", "login"}}});
  CHECK(JobEndLine(drift) == "job 7: drift ok: 900 hosts, 3 would change, 0 failed; drifted: gpu[001-003],login");
  CHECK(JobEndLevel(drift) == LogLevel::kWarning);
  drift.summary["drifted"] = nlohmann::json::array();
  CHECK(JobEndLine(drift) == "job 7: drift ok: 900 hosts, 3 would change, 0 failed; no drift");
  CHECK(JobEndLevel(drift) == LogLevel::kInfo);

  JobInfo stopped = Job(RunKind::kDeploy, JobStatus::kStopped, {{"hosts", 2}, {"changed", 1}, {"failed", 0}, {"stopped", true}});
  CHECK(JobEndLine(stopped) == "job 7: deploy stopped: 2 hosts, 1 changed, 0 failed, stopped");
  CHECK(JobEndLevel(stopped) == LogLevel::kWarning);
}

TEST_CASE("job line: a deploy whose hosts were unreachable says so") {
  JobInfo deploy = Job(RunKind::kDeploy, JobStatus::kFailed, {{"hosts", 6}, {"changed", 0}, {"failed", 0}, {"check", false}, {"unreachable", 6}});
  CHECK(JobEndLine(deploy) == "job 7: deploy failed: 6 hosts, 0 changed, 0 failed, 6 unreachable");
}

TEST_CASE("job line: a failed job is an error, with its message on one line") {
  JobInfo failed = Job(RunKind::kDeploy, JobStatus::kFailed, {{"error", "internal error: fan-out broke\nsecond line"}});
  CHECK(JobEndLine(failed) == "job 7: deploy failed: internal error: fan-out broke\\x0asecond line");
  CHECK(JobEndLevel(failed) == LogLevel::kError);
  CHECK(JobEndLine(Job(RunKind::kDeploy, JobStatus::kFailed, nullptr)) == "job 7: deploy failed");
}

TEST_CASE("job line: a validation's failures grouped by check, with the first failure's detail") {
  JobInfo validate = Job(RunKind::kValidate, JobStatus::kFailed,
                         {{"pass", 10},
                          {"fail", 3},
                          {"skip", 1},
                          {"failed",
                           {{{"check", "reachable"}, {"subject", "node02"}, {"detail", "SSH-2.0-caf\xe9 \xff"}},
                            {{"check", "clock.offset"}, {"subject", "node01"}, {"detail", "3 s"}},
                            {{"check", "reachable"}, {"subject", "node01"}, {"detail", "refused"}}}}});
  CHECK(JobEndLine(validate) == "job 7: validate failed: 10 pass, 3 fail, 1 skip; failed: reachable on node[01-02], "
                                "clock.offset on node01 (node02: SSH-2.0-caf\\xe9 \\xff)");
  CHECK(JobEndLevel(validate) == LogLevel::kError);
}

TEST_CASE("job line: bounded, one line and valid UTF-8 whatever the cluster's size and the nodes' text") {
  // 20000 drifted hosts whose names do not collapse, with bytes that are not UTF-8.
  std::vector<std::string> drifted = Hosts("n\xff\x1b]0;x-", 20000);
  JobInfo drift = Job(RunKind::kDrift, JobStatus::kOk, {{"hosts", 20000}, {"changed", 1}, {"failed", 0}, {"drifted", drifted}});
  // The same in a validation, every host failing with a multi-kilobyte detail.
  nlohmann::json failures = nlohmann::json::array();
  for (const std::string& host : Hosts("gpu-\xe9", 5000)) {
    failures.push_back({{"check", "gpu.ecc"}, {"subject", host}, {"detail", std::string(4096, '\xfe') + "\n"}});
  }
  JobInfo validate = Job(RunKind::kValidate, JobStatus::kFailed, {{"pass", 0}, {"fail", 5000}, {"skip", 0}, {"failed", failures}});
  JobInfo error = Job(RunKind::kDeploy, JobStatus::kFailed, {{"error", std::string(100000, 'x') + "\xc3"}});
  for (const JobInfo& job : {drift, validate, error}) {
    const std::string line = JobEndLine(job);
    CAPTURE(line);
    CHECK(line.size() <= kMaxJobLine);
    CHECK(line.size() > 100);
    CHECK(line.substr(line.size() - 3) == "...");
    CHECK(line.find('\n') == std::string::npos);
    CHECK(line.find('\x1b') == std::string::npos);
    CHECK_FALSE(FindInvalidUtf8(line));
  }
}

TEST_CASE("job line: summaries of unexpected shape read as absent, never throw") {
  JobInfo odd = Job(RunKind::kDeploy, JobStatus::kOk, {{"hosts", "many"}, {"changed", nullptr}, {"check", "yes"}, {"drifted", 3}});
  CHECK(JobEndLine(odd) == "job 7: deploy ok: 0 hosts, 0 changed, 0 failed; no drift");
  JobInfo odd_validate = Job(RunKind::kValidate, JobStatus::kFailed, {{"pass", 1}, {"failed", {1, "x", nullptr}}});
  CHECK(JobEndLine(odd_validate) == "job 7: validate failed: 1 pass, 0 fail, 0 skip");
}

}  // namespace clusterctl
