// storage.fio's cluster phase on a FakeClusterRun: the write, read and
// remove on every node, fio's options from the variables, the verdicts
// against the floors and the peers' median (a slow disk named), and every
// way a node ends without a reading. The reports are in the shape fio 3.x
// prints with --output-format=json (jobs[0].write/read.bw_bytes, a job's
// "error"), built here, not captured: storage.fio reads only those fields.
#include <doctest/doctest.h>

#include <algorithm>

#include "controller/validate/checks/spec_test_util.h"
#include "tests/unit/inventory_text.h"

namespace clusterctl {
namespace {

const char* kInventory = R"(cluster: testbed
connection: {user: root}
hosts:
  node01: {address: 10.9.0.1}
  node02: {address: 10.9.0.2}
  node03: {address: 10.9.0.3}
)";

std::string Report(const std::string& rw, double mbps, int error = 0) {
  const std::string other = rw == "write" ? "read" : "write";
  return R"({"fio version": "fio-3.33", "jobs": [{"jobname": "clusterctl-accept", "error": )" + std::to_string(error) +
         R"(, ")" + rw + R"(": {"io_bytes": 1, "bw_bytes": )" + std::to_string(static_cast<long long>(mbps * 1e6)) +
         R"(, "bw": 1}, ")" + other + R"(": {"io_bytes": 0, "bw_bytes": 0, "bw": 0}}]})";
}

std::string Rw(const Argv& argv) {
  for (const std::string& a : argv) {
    if (a.rfind("--rw=", 0) == 0) return a.substr(5);
  }
  return "";
}

struct FioBench : testing::FakeClusterRun {
  std::map<std::string, double> write_mbps = {{"node01", 1800}, {"node02", 1750}, {"node03", 1790}};
  FioBench() {
    inv = testing::InventoryFromText(kInventory);
    for (const char* node : {"node01", "node02", "node03"}) {
      Node(node).outputs["fio installed"] = ToolOutput{};
      probed.push_back({node, true, true, ""});
    }
    answer = [this](const HostCommand& c) {
      ToolOutput out;
      if (c.argv.front() != "/usr/bin/fio") return out;
      const std::string rw = Rw(c.argv);
      out.out = Report(rw, rw == "write" ? write_mbps.at(c.host) : 2500);
      return out;
    };
  }
};

TEST_CASE("storage.fio: every node writes, reads and removes its file; alike nodes pass") {
  FioBench run;
  REQUIRE(run.Phase("storage.fio").size() == 3);
  CHECK_MESSAGE(run.Of("node02").outcome == CheckOutcome::kPass, run.Of("node02").detail);
  CHECK(run.Of("node02").measured == "write 1750 MB/s, read 2500 MB/s");
  CHECK(run.Of("node02").threshold == "write >= 50 MB/s, >= median - 25%, read >= 50 MB/s, >= median - 25%");
  REQUIRE(run.ran.size() == 9);
  const Argv& write = run.ran[0].argv;
  CHECK(write[0] == "/usr/bin/fio");
  CHECK(write[2].rfind("--filename=/var/tmp/clusterctl-fio-", 0) == 0);
  CHECK(Argv(write.begin() + 3, write.end()) == Argv{"--rw=write", "--bs=1M", "--size=1024M", "--runtime=30",
                                                     "--time_based", "--direct=1", "--output-format=json"});
  CHECK(Rw(run.ran[1].argv) == "read");
  CHECK(run.ran[2].argv == Argv{"rm", "-f", "--", write[2].substr(11)});
  CHECK(run.progress == std::vector<std::string>{"storage.fio: write then read on 3 nodes (30 s each)"});
}

TEST_CASE("storage.fio: a disk writing at a third of its peers' speed fails, named with its reading and the median") {
  FioBench run;
  run.write_mbps["node02"] = 600;
  run.Phase("storage.fio");
  CHECK(run.Of("node02").outcome == CheckOutcome::kFail);
  CHECK(run.Of("node02").detail == "write: 600 MB/s < median 1790 MB/s - 25% of 3 nodes");
  CHECK(run.Of("node01").outcome == CheckOutcome::kPass);
  CHECK(run.Of("node03").outcome == CheckOutcome::kPass);
}

TEST_CASE("storage.fio: the directory, size, direct I/O and floors are the node's variables") {
  FioBench run;
  for (const char* node : {"node01", "node02", "node03"}) {
    run.vars[node] = {{"validate_fio_directory", "/scratch"}, {"validate_fio_size_mib", 64},
                      {"validate_fio_direct", false}, {"validate_fio_read_min_mbps", 3000}, {"validate_acceptance_seconds", 3}};
  }
  run.Phase("storage.fio");
  const Argv& write = run.ran[0].argv;
  CHECK(write[2].rfind("--filename=/scratch/clusterctl-fio-", 0) == 0);
  CHECK(std::count(write.begin(), write.end(), "--size=64M") == 1);
  CHECK(std::count(write.begin(), write.end(), "--direct=0") == 1);
  CHECK(std::count(write.begin(), write.end(), "--runtime=3") == 1);
  CHECK(run.Of("node01").outcome == CheckOutcome::kFail);
  CHECK(run.Of("node01").detail == "read: 2500 MB/s < floor 3000 MB/s");
}

TEST_CASE("storage.fio: no reading is no pass: fio's job error, no report, not installed; warnings before the report are read") {
  FioBench run;
  run.Node("node03").outputs["fio installed"].exit_code = 1;
  run.answer = [](const HostCommand& c) {
    ToolOutput out;
    if (c.argv.front() != "/usr/bin/fio") return out;
    if (c.host == "node01") out.out = "fio: this platform does not support O_DIRECT well\n" + Report(Rw(c.argv), 900);
    if (c.host == "node02") out.out = Rw(c.argv) == "write" ? Report("write", 0, 22) : "fio: file not found";
    return out;
  };
  run.Phase("storage.fio");
  CHECK(run.Of("node01").measured == "write 900 MB/s, read 900 MB/s");
  CHECK(run.Of("node02").outcome == CheckOutcome::kFail);
  CHECK(run.Of("node02").detail == "write: fio's job failed with error 22; read: fio printed no JSON report");
  CHECK(run.Of("node03").detail == "fio is not installed on node03 (the acceptance-tools role installs it: acceptance_tools: true)");
}

}  // namespace
}  // namespace clusterctl
