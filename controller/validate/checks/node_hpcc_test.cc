// node.hpcc on a real hpcc output (tests/fixtures/captured/SOURCES.md):
// three single-process runs of hpcc 1.5.0 on one machine, appended to one
// hpccoutf.txt as hpcc does (HPL 5.57, 5.40 and 4.46 GFlop/s; STREAM triad
// 68.9, 76.6 and 60.2 GB/s). Each node of the bench is given the file up to
// the end of one run, so its last summary is that run: three real readings
// of which the third is 17% below the median.
#include <doctest/doctest.h>

#include "common/strings.h"
#include "controller/validate/checks/spec_test_util.h"
#include "controller/validate/hpcc.h"
#include "tests/unit/fixture.h"
#include "tests/unit/inventory_text.h"

namespace clusterctl {
namespace {

const char* kFixture = "hpccoutf--1proc-N2560-3-runs-appended--1.txt";

// The capture up to the end of its `run`-th summary (1-based).
std::string UpToRun(int run) {
  const std::string text = testing::CapturedFixture(kFixture);
  size_t at = 0;
  for (int i = 0; i < run; ++i) at = text.find("End of Summary section.", at) + 1;
  return text.substr(0, at - 1 + std::string("End of Summary section.\n").size());
}

TEST_CASE("hpcc: the last summary of hpccoutf.txt is the run's: HPL in GFlop/s, its order, STREAM's triad") {
  auto last = ParseHpccSummary(testing::CapturedFixture(kFixture));
  REQUIRE(last.ok());
  CHECK(last->hpl_n == 2560);
  CHECK(last->hpl_gflops == doctest::Approx(4.46325));
  CHECK(last->stream_triad_gbs == doctest::Approx(60.168));
  auto first = ParseHpccSummary(UpToRun(1));
  REQUIRE(first.ok());
  CHECK(first->hpl_gflops == doctest::Approx(5.57254));
  CHECK(first->stream_triad_gbs == doctest::Approx(68.8907));
}

TEST_CASE("hpcc: no summary, Success=0, a failed residual check or a missing reading is no reading") {
  const std::string text = UpToRun(1);
  const std::string cut = text.substr(0, text.find("Begin of Summary section."));
  CHECK(ParseHpccSummary(cut).status().message() == "hpccoutf.txt has no summary (hpcc did not finish)");
  std::string failed = text;
  failed.replace(failed.rfind("Success=1"), 9, "Success=0");
  CHECK(ParseHpccSummary(failed).status().message() == "hpcc's summary says Success=0");
  std::string wrong = text;
  wrong.replace(wrong.rfind("0 tests completed and failed residual checks"), 1, "1");
  CHECK(ParseHpccSummary(wrong).status().message() == "HPL: 1 tests failed their residual check (wrong results)");
  std::string no_triad = text;
  no_triad.replace(no_triad.rfind("StarSTREAM_Triad="), 17, "StarSTREAM_Triad_=");
  CHECK(ParseHpccSummary(no_triad).status().message() == "hpcc's summary has no StarSTREAM_Triad");
}

TEST_CASE("hpcc: the order from memory and the input file") {
  CHECK(HpccOrderFor(1024, 5, 80) == 2560);         // sqrt(53687091 / 8) = 2590 -> 2560
  CHECK(HpccOrderFor(512 * 1024, 5, 80) == 58560);  // a 512 GiB node
  CHECK(HpccOrderFor(1, 5, 80) == 80);
  const std::string input = HpccInput(2560, 80);
  CHECK(Split(input, '\n').size() == 37);  // 36 lines and the last newline
  CHECK(input.find("\n2560         Ns\n") != std::string::npos);
  CHECK(input.find("\n80           NBs\n") != std::string::npos);
}

const char* kInventory = R"(cluster: testbed
connection: {user: root}
hosts:
  node01: {address: 10.9.0.1}
  node02: {address: 10.9.0.2}
  node03: {address: 10.9.0.3}
)";

struct HpccBench : testing::FakeClusterRun {
  HpccBench() {
    inv = testing::InventoryFromText(kInventory);
    int run = 1;
    for (const char* node : {"node01", "node02", "node03"}) {
      Node(node, {{"memory", {{"total_mib", 1024}}}}).outputs["hpcc installed"] = ToolOutput{};
      probed.push_back({node, true, true, ""});
      output[node] = UpToRun(run++);
    }
    answer = [this](const HostCommand& c) {
      ToolOutput out;
      if (c.argv.front() == "cat") out.out = output.at(c.host);
      return out;
    };
  }
  std::map<std::string, std::string> output;
};

TEST_CASE("node.hpcc: each node runs hpcc in its own directory; within 20% of the median they pass") {
  HpccBench run;
  run.Phase("node.hpcc");
  REQUIRE(run.ran.size() == 15);
  const std::string dir = run.ran[0].argv.back();
  CHECK(dir.rfind("/var/tmp/clusterctl-hpcc-", 0) == 0);
  CHECK(run.ran[0].argv == Argv{"mkdir", "-p", "--", dir});
  CHECK(run.ran[1].argv == Argv{"tee", "--", dir + "/hpccinf.txt"});
  CHECK(run.ran[1].input == HpccInput(2560, 80));
  CHECK(run.ran[2].argv == Argv{"env", "-C", dir, "OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1",
                                "OMPI_MCA_btl=self", "/usr/bin/hpcc"});
  CHECK(run.ran[4].argv == Argv{"rm", "-rf", "--", dir});
  CHECK_MESSAGE(run.Of("node03").outcome == CheckOutcome::kPass, run.Of("node03").detail);
  CHECK(run.Of("node03").measured == "hpl 4.46 GFlop/s, stream 60.17 GB/s");
  CHECK(run.progress == std::vector<std::string>{"node.hpcc: HPL (N 2560 on node01) and STREAM on 3 nodes"});
}

TEST_CASE("node.hpcc: at 10% the third run is the outlier, named with both readings; hpcc's failure is no reading") {
  HpccBench run;
  for (const char* node : {"node01", "node02", "node03"}) run.vars[node] = {{"validate_hpcc_outlier_percent", 10}, {"validate_hpcc_n", 1000}};
  run.Phase("node.hpcc");
  CHECK(run.ran[1].input == HpccInput(1000, 80));
  CHECK(run.Of("node01").outcome == CheckOutcome::kPass);
  CHECK(run.Of("node02").outcome == CheckOutcome::kPass);
  CHECK(run.Of("node03").outcome == CheckOutcome::kFail);
  CHECK(run.Of("node03").detail == "hpl: 4.46 GFlop/s < median 5.4 GFlop/s - 10% of 3 nodes; "
                                   "stream: 60.17 GB/s < median 68.89 GB/s - 10% of 3 nodes");

  HpccBench broken;
  broken.answer = [](const HostCommand& c) {
    ToolOutput out;
    if (c.argv.back() == "/usr/bin/hpcc" && c.host == "node02") {
      out.exit_code = 1;
      out.err = "hpcc: cannot open hpccinf.txt";
    }
    return out;
  };
  broken.Phase("node.hpcc");
  CHECK(broken.Of("node02").outcome == CheckOutcome::kFail);
  CHECK(broken.Of("node02").detail == "hpl: hpcc exit 1: hpcc: cannot open hpccinf.txt");
  CHECK(broken.Of("node01").detail == "hpl: hpccoutf.txt has no summary (hpcc did not finish)");
}

}  // namespace
}  // namespace clusterctl
