#include "controller/cli/validate_command.h"

#include <doctest/doctest.h>

#include <algorithm>
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

TEST_CASE("validate report at the acceptance level: a row per node and measurement check, whose reading is whose") {
  CheckResult slow = Fail("net.iperf3", CheckScope::kNode, "node02", "mgmt: to node01 31.2 Gb/s < median 97.1 Gb/s - 20% of 3 nodes");
  slow.measured = "mgmt 31.2 Gb/s";
  slow.threshold = "mgmt >= 0.5 Gb/s, >= median - 20%";
  std::vector<CheckResult> results = {
      Pass("slurm.node", CheckScope::kNode, "node02", "IDLE", "idle/mixed/allocated"),
      Pass("net.iperf3", CheckScope::kNode, "node03", "mgmt 98 Gb/s", "mgmt >= 0.5 Gb/s, >= median - 20%"),
      slow,
      Pass("net.iperf3", CheckScope::kNode, "node01", "mgmt 97.1 Gb/s", "mgmt >= 0.5 Gb/s, >= median - 20%")};
  std::ostringstream out;
  PrintMeasurementTable(results, out);
  const std::string text = out.str();
  REQUIRE(text.find("Acceptance measurements per node:\n") == 1);
  const size_t node01 = text.find("node01  net.iperf3  pass    mgmt 97.1 Gb/s");
  const size_t node02 = text.find("node02  net.iperf3  fail    mgmt 31.2 Gb/s");
  CHECK(node01 != std::string::npos);
  CHECK(node02 != std::string::npos);
  CHECK(node01 < node02);
  CHECK(text.find("slurm.node") == std::string::npos);  // functional checks stay in the main table
  std::ostringstream none;
  PrintMeasurementTable({results[0]}, none);
  CHECK(none.str().empty());
}

TEST_CASE("validate report: skips with one cause on the same hosts are one row naming the checks") {
  std::vector<CheckResult> results;
  for (const char* check : {"gpu.count", "gpu.driver", "gpu.xid", "gpu.ecc"}) {
    for (const char* node : {"node02", "node03"}) {
      results.push_back(Skip(check, CheckScope::kNode, node, std::string("no NVIDIA GPUs on the PCI bus of ") + node));
    }
  }
  results.push_back(Skip("gpu.nvlink", CheckScope::kNode, "node02", "no NVIDIA GPUs on the PCI bus of node02"));
  results.push_back(Skip("gpu.nvlink", CheckScope::kNode, "node03", "no NVIDIA GPUs on the PCI bus of node03"));
  std::ostringstream out;
  PrintValidationTable(results, out);
  const std::string collapsed = out.str();
  CAPTURE(collapsed);
  CHECK(collapsed.find("gpu.count, gpu.driver, ... (5 checks)  skip    node[02-03]") != std::string::npos);
  CHECK(collapsed.find("no NVIDIA GPUs on the PCI bus of node[02-03]") != std::string::npos);
  CHECK(std::count(collapsed.begin(), collapsed.end(), '\n') == 2);  // the header and one row

  // The same cause on more hosts for one check, and another cause: rows of their own.
  results.push_back(Skip("gpu.count", CheckScope::kNode, "node04", "no NVIDIA GPUs on the PCI bus of node04"));
  results.push_back(Skip("ib.ports", CheckScope::kNode, "node02", "no InfiniBand adapter on node02"));
  out.str("");
  PrintValidationTable(results, out);
  const std::string text = out.str();
  CAPTURE(text);
  CHECK(text.find("gpu.count  ") != std::string::npos);
  CHECK(text.find("no NVIDIA GPUs on the PCI bus of node[02-04]") != std::string::npos);
  CHECK(text.find("gpu.driver, gpu.xid, ... (4 checks)") != std::string::npos);
  CHECK(text.find("no InfiniBand adapter on node02") != std::string::npos);
  CHECK(std::count(text.begin(), text.end(), '\n') == 4);  // the header and three rows
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
