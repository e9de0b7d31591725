// gpu.mig judged as the node judges it (spec_test_util.h) on real captures
// (tests/fixtures/captured/SOURCES.md): an H100 with seven 1g.10gb (its -lgi
// and -lci, and the 4x H100 -lgip), two 80 GB GPUs whose GPU instances have
// no compute instance (DCGM#138's -lgi). The mode query's lines are
// nvidia-smi's "INDEX, Enabled" CSV.
#include <doctest/doctest.h>

#include "controller/validate/checks/spec_test_util.h"
#include "tests/unit/fixture.h"

namespace clusterctl {
namespace {

testing::SpecBench MigNode(const std::string& modes, const nlohmann::json& layout) {
  testing::SpecBench bench;
  bench.node = NodeReadings::FromFacts(
      "gpu01", {{"pci", {{"gpu_count", 1}}}, {"modules", {"nvidia"}}, {"nvidia_driver", "590.48.01"}});
  bench.vars["nvidia_mig_layout"] = layout;
  bench.Reads("nvidia-smi mig mode", modes);
  bench.Reads("nvidia-smi mig -lgip", testing::CapturedFixture("nvidia-smi-mig-lgip--4xH100-SXM5-80GB--1.txt"));
  bench.Reads("nvidia-smi mig -lgi", testing::CapturedFixture("nvidia-smi-mig-lgi--H100-80GB-HBM3-7x1g--1.txt"));
  bench.Reads("nvidia-smi mig -lci", testing::CapturedFixture("nvidia-smi-mig-lci--H100-80GB-HBM3-7x1g--1.txt"));
  return bench;
}

TEST_CASE("gpu.mig: the layout the GPUs report against the inventory's, GPU by GPU") {
  testing::SpecBench seven = MigNode("0, Enabled\n", {"all-1g.10gb"});
  CheckResult pass = seven.Judge("gpu.mig");
  CHECK_MESSAGE(pass.outcome == CheckOutcome::kPass, pass.detail);
  CHECK(pass.measured == "1 GPU as laid out");
  CHECK(pass.threshold == "all-1g.10gb");

  seven.vars["nvidia_mig_layout"] = {"3g.40gb", "3g.40gb"};
  CheckResult other = seven.Judge("gpu.mig");
  CHECK(other.outcome == CheckOutcome::kFail);
  CHECK(other.detail ==
        "the MIG layout differs from the inventory's (3g.40gb, 3g.40gb) on 1 GPU: GPU 0: instances 1g.10gb, 1g.10gb, "
        "1g.10gb, 1g.10gb, 1g.10gb, 1g.10gb, 1g.10gb -> 3g.40gb, 3g.40gb");

  testing::SpecBench off = MigNode("0, Disabled\n", {"3g.40gb"});
  CHECK(off.Judge("gpu.mig").detail.find("GPU 0: MIG mode off -> on, instances 3g.40gb") != std::string::npos);

  // Two GPUs whose GPU instances have no compute instance (none listed).
  testing::SpecBench bare = MigNode("0, Enabled\n1, Enabled\n", {"3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"});
  bare.Reads("nvidia-smi mig -lgi", testing::CapturedFixture("nvidia-smi-mig-lgi--2x80GB-MIG--1.txt"));
  bare.Reads("nvidia-smi mig -lci", "No compute instances found: Not Found\n", 6);
  CheckResult uncomputed = bare.Judge("gpu.mig");
  CHECK(uncomputed.outcome == CheckOutcome::kFail);
  REQUIRE(uncomputed.evidence.size() == 2);
  CHECK(uncomputed.evidence[1] ==
        "GPU 1: instances 1g.10gb, 1g.10gb, 2g.20gb, 3g.40gb -> 1g.10gb, 1g.10gb, 2g.20gb, 3g.40gb (4 without a compute instance)");
}

TEST_CASE("gpu.mig: no layout skips; the SIMULATED driver, a GPU without MIG and an unreadable listing fail") {
  testing::SpecBench none = MigNode("0, Enabled\n", nullptr);
  none.vars.erase("nvidia_mig_layout");
  CHECK(none.Judge("gpu.mig").outcome == CheckOutcome::kSkip);

  testing::SpecBench simulated = MigNode("0, Enabled\n", {"all-1g.10gb"});
  simulated.node = NodeReadings::FromFacts(
      "gpu01", {{"pci", {{"gpu_count", 1}}}, {"modules", {"nvidia"}}, {"nvidia", {{"version", "550.144.03"}, {"simulated", true}}}});
  CheckResult sim = simulated.Judge("gpu.mig");
  CHECK(sim.outcome == CheckOutcome::kFail);
  CHECK(sim.detail.find("SIMULATED") != std::string::npos);

  testing::SpecBench l40s = MigNode("0, [N/A]\n", {"3g.40gb"});
  CHECK(l40s.Judge("gpu.mig").detail.find("[N/A]") != std::string::npos);

  testing::SpecBench broken = MigNode("0, Enabled\n", {"all-1g.10gb"});
  broken.Reads("nvidia-smi mig -lgi", "", 9, "Failed to display GPU instances: Insufficient Permissions");
  CheckResult unread = broken.Judge("gpu.mig");
  CHECK(unread.outcome == CheckOutcome::kFail);
  CHECK(unread.detail.find("cannot be read") != std::string::npos);
}

}  // namespace
}  // namespace clusterctl
