#include "controller/cli/validate_command.h"

#include <doctest/doctest.h>

#include <sstream>

#include "controller/cli/status_command.h"

namespace clusterctl {

TEST_CASE("validate report: one row per check and outcome with hosts in range notation, then the failures") {
  std::vector<CheckResult> results = {
      Pass("slurm.node", CheckScope::kNode, "node02", "IDLE", "idle/mixed/allocated"),
      Pass("slurm.node", CheckScope::kNode, "node03", "IDLE", "idle/mixed/allocated"),
      Fail("slurm.node", CheckScope::kNode, "node04", "slurmd is not running on node04", {"systemctl is-active slurmd: inactive"}),
      Skip("gpu.driver", CheckScope::kNode, "node02", "no NVIDIA GPUs on the PCI bus of node02"),
      Skip("gpu.driver", CheckScope::kNode, "node03", "no NVIDIA GPUs on the PCI bus of node03")};
  std::ostringstream out;
  PrintValidationTable(results, out);
  std::string text = out.str();
  CHECK(text.find("node[02-03]  IDLE") != std::string::npos);
  CHECK(text.find("no NVIDIA GPUs on the PCI bus of node[02-03]") != std::string::npos);
  CHECK(text.find("Failures:\n  slurm.node on node04: slurmd is not running on node04\n      systemctl is-active slurmd: inactive") !=
        std::string::npos);
}

TEST_CASE("validate's table and failures show a node's escape sequences, never send them (issue 31)") {
  std::vector<CheckResult> results = {
      Fail("slurm.node", CheckScope::kNode, "node04", "state \x1b[2JDOWN", {"reason: \x1b]0;owned\x07", "\x9b"}),
      Pass("slurm.node", CheckScope::kNode, "node05", "\x1b[31mIDLE", "idle/mixed/allocated")};
  std::ostringstream out;
  PrintValidationTable(results, out);
  const std::string text = out.str();
  CHECK(text.find('\x1b') == std::string::npos);
  CHECK(text.find("\\x1b[31mIDLE") != std::string::npos);
  CHECK(text.find("slurm.node on node04: state \\x1b[2JDOWN\n      reason: \\x1b]0;owned\\x07\n      \\x9b\n") !=
        std::string::npos);
}

TEST_CASE("stored validation rows round-trip, and status sums a node's last run up") {
  CheckResult fail = Fail("ib.write_bw", CheckScope::kPair, "a+b", "below", {"line"}, "9000 MB/s", ">= 11000 MB/s");
  CheckResult back = FromStoredValidation(ToStoredValidation(fail));
  CHECK(back.ToJson() == fail.ToJson());
  std::vector<StoredValidation> run = {ToStoredValidation(Pass("reachable", CheckScope::kNode, "n1")),
                                       ToStoredValidation(Fail("gpu.driver", CheckScope::kNode, "n1", "driver not loaded")),
                                       ToStoredValidation(Fail("gpu.xid", CheckScope::kNode, "n1", "Xid 79"))};
  for (StoredValidation& v : run) v.run_id = 12;
  CHECK(SummarizeValidation(run) == "fail: gpu.driver, gpu.xid (run 12)");
  run.resize(1);
  CHECK(SummarizeValidation(run) == "pass (run 12)");
  CHECK(SummarizeValidation({}).empty());
}

}  // namespace clusterctl
